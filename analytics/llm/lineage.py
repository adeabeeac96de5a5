"""Version lineage and "biggest movers" (seed 002, "Movers & lineage").

Each model links to its nearest strictly-older member of the same *product line*
(:func:`product_line`: the family, the line's words such as Pro / Flash / Flash-Lite / Sonnet /
mini / coder, and the size class), so movers compare like with like. Models released
on the same day are size variants of one release, not successions, so a model never links to a
same-day sibling. A base checkpoint and its own tuned release (ids equal but for a closing
:data:`TUNING_SUFFIX`: 'gemma-2-9b' and 'gemma-2-9b-it') are one release too, dated by the earlier
of the two, whatever days the sources give each: neither is the other's predecessor. When
several members share the nearest older release date, one of the same tuning comes first (an
instruct model follows a chat model, a base a base), then the one closest in size
(|log params|), then the smaller model id.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

TUNING_SUFFIX = re.compile(r"-(instruct|it|chat|base|hf)$")
"""A closing word that names the tuning of one checkpoint's weights, not a release."""
TUNED_SUFFIX = re.compile(r"-(?:instruct|it|chat)$")
"""A closing word that says the weights are tuned. A base is an id ending in '-base', or one
with a tuned sibling in the catalog ('qwen2.5-72b' beside 'qwen-2.5-72b-instruct'); every other
id is tuned, since most releases now drop the word ('qwen3.5-122b-a10b')."""


def predecessors(models: pd.DataFrame) -> pd.DataFrame:
    """One row per model: ``model_id`` and ``predecessor_id`` (NA when it has none).

    Needs columns model_id, family, release_date; total_params_b breaks date ties. Vectorised:
    each model is joined to the members of its family released on the family's newest date
    before its own, and the closest in size (then the smallest id) is kept.
    """
    frame = _lineage_frame(models)
    dates = frame[["family", "release_date"]].drop_duplicates()
    dates = dates.sort_values(["family", "release_date"])
    dates["previous"] = dates.groupby("family")["release_date"].shift()
    wanted = frame.merge(dates, on=["family", "release_date"]).dropna(subset=["previous"])
    older = frame.rename(columns=lambda c: f"older_{c}")
    pairs = wanted.merge(
        older, left_on=["family", "previous"], right_on=["older_family", "older_release_date"]
    )
    picked = _closest(pairs)
    out = pd.DataFrame({"model_id": models["model_id"].to_numpy()})
    out["predecessor_id"] = out["model_id"].map(picked).astype("string")
    return out


SIZE_CLASSES_B = (4.0, 16.0, 48.0, 160.0)
"""Upper bounds (billions, exclusive) of the size classes: under 4B, 4-16B, 16-48B, 48-160B,
160B and up; a model of undisclosed size is its own class ('?')."""
_NOT_LINE = {
    "instruct", "it", "chat", "base", "hf", "preview", "exp", "experimental", "latest", "v",
    "thinking", "reasoning", "non", "no", "minimal", "low", "medium", "high", "xhigh", "max",
    "effort", "k", "b", "m", "x", "a", "e",
}
"""Words of a name that say a tuning, stage or setting, not a product line."""


def size_class(params_b: float | None) -> str:
    """The size class of a parameter count (:data:`SIZE_CLASSES_B`)."""
    if params_b is None or not np.isfinite(params_b):
        return "?"
    return str(int(np.searchsorted(SIZE_CLASSES_B, params_b, side="right")))


def product_line(model_id: str, family: str, params_b: float | None) -> str:
    """'<family>|<line words>|<size class>': the words of the id that are neither the family,
    a number, a version nor a setting ('gemini-2.5-flash-lite' -> 'gemini|flash lite|?',
    'gemma-3-270m' and 'gemma-4-31b' differ by size class)."""
    words = re.findall(r"[a-z]+", re.sub(r"\d+(\.\d+)?[bmk]?", " ", str(model_id).lower()))
    fam = str(family).lower()
    line = " ".join(w for w in words if w not in _NOT_LINE and w != fam and len(w) > 1)
    return f"{fam}|{line}|{size_class(params_b)}"


