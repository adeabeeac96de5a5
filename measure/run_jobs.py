"""One measurement at a time per runs folder, and the measurements as jobs on disk.

Two measurements on one machine disturb each other, so a runs folder holds at most one running
``python -m measure run``: ``<runs>/jobs/lock.json`` names it (job id, owner, adapter, device,
start time, pid and the pid's start time). Every check and change of the lock holds an exclusive
``flock`` on ``<runs>/jobs/.flock``, so two processes (two browser sessions, a page and the CLI)
can never both start. A lock whose process is gone is stale and is taken over.

Each measurement is a job folder ``<runs>/jobs/<job_id>/`` holding ``job.json`` (who, what, when,
its state: running, finished, failed, cancelled), ``progress.jsonl`` (the runner's progress lines)
and ``log.txt`` (its output), so a reload or another browser finds the running job and its
progress. The page starts a job with :func:`start` (it takes the lock for the child it starts);
``measure run`` run from a shell takes it with :func:`claim`. :func:`cancel` ends the run process,
its workers and everything they started, and records the job as cancelled.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from analytics.core import atomic, paths
from analytics.core.problems import Problem, display_path
from measure import protocol

JOBS_DIR = "jobs"
LOCK_FILE = "lock.json"
FLOCK_FILE = ".flock"
JOB_FILE = "job.json"
PROGRESS_FILE = "progress.jsonl"
LOG_FILE = "log.txt"
ENV_JOB = "MODELATLAS_JOB_ID"
"""Set to the job id in the run process; its workers and their children inherit it, so a
cancel finds every process of the job (``runner.marked_processes``)."""
CANCEL_GRACE_S = 10.0
"""How long a cancelled run may take to end its workers itself before everything is killed."""
RUNNING, FINISHED, FAILED, CANCELLED = "running", "finished", "failed", "cancelled"


class BusyError(Problem, RuntimeError):
    """Another measurement holds this runs folder."""


class Cancelled(BaseException):  # noqa: N818 - a signal, not an error: nothing may swallow it
    """Raised in the run process by SIGTERM: unwinding ends its workers (``runner._supervise``)."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Job:
    """A measurement started as a job (its folder holds its state, progress and output)."""

    id: str
    folder: str
    owner: str
    adapter: str
    device: str
    runs: int
    warmup: int
    calls: int
    started_utc: str
    pid: int | None = None

    @property
    def path(self) -> Path:
        return Path(self.folder)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def jobs_dir(runs_dir: Path | None = None) -> Path:
    return Path(runs_dir or paths.RUNS_DIR) / JOBS_DIR


