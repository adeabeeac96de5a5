"""One run of a submission: accuracy, loss and simulated cost curves against the step."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from analytics.fl import board as flb


@st.cache_data(show_spinner="Loading submissions…")
def _board(version: str) -> flb.Board:
    return flb.load_board()


@st.cache_data(show_spinner=False)
def _index(version: str) -> pd.DataFrame:
    return flb.run_index(_board(version))


def _pick(label: str, options: list[str], key: str) -> str:
    wanted = st.query_params.get(key)
    index = options.index(wanted) if wanted in options else 0
    choice = st.selectbox(label, options, index=index, key=f"fl_detail_{key}")
    st.query_params[key] = choice
    return choice


version = flb.data_version()
board, index = _board(version), _index(version)
st.title("Run detail")
if index.empty:
    st.info("No stored runs yet.")
    st.stop()

cols = st.columns(5)
with cols[0]:
    refs = set(board.policy.reference_methods)  # ranked methods first, references after
    methods = sorted(index["method"].unique(), key=lambda m: (m in refs, m))
    method = _pick("Method", methods, "method")
rows = index[index["method"] == method]
with cols[1]:
    model = _pick("Model", sorted(rows["model"].unique()), "model")
rows = rows[rows["model"] == model]
with cols[2]:
    protocol = _pick("Protocol", sorted(rows["protocol"].unique()), "protocol")
rows = rows[rows["protocol"] == protocol]
with cols[3]:
    dataset = _pick("Dataset", sorted(rows["dataset"].unique()), "dataset")
rows = rows[rows["dataset"] == dataset]
with cols[4]:
    condition = _pick("Condition", sorted(rows["condition"].unique()), "condition")

curves = flb.run_curves(board, protocol, model, method, dataset, condition)
if curves.empty:
    status = rows[rows["condition"] == condition]["status"].iloc[0]
    st.warning(f"This run has no checkpoints (status: {status}).")
    st.stop()

quality = curves[curves["metric"].isin(["accuracy", "loss"])]
st.plotly_chart(
    px.line(quality, x="step", y="value", facet_col="metric", markers=True).update_yaxes(
        matches=None, showticklabels=True
    ),
    key="fl_quality_chart",
)
costs = curves[~curves["metric"].isin(["accuracy", "loss"])]
st.plotly_chart(
    px.line(
        costs, x="step", y="value", facet_col="metric", facet_col_wrap=2, markers=True
    ).update_yaxes(matches=None, showticklabels=True),
    key="fl_cost_chart",
)
st.dataframe(
    curves.pivot(index="step", columns="metric", values="value"),
    key="fl_curve_table",
    placeholder="—",
)
