"""One measurement: three fresh worker processes, accuracy, the record, the tables.

A worker that crashes, runs out of memory or fails to import its model is recorded as a failed
run (the record says why) instead of stopping a sweep.
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
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analytics.core import paths, run_schema
from measure import env, protocol, record, store
from measure.adapters import resolve, source_file
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


def _protocol(req: RunRequest, cls: type, task: Task, inputs: Path) -> dict[str, Any]:
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
    proto: dict,
    inputs: Path,
    out: Path,
    first: bool,
    gt: Path | None,
    gt_images: Path | None,
) -> list[str]:
    options = {
        "--adapter": req.adapter,
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


def _relay(lines: queue.Queue, deadline: float, label: str, progress: Progress | None) -> bool:
    """Relay progress lines until end of file (True) or ``deadline`` (False). Lines that are
    not strict progress lines are ignored."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        try:
            line = lines.get(timeout=min(remaining, 1.0))
        except queue.Empty:
            continue
        if line is None:
            return True
        match = _PROGRESS.match(line.rstrip("\n"))
        if match and progress is not None:
            progress(label, int(match[1]), int(match[2]))


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the worker's whole process group (the worker, its sampler, anything it forked)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _payload(out: Path, proc: subprocess.Popen, tail: str) -> dict[str, Any]:
    """The worker's JSON payload, or an error saying why there is none."""
    try:
        payload = json.loads(out.read_text()) if out.is_file() else None
    except (OSError, ValueError) as exc:
        return {"error": f"worker wrote an unreadable payload ({exc})"}
    if isinstance(payload, dict):
        return _checked(payload)
    code = proc.returncode
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
    """Run one worker in its own process group, relaying its progress lines until it ends or
    ``req.timeout_s`` passes (then the group is killed); its payload or its error."""
    child_env = {**os.environ, **req.extra_env, "PYTHONPATH": str(paths.REPO_ROOT)}
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
            finished = _relay(lines, deadline, label, progress)
            if finished:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            if not finished or proc.poll() is None:
                _kill_group(proc)
        if not finished:
            return {"error": f"timeout after {req.timeout_s:g} s"}
        errors.seek(0)
        tail = (errors.read().strip().splitlines()[-1:] or [""])[0]
    return _payload(out, proc, tail)


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
        "ground_truth_sha256": env.sha256_file(gt_path),
        "image_ids": ids,
        "precision": precision,
        "detections": detections,
        "stats": evaluate(gt, detections, ids),
    }


def _adapter_block(req: RunRequest, cls: type) -> dict[str, Any]:
    src = source_file(cls)
    return {
        "spec": req.adapter,
        "name": cls.name,
        "task": cls.task,
        "source_file": env.display_path(src),
        "source_sha256": env.sha256_file(src),
        "info": cls.info.as_dict() if getattr(cls, "info", None) else None,
    }


def run_measurement(req: RunRequest, progress: Progress | None = None) -> dict[str, Any]:
    """Measure one adapter under the protocol, store the record and tables, return the record."""
    _check_request(req)
    cls = resolve(req.adapter)
    task = get_task(cls.task)
    inputs = Path(req.inputs) if req.inputs else task.inputs
    files = env.image_files(inputs)
    gt_path = req.accuracy_gt or task.ground_truth
    if gt_path is not None:
        load_ground_truth(gt_path)  # fail before any run on a bad file
    proto = _protocol(req, cls, task, inputs)
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="atlas-measure-") as tmp:
        for k in range(req.runs):
            out = Path(tmp) / f"run{k}.json"
            cmd = _worker_command(
                req,
                proto,
                inputs,
                out,
                k == 0,
                gt_path,
                req.accuracy_images or task.accuracy_images,
            )
            runs.append(_run_worker(cmd, out, f"run {k + 1}/{req.runs}", progress, req))
            if runs[-1].get("error"):
                break
    return _finish(req, cls, task, proto, files, inputs, runs, gt_path)


def _finish(
    req: RunRequest,
    cls: type,
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
            "files": [{"name": f.name, "sha256": env.sha256_file(f)} for f in files],
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
