"""Biggest movers: the largest Elo gains from a model to its lineage successor."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

import ui.data
from analytics.llm import leaderboard
from ui import format as fmt
from ui import llm
from ui.params import VARIANTS, flag_param, int_param, one_of

COLUMNS = {
    "display_name": "Model",
    "release_date": st.column_config.DateColumn("Released"),
    "predecessor_name": "Predecessor",
    "predecessor_release_date": st.column_config.DateColumn("Predecessor released"),
    "predecessor_rating": fmt.elo_column("Predecessor Elo"),
    "rating": fmt.elo_column(),
    "gain": st.column_config.NumberColumn("Elo gain", format="%+.1f"),  # seed 002: to 0.1
}

st.title("Biggest movers")
st.caption(
    "Each model links to its nearest strictly-older model of the same product line and size "
    "class (Gemini Pro to Gemini Pro, a mid-size Gemma to a mid-size Gemma); models released "
    "the same day are size variants and have no predecessor. Movers are the largest positive "
    "Elo gains along those links, from a predecessor ranked in the same view (a gain from an "
    "unrated reference figure means nothing)."
)
version = ui.data.snapshot_version()
llm.show_freshness(version)
board = llm.load_board(version)
c1, c2, c3 = st.columns(3)
top = c1.slider("Show the top", 5, 100, int_param("top", 20, 5, 100), key="mv_top")
ranked_only = c2.toggle(
    "Only ranked successors", flag_param("ranked"), key="mv_ranked",
    help="Predecessors are always ranked; on: the successor must be ranked too.",
)
every = c3.toggle(
    "Every variant", one_of(*VARIANTS) == "all", key="mv_variants",
    help="Off: one row per checkpoint, as on the leaderboard. On: every setting apart.",
)
st.query_params.update(top=str(top), ranked="1" if ranked_only else "0")
if every:
    st.query_params["variants"] = "all"
else:
    st.query_params.pop("variants", None)
moves = leaderboard.movers(board, top=top, ranked_only=ranked_only, grouped=not every)
if moves.empty:
    st.info("No lineage link with a rating gain in this snapshot.")
    st.stop()
llm.show_table(
    moves, "mv_table", COLUMNS, columns=list(COLUMNS), csv=f"llm_movers_{version}.csv",
    width="stretch",
)
# two lines per bar label ("old →" over "new"): a phone keeps most of its width for the bars
labels = moves["predecessor_name"].astype(str) + " →<br>" + moves["display_name"].astype(str)
fig = px.bar(
    moves.assign(edge=labels), x="gain", y="edge", orientation="h",
    labels={"gain": "Elo gain (rating points)", "edge": ""},
)
fig.update_layout(
    yaxis={"autorange": "reversed", "automargin": True}, height=max(300, 40 * len(moves)),
    margin={"l": 10, "r": 10, "t": 30},
)
st.plotly_chart(fmt.readable(fig), key="mv_chart")
