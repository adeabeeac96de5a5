"""Cached loaders of the federated-learning pages: the scored board and its run index.

Every cache is keyed by the FL data version (``analytics.fl.board.data_version``), so a newly
published submission shows on the next rerun.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.fl import board as flb


@st.cache_data(show_spinner="Validating and scoring submissions…")
def _board(version: str) -> flb.Board:
    return flb.load_board()


def board() -> flb.Board:
    """Every stored submission, validated and scored."""
    return _board(flb.data_version())


@st.cache_data(show_spinner=False)
def _run_index(version: str) -> pd.DataFrame:
    return flb.run_index(_board(version))


def run_index() -> pd.DataFrame:
    """One row per stored run (method, model, protocol, dataset, condition, status)."""
    return _run_index(flb.data_version())
