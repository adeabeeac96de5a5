"""Upload a submission ZIP: validation feedback one line per problem; publish on success."""

from __future__ import annotations

import streamlit as st

from analytics.fl import board as flb
from analytics.fl.store import PUBLISHED_STATUS

st.title("Submit to the ranked track")
st.markdown(
    "One ZIP per protocol, model and method: `manifest.json` plus "
    "`runs/<dataset>/<condition>/checkpoints.csv` and `workload.csv` (or `status.json` for an "
    "OOM or failed run). Costs must be those of the common simulator; see `docs/fl.md`."
)

uploaded = st.file_uploader("Submission ZIP", type=["zip"], key="fl_upload")
if uploaded is not None:
    memo = f"fl_result_{uploaded.file_id}"
    if memo not in st.session_state:  # publish once per uploaded file, not on every rerun
        st.session_state[memo] = flb.publish_upload(uploaded.getvalue(), uploaded.name)
    stored, problems = st.session_state[memo]
    if problems:
        st.error(f"Not published: {len(problems)} problem(s).")
        for line in problems:
            st.text(line)
    else:
        st.success(f"{PUBLISHED_STATUS}: stored as {stored}; it is scored on the ranked page.")
else:
    st.info("Waiting for a ZIP. Nothing is published until every check passes.")
