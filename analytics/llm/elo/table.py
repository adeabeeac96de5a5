"""Step 6 of the Elo pipeline: the ratings table (seed 002, "Ranking eligibility"; docs/elo.md
sections 4, 5 and 12): eligibility, ranks, intervals, and the per-category tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import threadpoolctl

import analytics.llm.elo.solver as solver
from analytics.llm.elo.battles import build_battles, main_graph
from analytics.llm.elo.bootstrap import bootstrap_ratings, intervals
from analytics.llm.elo.evidence import weigh
from analytics.llm.elo.headline import headline_scores

MIN_BENCHMARKS = 3  # ranking eligibility floor, seed 002
MIN_CATEGORIES = 2  # ranking eligibility floor, seed 002
MIN_CATEGORY_BENCHMARKS = 3  # category-rank floor (docs/elo.md, "Category leaderboards")
RATING_DECIMALS = 1  # ratings are published to 0.1, seed 002

UNRATED_FLOOR = f"needs {MIN_BENCHMARKS} benchmarks in {MIN_CATEGORIES} categories"
UNRATED_CATEGORY_FLOOR = f"needs {MIN_CATEGORY_BENCHMARKS} benchmarks in this category"
UNRATED_DISCONNECTED = "not connected to the main comparison graph (shares no benchmark with it)"
"""The ``unrated_reason`` values of :func:`rate` (joined by "; " when both apply); category
tables say :data:`UNRATED_CATEGORY_FLOOR` instead of :data:`UNRATED_FLOOR`."""


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
    tol: float = solver.DEFAULT_TOL,
    max_iter: int = solver.DEFAULT_MAX_ITER,
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
    )


def _rate_headline(
    headline: pd.DataFrame,
    floor: pd.DataFrame,
    floor_reason: str,
    *,
    bootstrap: int,
    seed: int,
    tol: float,
    max_iter: int,
) -> pd.DataFrame:
    """Fit, eligibility (``floor`` narrowed to the main graph), ranks and intervals."""
    battles = build_battles(headline)
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        result = solver.solve(weigh(battles), tol=tol, max_iter=max_iter)
    table = floor.loc[list(battles.models)]
    table = _with_reasons(table, main_graph(battles), floor_reason)
    table.insert(0, "rating", solver.to_rating(result.theta))
    if bootstrap:
        samples = bootstrap_ratings(battles, bootstrap, seed=seed, theta0=result.theta, tol=tol)
        table = table.join(intervals(samples, table))
    return order_ratings(table.rename_axis("model").reset_index())


def rate_categories(
    scores: pd.DataFrame,
    *,
    bootstrap: int = 0,
    seed: int = 0,
    tol: float = solver.DEFAULT_TOL,
    max_iter: int = solver.DEFAULT_MAX_ITER,
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
    ]
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
    tol: float = solver.DEFAULT_TOL,
    max_iter: int = solver.DEFAULT_MAX_ITER,
) -> pd.DataFrame:
    """:func:`rate` of one category's rows of a headline table, category floor instead of the
    overall one (``n_categories`` is dropped: it is 1 for every row)."""
    rows = headline[headline["category"].astype(str) == category]
    floor = coverage(rows).drop(columns="n_categories")
    floor["eligible"] = floor["n_benchmarks"] >= MIN_CATEGORY_BENCHMARKS
    return _rate_headline(
        rows, floor, UNRATED_CATEGORY_FLOOR,
        bootstrap=bootstrap, seed=seed, tol=tol, max_iter=max_iter,
    )


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
