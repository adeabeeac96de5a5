"""LLM charts: Elo against release date, model size and API price, with their frontiers."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.colors import qualitative

import ui.data
from analytics.core.axes import log_ticks
from analytics.llm import charts
from ui import format as fmt
from ui import llm
from ui.params import flag_param

# Plotly's default palette: readable on the light and the dark theme alike.
COLOURS = {
    charts.OPEN: qualitative.Plotly[0], charts.CLOSED: qualitative.Plotly[1],
    charts.UNKNOWN: qualitative.Plotly[7],
}
FRONTIER = qualitative.Plotly[2]
HOVER = "%{hovertext}<extra></extra>"


def scatter(frame: charts.ChartFrame, log_x: bool, by_weights: bool) -> go.Figure:
    """Points coloured by weights; Pareto frontier members enlarged, outlined and joined."""
    fig = go.Figure()
    points = frame.points
    for weights, colour in COLOURS.items():
        rows = points[points["weights"] == weights]
        if rows.empty or not by_weights and weights != charts.OPEN:
            continue
        fig.add_scatter(
            x=rows["x"], y=rows["rating"], mode="markers", name=weights, hovertext=rows["hover"],
            hovertemplate=HOVER, marker={"color": colour, "size": 7, "opacity": 0.7},
        )
    line = frame.frontier
    if not line.empty:
        fig.add_scatter(
            x=line["x"], y=line["rating"], mode="lines+markers+text", name="Pareto frontier",
            text=line["display_name"], textposition="top left", textfont={"size": 11},
            hovertext=line["hover"], hovertemplate=HOVER, line={"color": FRONTIER, "width": 2},
            marker={"color": FRONTIER, "size": 11, "symbol": "diamond"},
        )
    return _layout(fig, frame, log_x)


def over_time(frame: charts.ChartFrame) -> go.Figure:
    """Points by weights, each group's best-so-far envelope as a step line in its colour."""
    fig = go.Figure()
    for weights, colour in COLOURS.items():
        rows = frame.points[frame.points["weights"] == weights]
        env = frame.frontier[frame.frontier["weights"] == weights]
        if rows.empty:
            continue
        fig.add_scatter(
            x=rows["x"], y=rows["rating"], mode="markers", name=weights, legendgroup=weights,
            hovertext=rows["hover"], hovertemplate=HOVER,
            marker={"color": colour, "size": 7, "opacity": 0.7},
        )
        fig.add_scatter(
            x=env["x"], y=env["rating"], mode="lines", name=f"{weights}: best so far",
            legendgroup=weights, hovertext=env["hover"], hovertemplate=HOVER,
            line={"color": colour, "width": 2, "shape": "hv"},
        )
    return _layout(fig, frame, log_x=False)


def _layout(fig: go.Figure, frame: charts.ChartFrame, log_x: bool) -> go.Figure:
    fig.update_layout(
        xaxis_title=frame.x_title, yaxis_title=frame.y_title, height=480,
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02},
        margin={"t": 40},
    )
    if log_x:  # every tick labelled with its value ('0.5', '20'), not Plotly's bare '2 3 4'
        values = [v for trace in fig.data for v in (trace.x if trace.x is not None else [])]
        fig.update_xaxes(type="log", **log_ticks(values, "{:g}".format))
    return fmt.readable(fig)


st.title("LLM charts")
version = ui.data.snapshot_version()
llm.show_freshness(version)
with_unrated = st.toggle(
    "Include unrated models", flag_param("unrated"), key="ch_unrated",
    help="Unrated models are below the eligibility floor or outside the main comparison graph; "
    "their Elo is shown for reference only.",
)
st.query_params["unrated"] = "1" if with_unrated else "0"
data = llm.load_charts(version, ranked_only=not with_unrated)
scope = "ranked and unrated models" if with_unrated else "ranked models only"
unrated = fmt.plural(data.n_unrated, "unrated model", "are")
left_out = "" if with_unrated else f" ({unrated} left out)"
st.caption(
    f"{fmt.plural(data.n_models, 'model')} with an Elo rating: {scope}{left_out}. Each point is "
    "one model; "
    "hover for its name, Elo with 95% interval, organisation and the value on the x axis."
)
if data.n_models == 0:
    st.info("No model has an Elo rating in this snapshot yet.")
    st.stop()

st.subheader("Elo over time")
st.plotly_chart(over_time(data.release), key="ch_release")
st.caption(
    "Each step line is the best Elo of any model released on or before that date, for open and "
    "closed weights separately: the gap between the lines is how far open weights trail. "
    "Stated release dates only (a day a model was first seen in LiteLLM is not a release). "
    f"{data.release.missing_line}"
)

st.subheader("Elo against model size (open weights)")
st.plotly_chart(scatter(data.size, log_x=True, by_weights=False), key="ch_size")
st.caption(
    "Open-weight models only, total parameters on a log scale. Diamonds on the line form the "
    "Pareto frontier: no other model is at most as large and rated at least as high. "
    f"{data.size.missing_line}"
)

st.subheader("Elo against API price")
st.plotly_chart(scatter(data.price, log_x=True, by_weights=True), key="ch_price")
a, b = charts.BLEND
st.caption(
    f"Blended list price: ({a} × input + {b} × output) / {a + b} USD per million tokens, i.e. "
    f"{a}:{b} input:output tokens, on a log scale; a model needs both list prices. Diamonds on "
    "the line form the Pareto frontier: no other model is at most as cheap and rated at least "
    "as high. The price's source and the day it applies from are in the hover. "
    f"{data.price.missing_line}"
)
