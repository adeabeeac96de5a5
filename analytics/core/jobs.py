"""Batches of independent jobs, run here one after another or as Ray tasks.

Used by ``python -m measure sweep --ray`` and ``python -m analytics fl-run --ray``. Each job has a
deterministic id (a hash of its spec), so a batch can be rerun: jobs already complete are skipped,
failed ones are run again and their record replaced.

Layout of a results folder (a local path or a shared filesystem seen by every node)::

    jobs/<job_id>/job.json     {"job_id", "label", "status": "ok"|"failed", "reason", ...}
    jobs/<job_id>/<files>      what the job produced (only when status is "ok")
    .staging/<job_id>-<nonce>/ a job being written; renamed into jobs/ in one step
    status.json                progress of the whole batch (done / running / failed / pending)

A task writes everything into its staging folder and then renames the folder into ``jobs/``: a
task that dies part-way leaves no visible output, only an unfinished staging folder.

``ray`` is imported only when a batch runs on Ray.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import atomic, paths
from analytics.core.problems import Problem

RAY_PIN = "ray==2.60.0"
INSTALL_HINT = f".venv/bin/pip install '{RAY_PIN}'"
FAULT_ENV = "ATLAS_JOBS_FAULT_ONCE"  # tests only: path of a flag file; see _maybe_fail
STATUS_FILE = "status.json"
INDEX_NAME = "sweeps.json"

# A job runner writes the job's files into the folder it is given and returns extra JSON fields
# for job.json. It must be a module-level function so that Ray can ship it by reference.
Runner = Callable[["Job", Path], dict[str, Any]]
Progress = Callable[[dict[str, int]], None]


class RayMissingError(Problem, RuntimeError):
    """``--ray`` was given but the ray package is not installed."""

    exit_status = 2  # a refused command line


@dataclass(frozen=True)
class Job:
    """One unit of work: ``spec`` is JSON-serialisable and fully determines the result."""

    kind: str
    label: str
    spec: dict[str, Any] = field(hash=False)

    @property
    def job_id(self) -> str:
        """Deterministic id: kind plus the first 16 hex digits of the spec's SHA-256."""
        body = json.dumps({"kind": self.kind, **self.spec}, sort_keys=True)
        return f"{self.kind}-{hashlib.sha256(body.encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class Resources:
    """What one Ray task asks for (whole GPUs never shared between two tasks)."""

    num_cpus: float = 1
    num_gpus: float = 0


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def job_dir(results: Path, job: Job) -> Path:
    """Where a finished job's files live."""
    return Path(results) / "jobs" / job.job_id


