"""Review inbox (maintainers): queued community bundles beside our own numbers; accept or reject."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from measure.community import auth, inbox, status
from measure.community.validate import BundleError
from ui import community, params
from ui import format as fmt

QUEUE_COLUMNS = [
    "id",
    "github",
    "display_name",
    "gpu",
    "precision",
    "median_ms",
    "our_median_ms",
    "power_limited",
    "received_utc",
]

AUDIT_COLUMNS = ["time_utc", "maintainer", "action", "bundle_id", "run_id", "reason"]

DECIDED_COLUMNS = [
    "id", "status", "github", "display_name", "gpu", "decided_by", "decided_utc", "reason",
]

LABELS = {
    "id": "Bundle",
    "github": "Contributor (GitHub)",
    "display_name": "Model",
    "gpu": "GPU",
    "precision": "Precision",
    "median_ms": "Median latency (ms, submitted)",
    "our_median_ms": "Median latency (ms, ours)",
    "power_limited": "Power-limited",
    "received_utc": "Received (UTC)",
    "flags": "Flags",
    "status": "Status",
    "decided_by": "Decided by",
    "decided_utc": "Decided (UTC)",
    "reason": "Reason",
    "time_utc": "Time (UTC)",
    "maintainer": "Maintainer",
    "action": "Action",
    "bundle_id": "Bundle",
    "run_id": "Run ID",
}  # human headers of this page's tables (the inbox entries' raw keys are never shown)

FIGURES = {
    "median_ms": "median latency (ms)",
    "p90_ms": "p90 latency (ms)",
    "run_spread": "spread of run medians (fraction)",
    "vram_peak_mib": "VRAM peak above idle (MiB)",
}
COMPARISON = {
    "figure": "Figure",
    "submitted": "Submitted",
    "recomputed": "Recomputed from the calls",
    "ours": "Ours (same GPU and precision)",
}


# fixed decimals of the queue's numeric columns (one rule: ui.format)
NUMBER_COLUMNS = {
    LABELS[c]: fmt.number_column(LABELS[c], 2) for c in ("median_ms", "our_median_ms")
} | {LABELS["flags"]: fmt.count_column(LABELS["flags"])}


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.rename(columns=LABELS)


def _queue(entries: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(entries, columns=[*QUEUE_COLUMNS, "flags"])
    return frame.assign(flags=frame["flags"].map(len))


def _detail(review: inbox.Review) -> None:
    v, entry = review.validated, review.entry
    st.markdown(
        f"**{entry['display_name']}** on **{entry['gpu']}** ({entry['precision']}, input "
        f"{entry['input_size']}) by [{entry['github']}](https://github.com/{entry['github']}), "
        f"measured {entry['measured_utc']}, tool commit `{v.record['tool'].get('git_commit')}`"
    )
    table = status.comparison_table(v.record, v.recomputed, v.our_run)
    table = table.assign(figure=table["figure"].map(FIGURES).fillna(table["figure"]))
    st.dataframe(
        table.rename(columns=COMPARISON), hide_index=True, key="review_compare", placeholder="—"
    )
    if v.our_run is None:
        st.caption("We have no measurement of this model on this GPU and precision.")
    for flag in v.flags:
        st.warning(f"{flag.code}: {flag.message}")
    if not v.flags:
        st.caption("No flags: the call times look plausible and the GPU was not power-limited.")


def _act(action, *args) -> None:
    """Run accept/reject; keep the outcome (or the one-line refusal) for the next rerun."""
    try:
        entry = action(*args)
    except (BundleError, inbox.InboxError) as exc:
        st.session_state["review_message"] = (False, str(exc))
    else:
        st.session_state["review_message"] = (True, f"{entry['status'].title()} {entry['id']}.")
    st.rerun()


def _decide(bundle_id: str, who: auth.Maintainer, can_accept: bool) -> None:
    left, right = st.columns(2)
    if left.button("Accept", key="review_accept", type="primary", disabled=not can_accept):
        _act(inbox.accept, bundle_id, who)
    reason = right.text_input("Reason for rejecting (the contributor sees it)", key="review_reason")
    if right.button("Reject", key="review_reject", disabled=not reason.strip()):
        _act(inbox.reject, bundle_id, who, reason)


st.title("Review inbox")
who = community.require_maintainer("review", neutral=True)
if outcome := st.session_state.pop("review_message", None):
    (st.success if outcome[0] else st.error)(outcome[1])
queued = inbox.entries(status_=inbox.QUEUED)
if not queued:
    st.info("No bundle is waiting for review.")
else:
    st.dataframe(
        fmt.rounded(_labelled(_queue(queued)), NUMBER_COLUMNS), hide_index=True,
        key="review_queue", placeholder="—", column_config=NUMBER_COLUMNS,
    )
    ids = [e["id"] for e in queued]
    chosen = st.selectbox("Bundle", ids, index=params.index_of(ids, "bundle", ids[0]),
                          key="review_bundle")
    st.query_params["bundle"] = chosen
    try:
        _detail(inbox.review(chosen))
        valid = True
    except (BundleError, inbox.InboxError) as exc:
        st.error(f"{chosen} no longer validates: {exc}. Reject it with this reason.")
        valid = False
    _decide(chosen, who, valid)
with st.expander("Decided bundles"):
    decided = [e for e in inbox.entries() if e["status"] != inbox.QUEUED]
    st.dataframe(
        _labelled(pd.DataFrame(decided, columns=DECIDED_COLUMNS)),
        hide_index=True,
        key="review_decided",
        placeholder="—",
    )
with st.expander("Audit log"):
    try:
        logged = inbox.audit_entries()
    except inbox.InboxError as exc:
        st.error(f"The audit log is damaged: {exc}")
    else:
        st.dataframe(
            _labelled(pd.DataFrame(logged, columns=AUDIT_COLUMNS)),
            hide_index=True,
            key="review_audit",
            placeholder="—",
        )
