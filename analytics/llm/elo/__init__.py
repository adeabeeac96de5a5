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

import importlib
from typing import TYPE_CHECKING, Any

# Names resolve on first use (PEP 562), so a caller of the pure-pandas headline pick (the
# fine-tune planner's quality axis, `analytics fit`) does not pay for scipy and the solver.
_EXPORTS = {
    "battles": ("Battles", "battle_table", "build_battles", "main_graph"),
    "bootstrap": ("bootstrap_ratings",),
    "evidence": ("Evidence", "Pairwise", "aggregate", "weigh"),
    "headline": ("OPTIONAL_COLUMNS", "REQUIRED_COLUMNS", "headline_scores"),
    "solver": ("ANCHOR_RATING", "DEFAULT_MAX_ITER", "DEFAULT_TOL", "ELO_SCALE",
               "ConvergenceError", "Fit", "fit", "gradient", "log_likelihood", "mm_sweep",
               "to_rating"),
    "table": ("MIN_BENCHMARKS", "MIN_CATEGORIES", "MIN_CATEGORY_BENCHMARKS", "MIN_PUBLISHERS",
              "RATING_DECIMALS", "UNRATED_CATEGORY_FLOOR", "UNRATED_DISCONNECTED", "UNRATED_FLOOR",
              "UNRATED_ONE_PUBLISHER", "coverage", "order_ratings", "rate", "rate_categories",
              "rate_category", "set_apart", "upper_bound_ranks"),
    "views": ("one_view_per_family", "rated_mask", "rated_scores", "views_set_aside"),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}
_SUBMODULES = (*_EXPORTS, "pairs")

# Imported at once (pandas and urllib only): the function shares its module's name, and a
# lazily bound name would be replaced by the module when another import loads it.
from analytics.llm.elo.publishers import SHARED_HOSTS, publisher_of, publishers  # noqa: E402

if TYPE_CHECKING:  # what static readers see; at run time __getattr__ imports on demand
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
        MIN_PUBLISHERS,
        RATING_DECIMALS,
        UNRATED_CATEGORY_FLOOR,
        UNRATED_DISCONNECTED,
        UNRATED_FLOOR,
        UNRATED_ONE_PUBLISHER,
        coverage,
        order_ratings,
        rate,
        rate_categories,
        rate_category,
        set_apart,
        upper_bound_ranks,
    )
    from analytics.llm.elo.views import (
        one_view_per_family,
        rated_mask,
        rated_scores,
        views_set_aside,
    )


def __getattr__(name: str) -> Any:
    """A public name or step module of the package, imported on first use."""
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME, *_SUBMODULES})


ALGORITHM_VERSION = "bt-mm-4"  # 2: ranks only the main comparison graph; 3: bootstrap rank
# spread no longer splits rounds' equal ratings by float noise (docs/elo.md section 5); 4: one
# view per evaluation family, a rank needs two publishers, LMArena's upper-bound rank
"""Version of the rating method: change it whenever a change to this package (or to the score
query in ``analytics.llm.ratings``) changes any rating, so cached ratings of an old method are
never served (``data/derived/<version>/`` files carry it in their name)."""
CATEGORY_VERSION = "cat-3"  # 2: three benchmarks of the category to rank (was two); 3: and
# results of two publishers
"""Version of the per-category method (:func:`rate_categories`: which battles, the category
floor); the category file's name carries it beside ``ALGORITHM_VERSION``."""

__all__ = [
    "ALGORITHM_VERSION", "ANCHOR_RATING", "CATEGORY_VERSION", "DEFAULT_MAX_ITER", "DEFAULT_TOL",
    "ELO_SCALE", "MIN_BENCHMARKS", "MIN_CATEGORIES", "MIN_CATEGORY_BENCHMARKS", "MIN_PUBLISHERS",
    "OPTIONAL_COLUMNS", "RATING_DECIMALS", "REQUIRED_COLUMNS", "UNRATED_CATEGORY_FLOOR",
    "SHARED_HOSTS", "UNRATED_DISCONNECTED", "UNRATED_FLOOR", "UNRATED_ONE_PUBLISHER", "Battles",
    "ConvergenceError", "Evidence", "Fit",
    "Pairwise", "aggregate", "battle_table", "bootstrap_ratings", "build_battles", "coverage",
    "fit", "gradient", "headline_scores", "log_likelihood", "main_graph", "mm_sweep",
    "one_view_per_family", "order_ratings", "publisher_of", "publishers", "rate",
    "rate_categories", "rate_category", "rated_mask", "rated_scores", "set_apart", "to_rating",
    "upper_bound_ranks", "views_set_aside", "weigh",
]
