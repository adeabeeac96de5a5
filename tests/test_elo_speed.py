"""The fast paths of the Elo engine against slow, straightforward references kept here.

``elo.aggregate`` (sparse per-benchmark contributions), ``elo.fit`` (Newton iterates with
conjugate gradients) and ``elo.bootstrap_ratings`` (the lean round fit, worker processes) must
give the ratings of the plain method (docs/elo.md sections 2, 3 and 5): the same aggregate, the
same fixed point, the same resamples for a seed. No wall-clock time is asserted here, only a
ratio of CPU times (``bench/elo.py`` prints the figures).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest
import scipy.linalg

from analytics.llm import elo

COLUMNS = ["model", "benchmark", "category", "score"]


def synthetic(n_models: int, n_bench: int, seed: int, n_cat: int = 4) -> pd.DataFrame:
    """Latent skill + noise, whole points (ties), ~35% of cells missing, a few sparse models."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(size=n_models)
    rows = []
    for b in range(n_bench):
        for m in np.flatnonzero(rng.random(n_models) > 0.35 + 0.5 * (np.arange(n_models) % 7 == 0)):
            score = round(50 + 10 * (skill[m] + rng.normal(scale=0.8)))
            rows.append((f"m{m:03d}", f"b{b:02d}", f"c{b % n_cat}", float(score)))
    return pd.DataFrame(rows, columns=COLUMNS)


# --- slow references -------------------------------------------------------------------------


def reference_aggregate(battles: elo.Battles, multiplicity=None) -> elo.Pairwise:
    """The dense per-category aggregate: shared counts from the presence matrix, net wins
    from the dense sign matrix, one category at a time."""
    n_bench = len(battles.benchmarks)
    m = np.ones(n_bench) if multiplicity is None else np.asarray(multiplicity, dtype=float)
    wins_i = np.zeros(len(battles.pair_i))
    wins_j = np.zeros(len(battles.pair_i))
    presence = battles.presence.astype(float)
    signs = battles.signs.astype(float)
    for c in range(int(battles.category_codes.max()) + 1):
        weights = np.where(battles.category_codes == c, m, 0.0)
        shared = ((presence * weights) @ presence.T)[battles.pair_i, battles.pair_j]
        net = weights @ signs
        root = np.sqrt(shared)
        inv = np.divide(1.0, root, out=np.zeros_like(root), where=shared > 0)
        wins_i += 0.5 * (shared + net) * inv
        wins_j += 0.5 * (shared - net) * inv
    return elo.Pairwise(len(battles.models), battles.pair_i, battles.pair_j, wins_i, wins_j)


def reference_fit(pw: elo.Pairwise, theta0=None, tol: float = 1e-10) -> np.ndarray:
    """MM sweep, exact common shift, dense Cholesky Newton step with Armijo backtracking,
    until a plain MM sweep moves nothing by ``tol`` (the method of docs/elo.md section 3)."""
    theta = np.zeros(pw.n_models) if theta0 is None else np.array(theta0, dtype=float)
    n_i = np.bincount(pw.pair_i, pw.total, pw.n_models) + np.bincount(
        pw.pair_j, pw.total, pw.n_models
    )
    theta[n_i == 0] = 0.0
    for _ in range(500):
        swept = elo.mm_sweep(theta, pw)
        if np.max(np.abs(swept - theta), initial=0.0) < tol:
            return swept
        theta = swept
        for _ in range(100):  # common shift: only the anchor terms depend on it
            sig = 1 / (1 + np.exp(-theta))
            step = np.clip(np.sum(0.5 - sig) / np.sum(sig * (1 - sig)), -5, 5)
            theta = theta + step
            if abs(step) < 1e-15:
                break
        grad = elo.gradient(theta, pw)
        p = 1 / (1 + np.exp(-(theta[pw.pair_i] - theta[pw.pair_j])))
        curv = pw.total * p * (1 - p)
        sig = 1 / (1 + np.exp(-theta))
        hess = np.diag(
            np.bincount(pw.pair_i, curv, pw.n_models)
            + np.bincount(pw.pair_j, curv, pw.n_models)
            + sig * (1 - sig)
        )
        hess[pw.pair_i, pw.pair_j] = -curv
        hess[pw.pair_j, pw.pair_i] = -curv
        direction = scipy.linalg.cho_solve(scipy.linalg.cho_factor(hess), grad)
        direction = np.clip(direction, -2.0, 2.0)
        base, alpha = elo.log_likelihood(theta, pw), 1.0
        for _ in range(30):
            if elo.log_likelihood(theta + alpha * direction, pw) >= base + 1e-4 * alpha * (
                grad @ direction
            ):
                theta = theta + alpha * direction
                break
            alpha *= 0.5
    raise AssertionError("reference fit did not converge")


