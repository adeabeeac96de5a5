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
    kept += [a for c in battles.categories for a in (c.rows_bits, c.patterns)]
    kept += [getattr(battles.rankings, f) for f in battles.rankings.__dataclass_fields__]
    kept += list(battles.counts or ())
    limit = 8 * (len(battles.pairs) * (2 + 2 * len(battles.categories)) + 8 * rows + 2 * cells)
    assert sum(a.nbytes for a in kept) <= limit < 8 * battles.n_battles


def test_a_category_costs_one_bit_per_pair() -> None:
    """Which pairs share a category is one bit per pair, whatever the category's share of the
    pairs: the pair structure stays near the 24 bytes per pair a fit itself needs."""
    battles = elo.build_battles(elo.headline_scores(catalog(0.9)))
    n_pairs = len(battles.pairs)
    for category in battles.categories:
        assert category.rows_bits.nbytes == -(-n_pairs // 8)
        assert len(category.row_pair) > 0.9 * n_pairs  # nearly every pair shares each category
    pairs = battles.pairs
    # 32-bit model numbers; the sparse matrices hold the pair list itself, and no values
    assert pairs.pair_i.dtype == pairs.pair_j.dtype == np.int32
    for matrix in (pairs._upper, pairs._lower):
        assert np.shares_memory(matrix.indices, pairs.pair_j) and matrix.data.nbytes == 0
    arrays = [pairs.pair_i, pairs.pair_j, *(c.rows_bits for c in battles.categories)]
    assert sum(a.nbytes for a in arrays) / n_pairs <= 4 + 4 + 1


def test_weighing_a_pattern_per_model_holds_a_few_numbers_per_pair(monkeypatch) -> None:
    """With a presence pattern per model the category's count table is itself about two
    numbers a pair: it is float32 (exact whole counts), and 1/sqrt(n) is taken per benchmark
    of its own models, never as a second whole table; the pair list is read a block at a
    time. What weighing adds to the battles stays under 32 bytes a pair here, about 24 (a
    float64 table with its mask and whole-list index arrays cost about 53)."""
    monkeypatch.setattr(elo.battles, "_TABLE_F64_MAX", 0)
    monkeypatch.setattr(elo.battles, "_MASK_BLOCK", 256)
    battles = elo.build_battles(elo.headline_scores(catalog(0.3, n_models=600)))
    assert all(c.patterns.dtype == np.float32 for c in battles.categories)
    tracemalloc.start()
    try:
        held = tracemalloc.get_traced_memory()[0]
        elo.weigh(battles, np.arange(60) % 3)
        added = tracemalloc.get_traced_memory()[1] - held
    finally:
        tracemalloc.stop()
    assert added / len(battles.pairs) < 32, f"{added / len(battles.pairs):.1f} bytes a pair"


def test_one_pattern_per_model_gives_the_same_evidence(monkeypatch) -> None:
    """Above ``_TABLE_F64_MAX`` patterns a category's pairs come from packed presence bits:
    the same pairs, the same totals and wins."""
    headline = elo.headline_scores(catalog(0.5))
    counts = (np.arange(60) % 3).astype(float)
    default = elo.build_battles(headline)
    want, want_drawn = elo.weigh(default), elo.weigh(default, counts)
    monkeypatch.setattr(elo.battles, "_TABLE_F64_MAX", 0)
    packed = elo.build_battles(headline)
    for one, other in zip(default.categories, packed.categories, strict=True):
        np.testing.assert_array_equal(one.rows_bits, other.rows_bits)
    for got, ref in ((elo.weigh(packed), want), (elo.weigh(packed, counts), want_drawn)):
        np.testing.assert_array_equal(got.total, ref.total)
        np.testing.assert_allclose(got.wins, ref.wins, rtol=1e-13)
