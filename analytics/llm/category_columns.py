"""The leaderboard's side-by-side view: one column per category, the model's category rating
where it is ranked there (leaderboard page, "side by side")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from analytics.llm.leaderboard import Leaderboard

SIDE_BY_SIDE_PREFIX = "cat_"
"""Column name prefix of one category's rating in :func:`categories_side_by_side`."""


def categories_side_by_side(
    board: Leaderboard, rows: pd.DataFrame, by_category: pd.DataFrame
) -> pd.DataFrame:
    """``rows`` (overall leaderboard rows, any filter) with one column per category of the
    board, ``cat_<category>``: the model's category rating where it is ranked in that category
    (blank below the category's evidence floor or outside its main comparison graph, never a
    reference rating). Categories in which none of ``rows`` is ranked are left out; row order
    and overall ranks are unchanged."""
    ranked = by_category[by_category["eligible"].astype(bool)]
    wide = ranked.pivot_table(
        index="model_id", columns="category", values="rating", aggfunc="first"
    )
    cats = [c for c in board.categories if c in wide.columns]
    wide = wide.reindex(columns=cats).add_prefix(SIDE_BY_SIDE_PREFIX)
    out = rows.join(wide, on="model_id")
    empty = [c for c in wide.columns if out[c].isna().all()]
    return out.drop(columns=empty)
