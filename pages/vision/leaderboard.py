"""Vision leaderboard: our measurements only, one task and one device per ranking."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.vision import charts
from analytics.vision import evidence as evidence_module
from analytics.vision import runs as vision
from measure.adapters.base import RANDOM_WEIGHTS_REASON
from ui import format as fmt
from ui import vision as loaders
from ui.llm import table_height
from ui.params import pick

KEYS = "vision_lb"  # widget-key prefix of this page

NO_RANKING = {
    "object-detection": (
        "Nothing is ranked for object-detection on {device} yet: the COCO detectors' published "
        "weights ship in no package that installs offline, so the only runs are code-path tests "
        "on random weights, which are never ranked."
    ),
}  # tasks whose empty ranking has a known cause, one sentence each


RANKING_COLUMNS = {
    "Rank": fmt.count_column("Rank"),
    "Median latency (ms, ours)": fmt.number_column("Median latency (ms, ours)", 2),
    "p90 latency (ms, ours)": fmt.number_column("p90 latency (ms, ours)", 2),
    "Memory peak (MiB, ours)": fmt.number_column("Memory peak (MiB, ours)", 1),
    "AP (ours)": fmt.number_column("AP (ours)", 3),
    "AP50 (ours)": fmt.number_column("AP50 (ours)", 3),
}  # fixed decimals per column of the ranking (one rule: ui.format)
EXCLUDED_COLUMNS = {
    "Median latency (ms)": fmt.number_column("Median latency (ms)", 2),
    "Why not ranked": st.column_config.TextColumn("Why not ranked", width="large"),
}


def _why_nothing_ranked(task: str, device: str, excluded: pd.DataFrame) -> str:
    """One sentence: why ``task`` has no rankable run on ``device``."""
    code_path_only = (
        excluded.empty
        or excluded["why_not_ranked"].str.contains(RANDOM_WEIGHTS_REASON, regex=False).all()
    )
    where = f"{fmt.task_name(task).lower()} on {fmt.device_text(device)}"
    if task in NO_RANKING and code_path_only:
        return NO_RANKING[task].format(device=fmt.device_text(device))
    if excluded.empty:
        return (
            f"Nothing is ranked for {where} yet: no run of it is stored on this "
            "device (measure one with `python -m measure run --adapter NAME`)."
        )
    return (
        f"Nothing is ranked for {where}: {fmt.plural(len(excluded), 'stored run', 'are')} "
        "left out, each with its reason below."
    )


def _excluded_table(board: vision.Leaderboard, names: dict[str, str]) -> pd.DataFrame:
    """The runs left out, the adapter id shown as its model's name, times to the minute."""
    table = vision.excluded_table(board)
    return table.rename(columns={"Adapter": "Model"}).assign(
        Model=[fmt.name_of(names, a) for a in table["Adapter"]],
        **{"Measured (UTC)": [fmt.timestamp_text(t) for t in table["Measured (UTC)"]]},
    )


def _pareto(board: vision.Leaderboard, task: str, device: str):
    """The Pareto chart with the task and device named, readable on both themes."""
    fig = charts.pareto_figure(board, evidence)
    title = str(fig.layout.title.text or "")
    title = title.replace(
        f"{task} on {device}", f"{fmt.task_name(task)} on {fmt.device_text(device)}"
    )
    title = title.replace(" — ", "<br>")  # what the accuracy is on: a line of its own
    return fmt.readable(fig.update_layout(title=title), min_height=440)


def _download(frame: pd.DataFrame, label: str, name: str, key: str) -> None:
    st.download_button(
        label,
        frame.to_csv(index=False).encode(),
        file_name=name,
        mime="text/csv",
        key=key,
        disabled=frame.empty,
    )


