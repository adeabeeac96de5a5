"""``python -m analytics derive``'s command line (``analytics.llm.derive_cli``): its flags, its
help and its one-line errors. What the derived files hold: test_planner_inputs.py,
test_board_inputs.py, test_derived_integrity.py."""

from __future__ import annotations

import pytest

from analytics.core import db, derived
from analytics.llm import (
    board_inputs,
    derive_cli,
    diff_inputs,
    fit_inputs,
    planner_inputs,
    ratings,
)
from tests.fixtures.cli import run_main

FIX = "fix: python -m analytics derive [VERSION] [--check] [--planner-only] [--force] (see --help)"


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every derive step the command takes, as (step, version); nothing is computed."""
    seen: list[tuple[str, str]] = []

    def step(name: str, result):
        return lambda version, **options: seen.append((name, version)) or result

    monkeypatch.setattr(db, "ensure_snapshot", lambda: "vcurrent")
    monkeypatch.setattr(ratings, "derive", step("ratings", ["r.parquet"]))
    monkeypatch.setattr(diff_inputs, "derive", step("changes", ["c.parquet"]))
    monkeypatch.setattr(derive_cli, "board_inputs_of", step("board", ["b.parquet"]))
    monkeypatch.setattr(derive_cli, "board_table_of", step("board table", ["t.parquet"]))
    monkeypatch.setattr(fit_inputs, "derive", step("fit inputs", ["f.json"]))
    monkeypatch.setattr(planner_inputs, "derive", step("planner", ["p.parquet"]))
    monkeypatch.setattr(ratings, "stale_reason", step(f"check {ratings.__name__}", None))
    monkeypatch.setattr(diff_inputs, "stale_reason", step(f"check {diff_inputs.__name__}", None))
    for module in (board_inputs, planner_inputs):
        monkeypatch.setattr(module.TABLES, "stale_reason", step(f"check {module.__name__}", None))
    monkeypatch.setattr(fit_inputs.FILES, "stale_reason", step("check fit inputs", None))
    monkeypatch.setattr(board_inputs.RATED, "stale_reason", step("check board table", None))
    return seen


def test_derive_runs_every_step_on_the_given_version(calls, capsys) -> None:
    rc, out, err = run_main(capsys, derive_cli.main, "derive", "v1")
    assert (rc, err) == (0, "")
    files = ["r.parquet", "c.parquet", "b.parquet", "t.parquet", "f.json", "p.parquet"]
    assert out.splitlines() == files
    steps = ["ratings", "changes", "board", "board table", "fit inputs", "planner"]
    assert calls == [(step, "v1") for step in steps]


def test_without_a_version_the_current_snapshot_is_derived(calls, capsys) -> None:
    rc, *_ = run_main(capsys, derive_cli.main, "derive", "--planner-only")
    v = "vcurrent"
    assert rc == 0 and calls == [("board", v), ("fit inputs", v), ("planner", v)]


def test_check_writes_nothing(calls, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(derived, "folder", lambda version: tmp_path / version)
    rc, out, _ = run_main(capsys, derive_cli.main, "derive", "--check", "v1")
    assert rc == 0 and out.strip() == f"{tmp_path / 'v1'}: up to date"
    assert [name for name, _ in calls] == [
        "check analytics.llm.planner_inputs", "check analytics.llm.board_inputs",
        "check fit inputs", "check analytics.llm.ratings",
        "check analytics.llm.diff_inputs", "check board table",
    ]
    calls.clear()
    assert run_main(capsys, derive_cli.main, "derive", "v1", "--planner-only", "--check")[0] == 0
    planner_only = {"check analytics.llm.ratings", "check analytics.llm.diff_inputs"}
    assert (planner_only | {"check board table"}).isdisjoint(
        name for name, _ in calls
    )


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (["a", "b"], "unrecognized arguments: b"),
        (["--fast"], "unrecognized arguments: --fast"),
        (["v1", "--check=yes"], "argument --check: ignored explicit argument 'yes'"),
    ],
)
def test_a_bad_command_line_is_one_problem_line(calls, capsys, argv, what) -> None:
    rc, out, err = run_main(capsys, derive_cli.main, "derive", *argv)
    assert (rc, out, calls) == (2, "", [])
    assert err.splitlines() == [f"error: python -m analytics derive: {what}; {FIX}"]


def test_help_explains_every_flag(capsys) -> None:
    actions = [a for a in derive_cli._parser()._actions if a.dest != "help"]
    assert {a.metavar or a.option_strings[0] for a in actions} == {
        "VERSION", "--check", "--planner-only", "--force",
    }
    with pytest.raises(SystemExit) as done:
        derive_cli.main(["derive", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help text
    assert done.value.code == 0
    assert text.startswith(
        "usage: python -m analytics derive [-h] [--check] [--planner-only] [--force]"
    )
    for action in actions:
        flag = action.metavar or action.option_strings[0]
        assert f"{flag} {' '.join(action.help.split())}" in text
