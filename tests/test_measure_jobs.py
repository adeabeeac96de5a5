"""One measurement at a time per runs folder, jobs on disk, cancel (``measure.run_jobs``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil
import pytest

from analytics.core import paths
from measure import run_jobs

SLEEPY = "tests/fixtures/measure/sleepy_adapter.py:Sleepy"
BUSY = "tests/fixtures/measure/busy_adapter.py:BusyWait2ms"


def wait_for(check, seconds: float = 60.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s")


def _sleepy_children() -> list[psutil.Process]:
    """``sleep 600`` processes the test adapter started (they must not outlive a cancel)."""
    found = []
    for proc in psutil.process_iter(["cmdline", "uids"]):
        if proc.info["cmdline"] == ["sleep", "600"] and proc.info["uids"].real == os.getuid():
            found.append(proc)
    return found


@pytest.fixture()
def sleepy_job(tmp_path):
    job = run_jobs.start(SLEEPY, "cpu", 3, 2, 100, owner="alice", out=tmp_path)
    wait_for(lambda: run_jobs.calls_done(job, _latest(job)) >= 1 or None)
    yield job
    run_jobs.cancel(job, "test cleanup", tmp_path)


def _latest(job: run_jobs.Job) -> dict | None:
    lines = (
        (job.path / run_jobs.PROGRESS_FILE).read_text().splitlines()
        if (job.path / run_jobs.PROGRESS_FILE).exists()
        else []
    )
    return json.loads(lines[-1]) if lines else None


def test_a_second_start_is_refused_naming_who_runs_what_since_when(sleepy_job, tmp_path):
    with pytest.raises(run_jobs.BusyError) as caught:
        run_jobs.start(BUSY, "cpu", 1, 0, 5, owner="bob", out=tmp_path)
    assert "alice" in caught.value.what and "sleepy_adapter.py:Sleepy" in caught.value.what
    assert sleepy_job.started_utc in caught.value.what
    assert len([p for p in (tmp_path / run_jobs.JOBS_DIR).iterdir() if p.is_dir()]) == 1


def test_a_second_process_is_refused_too(sleepy_job, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "measure", "run", "--adapter", BUSY, "--runs", "1", "--warmup",
         "0", "--calls", "5", "--out", str(tmp_path), "--no-progress"],
        cwd=paths.REPO_ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "another measurement is running" in done.stderr and "alice" in done.stderr
    assert not list((tmp_path / "records").glob("*.json"))


def test_progress_counts_calls_with_time_left(sleepy_job):
    state = run_jobs.status(sleepy_job)
    assert state["status"] == run_jobs.RUNNING
    assert state["calls_total"] == 3 * (2 + 100)
    assert 1 <= state["calls_done"] < state["calls_total"]
    assert state["left_s"] is not None and state["left_s"] > 0
    assert state["phase"].startswith("run 1/3: ")


def test_a_new_reader_finds_the_running_job(sleepy_job, tmp_path):
    found = run_jobs.current(tmp_path)
    assert found is not None and found.id == sleepy_job.id and found.owner == "alice"


def test_cancel_records_the_job_and_leaves_no_process(tmp_path):
    job = run_jobs.start(SLEEPY, "cpu", 3, 2, 100, owner="alice", out=tmp_path)
    wait_for(lambda: _sleepy_children() and run_jobs.job_processes(job))
    assert len(run_jobs.job_processes(job)) >= 3  # the run, its worker, the sampler, sleep
    run_jobs.cancel(job, "bob", tmp_path)
    state = run_jobs.status(job)
    assert state["status"] == run_jobs.CANCELLED and state["cancelled_by"] == "bob"
    assert run_jobs.job_processes(job) == []
    assert _sleepy_children() == []
    assert run_jobs.holder(tmp_path) is None
    assert not list((tmp_path / "records").glob("*.json"))  # a cancelled run stores no record
    assert run_jobs.recent(tmp_path)[0]["status"] == run_jobs.CANCELLED


def test_a_lock_whose_process_is_gone_is_taken_over(tmp_path):
    folder = run_jobs.jobs_dir(tmp_path)
    folder.mkdir(parents=True)
    gone = subprocess.Popen(["true"])
    gone.wait()
    (folder / run_jobs.LOCK_FILE).write_text(json.dumps({"id": "x", "pid": gone.pid}))
    assert run_jobs.holder(tmp_path) is None
    job = run_jobs.start(BUSY, "cpu", 1, 0, 5, owner="bob", out=tmp_path)
    wait_for(lambda: run_jobs.status(job)["finished"])
    assert run_jobs.status(job)["status"] == run_jobs.FINISHED


def test_other_cpu_share_is_a_percentage():
    share = run_jobs.other_cpu_percent(0.2)
    assert 0.0 <= share <= 100.0