def reference_bootstrap(battles: elo.Battles, rounds: int, seed: int, theta0) -> np.ndarray:
    """Every round: draw benchmarks with replacement, aggregate, fit from ``theta0``; NaN for
    models without a battle in the round."""
    rng = np.random.default_rng(seed)
    n_bench = len(battles.benchmarks)
    out = []
    for _ in range(rounds):
        counts = np.bincount(rng.integers(0, n_bench, n_bench), minlength=n_bench)
        pw = reference_aggregate(battles, counts)
        fought = np.bincount(pw.pair_i, pw.total, pw.n_models) + np.bincount(
            pw.pair_j, pw.total, pw.n_models
        )
        out.append(np.where(fought > 0, elo.to_rating(reference_fit(pw, theta0)), np.nan))
    return np.vstack(out)


# --- the fast paths against them -------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_aggregate_is_the_dense_one(seed: int) -> None:
    battles = elo.build_battles(elo.headline_scores(synthetic(30, 16, seed)))
    rng = np.random.default_rng(seed)
    n = len(battles.benchmarks)
    for multiplicity in [None, *(np.bincount(rng.integers(0, n, n), minlength=n) for _ in "ab")]:
        got, want = elo.aggregate(battles, multiplicity), reference_aggregate(battles, multiplicity)
        np.testing.assert_allclose(got.wins_i, want.wins_i, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.wins_j, want.wins_j, rtol=0, atol=1e-12)


def test_aggregate_of_battles_built_by_hand() -> None:
    """A ``Battles`` without the per-benchmark battle lists still aggregates (they are rebuilt
    from the presence matrix)."""
    battles = elo.build_battles(elo.headline_scores(synthetic(12, 8, 3)))
    fields = ("models", "benchmarks", "category_codes", "presence", "pair_i", "pair_j", "signs")
    bare = elo.Battles(*(getattr(battles, f) for f in fields))
    counts = np.arange(len(battles.benchmarks)) % 3
    np.testing.assert_array_equal(elo.aggregate(bare, counts).wins_i,
                                  elo.aggregate(battles, counts).wins_i)  # fmt: skip


@pytest.mark.parametrize("dense_max", [0, 10_000], ids=["conjugate-gradients", "cholesky"])
def test_fit_lands_on_the_reference_fixed_point(monkeypatch, dense_max: int) -> None:
    monkeypatch.setattr(elo, "_DENSE_NEWTON_MAX", dense_max)
    for seed in range(3):
        pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic(60, 20, seed))))
        result = elo.fit(pw)
        want = reference_fit(pw)
        np.testing.assert_allclose(elo.to_rating(result.theta), elo.to_rating(want), atol=1e-6)
        assert result.last_mm_step < 1e-10 and result.max_abs_gradient < 1e-8


def test_fit_of_shuffled_pairs_is_the_same() -> None:
    pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic(40, 12, 4))))
    order = np.random.default_rng(0).permutation(len(pw.pair_i))
    shuffled = elo.Pairwise(pw.n_models, pw.pair_i[order], pw.pair_j[order],
                            pw.wins_i[order], pw.wins_j[order])  # fmt: skip
    np.testing.assert_allclose(elo.fit(shuffled).theta, elo.fit(pw).theta, atol=1e-9)


