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

quality = fl.metric_labels(curves[curves["metric"].isin(["accuracy", "loss"])])
costs = fl.metric_labels(curves[~curves["metric"].isin(["accuracy", "loss"])])
AXES = {"step": "Step", "value": "", "metric": ""}


def _facets(fig):
    """Facet titles are the metric's label with its unit (not 'metric=comm_bytes')."""
    fig.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    return fig.update_yaxes(matches=None, showticklabels=True)


st.plotly_chart(
    _facets(px.line(quality, x="step", y="value", facet_col="metric", markers=True, labels=AXES)),
    key="fl_quality_chart",
)
st.plotly_chart(
    _facets(px.line(costs, x="step", y="value", facet_col="metric", facet_col_wrap=2,
                    markers=True, labels=AXES)),
    key="fl_cost_chart",
)  # fmt: skip
table = curves.pivot(index="step", columns="metric", values="value")
fl.show_table(
    table, "fl_curve_table", {"_index": "Step"}, hide_index=False,
    csv=f"fl_run_{protocol}_{model}_{method}_{dataset}_{condition}.csv",
)  # fmt: skip
