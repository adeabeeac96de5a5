"""One run of a submission: accuracy, loss and simulated cost curves against the step, one chart
per metric (two per row on a wide screen, one per row on a phone), each in its own unit."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from analytics.fl import board as flb
from ui import fl
from ui import format as fmt
from ui.params import pick

KEYS = "fl_detail"  # widget-key prefix of this page

HOW_TO_READ = (
    "**How to read this.** Each chart follows one run (one method, model, protocol, dataset and "
    "condition) over its evaluated checkpoints: the x axis is the checkpoint step, one per "
    "federated round. Accuracy and loss are on the dataset's held-out test split (higher "
    "accuracy and lower loss are better; an upload's are self-reported). The four cost charts "
    "are cumulative simulated costs of the common simulator up to that checkpoint: wall time "
    "(each round lasts as long as its slowest client), bytes sent and received and energy "
    "summed over the participating clients, and the largest client memory so far; a steeper "
    "line is a costlier round. Protocol A scores the best checkpoint, B the first one "
    "reaching each accuracy target, C how far a perturbed run's best checkpoint moves from the "
    "nominal run's."
)
QUALITY = ["accuracy", "loss"]
COSTS = ["time_s", "comm_bytes", "energy_j", "peak_mem_bytes"]
STEP_AXIS = "Checkpoint step (federated round)"


def metric_chart(curves: pd.DataFrame, metric: str) -> go.Figure:
    """One metric against the step, in one unit named in the axis title (costs from zero)."""
    rows = curves[curves["metric"] == metric]
    scale = fl.metric_scale(metric, rows["value"])
    y = rows["value"].astype(float) if scale is None else scale.apply(rows["value"])
    title = fl.metric_title(metric, rows["value"])
    fig = px.line(x=rows["step"], y=y, markers=True, labels={"x": STEP_AXIS, "y": title})
    fig.update_layout(title=title, margin={"t": 40, "l": 10, "r": 10})
    if metric in COSTS:
        fig.update_yaxes(rangemode="tozero")
    return fmt.readable(fig, min_height=300)


board, index = fl.board(), fl.run_index()
st.title("Run detail")
if index.empty:
    st.info("No stored runs yet.")
    st.stop()

top = st.columns(3)
with top[0]:
    refs = set(board.policy.reference_methods)  # ranked methods first, references after
    methods = sorted(index["method"].unique(), key=lambda m: (m in refs, m))
    method = pick("Method", methods, "method", key_prefix=KEYS)
rows = index[index["method"] == method]
with top[1]:
    model = pick("Model", sorted(rows["model"].unique()), "model", key_prefix=KEYS,
                 format_func=fmt.fl_model_name)
rows = rows[rows["model"] == model]
with top[2]:
    protocol = pick("Protocol", sorted(rows["protocol"].unique()), "protocol", key_prefix=KEYS,
                    format_func=fmt.protocol_name)
rows = rows[rows["protocol"] == protocol]
bottom = st.columns(2)
with bottom[0]:
    dataset = pick("Dataset", sorted(rows["dataset"].unique()), "dataset", key_prefix=KEYS,
                   format_func=fmt.fl_dataset_name)
rows = rows[rows["dataset"] == dataset]
with bottom[1]:
    condition = pick("Condition", sorted(rows["condition"].unique()), "condition",
                     key_prefix=KEYS, format_func=fmt.fl_condition_name)
st.markdown(HOW_TO_READ)

curves = flb.run_curves(board, protocol, model, method, dataset, condition)
if curves.empty:
    status = rows[rows["condition"] == condition]["status"].iloc[0]
    st.warning(f"This run has no checkpoints (status: {status}).")
    st.stop()

for pair in (QUALITY, COSTS[:2], COSTS[2:]):  # two per row; one per row at phone width
    for column, metric in zip(st.columns(2), pair, strict=True):
        with column:
            st.plotly_chart(metric_chart(curves, metric), key=f"fl_chart_{metric}")
wide = curves.pivot(index="step", columns="metric", values="value")
table, config = fl.metric_table(wide, [*QUALITY, *COSTS])
fl.show_table(
    table[[*QUALITY, *COSTS]], "fl_curve_table", config | {"_index": "Step"}, hide_index=False,
    csv=f"fl_run_{protocol}_{model}_{method}_{dataset}_{condition}.csv",
)
