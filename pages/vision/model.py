"""One vision model: its runs, call-time histogram, memory trace, accuracy, licences, review."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from analytics.vision import runs as vision
from measure.community.inbox import InboxError
from ui import community
from ui import vision as loaders


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


def _charts(view: vision.ModelView) -> None:
    if not view.calls.empty:
        fig = px.histogram(
            view.calls,
            x="latency_ms",
            color=view.calls["run_index"].astype(str),
            nbins=60,
            labels={"color": "run"},
            title="Timed predict() calls, ms (ours)",
        )
        st.plotly_chart(fig, key="vision_model_hist")
    if not view.memory.empty:
        fig = px.line(
            view.memory,
            x="t_s",
            y="used_mib",
            color=view.memory["run_index"].astype(str),
            labels={"color": "run", "t_s": "seconds since sampler start"},
            title=f"Memory trace ({view.memory['kind'].iloc[0].upper()}, MiB)",
        )
        st.plotly_chart(fig, key="vision_model_memory")


def _review(run_id: str) -> None:
    """Our outputs for hand review; only a signed-in maintainer can mark and save failures."""
    st.subheader("Outputs on the shared inputs (hand review)")
    outputs = loaders.outputs(run_id)
    if outputs.empty:
        st.caption("No detection above the task's score threshold for this run.")
        return
    cols = ["output_index", "input_name", "x", "y", "w", "h", "score", "failure", "note"]
    who = community.maintainer_or_none("vision_review")
    if who is None:
        st.dataframe(outputs[cols], hide_index=True, key=f"vision_review_{run_id}")
        st.caption("Failure marks are set by maintainers: sign in to edit them.")
        return
    edited = st.data_editor(
        outputs[cols], hide_index=True, key=f"vision_review_{run_id}", disabled=cols[:-2]
    )
    if st.button("Save review", key="vision_review_save"):
        try:
            path = loaders.save_review(run_id, edited, who)
        except InboxError as exc:
            st.error(f"Not saved: {exc}")
            return
        marked = int(edited["failure"].sum())
        st.success(f"Saved {marked} failure marks to {path.name} as {who.name}")


catalog = loaders.catalog()
names = list(catalog["adapter"])
wanted = st.query_params.get("model")
adapter = st.selectbox(
    "Model", names, index=names.index(wanted) if wanted in names else 0, key="vision_model_pick"
)
st.query_params["model"] = adapter
_header(catalog.set_index("adapter").loc[adapter])
view = loaders.model_view(adapter, st.query_params.get("run"))
if view.runs.empty:
    st.info("Not measured yet.")
else:
    runs = view.runs
    st.subheader("Our runs")
    st.dataframe(
        runs[
            [
                "run_id",
                "created_utc",
                "device_kind",
                "device_name",
                "precision",
                "median_ms",
                "p90_ms",
                "run_spread",
                "memory_kind",
                "memory_peak_mib",
                "sampler_interval_median_ms",
                "sampler_ok",
                "why_not_ranked",
            ]
        ],
        hide_index=True,
        key="vision_model_runs",
        placeholder="—",
    )
    run_ids = list(runs["run_id"])
    chosen = st.selectbox("Run", run_ids, key="vision_model_run")
    st.query_params["run"] = chosen
    view = loaders.model_view(adapter, chosen)
    _charts(view)
    st.subheader("Accuracy: ours first, the authors' beside it")
    st.dataframe(
        vision.accuracy_vs_paper(view), hide_index=True, key="vision_model_acc", placeholder="—"
    )
    _review(chosen)
community_results_section(adapter)
