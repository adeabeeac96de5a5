"""Timing of the Elo engine; prints figures, asserts nothing.

Default data: the current snapshot's scores (``analytics.llm.ratings.load_scores``; an
already built one with ``--snapshot VERSION``). With ``--synthetic`` (seeded): 600 models x 150
benchmarks in 8 categories, about 40% of cells missing, scores rounded to whole points so ties
occur. Figures: the steps of one fit, one ``elo.rate`` (single fit), the bootstrap rounds of the
overall fit (wall clock, and CPU time of this process and its worker processes), and
``elo.rate_categories`` with the same rounds (``--no-categories`` skips it). The machine's CPU
count and load averages (before and after) are printed beside them: on a shared machine the
wall clock depends on what else runs, the CPU time much less.

Run: ``.venv/bin/python bench/elo.py [--synthetic] [--models 600] [--benchmarks 150]
[--rounds 200] [--workers N] [--no-categories] [--snapshot VERSION]``
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analytics.llm import elo  # noqa: E402


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
    args = parser.parse_args(argv)
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
    pairwise = elo.aggregate(battles)
    t2 = time.perf_counter()
    result = elo.fit(pairwise)
    t3 = time.perf_counter()
    elo.rate(scores)
    t4 = time.perf_counter()
    cpu4 = _cpu_seconds()
    elo.bootstrap_ratings(battles, args.rounds, seed=0, theta0=result.theta, workers=args.workers)
    t5 = time.perf_counter()
    cpu5 = _cpu_seconds()
    workers = args.workers or elo._default_workers()

    print(f"data                      {label}")
    print(f"models x benchmarks       {len(battles.models)} x {len(battles.benchmarks)} "
          f"({len(scores)} scores)")  # fmt: skip
    print(f"battles built             {battles.n_battles}")
    print(f"model pairs               {len(battles.pair_i)}")
    print(f"build battles seconds     {t1 - t0:.3f}")
    print(f"aggregate seconds         {t2 - t1:.3f} (incl. per-benchmark contributions)")
    print(f"fit seconds               {t3 - t2:.3f}")
    print(f"iterations                {result.iterations}")
    print(f"last MM step (log s)      {result.last_mm_step:.2e}")
    print(f"max |gradient|            {result.max_abs_gradient:.2e}")
    print(f"single fit seconds        {t4 - t3:.2f} (elo.rate, no bootstrap)")
    print(f"bootstrap seconds         {t5 - t4:.2f} for {args.rounds} rounds "
          f"(workers: {workers})")  # fmt: skip
    print(f"bootstrap CPU seconds     {cpu5 - cpu4:.2f} (this process + worker processes; "
          f"{1000 * (cpu5 - cpu4) / max(args.rounds, 1):.0f} ms per round)")  # fmt: skip
    if not args.no_categories:
        t6 = time.perf_counter()
        elo.rate_categories(scores, bootstrap=args.rounds, seed=0)
        t7 = time.perf_counter()
        print(f"category ratings seconds  {t7 - t6:.2f} (rate_categories, {args.rounds} rounds)")
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine                   {cpus} CPUs; load average (1, 5, 15 min) "
          f"{_load(load_before)} before, {_load(os.getloadavg())} after")  # fmt: skip
    return 0


def _cpu_seconds() -> float:
    """User + system CPU time of this process and of its waited-for worker processes."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _load(averages: tuple[float, float, float]) -> str:
    return " ".join(f"{a:.2f}" for a in averages)


if __name__ == "__main__":
    sys.exit(main())
