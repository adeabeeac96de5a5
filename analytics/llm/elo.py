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
import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph
import scipy.sparse.linalg
import scipy.stats
import threadpoolctl

from analytics.core.schema import SOURCE_KINDS

ALGORITHM_VERSION = "bt-mm-2"  # 2: ranks only the main comparison graph
"""Version of the rating method: change it whenever a change to this module (or to the score
query in ``analytics.llm.ratings``) changes any rating, so cached ratings of an old method are
never served (``data/derived/<version>/`` files carry it in their name)."""
CATEGORY_VERSION = "cat-1"
"""Version of the per-category method (:func:`rate_categories`: which battles, the category
floor); the category file's name carries it beside ``ALGORITHM_VERSION``."""
ANCHOR_RATING = 1000.0  # rating of the fixed anchor (strength 1), seed 002
ELO_SCALE = 400.0  # +400 rating points = 10:1 win odds, seed 002
DEFAULT_TOL = 1e-10  # stop when one plain MM sweep moves every log-strength by less than this
DEFAULT_MAX_ITER = 500  # accelerated sweeps before ConvergenceError
MIN_BENCHMARKS = 3  # ranking eligibility floor, seed 002
MIN_CATEGORIES = 2  # ranking eligibility floor, seed 002
MIN_CATEGORY_BENCHMARKS = 2  # category-rank floor (docs/elo.md, "Category leaderboards")
RATING_DECIMALS = 1  # ratings are published to 0.1, seed 002
_MAX_NEWTON_STEP = 2.0  # largest change of any log-strength in one Newton step (~350 rating)
_DENSE_NEWTON_MAX = 3000  # above this many models the Newton step uses conjugate gradients

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

    @property
    def n_battles(self) -> int:
        """Number of individual battles (model pairs per benchmark)."""
        counts = self.presence.sum(axis=0).astype(np.int64)
        return int((counts * (counts - 1) // 2).sum())


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
    score, so the pick never depends on row order.
    """
    _require(scores, REQUIRED_COLUMNS)
    frame = scores.copy()
    frame["_rank"] = _source_rank(frame)
    frame["_date"] = pd.to_datetime(frame["date"]) if "date" in frame else pd.NaT
    keys = ["model", "benchmark", "_rank", "_date"]
    ascending = [True, True, True, False]
    if "source_name" in frame:
        keys, ascending = keys + ["source_name"], ascending + [True]
    frame = frame.sort_values(
        keys + ["score"], ascending=ascending + [False], na_position="last", kind="mergesort"
    )
    picked = frame.drop_duplicates(["model", "benchmark"], keep="first")
    return picked.drop(columns=["_rank", "_date"]).reset_index(drop=True)


def _source_rank(frame: pd.DataFrame) -> pd.Series:
    if "source" not in frame:
        return pd.Series(0, index=frame.index)
    order = {kind: i for i, kind in enumerate(SOURCE_KINDS)}
    unknown = sorted(set(frame["source"].dropna().astype(str)) - set(order))
    if unknown or frame["source"].isna().any():
        bad = unknown[0] if unknown else "(empty)"
        raise ValueError(f"source {bad!r} is not one of: {', '.join(SOURCE_KINDS)}")
    return frame["source"].map(order).astype(int)


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
    pair_i, pair_j = np.nonzero(np.triu(shared > 0, k=1))
    pair_id = np.full((len(models), len(models)), -1, dtype=np.int64)
    pair_id[pair_i, pair_j] = np.arange(len(pair_i))
    signs = np.zeros((len(benchmarks), len(pair_i)), dtype=np.int8)
    for b in range(len(benchmarks)):
        idx = np.flatnonzero(presence[:, b])
        upper_a, upper_b = np.triu_indices(len(idx), k=1)
        diff = values[idx[upper_a], b] - values[idx[upper_b], b]
        signs[b, pair_id[idx[upper_a], idx[upper_b]]] = np.sign(diff).astype(np.int8)
    codes = pd.Index(sorted(set(categories))).get_indexer(categories)
    return Battles(models, benchmarks, codes, presence, pair_i, pair_j, signs)


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
    """
    n_bench = len(battles.benchmarks)
    m = np.ones(n_bench) if multiplicity is None else np.asarray(multiplicity, dtype=float)
    n_cat = int(battles.category_codes.max()) + 1 if n_bench else 0
    in_cat = np.zeros((n_cat, n_bench), dtype=np.float32)
    in_cat[battles.category_codes, np.arange(n_bench)] = m
    net = _chunked_matmul(in_cat, battles.signs)  # (C, P): wins minus losses per category
    presence = battles.presence.astype(np.float32)
    wins_i = np.zeros(len(battles.pair_i))
    wins_j = np.zeros(len(battles.pair_i))
    for c in range(n_cat):
        cols = np.flatnonzero(in_cat[c])
        sub = presence[:, cols]
        shared = ((sub * in_cat[c, cols]) @ sub.T)[battles.pair_i, battles.pair_j]
        root = np.sqrt(shared, dtype=float)
        inv = np.divide(1.0, root, out=np.zeros_like(root), where=shared > 0)
        wins_i += 0.5 * (shared + net[c]) * inv  # n battles of weight 1/sqrt(n); draw = half
        wins_j += 0.5 * (shared - net[c]) * inv
    return Pairwise(len(battles.models), battles.pair_i, battles.pair_j, wins_i, wins_j)


def _chunked_matmul(weights: np.ndarray, signs: np.ndarray, chunk: int = 32) -> np.ndarray:
    """``weights @ signs`` without converting the whole int8 matrix to float at once."""
    out = np.zeros((weights.shape[0], signs.shape[1]), dtype=float)
    for start in range(0, signs.shape[0], chunk):
        block = weights[:, start : start + chunk]
        if block.any():
            out += block @ signs[start : start + chunk].astype(np.float32)
    return out


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
        return _iterate(pw, theta, tol, max_iter, accelerate)


def _iterate(pw: Pairwise, theta: np.ndarray, tol: float, max_iter: int, accelerate: bool) -> Fit:
    step = math.inf
    for iteration in range(1, max_iter + 1):
        swept = mm_sweep(theta, pw)
        step = float(np.max(np.abs(swept - theta), initial=0.0))
        if step < tol:
            grad = float(np.max(np.abs(gradient(swept, pw)), initial=0.0))
            return Fit(swept, iteration, step, grad)
        theta = _best_shift(swept)
        if accelerate:
            theta = _newton_step(theta, pw)
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


def _newton_step(theta: np.ndarray, pw: Pairwise) -> np.ndarray:
    """One Newton step on the log-likelihood with backtracking; returns ``theta`` if no gain."""
    grad = gradient(theta, pw)
    direction = _newton_direction(theta, pw, grad)
    if not np.all(np.isfinite(direction)):
        return theta
    direction = _moderate(direction, grad)
    base = log_likelihood(theta, pw)
    slope = float(grad @ direction)
    alpha = 1.0
    for _ in range(30):
        trial = theta + alpha * direction
        if log_likelihood(trial, pw) >= base + 1e-4 * alpha * slope:
            return trial
        alpha *= 0.5
    return theta


def _moderate(direction: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Limit every log-strength change to _MAX_NEWTON_STEP (a simple trust region): clip each
    coordinate, or scale the whole step if clipping would stop it being an ascent direction."""
    clipped = np.clip(direction, -_MAX_NEWTON_STEP, _MAX_NEWTON_STEP)
    if float(grad @ clipped) > 0:
        return clipped
    longest = float(np.max(np.abs(direction), initial=0.0))
    return direction * min(1.0, _MAX_NEWTON_STEP / longest) if longest > 0 else direction


def _newton_direction(theta: np.ndarray, pw: Pairwise, grad: np.ndarray) -> np.ndarray:
    """Solve (-Hessian) d = grad; -Hessian is a weighted Laplacian plus a positive diagonal."""
    p = _win_prob(theta, pw)
    curv = pw.total * p * (1 - p)
    sig = _sigmoid(theta)
    diag = _per_model(pw, curv, curv) + sig * (1 - sig)
    if pw.n_models <= _DENSE_NEWTON_MAX:
        neg_hess = np.diag(diag)
        neg_hess[pw.pair_i, pw.pair_j] = -curv
        neg_hess[pw.pair_j, pw.pair_i] = -curv
        try:
            factor = scipy.linalg.cho_factor(neg_hess, check_finite=False)
        except np.linalg.LinAlgError:  # numerically singular: fall back to scaled gradient
            return grad / diag
        return scipy.linalg.cho_solve(factor, grad, check_finite=False)
    n = pw.n_models
    off = scipy.sparse.coo_matrix((-curv, (pw.pair_i, pw.pair_j)), shape=(n, n))
    neg_hess = (off + off.T + scipy.sparse.diags(diag)).tocsr()
    direction, _ = scipy.sparse.linalg.cg(neg_hess, grad, rtol=1e-12)
    return direction


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
    there (the resample says nothing about it). The resamples are drawn up front, so the result
    does not depend on ``workers`` (threads; default: one per CPU, at most 4). ``drawn_only``
    fits each round on the pairs and models it drew (:func:`_drawn_only`): the same strengths up
    to rounding, faster when a round leaves many pairs out (category bootstraps).
    """
    rng = np.random.default_rng(seed)
    n_bench = len(battles.benchmarks)
    draws = [
        np.bincount(rng.integers(0, n_bench, n_bench), minlength=n_bench) for _ in range(rounds)
    ]

    def one_round(counts: np.ndarray) -> np.ndarray:
        pw = aggregate(battles, counts)
        if not drawn_only:
            ratings = to_rating(fit(pw, tol=tol, theta0=theta0).theta)
            return np.where(_per_model(pw, pw.total, pw.total) > 0, ratings, np.nan)
        pw, drawn = _drawn_only(pw)
        start = None if theta0 is None else theta0[drawn]
        out = np.full(len(battles.models), np.nan)
        out[drawn] = to_rating(fit(pw, tol=tol, theta0=start).theta)
        return out

    workers = workers or min(4, os.cpu_count() or 1)
    # Set the one-BLAS-thread limit once around the pool, so threads never restore it mid-fit.
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one_round, draws))
    return np.vstack(results) if results else np.empty((0, len(battles.models)))


def _drawn_only(pw: Pairwise) -> tuple[Pairwise, np.ndarray]:
    """The pairs that fought in a resample and the models among them (renumbered, order kept),
    plus those models' indices. Fitting this smaller problem gives the same strengths: a model
    without battles is decoupled from the rest (only its anchor draw, strength 1)."""
    fought = pw.total > 0
    drawn = np.unique(np.concatenate([pw.pair_i[fought], pw.pair_j[fought]]))
    index = np.full(pw.n_models, -1, dtype=np.int64)
    index[drawn] = np.arange(len(drawn))
    small = Pairwise(
        len(drawn), index[pw.pair_i[fought]], index[pw.pair_j[fought]],
        pw.wins_i[fought], pw.wins_j[fought],
    )  # fmt: skip
    return small, drawn


def _intervals(samples: np.ndarray, table: pd.DataFrame) -> pd.DataFrame:
    """95% percentile intervals of ratings over the rounds that drew the model, and the
    2.5%-97.5% range of its rank among the models eligible on the full data that were drawn in
    the same round (rank_low is the better, numerically smaller, end)."""
    eligible = table["eligible"].to_numpy(bool)
    seen = ~np.all(np.isnan(samples), axis=0)
    out = pd.DataFrame(index=table.index)
    out["rating_low"] = _nan_quantile(samples, seen, 0.025, "linear")
    out["rating_high"] = _nan_quantile(samples, seen, 0.975, "linear")
    ranks = np.full(samples.shape, np.nan)
    if eligible.any():
        ranks[:, eligible] = scipy.stats.rankdata(
            -samples[:, eligible], method="min", axis=1, nan_policy="omit"
        )
    out["rank_low"] = pd.array(_nan_quantile(ranks, seen & eligible, 0.025, "lower")).astype(
        "Int64"
    )
    out["rank_high"] = pd.array(_nan_quantile(ranks, seen & eligible, 0.975, "higher")).astype(
        "Int64"
    )
    return out


def _nan_quantile(values: np.ndarray, columns: np.ndarray, q: float, method: str) -> np.ndarray:
    out = np.full(values.shape[1], np.nan)
    if columns.any():
        out[columns] = np.nanquantile(values[:, columns], q, axis=0, method=method)
    return out
