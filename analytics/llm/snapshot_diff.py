"""Changes between two catalog snapshots: per model, added / removed / renamed / merged /
moved / unchanged, with ratings and ranks before and after (the leaderboard page's "Changes
between snapshots" and ``python -m analytics elo-diff``)."""

from __future__ import annotations

import pandas as pd

from analytics.core import db, paths
from analytics.core.snapshot import manifest as snapshot_manifest
from analytics.llm import catalog, leaderboard, ratings

MOVED_MIN_POINTS = 5.0
"""A rating that changed by less than this (in Elo points, either way) between two snapshots is
reported "unchanged": a new model's battles nudge every joint-fit rating a little."""
CHANGE_ORDER = ("added", "removed", "renamed", "merged", "moved", "scale", "unchanged")
"""``scale``: the rating moved by at least :data:`MOVED_MIN_POINTS`, but by less once the
common shift of the scale (:func:`scale_shift`) is taken out: the model did not move against
the field."""
SHIFT_MIN_MODELS = 10
"""Below this many models ranked in both snapshots the scale's move is taken as 0: the median of
a handful of models is their own move, not the scale's."""
RATING_INPUTS = ("scores.csv", "benchmarks.csv")
"""The catalog files a snapshot's ratings are computed from (``ratings.load_scores``): two
snapshots whose files agree have the same ratings, however their model names differ."""


def scale_shift(old: pd.DataFrame, new: pd.DataFrame) -> float:
    """The median rating change of the models ranked in both snapshots: the joint fit's scale
    drifts as models arrive, moving every rating together; a model moved against the field
    only by more than this. 0 with fewer than :data:`SHIFT_MIN_MODELS` such models."""
    both = old.merge(new, on="model_id", suffixes=("_old", "_new"))
    return _shift(both)


def _shift(both: pd.DataFrame) -> float:
    rows = both[both["rank_old"].notna() & both["rank_new"].notna()]
    if len(rows) < SHIFT_MIN_MODELS:
        return 0.0
    return round(float((rows["rating_new"] - rows["rating_old"]).median()), 1)


def rating_changes(
    old: pd.DataFrame,
    new: pd.DataFrame,
    renames: dict[str, str] | None = None,
    min_points: float = MOVED_MIN_POINTS,
) -> pd.DataFrame:
    """Per model: change, ratings and ranks before and after, rating_delta, rank_delta
    (positive = moved up), ``rating_delta_field`` (the change less :func:`scale_shift`, the
    move against the field), ``former_id``; sorted by the size of the move against the field
    (rows without one, added or removed, after). Inputs: model_id, rating, rank (and, kept
    from ``new``, ``rank_low``, ``rank_high``, ``rank_ub`` where present).

    ``renames`` maps an old id that the new snapshot lacks to the id it now belongs to: a
    ``renamed`` row when that id is new, ``merged`` when it existed before (its own row then
    follows as usual); never removed + added. ``moved`` needs a rating change of at least
    ``min_points`` against the field; a rating that moved only with the scale is ``scale``,
    smaller changes are ``unchanged``."""
    cols = ["model_id", "rating", "rank"]
    ranges = [c for c in ("rank_low", "rank_high", "rank_ub") if c in new]
    present = set(new["model_id"])  # once, not once per rename
    renames = {o: n for o, n in (renames or {}).items() if o not in present}
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
    shift = _shift(both[both["former_id"].isna()])  # renamed ids matched, merged ones apart
    both["rating_delta_field"] = (both["rating_delta"] - shift).round(1)
    change = pd.Series("moved", index=both.index)
    change[both["rating_delta_field"].abs() < min_points] = "scale"
    change[both["rating_delta"].abs() < min_points] = "unchanged"
    change[both["rating_old"].isna()] = "added"
    change[both["rating_new"].isna()] = "removed"
    change[both["former_id"].notna()] = "renamed"
    change[both.index >= len(both) - len(extra)] = "merged"
    both.insert(1, "change", change)
    both = both[[c for c in both.columns if c != "former_id"] + ["former_id"]]
    if ranges:
        both = both.join(new.set_index("model_id")[ranges].add_suffix("_new"), on="model_id")
    order = both["change"].map({c: i for i, c in enumerate(CHANGE_ORDER)})
    key = both["rating_delta_field"].abs().fillna(-1)
    both = both.assign(_o=order, _k=key).sort_values(["_k", "_o", "model_id"], ascending=[0, 1, 1])
    both = both.drop(columns=["_o", "_k"]).reset_index(drop=True)
    return both.assign(scale_shift=shift)


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


def rating_inputs(version: str) -> tuple[str | None, ...]:
    """The manifest digests of :data:`RATING_INPUTS` of a built snapshot (None where a hand-
    written manifest lacks them)."""
    found = snapshot_manifest.try_manifest(paths.SNAPSHOTS_DIR / version) or {}
    files = found.get("files") if isinstance(found.get("files"), dict) else {}
    return tuple(files.get(name) for name in RATING_INPUTS)


def default_pair(versions: list[str], new: str) -> tuple[str, str] | None:
    """(old, new) the changes open on: ``new`` and the newest snapshot listed before it whose
    rating inputs differ (another snapshot of the same scores and benchmarks has the same
    ratings: nothing to show); None when there is none. ``versions`` oldest first."""
    if new not in versions:
        return None
    mine = rating_inputs(new)
    for old in reversed(versions[: versions.index(new)]):
        theirs = rating_inputs(old)
        if None in mine or None in theirs or theirs != mine:
            return old, new
    return None


def diff_versions(old_version: str, new_version: str) -> pd.DataFrame:
    """:func:`rating_changes` between two built snapshot versions, with the new snapshot's
    aliases telling renames and merges apart from removals. Ratings and ranks are the point fit
    (the same as the bootstrapped file's); the new side's rank range and upper-bound rank come
    from its stored bootstrap file, the leaderboard's, where one exists."""
    old, new = ratings.of_version(old_version), ratings.of_version(new_version)
    served = ratings.stored(new_version, ratings.BOOTSTRAP_ROUNDS, ratings.BOOTSTRAP_SEED)
    if served is not None:
        new = served.rename(columns={"model": "model_id"})
    con = db.connect(new_version)
    try:
        models = leaderboard.board_models(con)
    finally:
        con.close()
    return rating_changes(old, new, renamed_ids(set(old["model_id"]), models))
