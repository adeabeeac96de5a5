"""The sweep progress section of the 'Run a measurement' page (reads a batch's status.json)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analytics.core import jobs
from ui import params


def section() -> None:
    """Done / running / failed of a sweep started with ``--ray --results DIR`` (docs/ray.md)."""
    st.subheader("Sweeps on Ray")
    known = jobs.known_sweeps()
    default = params.text_param("sweep", str(known[0]) if known else "")
    folder = st.text_input("Results folder of a sweep (--results)", default, key="sweep_dir")
    if folder:
        st.query_params["sweep"] = folder
        _progress(folder)
    else:
        st.caption("No sweep started here: python -m measure sweep --ray --results DIR")


@st.fragment(run_every=5.0)
def _progress(folder: str) -> None:
    status = jobs.read_status(Path(folder))
    if status is None:
        st.caption(f"No {jobs.STATUS_FILE} in {folder} yet.")
        return
    cols = st.columns(4)
    for col, key in zip(cols, ("done", "running", "failed", "total"), strict=True):
        col.metric(key, status[key])
    finished = status["done"] + status["failed"]
    st.progress(finished / max(1, status["total"]), text=f"updated {status['updated_utc']}")
    st.dataframe(jobs.status_table(status), hide_index=True, key="sweep_jobs")
