"""The Elo engine's memory grows with the model pairs and the score rows, never with the battles
(pairs x shared benchmarks): measured with ``tracemalloc`` (numpy reports its
buffers to it), on catalogs with the same pairs and ever more battles per pair."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import threadpoolctl

from analytics.llm import elo


def catalog(coverage: float, n_models: int = 150, n_bench: int = 60) -> pd.DataFrame:
    """Every model scored on ``coverage`` of the benchmarks (4 categories), seeded."""
    rng = np.random.default_rng(0)
    skill = rng.normal(size=n_models)
    m, b = np.nonzero(rng.random((n_models, n_bench)) < coverage)
    score = np.round(50 + 10 * (skill[m] + rng.normal(scale=0.8, size=len(m))))
    return pd.DataFrame({"model": [f"m{i:03d}" for i in m], "benchmark": [f"b{j:02d}" for j in b],
                         "category": [f"c{j % 4}" for j in b], "score": score})


def peak_bytes(scores: pd.DataFrame) -> tuple[int, elo.Battles]:
    """Peak traced memory of building the battles, the point fit and 3 bootstrap rounds."""
    headline = elo.headline_scores(scores)
    tracemalloc.start()
    try:
        battles = elo.build_battles(headline)
        with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
            theta = elo.solver.solve(elo.weigh(battles)).theta
        elo.bootstrap_ratings(battles, 3, seed=0, theta0=theta, workers=1)
        return tracemalloc.get_traced_memory()[1], battles
    finally:
        tracemalloc.stop()


def test_memory_follows_the_pairs_not_the_battles() -> None:
    sparse, sparse_battles = peak_bytes(catalog(0.3))
    dense, dense_battles = peak_bytes(catalog(0.9))
    assert len(dense_battles.pairs) < 1.01 * len(sparse_battles.pairs)  # nearly every pair meets
    assert dense_battles.n_battles > 8 * sparse_battles.n_battles  # 9x the battles
    assert dense < 2.0 * sparse  # (3x the score rows, ~1.2x the memory)
    per_battle = 8  # bytes: even one float per battle would show
    assert dense - sparse < per_battle * (dense_battles.n_battles - sparse_battles.n_battles)


def test_nothing_kept_is_per_battle() -> None:
    """Every array a ``Battles`` keeps is at most a few numbers per pair, per (category, pair),
    per score row or per model x benchmark cell (the outcome counts only where they are no
    more than twice the pairs and score rows)."""
    battles = elo.build_battles(elo.headline_scores(catalog(0.9)))
    rows, cells = int(battles.presence.sum()), battles.presence.size
    kept = [battles.presence, battles.scores, battles.pairs.pair_i, battles.pairs.pair_j]
    kept += [a for c in battles.categories for a in (c.row_pair, c.row_cell, c.patterns)]
    kept += [getattr(battles.rankings, f) for f in battles.rankings.__dataclass_fields__]
    kept += list(battles.counts or ())
    limit = 8 * (len(battles.pairs) * (2 + 2 * len(battles.categories)) + 8 * rows + 2 * cells)
    assert sum(a.nbytes for a in kept) <= limit < 8 * battles.n_battles
