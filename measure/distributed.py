"""``python -m measure sweep --ray [ADDRESS] --results DIR``: one Ray task per measurement.

Each (adapter, device) measurement is one job of ``analytics.core.jobs``: a Ray task that asks for
one whole GPU (``num_gpus=1``, so two measurements never share a card) or, on a CPU sweep, for
``--cpus-per-task`` CPUs. The task runs ``measure.runner.run_measurement`` exactly as
``python -m measure run`` does, into its own job folder under ``--results``; when the batch ends,
every finished measurement is stored into the runs folder (``--out``, default ``data/runs``) with
``measure.store.save``, like a local run. See docs/ray.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import jobs, paths
from measure import store
from measure.runner import RunRequest, run_measurement

KIND = "measure"
_SPEC_FIELDS = (
    "adapter",
    "device",
    "inputs",
    "runs",
    "warmup",
    "calls",
    "precision",
    "weights",
    "accuracy_gt",
    "accuracy_images",
)


def sweep_jobs(names: list[str], device: str, options: argparse.Namespace) -> list[jobs.Job]:
    """One job per adapter on ``device``; ``options`` holds the ``measure run`` options."""
    spec = {k: getattr(options, k) for k in _SPEC_FIELDS if k not in ("adapter", "device")}
    spec = {k: str(v) if isinstance(v, Path) else v for k, v in spec.items()}
    return [
        jobs.Job(KIND, f"{name} on {device}", {"adapter": name, "device": device, **spec})
        for name in names
    ]


def measure_job(job: jobs.Job, folder: Path) -> dict[str, Any]:
    """Job runner: one measurement stored under ``folder/runs`` (records/ and vision_* tables)."""
    spec = dict(job.spec)
    for key in ("inputs", "accuracy_gt", "accuracy_images"):
        spec[key] = Path(spec[key]) if spec[key] else None
    record = run_measurement(RunRequest(**spec, out=folder / "runs"))
    return {"run_id": record["run_id"], "measurement_status": record["status"]}


def ingest(results: Path, batch: list[jobs.Job], runs_dir: Path) -> list[str]:
    """Store every finished measurement of the batch into ``runs_dir`` (skips those already
    there); returns the run ids stored now."""
    stored = []
    for job in batch:
        marker = jobs.read_marker(results, job)
        if marker is None or marker["status"] != "ok":
            continue
        run_id = marker["run_id"]
        if (runs_dir / "records" / f"{run_id}.json").exists():
            continue
        src = jobs.job_dir(results, job) / "runs"
        record = json.loads((src / "records" / f"{run_id}.json").read_text())
        tables = {
            name: pd.read_parquet(src / name / f"{run_id}.parquet")
            for name in store.TABLES
            if (src / name / f"{run_id}.parquet").is_file()
        }
        store.save(record, tables, runs_dir)
        stored.append(run_id)
    return stored


def _resources(device: str, cpus_per_task: float) -> jobs.Resources:
    if device.startswith("cuda"):
        return jobs.Resources(num_cpus=1, num_gpus=1)
    return jobs.Resources(num_cpus=cpus_per_task, num_gpus=0)


def _check(args: argparse.Namespace) -> str | None:
    if args.results is None:
        return "--ray needs --results DIR (a folder every node can write, e.g. on NFS)"
    if args.ray is not None and args.device.startswith("cuda:"):
        return f"--device {args.device}: with --ray use --device cuda (Ray assigns the card)"
    if args.cpus_per_task <= 0:
        return "--cpus-per-task must be > 0"
    return None


def sweep(args: argparse.Namespace, names: list[str], options: argparse.Namespace) -> int:
    """Run the sweep as jobs (on Ray with ``--ray``), then store the results; exit status."""
    problem = _check(args)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    missing = jobs.ray_missing(args.ray)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    batch = sweep_jobs(names, args.device, options)
    resources = _resources(args.device, args.cpus_per_task)
    tally = jobs.run_cli_batch(KIND, measure_job, batch, args.results, args.ray, resources, "sweep")
    stored = ingest(Path(args.results), batch, Path(args.out or paths.RUNS_DIR))
    return _report(args.results, batch, tally, stored)


def _report(results: Path, batch: list[jobs.Job], tally: jobs.Tally, stored: list[str]) -> int:
    bad = 0
    for job in batch:
        marker = jobs.read_marker(results, job) or {"status": "failed", "reason": "not run"}
        ok = marker["status"] == "ok" and marker.get("measurement_status") == "ok"
        why = marker.get("run_id") if marker["status"] == "ok" else marker["reason"]
        if marker["status"] == "ok" and not ok:
            why = f"measurement failed, recorded as {marker['run_id']}"
        print(f"{job.label}: {'ok' if ok else 'FAILED'}: {why}")
        bad += not ok
    counts = tally.counts()
    print(
        f"sweep: {counts['done']} done, {counts['failed']} failed of {counts['total']}; "
        f"{len(stored)} new runs stored; status in {Path(results) / jobs.STATUS_FILE}"
    )
    return 0 if bad == 0 else 1
