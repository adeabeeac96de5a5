"""``python -m analytics fl-run --ray [ADDRESS] --results DIR``: one Ray task per reference run.

Each (model, method, dataset, condition) run of ``fl-run`` is one job of ``analytics.core.jobs``
asking for one CPU (``num_cpus=1``; runs are single-threaded). A task stores its run's
checkpoints and workload as Parquet in its job folder. When every job is complete, the
submissions are assembled
in the order ``analytics.fl.reference.build`` uses and written as the same deterministic ZIPs
(plus policy.json); if any job failed, nothing is written to ``--out`` and a rerun completes only
the missing jobs. See docs/ray.md.
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
from analytics.fl.policy import NOMINAL
from analytics.fl.submission import Run, Submission

KIND = "fl"


def _conditions(method: str, perturbations: list[str]) -> list[str]:
    """Centralized takes part in Protocols A/B only, so it runs the nominal condition only."""
    return [NOMINAL] if method == "Centralized" else [NOMINAL, *perturbations]


def run_jobs(
    methods: list[str], models: list[str], datasets: list[str], perturbations: list[str], seed: int
) -> list[jobs.Job]:
    """One job per run ``reference.build`` would make, in the same order."""
    out = []
    for model in models:
        for method in methods:
            for dataset in datasets:
                for condition in _conditions(method, perturbations):
                    spec = {"method": method, "model": model, "dataset": dataset}
                    spec |= {"condition": condition, "seed": seed}
                    spec["simulator_version"] = simulator.SIMULATOR_VERSION
                    label = f"{model} {method} {dataset} {condition}"
                    out.append(jobs.Job(KIND, label, spec))
    return out


def fl_job(job: jobs.Job, folder: Path) -> dict[str, Any]:
    """Job runner: one seeded run; checkpoints.parquet and workload.parquet when it is 'ok'."""
    s = job.spec
    if s["simulator_version"] != simulator.SIMULATOR_VERSION:
        raise ValueError(
            f"job asks for simulator {s['simulator_version']}, this node has "
            f"{simulator.SIMULATOR_VERSION}; fix: run the same checkout on every node"
        )
    run = runner.run_one(s["method"], s["model"], s["dataset"], s["condition"], s["seed"])
    if run.status == "ok":
        run.checkpoints.to_parquet(folder / "checkpoints.parquet", index=False)
        run.workload.to_parquet(folder / "workload.parquet", index=False)
    return {"run_status": run.status}


def load_run(results: Path, job: jobs.Job) -> Run:
    """A finished job's run, read back from its folder."""
    marker = jobs.read_marker(results, job)
    if marker is None or marker["status"] != "ok":
        raise ValueError(f"{job.label}: job {job.job_id} is not complete; fix: rerun the batch")
    if marker["run_status"] != "ok":
        return Run(marker["run_status"])
    folder = jobs.job_dir(results, job)
    return Run(
        "ok",
        pd.read_parquet(folder / "checkpoints.parquet"),
        pd.read_parquet(folder / "workload.parquet"),
    )


def assemble(batch: list[jobs.Job], results: Path, seed: int) -> list[Submission]:
    """The submissions ``reference.build`` makes (same order), from a complete batch's runs."""
    grouped: dict[tuple[str, str], dict[tuple[str, str], Run]] = {}
    for job in batch:
        s = job.spec
        key = (s["model"], s["method"])
        grouped.setdefault(key, {})[(s["dataset"], s["condition"])] = load_run(results, job)
    subs = []
    version = simulator.SIMULATOR_VERSION
    for (model, method), runs in grouped.items():
        nominal = {k: r for k, r in runs.items() if k[1] == NOMINAL}
        perturbed = {k: r for k, r in runs.items() if k[1] != NOMINAL}
        for protocol in ("A", "B"):
            subs.append(Submission(protocol, model, method, version, seed, dict(nominal)))
        if method != "Centralized":
            subs.append(Submission("C", model, method, version, seed, nominal | perturbed))
    return subs


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
    batch = run_jobs(ns.methods, ns.models, ns.datasets, ns.perturbations, ns.seed)
    bar = None if ns.quiet else "fl-run"
    tally = jobs.run_cli_batch(KIND, fl_job, batch, ns.results, ns.ray, bar=bar)
    failed = [s for s in tally.states.values() if s["state"] != "done"]
    for state in failed:
        print(f"failed: {state['label']} ({state['job_id']}): {state['reason']}", file=sys.stderr)
    if failed:
        print(f"error: {len(failed)} runs failed; nothing written; fix: rerun the same command")
        return 1
    subs = assemble(batch, ns.results, ns.seed)
    written = reference.write(subs, ns.out)
    if "Centralized" in ns.methods:
        reference.write_policy(reference.derive_policy(subs, ns.seed), ns.out / "policy.json")
    print(f"wrote {len(written)} ZIPs to {ns.out} in {time.perf_counter() - started:.1f}s")
    return 0
