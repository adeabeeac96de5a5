"""``python -m analytics fl-run --ray [ADDRESS] --results DIR``: one Ray task per training.

Each (seed, model, method, dataset, group of conditions that train alike) of ``fl-run`` is one
job of ``analytics.core.jobs`` asking for one CPU (``num_cpus=1``; runs are single-threaded). A
task stores each condition's checkpoints and workload as Parquet in its job folder, and its CPU
seconds in its marker. When every job is complete, the submissions are assembled in the order
``analytics.fl.reference.build`` uses and written as the same deterministic ZIPs (the first
seed's in ``--out``, the others in ``--out/seeds/<seed>/``, plus policy.json); if any job failed,
nothing is written and a rerun completes only the missing jobs. See docs/ray.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import jobs
from analytics.fl import reference, runner, simulator
from analytics.fl.perturbations import training_groups
from analytics.fl.submission import Run, Submission

KIND = "fl"


def run_jobs(
    methods: list[str],
    models: list[str],
    datasets: list[str],
    perturbations: list[str],
    seeds: list[int],
) -> list[jobs.Job]:
    """One job per seed, model, method, dataset and group of conditions that train alike
    (``perturbations.training_groups``), in the order ``reference.build`` runs them."""
    out = []
    for seed in seeds:
        for model in models:
            for method in methods:
                for dataset in datasets:
                    conditions = reference.conditions_of(method, perturbations)
                    for group in training_groups(conditions):
                        spec = {"method": method, "model": model, "dataset": dataset}
                        spec |= {"conditions": group, "seed": seed}
                        spec["simulator_version"] = simulator.SIMULATOR_VERSION
                        label = f"seed {seed} {model} {method} {dataset} {' '.join(group)}"
                        out.append(jobs.Job(KIND, label, spec))
    return out


def fl_job(job: jobs.Job, folder: Path) -> dict[str, Any]:
    """Job runner: one training; per condition, checkpoints and workload Parquet when 'ok'."""
    s = job.spec
    if s["simulator_version"] != simulator.SIMULATOR_VERSION:
        raise ValueError(
            f"job asks for simulator {s['simulator_version']}, this node has "
            f"{simulator.SIMULATOR_VERSION}; fix: run the same checkout on every node"
        )
    started = time.process_time()
    runs = runner.run_group(s["method"], s["model"], s["dataset"], s["conditions"], s["seed"])
    for condition, run in runs.items():
        if run.status == "ok":
            run.checkpoints.to_parquet(folder / f"{condition}.checkpoints.parquet", index=False)
            run.workload.to_parquet(folder / f"{condition}.workload.parquet", index=False)
    statuses = {c: r.status for c, r in runs.items()}
    return {"run_status": statuses, "cpu_s": round(time.process_time() - started, 3)}


def load_runs(results: Path, job: jobs.Job) -> dict[str, Run]:
    """A finished job's runs (by condition), read back from its folder."""
    marker = jobs.read_marker(results, job)
    if marker is None or marker["status"] != "ok":
        raise ValueError(f"{job.label}: job {job.job_id} is not complete; fix: rerun the batch")
    folder = jobs.job_dir(results, job)
    out = {}
    for condition, status in marker["run_status"].items():
        if status != "ok":
            out[condition] = Run(status)
            continue
        out[condition] = Run(
            "ok",
            pd.read_parquet(folder / f"{condition}.checkpoints.parquet"),
            pd.read_parquet(folder / f"{condition}.workload.parquet"),
        )
    return out


def assemble(batch: list[jobs.Job], results: Path) -> dict[int, list[Submission]]:
    """Per seed, the submissions ``reference.build`` makes (same order), from a complete batch."""
    grouped: dict[tuple[int, str, str], dict[tuple[str, str], Run]] = {}
    for job in batch:
        s = job.spec
        runs = grouped.setdefault((s["seed"], s["model"], s["method"]), {})
        for condition, run in load_runs(results, job).items():
            runs[(s["dataset"], condition)] = run
    out: dict[int, list[Submission]] = {}
    for (seed, model, method), runs in grouped.items():
        out.setdefault(seed, []).extend(reference.package(model, method, runs, seed))
    return out


def cpu_seconds(results: Path, batch: list[jobs.Job]) -> float:
    """CPU seconds the batch's jobs took (as recorded by each job)."""
    total = 0.0
    for job in batch:
        marker = jobs.read_marker(results, job)
        total += float((marker or {}).get("cpu_s", 0.0))
    return total


def run_main(ns: argparse.Namespace) -> int:
    """``fl-run`` with ``--ray`` / ``--results``: run the jobs, then write the ZIPs; exit status."""
    if ns.results is None:
        print("error: --ray needs --results DIR (a folder every node can write)", file=sys.stderr)
        return 2
    missing = jobs.ray_missing(ns.ray)
    if missing:
        print(missing, file=sys.stderr)
        return 2
    started = time.perf_counter()
    batch = run_jobs(ns.methods, ns.models, ns.datasets, ns.perturbations, ns.seeds)
    bar = None if ns.quiet else "fl-run"
    tally = jobs.run_cli_batch(KIND, fl_job, batch, ns.results, ns.ray, bar=bar)
    failed = [s for s in tally.states.values() if s["state"] != "done"]
    for state in failed:
        print(f"failed: {state['label']} ({state['job_id']}): {state['reason']}", file=sys.stderr)
    if failed:
        print(f"error: {len(failed)} runs failed; nothing written; fix: rerun the same command")
        return 1
    written = reference.write_seeds(assemble(batch, ns.results), ns.out, ns.seeds)
    cpu = cpu_seconds(ns.results, batch)
    print(
        f"wrote {len(written)} ZIPs to {ns.out} in {time.perf_counter() - started:.1f}s "
        f"({cpu:.0f} CPU-s in {len(batch)} jobs)"
    )
    return 0
