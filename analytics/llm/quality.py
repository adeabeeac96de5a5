"""Quality axes and the honest ranking over them (seed 002, licence / quality paragraphs).

An axis value is the mean of a model's normalised headline scores (``profiles.between_bounds``,
0-1, clipped) over the axis' benchmark basket (only the benchmarks it has). A model with no score
in a basket has no value on that axis (None, shown "—"), never zero. Rankings put coverage first:
a model scored on more of the selected axes outranks one scored on fewer, whatever the values.
Reasoning-effort / mode variants that share a ``checkpoint_id`` collapse to one row, represented
by the variant with the widest coverage, then the highest mean, then the smallest model_id (so
the choice is deterministic and documented).
"""

from __future__ import annotations

import pandas as pd

from analytics.llm import elo, profiles

AXES: dict[str, tuple[str, ...]] = {
    "Documents": ("docvqa", "ocrbench", "chartqa", "charxiv"),
    "Instruction following": ("ifeval",),
    "Chat quality": ("lmarena-text",),  # the human-preference index (LMArena text arena score)
}
"""Axis name -> benchmark_ids of its basket."""


def headline_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """``elo.headline_scores`` (seed 002 "Provenance") in catalog column names (model_id,
    benchmark_id, source_kind, ...)."""
    names = {"model_id": "model", "benchmark_id": "benchmark", "source_kind": "source"}
    frame = scores.rename(columns=names)
    if "category" not in frame:
        frame = frame.assign(category="")
    picked = elo.headline_scores(frame)
    return picked.rename(columns={v: k for k, v in names.items()})


def normalised(headline: pd.DataFrame, benchmarks: pd.DataFrame) -> pd.DataFrame:
    """Adds ``norm`` in [0, 1] (``profiles.between_bounds``: clipped, flipped when lower is
    better). Rows for benchmarks without valid bounds are dropped."""
    cols = ["benchmark_id", "lower_bound", "upper_bound", "higher_is_better"]
    df = headline.merge(benchmarks[cols], on="benchmark_id", how="inner")
    return profiles.between_bounds(df).rename(columns={"fraction": "norm"})


def axis_values(
    scores: pd.DataFrame,
    benchmarks: pd.DataFrame,
    axes: dict[str, tuple[str, ...]] | None = None,
) -> pd.DataFrame:
    """One row per model_id with one column per axis (mean normalised score, NaN when the model
    has none of the basket) and ``<axis> n`` columns counting the basket benchmarks used."""
    axes = AXES if axes is None else axes
    norm = normalised(headline_scores(scores), benchmarks)
    out = pd.DataFrame({"model_id": sorted(scores["model_id"].unique())})
    for axis, basket in axes.items():
        part = norm[norm["benchmark_id"].isin(basket)]
        agg = part.groupby("model_id")["norm"].agg(["mean", "count"])
        out[axis] = out["model_id"].map(agg["mean"])
        out[f"{axis} n"] = out["model_id"].map(agg["count"]).fillna(0).astype(int)
    return out


def rank_by_axes(values: pd.DataFrame, selected: list[str]) -> pd.DataFrame:
    """Sort by coverage tier (axes scored out of ``selected``), then mean over scored axes.

    Adds ``coverage`` (int), ``coverage_label`` ('2 of 2') and ``quality`` (mean of the scored
    selected axes, NaN when none). A model scored on more axes always ranks first.
    """
    if not selected:
        raise ValueError("select at least one quality axis")
    sub = values[selected]
    coverage = sub.notna().sum(axis=1).astype(int)
    out = values.assign(
        coverage=coverage,
        coverage_label=[f"{c} of {len(selected)}" for c in coverage],
        quality=sub.mean(axis=1, skipna=True),
    )
    out = out.sort_values(
        ["coverage", "quality", "model_id"], ascending=[False, False, True], na_position="last"
    )
    return out.reset_index(drop=True)


def collapse_checkpoints(ranked: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """One row per ``checkpoint_id``: the variant with the widest coverage, then the highest
    quality, then the smallest model_id; ``variants`` lists the ids it stands for."""
    df = ranked.merge(models[["model_id", "checkpoint_id"]], on="model_id", how="left")
    df["checkpoint_id"] = df["checkpoint_id"].fillna(df["model_id"])
    variants = df.groupby("checkpoint_id")["model_id"].agg(lambda s: ", ".join(sorted(s)))
    keys = ["coverage", "quality", "model_id"]
    df = df.sort_values(keys, ascending=[False, False, True], na_position="last")
    best = df.drop_duplicates("checkpoint_id").copy()
    best["variants"] = best["checkpoint_id"].map(variants)
    return best.reset_index(drop=True)


def quality_ranking(
    scores: pd.DataFrame,
    benchmarks: pd.DataFrame,
    models: pd.DataFrame,
    selected: list[str],
    values_of_all: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Axis values, ranked by coverage tier then value, one row per checkpoint;
    ``values_of_all``: :func:`axis_values` of these scores, when already computed (the app
    caches it per snapshot version)."""
    if scores.empty or benchmarks.empty:
        values = pd.DataFrame({"model_id": models["model_id"]})
        for axis in AXES:
            values[axis], values[f"{axis} n"] = float("nan"), 0
    else:
        every = axis_values(scores, benchmarks) if values_of_all is None else values_of_all
        values = models[["model_id"]].merge(every, on="model_id", how="left")
    for axis in AXES:
        values[f"{axis} n"] = values[f"{axis} n"].fillna(0).astype(int)
    return collapse_checkpoints(rank_by_axes(values, selected), models)
