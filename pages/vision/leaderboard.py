"""Vision leaderboard: our measurements only, one task and one device per ranking."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from analytics.vision import runs as vision
from ui import vision as loaders
from ui.params import pick

KEYS = "vision_lb"  # widget-key prefix of this page


def _chart(board: vision.Leaderboard) -> go.Figure:
    r = board.ranked
    fig = go.Figure()
    fig.add_bar(name="median", x=r["display_name"], y=r["median_ms"])
    fig.add_bar(name="p90", x=r["display_name"], y=r["p90_ms"])
    fig.update_layout(
        barmode="group",
        yaxis_title="latency per predict() call, ms (ours)",
        title=f"{board.task} on {board.device}",
    )
    return fig


catalog = loaders.catalog()
st.title("Vision leaderboard")
st.caption(
    "Rankings and charts use only numbers we measured ourselves under one protocol (batch 1, "
    "3 runs x 100 timed calls, median and p90). Author-reported figures sit beside ours, "
    "labelled. CPU and GPU results are never ranked together."
)
device_options = loaders.devices()
if not device_options:
    st.info("No measured runs are stored yet. Run `python -m measure run --adapter NAME`.")
    st.stop()
task = pick("Task", sorted(catalog["task"].unique()), "task", key_prefix=KEYS)
device = pick("Device", device_options, "device", key_prefix=KEYS)
board = loaders.board(task, device)
table = vision.ranking_table(board)
if table.empty:
    st.info(f"No rankable run for {task} on {device}; see the runs left out below.")
else:
    st.dataframe(table, hide_index=True, key="vision_lb_table", placeholder="—")
    st.plotly_chart(_chart(board), key="vision_lb_chart")
    fixes = board.ranked[board.ranked["runs_with_fixes"]]
    for _, row in fixes.iterrows():
        st.markdown(
            f":orange-badge[runs with fixes] **{row['display_name']}**: patch `{row['patch_url']}`"
        )
st.subheader("Runs left out of this ranking")
st.dataframe(board.excluded, hide_index=True, key="vision_lb_excluded", placeholder="—")
st.subheader("Licences")
licences = catalog[catalog["task"] == task][
    [
        "display_name",
        "code_licence",
        "code_licence_read_on",
        "weights_licence",
        "weights_licence_read_on",
        "licence_verdict",
    ]
]
st.dataframe(licences, hide_index=True, key="vision_lb_licences", placeholder="—")
st.caption(vision.NOT_LEGAL_ADVICE)