def read_marker(results: Path, job: Job) -> dict[str, Any] | None:
    """The job's job.json, or None when the job never finished."""
    path = job_dir(results, job) / "job.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _replace_dir(staging: Path, target: Path) -> None:
    """Move a complete staging folder into place (an old failed record is removed first)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        shutil.rmtree(target)
    os.rename(staging, target)


def _maybe_fail(staging: Path, flag: str | None) -> None:
    """Fault injection for the tests: exit the process once, after the job's files are written
    to its staging folder and before they are published."""
    if flag and not Path(flag).exists():
        Path(flag).write_text(str(staging))
        os._exit(3)


def record_failure(results: Path, job: Job, reason: str) -> dict[str, Any]:
    """Store a failed job (no data files); a rerun replaces it."""
    marker = {"job_id": job.job_id, "label": job.label, "status": "failed", "reason": reason}
    marker |= {"finished_utc": _now(), "host": socket.gethostname()}
    staging = Path(results) / ".staging" / f"{job.job_id}-{uuid.uuid4().hex[:8]}"
    staging.mkdir(parents=True)
    atomic.write_json(staging / "job.json", marker, allow_nan=True)
    _replace_dir(staging, job_dir(results, job))
    return marker


def execute(runner: Runner, job: Job, results: Path, fault: str | None = None) -> dict[str, Any]:
    """Run one job and publish its folder in one rename; an exception becomes a failed record.

    ``fault`` is for tests only (the driver passes the ATLAS_JOBS_FAULT_ONCE variable)."""
    results = Path(results)
    staging = results / ".staging" / f"{job.job_id}-{uuid.uuid4().hex[:8]}"
    staging.mkdir(parents=True)
    try:
        extra = runner(job, staging)
        _maybe_fail(staging, fault)
        marker = {"job_id": job.job_id, "label": job.label, "status": "ok", "reason": None}
        marker |= {"finished_utc": _now(), "host": socket.gethostname(), **extra}
        atomic.write_json(staging / "job.json", marker, allow_nan=True)
        _replace_dir(staging, job_dir(results, job))
        return marker
    except Exception as exc:  # recorded as data, like a failed measurement
        shutil.rmtree(staging, ignore_errors=True)
        return record_failure(results, job, f"{type(exc).__name__}: {exc}")


def _state(job: Job, state: str, reason: str | None = None) -> dict[str, Any]:
    return {"job_id": job.job_id, "label": job.label, "state": state, "reason": reason}


@dataclass
class Tally:
    """Live state of a batch, written to status.json after every change."""

    kind: str
    results: Path
    states: dict[str, dict[str, Any]]

    def counts(self) -> dict[str, int]:
        """done / running / failed / pending / total."""
        out = {"done": 0, "running": 0, "failed": 0, "pending": 0}
        for state in self.states.values():
            out[state["state"]] += 1
        return out | {"total": len(self.states)}

    def set(self, job: Job, state: str, reason: str | None = None) -> None:
        self.states[job.job_id] = _state(job, state, reason)
        self.write()

    def write(self) -> None:
        payload = {"kind": self.kind, "results": str(self.results), "updated_utc": _now()}
        payload |= self.counts() | {"jobs": list(self.states.values())}
        atomic.write_json(self.results / STATUS_FILE, payload, allow_nan=True)


def _start_tally(kind: str, jobs: list[Job], results: Path) -> tuple[Tally, list[Job]]:
    """Mark jobs already complete as done; the rest are to run (failed ones again)."""
    tally = Tally(kind, results, {})
    todo = []
    for job in jobs:
        marker = read_marker(results, job)
        done = marker is not None and marker["status"] == "ok"
        tally.states[job.job_id] = _state(job, "done" if done else "pending")
        if not done:
            todo.append(job)
    tally.write()
    return tally, todo


def _register(results: Path) -> None:
    """Remember the results folder so that the run page can find the sweep's status file."""
    index = paths.RUNS_DIR / "tmp" / INDEX_NAME
    try:
        known = json.loads(index.read_text()) if index.is_file() else {}
    except (OSError, ValueError):
        known = {}
    known[str(Path(results).resolve())] = _now()
    atomic.write_json(index, known, allow_nan=True)


def run_batch(
    kind: str,
    runner: Runner,
    jobs: list[Job],
    results: Path,
    ray_address: str | None = None,
    use_ray: bool = False,
    resources: Resources = Resources(),
    progress: Progress | None = None,
) -> Tally:
    """Run every job not yet complete in ``results``; returns the final tally."""
    if use_ray:
        import_ray()  # fail before writing anything
    results = Path(results)
    ids = [job.job_id for job in jobs]
    if len(set(ids)) != len(ids):
        raise ValueError("two jobs have the same spec; fix: remove the duplicate from the batch")
    shutil.rmtree(results / ".staging", ignore_errors=True)  # leftovers of dead tasks
    results.mkdir(parents=True, exist_ok=True)
    _register(results)
    tally, todo = _start_tally(kind, jobs, results)
    report = progress or (lambda counts: None)
    report(tally.counts())
    if use_ray:
        _run_on_ray(runner, todo, results, tally, ray_address, resources, report)
    else:
        for job in todo:
            tally.set(job, "running")
            marker = execute(runner, job, results, os.environ.get(FAULT_ENV))
            tally.set(job, "done" if marker["status"] == "ok" else "failed", marker["reason"])
            report(tally.counts())
    return tally


def import_ray():
    """The ray module, or RayMissingError naming the install command."""
    try:
        import ray
    except ModuleNotFoundError as exc:
        what = "--ray needs the ray package, which is not installed"
        raise RayMissingError(what=what, fix=INSTALL_HINT) from exc
    return ray


