"""Compare up to four LLMs on their category capability profiles (not a ranking)."""

from __future__ import annotations

import streamlit as st

import ui.data
from analytics.llm import profiles
from ui import llm
from ui.params import multi_param

st.title("Compare models")
st.caption(
    f"{profiles.PROFILE_LABEL}. Each axis is the mean of the model's headline scores in that "
    "category, each placed between the benchmark's curated lower (0) and upper (100) bound; an "
    "empty axis means no score there, not zero. For the ranking, see the Elo leaderboard."
)
version = ui.data.snapshot_version()
llm.show_freshness(version)
board = llm.load_board(version)
names = dict(zip(board.table["model_id"], board.table["display_name"], strict=True))
ids = list(names)
wanted = multi_param("models", ids)
most = profiles.MAX_RADAR_MODELS
chosen = st.multiselect(
    f"Models (up to {most})", ids, default=wanted[:most] or ids[:2], max_selections=most,
    format_func=lambda m: names[m], key="cmp_models",
)  # fmt: skip
st.query_params["models"] = chosen
if not chosen:
    st.info("Pick at least one model.")
    st.stop()
radar = profiles.radar_data(board.profiles, chosen)
st.plotly_chart(profiles.radar_figure(radar, names), key="cmp_radar")
table = radar.pivot(index="category", columns="model", values="value")[chosen]
st.dataframe(table.rename(columns=names), key="cmp_table", placeholder="—")
ratings = board.table.set_index("model_id").loc[chosen, ["rating", "rank", "provenance"]]
st.caption("Elo ratings of the same models, for reference (ranks are of the whole leaderboard):")
st.dataframe(ratings.rename(index=names), key="cmp_ratings", placeholder="—")
