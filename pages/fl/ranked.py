"""Federated ranked track: final and Protocol A/B/C scores per method and model, with points."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from analytics.fl import board as flb
from analytics.fl import review
from ui import fl
from ui.params import pick

KEYS = "fl_ranked"  # widget-key prefix of this page

SCORES = {
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "method": "Method",
    **{
        p: st.column_config.NumberColumn(f"Protocol {p}", format="%.2f", help=help_text)
        for p, help_text in (
            ("A", "Checkpoint quality: accuracy and loss of the best checkpoint."),
            ("B", "Efficiency: simulated costs to reach each accuracy target."),
            ("C", "Robustness: the A-selected checkpoint under perturbed conditions."),
        )
    },
    "final": st.column_config.NumberColumn("Final score", format="%.2f", help="(A + B + C) / 3"),
}
BREAKDOWN = {
    "protocol": "Protocol",
    "model": "Model",
    "dataset": "Dataset",
    "condition": "Condition",
    "metric": "Metric",
    "value": st.column_config.NumberColumn("Value", format="%.4g"),
    "n": st.column_config.NumberColumn("Methods compared", format="%d"),
    "rank": st.column_config.NumberColumn("Rank", format="%d"),
    "points": st.column_config.NumberColumn("Points", format="%.2f"),
}
COSTS = {
    "accuracy": st.column_config.NumberColumn("Accuracy (0-1)", format="%.4f"),
    "loss": st.column_config.NumberColumn("Loss", format="%.4f"),
    "time_s": st.column_config.NumberColumn("Simulated time (s)", format="%.4g"),
    "comm_bytes": st.column_config.NumberColumn("Communication (bytes)", format="%.4g"),
    "energy_j": st.column_config.NumberColumn("Simulated energy (J)", format="%.4g"),
    "peak_mem_bytes": st.column_config.NumberColumn("Peak memory (bytes)", format="%.4g"),
}

board = fl.board()
st.title("Federated ranked track")
st.caption(
    "Scores combine checkpoint quality with system costs from the common simulator "
    "(final = (A + B + C) / 3; a missing protocol counts 0). The API keeps four decimals; "
    "two are shown here, so equal-looking values can differ. Local Only and Centralized are "
    "references, shown apart and never ranked. Only our reference runs and uploads a "
    "maintainer accepted are scored; unverified uploads are listed at the bottom."
)

st.subheader("Overall ranking")
overall = flb.leaderboard(board)
fl.show_table(overall, "fl_overall", SCORES, csv="fl_ranking.csv")
long = overall.melt(id_vars="method", value_vars=["A", "B", "C", "final"], var_name="score")
long["score"] = long["score"].map({"A": "Protocol A", "B": "Protocol B", "C": "Protocol C",
                                   "final": "Final score"})  # fmt: skip
st.plotly_chart(
    px.bar(
        long, x="method", y="value", color="score", barmode="group",
        labels={"method": "Method", "value": "Score (points)", "score": ""},
    ),
    key="fl_scores_chart",
)  # fmt: skip

st.subheader("Per model")
model = pick("Model", list(board.policy.models), "model", key_prefix=KEYS)
fl.show_table(flb.leaderboard(board, model), "fl_per_model", SCORES, csv=f"fl_ranking_{model}.csv")

st.subheader("Points per comparison")
if board.methods:
    method = pick("Method", board.methods, "method", key_prefix=KEYS)
    protocol = pick("Protocol", ["A", "B", "C"], "protocol", key_prefix=KEYS)
    fl.show_table(
        fl.metric_labels(flb.breakdown(board, method, protocol)), "fl_breakdown", BREAKDOWN,
        csv=f"fl_points_{method}_{protocol}.csv",
    )  # fmt: skip

st.subheader("Reference baselines (not ranked)")
fl.show_table(board.scores.references, "fl_references", COSTS, csv="fl_references.csv")

st.subheader("Unverified uploads (not ranked)")
unverified = flb.uploads_table(board, (review.UNVERIFIED,))
if unverified.empty:
    st.caption("No uploads are waiting for a maintainer's review.")
else:
    st.caption("Received, awaiting a maintainer's review: self-reported, no rank, no points.")
    fl.show_table(unverified.drop(columns=["decided_by", "decided_utc"]), "fl_unverified")

if board.problems:
    with st.expander(f"{len(board.problems)} stored submissions were skipped"):
        for line in board.problems:
            st.text(line)
