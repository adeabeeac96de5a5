"""Submit a run: upload a community bundle; it is validated and queued for review, or refused."""

from __future__ import annotations

import streamlit as st

from ui import community

HOW_TO = """
1. On a Linux machine with an NVIDIA GPU, measure a registered model under the protocol:
   `python -m measure run --adapter fasterrcnn-resnet50-fpn --device cuda`
2. Package the record it printed: `python -m measure submit data/runs/records/<run_id>.json
   --github YOUR_NAME --out run.zip` (this also checks it the way we will).
3. Upload `run.zip` here. A maintainer compares it with our own measurement on the same GPU and
   accepts or rejects it; accepted runs appear under "Community results" on the model's page.
"""

st.title("Submit a run")
st.markdown(HOW_TO)
uploaded = st.file_uploader("Run bundle (.zip)", type=["zip"], key="submit_bundle")
if st.button("Submit for review", key="submit_send", disabled=uploaded is None):
    st.session_state["submit_outcome"] = community.submit_uploaded(uploaded)
outcome = st.session_state.get("submit_outcome")
if outcome is not None:
    if outcome["ok"]:
        st.success(outcome["message"])
        for flag in outcome["flags"]:
            st.warning(f"Flag for the reviewer, {flag['code']}: {flag['message']}")
    else:
        st.error(f"Not accepted: {outcome['message']}")