def ray_missing(ray: str | None) -> str | None:
    """The error line when ``--ray`` was given (``ray`` not None) but ray is not installed."""
    try:
        if ray is not None:
            import_ray()
    except RayMissingError as exc:
        return f"error: {exc}"
    return None


def run_cli_batch(
    kind: str,
    runner: Runner,
    batch: list[Job],
    results: Path,
    ray: str | None,
    resources: Resources = Resources(),
    bar: str | None = None,
) -> Tally:
    """``run_batch`` for a command line's ``--ray [ADDRESS]`` (None: no Ray; '': RAY_ADDRESS or a
    local instance), with a progress bar named ``bar`` (None: no bar)."""
    update, close = tqdm_progress(bar) if bar else (None, lambda: None)
    try:
        return run_batch(
            kind,
            runner,
            batch,
            results,
            ray_address=ray or None,
            use_ray=ray is not None,
            resources=resources,
            progress=update,
        )
    finally:
        close()


def connect_ray(address: str | None):
    """Join the cluster at ``address`` (None: RAY_ADDRESS, else a new local instance)."""
    ray = import_ray()
    if not ray.is_initialized():
        # Workers import analytics/ and measure/ from the same checkout path on every node.
        path = [str(paths.REPO_ROOT), os.environ.get("PYTHONPATH", "")]
        env = {"PYTHONPATH": os.pathsep.join(p for p in path if p)}
        ray.init(address=address, runtime_env={"env_vars": env}, log_to_driver=False)
    return ray


def _run_on_ray(runner, todo, results, tally, address, resources, report) -> None:
    ray = connect_ray(address)
    task = ray.remote(execute).options(
        num_cpus=resources.num_cpus, num_gpus=resources.num_gpus, max_retries=0
    )
    pending, fault = {}, os.environ.get(FAULT_ENV)
    for job in todo:
        pending[task.remote(runner, job, str(results), fault)] = job
        tally.set(job, "running")
    report(tally.counts())
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        job = pending.pop(ready[0])
        try:
            marker = ray.get(ready[0])
        except Exception as exc:  # the worker or its node died: recorded, retried by a rerun
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            marker = record_failure(results, job, reason)
        tally.set(job, "done" if marker["status"] == "ok" else "failed", marker["reason"])
        report(tally.counts())


def read_status(results: Path) -> dict[str, Any] | None:
    """The batch's status.json, or None when there is none (yet)."""
    path = Path(results) / STATUS_FILE
    try:
        return json.loads(path.read_text()) if path.is_file() else None
    except ValueError:
        return None


def known_sweeps() -> list[Path]:
    """Results folders of batches started on this machine, most recent first."""
    index = paths.RUNS_DIR / "tmp" / INDEX_NAME
    try:
        known = json.loads(index.read_text()) if index.is_file() else {}
    except (OSError, ValueError):
        return []
    return [Path(p) for p, _ in sorted(known.items(), key=lambda kv: kv[1], reverse=True)]


def tqdm_progress(desc: str) -> tuple[Progress, Callable[[], None]]:
    """A tqdm bar on stderr showing done / running / failed; returns (update, close)."""
    from tqdm import tqdm

    bar = tqdm(desc=desc, file=sys.stderr, unit="job")

    def update(counts: dict[str, int]) -> None:
        bar.total = counts["total"]
        bar.n = counts["done"] + counts["failed"]
        bar.set_postfix_str(
            f"done {counts['done']} running {counts['running']} failed {counts['failed']}"
        )
        bar.refresh()

    return update, bar.close


def status_table(status: dict[str, Any]) -> pd.DataFrame:
    """One row per job of a status.json: label, state, reason, job id (failed jobs first)."""

    order = {"failed": 0, "running": 1, "pending": 2, "done": 3}
    rows = sorted(status.get("jobs", []), key=lambda j: (order.get(j["state"], 9), j["label"]))
    columns = ["label", "state", "reason", "job_id"]
    return pd.DataFrame([{c: j.get(c) for c in columns} for j in rows], columns=columns)
