"""Maintainers: start a measurement in its own process and follow its progress."""

from __future__ import annotations

import streamlit as st

from measure import launch, protocol
from ui import community, sweep_status
from ui import format as fmt
from ui import vision as loaders

st.title("Run a measurement")
community.require_maintainer("vision_run", neutral=True)
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
with st.form("vision_run_form"):
    device = st.text_input("Device (cpu, cuda or cuda:N)", "cpu", key="vision_run_device")
    runs = st.number_input("Runs", 1, 10, protocol.RUNS, key="vision_run_runs")
    warmup = st.number_input(
        "Warm-up calls", 0, 1000, protocol.WARMUP_CALLS, key="vision_run_warmup"
    )
    calls = st.number_input("Timed calls", 1, 10000, protocol.TIMED_CALLS, key="vision_run_calls")
    submitted = st.form_submit_button("Start")
if submitted:
    st.session_state["vision_run_job"] = launch.start(
        adapter, device, int(runs), int(warmup), int(calls)
    )


@st.fragment(run_every=1.0)
def _progress() -> None:
    job = st.session_state.get("vision_run_job")
    if job is None:
        st.caption("No measurement started in this session.")
        return
    state = launch.status(job)
    st.progress(
        min(1.0, state["done"] / max(1, state["total"])), text=f"{job.adapter}: {state['label']}"
    )
    if state["finished"]:
        st.write("finished" if state["exit_code"] == 0 else f"failed (exit {state['exit_code']})")
        st.code(state["output"] or "(no output)")


_progress()
sweep_status.section()
