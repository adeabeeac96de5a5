"""Weighted Bradley-Terry Elo ratings (seed 002, "The Elo rating" and "Ranking eligibility").

Input is a long score table with columns ``model, benchmark, category, score`` and optionally
``source`` (a provenance kind), ``date`` and ``higher_is_better``. The pipeline, one module a
step:

1. :mod:`~analytics.llm.elo.headline`: :func:`headline_scores` keeps one score per model x
   benchmark (seed 002, "Provenance").
2. :mod:`~analytics.llm.elo.battles`: :func:`build_battles` describes every battle (each
   benchmark two models both report) compactly: the pairs that meet, per category the models'
   presence patterns, per benchmark its models in score order (:mod:`~analytics.llm.elo.pairs`
   indexes the pairs).
3. :mod:`~analytics.llm.elo.evidence`: :func:`~analytics.llm.elo.evidence.weigh` turns them into
   what the fit needs, each battle weighing 1/sqrt(n), n = benchmarks of its category the pair
   shares: per pair the total weight, per model the weighted wins (:func:`aggregate`: per pair).
4. :mod:`~analytics.llm.elo.solver`: one routine finds the maximum-likelihood strengths (MM
   algorithm of Hunter 2004, "MM algorithms for generalized Bradley-Terry models", Ann. Statist.
   32(1), accelerated by Newton steps), with one pseudo-draw per model against an anchor of
   strength 1 (rating 1000), for the point fit (:func:`fit`) and every bootstrap round.
5. :mod:`~analytics.llm.elo.bootstrap`: :func:`bootstrap_ratings` refits resampled benchmarks.
6. :mod:`~analytics.llm.elo.table`: :func:`rate` adds eligibility, ranks and intervals; only
   models of the main comparison graph (:func:`main_graph`) can be ranked.
   :func:`rate_categories` runs the same fit on each category's benchmarks alone.

See ``docs/elo.md`` for the method, the stopping rule and the acceleration.
"""

from __future__ import annotations

from analytics.llm.elo.battles import Battles, battle_table, build_battles, main_graph
from analytics.llm.elo.bootstrap import bootstrap_ratings
from analytics.llm.elo.evidence import Evidence, Pairwise, aggregate, weigh
from analytics.llm.elo.headline import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, headline_scores
from analytics.llm.elo.solver import (
    ANCHOR_RATING,
    DEFAULT_MAX_ITER,
    DEFAULT_TOL,
    ELO_SCALE,
    ConvergenceError,
    Fit,
    fit,
    gradient,
    log_likelihood,
    mm_sweep,
    to_rating,
)
from analytics.llm.elo.table import (
    MIN_BENCHMARKS,
    MIN_CATEGORIES,
    MIN_CATEGORY_BENCHMARKS,
    RATING_DECIMALS,
    UNRATED_CATEGORY_FLOOR,
    UNRATED_DISCONNECTED,
    UNRATED_FLOOR,
    coverage,
    order_ratings,
    rate,
    rate_categories,
    rate_category,
    set_apart,
)

ALGORITHM_VERSION = "bt-mm-3"  # 2: ranks only the main comparison graph; 3: bootstrap rank
# spread no longer splits rounds' equal ratings by float noise (docs/elo.md section 5)
"""Version of the rating method: change it whenever a change to this package (or to the score
query in ``analytics.llm.ratings``) changes any rating, so cached ratings of an old method are
never served (``data/derived/<version>/`` files carry it in their name)."""
CATEGORY_VERSION = "cat-2"  # 2: three benchmarks of the category to rank (was two)
"""Version of the per-category method (:func:`rate_categories`: which battles, the category
floor); the category file's name carries it beside ``ALGORITHM_VERSION``."""

__all__ = [
    "ALGORITHM_VERSION", "ANCHOR_RATING", "CATEGORY_VERSION", "DEFAULT_MAX_ITER", "DEFAULT_TOL",
    "ELO_SCALE", "MIN_BENCHMARKS", "MIN_CATEGORIES", "MIN_CATEGORY_BENCHMARKS",
    "OPTIONAL_COLUMNS", "RATING_DECIMALS", "REQUIRED_COLUMNS", "UNRATED_CATEGORY_FLOOR",
    "UNRATED_DISCONNECTED", "UNRATED_FLOOR", "Battles", "ConvergenceError", "Evidence", "Fit",
    "Pairwise", "aggregate", "battle_table", "bootstrap_ratings", "build_battles", "coverage",
    "fit", "gradient", "headline_scores", "log_likelihood", "main_graph", "mm_sweep",
    "order_ratings", "rate", "rate_categories", "rate_category", "set_apart", "to_rating",
    "weigh",
]