@contextlib.contextmanager
def _flocked(runs_dir: Path | None) -> Iterator[Path]:
    folder = jobs_dir(runs_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / FLOCK_FILE, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield folder
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _pid_started(pid: int) -> float | None:
    """The start time of process ``pid``, None when it is gone (or a zombie)."""
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return proc.create_time()
    except psutil.Error:
        return None


def _alive(lock: dict[str, Any]) -> bool:
    """The lock's process still runs (same pid and the same start time: pids are reused)."""
    pid = lock.get("pid")
    if not isinstance(pid, int):
        return False
    started = _pid_started(pid)
    return started is not None and abs(started - float(lock.get("pid_started", started))) < 1.0


def _live_lock(folder: Path) -> dict[str, Any] | None:
    """The lock when its process runs; a stale one is removed (call under the flock)."""
    lock = _read_json(folder / LOCK_FILE)
    if lock is None:
        return None
    if _alive(lock):
        return lock
    (folder / LOCK_FILE).unlink(missing_ok=True)
    job = _read_json(Path(lock.get("folder", "")) / JOB_FILE) if lock.get("folder") else None
    if job is not None and job.get("status") == RUNNING:
        _update(Path(lock["folder"]), status=FAILED, ended_utc=utc_now(),
                error="the run process ended without recording an outcome (killed?)")
    return None


def busy_line(lock: dict[str, Any]) -> str:
    """Who runs what since when, in words."""
    return (
        f"{lock.get('owner', '?')} is measuring {lock.get('adapter', '?')} on "
        f"{lock.get('device', '?')} since {lock.get('started_utc', '?')} (job {lock.get('id')}, "
        f"pid {lock.get('pid')})"
    )


def _busy(folder: Path, lock: dict[str, Any]) -> BusyError:
    return BusyError(
        display_path(folder / LOCK_FILE),
        f"another measurement is running: {busy_line(lock)}",
        "wait until it ends or cancel it on the 'Run a measurement' page; two measurements at "
        "once disturb each other",
    )


def holder(runs_dir: Path | None = None) -> dict[str, Any] | None:
    """The running measurement's lock (None when the folder is free)."""
    with _flocked(runs_dir) as folder:
        return _live_lock(folder)


def _new_job(folder: Path, owner: str, adapter: str, device: str, counts: tuple[int, ...]) -> Job:
    job_id = f"{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}-{uuid.uuid4().hex[:6]}"
    job_folder = folder / job_id
    job_folder.mkdir(parents=True)
    runs, warmup, calls = counts
    return Job(job_id, str(job_folder), owner, adapter, device, runs, warmup, calls, utc_now())


def _write_lock(folder: Path, job: Job, pid: int) -> Job:
    job = Job(**{**job.as_dict(), "pid": pid})
    atomic.write_json(folder / LOCK_FILE, {**job.as_dict(), "pid_started": _pid_started(pid)})
    atomic.write_json(job.path / JOB_FILE, {**job.as_dict(), "status": RUNNING})
    return job


def _update(job_folder: Path, **fields: Any) -> dict[str, Any]:
    state = _read_json(job_folder / JOB_FILE) or {}
    state.update(fields)
    atomic.write_json(job_folder / JOB_FILE, state)
    return state


_CHILDREN: dict[int, subprocess.Popen] = {}
"""Run processes this process started (``start``), kept to be reaped once they end."""


def start(
    adapter: str,
    device: str,
    runs: int,
    warmup: int,
    calls: int,
    *,
    owner: str,
    out: Path | None = None,
    timeout_s: float | None = None,
) -> Job:
    """Start ``python -m measure run`` as a job in its own session and return at once; BusyError
    (nothing started) while another measurement holds the runs folder ``out``."""
    with _flocked(out) as folder:
        lock = _live_lock(folder)
        if lock is not None:
            raise _busy(folder, lock)
        job = _new_job(folder, owner, adapter, device, (runs, warmup, calls))
        cmd = [sys.executable, "-m", "measure", "run", "--adapter", adapter, "--device", device]
        cmd += ["--runs", str(runs), "--warmup", str(warmup), "--calls", str(calls)]
        cmd += ["--job", job.folder, "--no-progress"]
        cmd += ["--out", str(Path(out or paths.RUNS_DIR))]  # the folder this lock guards
        cmd += ["--timeout", str(timeout_s)] if timeout_s is not None else []
        env = {**os.environ, ENV_JOB: job.id, "PYTHONPATH": str(paths.REPO_ROOT)}
        with open(job.path / LOG_FILE, "w") as log:
            proc = subprocess.Popen(
                cmd, cwd=paths.REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=env, start_new_session=True,
            )
        _CHILDREN[proc.pid] = proc  # reaped by status(), so a finished run leaves no zombie
        return _write_lock(folder, job, proc.pid)


@contextlib.contextmanager
def claim(
    adapter: str,
    device: str,
    counts: tuple[int, int, int],
    out: Path | None,
    job_folder: Path | None,
) -> Iterator[Job]:
    """Hold the runs folder for this process's measurement: adopt the job :func:`start` made
    for it (``job_folder``), else make one (a run from a shell); BusyError while another runs.
    SIGTERM (a cancel) raises :class:`Cancelled` inside; the lock is released at the end."""
    with _flocked(out) as folder:
        lock = _live_lock(folder)
        if lock is not None and lock.get("pid") != os.getpid():
            raise _busy(folder, lock)
        if lock is not None and job_folder is not None and Path(lock["folder"]) == job_folder:
            job = Job(**{k: lock[k] for k in Job.__dataclass_fields__})
        else:
            owner = f"{getpass.getuser()} (command line)"
            job = _write_lock(folder, _new_job(folder, owner, adapter, device, counts), os.getpid())
    previous = signal.signal(signal.SIGTERM, _raise_cancelled)
    try:
        yield job
    finally:
        signal.signal(signal.SIGTERM, previous)
        release(job, out)


def _raise_cancelled(signum: int, frame: Any) -> None:
    raise Cancelled()


def release(job: Job, out: Path | None = None) -> None:
    """Remove the lock when it is still ``job``'s."""
    with _flocked(out) as folder:
        lock = _read_json(folder / LOCK_FILE)
        if lock is not None and lock.get("id") == job.id:
            (folder / LOCK_FILE).unlink(missing_ok=True)


def record_outcome(job: Job, status: str, **fields: Any) -> None:
    """Write the job's end (``finished``, ``failed``) unless a cancel already recorded one."""
    state = _read_json(job.path / JOB_FILE) or {}
    if state.get("status") in (None, RUNNING):
        _update(job.path, status=status, ended_utc=utc_now(), **fields)


def cancel(job: Job, by: str, out: Path | None = None) -> dict[str, Any]:
    """End the job's run process, its workers and everything they started, record the job as
    cancelled (by whom, when) and free the runs folder. The run process gets SIGTERM first (it
    then ends its workers itself); whatever is left after ``CANCEL_GRACE_S`` is killed."""
    from measure.runner import kill_marked

    state = _update(job.path, status=CANCELLED, cancelled_by=by, ended_utc=utc_now())
    pid = job.pid
    if pid is not None and _pid_started(pid) is not None:
        with contextlib.suppress(psutil.Error):
            tree = psutil.Process(pid).children(recursive=True)
            os.kill(pid, signal.SIGTERM)
            _, alive = psutil.wait_procs([psutil.Process(pid)], timeout=CANCEL_GRACE_S)
            for proc in [*alive, *tree]:
                with contextlib.suppress(psutil.Error):
                    proc.kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
    kill_marked(ENV_JOB, job.id)
    if pid in _CHILDREN:
        _CHILDREN.pop(pid).wait()
    release(job, out)
    return state


def job_processes(job: Job) -> list[psutil.Process]:
    """Processes of this user that still carry the job's id (none once it ended)."""
    from measure.runner import marked_processes

    return marked_processes(job.id, ENV_JOB)


def load(job_folder: Path) -> Job | None:
    """The job stored in ``job_folder`` (None when it holds none)."""
    state = _read_json(Path(job_folder) / JOB_FILE)
    if state is None:
        return None
    with contextlib.suppress(TypeError):
        return Job(**{k: state.get(k) for k in Job.__dataclass_fields__})
    return None


def current(runs_dir: Path | None = None) -> Job | None:
    """The running measurement of the runs folder, whoever started it."""
    lock = holder(runs_dir)
    return load(Path(lock["folder"])) if lock else None


def _job_folders(runs_dir: Path | None) -> list[Path]:
    """Job folders, newest first (their names start with the UTC start time)."""
    folder = jobs_dir(runs_dir)
    return sorted((p for p in folder.glob("*/") if (p / JOB_FILE).is_file()), reverse=True)


def recent(runs_dir: Path | None = None, limit: int = 10) -> list[dict[str, Any]]:
    """The latest jobs' states, newest first."""
    return [_read_json(p / JOB_FILE) or {} for p in _job_folders(runs_dir)[:limit]]


def latest(runs_dir: Path | None = None) -> Job | None:
    """The running job, else the newest one (finished, failed or cancelled), else None."""
    running = current(runs_dir)
    if running is not None:
        return running
    folders = _job_folders(runs_dir)
    return load(folders[0]) if folders else None


def _progress_lines(job: Job) -> list[dict[str, Any]]:
    try:
        text = (job.path / PROGRESS_FILE).read_text()
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                found.append(value)
    return found


def calls_done(job: Job, latest: dict[str, Any] | None) -> int:
    """Calls (warm-up and timed) finished over all runs, from the latest progress line."""
    match = protocol.RUN_LABEL.match(str((latest or {}).get("label", "")))
    if match is None:
        return 0
    per_run = job.warmup + job.calls
    return (int(match[1]) - 1) * per_run + min(int(latest.get("done", 0)), per_run)


def _phase(job: Job, latest: dict[str, Any] | None) -> str:
    match = protocol.RUN_LABEL.match(str((latest or {}).get("label", "")))
    if match is None:
        return "starting (loading the adapter)"
    done = int(latest.get("done", 0))
    if done <= job.warmup and job.warmup:
        return f"run {match[1]}/{match[2]}: warm-up call {done}/{job.warmup}"
    return f"run {match[1]}/{match[2]}: timed call {done - job.warmup}/{job.calls}"


def status(job: Job) -> dict[str, Any]:
    """The job as a page shows it: state, calls done of all calls, the current phase, an
    estimate of the time left (elapsed time per call done, model loads included) and the tail
    of its output."""
    if job.pid in _CHILDREN and _CHILDREN[job.pid].poll() is not None:
        _CHILDREN.pop(job.pid)
    state = _read_json(job.path / JOB_FILE) or {}
    lines = _progress_lines(job)
    latest = lines[-1] if lines else None
    total = job.runs * (job.warmup + job.calls)
    done = calls_done(job, latest)
    elapsed_s = max(0.0, time.time() - datetime.fromisoformat(job.started_utc).timestamp())
    left_s = elapsed_s / done * (total - done) if done else None
    status_ = state.get("status", RUNNING)
    if status_ == RUNNING and job.pid is not None and _pid_started(job.pid) is None:
        status_ = FAILED  # the process is gone without recording an outcome
    try:
        log = (job.path / LOG_FILE).read_text(errors="replace")
    except OSError:
        log = ""
    return {
        **state,
        "status": status_,
        "finished": status_ != RUNNING,
        "calls_done": done,
        "calls_total": total,
        "phase": _phase(job, latest),
        "elapsed_s": elapsed_s,
        "left_s": None if status_ != RUNNING else left_s,
        "output": "\n".join(log.strip().splitlines()[-5:]),
    }


def other_cpu_percent(seconds: float = 1.0) -> float:
    """Share of all CPU capacity that processes other than this one used over ``seconds``, %,
    by the rule the protocol applies during a run (``worker.other_cpu_percent``)."""
    from measure.worker import _cpu_busy_s
    from measure.worker import other_cpu_percent as share

    before = _cpu_busy_s()
    time.sleep(seconds)
    return min(100.0, share(before, _cpu_busy_s()))  # CPU times tick in 10 ms: over a short
    # window the busy time read can exceed the wall time
