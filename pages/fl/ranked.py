"""Federated ranked track: final and Protocol A/B/C scores per method and model, with points."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from analytics.fl import board as flb
from analytics.fl import review
from ui import fl
from ui.params import pick

KEYS = "fl_ranked"  # widget-key prefix of this page

TWO_DECIMALS = {
    c: st.column_config.NumberColumn(c, format="%.2f") for c in ("A", "B", "C", "final")
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
st.dataframe(
    overall, hide_index=True, column_config=TWO_DECIMALS, key="fl_overall", placeholder="—"
)
long = overall.melt(id_vars="method", value_vars=["A", "B", "C", "final"], var_name="score")
st.plotly_chart(
    px.bar(long, x="method", y="value", color="score", barmode="group"), key="fl_scores_chart"
)

st.subheader("Per model")
model = pick("Model", list(board.policy.models), "model", key_prefix=KEYS)
st.dataframe(
    flb.leaderboard(board, model),
    hide_index=True,
    column_config=TWO_DECIMALS,
    key="fl_per_model",
    placeholder="—",
)

st.subheader("Points per comparison")
if board.methods:
    method = pick("Method", board.methods, "method", key_prefix=KEYS)
    protocol = pick("Protocol", ["A", "B", "C"], "protocol", key_prefix=KEYS)
    st.dataframe(
        flb.breakdown(board, method, protocol), hide_index=True, key="fl_breakdown", placeholder="—"
    )

st.subheader("Reference baselines (not ranked)")
st.dataframe(board.scores.references, hide_index=True, key="fl_references", placeholder="—")

st.subheader("Unverified uploads (not ranked)")
unverified = flb.uploads_table(board, (review.UNVERIFIED,))
if unverified.empty:
    st.caption("No uploads are waiting for a maintainer's review.")
else:
    st.caption("Received, awaiting a maintainer's review: self-reported, no rank, no points.")
    st.dataframe(
        unverified.drop(columns=["decided_by", "decided_utc"]),
        hide_index=True,
        key="fl_unverified",
        placeholder="—",
    )

if board.problems:
    with st.expander(f"{len(board.problems)} stored submissions were skipped"):
        for line in board.problems:
            st.text(line)
