"""Category capability profiles (seed 002, end of "The Elo rating").

A profile is the mean of a model's headline scores in one category, each normalised against the
benchmark's curated bounds: 0 = the lower bound, 100 = the upper bound (scores beyond a bound are
clipped to it), flipped where lower scores are better. Profiles describe what a model is good at;
they are not a ranking (the Elo rating is), and a category a model has no score in stays empty,
never zero.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

MAX_RADAR_MODELS = 4
PROFILE_LABEL = "Capability profile (normalised 0-100 against curated bounds; not a ranking)"


def between_bounds(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows of ``frame`` whose benchmark has usable bounds (upper > lower), with ``fraction``:
    ``(score - lower) / (upper - lower)`` clipped to [0, 1], flipped (``1 - ...``) where lower
    scores are better (seed 002, end of "The Elo rating").

    The one normalisation of the project (category profiles and quality axes). It clips: a score
    beyond a curated bound counts as that bound, so no result lands outside 0-1 (0-100 on the
    radar) and one out-of-range score cannot outweigh the rest of a mean.
    ``frame``: score, lower_bound, upper_bound, higher_is_better (missing = higher is better).
    """
    lower = frame["lower_bound"].astype(float)
    span = frame["upper_bound"].astype(float) - lower
    usable = span > 0
    fraction = ((frame["score"].astype(float) - lower) / span).clip(0.0, 1.0)[usable]
    higher = frame.loc[usable, "higher_is_better"].fillna(True).astype(bool)
    return frame[usable].assign(fraction=fraction.where(higher, 1.0 - fraction))


def normalised_scores(headline: pd.DataFrame, benchmarks: pd.DataFrame) -> pd.DataFrame:
    """Headline scores with ``value`` in 0-100 (:func:`between_bounds` x 100).

    ``headline``: model, benchmark, score. ``benchmarks``: benchmark_id, category,
    higher_is_better, lower_bound, upper_bound. Benchmarks with no usable bounds are left out.
    """
    bounds = benchmarks.set_index("benchmark_id")[
        ["category", "higher_is_better", "lower_bound", "upper_bound"]
    ]
    placed = between_bounds(headline[["model", "benchmark", "score"]].join(bounds, on="benchmark"))
    return placed.assign(value=100.0 * placed["fraction"])[
        ["model", "benchmark", "category", "value"]
    ]


def category_profiles(headline: pd.DataFrame, benchmarks: pd.DataFrame) -> pd.DataFrame:
    """Long table: model, category, value (mean normalised score, 0-100), n_benchmarks."""
    norm = normalised_scores(headline, benchmarks)
    grouped = norm.groupby(["model", "category"], sort=True)["value"]
    out = grouped.agg(value="mean", n_benchmarks="count").reset_index()
    out["value"] = out["value"].round(1)
    return out


def radar_data(profiles: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Profile rows of up to four models on a shared, sorted category axis.

    Categories a model lacks are present with ``value`` NA so every trace has the same axes.
    """
    if len(models) > MAX_RADAR_MODELS:
        raise ValueError(f"the radar compares at most {MAX_RADAR_MODELS} models, got {len(models)}")
    chosen = profiles[profiles["model"].isin(models)]
    categories = sorted(chosen["category"].unique())
    grid = pd.MultiIndex.from_product([models, categories], names=["model", "category"])
    out = chosen.set_index(["model", "category"]).reindex(grid).reset_index()
    out["n_benchmarks"] = out["n_benchmarks"].fillna(0).astype(int)
    return out


def radar_figure(radar: pd.DataFrame, labels: dict[str, str] | None = None) -> go.Figure:
    """Plotly radar of :func:`radar_data` rows; missing categories are gaps, never zeros."""
    fig = go.Figure()
    for model, rows in radar.groupby("model", sort=False):
        closed = pd.concat([rows, rows.head(1)])  # repeat the first axis to close the polygon
        fig.add_trace(
            go.Scatterpolar(
                r=closed["value"].astype(float),
                theta=closed["category"],
                name=(labels or {}).get(str(model), str(model)),
                connectgaps=False,
                mode="lines+markers",
            )
        )
    fig.update_layout(
        title=PROFILE_LABEL,
        polar={"radialaxis": {"range": [0, 100]}},
        legend={"orientation": "h"},
        margin={"l": 40, "r": 40, "t": 60, "b": 40},
    )
    return fig
