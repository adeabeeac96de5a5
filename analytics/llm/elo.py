"""Weighted Bradley-Terry Elo ratings (seed 002, "The Elo rating" and "Ranking eligibility").

Input is a long score table with columns ``model, benchmark, category, score`` and optionally
``source`` (a provenance kind), ``date`` and ``higher_is_better``. The pipeline:

1. :func:`headline_scores` keeps one score per model x benchmark (seed 002, "Provenance").
2. :func:`build_battles` turns every benchmark two models both report into a battle and stores
   the per-benchmark outcomes compactly; :func:`aggregate` sums them into weighted pairwise wins
   with weight 1/sqrt(n) per battle, n = benchmarks of that battle's category the pair shares.
3. :func:`fit` finds the maximum-likelihood Bradley-Terry strengths by the MM algorithm of
   Hunter (2004), "MM algorithms for generalized Bradley-Terry models", Ann. Statist. 32(1),
   with one pseudo-draw per model against an anchor of strength 1 (rating 1000).
4. :func:`rate` adds eligibility, ranks and (optionally) bootstrap intervals over benchmarks;
   only models of the main comparison graph (:func:`main_graph`) can be ranked.
5. :func:`rate_categories` runs the same fit on each category's benchmarks alone (category
   leaderboards; the overall rating stays :func:`rate`'s).

See ``docs/elo.md`` for the method, the stopping rule and the acceleration.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import copy
import functools
import math
import multiprocessing
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph
import threadpoolctl

from analytics.core.schema import SOURCE_KINDS

ALGORITHM_VERSION = "bt-mm-3"  # 2: ranks only the main comparison graph; 3: bootstrap rank
# spread no longer splits rounds' equal ratings by float noise (docs/elo.md section 10)
"""Version of the rating method: change it whenever a change to this module (or to the score
query in ``analytics.llm.ratings``) changes any rating, so cached ratings of an old method are
never served (``data/derived/<version>/`` files carry it in their name)."""
CATEGORY_VERSION = "cat-2"  # 2: three benchmarks of the category to rank (was two)
"""Version of the per-category method (:func:`rate_categories`: which battles, the category
floor); the category file's name carries it beside ``ALGORITHM_VERSION``."""
ANCHOR_RATING = 1000.0  # rating of the fixed anchor (strength 1), seed 002
ELO_SCALE = 400.0  # +400 rating points = 10:1 win odds, seed 002
DEFAULT_TOL = 1e-10  # stop when one plain MM sweep moves every log-strength by less than this
DEFAULT_MAX_ITER = 500  # accelerated sweeps before ConvergenceError
MIN_BENCHMARKS = 3  # ranking eligibility floor, seed 002
MIN_CATEGORIES = 2  # ranking eligibility floor, seed 002
MIN_CATEGORY_BENCHMARKS = 3  # category-rank floor (issue 26; docs/elo.md, "Category leaderboards")
RATING_DECIMALS = 1  # ratings are published to 0.1, seed 002
_MAX_NEWTON_STEP = 2.0  # largest change of any log-strength in one Newton step (~350 rating)
_DENSE_NEWTON_MAX = 200  # above this many models the Newton step uses conjugate gradients
_CG_RTOL_MAX = 0.1  # loosest relative residual of the conjugate-gradient Newton solve
_CG_RTOL_GRAD = 1e-2  # ... times the largest gradient entry, when smaller
_CG_MAX_ITER = 500  # conjugate-gradient iterations per Newton step, at most

UNRATED_FLOOR = f"needs {MIN_BENCHMARKS} benchmarks in {MIN_CATEGORIES} categories"
UNRATED_CATEGORY_FLOOR = f"needs {MIN_CATEGORY_BENCHMARKS} benchmarks in this category"
UNRATED_DISCONNECTED = "not connected to the main comparison graph (shares no benchmark with it)"
"""The ``unrated_reason`` values of :func:`rate` (joined by "; " when both apply); category
tables say :data:`UNRATED_CATEGORY_FLOOR` instead of :data:`UNRATED_FLOOR`."""

REQUIRED_COLUMNS = ("model", "benchmark", "category", "score")
OPTIONAL_COLUMNS = ("source", "date", "higher_is_better")


class ConvergenceError(RuntimeError):
    """The rating fit did not reach its tolerance within ``max_iter`` sweeps."""


