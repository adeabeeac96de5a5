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
from analytics.llm.elo.views import rated_scores

MIN_BENCHMARKS = 3  # ranking eligibility floor, seed 002
MIN_CATEGORIES = 2  # ranking eligibility floor, seed 002
MIN_CATEGORY_BENCHMARKS = 3  # category-rank floor (docs/elo.md, "Category leaderboards")
MIN_PUBLISHERS = 2  # a rank rests on results of at least two independent publishers
RATING_DECIMALS = 1  # ratings are published to 0.1, seed 002

UNRATED_FLOOR = f"needs {MIN_BENCHMARKS} benchmarks in {MIN_CATEGORIES} categories"
UNRATED_CATEGORY_FLOOR = f"needs {MIN_CATEGORY_BENCHMARKS} benchmarks in this category"
UNRATED_DISCONNECTED = "not connected to the main comparison graph (shares no benchmark with it)"
UNRATED_ONE_PUBLISHER = "one publisher"
"""The ``unrated_reason`` values of :func:`rate` (joined by "; " when several apply; the
publisher reason names the publisher: "one publisher (lmarena.ai)"); category tables say
:data:`UNRATED_CATEGORY_FLOOR` instead of :data:`UNRATED_FLOOR`."""


def coverage(headline: pd.DataFrame) -> pd.DataFrame:
    """Per model: n_benchmarks, n_categories and ``eligible`` (>= 3 benchmarks spanning >= 2
    categories, seed 002 "Ranking eligibility"); with a ``publisher`` column also
    ``n_publishers`` and ``publishers`` (their names, sorted, "; "-joined), which
    :func:`rate` requires :data:`MIN_PUBLISHERS` of."""
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
    if "publisher" in headline:
        names = grouped["publisher"].agg(lambda s: "; ".join(sorted(set(s.astype(str)))))
        out["n_publishers"] = grouped["publisher"].nunique()
        out["publishers"] = names
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
    and ``unrated_reason`` saying why (below the floor, outside the main comparison graph:
    their rating is then relative to their own group only, or, with a ``publisher`` column,
    results of one publisher only: ``provisional``). Views of one evaluation enter once
    (:func:`~analytics.llm.elo.views.rated_scores`).
    """
    headline = rated_scores(scores.dropna(subset=["score"]))
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
    headline = rated_scores(scores.dropna(subset=["score"]))
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
    """``eligible`` narrowed to the main graph and, where the table counts publishers, to
    :data:`MIN_PUBLISHERS` of them; ``unrated_reason`` ("" when ranked; the floor and graph
    reasons, else the one publisher's) and, where publishers are counted, ``provisional``
    (only the publisher count is missing: LMArena's "preliminary")."""
    floor = table["eligible"].to_numpy(bool)
    if "n_publishers" in table:
        enough = table["n_publishers"].to_numpy(int) >= MIN_PUBLISHERS
        names = table["publishers"].astype(str).to_numpy()
    else:
        enough, names = np.ones(len(table), dtype=bool), np.full(len(table), "")
    reasons = [
        _reason(floor_reason, f, c, e, n)
        for f, c, e, n in zip(floor, connected, enough, names, strict=True)
    ]
    out = table.assign(eligible=floor & connected & enough, unrated_reason=reasons)
    if "n_publishers" in table:  # ad-hoc score tables without sources keep their columns
        out["provisional"] = floor & connected & ~enough
    return out


def _reason(floor_reason: str, floor: bool, connected: bool, enough: bool, names: str) -> str:
    """Why a model is unrated ("" when ranked): the floor and graph reasons; the publisher
    count is named only once it is all that is missing (the provisional rows)."""
    if floor and connected:
        return "" if enough else f"{UNRATED_ONE_PUBLISHER} ({names})"
    failed = ((floor_reason, not floor), (UNRATED_DISCONNECTED, not connected))
    return "; ".join(reason for reason, bad in failed if bad)


def set_apart(table: pd.DataFrame) -> int:
    """How many models of a :func:`rate` table are outside the main comparison graph."""
    return int(table["unrated_reason"].str.contains(UNRATED_DISCONNECTED, regex=False).sum())


def upper_bound_ranks(table: pd.DataFrame) -> pd.Series:
    """LMArena's rank of each ranked model: 1 + the number of ranked models whose whole 95%
    interval lies above its own (their ``rating_low`` above its ``rating_high``); models the
    data cannot tell apart share it. NA for unrated models."""
    ranked = table["eligible"].to_numpy(bool)
    lows = np.sort(table["rating_low"].to_numpy(float)[ranked])
    highs = table["rating_high"].to_numpy(float)
    above = len(lows) - np.searchsorted(lows, highs, side="right")  # lows strictly above
    return pd.Series(pd.array(np.where(ranked, 1 + above, pd.NA), dtype="Int64"), index=table.index)


def order_ratings(table: pd.DataFrame) -> pd.DataFrame:
    """Round ratings to 0.1, rank eligible models (ties share the better rank) and sort
    ranked-first by rating, then model name."""
    out = table.copy()
    for column in ("rating", "rating_low", "rating_high"):
        if column in out:
            out[column] = out[column].round(RATING_DECIMALS)
    ranked = out["rating"].where(out["eligible"])
    out.insert(2, "rank", ranked.rank(method="min", ascending=False).astype("Int64"))
    if "rating_low" in out and "rating_high" in out:
        out["rank_ub"] = upper_bound_ranks(out)
    out = out.sort_values(
        ["eligible", "rating", "model"], ascending=[False, False, True], kind="mergesort"
    )
    return out.reset_index(drop=True)
