"""Federated ranked track: final and Protocol A/B/C scores per method and model, with points."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from analytics.fl import board as flb


@st.cache_data(show_spinner="Validating and scoring submissions…")
def _board(version: str) -> flb.Board:
    return flb.load_board()


def _pick(label: str, options: list[str], key: str) -> str:
    """A selectbox whose choice is mirrored in the URL (shareable)."""
    wanted = st.query_params.get(key)
    index = options.index(wanted) if wanted in options else 0
    choice = st.selectbox(label, options, index=index, key=f"fl_ranked_{key}")
    st.query_params[key] = choice
    return choice


TWO_DECIMALS = {
    c: st.column_config.NumberColumn(c, format="%.2f") for c in ("A", "B", "C", "final")
}

board = _board(flb.data_version())
st.title("Federated ranked track")
st.caption(
    "Scores combine checkpoint quality with system costs from the common simulator "
    "(final = (A + B + C) / 3; a missing protocol counts 0). The API keeps four decimals; "
    "two are shown here, so equal-looking values can differ. Local Only and Centralized are "
    "references, shown apart and never ranked."
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
model = _pick("Model", list(board.policy.models), "model")
st.dataframe(
    flb.leaderboard(board, model),
    hide_index=True,
    column_config=TWO_DECIMALS,
    key="fl_per_model",
    placeholder="—",
)

st.subheader("Points per comparison")
if board.methods:
    method = _pick("Method", board.methods, "method")
    protocol = _pick("Protocol", ["A", "B", "C"], "protocol")
    st.dataframe(
        flb.breakdown(board, method, protocol), hide_index=True, key="fl_breakdown", placeholder="—"
    )

st.subheader("Reference baselines (not ranked)")
st.dataframe(board.scores.references, hide_index=True, key="fl_references", placeholder="—")

if board.problems:
    with st.expander(f"{len(board.problems)} stored submissions were skipped"):
        for line in board.problems:
            st.text(line)
