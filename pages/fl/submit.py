"""Upload a submission ZIP: validation feedback one line per problem; stored as unverified on
success, scored only after a maintainer accepts it (maintainer review at the bottom)."""

from __future__ import annotations

import streamlit as st

from analytics.core import labels
from analytics.fl import board as flb
from analytics.fl import review
from analytics.fl.store import RECEIVED_STATUS
from ui import community, fl
from ui import format as fmt

REVIEWABLE = (review.UNVERIFIED, review.ACCEPTED)  # rejected uploads stay rejected
SCREENFUL_LINES = 30  # problem lines drawn (the validator caps what it lists, too)
CLAIM_FIGURES = ("best_accuracy", "loss", "ours_best_accuracy")  # shown to three decimals


def _upload_result(uploaded) -> None:
    """Validate and store an upload once per file; show the outcome."""
    memo = f"fl_result_{uploaded.file_id}"
    if memo not in st.session_state:  # store once per uploaded file, not on every rerun
        st.session_state[memo] = fl.receive_uploaded(uploaded)  # size checked before reading
    stored, problems = st.session_state[memo]
    if problems:
        st.error(f"Not stored: {fmt.plural(len(problems), 'problem')}.")
        for line in problems[:SCREENFUL_LINES]:
            st.text(line)
        if len(problems) > SCREENFUL_LINES:
            st.caption(
                f"{len(problems) - SCREENFUL_LINES:,} more lines not shown: correct these first."
            )
        return
    st.success(
        f"{RECEIVED_STATUS}: stored as {stored}. It is listed as unverified on the ranked page "
        "and takes no rank or points until a maintainer accepts it."
    )


def _act(name: str, action: str, who: str, row, reason: str = "") -> None:
    """Record accept/reject of the bytes and status shown; keep the outcome (or the one-line
    refusal, e.g. another maintainer decided first) for the next rerun."""
    try:
        seen = str(row["status"]).split(" ")[0]  # "unverified (invalid)" was seen unverified
        state = review.decide(name, action, who, row["sha256"], reason, seen=seen)
    except review.ReviewError as exc:
        st.session_state["fl_review_message"] = (False, str(exc))
    else:
        st.session_state["fl_review_message"] = (True, f"{state.zip}: {state.status} by {who}.")
    st.rerun()


def _review() -> None:
    """Maintainers only: accept or reject stored uploads (same sign-in as the vision inbox)."""
    who = community.require_maintainer("fl_review").name
    ok, message = st.session_state.pop("fl_review_message", (None, ""))
    if message:
        (st.success if ok else st.error)(message)
    board = fl.board()
    table = flb.uploads_table(board, REVIEWABLE)
    if table.empty:
        st.info("No uploads to review.")
        return
    fl.show_table(fl.named_runs(table), "fl_review_queue")
    name = st.selectbox("Upload", table["zip"].tolist(), key="fl_review_pick")
    row = table[table["zip"] == name].iloc[0]
    st.caption(f"sha256 {row['sha256']}; claims beside our best reference accuracy:")
    claims = fl.named_runs(flb.upload_claims(board, name))
    quality = {c: fmt.number_column(labels.human(c), fl.QUALITY_DECIMALS) for c in CLAIM_FIGURES}
    fl.show_table(claims, "fl_review_claims", quality)
    reason = st.text_input("Reason (needed to reject)", key="fl_review_reason")
    left, right = st.columns(2)
    accept_ok = row["status"] == review.UNVERIFIED
    if left.button("Accept", key="fl_review_accept", type="primary", disabled=not accept_ok):
        _act(name, "accept", who, row, reason)
    if right.button("Reject", key="fl_review_reject", disabled=not reason.strip()):
        _act(name, "reject", who, row, reason)


st.title("Submit to the ranked track")
st.markdown(
    "One ZIP per protocol, model and method: `manifest.json` plus "
    "`runs/<dataset>/<condition>/checkpoints.csv` and `workload.csv` (or `status.json` for an "
    "OOM or failed run). Costs must be those of the common simulator; see `docs/fl.md`. "
    "Accuracy and loss are self-reported, so a stored upload stays **unverified** (listed apart, "
    "no rank, no points) until a maintainer reviews and accepts it."
)

uploaded = st.file_uploader("Submission ZIP", type=["zip"], key="fl_upload")
if uploaded is not None:
    _upload_result(uploaded)
else:
    st.info(
        "Waiting for a ZIP. Nothing is stored until every check passes, and a stored upload is "
        "unverified until a maintainer reviews it."
    )

st.divider()
if st.toggle("Maintainer review of uploads", key="fl_review_open"):
    _review()
