"""The job engine without Ray: ids, idempotent reruns, failures as data, CLI errors, page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import jobs, paths
from analytics.fl import cli as fl_cli
from measure import cli as measure_cli


@pytest.fixture(autouse=True)
def _runs_tmp(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs_home")


def square_job(job: jobs.Job, folder: Path) -> dict:
    """Toy runner: writes x squared; x < 0 raises (a job that fails)."""
    x = job.spec["x"]
    if x < 0:
        raise ValueError(f"negative x {x}")
    (folder / "value.json").write_text(json.dumps(x * x))
    return {"value": x * x}


def _batch(xs: list[int]) -> list[jobs.Job]:
    return [jobs.Job("toy", f"x={x}", {"x": x}) for x in xs]


def test_job_id_is_deterministic_and_spec_sensitive():
    a, b = jobs.Job("toy", "one", {"x": 1, "y": 2}), jobs.Job("toy", "other", {"y": 2, "x": 1})
    assert a.job_id == b.job_id  # the label and the key order do not matter
    assert a.job_id != jobs.Job("toy", "one", {"x": 2, "y": 2}).job_id
    assert a.job_id.startswith("toy-") and len(a.job_id) == len("toy-") + 16


def test_failures_are_recorded_and_rerun_replaces_only_them(tmp_path, monkeypatch):
    batch = _batch([2, -1, 3])
    tally = jobs.run_batch("toy", square_job, batch, tmp_path / "r")
    assert tally.counts() == {"done": 2, "running": 0, "failed": 1, "pending": 0, "total": 3}
    bad = jobs.read_marker(tmp_path / "r", batch[1])
    assert bad["status"] == "failed" and bad["reason"] == "ValueError: negative x -1"
    assert sorted(p.name for p in jobs.job_dir(tmp_path / "r", batch[1]).iterdir()) == ["job.json"]
    assert jobs.read_marker(tmp_path / "r", batch[2])["value"] == 9
    before = {j.job_id: jobs.read_marker(tmp_path / "r", j) for j in batch}
    calls = []
    ok = {"status": "ok", "reason": None}
    with monkeypatch.context() as patch:
        patch.setattr(jobs, "execute", lambda r, job, res, f=None: calls.append(job.label) or ok)
        jobs.run_batch("toy", square_job, batch, tmp_path / "r")
    assert calls == ["x=-1"]  # only the failed job runs again
    fixed = [*batch[:1], *batch[2:]]
    tally = jobs.run_batch("toy", square_job, fixed, tmp_path / "r")
    assert tally.counts()["done"] == 2
    assert jobs.read_marker(tmp_path / "r", batch[0]) == before[batch[0].job_id]
    status = jobs.read_status(tmp_path / "r")
    assert (status["done"], status["failed"], status["total"]) == (2, 0, 2)


def test_status_table_lists_failed_first(tmp_path):
    jobs.run_batch("toy", square_job, _batch([1, -5]), tmp_path / "r")
    table = jobs.status_table(jobs.read_status(tmp_path / "r"))
    assert list(table["state"]) == ["failed", "done"]
    assert list(table.columns) == ["label", "state", "reason", "job_id"]


def test_duplicate_jobs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="same spec"):
        jobs.run_batch("toy", square_job, _batch([1, 1]), tmp_path / "r")


@pytest.mark.parametrize(
    ("main", "argv"),
    [
        (measure_cli.main, ["sweep", "--only", "noop", "--ray", "--results", "{r}"]),
        (fl_cli.main, ["fl-run", "--out", "{r}/out", "--ray", "--results", "{r}", "--quiet"]),
    ],
)
def test_missing_ray_is_one_line_with_install_command(main, argv, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ModuleNotFoundError
    assert main([a.replace("{r}", str(tmp_path / "r")) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    want = "error: --ray needs the ray package, which is not installed; fix: "
    assert err == [want + ".venv/bin/pip install 'ray==2.60.0'"]
    assert not (tmp_path / "r").exists()


def test_ray_without_results_is_refused(capsys):
    assert measure_cli.main(["sweep", "--only", "noop", "--ray"]) == 2
    assert "--results DIR" in capsys.readouterr().err
    assert fl_cli.main(["fl-run", "--out", "/nonexistent/x", "--ray", "--quiet"]) == 2


def _section_app(folder: str) -> None:
    import streamlit as st

    from ui import sweep_status

    st.query_params["sweep"] = folder
    sweep_status.section()


def test_page_section_shows_sweep_progress(tmp_path):
    jobs.run_batch("toy", square_job, _batch([4, -2]), tmp_path / "r")
    at = AppTest.from_function(_section_app, args=(str(tmp_path / "r"),), default_timeout=60)
    at.run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"done": "1", "running": "0", "failed": "1", "total": "2"}
    assert list(at.dataframe[0].value["state"]) == ["failed", "done"]
