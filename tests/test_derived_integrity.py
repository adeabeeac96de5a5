"""Issue 27, item 3: derived files carry a content hash; a truncated or edited one is reported
by ``derive --check`` and ``snapshot check`` and recomputed (never a traceback) when read;
``derive`` never leaves a page without a file; a snapshot whose manifest does not parse is
reported, not skipped.

The store is the LLM rating snapshot of ``tests/fixtures/catalogs.py`` (test data only)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db, derived, paths
from analytics.core.snapshot import cli as snapshot_cli
from analytics.llm import (
    board_inputs,
    catalog,
    derive_cli,
    elo,
    fit_cli,
    fit_inputs,
    leaderboard,
    ratings,
)
from tests.fixtures.apptest import fresh_caches, run_page, tables
from tests.fixtures.catalogs import LLM_NEW as NEW
from tests.fixtures.catalogs import LLM_OLD as OLD
from tests.fixtures.catalogs import write_snapshot
from tests.fixtures.store import StorePaths


def _serve_new(store: StorePaths) -> None:
    store.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: NEW)
    fresh_caches()


@pytest.fixture(scope="module")
def derived_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two snapshots (OLD, NEW), NEW derived, built once for the module; each test damages a
    copy (``store``)."""
    root = tmp_path_factory.mktemp("derived-store")
    with pytest.MonkeyPatch.context() as monkeypatch:
        store = StorePaths(root, monkeypatch)
        monkeypatch.setattr(paths, "SNAPSHOTS_DIR", store.snapshots)
        monkeypatch.setattr(paths, "RUNS_DIR", store.runs)
        write_snapshot(store.snapshots, OLD, old=True)
        write_snapshot(store.snapshots, NEW)
        stamp = (store.snapshots / OLD / "MANIFEST.json").stat().st_mtime
        os.utime(store.snapshots / NEW / "MANIFEST.json", (stamp + 10, stamp + 10))
        _serve_new(store)
        assert derive_cli.main(["derive", NEW]) == 0
    fresh_caches()
    return root


@pytest.fixture()
def store(store_paths: StorePaths, derived_store: Path) -> StorePaths:
    """A copy of ``derived_store`` (file times kept), NEW served."""
    for folder in ("snapshots", "derived"):
        shutil.copytree(derived_store / folder, store_paths.root / folder, dirs_exist_ok=True)
    _serve_new(store_paths)
    return store_paths


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def test_every_derived_file_has_its_hash_recorded(store, capsys) -> None:
    folder = derived.folder(NEW)
    assert derived.damage_lines(folder) == []
    assert derive_cli.main(["derive", NEW, "--check"]) == 0
    assert all(derived.damage(p) is None for p in folder.glob("*.parquet"))