catalog = loaders.catalog()
st.title("Vision leaderboard")
loaders.warn_damaged_runs()
st.caption(
    "Rankings and charts use only numbers we measured ourselves under one protocol (batch 1, "
    "3 runs x 100 timed calls, median and p90). Accuracy is AP on our own small labelled image "
    "set per task, not on COCO or another standard benchmark unless the chart names one. "
    "Author-reported figures sit beside ours, labelled. CPU and GPU results are never ranked "
    "together."
)
device_options = loaders.devices()
if not device_options:
    st.info("No measured runs are stored yet. Run `python -m measure run --adapter NAME`.")
    st.stop()
task = pick(
    "Task", sorted(catalog["task"].unique()), "task", key_prefix=KEYS, format_func=fmt.task_name
)
device = pick("Device", device_options, "device", key_prefix=KEYS, format_func=fmt.device_text)
names = fmt.names_from(catalog, "adapter", "display_name")
board = loaders.board(task, device)
evidence = loaders.accuracy_evidence(list(board.ranked.get("run_id", [])))
table = vision.ranking_table(board, evidence)
slug = f"{task}_{device.replace(': ', '_').replace(' ', '-')}"
if table.empty:
    st.info(_why_nothing_ranked(task, device, board.excluded))
else:
    st.dataframe(
        fmt.rounded(table, RANKING_COLUMNS), hide_index=True, key="vision_lb_table",
        placeholder="—", column_config={k: v for k, v in RANKING_COLUMNS.items() if k in table},
        height=table_height(len(table)),
    )
    _download(table, "Download ranking (CSV)", f"vision_ranking_{slug}.csv", "vision_lb_table_csv")
    st.plotly_chart(_pareto(board, task, device), key="vision_lb_chart")
    points = vision.pareto_points(board)
    benchmarks = sorted(set(points["benchmark"])) if not points.empty else []
    if evidence_module.sanity_only(evidence):
        st.caption(
            f"Accuracy here is a sanity check: the set has fewer than "
            f"{evidence_module.MIN_OBJECTS} objects, too few to rank or plot models by, so the "
            "chart shows latency alone and there is no Pareto front. The table gives each AP "
            "with the images and objects it rests on and a 95% bootstrap interval over images."
        )
    else:
        st.caption(
            f"Accuracy: {vision.accuracy_set_label(benchmarks)} "
            f"({'; '.join(benchmarks) or 'none'}). Latency: our median per predict() call. A "
            "model is on the Pareto front when no other model is both at least as fast and at "
            f"least as accurate. {len(points)} of {fmt.plural(len(table), 'ranked model')} "
            f"{fmt.verb_for(len(points), 'have')} an AP and {fmt.verb_for(len(points), 'are')} "
            "plotted."
        )
    fixes = board.ranked[board.ranked["runs_with_fixes"]]
    for _, row in fixes.iterrows():
        st.markdown(
            f":orange-badge[runs with fixes] **{row['display_name']}**: patch `{row['patch_url']}`"
        )
if not board.excluded.empty:  # no empty table: an empty ranking says why above
    st.subheader("Runs left out of this ranking")
    excluded = _excluded_table(board, names)
    st.dataframe(
        fmt.rounded(excluded, EXCLUDED_COLUMNS), hide_index=True, key="vision_lb_excluded",
        placeholder="—", column_config=EXCLUDED_COLUMNS, height=table_height(len(excluded)),
    )
    _download(excluded, "Download runs left out (CSV)", f"vision_left_out_{slug}.csv",
              "vision_lb_excluded_csv")
elif not table.empty:
    st.caption("No stored run on this device was left out of this ranking.")
st.subheader("Licences")
st.dataframe(
    vision.licence_table(catalog, task),
    hide_index=True,
    key="vision_lb_licences",
    placeholder="—",
    column_config={
        "Code licence text": st.column_config.LinkColumn("Code licence text", display_text="read"),
        "Weights model card": st.column_config.LinkColumn(
            "Weights model card", display_text="read"
        ),
    },
)
st.caption(vision.NOT_LEGAL_ADVICE)
