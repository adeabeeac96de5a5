"""Cached loaders of the federated-learning pages: the scored board and its run index.

Every cache is keyed by the FL data version (``analytics.fl.board.data_version``, a content hash
of the policy, profiles, every stored ZIP and the review record), so a newly published
submission shows on the next rerun. A cold load reads validated and scored results from the
on-disk cache (``analytics.fl.cache``) when they exist for exactly those bytes.

The board is a ``st.cache_resource``: one shared, read-only object per data version (no page
modifies it), so a rerun does not unpickle hundreds of run tables as ``st.cache_data`` would.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st

from analytics.core import labels, safezip
from analytics.fl import board as flb
from analytics.fl.submission import ZIP_USE
from ui.llm import show_table as show_table  # the one labelled-table helper of every track

METRIC_LABELS = {m: labels.human(m) for m in flb.CURVE_METRICS}
"""Checkpoint metric names (``accuracy``, ``comm_bytes``…) as the FL pages show them."""


def metric_labels(frame: pd.DataFrame, column: str = "metric") -> pd.DataFrame:
    """``frame`` with the metric names of ``column`` replaced by their human labels (units)."""
    return frame.assign(**{column: frame[column].map(lambda m: METRIC_LABELS.get(m, m))})


@st.cache_resource(show_spinner="Validating and scoring submissions…", max_entries=2)
def _board(version: str) -> flb.Board:
    return flb.load_board()


def board() -> flb.Board:
    """Every stored submission, validated and scored (shared: read, never modify)."""
    return _board(flb.data_version())


@st.cache_data(show_spinner=False, max_entries=4)
def _run_index(version: str) -> pd.DataFrame:
    return flb.run_index(_board(version))


def run_index() -> pd.DataFrame:
    """One row per stored run (method, model, protocol, dataset, condition, status)."""
    return _run_index(flb.data_version())


def receive_uploaded(uploaded: Any) -> tuple[str | None, list[str]]:
    """``flb.receive_upload`` for a Streamlit upload, refused by its size (the FL ZIP cap,
    ``safezip.LIMITS["fl-submission"]``) in one line before its bytes are read."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", str(uploaded.name))[:100] or "upload.zip"
    try:
        safezip.check_size(int(uploaded.size), name, safezip.LIMITS[ZIP_USE])
    except safezip.BundleError as exc:
        return None, [str(exc)]
    return flb.receive_upload(uploaded.getvalue(), uploaded.name)