def _lineage_frame(models: pd.DataFrame) -> pd.DataFrame:
    frame = models[["model_id", "family", "release_date"]].copy()
    frame["release_date"] = pd.to_datetime(frame["release_date"])
    if "release_date_basis" in models:  # a proxy day (first seen in LiteLLM) orders nothing
        proxy = models["release_date_basis"].astype("string").fillna("").str.strip() != ""
        frame.loc[proxy, "release_date"] = pd.NaT
    params = models["total_params_b"] if "total_params_b" in models else np.nan
    frame["total_params_b"] = pd.to_numeric(pd.Series(params, index=models.index))
    family = frame["family"].astype("string").str.strip()
    keep = family.notna() & (family != "") & frame["release_date"].notna()
    frame = frame.assign(family=family)[keep]
    lines = [
        product_line(m, f, p)
        for m, f, p in zip(frame["model_id"], frame["family"], frame["total_params_b"], strict=True)
    ]
    frame = frame.assign(family=lines)
    ids = frame["model_id"].astype(str)
    stem = ids.str.replace(TUNING_SUFFIX, "", regex=True).str.replace(r"[-_]", "", regex=True)
    group = [frame["family"], stem]  # 'qwen-2.5-72b-instruct' is the tune of 'qwen2.5-72b'
    release = frame.groupby(group)["release_date"].transform("min")
    tuned = ids.str.contains(TUNED_SUFFIX)
    has_tune = tuned.groupby(group).transform("any")
    base = ids.str.endswith("-base") | (has_tune & ~tuned)
    return frame.assign(release_date=release, base=base)  # a base and its own tune: one release


def _closest(pairs: pd.DataFrame) -> pd.Series:
    """Per model_id, among its candidate ``older_*`` members, one of the same tuning (tuned or
    base) first, then the one closest in size (|log params| gap, unknown sizes last), then the
    smallest id."""
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.abs(
            np.log(pairs["older_total_params_b"].to_numpy(float))
            - np.log(pairs["total_params_b"].to_numpy(float))
        )
    mismatch = pairs["base"].to_numpy(bool) != pairs["older_base"].to_numpy(bool)
    pairs = pairs.assign(gap=np.where(np.isfinite(gap), gap, np.inf), mismatch=mismatch)
    pairs = pairs.sort_values(["model_id", "mismatch", "gap", "older_model_id"], kind="mergesort")
    first = pairs.drop_duplicates("model_id")
    return first.set_index("model_id")["older_model_id"].astype(str)


def successors(edges: pd.DataFrame, model_id: str) -> list[str]:
    """Models whose predecessor is ``model_id``, sorted by id."""
    hits = edges.loc[edges["predecessor_id"] == model_id, "model_id"]
    return sorted(str(m) for m in hits)


def movers(
    edges: pd.DataFrame,
    ratings: pd.DataFrame,
    *,
    top: int | None = None,
    predecessors: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Largest positive rating gains along lineage edges, biggest first.

    ``ratings`` has columns model_id and rating; ``predecessors`` (same columns; default
    ``ratings``) holds the models an edge may start from: a gain measured from a model without
    a rank (an unrated reference figure, relative to its own group) is no gain. Returns
    model_id, predecessor_id, rating, predecessor_rating and gain (rating - predecessor_rating
    > 0).
    """
    rated = ratings.set_index("model_id")["rating"]
    before = rated if predecessors is None else predecessors.set_index("model_id")["rating"]
    linked = edges.dropna(subset=["predecessor_id"])
    linked = linked[
        linked["model_id"].isin(rated.index) & linked["predecessor_id"].isin(before.index)
    ]
    out = pd.DataFrame(
        {
            "model_id": linked["model_id"].to_numpy(),
            "predecessor_id": linked["predecessor_id"].to_numpy(),
            "rating": rated.reindex(linked["model_id"]).to_numpy(float),
            "predecessor_rating": before.reindex(linked["predecessor_id"]).to_numpy(float),
        }
    )
    out["gain"] = (out["rating"] - out["predecessor_rating"]).round(1)
    out = out[out["gain"] > 0].sort_values(["gain", "model_id"], ascending=[False, True])
    out = out.reset_index(drop=True)
    return out if top is None else out.head(top)
