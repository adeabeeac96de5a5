"""The single DuckDB entry point: an embedded, in-memory database with views over the
current catalog snapshot (``data/snapshots/<version>/*.parquet``) and over measured runs
(``data/runs/<table>/*.parquet``, one view per folder).

Nothing else in the project opens DuckDB. Pages get a connection through ``ui.data`` (cached by
snapshot version) and take a ``.cursor()`` per query because a connection is not thread-safe.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd

from analytics.core import paths

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def current_version(catalog_dir: Path | None = None) -> str:
    """The snapshot version the current catalog hashes to (built or not)."""
    from analytics.core import snapshot

    return snapshot.catalog_version(catalog_dir or paths.CATALOG_DIR)


def ensure_snapshot(catalog_dir: Path | None = None, snapshots_dir: Path | None = None) -> str:
    """Return the current version, building the snapshot first if it is missing."""
    from analytics.core import snapshot

    catalog_dir = catalog_dir or paths.CATALOG_DIR
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    version = snapshot.catalog_version(catalog_dir)
    if not (snapshots_dir / version / "MANIFEST.json").exists():
        snapshot.build(catalog_dir, snapshots_dir)
    return version


def _quote_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _add_views(con: duckdb.DuckDBPyConnection, folder: Path) -> None:
    for file in sorted(folder.glob("*.parquet")):
        name = file.stem
        if _IDENT.match(name):
            con.execute(
                f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet({_quote_path(file)})"
            )


def _add_run_views(con: duckdb.DuckDBPyConnection, runs_dir: Path) -> None:
    if not runs_dir.is_dir():
        return
    for folder in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        if _IDENT.match(folder.name) and any(folder.glob("*.parquet")):
            pattern = _quote_path(folder / "*.parquet")
            con.execute(
                f"CREATE OR REPLACE VIEW {folder.name} AS "
                f"SELECT * FROM read_parquet({pattern}, union_by_name=true)"
            )


def connect(
    version: str | None = None,
    *,
    snapshots_dir: Path | None = None,
    runs_dir: Path | None = None,
    catalog_dir: Path | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open an in-memory DuckDB with one view per snapshot table and per runs folder.

    ``version=None`` means the current catalog's snapshot, built on first use if missing.
    """
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    if version is None:
        version = ensure_snapshot(catalog_dir, snapshots_dir)
    folder = snapshots_dir / version
    if not (folder / "MANIFEST.json").exists():
        known = ", ".join(list_versions(snapshots_dir)) or "none"
        raise FileNotFoundError(
            f"{folder}: no snapshot {version!r} (known: {known}); "
            "fix: run `python -m analytics snapshot build`"
        )
    con = duckdb.connect(":memory:")
    _add_views(con, folder)
    _add_run_views(con, runs_dir or paths.RUNS_DIR)
    return con


def list_versions(snapshots_dir: Path | None = None) -> list[str]:
    """Built snapshot versions, oldest first by build time (``snapshot.list_versions``)."""
    from analytics.core import snapshot

    return snapshot.list_versions(snapshots_dir or paths.SNAPSHOTS_DIR)


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether a view or table called ``name`` exists on this connection."""
    rows = con.execute(
        "SELECT 1 FROM information_schema.tables WHERE table_name = ?", [name]
    ).fetchall()
    return bool(rows)


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> pd.DataFrame:
    """Run one query on a fresh cursor and return a DataFrame."""
    return con.cursor().execute(sql, params or []).df()
