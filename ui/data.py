"""Cached access to the store for pages. Every cache is keyed by the snapshot version."""

from __future__ import annotations

import duckdb
import pandas as pd
import streamlit as st

from analytics.core import db


@st.cache_resource(show_spinner="Building the catalog snapshot…")
def _connection(version: str) -> duckdb.DuckDBPyConnection:
    return db.connect(version)


def snapshot_version() -> str:
    """Current snapshot version; builds the snapshot on first start if it is missing."""
    return db.ensure_snapshot()


def connection() -> duckdb.DuckDBPyConnection:
    """A cursor on the cached connection of the current snapshot (thread-safe use)."""
    return _connection(snapshot_version()).cursor()


@st.cache_data(show_spinner=False)
def table(version: str, sql: str) -> pd.DataFrame:
    """Result of a read-only query, cached per snapshot version."""
    return _connection(version).cursor().execute(sql).df()
