"""One measurement: three fresh worker processes, accuracy, the record, the tables.

A worker that crashes, runs out of memory or fails to import its model is recorded as a failed
run (the record says why) instead of stopping a sweep.

The parent never imports an external adapter (``--adapter file.py:Class``): a ``describe``
worker imports it under the run's timeout and reports its facts (``AdapterFacts``), and a file
that fails to import, exits or hangs there is refused in one line (``ValueError``). Every worker
runs in its own session with ``MODELATLAS_RUN_ID=<uuid>`` in its environment; when it ends
(finished or killed) its process group, its descendants and every process of this user that
still carries its marker (a child detached with ``setsid()`` included) are killed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from analytics.core import paths, run_schema
from analytics.core.hashing import file_sha256
from measure import env, protocol, record, store
from measure.adapters import import_problem, resolve, source_file
from measure.coco import evaluate, load_ground_truth
from measure.tasks import Task, get_task
from measure.worker import PROGRESS_PREFIX

Progress = Callable[[str, int, int], None]


@dataclass
class RunRequest:
    """What ``python -m measure run`` was asked to do."""

    adapter: str
    device: str = "cpu"
    inputs: Path | None = None
    runs: int = protocol.RUNS
    warmup: int = protocol.WARMUP_CALLS
    calls: int = protocol.TIMED_CALLS
    out: Path | None = None
    precision: str | None = None
    weights: str | None = None
    accuracy_gt: Path | None = None
    accuracy_images: Path | None = None
    timeout_s: float = protocol.WORKER_TIMEOUT_S
    extra_env: dict[str, str] = field(default_factory=dict)


def _check_request(req: RunRequest) -> None:
    if req.runs < 1 or req.warmup < 0 or req.calls < 1:
        raise ValueError("--runs and --calls must be >= 1 and --warmup >= 0")
    if not req.timeout_s > 0:
        raise ValueError(f"--timeout {req.timeout_s}: must be a positive number of seconds")
    if req.device != "cpu" and not req.device.startswith("cuda"):
        raise ValueError(f"--device {req.device!r}: use cpu, cuda or cuda:N")


def check_request(req: RunRequest) -> None:
    """Refuse a bad request before anything is written (``measure run`` calls it before it takes
    the runs folder's lock): the counts, the device, the adapter (registered, or an existing
    file; an external class itself is only read in the ``describe`` worker) and ``--inputs``."""
    _check_request(req)
    spec = _worker_spec(req.adapter)
    if not _is_external(spec):
        resolve(spec)
    if req.inputs is not None:
        env.image_files(Path(req.inputs))


@dataclass(frozen=True)
class AdapterFacts:
    """What the parent knows of the adapter it measures (read from the class for a registered
    adapter, from the ``describe`` worker for an external one)."""

    name: str
    task: str
    precisions: tuple[str, ...]
    source_file: Path
    info: dict[str, Any] | None


def _class_facts(cls: type) -> AdapterFacts:
    info = getattr(cls, "info", None)
    return AdapterFacts(
        cls.name,
        cls.task,
        tuple(cls.precisions),
        source_file(cls),
        info.as_dict() if info else None,
    )


def _is_external(spec: str) -> bool:
    return ".py:" in spec


def _worker_spec(spec: str) -> str:
    """``spec`` for the workers: an external file as an absolute path (workers run in the
    repository root, the user may not), after checking that it exists."""
    if not _is_external(spec):
        return spec
    file_part, _, class_name = spec.rpartition(":")
    path = Path(file_part).expanduser().resolve()
    if not path.is_file():
        raise ValueError(f"--adapter {spec}: file {path} not found; fix: give path/file.py:Class")
    return f"{path}:{class_name}"


def _external_facts(req: RunRequest, spec: str, tmp: Path) -> AdapterFacts:
    """Import the external adapter ``spec`` in a ``describe`` worker, under ``req.timeout_s``;
    its facts, or ValueError (one line naming the file and the fix)."""
    path = Path(spec.rpartition(":")[0])
    out = tmp / "describe.json"
    cmd = [sys.executable, "-m", "measure.worker", "describe", "--adapter", spec, "--out", str(out)]
    finished, code, tail = _supervise(cmd, out, "import", None, req)
    if not finished:
        why = f"it did not finish within --timeout {req.timeout_s:g} s; its process was killed"
        fix = (
            "move slow work (sleeps, downloads, model loading) from the module's top level into "
            "load(), or raise --timeout"
        )
        raise ValueError(import_problem(req.adapter, path, why, fix))
    try:
        payload = json.loads(out.read_text()) if out.is_file() else None
    except (OSError, ValueError):
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), str):
        error = " ".join(payload["error"].split())[:1000]  # the worker saw the absolute spec
        raise ValueError(error.replace(f"--adapter {spec}:", f"--adapter {req.adapter}:", 1))
    facts = _facts_of(payload, path) if isinstance(payload, dict) else None
    if facts is not None:
        return facts
    why = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    why = f"the process importing it ended ({why}) before the class was read"
    why += f": {tail}" if tail else ""
    fix = (
        "remove os._exit(), sys.exit() and other process-ending calls from the module's top "
        "level (`python FILE` shows what it runs) and keep work inside load()"
    )
    raise ValueError(import_problem(req.adapter, path, why, fix))


def _facts_of(payload: dict[str, Any], path: Path) -> AdapterFacts | None:
    """The describe worker's answer as facts, or None when it is not of the documented shape
    (the adapter's code ran in that process and may have written anything)."""
    name, task, precisions = payload.get("name"), payload.get("task"), payload.get("precisions")
    info, src = payload.get("info"), payload.get("source_file")
    texts = (name, task, src)
    if not all(isinstance(x, str) and x for x in texts) or not isinstance(precisions, list):
        return None
    if not precisions or not all(isinstance(x, str) for x in precisions):
        return None
    if info is not None and not isinstance(info, dict):
        return None
    source = Path(src) if Path(src).is_file() else path
    return AdapterFacts(name, task, tuple(precisions), source, info)


def _protocol(req: RunRequest, cls: AdapterFacts, task: Task, inputs: Path) -> dict[str, Any]:
    chosen, reason = protocol.choose_precision(cls.precisions, req.device)
    precision = req.precision or chosen
    if precision not in cls.precisions and not (req.device == "cpu" and precision == "fp32"):
        raise ValueError(f"--precision {precision}: adapter supports {list(cls.precisions)}")
    off = []
    standard_counts = (protocol.RUNS, protocol.WARMUP_CALLS, protocol.TIMED_CALLS)
    if (req.runs, req.warmup, req.calls) != standard_counts:
        off.append(f"runs/warmup/calls {req.runs}/{req.warmup}/{req.calls} instead of 3/10/100")
    if precision != chosen:
        off.append(f"precision {precision} overrides the protocol's {chosen}")
    if inputs.resolve() != task.inputs.resolve():
        off.append(f"inputs {env.display_path(inputs)} instead of the task's shared set")
    return {
        "runs": req.runs,
        "warmup": req.warmup,
        "calls": req.calls,
        "precision": precision,
        "precision_reason": reason if precision == chosen else "set by --precision",
        "standard": not off,
        "nonstandard_reasons": off,
        "task": task.name,
        "score_threshold": task.score_threshold,
        **protocol.record_constants(record.RECORD_VERSION, req.device),
    }


def _worker_command(
    req: RunRequest,
    spec: str,
    proto: dict,
    inputs: Path,
    out: Path,
    first: bool,
    gt: Path | None,
    gt_images: Path | None,
) -> list[str]:
    options = {
        "--adapter": spec,
        "--device": req.device,
        "--precision": proto["precision"],
        "--inputs": inputs,
        "--warmup": req.warmup,
        "--calls": req.calls,
        "--out": out,
    }
    cmd = [sys.executable, "-m", "measure.worker", *(str(x) for kv in options.items() for x in kv)]
    if req.weights:
        cmd += ["--weights", req.weights]
    if first:
        cmd += ["--predict"]
        if gt is not None:
            cmd += ["--accuracy-gt", str(gt), "--accuracy-images", str(gt_images or inputs)]
    return cmd


_PROGRESS = re.compile(rf"^{PROGRESS_PREFIX} (\d{{1,9}}) (\d{{1,9}})$")


def _pump(stream: Any, lines: queue.Queue) -> None:
    """Copy the worker's protocol lines into ``lines``; None at end of file."""
    try:
        for line in stream:
            lines.put(line)
    finally:
        lines.put(None)


def _relay(
    lines: queue.Queue,
    deadline: float,
    label: str,
    progress: Progress | None,
    ended: Callable[[], bool] | None = None,
) -> bool:
    """Relay progress lines until end of file or ``ended()`` (True) or ``deadline`` (False).
    Lines that are not strict progress lines are ignored. ``ended`` (the worker exited) ends the
    wait even when a process it left behind still holds the pipe open."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            line = lines.get(timeout=min(remaining, 1.0))
        except queue.Empty:
            if ended is not None and ended():
                return True
            continue
        if line is None:
            return True
        match = _PROGRESS.match(line.rstrip("\n"))
        if match and progress is not None:
            progress(label, int(match[1]), int(match[2]))


RUN_MARKER = "MODELATLAS_RUN_ID"
"""Environment variable each worker starts with, set to a fresh UUID: every process it starts
inherits it (unless started with a cleared environment), so the parent finds them all."""

SWEEP_ROUNDS = 50
"""Scans for marked processes after a worker ends (each kills what it finds)."""


def marked_processes(marker: str, name: str = RUN_MARKER) -> list[psutil.Process]:
    """This user's processes whose environment (``/proc/PID/environ``) holds
    ``<name>=<marker>`` (by default ``MODELATLAS_RUN_ID``); zombies and this process never do."""
    uid, me, found = os.getuid(), os.getpid(), []
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info.get("uids")
        if proc.pid == me or uids is None or uids.real != uid:
            continue
        with contextlib.suppress(psutil.Error):
            if proc.environ().get(name) == marker:
                found.append(proc)
    return found


def end_worker(proc: subprocess.Popen, marker: str) -> None:
    """SIGKILL the worker and everything it started: its descendants (read while it is alive,
    so a ``setsid()`` child with a cleared environment too), its process group (its memory
    sampler, anything it forked) and, until a scan finds none, every process of this user that
    carries its marker (children detached into their own session, orphans of a worker that
    had already exited, grandchildren forked meanwhile)."""
    tree: list[psutil.Process] = []
    if proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            tree = psutil.Process(proc.pid).children(recursive=True)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for child in tree:
        with contextlib.suppress(psutil.Error):
            child.kill()
    proc.wait()
    kill_marked(RUN_MARKER, marker)


def kill_marked(name: str, marker: str) -> None:
    """SIGKILL, until a scan finds none, every process of this user whose environment holds
    ``<name>=<marker>``."""
    for _ in range(SWEEP_ROUNDS):
        left = marked_processes(marker, name)
        if not left:
            return
        for child in left:
            with contextlib.suppress(psutil.Error):
                child.kill()
        time.sleep(0.01)


def _payload(out: Path, code: int, tail: str) -> dict[str, Any]:
    """The worker's JSON payload, or an error saying why there is none."""
    try:
        payload = json.loads(out.read_text()) if out.is_file() else None
    except (OSError, ValueError) as exc:
        return {"error": f"worker wrote an unreadable payload ({exc})"}
    if isinstance(payload, dict):
        return _checked(payload)
    why = f"killed by signal {-code} (out of memory?)" if code < 0 else f"exit code {code}"
    return {"error": f"worker {why}: {tail}"}


def _checked(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload, or an error when its detections are malformed (nothing of it is stored)."""
    if payload.get("error"):
        return {"error": str(payload["error"]).splitlines()[0][:500]}
    for key, tag in (("outputs", "input_index"), ("accuracy_detections", "image_id")):
        for index, det in enumerate(payload.get(key) or []):
            problem = run_schema.detection_problem(det)
            if problem is None and not run_schema.is_int(det.get(tag)):
                problem = f"lacks an integer {tag}"
            if problem is not None:
                return {"error": f"{key}[{index}] {problem}"}
    return payload


def _run_worker(
    cmd: list[str], out: Path, label: str, progress: Progress | None, req: RunRequest
) -> dict[str, Any]:
    """Run one measuring worker (``_supervise``); its payload or its error."""
    finished, code, tail = _supervise(cmd, out, label, progress, req)
    if not finished:
        return {"error": f"timeout after {req.timeout_s:g} s"}
    return _payload(out, code, tail)


def _supervise(
    cmd: list[str], out: Path, label: str, progress: Progress | None, req: RunRequest
) -> tuple[bool, int, str]:
    """Run one worker in its own session, relaying its progress lines until it ends or
    ``req.timeout_s`` passes; then end it and everything it started (``end_worker``).
    (finished in time, exit code, last line of its stderr log)."""
    marker = uuid.uuid4().hex
    child_env = {**os.environ, **req.extra_env, "PYTHONPATH": str(paths.REPO_ROOT)}
    child_env[RUN_MARKER] = marker
    deadline = time.monotonic() + req.timeout_s
    with open(out.with_suffix(".stderr"), "w+") as errors:
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=errors,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            cwd=paths.REPO_ROOT,
            env=child_env,
            start_new_session=True,
        )
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
        finished = False
        try:
            finished = _relay(lines, deadline, label, progress, lambda: proc.poll() is not None)
            if finished:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            end_worker(proc, marker)
        errors.seek(0)
        tail = (errors.read().strip().splitlines()[-1:] or [""])[0]
    return finished, proc.returncode, tail[:500]


def _run_id(adapter: str, device: str, created: datetime) -> str:
    stamp = created.strftime("%Y%m%dT%H%M%SZ")
    salt = hashlib.sha256(f"{adapter}{device}{created.isoformat()}".encode()).hexdigest()[:6]
    kind = "gpu" if device.startswith("cuda") else "cpu"
    return f"{adapter}-{kind}-{stamp}-{salt}"


def _accuracy(task: Task, gt_path: Path | None, first: dict, precision: str) -> dict | None:
    if gt_path is None or first.get("error"):
        return None
    gt = load_ground_truth(gt_path)
    detections = [
        {k: d[k] for k in ("image_id", "category_id", "bbox", "score")}
        for d in first.get("accuracy_detections", [])
    ]
    ids = sorted(img["id"] for img in gt["images"])
    return {
        "benchmark": task.benchmark if gt_path == task.ground_truth else env.display_path(gt_path),
        "ground_truth": env.display_path(gt_path),
        "ground_truth_sha256": file_sha256(gt_path),
        "image_ids": ids,
        "precision": precision,
        "detections": detections,
        "stats": evaluate(gt, detections, ids),
    }


def _adapter_block(req: RunRequest, cls: AdapterFacts) -> dict[str, Any]:
    return {
        "spec": req.adapter,
        "name": cls.name,
        "task": cls.task,
        "source_file": env.display_path(cls.source_file),
        "source_sha256": file_sha256(cls.source_file),
        "info": cls.info,
    }


def run_measurement(req: RunRequest, progress: Progress | None = None) -> dict[str, Any]:
    """Measure one adapter under the protocol, store the record and tables, return the record."""
    _check_request(req)
    spec = _worker_spec(req.adapter)
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="atlas-measure-") as tmp:
        if _is_external(spec):  # imported in a worker, never here
            cls = _external_facts(req, spec, Path(tmp))
        else:
            cls = _class_facts(resolve(spec))
        task = get_task(cls.task)
        inputs = Path(req.inputs) if req.inputs else task.inputs
        files = env.image_files(inputs)
        gt_path = req.accuracy_gt or task.ground_truth
        if gt_path is not None:
            load_ground_truth(gt_path)  # fail before any run on a bad file
        proto = _protocol(req, cls, task, inputs)
        for k in range(req.runs):
            out = Path(tmp) / f"run{k}.json"
            cmd = _worker_command(
                req,
                spec,
                proto,
                inputs,
                out,
                k == 0,
                gt_path,
                req.accuracy_images or task.accuracy_images,
            )
            label = protocol.run_label(k + 1, req.runs)
            runs.append(_run_worker(cmd, out, label, progress, req))
            if runs[-1].get("error"):
                break
    return _finish(req, cls, task, proto, files, inputs, runs, gt_path)


def _finish(
    req: RunRequest,
    cls: AdapterFacts,
    task: Task,
    proto: dict,
    files: list[Path],
    inputs: Path,
    runs: list[dict],
    gt_path: Path | None,
) -> dict[str, Any]:
    first = runs[0]
    created = datetime.now(UTC)
    gpu_facts = dict(first.get("gpu_facts") or {})
    if first.get("torch_cuda"):
        gpu_facts["cuda_version"] = first["torch_cuda"]
    observed = {
        "run_id": _run_id(cls.name, req.device, created),
        "created_utc": created.isoformat(timespec="seconds"),
        "error": next((r["error"] for r in runs if r.get("error")), None),
        "tool": env.git_state(),
        "adapter": _adapter_block(req, cls),
        "lock": env.lock_state(),
        "inputs": {
            "dir": env.display_path(inputs),
            "files": [{"name": f.name, "sha256": file_sha256(f)} for f in files],
        },
        "weights": first.get("weights", []),
        "environment": env.environment(req.device, gpu_facts),
        "protocol": proto,
        "runs": [_slim(r) for r in runs],
        "accuracy": _accuracy(task, gt_path, first, proto["precision"]),
        "outputs": [
            {k: d[k] for k in ("input_index", "bbox", "score", "category_id")}
            for d in first.get("outputs", [])
        ],
    }
    rec = record.build(observed)
    record.validate(rec, where=f"run record of {req.adapter}")  # writer and validator agree
    store.save(rec, record.to_tables(rec), Path(req.out or paths.RUNS_DIR))
    return rec


def _slim(run: dict[str, Any]) -> dict[str, Any]:
    """A worker's payload without what the record keeps elsewhere."""
    drop = {"outputs", "accuracy_detections", "weights", "gpu_facts", "torch_cuda", "traceback"}
    return {k: v for k, v in run.items() if k not in drop}