@pytest.mark.parametrize("dense_max", [0, 10_000], ids=["conjugate-gradients", "cholesky"])
def test_bootstrap_matches_the_reference_rounds(monkeypatch, dense_max: int) -> None:
    monkeypatch.setattr(elo, "_DENSE_NEWTON_MAX", dense_max)
    battles = elo.build_battles(elo.headline_scores(synthetic(40, 14, 5)))
    theta0 = elo.fit(elo.aggregate(battles)).theta
    want = reference_bootstrap(battles, 12, 3, theta0)
    for workers in (1, 2):
        got = elo.bootstrap_ratings(battles, 12, seed=3, theta0=theta0, workers=workers)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_round_preconditioner_slow_modes_change_no_round(monkeypatch) -> None:
    """The conjugate-gradient rounds correct the slow modes of the start's Hessian
    (``_RoundSolver.prepare``); without them (Jacobi alone) the rounds land on the same point,
    and the modes are the eigenvectors of the smallest eigenvalues of the scaled Hessian."""
    monkeypatch.setattr(elo, "_DENSE_NEWTON_MAX", 0)
    battles = elo.build_battles(elo.headline_scores(synthetic(60, 16, 9)))
    theta0 = elo.fit(elo.aggregate(battles)).theta
    with_modes = elo.bootstrap_ratings(battles, 8, seed=4, theta0=theta0, workers=1)
    solver = battles.contributions.rounds
    assert solver.coarse is not None
    assert solver.coarse.shape == (len(battles.models), elo._COARSE_MODES)
    values = 1.0 / solver.coarse_inverse
    assert np.all(np.diff(values) >= 0) and values[0] > 0  # smallest first, positive definite
    monkeypatch.setattr(elo._RoundSolver, "prepare", lambda self, theta: None)
    solver.coarse = solver.coarse_inverse = None
    jacobi = elo.bootstrap_ratings(battles, 8, seed=4, theta0=theta0, workers=1)
    np.testing.assert_array_equal(np.isnan(with_modes), np.isnan(jacobi))
    np.testing.assert_allclose(with_modes, jacobi, atol=1e-6)


def test_bootstrap_is_the_same_for_any_number_of_workers() -> None:
    battles = elo.build_battles(elo.headline_scores(synthetic(50, 14, 6)))
    theta0 = elo.fit(elo.aggregate(battles)).theta
    runs = [elo.bootstrap_ratings(battles, 9, seed=1, theta0=theta0, workers=w) for w in (1, 2, 3)]
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_array_equal(runs[0], runs[2])


def test_rate_tables_match_the_reference_intervals() -> None:
    """Point ratings within 0.05, intervals within 0.1 of the reference (published to 0.1)."""
    scores = synthetic(40, 14, 7)
    table = elo.rate(scores, bootstrap=15, seed=2).set_index("model")
    headline = elo.headline_scores(scores)
    battles = elo.build_battles(headline)
    theta = reference_fit(reference_aggregate(battles))
    point = pd.Series(elo.to_rating(theta), index=list(battles.models))
    samples = reference_bootstrap(battles, 15, 2, theta)
    intervals = elo._intervals(samples, table.loc[list(battles.models)])
    assert np.max(np.abs(table.loc[point.index, "rating"] - point.round(1))) <= 0.05 + 1e-9
    for column in ("rating_low", "rating_high"):
        diff = table.loc[point.index, column] - intervals[column].round(1)
        assert np.max(np.abs(diff)) <= 0.1 + 1e-9
    for column in ("rank_low", "rank_high"):
        assert table.loc[point.index, column].equals(intervals[column])


def test_category_ratings_match_the_reference() -> None:
    scores = synthetic(30, 12, 8, n_cat=3)
    table = elo.rate_categories(scores, bootstrap=8, seed=1)
    headline = elo.headline_scores(scores)
    for category, rows in table.groupby("category"):
        part = headline[headline["category"] == category]
        battles = elo.build_battles(part)
        theta = reference_fit(reference_aggregate(battles))
        want = pd.Series(elo.to_rating(theta), index=list(battles.models)).round(1)
        got = rows.set_index("model")["rating"]
        assert np.max(np.abs(got.loc[want.index] - want)) <= 0.05 + 1e-9
        samples = reference_bootstrap(battles, 8, 1, theta)
        low = np.nanquantile(samples, 0.025, axis=0)
        seen = ~np.all(np.isnan(samples), axis=0)
        got_low = rows.set_index("model")["rating_low"].loc[want.index].to_numpy(float)
        np.testing.assert_allclose(got_low[seen], np.round(low[seen], 1), atol=0.1 + 1e-9)
        assert math.isfinite(float(np.nanmax(got_low)))


# --- the bootstrap's own fast path -----------------------------------------------------------


def small_battles(seed: int = 6) -> tuple[elo.Battles, np.ndarray]:
    battles = elo.build_battles(elo.headline_scores(synthetic(50, 14, seed)))
    return battles, elo.fit(elo.aggregate(battles)).theta


