"""Timing of the Elo engine; prints figures, asserts nothing.

Default data: the current snapshot's scores (``analytics.llm.ratings.load_scores``). With
``--synthetic`` (seeded): 600 models x 150 benchmarks in 8 categories, about 40% of cells
missing, scores rounded to whole points so ties occur. Figures: the steps of one fit, one
``elo.rate`` (single fit), the bootstrap rounds of the overall fit, and ``elo.rate_categories``
with the same rounds (``--no-categories`` skips it).

Run: ``.venv/bin/python bench/elo.py [--synthetic] [--models 600] [--benchmarks 150]
[--rounds 200] [--workers N] [--no-categories]``
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args(argv)

    if args.synthetic:
        scores = synthetic_scores(args.models, args.benchmarks)
        label = f"synthetic {args.models} x {args.benchmarks}"
    else:
        from analytics.core import db
        from analytics.llm import ratings

        con = db.connect()
        scores = ratings.load_scores(con)
        label = f"snapshot {db.current_version()}"
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
    elo.bootstrap_ratings(battles, args.rounds, seed=0, theta0=result.theta, workers=args.workers)
    t5 = time.perf_counter()

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
    print(f"bootstrap seconds         {t5 - t4:.2f} for {args.rounds} rounds")
    if not args.no_categories:
        t6 = time.perf_counter()
        elo.rate_categories(scores, bootstrap=args.rounds, seed=0)
        t7 = time.perf_counter()
        print(f"category ratings seconds  {t7 - t6:.2f} (rate_categories, {args.rounds} rounds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
