"""Maintainers: start a measurement in its own process and follow its progress.

One measurement at a time per runs folder (``measure.run_jobs``): the job lives on disk, so a
reload or another browser sees it; Cancel ends it and everything it started."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from measure import protocol, run_jobs
from ui import community, sweep_status
from ui import format as fmt
from ui import vision as loaders
from ui.llm import table_height

st.title("Run a measurement")
who = community.require_maintainer("vision_run", neutral=True)
catalog = loaders.catalog()
names = fmt.names_from(catalog, "adapter", "display_name")
adapter = st.selectbox(
    "Adapter", list(catalog["adapter"]), key="vision_run_adapter",
    format_func=lambda a: f"{fmt.name_of(names, a)} ({a})",  # the id is what the CLI takes
)
missing = loaders.missing_extras(adapter)
if missing:
    st.warning(
        f"{fmt.name_of(names, adapter)} needs packages that are not installed here: "
        f"{', '.join(spec for spec, _ in missing)}. Install them in this Python environment:"
    )
    for command in dict.fromkeys(command for _, command in missing):
        st.code(command, language="bash")

running = run_jobs.holder()
if running is None:  # a second of other processes' CPU use, by the protocol's disturbance rule
    other = run_jobs.other_cpu_percent(1.0)
    limit = protocol.MAX_OTHER_CPU_PERCENT
    if other > limit:
        st.warning(
            f"This machine is busy: other processes used {other:.0f}% of all CPU capacity over "
            f"the last second. The protocol discards a run in which they use more than "
            f"{limit:g}%, so a measurement started now would probably be discarded."
        )
    else:
        st.caption(f"Other processes used {other:.0f}% of all CPU capacity over the last second "
                   f"(the protocol discards a run above {limit:g}%).")

with st.form("vision_run_form"):
    device = st.text_input("Device (cpu, cuda or cuda:N)", "cpu", key="vision_run_device")
    runs = st.number_input("Runs", 1, 10, protocol.RUNS, key="vision_run_runs")
    warmup = st.number_input(
        "Warm-up calls", 0, 1000, protocol.WARMUP_CALLS, key="vision_run_warmup"
    )
    calls = st.number_input("Timed calls", 1, 10000, protocol.TIMED_CALLS, key="vision_run_calls")
    submitted = st.form_submit_button("Start")
if submitted:
    try:
        run_jobs.start(adapter, device, int(runs), int(warmup), int(calls), owner=who.name)
    except run_jobs.BusyError as exc:
        st.error(f"Not started: {exc}")


@st.fragment(run_every=1.0)
def _progress() -> None:
    job = run_jobs.latest()  # the running one, whoever started it; else the last one's outcome
    if job is None:
        st.caption("No measurement started from this runs folder yet.")
        return
    state = run_jobs.status(job)
    left = state["left_s"]
    text = (
        f"{job.adapter} on {job.device}, started by {job.owner} at {job.started_utc}: "
        f"{state['phase']} · {state['calls_done']:,} of {state['calls_total']:,} calls"
        + (f" · about {fmt.duration_text(left)} left" if left is not None else "")
    )
    st.progress(min(1.0, state["calls_done"] / max(1, state["calls_total"])), text=text)
    if not state["finished"]:
        if st.button("Cancel", key="vision_run_cancel"):
            run_jobs.cancel(job, who.name)
            st.rerun()
        return
    outcome = state["status"]
    if outcome == run_jobs.CANCELLED:
        st.warning(f"Cancelled by {state.get('cancelled_by')} at {state.get('ended_utc')}.")
    elif outcome == run_jobs.FINISHED:
        st.success(f"Finished: run {state.get('run_id')}.")
    else:
        st.error(f"Failed: {state.get('error') or 'see the output below'}")
    st.code(state["output"] or "(no output)")


_progress()
st.subheader("Recent measurements")
recent = pd.DataFrame(run_jobs.recent())
if recent.empty:
    st.caption("None started from this runs folder yet.")
else:
    shown = [c for c in ("started_utc", "owner", "adapter", "device", "status", "ended_utc",
                         "cancelled_by", "run_id", "error") if c in recent]
    st.dataframe(recent[shown], hide_index=True, key="vision_run_recent", placeholder="",
                 height=table_height(len(recent)))
sweep_status.section()
