"""One vision model: its runs, call-time histogram, memory trace, accuracy, licences, review."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.vision import charts
from analytics.vision import runs as vision
from measure.community.inbox import InboxError
from ui import community, params
from ui import format as fmt
from ui import vision as loaders
from ui.llm import table_height

RUN_COLUMNS = {
    "Median latency (ms)": fmt.number_column("Median latency (ms)", 2),
    "p90 latency (ms)": fmt.number_column("p90 latency (ms)", 2),
    "Spread of run medians (fraction)": fmt.number_column("Spread of run medians (fraction)", 3),
    "Memory peak above idle (MiB)": fmt.number_column("Memory peak above idle (MiB)", 1),
    "Memory sampling interval, median (ms)": fmt.number_column(
        "Memory sampling interval, median (ms)", 2
    ),
    "Why not ranked": st.column_config.TextColumn("Why not ranked", width="large"),
}  # fixed decimals per column of the runs table (one rule: ui.format)
ACCURACY_COLUMNS = {"AP": fmt.number_column("AP", 3), "AP50": fmt.number_column("AP50", 3)}
OUTPUT_COLUMNS = {"Score": fmt.number_column("Score", 3)}


def runs_table(view: vision.ModelView) -> pd.DataFrame:
    """Our runs with times to the minute and the device kind as CPU / GPU."""
    table = vision.model_runs_table(view)
    return table.assign(
        **{
            "Measured (UTC)": [fmt.timestamp_text(t) for t in table["Measured (UTC)"]],
            "Device kind": table["Device kind"].astype(str).str.upper(),
        }
    )


def community_results_section(adapter: str) -> None:
    """HOOK: "Community results" (accepted community runs) is added here by its own helper.

    It must never replace or mix with our measured figures above (seed 000, Community results).
    """
    community.community_section(adapter)


def _header(meta: pd.Series) -> None:
    st.title(meta["display_name"])
    if meta["runs_with_fixes"]:
        st.markdown(f":orange-badge[runs with fixes] patch: `{meta['patch_url']}`")
    st.markdown(
        f"Code: [{meta['code_repo']}]({meta['code_repo']}) — licence {meta['code_licence']} "
        f"(read {meta['code_licence_read_on']}). Weights: {meta['checkpoint']} — licence "
        f"{meta['weights_licence']} (read {meta['weights_licence_read_on']}). "
        f"**Verdict:** {meta['licence_verdict']}. Default input size: {meta['default_input_size']}."
    )
    st.caption(vision.NOT_LEGAL_ADVICE)


def _charts(view: vision.ModelView, run_id: str) -> None:
    if not view.calls.empty:
        hist = fmt.readable(charts.latency_histogram(view.calls), min_height=400)
        st.plotly_chart(hist, key="vision_model_hist")
    if not view.memory.empty:
        baselines, problem = loaders.memory_baselines(run_id)
        memory = fmt.readable(charts.memory_figure(view.memory, baselines), min_height=420)
        st.plotly_chart(memory, key="vision_model_memory")
        if problem:
            st.caption(f"Idle baseline not shown: {problem}")
        elif baselines.empty:
            st.caption("Idle baseline not shown: no stored record for this run.")
        else:
            st.caption(
                "The reported memory peak is the highest sample minus the idle baseline taken "
                "before the model was loaded, taken from the run where that rise is "
                "largest."
            )


def _review(run_id: str) -> None:
    """Our outputs for hand review, with the stored failure marks, reviewer and date beside each;
    only a signed-in maintainer can mark and save failures."""
    st.subheader("Outputs on the shared inputs (hand review)")
    outputs = loaders.outputs(run_id)
    if outputs.empty:
        st.caption("No detection above the task's score threshold for this run.")
        return
    state = vision.review_state(outputs)
    (st.info if state == "not reviewed yet" else st.caption)(f"Review: {state}.")
    trail, vouched = loaders.review_trail_line(run_id)
    if trail:
        (st.caption if vouched else st.warning)(trail)
    table = vision.review_table(outputs)
    who = community.maintainer_or_none("vision_review")
    if who is None:
        st.dataframe(
            fmt.rounded(table, OUTPUT_COLUMNS), hide_index=True, key=f"vision_review_{run_id}",
            placeholder="—", column_config=OUTPUT_COLUMNS, height=table_height(len(table)),
        )
        st.caption("Failure marks are set by maintainers: sign in to edit them.")
        return
    editable = [vision.COLUMN_LABELS[c] for c in ("failure", "note")]
    edited = st.data_editor(
        table,
        hide_index=True,
        key=f"vision_review_{run_id}",
        disabled=[c for c in table.columns if c not in editable],
    )
    if st.button("Save review", key="vision_review_save"):
        marks = edited.rename(columns=vision.raw_name)
        try:
            path = loaders.save_review(run_id, marks, who)
        except InboxError as exc:
            st.error(f"Not saved: {exc}")
            return
        marked = int(marks["failure"].sum())
        st.success(f"Saved {marked} failure marks to {path.name} as {who.name}")


catalog = loaders.catalog()
loaders.warn_damaged_runs()
names = list(catalog["adapter"])
display = fmt.names_from(catalog, "adapter", "display_name")
adapter = st.selectbox(
    "Model", names, key="vision_model_pick", format_func=lambda a: fmt.name_of(display, a),
    index=params.index_of(names, "model", names[0], label_of=lambda a: fmt.name_of(display, a)),
)
st.query_params["model"] = adapter
_header(catalog.set_index("adapter").loc[adapter])
view = loaders.model_view(adapter, None)
if view.runs.empty:
    st.info("Not measured yet.")
else:
    runs = view.runs
    st.subheader("Our runs")
    st.dataframe(
        fmt.rounded(runs_table(view), RUN_COLUMNS), hide_index=True, key="vision_model_runs",
        placeholder="—", column_config=RUN_COLUMNS, height=table_height(len(runs)),
    )
    run_ids = list(runs["run_id"])
    chosen = st.selectbox(
        "Run", run_ids, index=params.index_of(run_ids, "run", run_ids[0]), key="vision_model_run"
    )
    st.query_params["run"] = chosen
    view = loaders.model_view(adapter, chosen)
    _charts(view, chosen)
    st.subheader("Accuracy: ours first, the authors' beside it")
    accuracy = vision.accuracy_table(view, loaders.accuracy_evidence(run_ids))
    st.dataframe(
        fmt.rounded(accuracy, ACCURACY_COLUMNS), hide_index=True, key="vision_model_acc",
        placeholder="—", column_config=ACCURACY_COLUMNS, height=table_height(len(accuracy)),
    )
    _review(chosen)
community_results_section(adapter)