def test_a_truncated_rating_file_is_reported_by_both_checks(store, capsys) -> None:
    path = ratings.cache_path(NEW, *ratings.SERVED[-1])
    _truncate(path)
    capsys.readouterr()
    assert derive_cli.main(["derive", NEW, "--check"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert any(path.name in line and "sha256" in line and "fix:" in line for line in err)
    assert snapshot_cli.main(["check", NEW]) == 1
    out = capsys.readouterr().out
    assert path.name in out and "truncated or edited" in out


def test_an_edited_rating_is_detected_and_never_served(store, capsys) -> None:
    path = ratings.cache_path(NEW, 0, 0)
    good = pd.read_parquet(path)
    edited = good.copy()
    edited.loc[0, "rating"] = edited.loc[0, "rating"] + 500.0
    edited.to_parquet(path, index=False)  # reads fine: only the hash tells
    assert "differs from its recorded sha256" in (derived.damage(path) or "")
    assert derive_cli.main(["derive", NEW, "--check"]) == 1
    served = ratings.of_version(NEW)  # recomputed from the snapshot, and stored again
    assert served["rating"].tolist() == good["rating"].tolist()
    assert derived.damage(path) is None


def test_a_truncated_file_is_recomputed_for_every_reader(store) -> None:
    _truncate(ratings.cache_path(NEW, 0, 0))
    lineage = board_inputs.TABLES.path(NEW, "lineage")
    _truncate(lineage)
    assert not ratings.of_version(NEW).empty  # no ArrowInvalid
    assert derived.damage(ratings.cache_path(NEW, 0, 0)) is None
    board = leaderboard.for_version(NEW, bootstrap=0)  # reads the lineage: recomputed
    assert set(board.lineage.columns) == {"model_id", "predecessor_id"}
    assert derived.damage(lineage) is None


def test_a_truncated_board_table_is_recomputed_and_a_truncated_fit_file_never_served(
    store,
) -> None:
    """The board's tables (read by every leaderboard page) are recomputed and stored again; the
    command line's inputs are computed instead (the same content), and the command writes
    nothing."""
    board_file = board_inputs.RATED.path(NEW, "board")
    fit_file = fit_inputs.FILES.path(NEW, fit_inputs.NAME)
    want = leaderboard.for_version(NEW).table
    tables = catalog.of_version(NEW, fit_inputs.TABLES_READ)
    fresh = fit_inputs.compute(tables)
    assert fit_inputs.stored(NEW) == fresh
    _truncate(board_file)
    _truncate(fit_file)
    pd.testing.assert_frame_equal(leaderboard.for_version(NEW).table, want)
    assert derived.damage(board_file) is None
    assert fit_inputs.stored(NEW) is None
    model = tables.models.dropna(subset=["total_params_b"])["model_id"].iloc[0]
    rc = fit_cli.main(["fit", "--model", model, "--vram-gb", "24", "--json"])
    assert rc == 0  # answered from the tables
    assert derived.damage(fit_file) is not None  # not rewritten by a reader
    assert any(str(fit_file.name) in line for line in derived.damage_lines(fit_file.parent))


@pytest.mark.parametrize("page", ["llm/leaderboard.py", "llm/model.py", "llm/movers.py"])
def test_pages_over_a_truncated_rating_file_show_no_traceback(store, page) -> None:
    for bootstrap, seed in ratings.SERVED:
        _truncate(ratings.cache_path(NEW, bootstrap, seed))
    fresh_caches()
    at = run_page(page)
    assert not at.exception
    assert tables(at)  # the figures, recomputed


def test_derive_writes_beside_the_served_file_and_removes_older_ones_after(
    store, monkeypatch
) -> None:
    served = ratings.cache_path(NEW, 0, 0)
    stale = served.with_name("elo_ratings_bt-old_b0_s0.parquet")
    stale.write_bytes(served.read_bytes())
    seen = []
    real = elo.rate

    def rate(*args, **kwargs):
        seen.append(served.exists() and stale.exists())  # still there while computing
        return real(*args, **kwargs)

    monkeypatch.setattr(elo, "rate", rate)
    assert derive_cli.main(["derive", NEW, "--force"]) == 0  # the served file is current
    assert seen and all(seen)
    assert served.exists() and not stale.exists()
    assert derive_cli.main(["derive", NEW, "--check"]) == 0


def test_a_snapshot_whose_manifest_does_not_parse_is_reported(store, capsys) -> None:
    broken = store.snapshots / OLD / "MANIFEST.json"
    broken.write_text("{not json", "utf-8")
    capsys.readouterr()
    assert snapshot_cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert "MANIFEST.json: does not parse as a JSON object" in out and OLD in out


def test_a_damaged_digests_file_reports_every_file_as_unhashed(store, capsys) -> None:
    folder = derived.folder(NEW)
    (folder / derived.DIGESTS).write_text("[", "utf-8")
    lines = derived.damage_lines(folder)
    assert lines and all("no content hash recorded" in line for line in lines)
    assert derive_cli.main(["derive", NEW, "--check"]) == 1


def test_derive_with_nothing_changed_computes_nothing(store, monkeypatch, capsys) -> None:
    """Every served file current and intact: ``derive`` keeps them all, reading no snapshot
    and fitting nothing; a damaged one is recomputed, alone."""
    from analytics.llm import catalog, planner_inputs

    def refuse(*args, **kwargs):
        raise AssertionError("derive recomputed a current, intact file")

    folder = derived.folder(NEW)
    before = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.parquet")}
    with monkeypatch.context() as patched:
        for module, name in ((elo, "rate"), (elo, "rate_categories"),
                             (catalog, "of_version"), (db, "connect")):
            patched.setattr(module, name, refuse)
        assert derive_cli.main(["derive", NEW]) == 0
    assert {p.name: p.stat().st_mtime_ns for p in folder.glob("*.parquet")} == before
    damaged = ratings.cache_path(NEW, *ratings.SERVED[-1])
    _truncate(damaged)
    assert derive_cli.main(["derive", NEW]) == 0
    assert derived.damage(damaged) is None
    assert derive_cli.main(["derive", NEW, "--check"]) == 0
    assert planner_inputs.TABLES.stale_reason(NEW) is None