def test_bootstrap_is_identical_in_one_and_in_two_worker_processes(monkeypatch) -> None:
    """Seeded draws are made up front, so worker processes (forced here: the problem is below
    the size where they are used) return exactly the rounds of one process."""
    battles, theta0 = small_battles()
    one = elo.bootstrap_ratings(battles, 11, seed=4, theta0=theta0, workers=1)
    monkeypatch.setattr(elo, "_POOL_MIN_WORK", 0)
    two = elo.bootstrap_ratings(battles, 11, seed=4, theta0=theta0, workers=2)
    np.testing.assert_array_equal(one, two)
    # where forking is unsafe the chunks run in threads: the same rounds again
    monkeypatch.setattr(elo.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    threads = elo.bootstrap_ratings(battles, 11, seed=4, theta0=theta0, workers=2)
    np.testing.assert_array_equal(one, threads)


def test_round_aggregate_is_the_aggregate() -> None:
    battles, _ = small_battles(7)
    rng = np.random.default_rng(1)
    n = len(battles.benchmarks)
    for _ in range(3):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        wins_i, wins_j = battles.contributions.rounds.aggregate(counts)
        want = elo.aggregate(battles, counts)
        np.testing.assert_allclose(wins_i, want.wins_i, rtol=0, atol=1e-12)
        np.testing.assert_allclose(wins_j, want.wins_j, rtol=0, atol=1e-12)


def test_round_aggregate_weighs_each_benchmark_set_once() -> None:
    """The rounds' aggregate computes 1/sqrt(n) per distinct benchmark set of the (category,
    pair) rows: far fewer sets than rows, every row's set its own benchmarks."""
    battles, _ = small_battles(7)
    contributions = battles.contributions
    aggregate = contributions.rounds.aggregate
    sets = aggregate.set_bench.toarray() > 0
    both = contributions.both.toarray() > 0
    assert len(sets) < len(both) / 5
    _, row_set = elo._benchmark_sets(contributions.both.tocsr())
    assert (sets[row_set] == both).all()


def test_distinct_rows_survive_a_hash_collision() -> None:
    """Rows are grouped by a 64-bit hash; two distinct rows with one hash (forced here: unit
    weights make (1, 2) and (2, 1) collide) are still told apart."""
    masks = np.array([[1, 2], [2, 1], [1, 2], [0, 3], [2, 1]], dtype=np.uint64)
    for weights in (None, np.ones(2, dtype=np.uint64)):
        first, index = elo._distinct_rows(masks, weights)
        np.testing.assert_array_equal(masks[first][index], masks)
        assert len(first) == 3 and index[0] == index[2] and index[1] == index[4]


def test_pair_index_per_model_sums_are_bincounts() -> None:
    """Per-model sums over either side of the pairs, with models that are no pair's first in
    the middle and at the end (segment sums must not run past them), after ``kept`` too."""
    pair_i = np.array([0, 0, 2, 2, 2, 3, 3])
    pair_j = np.array([1, 4, 3, 4, 5, 4, 5])
    values, second = np.arange(1.0, 8.0), np.arange(10.0, 80.0, 10.0)
    index = elo._PairIndex.of(6, pair_i, pair_j)
    want = np.bincount(pair_i, values, 6) + np.bincount(pair_j, second, 6)
    np.testing.assert_array_equal(index.per_model(values, second), want)
    keep = np.array([True, False, True, True, False, True, True])
    kept = index.kept(keep)
    np.testing.assert_array_equal(kept.pair_i, pair_i[keep])
    want = np.bincount(pair_i[keep], values[keep], 6) + np.bincount(pair_j[keep], values[keep], 6)
    np.testing.assert_array_equal(kept.per_model(values[keep]), want)
    none = index.kept(np.zeros(7, dtype=bool))
    np.testing.assert_array_equal(none.per_model(np.zeros(0)), np.zeros(6))


def test_rounds_fitted_on_their_drawn_pairs_alone_are_the_same(monkeypatch) -> None:
    """A round that leaves pairs out is fitted on the pairs it drew (``_PairIndex.kept``): the
    same ratings as on the full pair list, where the others weigh 0."""
    battles, theta0 = small_battles(9)
    solver = battles.contributions.rounds
    n = len(battles.benchmarks)
    counts = np.bincount(np.random.default_rng(2).integers(0, n, n), minlength=n)
    wins_i, wins_j = solver.aggregate(counts)
    assert 0 < np.count_nonzero(wins_i + wins_j == 0) < len(wins_i)  # some pairs left out
    kept = solver.pairs.kept(wins_i + wins_j > 0)
    assert len(kept.pair_i) == np.count_nonzero(wins_i + wins_j)
    assert kept.first_count.sum() == len(kept.pair_i)
    calls = []
    keep = elo._PairIndex.kept
    monkeypatch.setattr(elo._PairIndex, "kept", lambda self, m: calls.append(1) or keep(self, m))
    compact = elo.bootstrap_ratings(battles, 6, seed=2, theta0=theta0, workers=1)
    assert calls  # rounds were fitted on fewer pairs
    monkeypatch.setattr(elo, "_COMPACT_BELOW", 0.0)  # never leave pairs out
    full = elo.bootstrap_ratings(battles, 6, seed=2, theta0=theta0, workers=1)
    np.testing.assert_array_equal(np.isnan(compact), np.isnan(full))
    np.testing.assert_allclose(compact, full, rtol=0, atol=1e-9)


@pytest.mark.parametrize("spread", [1.0, 700.0], ids=["strengths", "sigmoid-form"])
def test_round_pair_terms_are_the_expected_wins_and_curvature(spread) -> None:
    """The rounds' expected wins s_i * sum(u) and curvature u * p * s_j against the direct
    sigmoid formulas; log-strengths more than 600 apart (exp would underflow) take the
    sigmoid form."""
    battles, theta0 = small_battles(8)
    solver = battles.contributions.rounds
    n = len(battles.benchmarks)
    draw = np.random.default_rng(3).integers(0, n, n)
    wins_i, wins_j = solver.aggregate(np.bincount(draw, minlength=n))
    total = wins_i + wins_j
    theta = theta0 * spread / max(np.ptp(theta0), 1e-9)
    terms = elo._PairTerms(len(total))
    expected = solver._expected(theta, total, terms, solver.pairs)
    assert terms.probabilities == (spread > 600)
    d = theta[battles.pair_i] - theta[battles.pair_j]
    p, q = elo._sigmoid(d), elo._sigmoid(-d)  # each to full relative precision
    want = np.bincount(battles.pair_i, total * p, len(theta)) + np.bincount(
        battles.pair_j, total * q, len(theta)
    )
    np.testing.assert_allclose(expected, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(terms.curvature(), total * p * q, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("dense_max", [0, 10_000], ids=["conjugate-gradients", "cholesky"])
def test_round_fit_from_a_far_start_lands_on_the_same_point(monkeypatch, dense_max) -> None:
    """A start far from the answer needs the backtracking on the log-likelihood, an absurd
    one (ratings +-9000) falls back to ``elo.fit`` on the drawn pairs: the same fixed point."""
    monkeypatch.setattr(elo, "_DENSE_NEWTON_MAX", dense_max)
    battles, theta0 = small_battles(8)
    near = elo.bootstrap_ratings(battles, 6, seed=2, theta0=theta0)
    absurd = np.random.default_rng(1).normal(scale=50.0, size=theta0.shape)
    for start in (-3.0 * theta0, absurd):
        far = elo.bootstrap_ratings(battles, 6, seed=2, theta0=start)
        np.testing.assert_array_equal(np.isnan(far), np.isnan(near))
        np.testing.assert_allclose(far, near, atol=1e-6)


def test_equal_evidence_gets_the_same_rank_spread() -> None:
    """A model with exactly another's scores has the same rating in every round up to
    floating-point noise (~1e-13); the rounds' ranks (of ratings rounded to 1e-6) never split
    them (before, rank_high came out 28 and 27 here)."""
    scores = synthetic(40, 14, 3)
    twin = scores[scores["model"] == "m003"].assign(model="m003-twin")
    table = elo.rate(pd.concat([scores, twin]), bootstrap=50, seed=3).set_index("model")
    columns = ["rating", "rank", "rating_low", "rating_high", "rank_low", "rank_high"]
    assert table.loc["m003", columns].equals(table.loc["m003-twin", columns])


def test_round_fit_costs_less_cpu_than_the_point_fit_engine() -> None:
    """CPU time (not wall clock) of the same resamples: the round solver against elo.fit of
    each round's aggregate from the same start (about 0.4-0.5 of it on this problem)."""
    battles = elo.build_battles(elo.headline_scores(synthetic(120, 24, 0)))
    theta0 = elo.fit(elo.aggregate(battles)).theta
    rng = np.random.default_rng(0)
    n = len(battles.benchmarks)
    draws = [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(8)]
    solver = battles.contributions.rounds

    def rounds() -> None:
        for counts in draws:
            solver.fit(*solver.aggregate(counts), theta0, elo.DEFAULT_TOL)

    def point_engine() -> None:
        for counts in draws:
            elo.fit(elo.aggregate(battles, counts), theta0=theta0)

    def cpu(run) -> float:
        best = math.inf
        for _ in range(3):
            start = time.process_time()
            run()
            best = min(best, time.process_time() - start)
        return best

    assert cpu(rounds) <= 0.9 * cpu(point_engine)
