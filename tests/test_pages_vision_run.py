"""AppTest of the 'Run a measurement' page: one measurement at a time (also against another
process), jobs that a new session finds, Cancel that ends everything and records it."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths
from measure import run_jobs
from measure.community import auth, inbox

PASSWORD = "run-page-test-password"
HASH = auth.hash_password(PASSWORD, salt=b"run-page-salt-01")
VERSION = "test-run-page"
SLEEPY = "tests/fixtures/measure/sleepy_adapter.py:Sleepy"


@pytest.fixture()
def runs(tmp_path, monkeypatch):
    snapshot = tmp_path / "snapshots" / VERSION
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": VERSION}))
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path / "snapshots")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VERSION)
    monkeypatch.setenv(inbox.ENV_INBOX, str(tmp_path / "inbox"))
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{HASH}")
    monkeypatch.setattr(run_jobs, "other_cpu_percent", lambda seconds=1.0: 0.0)
    yield tmp_path / "runs"
    job = run_jobs.current(tmp_path / "runs")
    if job is not None:
        run_jobs.cancel(job, "test cleanup", tmp_path / "runs")


def _signed_in() -> AppTest:
    """A new browser session of the page, signed in."""
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/run.py"), default_timeout=60).run()
    at.text_input(key="vision_run_login_name").input("maint")
    at.text_input(key="vision_run_login_password").input(PASSWORD)
    _button(at, "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _start(at: AppTest) -> AppTest:
    return next(b for b in at.button if b.label == "Start").click().run()


def _running(runs_dir, seconds: float = 60.0) -> run_jobs.Job:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        job = run_jobs.current(runs_dir)
        if job is not None and run_jobs.status(job)["calls_done"] >= 1:
            return job
        time.sleep(0.2)
    raise AssertionError("no running job")


def test_start_is_refused_while_a_job_of_this_server_runs(runs):
    run_jobs.start(SLEEPY, "cpu", 3, 2, 100, owner="alice", out=runs)
    at = _start(_signed_in())
    assert any("another measurement is running" in e.value and "alice" in e.value
               for e in at.error)
    assert len(run_jobs.recent(runs)) == 1


def test_start_is_refused_while_another_process_measures(runs):
    cli = subprocess.Popen(
        [sys.executable, "-m", "measure", "run", "--adapter", SLEEPY, "--out", str(runs),
         "--no-progress"],
        cwd=paths.REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _running(runs)
        at = _start(_signed_in())
        refusal = " ".join(e.value for e in at.error)
        assert "another measurement is running" in refusal and "(command line)" in refusal
    finally:
        run_jobs.cancel(run_jobs.current(runs), "test", runs)
        cli.wait(timeout=30)


def test_a_new_session_sees_the_running_job_and_its_progress(runs):
    job = run_jobs.start(SLEEPY, "cpu", 3, 2, 100, owner="alice", out=runs)
    _running(runs)
    at = _signed_in()
    text = at.get("progress")[0].proto.text
    assert "sleepy_adapter.py:Sleepy" in text and "started by alice" in text
    assert f"of {3 * 102:,} calls" in text and "left" in text
    assert job.started_utc in text


def test_cancel_ends_every_process_and_records_the_job(runs):
    job = run_jobs.start(SLEEPY, "cpu", 3, 2, 100, owner="alice", out=runs)
    _running(runs)
    at = _signed_in()
    _button(at, "Cancel").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert run_jobs.job_processes(job) == []
    state = run_jobs.status(job)
    assert state["status"] == run_jobs.CANCELLED and state["cancelled_by"] == "maint"
    assert run_jobs.current(runs) is None
    assert any("Cancelled by maint" in w.value for w in at.warning)
    recent = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert recent.loc[0, "status"] == run_jobs.CANCELLED


def test_the_page_warns_before_start_when_the_machine_is_busy(runs, monkeypatch):
    monkeypatch.setattr(run_jobs, "other_cpu_percent", lambda seconds=1.0: 55.0)
    at = _signed_in()
    assert any("would probably be discarded" in w.value and "55%" in w.value for w in at.warning)
