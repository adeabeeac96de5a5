"""Plotly figures of the vision pages: accuracy vs latency with its Pareto front, the call-time
histogram and the memory trace with its idle baseline. Human axis titles with units.

Builds figures only (data comes from ``analytics.vision.runs``); never imports streamlit.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from analytics.core.axes import log_ticks
from analytics.vision import runs as vision
from analytics.vision.evidence import MIN_OBJECTS, sanity_only

LATENCY_AXIS = "median latency per predict() call (ms, ours, log scale)"
OTHERS_NAME = "other ranked models"
FRONT_NAME = "Pareto front (no model is both faster and more accurate)"
EMPTY_TITLE = "No ranked model has an accuracy on our set to plot"


def _ms(value: float) -> str:
    return f"{value:g} ms"


def latency_figure(board: vision.Leaderboard, why: str) -> go.Figure:
    """Our median latency per ranked model (x, log, labelled ticks), for a task whose accuracy
    set is too small to be an axis (``why`` says so in the title): no accuracy axis and no
    Pareto front."""
    r = board.ranked.sort_values("median_ms", ascending=False)
    ticks = log_ticks([*r["median_ms"], *r["p90_ms"]], _ms)
    middle = 10 ** (sum(ticks["range"]) / 2) if ticks else 0.0
    fig = go.Figure()
    fig.add_scatter(  # each name above its point, towards the middle: no name column
        x=r["median_ms"], y=r["display_name"], mode="markers+text", marker={"size": 12},
        text=r["display_name"], textfont={"size": 11},
        textposition=["top left" if x > middle else "top right" for x in r["median_ms"]],
        error_x={"type": "data", "symmetric": False, "array": r["p90_ms"] - r["median_ms"],
                 "arrayminus": [0] * len(r)},
        name="median (bar to p90)",
        hovertemplate="%{y}: median %{x:.2f} ms<extra></extra>",
    )
    fig.update_layout(
        title=f"Latency, {board.task} on {board.device} — {why}",
        xaxis={"title": {"text": LATENCY_AXIS}, "type": "log", **ticks},
        yaxis={"title": {"text": ""}, "showticklabels": False},  # names sit by the points, so
        showlegend=False,  # a phone keeps its width for the latency axis
    )
    return fig


def pareto_figure(board: vision.Leaderboard, evidence: pd.DataFrame | None = None) -> go.Figure:
    """AP on our accuracy set (y, 0 to 1) vs our median latency (x, log, labelled ticks): every
    ranked model with an AP, the front as a step line and its models marked; hover names model,
    median and p90 ms, AP, AP50, memory peak with its kind (RAM/VRAM) and the licence verdict.

    When ``evidence`` (``analytics.vision.evidence``) says the set has fewer than
    ``MIN_OBJECTS`` objects, accuracy is a sanity check: the latency alone is drawn."""
    points = vision.pareto_points(board)
    if evidence is not None and not points.empty:
        shown = evidence[evidence["run_id"].isin(board.ranked["run_id"])]
        if sanity_only(shown):
            images, objects = int(shown["images"].max()), int(shown["objects"].max())
            why = f"no accuracy axis: {images} images, {objects} objects (under {MIN_OBJECTS})"
            return latency_figure(board, why)
    y_title = vision.accuracy_set_label(points.get("benchmark", pd.Series(dtype=str)))
    fig = go.Figure()
    fig.update_layout(
        title=f"Accuracy vs latency, {board.task} on {board.device} — {_set_note(y_title)}",
        xaxis={"title": {"text": LATENCY_AXIS}, "type": "log",
               **log_ticks(points.get("median_ms", []), _ms)},
        yaxis={"title": {"text": y_title}, "range": [0, 1.05]},  # AP lies in [0, 1]
        legend={"orientation": "h", "y": -0.25},
    )
    if points.empty:
        fig.update_layout(title=EMPTY_TITLE)
        return fig
    front = points[points["on_front"]].sort_values(["median_ms", "ap"])
    others = points[~points["on_front"]]
    if not others.empty:
        fig.add_scatter(
            name=OTHERS_NAME,
            x=others["median_ms"],
            y=others["ap"],
            mode="markers",
            marker={"size": 10, "color": "#9aa4b1"},
            hovertext=others["hover"],
            hovertemplate="%{hovertext}<extra></extra>",
        )
    fig.add_scatter(
        name=FRONT_NAME,
        x=front["median_ms"],
        y=front["ap"],
        mode="lines+markers+text",
        line={"shape": "hv", "color": "#d62728"},
        marker={"size": 13, "symbol": "star", "color": "#d62728"},
        text=front["model"],
        textposition="top right",
        hovertext=front["hover"],
        hovertemplate="%{hovertext}<extra></extra>",
    )
    return fig


def _set_note(y_title: str) -> str:
    return "our set, not a standard benchmark" if "our set" in y_title else "standard benchmark"


def latency_histogram(calls: pd.DataFrame) -> go.Figure:
    """Every timed predict() call of one measurement, one colour per run."""
    fig = go.Figure()
    for index, run in calls.groupby("run_index", sort=True):
        fig.add_histogram(x=run["latency_ms"], name=f"run {int(index) + 1}", nbinsx=60)
    fig.update_layout(
        barmode="overlay",
        title="Timed predict() calls (ours)",
        xaxis={"title": {"text": "latency per predict() call (ms)"}, "rangemode": "nonnegative"},
        yaxis={"title": {"text": "number of calls"}, "rangemode": "nonnegative"},
    )
    fig.update_traces(opacity=0.6)
    return fig


def baseline_labels(baselines: pd.DataFrame) -> tuple[str, str] | None:
    """The two line labels of the run that sets the reported peak (largest rise above its own
    idle baseline; seed 000, section 04), or None without baselines."""
    if baselines.empty:
        return None
    top = baselines.loc[baselines["above_baseline_mib"].idxmax()]
    run = int(top["run_index"]) + 1
    return (
        f"idle baseline {top['baseline_mib']:.1f} MiB (run {run})",
        f"peak {top['highest_mib']:.1f} MiB, reported = peak − baseline = "
        f"{top['above_baseline_mib']:.1f} MiB (run {run})",
    )


def memory_figure(memory: pd.DataFrame, baselines: pd.DataFrame) -> go.Figure:
    """The raw memory samples of each run of one measurement, with horizontal lines for the idle
    baseline and the peak of the run whose rise above baseline is the reported peak."""
    kind = str(memory["kind"].iloc[0]).upper() if len(memory) else ""
    fig = go.Figure()
    for index, run in memory.groupby("run_index", sort=True):
        fig.add_scatter(
            x=run["t_s"], y=run["used_mib"], mode="lines", name=f"run {int(index) + 1} ({kind})"
        )
    labels = baseline_labels(baselines)
    if labels is not None and len(memory):
        top = baselines.loc[baselines["above_baseline_mib"].idxmax()]
        span = [float(memory["t_s"].min()), float(memory["t_s"].max())]
        for label, level, dash in (
            (labels[0], top["baseline_mib"], "dash"),
            (labels[1], top["highest_mib"], "dot"),
        ):
            fig.add_scatter(
                x=span,
                y=[float(level)] * 2,
                mode="lines",
                name=label,
                line={"dash": dash, "color": "#444"},
                hovertemplate=f"{label}<extra></extra>",
            )
    fig.update_layout(
        title=f"Memory trace ({kind}, ours)",
        xaxis={"title": {"text": "time since start (s)"}, "rangemode": "nonnegative"},
        yaxis={"title": {"text": "memory (MiB)"}, "rangemode": "nonnegative"},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
