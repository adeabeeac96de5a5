"""Step 1b of the Elo pipeline: one evaluation enters the rating once (docs/elo.md, "One
evaluation, one benchmark").

Some benchmarks are views of one evaluation: Arena's plain and style-control views of the same
votes, two copies of one board, successive releases of one suite where the newer supersedes.
The benchmark table declares them as a ``family`` with a ``view_order`` (1: the headline view).
For each model and family only the scores of the lowest-ordered view it has enter the rating; its
scores on the other views stay stored and shown, marked as set aside. Counting both would let
one pool of votes count as several benchmarks (and as several categories) for the same pair.
"""

from __future__ import annotations

import pandas as pd

from analytics.llm.elo.headline import headline_scores

FAMILY = "family"
VIEW_ORDER = "view_order"


def rated_mask(headline: pd.DataFrame) -> pd.Series:
    """True for the rows of a headline table that enter the rating: rows outside any family,
    and per (model, family) the rows of the lowest view order the model has. Without a
    ``family`` column every row counts."""
    if FAMILY not in headline or headline.empty:
        return pd.Series(True, index=headline.index)
    family = headline[FAMILY].fillna("").astype(str)
    member = family != ""
    order = pd.to_numeric(headline.get(VIEW_ORDER), errors="coerce").fillna(1)
    best = order.where(member).groupby([headline["model"], family]).transform("min")
    return ~member | (order == best)


def one_view_per_family(headline: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``headline`` that :func:`rated_mask` keeps."""
    return headline[rated_mask(headline).to_numpy()].reset_index(drop=True)


def rated_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """What the rating is fitted on: :func:`headline_scores` (one score per model x benchmark),
    then :func:`one_view_per_family` (one view per model x evaluation)."""
    return one_view_per_family(headline_scores(scores))


def views_set_aside(scores: pd.DataFrame) -> pd.DataFrame:
    """Headline scores that another view of the same family replaces in the rating."""
    headline = headline_scores(scores)
    return headline[~rated_mask(headline).to_numpy()].reset_index(drop=True)
