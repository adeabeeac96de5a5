"""One run of a submission: accuracy, loss and simulated cost curves against the step."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from analytics.fl import board as flb
from ui import fl
from ui.params import pick

KEYS = "fl_detail"  # widget-key prefix of this page

board, index = fl.board(), fl.run_index()
st.title("Run detail")
if index.empty:
    st.info("No stored runs yet.")
    st.stop()

cols = st.columns(5)
with cols[0]:
    refs = set(board.policy.reference_methods)  # ranked methods first, references after
    methods = sorted(index["method"].unique(), key=lambda m: (m in refs, m))
    method = pick("Method", methods, "method", key_prefix=KEYS)
rows = index[index["method"] == method]
with cols[1]:
    model = pick("Model", sorted(rows["model"].unique()), "model", key_prefix=KEYS)
rows = rows[rows["model"] == model]
with cols[2]:
    protocol = pick("Protocol", sorted(rows["protocol"].unique()), "protocol", key_prefix=KEYS)
rows = rows[rows["protocol"] == protocol]
with cols[3]:
    dataset = pick("Dataset", sorted(rows["dataset"].unique()), "dataset", key_prefix=KEYS)
rows = rows[rows["dataset"] == dataset]
with cols[4]:
    condition = pick("Condition", sorted(rows["condition"].unique()), "condition", key_prefix=KEYS)

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
