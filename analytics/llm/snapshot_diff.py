"""Changes between two catalog snapshots: per model, added / removed / renamed / merged /
moved / unchanged, with ratings and ranks before and after (the leaderboard page's "Changes
between snapshots" and ``python -m analytics elo-diff``)."""

from __future__ import annotations

import pandas as pd

from analytics.core import db
from analytics.llm import catalog, leaderboard, ratings

MOVED_MIN_POINTS = 5.0
"""A rating that changed by less than this (in Elo points, either way) between two snapshots is
reported "unchanged": a new model's battles nudge every joint-fit rating a little."""
CHANGE_ORDER = ("added", "removed", "renamed", "merged", "moved", "unchanged")


def rating_changes(
    old: pd.DataFrame,
    new: pd.DataFrame,
    renames: dict[str, str] | None = None,
    min_points: float = MOVED_MIN_POINTS,
) -> pd.DataFrame:
    """Per model: change, ratings and ranks before and after, rating_delta and rank_delta
    (positive = moved up), ``former_id``. Inputs: model_id, rating, rank.

    ``renames`` maps an old id that the new snapshot lacks to the id it now belongs to: a
    ``renamed`` row when that id is new, ``merged`` when it existed before (its own row then
    follows as usual); never removed + added. ``moved`` needs a rating change of at least
    ``min_points``; smaller ones are ``unchanged``."""
    cols = ["model_id", "rating", "rank"]
    renames = {o: n for o, n in (renames or {}).items() if o not in set(new["model_id"])}
    earlier = set(old["model_id"])
    before = old[cols].assign(former_id=old["model_id"].where(old["model_id"].isin(renames)))
    before["model_id"] = before["model_id"].map(lambda m: renames.get(m, m))
    merged = before["former_id"].notna() & before["model_id"].isin(earlier)
    kept = before[~merged]
    both = kept.merge(new[cols], on="model_id", how="outer", suffixes=("_old", "_new"))
    extra = before[merged].rename(columns={"rating": "rating_old", "rank": "rank_old"})
    extra = extra.merge(new[cols].add_suffix("_new"), left_on="model_id",
                        right_on="model_id_new", how="left").drop(columns="model_id_new")
    both = pd.concat([both, extra], ignore_index=True)
    both["rating_delta"] = (both["rating_new"] - both["rating_old"]).round(1)
    both["rank_delta"] = (both["rank_old"] - both["rank_new"]).astype("Int64")
    change = pd.Series("moved", index=both.index)
    change[both["rating_delta"].abs() < min_points] = "unchanged"
    change[both["rating_old"].isna()] = "added"
    change[both["rating_new"].isna()] = "removed"
    change[both["former_id"].notna()] = "renamed"
    change[both.index >= len(both) - len(extra)] = "merged"
    both.insert(1, "change", change)
    both = both[[c for c in both.columns if c != "former_id"] + ["former_id"]]
    order = both["change"].map({c: i for i, c in enumerate(CHANGE_ORDER)})
    key = both["rating_delta"].abs().fillna(0)
    both = both.assign(_o=order, _k=key).sort_values(["_o", "_k", "model_id"], ascending=[1, 0, 1])
    return both.drop(columns=["_o", "_k"]).reset_index(drop=True)


def renamed_ids(old_ids: set[str], new_models: pd.DataFrame) -> dict[str, str]:
    """Old ids that ``new_models`` no longer holds -> the model that lists them among its
    names (former ids stay aliases of the model they were merged into)."""
    names = catalog.model_names(new_models)
    present = set(new_models["model_id"])
    out = {}
    for old in sorted(old_ids - present):
        target = names.get(catalog.norm_name(old))
        if target:
            out[old] = target
    return out


def with_names(changes: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """``changes`` (:func:`rating_changes`) with ``display_name`` after ``model_id`` (the id
    where ``models`` does not name it, e.g. a model removed from the catalog)."""
    names = models.set_index("model_id")["display_name"]
    shown = changes["model_id"].map(names).fillna(changes["model_id"]).astype(str)
    out = changes.copy()
    out.insert(1, "display_name", shown.to_numpy())
    return out


def diff_versions(old_version: str, new_version: str) -> pd.DataFrame:
    """:func:`rating_changes` between two built snapshot versions (no bootstrap needed), with
    the new snapshot's aliases telling renames and merges apart from removals."""
    old, new = ratings.of_version(old_version), ratings.of_version(new_version)
    con = db.connect(new_version)
    try:
        models = leaderboard.board_models(con)
    finally:
        con.close()
    return rating_changes(old, new, renamed_ids(set(old["model_id"]), models))
