"""Cached access to the store for pages. Every cache is keyed by the snapshot version.

The version served is ``db.serving_version()``: the current catalog's snapshot, checked against
its file hashes; when it is damaged (rebuilt, or an older intact snapshot served instead), or
the catalog does not build (the newest intact snapshot served instead), the page shows the
one-line reason as a warning.
"""

from __future__ import annotations

import duckdb
import streamlit as st

from analytics.core import db, paths, run_unit, snapshot


@st.cache_resource(show_spinner="Building the catalog snapshot…", max_entries=4)
def _connection(version: str, runs_key: str | None) -> duckdb.DuckDBPyConnection:
    """``runs_key`` None: the snapshot's tables only (no measured run listed or checked)."""
    return db.connect(version, runs=runs_key is not None)


def _runs_key() -> str:
    """The state of the measured runs: a connection's run views list the whole runs of that
    state (``run_unit``), so a run added, sealed or damaged opens a new one."""
    return run_unit.fingerprint(paths.RUNS_DIR)


def _run_marker() -> int | None:
    """An id that changes with every script run (None outside a Streamlit run)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # pragma: no cover - older Streamlit
        return None
    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else id(ctx.cursors)  # cursors is a new dict each run


def _warn_once(message: str) -> None:
    """``st.warning(message)`` at most once per script run."""
    marker = _run_marker()
    key = "_ui_data_snapshot_warning"
    if marker is not None and st.session_state.get(key) == (marker, message):
        return
    if marker is not None:
        st.session_state[key] = (marker, message)
    st.warning(message)


def snapshot_version() -> str:
    """The snapshot version to serve; builds the current one on first start if it is missing,
    and warns on the page (one line) when a damaged version was rebuilt or replaced; with no
    intact snapshot at all the page shows the one-line error and stops."""
    try:
        served = db.serving_version()
    except snapshot.DamagedSnapshot as exc:  # no intact snapshot at all: one line, then stop
        st.error(str(exc))
        st.stop()
    except snapshot.CatalogError as exc:  # a catalog that does not build and no older snapshot
        more = f" ({len(exc.problems)} problems in all)" if len(exc.problems) > 1 else ""
        st.error(f"{exc.problems[0] if exc.problems else exc}{more}")
        st.stop()
    if served.warning:
        _warn_once(served.warning)
    return served.version


def connection() -> duckdb.DuckDBPyConnection:
    """A cursor on the cached connection of the current snapshot (thread-safe use)."""
    return version_cursor(snapshot_version())


def version_cursor(version: str, *, runs: bool = True) -> duckdb.DuckDBPyConnection:
    """A cursor on the cached connection of one snapshot version (thread-safe use); ``runs=False``
    for a reader of snapshot tables alone (the LLM pages): its connection neither lists nor
    checks the measured runs, whose state then does not key it either."""
    return _connection(version, _runs_key() if runs else None).cursor()

