"""Timing and memory of the Elo engine; prints figures, asserts nothing.

Default data: the current snapshot's scores (``analytics.llm.ratings.load_scores``; an
already built one with ``--snapshot VERSION``). With ``--synthetic`` (seeded): 600 models x 150
benchmarks in 8 categories, about 40% of cells missing, scores rounded to whole points so ties
occur. Figures: the steps of one fit, one ``elo.rate`` (single fit), the bootstrap rounds of the
overall fit (wall clock, and CPU time of this process and its worker processes), and
``elo.rate_categories`` with the same rounds (``--no-categories`` skips it).

``--scale`` prints the "Elo at scale" table of docs/performance.md instead: synthetic catalogs
of 1,000 / 2,000 / 5,000 models x 300 benchmarks (8 categories) with 30% and 60% of the cells
scored; per catalog, in a fresh child process each, the point fit with categories
(``elo.rate`` + ``elo.rate_categories``, no bootstrap) and 20 bootstrap rounds of the overall
fit (``elo.bootstrap_ratings``, default workers): wall clock, CPU time (the process and its
workers) and peak resident memory (``ru_maxrss``; for the rounds the parent's and the largest
worker's, which share the parent's pages). A child that fails (out of memory, time limit) is a
row with its error, and the sweep goes on.

The machine's CPU count and load averages (before and after) are printed beside the figures: on
a shared machine the wall clock depends on what else runs, the CPU time much less.

Run: ``.venv/bin/python bench/elo.py [--synthetic] [--models 600] [--benchmarks 150]
[--rounds 200] [--workers N] [--no-categories] [--snapshot VERSION]``, or
``.venv/bin/python bench/elo.py --scale [--scale-models 1000,2000,5000]
[--scale-coverage 0.3,0.6] [--scale-rounds 20] [--scale-benchmarks 300] [--scale-timeout 1800]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import threadpoolctl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics.llm import elo  # noqa: E402

SCALE_BENCHMARKS = 300  # benchmarks of every --scale catalog
SCALE_CATEGORIES = 8


def synthetic_scores(
    n_models: int, n_benchmarks: int, n_categories: int = 8, missing: float = 0.4, seed: int = 0
) -> pd.DataFrame:
    """Long score table: latent skill + per-category skill + noise, on a 0-100 point scale."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0, 1, n_models)
    cat_skill = rng.normal(0, 0.5, (n_models, n_categories))
    category = rng.integers(0, n_categories, n_benchmarks)
    latent = skill[:, None] + cat_skill[:, category] + rng.normal(0, 0.7, (n_models, n_benchmarks))
    score = np.round(50 + 15 * latent)  # whole points -> ties
    keep = rng.random((n_models, n_benchmarks)) >= missing
    m, b = np.nonzero(keep)
    return pd.DataFrame(
        {
            "model": [f"m{i:04d}" for i in m],
            "benchmark": [f"b{j:03d}" for j in b],
            "category": [f"cat{category[j]}" for j in b],
            "score": score[m, b],
        }
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", action="store_true")
    parser.add_argument("--models", type=int, default=600)
    parser.add_argument("--benchmarks", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--no-categories", action="store_true")
    parser.add_argument("--snapshot", default=None, help="a built snapshot version")
    parser.add_argument("--scale", action="store_true", help="the 'Elo at scale' table")
    parser.add_argument("--scale-models", default="1000,2000,5000")
    parser.add_argument("--scale-coverage", default="0.3,0.6")
    parser.add_argument("--scale-rounds", type=int, default=20)
    parser.add_argument("--scale-benchmarks", type=int, default=SCALE_BENCHMARKS)
    parser.add_argument("--scale-timeout", type=int, default=1800, help="seconds per child")
    parser.add_argument("--scale-one", nargs=3, metavar=("STEP", "MODELS", "COVERAGE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scale_one:
        return _scale_one(*args.scale_one, rounds=args.scale_rounds,
                          benchmarks=args.scale_benchmarks)
    if args.scale:
        return _scale_table(args)
    return _catalog_figures(args)


def _catalog_figures(args: argparse.Namespace) -> int:
    """The figures of one catalog (the real one by default)."""
    load_before = os.getloadavg()
    if args.synthetic:
        scores = synthetic_scores(args.models, args.benchmarks)
        label = f"synthetic {args.models} x {args.benchmarks}"
    else:
        from analytics.core import db
        from analytics.llm import ratings

        con = db.connect(args.snapshot)
        scores = ratings.load_scores(con)
        label = f"snapshot {args.snapshot or db.current_version()}"
    headline = elo.headline_scores(scores.dropna(subset=["score"]))
    t0 = time.perf_counter()
    battles = elo.build_battles(headline)
    t1 = time.perf_counter()
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        evidence = elo.weigh(battles)
        t2 = time.perf_counter()
        result = elo.solver.solve(evidence)
    t3 = time.perf_counter()
    elo.rate(scores)
    t4 = time.perf_counter()
    cpu4 = _cpu_seconds()
    elo.bootstrap_ratings(battles, args.rounds, seed=0, theta0=result.theta, workers=args.workers)
    t5 = time.perf_counter()
    cpu5 = _cpu_seconds()
    workers = args.workers or elo.bootstrap.default_workers()

    print(f"data                      {label}")
    print(f"models x benchmarks       {len(battles.models)} x {len(battles.benchmarks)} "
          f"({len(scores)} scores)")
    print(f"battles                   {battles.n_battles}")
    print(f"model pairs               {len(battles.pair_i)}")
    print(f"build battles seconds     {t1 - t0:.3f}")
    print(f"evidence seconds          {t2 - t1:.3f} (elo.weigh)")
    print(f"fit seconds               {t3 - t2:.3f}")
    print(f"iterations                {result.iterations}")
    print(f"last MM step (log s)      {result.last_mm_step:.2e}")
    print(f"max |gradient|            {result.max_abs_gradient:.2e}")
    print(f"single fit seconds        {t4 - t3:.2f} (elo.rate, no bootstrap)")
    print(f"bootstrap seconds         {t5 - t4:.2f} for {args.rounds} rounds "
          f"(workers: {workers})")
    print(f"bootstrap CPU seconds     {cpu5 - cpu4:.2f} (this process + worker processes; "
          f"{1000 * (cpu5 - cpu4) / max(args.rounds, 1):.0f} ms per round)")
    if not args.no_categories:
        t6 = time.perf_counter()
        elo.rate_categories(scores, bootstrap=args.rounds, seed=0)
        t7 = time.perf_counter()
        print(f"category ratings seconds  {t7 - t6:.2f} (rate_categories, {args.rounds} rounds)")
    print(f"machine                   {_cpus()} CPUs; load average (1, 5, 15 min) "
          f"{_load(load_before)} before, {_load(os.getloadavg())} after")
    return 0


def _scale_table(args: argparse.Namespace) -> int:
    """The 'Elo at scale' table, one child process per row and step (fresh peak memory)."""
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {_cpus()} CPUs, load average (1, 5, 15 min) "
          f"{_load(os.getloadavg())}; {args.scale_benchmarks} benchmarks, {SCALE_CATEGORIES} "
          f"categories, bootstrap {args.scale_rounds} rounds, default workers")
    header = ("| models | scored | pairs | battles | step | wall s | CPU s | peak RSS MiB "
              "| load before -> after |")
    print(header)
    print("| " + " | ".join(["---"] * (header.count("|") - 1)) + " |")
    for n_models in map(int, args.scale_models.split(",")):
        for coverage in map(float, args.scale_coverage.split(",")):
            steps = {"point": "point fit + categories",
                     "rounds": f"{args.scale_rounds} bootstrap rounds"}
            for step, label in steps.items():
                before = os.getloadavg()
                row = _run_child(step, n_models, coverage, args)
                after = os.getloadavg()
                print(_table_row(n_models, coverage, label, row, before, after), flush=True)
    return 0


def _run_child(step: str, n_models: int, coverage: float, args: argparse.Namespace) -> dict:
    command = [sys.executable, __file__, "--scale-one", step, str(n_models), str(coverage),
               "--scale-rounds", str(args.scale_rounds),
               "--scale-benchmarks", str(args.scale_benchmarks)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=args.scale_timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return {"error": f"over {args.scale_timeout} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"error": tail[:120]}
    return json.loads(lines[-1])


def _table_row(n_models, coverage, step, row, before, after) -> str:
    load = f"{before[0]:.1f} -> {after[0]:.1f}"
    if "error" in row:
        error = f"error: {row['error']}"
        return f"| {n_models:,} | {coverage:.0%} | | | {step} | {error} | | | {load} |"
    peak = f"{row['peak_rss_mib']:,.0f}"
    if row.get("worker_peak_rss_mib"):
        peak += f" (largest worker {row['worker_peak_rss_mib']:,.0f})"
    return (f"| {n_models:,} | {coverage:.0%} | {row['pairs']:,} | {row['battles']:,} | {step} "
            f"| {row['wall_s']:.1f} | {row['cpu_s']:.1f} | {peak} | {load} |")


def _scale_one(
    step: str, n_models: str, coverage: str, *, rounds: int, benchmarks: int = SCALE_BENCHMARKS
) -> int:
    """One step of one --scale row, in this (child) process; prints one JSON line."""
    scores = synthetic_scores(
        int(n_models), benchmarks, SCALE_CATEGORIES, missing=1.0 - float(coverage)
    )
    start, cpu = time.perf_counter(), _cpu_seconds()
    battles = elo.build_battles(elo.headline_scores(scores))
    pairs, n_battles = len(battles.pairs), battles.n_battles
    if step == "point":
        del battles
        elo.rate(scores)
        elo.rate_categories(scores)
    else:
        with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
            theta = elo.solver.solve(elo.weigh(battles)).theta
        elo.bootstrap_ratings(battles, rounds, seed=0, theta0=theta)
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    row = {
        "pairs": pairs,
        "battles": n_battles,
        "wall_s": time.perf_counter() - start,
        "cpu_s": _cpu_seconds() - cpu,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "worker_peak_rss_mib": children,
    }
    print(json.dumps(row))
    return 0


def _cpu_seconds() -> float:
    """User + system CPU time of this process and of its waited-for worker processes."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _load(averages: tuple[float, float, float]) -> str:
    return " ".join(f"{a:.2f}" for a in averages)


if __name__ == "__main__":
    sys.exit(main())