@dataclass(frozen=True)
class Battles:
    """Every head-to-head battle of a score table, stored per benchmark.

    ``signs[b, p]`` is +1 when the first model of pair ``p`` beats the second on benchmark ``b``,
    -1 when it loses and 0 for a draw or when either model lacks the benchmark;
    ``presence[m, b]`` says whether model ``m`` reports benchmark ``b``.
    """

    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    category_codes: np.ndarray  # (B,) int, category index per benchmark
    presence: np.ndarray  # (M, B) bool
    pair_i: np.ndarray  # (P,) int, first model of each pair (pair_i < pair_j)
    pair_j: np.ndarray  # (P,) int
    signs: np.ndarray  # (B, P) int8
    battle_start: np.ndarray | None = None  # (B + 1,) offsets of each benchmark's battles
    battle_pair: np.ndarray | None = None  # (battles,) pair of each battle, by benchmark

    @property
    def n_battles(self) -> int:
        """Number of individual battles (model pairs per benchmark)."""
        counts = self.presence.sum(axis=0).astype(np.int64)
        return int((counts * (counts - 1) // 2).sum())

    @functools.cached_property
    def contributions(self) -> _Contributions:
        """Per-benchmark battle incidence for :func:`aggregate` (built once, on first use)."""
        return _Contributions(self)


@dataclass(frozen=True)
class Pairwise:
    """Weighted pairwise results: ``wins_i[p]`` is the weighted score of ``pair_i`` against
    ``pair_j`` (a draw counts half to each side)."""

    n_models: int
    pair_i: np.ndarray
    pair_j: np.ndarray
    wins_i: np.ndarray
    wins_j: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Total battle weight per pair."""
        return self.wins_i + self.wins_j


@dataclass(frozen=True)
class Fit:
    """A converged fit: log-strengths (anchor = 0) and the diagnostics of the stopping rule."""

    theta: np.ndarray
    iterations: int
    last_mm_step: float
    max_abs_gradient: float


# --- 1. headline scores ---------------------------------------------------------------------


def headline_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per model x benchmark: the best source by precedence, then the newest date.

    Precedence is ``schema.SOURCE_KINDS`` (independent > arena > admin-run > curated >
    self-reported, seed 002 "Provenance"). Remaining ties go to the source name, then the higher
    score, so the pick never depends on row order. One stable sort of integer keys (missing
    values last in every key), then the first row of each model x benchmark.
    """
    _require(scores, REQUIRED_COLUMNS)
    keys = [_ascending_codes(scores["model"]), _ascending_codes(scores["benchmark"])]
    keys.append(_source_rank(scores).to_numpy())
    if "date" in scores:
        date = pd.to_datetime(scores["date"]).to_numpy()
        stamp = date.view(np.int64)  # in the array's own unit: the order is all that counts
        keys.append(np.where(np.isnat(date), np.iinfo(np.int64).max, -stamp))  # newest first
    if "source_name" in scores:
        keys.append(_ascending_codes(scores["source_name"]))
    score = pd.to_numeric(scores["score"]).to_numpy(dtype=float)
    keys.append(np.where(np.isnan(score), np.inf, -score))  # higher first, none last
    order = np.lexsort(keys[::-1])  # stable; the first key sorts first
    model, bench = keys[0][order], keys[1][order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (model[1:] != model[:-1]) | (bench[1:] != bench[:-1])
    return scores.iloc[order[first]].reset_index(drop=True)


def _ascending_codes(values: pd.Series) -> np.ndarray:
    """Integer codes in the sort order of ``values`` (missing values last)."""
    codes, uniques = pd.factorize(values, sort=True)
    return np.where(codes < 0, len(uniques), codes)


def _source_rank(frame: pd.DataFrame) -> pd.Series:
    """Each row's place of its source kind in ``SOURCE_KINDS`` (0 = highest precedence)."""
    if "source" not in frame:
        return pd.Series(0, index=frame.index)
    codes, kinds = pd.factorize(frame["source"])  # one lookup per distinct kind, not per row
    order = {kind: i for i, kind in enumerate(SOURCE_KINDS)}
    unknown = sorted(str(k) for k in kinds if k not in order)
    if unknown or (codes < 0).any():
        bad = unknown[0] if unknown else "(empty)"
        raise ValueError(f"source {bad!r} is not one of: {', '.join(SOURCE_KINDS)}")
    return pd.Series(np.array([order[k] for k in kinds], dtype=int)[codes], index=frame.index)


def _require(frame: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"missing column(s): {', '.join(missing)}")


# --- 2. battles and weights -----------------------------------------------------------------


def build_battles(headline: pd.DataFrame) -> Battles:
    """Battles of a headline table (one score per model x benchmark).

    A higher score wins, or a lower one where ``higher_is_better`` is false; equal scores draw.
    """
    _require(headline, REQUIRED_COLUMNS)
    oriented, categories = _oriented_matrix(headline)
    models, benchmarks = tuple(oriented.index), tuple(oriented.columns)
    values = oriented.to_numpy(dtype=float)
    presence = ~np.isnan(values)
    shared = presence.astype(np.float32) @ presence.T.astype(np.float32)
    # nonzero's two index arrays are strided views of one array: copies, which every gather
    # over the pairs reads faster (a fifth of a bootstrap round's time)
    pair_i, pair_j = map(np.ascontiguousarray, np.nonzero(np.triu(shared > 0, k=1)))
    pair_id = np.full((len(models), len(models)), -1, dtype=np.int64)
    pair_id[pair_i, pair_j] = np.arange(len(pair_i))
    signs = np.zeros((len(benchmarks), len(pair_i)), dtype=np.int8)
    fought = []
    for b in range(len(benchmarks)):
        idx = np.flatnonzero(presence[:, b])
        upper_a, upper_b = np.triu_indices(len(idx), k=1)
        diff = values[idx[upper_a], b] - values[idx[upper_b], b]
        fought.append(pair_id[idx[upper_a], idx[upper_b]])  # ascending: pairs are row-major
        signs[b, fought[-1]] = np.sign(diff).astype(np.int8)
    codes = pd.Index(sorted(set(categories))).get_indexer(categories)
    start = np.cumsum([0, *map(len, fought)])
    battle_pair = np.concatenate(fought) if fought else np.zeros(0, dtype=np.int64)
    return Battles(models, benchmarks, codes, presence, pair_i, pair_j, signs, start, battle_pair)


def _oriented_matrix(headline: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Models x benchmarks of scores, negated where lower is better; category per column."""
    per_bench = _benchmark_attributes(headline)
    wide = headline.pivot(index="model", columns="benchmark", values="score").astype(float)
    wide = wide.sort_index().sort_index(axis=1)
    flip = np.where(per_bench.loc[wide.columns, "higher_is_better"].to_numpy(bool), 1.0, -1.0)
    return wide * flip, list(per_bench.loc[wide.columns, "category"].astype(str))


def _benchmark_attributes(headline: pd.DataFrame) -> pd.DataFrame:
    frame = headline.assign(
        higher_is_better=headline["higher_is_better"] if "higher_is_better" in headline else True
    )
    attrs = frame.groupby("benchmark")[["category", "higher_is_better"]].nunique()
    for column in ("category", "higher_is_better"):
        clash = attrs.index[attrs[column] > 1]
        if len(clash):
            raise ValueError(f"benchmark {clash[0]!r} has more than one {column}")
    return frame.groupby("benchmark")[["category", "higher_is_better"]].first()


def aggregate(battles: Battles, multiplicity: np.ndarray | None = None) -> Pairwise:
    """Weighted pairwise wins; each battle weighs 1/sqrt(n) (seed 002, "The Elo rating").

    n is the number of benchmarks of the battle's category both models report. ``multiplicity``
    counts each benchmark that many times (the bootstrap resamples benchmarks).

    Per category, the pair's shared count n and its net wins (wins minus losses) are sums over
    the category's benchmarks, so they are two sparse products of that category's battle
    incidence (built once per :class:`Battles`, :class:`_Contributions`) with the multiplicities;
    a pair's category then adds ``(n + net) / 2`` battles of weight ``1/sqrt(n)`` to its wins.
    """
    return battles.contributions.pairwise(multiplicity)


class _Contributions:
    """Every benchmark's battles as sparse matrices with one row per (category, pair) that
    shares a benchmark of the category, one column per benchmark: ``both`` is 1 where both
    models report the benchmark, ``sign`` holds the battle's sign. A resample's aggregate is
    then a weighted sum of these per-benchmark contributions (:meth:`pairwise`), no battle
    rebuilt. Rows are ordered by category, then pair, so each pair's wins add up category by
    category, in the order of a loop over categories."""

    def __init__(self, battles: Battles) -> None:
        n_bench, n_pairs = len(battles.benchmarks), len(battles.pair_i)
        start, battle_pair = battles.battle_start, battles.battle_pair
        if start is None or battle_pair is None:  # a Battles built by hand: list its battles
            both = battles.presence[battles.pair_i] & battles.presence[battles.pair_j]
            bench, battle_pair = np.nonzero(both.T)
            start = np.searchsorted(bench, np.arange(n_bench + 1))
        bench_of = np.repeat(np.arange(n_bench), np.diff(start))
        sign = battles.signs[bench_of, battle_pair].astype(float)
        codes = np.asarray(battles.category_codes, dtype=np.int64)
        key = codes[bench_of] * n_pairs + battle_pair  # (category, pair) of each battle
        self.row_key, row = np.unique(key, return_inverse=True)
        self.row_pair = self.row_key % max(n_pairs, 1)
        shape = (len(self.row_key), n_bench)
        self.both = scipy.sparse.csr_matrix((np.ones(len(key)), (row, bench_of)), shape=shape)
        won = sign != 0
        self.sign = scipy.sparse.csr_matrix((sign[won], (row[won], bench_of[won])), shape=shape)
        self.n_models, self.n_bench = len(battles.models), n_bench
        self.pair_i, self.pair_j = battles.pair_i, battles.pair_j

    @functools.cached_property
    def rounds(self) -> _RoundSolver:
        """The fixed parts of every bootstrap round (built once, on first use)."""
        return _RoundSolver(self)

    def pairwise(self, multiplicity: np.ndarray | None = None) -> Pairwise:
        """The :func:`aggregate` of benchmarks counted ``multiplicity`` times (default once)."""
        m = np.ones(self.n_bench) if multiplicity is None else np.asarray(multiplicity, float)
        shared = self.both @ m  # per (category, pair): shared benchmarks, counted
        net = self.sign @ m  # wins minus losses among them
        root = np.sqrt(shared)
        inv = np.divide(1.0, root, out=np.zeros_like(root), where=shared > 0)
        n_pairs = len(self.pair_i)
        # n battles of weight 1/sqrt(n); a draw is half a win to each side
        wins_i = np.bincount(self.row_pair, 0.5 * (shared + net) * inv, n_pairs)
        wins_j = np.bincount(self.row_pair, 0.5 * (shared - net) * inv, n_pairs)
        return Pairwise(self.n_models, self.pair_i, self.pair_j, wins_i, wins_j)


def battle_table(headline: pd.DataFrame) -> pd.DataFrame:
    """Every battle as a row (reference enumeration for small inputs and for reading).

    Columns: model_a, model_b, benchmark, category, result_a (1 win, 0.5 draw, 0 loss), weight.
    """
    battles = build_battles(headline)
    cats = sorted(set(headline["category"].astype(str)))
    rows = []
    for b, bench in enumerate(battles.benchmarks):
        category = cats[battles.category_codes[b]]
        same = battles.category_codes == battles.category_codes[b]
        for p in np.flatnonzero(
            battles.presence[battles.pair_i, b] & battles.presence[battles.pair_j, b]
        ):
            i, j = battles.pair_i[p], battles.pair_j[p]
            n = int((battles.presence[i, same] & battles.presence[j, same]).sum())
            result = 0.5 * (1 + int(battles.signs[b, p]))
            rows.append(
                (battles.models[i], battles.models[j], bench, category, result, 1 / math.sqrt(n))
            )
    columns = ["model_a", "model_b", "benchmark", "category", "result_a", "weight"]
    return pd.DataFrame(rows, columns=columns)


# --- 3. the fit -----------------------------------------------------------------------------


def log_likelihood(theta: np.ndarray, pw: Pairwise) -> float:
    """Weighted Bradley-Terry log-likelihood of log-strengths ``theta``, anchor draws included."""
    ti, tj = theta[pw.pair_i], theta[pw.pair_j]
    pairs = pw.wins_i * ti + pw.wins_j * tj - pw.total * np.logaddexp(ti, tj)
    anchor = 0.5 * theta - np.logaddexp(theta, 0.0)  # one draw against strength 1
    return float(pairs.sum() + anchor.sum())


def gradient(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    """Gradient of :func:`log_likelihood` with respect to ``theta``."""
    p = _win_prob(theta, pw)
    expected = pw.total * p
    grad = _per_model(pw, pw.wins_i - expected, pw.wins_j - (pw.total - expected))
    return grad + 0.5 - _sigmoid(theta)


def mm_sweep(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    """One MM update of every strength at once (Hunter 2004, eq. 3, ties as half wins).

    s_i <- W_i / sum_j N_ij / (s_i + s_j), the anchor contributing W = 1/2, N = 1, s = 1.
    Multiplying through by s_i gives the overflow-free form used here:
    log s_i <- log s_i + log W_i - log E_i, E_i = expected wins of i at the current strengths.
    """
    p = _win_prob(theta, pw)
    expected = _per_model(pw, pw.total * p, pw.total * (1.0 - p)) + _sigmoid(theta)
    wins = _per_model(pw, pw.wins_i, pw.wins_j) + 0.5
    return theta + np.log(wins) - np.log(expected)


def fit(
    pw: Pairwise,
    *,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
    theta0: np.ndarray | None = None,
    accelerate: bool = True,
) -> Fit:
    """Maximum-likelihood log-strengths by MM sweeps (Hunter 2004), accelerated.

    After each MM sweep the common log-shift is set exactly (1-D Newton; only the anchor draws
    depend on it), and with ``accelerate`` a damped Newton step follows. The fit stops once a
    plain MM sweep moves no log-strength by ``tol`` or more - i.e. at the MM fixed point, which
    is the unique maximum because the anchor draws make the likelihood strictly concave.
    Raises :class:`ConvergenceError` after ``max_iter`` sweeps.
    """
    theta = np.zeros(pw.n_models) if theta0 is None else np.array(theta0, dtype=float)
    total = pw.total
    theta[_per_model(pw, total, total) == 0] = 0.0  # only the anchor draw: exactly s = 1
    # Many small factorisations: one BLAS thread avoids spin-wait overhead on shared CPUs.
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        return _iterate(_Problem(pw), theta, tol, max_iter, accelerate)


def _iterate(
    problem: _Problem, theta: np.ndarray, tol: float, max_iter: int, accelerate: bool
) -> Fit:
    """MM sweeps until one moves no log-strength by ``tol``. With ``accelerate`` the iterate
    advances by damped Newton steps instead, and the MM sweep at each Newton iterate (cheap:
    the same win probabilities) is the stopping test; the iterate that passes it is returned
    (it is an MM fixed point to ``tol``, and Newton's own accuracy is far better there)."""
    step = math.inf
    p, value = problem.evaluate(theta)
    for iteration in range(1, max_iter + 1):
        swept = problem.mm_sweep(theta, p)
        step = float(np.max(np.abs(swept - theta), initial=0.0))
        if step < tol:
            point = theta if accelerate else swept
            grad = float(np.max(np.abs(gradient(point, problem.pw)), initial=0.0))
            return Fit(point, iteration, step, grad)
        if accelerate:
            theta, p, value = problem.newton_step(theta, p, value)
        else:
            theta = _best_shift(swept)
            p = problem.win_prob(theta)
    raise ConvergenceError(
        f"rating fit did not converge in {max_iter} sweeps (last MM step {step:.3g} >= tol {tol:g})"
    )


def _best_shift(theta: np.ndarray) -> np.ndarray:
    """Add the common shift that maximises the likelihood (pair terms ignore it)."""
    delta = 0.0
    for _ in range(100):
        sig = _sigmoid(theta + delta)
        slope, curvature = float(np.sum(0.5 - sig)), float(np.sum(sig * (1 - sig)))
        if curvature <= 0:
            break
        step = float(np.clip(slope / curvature, -5.0, 5.0))  # damped: stays in the concave basin
        delta += step
        if abs(step) < 1e-15:
            break
    return theta + delta


class _Problem:
    """One fit's fixed parts, computed once and reused by every sweep: per-pair totals, each
    model's weighted wins, and sparse incidence matrices for per-model sums and the Newton
    matrix (pairs in (first, second) order, so the upper triangle is the pair list itself)."""

    def __init__(self, pw: Pairwise) -> None:
        i, j = pw.pair_i, pw.pair_j
        if len(i) > 1 and np.any(np.diff(i * max(pw.n_models, 1) + j) < 0):
            order = np.lexsort((j, i))
            pw = Pairwise(pw.n_models, i[order], j[order], pw.wins_i[order], pw.wins_j[order])
            i, j = pw.pair_i, pw.pair_j
        self.pw, self.n = pw, pw.n_models
        n, n_pairs = self.n, len(i)
        self.total = pw.total
        ones = np.ones(n_pairs)
        self._indptr_i = _offsets(i, n)
        indptr_j = _offsets(j, n)
        self._first = scipy.sparse.csr_matrix(
            (ones, np.arange(n_pairs), self._indptr_i), shape=(n, n_pairs)
        )
        self._second = scipy.sparse.csr_matrix(
            (ones, np.argsort(j, kind="stable"), indptr_j), shape=(n, n_pairs)
        )
        self.log_wins = np.log(self.per_model(pw.wins_i, pw.wins_j) + 0.5)  # anchor: +1/2

    def per_model(self, on_i: np.ndarray, on_j: np.ndarray) -> np.ndarray:
        """Per model, the sum of ``on_i`` over pairs where it is first and of ``on_j`` over
        pairs where it is second."""
        return self._first @ on_i + self._second @ on_j

    def win_prob(self, theta: np.ndarray) -> np.ndarray:
        return _win_prob(theta, self.pw)

    def mm_sweep(self, theta: np.ndarray, p: np.ndarray) -> np.ndarray:
        """:func:`mm_sweep` with the win probabilities ``p`` at ``theta`` already known."""
        on_i = self.total * p
        expected = self.per_model(on_i, self.total - on_i) + _sigmoid(theta)
        return theta + self.log_wins - np.log(expected)

    def evaluate(self, theta: np.ndarray) -> tuple[np.ndarray, float]:
        """Win probabilities of every pair and :func:`log_likelihood` at ``theta``: the pair
        term ``W_ij log p + W_ji log(1-p)`` is ``W_ij d - N_ij softplus(d)``, d = theta_i -
        theta_j, with one exponential for both."""
        d = theta[self.pw.pair_i] - theta[self.pw.pair_j]
        e = np.exp(-np.abs(d))
        inv = 1.0 / (1.0 + e)
        p = np.where(d >= 0, inv, e * inv)
        softplus = np.maximum(d, 0.0) + np.log1p(e)
        pairs = float(self.pw.wins_i @ d) - float(self.total @ softplus)
        return p, pairs + _anchor_terms(theta)

    def newton_step(
        self, theta: np.ndarray, p: np.ndarray, value: float
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """One Newton step from ``theta`` (win probabilities ``p``, log-likelihood ``value``)
        with backtracking (Armijo), then the exact common shift; returns the new point, its win
        probabilities and log-likelihood (``theta`` shifted if no step gains)."""
        on_i = self.total * p
        residual = self.pw.wins_i - on_i  # d/d theta_i of the pair term
        sig = _sigmoid(theta)
        grad = self.per_model(residual, -residual) + 0.5 - sig
        curv = on_i * (1.0 - p)
        diag = self.per_model(curv, curv) + sig * (1.0 - sig)
        direction = self.newton_direction(curv, diag, grad)
        if np.all(np.isfinite(direction)):
            direction = _moderate(direction, grad)
            slope = float(grad @ direction)
            # L is a sum over every pair: differences below its rounding are noise, not losses
            noise = 1e-12 * (abs(value) + 1.0)
            alpha = 1.0
            for _ in range(30):
                trial = theta + alpha * direction
                p_trial, trial_value = self.evaluate(trial)
                if trial_value >= value + 1e-4 * alpha * slope - noise:
                    theta, p, value = trial, p_trial, trial_value
                    break
                alpha *= 0.5
        shifted = _best_shift(theta)  # pair terms do not change
        return shifted, p, value - _anchor_terms(theta) + _anchor_terms(shifted)

    def newton_direction(self, curv: np.ndarray, diag: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """Solve (-Hessian) d = grad (:func:`_newton_direction`)."""
        pw = self.pw
        return _newton_direction(self.n, pw.pair_i, pw.pair_j, self._indptr_i, curv, diag, grad)


def _newton_direction(
    n: int,
    pair_i: np.ndarray,
    pair_j: np.ndarray,
    indptr_i: np.ndarray,
    curv: np.ndarray,
    diag: np.ndarray,
    grad: np.ndarray,
    atol: float = 0.0,
) -> np.ndarray:
    """Solve (-Hessian) d = grad; -Hessian is a weighted Laplacian plus a positive diagonal:
    a dense Cholesky solve for small fits, otherwise conjugate gradients with a diagonal
    preconditioner, to a relative residual that shrinks with the gradient (inexact Newton: the
    accuracy only decides the speed, not the fixed point), or to the residual norm ``atol`` if
    that is larger. Pairs are in (first, second) order, ``indptr_i`` the offsets of each
    model's pairs as first model."""
    if n <= _DENSE_NEWTON_MAX:
        neg_hess = np.diag(diag)
        neg_hess[pair_i, pair_j] = -curv
        neg_hess[pair_j, pair_i] = -curv
        try:
            factor = scipy.linalg.cho_factor(neg_hess, check_finite=False)
        except np.linalg.LinAlgError:  # numerically singular: fall back to scaled gradient
            return grad / diag
        return scipy.linalg.cho_solve(factor, grad, check_finite=False)
    upper = scipy.sparse.csr_matrix((curv, pair_j, indptr_i), shape=(n, n))
    scale = np.maximum(diag, 1e-300)
    return _conjugate_gradients(diag, upper, upper.T, grad, lambda r: r / scale, atol)


def _conjugate_gradients(
    diag: np.ndarray,
    upper: scipy.sparse.csr_matrix,
    lower: scipy.sparse.spmatrix,
    grad: np.ndarray,
    precondition: Callable[[np.ndarray], np.ndarray],
    atol: float,
    residual_weight: np.ndarray | None = None,
) -> np.ndarray:
    """Preconditioned conjugate gradients for (diag - upper - lower) x = grad, stopped at the
    relative residual of :func:`_newton_direction` or once the residual's norm is at most
    ``atol`` (with ``residual_weight``: its largest entry times its weight)."""
    norm = float(np.linalg.norm(grad))
    rtol = min(_CG_RTOL_MAX, _CG_RTOL_GRAD * float(np.max(np.abs(grad), initial=0.0)))
    x = np.zeros(len(grad))
    r = grad.copy()
    z = precondition(r)
    q = z.copy()
    rz = float(r @ z)
    for _ in range(_CG_MAX_ITER):
        if rz <= 0 or float(np.linalg.norm(r)) <= rtol * norm:
            break
        if residual_weight is None:
            if float(np.linalg.norm(r)) <= atol:
                break
        elif float(np.max(np.abs(r) * residual_weight, initial=0.0)) <= atol:
            break
        aq = diag * q - upper @ q - lower @ q
        alpha = rz / float(q @ aq)
        x += alpha * q
        r -= alpha * aq
        z = precondition(r)
        rz, previous = float(r @ z), rz
        q = z + (rz / previous) * q
    return x


def _offsets(index: np.ndarray, n: int) -> np.ndarray:
    """Offsets of each of ``n`` models' entries in an array sorted by ``index`` (CSR indptr)."""
    return np.concatenate([[0], np.cumsum(np.bincount(index, minlength=n))])


def _anchor_terms(theta: np.ndarray) -> float:
    """The anchor draws' part of the log-likelihood: one draw against strength 1 each."""
    return float(np.sum(0.5 * theta - np.logaddexp(theta, 0.0)))


def _moderate(direction: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Limit every log-strength change to _MAX_NEWTON_STEP (a simple trust region): clip each
    coordinate, or scale the whole step if clipping would stop it being an ascent direction."""
    clipped = np.clip(direction, -_MAX_NEWTON_STEP, _MAX_NEWTON_STEP)
    if float(grad @ clipped) > 0:
        return clipped
    longest = float(np.max(np.abs(direction), initial=0.0))
    return direction * min(1.0, _MAX_NEWTON_STEP / longest) if longest > 0 else direction


def _win_prob(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    return _sigmoid(theta[pw.pair_i] - theta[pw.pair_j])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _per_model(pw: Pairwise, on_i: np.ndarray, on_j: np.ndarray) -> np.ndarray:
    return np.bincount(pw.pair_i, on_i, pw.n_models) + np.bincount(pw.pair_j, on_j, pw.n_models)


def to_rating(theta: np.ndarray) -> np.ndarray:
    """Elo-scale rating 400*log10(s) + 1000 of log-strengths (seed 002)."""
    return ELO_SCALE * np.asarray(theta) / math.log(10.0) + ANCHOR_RATING


# --- 4. ratings table -----------------------------------------------------------------------


def main_graph(battles: Battles) -> np.ndarray:
    """Per model, whether it is in the main comparison graph (docs/elo.md section 4).

    Models are linked when they share a benchmark; the main graph is the connected component with
    the most models (ties: the one holding the alphabetically first model). Ratings of different
    components are fitted apart (only the anchor links them), so they are not comparable.
    """
    n = len(battles.models)
    if n == 0:
        return np.zeros(0, dtype=bool)
    links = scipy.sparse.coo_matrix(
        (np.ones(len(battles.pair_i)), (battles.pair_i, battles.pair_j)), shape=(n, n)
    )
    _, labels = scipy.sparse.csgraph.connected_components(links, directed=False)
    sizes = np.bincount(labels)
    first_model = np.full(len(sizes), n)
    np.minimum.at(first_model, labels, np.arange(n))
    main = min(range(len(sizes)), key=lambda c: (-sizes[c], first_model[c]))
    return labels == main


def coverage(headline: pd.DataFrame) -> pd.DataFrame:
    """Per model: n_benchmarks, n_categories and ``eligible`` (>= 3 benchmarks spanning >= 2
    categories, seed 002 "Ranking eligibility")."""
    grouped = headline.groupby("model")
    out = pd.DataFrame(
        {
            "n_benchmarks": grouped["benchmark"].nunique(),
            "n_categories": grouped["category"].nunique(),
        }
    )
    out.insert(
        0,
        "eligible",
        (out["n_benchmarks"] >= MIN_BENCHMARKS) & (out["n_categories"] >= MIN_CATEGORIES),
    )
    return out


def rate(
    scores: pd.DataFrame,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> pd.DataFrame:
    """Ratings table of a long score table: model, rating, rank, eligible, n_benchmarks,
    n_categories (+ rating_low/high, rank_low/high with ``bootstrap`` rounds).

    Ranked models come first by rating; unrated ones follow, their rating shown but ``rank`` NA
    and ``unrated_reason`` saying why (below the floor, or outside the main comparison graph:
    their rating is then relative to their own group only).
    """
    headline = headline_scores(scores.dropna(subset=["score"]))
    return _rate_headline(
        headline, coverage(headline), UNRATED_FLOOR,
        bootstrap=bootstrap, seed=seed, tol=tol, max_iter=max_iter,
    )  # fmt: skip


def _rate_headline(
    headline: pd.DataFrame,
    floor: pd.DataFrame,
    floor_reason: str,
    *,
    bootstrap: int,
    seed: int,
    tol: float,
    max_iter: int,
    drawn_only: bool = False,
) -> pd.DataFrame:
    """Fit, eligibility (``floor`` narrowed to the main graph), ranks and intervals
    (``drawn_only``: see :func:`bootstrap_ratings`)."""
    battles = build_battles(headline)
    result = fit(aggregate(battles), tol=tol, max_iter=max_iter)
    table = floor.loc[list(battles.models)]
    table = _with_reasons(table, main_graph(battles), floor_reason)
    table.insert(0, "rating", to_rating(result.theta))
    if bootstrap:
        samples = bootstrap_ratings(
            battles, bootstrap, seed=seed, theta0=result.theta, tol=tol, drawn_only=drawn_only
        )
        table = table.join(_intervals(samples, table))
    return order_ratings(table.rename_axis("model").reset_index())


def rate_categories(
    scores: pd.DataFrame,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> pd.DataFrame:
    """Per-category ratings: :func:`rate`'s table fitted on one category's benchmarks at a
    time, stacked with a leading ``category`` column (docs/elo.md, "Category leaderboards").

    Same headline pick, battles, 1/sqrt(n) weights and anchor (seed 002, "The Elo rating"), so
    a category rating is the seed's rating restricted to that category's evidence. A category
    rank needs :data:`MIN_CATEGORY_BENCHMARKS` of its benchmarks and the category's main
    comparison graph. Each category's bootstrap resamples its own benchmarks (same seed) and
    warm-starts from its point fit. Categories without scores have no rows.
    """
    headline = headline_scores(scores.dropna(subset=["score"]))
    tables = [
        rate_category(headline, category, bootstrap=bootstrap, seed=seed, tol=tol,
                      max_iter=max_iter).assign(category=category)
        for category in sorted(set(headline["category"].astype(str)))
    ]  # fmt: skip
    if not tables:
        return pd.DataFrame(columns=["category", "model", "rating", "rank", "eligible"])
    out = pd.concat(tables, ignore_index=True)
    return out[["category", *[c for c in out.columns if c != "category"]]]


def rate_category(
    headline: pd.DataFrame,
    category: str,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    tol: float = DEFAULT_TOL,
    max_iter: int = DEFAULT_MAX_ITER,
) -> pd.DataFrame:
    """:func:`rate` of one category's rows of a headline table, category floor instead of the
    overall one (``n_categories`` is dropped: it is 1 for every row)."""
    rows = headline[headline["category"].astype(str) == category]
    floor = coverage(rows).drop(columns="n_categories")
    floor["eligible"] = floor["n_benchmarks"] >= MIN_CATEGORY_BENCHMARKS
    return _rate_headline(
        rows, floor, UNRATED_CATEGORY_FLOOR,
        bootstrap=bootstrap, seed=seed, tol=tol, max_iter=max_iter, drawn_only=True,
    )  # fmt: skip


def _with_reasons(
    table: pd.DataFrame, connected: np.ndarray, floor_reason: str = UNRATED_FLOOR
) -> pd.DataFrame:
    """``eligible`` narrowed to the main graph, plus ``unrated_reason`` ("" when ranked)."""
    floor = table["eligible"].to_numpy(bool)
    reasons = [
        "; ".join(r for r, bad in ((floor_reason, not f), (UNRATED_DISCONNECTED, not c)) if bad)
        for f, c in zip(floor, connected, strict=True)
    ]
    return table.assign(eligible=floor & connected, unrated_reason=reasons)


def set_apart(table: pd.DataFrame) -> int:
    """How many models of a :func:`rate` table are outside the main comparison graph."""
    return int(table["unrated_reason"].str.contains(UNRATED_DISCONNECTED, regex=False).sum())


def order_ratings(table: pd.DataFrame) -> pd.DataFrame:
    """Round ratings to 0.1, rank eligible models (ties share the better rank) and sort
    ranked-first by rating, then model name."""
    out = table.copy()
    for column in ("rating", "rating_low", "rating_high"):
        if column in out:
            out[column] = out[column].round(RATING_DECIMALS)
    ranked = out["rating"].where(out["eligible"])
    out.insert(2, "rank", ranked.rank(method="min", ascending=False).astype("Int64"))
    out = out.sort_values(
        ["eligible", "rating", "model"], ascending=[False, False, True], kind="mergesort"
    )
    return out.reset_index(drop=True)


def bootstrap_ratings(
    battles: Battles,
    rounds: int,
    *,
    seed: int = 0,
    theta0: np.ndarray | None = None,
    tol: float = DEFAULT_TOL,
    workers: int | None = None,
    drawn_only: bool = False,
) -> np.ndarray:
    """Ratings refitted on ``rounds`` resamples of the benchmarks (with replacement, seeded).

    Returns a (rounds, models) array; a model none of whose battles was drawn in a round is NaN
    there (the resample says nothing about it). The resamples are drawn up front from one
    generator and each round is a function of its draw alone, so the result does not depend on
    ``workers`` (processes; default: one per CPU, at most 4; small jobs run in this process).

    A round reuses the work of the full data (:class:`_RoundSolver`, built once per battle
    set): its aggregate re-weights the benchmarks' precomputed contributions, and its fit, a
    lean Newton iteration over every pair of the full data (pairs it did not draw weigh 0,
    models it did not draw stay at the anchor), is warm-started from ``theta0`` and stops at
    :func:`fit`'s rule (a plain MM sweep moves no log-strength by ``tol``), so it lands on the
    fixed point :func:`fit` would find. ``drawn_only`` is accepted for compatibility.
    """
    del drawn_only  # every round is fitted on what it drew
    rng = np.random.default_rng(seed)
    n_bench = len(battles.benchmarks)
    draws = [
        np.bincount(rng.integers(0, n_bench, n_bench), minlength=n_bench) for _ in range(rounds)
    ]
    if not draws:
        return np.empty((0, len(battles.models)))
    solver = battles.contributions.rounds
    solver.prepare(theta0)  # once, before any worker forks
    job = _Rounds(solver, draws, theta0, tol)
    workers = workers or _default_workers()
    work = rounds * max(len(battles.pair_i), 1)
    if workers > 1 and rounds > 1 and work >= _POOL_MIN_WORK:
        chunks = [c for c in np.array_split(np.arange(rounds), workers) if len(c)]
        return np.vstack(_map_chunks(job, chunks))
    return job(np.arange(rounds))


_POOL_MIN_WORK = 2_000_000  # rounds x pairs below which the rounds run in this process
"""Forking worker processes costs a few hundredths of a second; below this much work the
rounds are cheaper in this process."""


class _Rounds:
    """Bootstrap rounds of one battle set: ``job(indices)`` fits the draws of those rounds."""

    def __init__(
        self,
        solver: _RoundSolver,
        draws: list[np.ndarray],
        theta0: np.ndarray | None,
        tol: float,
    ) -> None:
        self.solver, self.draws, self.theta0, self.tol = solver, draws, theta0, tol

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        out = np.full((len(indices), self.solver.n), np.nan)
        with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
            for k, index in enumerate(indices):
                wins_i, wins_j = self.solver.aggregate(self.draws[index])
                try:
                    theta, drawn = self.solver.fit(
                        wins_i, wins_j, self.theta0, self.tol, _ROUND_MAX_ITER
                    )
                except ConvergenceError:  # far from theta0 (not seen on real data): fit's way
                    theta, drawn = self.solver.fit_drawn(wins_i, wins_j, self.theta0, self.tol)
                out[k, drawn] = to_rating(theta[drawn])
        return out


_FORKED: list[_Rounds] = []  # the job forked worker processes run (inherited, never pickled)


def _run_forked(indices: np.ndarray) -> np.ndarray:
    return _FORKED[0](indices)


def _map_chunks(job: _Rounds, chunks: list[np.ndarray]) -> list[np.ndarray]:
    """``job`` of every chunk of round indices, in order: in worker processes forked for this
    call (they inherit the job, so nothing large is pickled, only round indices and results),
    or in threads where forking is unsafe (a process running other threads, such as the app;
    numpy and scipy release the GIL in the heavy steps) or fails."""
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        with _FORK_LOCK:
            _FORKED[:] = [job]
            context = multiprocessing.get_context("fork")
            try:
                with concurrent.futures.ProcessPoolExecutor(len(chunks), context) as pool:
                    return list(pool.map(_run_forked, chunks))
            except (OSError, concurrent.futures.process.BrokenProcessPool):
                pass  # no worker processes here: fall back to threads
            finally:
                _FORKED.clear()
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(chunks)) as threads:
        return list(threads.map(job, chunks))


_FORK_LOCK = threading.Lock()


def _default_workers() -> int:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


class _RoundSolver:
    """Everything a bootstrap round needs that does not depend on its draw, built once per
    battle set (``_Contributions.rounds``) and shared by all rounds and workers.

    Aggregate (docs/elo.md section 5): by benchmark set (:class:`_RoundAggregate`), one
    weight per (set, benchmark), then two sparse products over the battles.

    Fit: the pairs the round drew (the full data's list, in its order, without those it did not
    draw: :data:`_COMPACT_BELOW`), models it did not draw (no weight at all) held at 0 (their
    only term is the anchor draw, whose optimum is exactly 0) and left out of the common shift,
    so the fixed point is the one :func:`fit` finds on the round's drawn pairs and models.
    Each Newton iterate costs one gather of per-model strengths ``exp(theta)`` into the pairs
    (no exponential per pair) and one division per pair for the per-model expected wins
    (:meth:`_expected`, which give both the MM sweep of the stopping rule and the gradient),
    the curvature, the Hessian diagonal and a conjugate-gradient solve (:meth:`_direction`,
    with the slow modes of :meth:`prepare` corrected exactly); the log-likelihood is only
    evaluated when the step's own gradient cannot show that it gains (:meth:`_step`). A few
    plain MM sweeps (:data:`_ROUND_MM_SWEEPS`) come first. docs/elo.md section 10 has the
    figures.
    """

    def __init__(self, contributions: _Contributions) -> None:
        c = contributions
        n = c.n_models
        pair_i, pair_j = np.ascontiguousarray(c.pair_i), np.ascontiguousarray(c.pair_j)
        n_pairs = len(pair_i)
        if n_pairs > 1 and np.any(np.diff(pair_i * max(n, 1) + pair_j) < 0):
            raise ValueError("pairs must be sorted by (first, second) model")  # build_battles's
        self.n, self.pairs = n, _PairIndex.of(n, pair_i, pair_j)
        self.aggregate = _RoundAggregate(c)
        self.coarse: np.ndarray | None = None  # (n, k) slow modes of the start's Hessian
        self.coarse_inverse: np.ndarray | None = None  # (k,) their inverse eigenvalues

    def prepare(self, theta0: np.ndarray | None) -> None:
        """Find the slow modes of the conjugate gradients once, for every round: the
        :data:`_COARSE_MODES` eigenvectors of the Jacobi-scaled Hessian of the full data at the
        rounds' start with the smallest eigenvalues (docs/elo.md section 10). A round's Hessian
        differs from it only by its resampled weights, so these modes, corrected exactly in
        each preconditioner step, leave conjugate gradients the well-conditioned rest."""
        n = self.n
        if n <= _DENSE_NEWTON_MAX or n > _COARSE_MAX_MODELS or self.coarse is not None:
            return
        wins_i, wins_j = self.aggregate(np.ones(self.aggregate.n_bench))
        theta = np.zeros(n) if theta0 is None else np.asarray(theta0, dtype=float)
        pair_i, pair_j = self.pairs.pair_i, self.pairs.pair_j
        terms = _PairTerms(len(pair_i))
        self._expected(theta, wins_i + wins_j, terms, self.pairs)
        curv = terms.curvature()
        sig = _sigmoid(theta)
        diag = self.pairs.per_model(curv) + sig * (1.0 - sig)
        scale = 1.0 / np.sqrt(diag)
        scaled = np.diag(np.ones(n))  # D^-1/2 (-H) D^-1/2 has a unit diagonal
        off = -curv * scale[pair_i] * scale[pair_j]
        scaled[pair_i, pair_j] = off
        scaled[pair_j, pair_i] = off
        k = min(_COARSE_MODES, n - 1)
        values, vectors = scipy.linalg.eigh(scaled, subset_by_index=[0, k - 1], driver="evr")
        # with Z = D^-1/2 V, Z' (-H) Z = diag(values): the coarse problem is diagonal
        self.coarse = vectors * scale[:, None]
        self.coarse_inverse = 1.0 / np.maximum(values, 1e-300)

    def fit(
        self,
        wins_i: np.ndarray,
        wins_j: np.ndarray,
        theta0: np.ndarray | None,
        tol: float,
        max_iter: int = DEFAULT_MAX_ITER,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Log-strengths of one round and the mask of the models it drew (see the class)."""
        total = wins_i + wins_j
        pairs = self.pairs
        fought = total > 0
        if np.count_nonzero(fought) < _COMPACT_BELOW * len(total):
            # pairs the round did not draw add exact zeros to every sum: leave them out
            pairs = pairs.kept(fought)
            total, wins_i, wins_j = total[fought], wins_i[fought], wins_j[fought]
        drawn = pairs.per_model(total) > 0
        theta = np.zeros(self.n) if theta0 is None else np.array(theta0, dtype=float)
        theta[~drawn] = 0.0
        wins = pairs.per_model(wins_i, wins_j) + 0.5  # the anchor adds 1/2
        log_wins = np.log(wins)
        terms = _PairTerms(len(total))  # this round's per-pair working arrays
        expected = self._expected(theta, total, terms, pairs)
        for _ in range(_ROUND_MM_SWEEPS):  # plain MM first: it never overshoots a far move
            sweep = log_wins - np.log(expected + _sigmoid(theta))
            if float(np.max(np.abs(sweep), initial=0.0)) < tol:
                return theta, drawn
            theta += sweep
            theta[drawn] = _best_shift(theta[drawn])
            expected = self._expected(theta, total, terms, pairs)
        step = math.inf
        for _ in range(max_iter):
            sig = _sigmoid(theta)
            step = float(np.max(np.abs(log_wins - np.log(expected + sig)), initial=0.0))
            if step < tol:  # fit's stopping rule: a plain MM sweep moves nothing by tol
                return theta, drawn
            grad = wins - expected - sig
            curv = terms.curvature()
            diag = pairs.per_model(curv) + sig * (1.0 - sig)
            atol = _CG_ATOL_OF_TOL * tol
            direction = self._direction(pairs, curv, diag, grad, drawn, atol, wins)
            if np.all(np.isfinite(direction)):
                data = (pairs, total, wins_i, wins)
                moved = self._step(theta, grad, _moderate(direction, grad), data, terms)
                if moved is None:  # no step gains: terms hold a rejected trial's
                    expected = self._expected(theta, total, terms, pairs)
                else:
                    theta, expected = moved
            theta[drawn] = _best_shift(theta[drawn])  # pair terms do not change
        raise ConvergenceError(
            f"rating fit did not converge in {max_iter} sweeps (last MM step {step:.3g} >= "
            f"tol {tol:g})"
        )

    def fit_drawn(
        self,
        wins_i: np.ndarray,
        wins_j: np.ndarray,
        theta0: np.ndarray | None,
        tol: float,
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`fit`'s answer by :func:`fit` itself, on the pairs and models the round drew
        (renumbered, order kept; the same strengths: an undrawn model only has its anchor
        draw). Slower, and it copes with starts far from the answer."""
        fought = wins_i + wins_j > 0
        pair_i, pair_j = self.pairs.pair_i[fought], self.pairs.pair_j[fought]
        drawn = np.zeros(self.n, dtype=bool)
        drawn[pair_i] = drawn[pair_j] = True
        index = np.cumsum(drawn) - 1
        small = Pairwise(
            int(drawn.sum()), index[pair_i], index[pair_j],
            wins_i[fought], wins_j[fought],
        )  # fmt: skip
        start = None if theta0 is None else np.asarray(theta0, dtype=float)[drawn]
        theta = np.zeros(self.n)
        theta[drawn] = fit(small, tol=tol, theta0=start).theta
        return theta, drawn

    def _step(
        self,
        theta: np.ndarray,
        grad: np.ndarray,
        direction: np.ndarray,
        data: tuple[_PairIndex, np.ndarray, np.ndarray, np.ndarray],
        terms: _PairTerms,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The Newton step, kept when it provably raises the log-likelihood L enough (Armijo,
        as in :func:`fit`) or, once it is small (local, quadratic convergence), when it halves
        the largest gradient entry; otherwise backtracked on L itself. Returns the new point
        and its per-model expected battle wins, leaving its pair terms in ``terms`` (None: no
        step gains). ``data``: the round's pairs, per pair total weight and first model's
        wins, per model wins (anchor included)."""
        pairs, total, wins_i, wins = data
        slope = float(grad @ direction)
        trial = theta + direction
        expected_trial = self._expected(trial, total, terms, pairs)
        grad_trial = wins - expected_trial - _sigmoid(trial)
        # L is concave along the step, so L(1) - L(0) >= L'(1): Armijo holds if L'(1) does
        if float(grad_trial @ direction) >= 1e-4 * slope:
            return trial, expected_trial
        longest = float(np.max(np.abs(direction), initial=0.0))
        if longest < _LOCAL_STEP and np.max(np.abs(grad_trial)) <= 0.5 * np.max(np.abs(grad)):
            return trial, expected_trial
        value = self._log_likelihood(theta, total, wins_i, pairs)
        noise = 1e-12 * (abs(value) + 1.0)  # as in _Problem.newton_step
        alpha = 1.0
        for _ in range(30):
            trial = theta + alpha * direction
            gain = self._log_likelihood(trial, total, wins_i, pairs) - value
            if gain >= 1e-4 * alpha * slope - noise:
                return trial, self._expected(trial, total, terms, pairs)
            alpha *= 0.5
        return None

    def _direction(
        self,
        pairs: _PairIndex,
        curv: np.ndarray,
        diag: np.ndarray,
        grad: np.ndarray,
        drawn: np.ndarray,
        atol: float,
        wins: np.ndarray,
    ) -> np.ndarray:
        """:func:`_newton_direction` for a round: the dense solve for small fits, otherwise
        conjugate gradients preconditioned by the Jacobi scaling plus the exact correction of
        the slow modes found by :meth:`prepare` (restricted to the drawn models, so undrawn
        ones stay put), to the same relative residual, or until no model's residual over its
        wins ``wins`` (anchor included) exceeds ``atol``: what the stopping rule needs
        (:data:`_CG_ATOL_OF_TOL`)."""
        if self.n <= _DENSE_NEWTON_MAX or self.coarse is None:
            return _newton_direction(
                self.n, pairs.pair_i, pairs.pair_j, pairs.indptr_i, curv, diag, grad, atol
            )
        upper, lower = pairs.matrices(curv, curv)
        modes = self.coarse * drawn[:, None]
        inverse = self.coarse_inverse
        scale = np.maximum(diag, 1e-300)

        def precondition(r: np.ndarray) -> np.ndarray:
            return r / scale + modes @ (inverse * (r @ modes))

        return _conjugate_gradients(diag, upper, lower, grad, precondition, atol, 1.0 / wins)

    def _expected(
        self, theta: np.ndarray, total: np.ndarray, terms: _PairTerms, pairs: _PairIndex
    ) -> np.ndarray:
        """Per model, its expected wins in its pair battles at ``theta``, leaving the pair terms
        in ``terms`` (for :meth:`_PairTerms.curvature`). With per-model strengths
        s = exp(theta - max theta), the first model of a pair expects total * s_i / (s_i + s_j)
        = s_i * u wins, u = total / (s_i + s_j), and the second s_j * u: a model's expected
        wins are its s times the sum of u over its pairs, either side (one exponential per
        model, one division per pair; sums of positive terms, so no cancellation for a model
        expected to win almost nothing). The sigmoid form where strengths could underflow."""
        top = float(np.max(theta, initial=0.0))
        if top - float(np.min(theta, initial=0.0)) > 600.0:
            d = theta[pairs.pair_i] - theta[pairs.pair_j]
            terms.set_probabilities(total, _sigmoid(d), _sigmoid(-d))
            return pairs.per_model(total * terms.s_i, total * terms.s_j)
        strength = np.exp(theta - top)
        u = terms.set_strengths(total, strength, pairs.first_count, pairs.pair_j)
        return strength * pairs.per_model(u)

    def _log_likelihood(
        self, theta: np.ndarray, total: np.ndarray, wins_i: np.ndarray, pairs: _PairIndex
    ) -> float:
        """:func:`log_likelihood` (pair term W_ij d - N_ij softplus(d), d = theta_i - theta_j)."""
        d = theta[pairs.pair_i] - theta[pairs.pair_j]
        softplus = np.maximum(d, 0.0) + np.log1p(np.exp(-np.abs(d)))
        return float(wins_i @ d) - float(total @ softplus) + _anchor_terms(theta)


class _PairIndex:
    """A pair list's index structures for the round fits: pairs sorted by (first, second)
    model, the offsets of each model's pairs as first model, and the upper-triangle matrix
    (row pair_i, column pair_j) with its transpose, whose values each use swaps in."""

    def __init__(
        self, n: int, pair_i: np.ndarray | None, pair_j: np.ndarray, indptr_i: np.ndarray
    ) -> None:
        self.n, self._pair_i, self.pair_j, self.indptr_i = n, pair_i, pair_j, indptr_i
        self.first_count = np.diff(indptr_i)  # pairs per model as first: a sorted gather
        # per-model sums over the first side are segment sums (np.add.reduceat) from the
        # starts of the models that are some pair's first (each runs to the next such start)
        self._has_first = self.first_count > 0
        self._starts = indptr_i[:-1][self._has_first]
        values = np.empty(len(pair_j))  # never read: every use swaps its own values in
        self._upper = scipy.sparse.csr_matrix((values, pair_j, indptr_i), shape=(n, n))
        self._lower = self._upper.T

    @classmethod
    def of(cls, n: int, pair_i: np.ndarray, pair_j: np.ndarray) -> _PairIndex:
        return cls(n, pair_i, pair_j, _offsets(pair_i, n))

    @property
    def pair_i(self) -> np.ndarray:
        """Each pair's first model (built on first use where the pairs were kept)."""
        if self._pair_i is None:
            self._pair_i = np.repeat(np.arange(self.n), self.first_count)
        return self._pair_i

    def kept(self, keep: np.ndarray) -> _PairIndex:
        """The pairs where ``keep`` is true, in the same order."""
        kept_before = np.concatenate([[0], np.cumsum(keep)])
        return _PairIndex(self.n, None, self.pair_j[keep], kept_before[self.indptr_i])

    def per_model(self, values: np.ndarray, second: np.ndarray | None = None) -> np.ndarray:
        """Per model, the sum of a per-pair quantity over its pairs, either side (``second``:
        another quantity for the side where it is the second model): segment sums over its
        pairs as first model (contiguous: ``np.add.reduceat``) plus the product of the lower
        triangle carrying the values with a vector of ones, a scatter in pair order. Neither
        has ``bincount``'s index checks, and a sparse product of a pairs-by-models matrix
        would gather the second side out of order (about 4x slower)."""
        second = values if second is None else second
        lower = copy.copy(self._lower)
        lower.data = second
        out = lower @ np.ones(self.n)
        if len(self._starts):
            out[self._has_first] += np.add.reduceat(values, self._starts)
        return out

    def matrices(
        self, upper_values: np.ndarray, lower_values: np.ndarray
    ) -> tuple[scipy.sparse.csr_matrix, scipy.sparse.csc_matrix]:
        """The pair structure's upper triangle (row pair_i, column pair_j) and the lower one
        (its transpose), carrying the given per-pair values: shallow copies with the values
        swapped in, the structure neither rebuilt nor re-checked (and thread-safe)."""
        upper, lower = copy.copy(self._upper), copy.copy(self._lower)
        upper.data, lower.data = upper_values, lower_values
        return upper, lower


class _PairTerms:
    """A round fit's per-pair arrays at its last evaluated point (:meth:`_RoundSolver._expected`),
    allocated once per round and overwritten by each evaluation: the pair's strengths s_i and
    s_j and u = total / (s_i + s_j), or (strengths that could underflow) its win probabilities
    p and q and u = total."""

    def __init__(self, n_pairs: int) -> None:
        self.s_i, self.s_j, self.u = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
        self.probabilities = False

    def set_strengths(
        self, total: np.ndarray, strength: np.ndarray, first_count: np.ndarray, pair_j: np.ndarray
    ) -> np.ndarray:
        """Store the pair terms of per-model strengths and return u."""
        self.probabilities = False
        self.s_i = np.repeat(strength, first_count)  # pairs are sorted by first model
        np.take(strength, pair_j, out=self.s_j, mode="clip")  # (valid indices: no checks)
        np.add(self.s_i, self.s_j, out=self.u)
        return np.divide(total, self.u, out=self.u)

    def set_probabilities(self, total: np.ndarray, p: np.ndarray, q: np.ndarray) -> None:
        self.probabilities = True
        self.s_i[:], self.s_j[:], self.u[:] = p, q, total

    def curvature(self) -> np.ndarray:
        """Per pair, total * p * q: the Hessian's off-diagonal weights at the point."""
        if self.probabilities:
            return self.u * self.s_i * self.s_j
        curv = self.s_i + self.s_j
        np.divide(self.s_i, curv, out=curv)  # p
        curv *= self.s_j
        curv *= self.u  # total / (s_i + s_j) * p * s_j = total * p * q
        return curv


class _RoundAggregate:
    """A bootstrap round's :func:`aggregate` (equal to rounding), by benchmark sets.

    The weight of a (category, pair) row's battles, 1/sqrt(n) with n the drawn count of the
    category's benchmarks both models report, depends only on that set of benchmarks, and the
    1.4 M rows of the real catalog have about a thousand distinct sets. So a round computes n
    and 1/sqrt(n) once per set, then x = m_b / sqrt(n_set) once per (set, benchmark), and
    each pair's weighted wins are one sparse product over its battles: the first model's
    (a win counts 1, a draw 1/2) and the second's. ``aggregate(multiplicity)`` returns the
    wins of each pair's first and second model; the point estimate still uses
    :func:`aggregate`.
    """

    def __init__(self, c: _Contributions) -> None:
        both = c.both.tocsr()
        both.sum_duplicates()  # canonical: each row's benchmarks sorted
        n_rows, self.n_bench = both.shape
        n_pairs = len(c.pair_i)
        sets, row_set = _benchmark_sets(both)
        set_size = np.diff(sets.indptr)
        self.set_bench = sets
        self.combo_bench = sets.indices.astype(np.intp)  # (set, benchmark) entries, set-major
        self.combo_set = np.repeat(np.arange(len(set_size)), set_size)
        row_of = np.repeat(np.arange(n_rows), np.diff(both.indptr))
        battle = np.arange(both.nnz)
        combo = sets.indptr[row_set[row_of]] + (battle - both.indptr[row_of])
        outcome = _first_model_outcome(both, c.sign, row_of)
        pair = c.row_pair[row_of]
        shape = (n_pairs, len(self.combo_bench))
        won, lost = outcome > 0, outcome < 1
        self.first_wins = scipy.sparse.csr_matrix(
            (outcome[won], (pair[won], combo[won])), shape=shape
        )
        self.second_wins = scipy.sparse.csr_matrix(
            (1.0 - outcome[lost], (pair[lost], combo[lost])), shape=shape
        )

    def __call__(self, multiplicity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        m = np.asarray(multiplicity, dtype=float)
        shared = self.set_bench @ m  # n per benchmark set (a whole count)
        inverse = 1.0 / np.sqrt(np.maximum(shared, 1.0))  # n = 0: every m_b of the set is 0
        x = m[self.combo_bench] * inverse[self.combo_set]  # seed 002: n battles of 1/sqrt(n)
        return self.first_wins @ x, self.second_wins @ x


def _benchmark_sets(both: scipy.sparse.csr_matrix) -> tuple[scipy.sparse.csr_matrix, np.ndarray]:
    """The distinct benchmark sets of a canonical rows x benchmarks matrix's rows (exactly: as
    bit masks) as a sets x benchmarks matrix of ones, and each row's set."""
    n_rows, n_bench = both.shape
    if n_rows == 0:
        return scipy.sparse.csr_matrix((0, n_bench)), np.zeros(0, dtype=np.intp)
    bench = both.indices.astype(np.uint64)
    masks = np.zeros((n_rows, (n_bench + 63) // 64), dtype=np.uint64)
    lengths = np.diff(both.indptr)
    rows = np.flatnonzero(lengths)
    for word in range(masks.shape[1]):
        bits = np.where(bench // 64 == word, np.uint64(1) << (bench % 64), np.uint64(0))
        masks[rows, word] = np.bitwise_or.reduceat(bits, both.indptr[rows])
    first, row_set = _distinct_rows(masks)
    size = lengths[first]
    start = both.indptr[first]
    indptr = np.concatenate([[0], np.cumsum(size)])
    at = np.repeat(start - indptr[:-1], size) + np.arange(indptr[-1])
    sets = scipy.sparse.csr_matrix(
        (np.ones(len(at)), both.indices[at], indptr), shape=(len(first), n_bench)
    )
    return sets, row_set.ravel()


def _distinct_rows(
    masks: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """First occurrence of each distinct row of a 2-D uint64 array, and each row's distinct
    index (rows in the order of ``np.unique(axis=0)`` or of their hashes): through one 64-bit
    hash per row, the sum of its words times odd ``weights`` (default: seeded random ones)
    modulo 2**64, a 1-D sort; checked exactly, and redone by ``np.unique(axis=0)`` (about 20x
    slower) should two distinct rows share a hash."""
    if weights is None:
        weights = np.random.default_rng(0).integers(1, 2**63, masks.shape[1], dtype=np.uint64)
    weights = np.asarray(weights, dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        key = (masks * weights).sum(axis=1, dtype=np.uint64)  # wraps around modulo 2**64
    _, first, index = np.unique(key, return_index=True, return_inverse=True)
    if not np.array_equal(masks[first][index], masks):
        _, first, index = np.unique(masks, axis=0, return_index=True, return_inverse=True)
    return first, index.ravel()


def _first_model_outcome(
    both: scipy.sparse.csr_matrix, sign: scipy.sparse.csr_matrix, row_of: np.ndarray
) -> np.ndarray:
    """Per battle (entry of ``both``), the first model's share of the win: 1, 1/2 (a draw) or
    0, from ``sign`` (the decided battles' +1 or -1, a subset of ``both``'s entries)."""
    n_bench = both.shape[1]
    key = row_of * n_bench + both.indices  # sorted: rows in order, benchmarks within
    decided = sign.tocoo()
    at = np.searchsorted(key, decided.row.astype(np.int64) * n_bench + decided.col)
    outcome = np.full(both.nnz, 0.5)
    outcome[at] = np.where(decided.data > 0, 1.0, 0.0)
    return outcome


_COMPACT_BELOW = 0.98
"""A round whose drawn pairs are fewer than this share of the full data's is fitted on those
pairs alone (:meth:`_PairIndex.kept`); on the real catalog a round leaves out 13% of the pairs
on average (0-31%), and every pass over the pairs shrinks by as much."""
_CG_ATOL_OF_TOL = 0.1
"""A round's conjugate gradients stop once no model's residual over its wins W_i (anchor
included) is above this times ``tol``: after the step a model's gradient is about its
residual, and its MM step about gradient / W_i, so the stopping rule is met with room to
spare; solving further would only add iterations. (Until bt-mm-3 the test was on the
residual's norm, which asked models with hundreds of wins for hundreds of times the accuracy
the rule needs: 12% more iterations in all, snapshot v9b1b9b3416.)"""
_LOCAL_STEP = 0.1  # a Newton step moving no log-strength by this much is in the local regime
_COARSE_MODES = 8
"""Slow modes a round's conjugate gradients correct exactly (:meth:`_RoundSolver.prepare`):
on snapshot v9b1b9b3416 the Jacobi-scaled Hessian has five eigenvalues below 0.3 (the
smallest, 4e-4, is the common shift only the anchor resists) and the rest in [0.36, 1.4]."""
_COARSE_MAX_MODELS = 6000  # above this the dense eigenproblem of prepare() costs too much
_ROUND_MM_SWEEPS = 4
"""Plain MM sweeps a round takes from its start before Newton: a resample moves some thinly
benchmarked models by several log-units (up to ~9 on v9b1b9b3416), which Newton reaches only
in clipped steps; each sweep costs one gradient, no linear solve. Four cut the Newton steps per
round from 7.5 to 6.1 (docs/elo.md section 10)."""
_ROUND_MAX_ITER = 100  # lean round fit iterations before falling back to fit (rounds need ~10)


def _intervals(samples: np.ndarray, table: pd.DataFrame) -> pd.DataFrame:
    """95% percentile intervals of ratings over the rounds that drew the model, and the
    2.5%-97.5% range of its rank among the models eligible on the full data that were drawn in
    the same round (rank_low is the better, numerically smaller, end). A round ranks its
    ratings rounded to :data:`_RANK_DECIMALS` decimals, ties sharing the better rank, so models
    of equal evidence, whose round ratings differ only by floating-point noise (~1e-13), get
    the same rank in every round."""
    eligible = table["eligible"].to_numpy(bool)
    seen = ~np.all(np.isnan(samples), axis=0)
    out = pd.DataFrame(index=table.index)
    out["rating_low"] = _nan_quantile(samples, seen, 0.025, "linear")
    out["rating_high"] = _nan_quantile(samples, seen, 0.975, "linear")
    ranks = np.full(samples.shape, np.nan)
    if eligible.any():
        import scipy.stats  # here, not at the top: importing it costs pages about 1 s

        denoised = np.round(samples[:, eligible], _RANK_DECIMALS)
        ranks[:, eligible] = scipy.stats.rankdata(
            -denoised, method="min", axis=1, nan_policy="omit"
        )
    out["rank_low"] = pd.array(_nan_quantile(ranks, seen & eligible, 0.025, "lower")).astype(
        "Int64"
    )
    out["rank_high"] = pd.array(_nan_quantile(ranks, seen & eligible, 0.975, "higher")).astype(
        "Int64"
    )
    return out


_RANK_DECIMALS = 6  # round ratings are ranked to 1e-6 points: far above float noise, far below 0.1


def _nan_quantile(values: np.ndarray, columns: np.ndarray, q: float, method: str) -> np.ndarray:
    out = np.full(values.shape[1], np.nan)
    if columns.any():
        out[columns] = np.nanquantile(values[:, columns], q, axis=0, method=method)
    return out
