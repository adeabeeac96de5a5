"""The single DuckDB entry point: an embedded, in-memory database with views over the
current catalog snapshot (``data/snapshots/<version>/*.parquet``) and over measured runs
(``data/runs/<table>/*.parquet``, one view per folder).

Nothing else in the project opens DuckDB. Pages get a connection through ``ui.data`` (cached by
snapshot version) and take a ``.cursor()`` per query because a connection is not thread-safe.

A snapshot is checked against its file hashes before it is served (once per process for each
state of its files, ``snapshot.verify``): a damaged version is refused with one line; the
current one is rebuilt from the catalog, or else the newest intact snapshot is served instead.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

from analytics.core import paths

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def current_version(catalog_dir: Path | None = None) -> str:
    """The snapshot version the current catalog hashes to (built or not)."""
    from analytics.core import snapshot

    return snapshot.catalog_version_stamped(catalog_dir or paths.CATALOG_DIR)


def ensure_snapshot(catalog_dir: Path | None = None, snapshots_dir: Path | None = None) -> str:
    """Return the current version, building the snapshot first if it is missing."""
    from analytics.core import snapshot

    catalog_dir = catalog_dir or paths.CATALOG_DIR
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    version = snapshot.catalog_version_stamped(catalog_dir)
    folder = snapshots_dir / version
    if (folder / "MANIFEST.json").exists():
        return version
    if folder.exists():  # a folder left without its manifest: rebuild it in its place
        snapshot.verify.repair(version, snapshots_dir, catalog_dir)
    else:
        snapshot.build(catalog_dir, snapshots_dir)
    return version


_UNBUILDABLE: dict[tuple[str, str], Exception] = {}
"""Catalog states (folder, version) that failed validation in this process: a page run does
not validate a broken catalog again until one of its files changes (and its version with it)."""


def display(path: Path) -> str:
    from analytics.core.problems import display_path

    return display_path(path)


def _built(catalog_dir: Path, snapshots_dir: Path) -> str:
    """``ensure_snapshot``, remembering a catalog that does not build (``CatalogError``)."""
    key = (str(catalog_dir), current_version(catalog_dir))
    if key in _UNBUILDABLE:
        raise _UNBUILDABLE[key]
    try:
        return ensure_snapshot(catalog_dir, snapshots_dir)
    except _verify().CatalogError as exc:
        if len(_UNBUILDABLE) > 16:
            _UNBUILDABLE.clear()
        _UNBUILDABLE[key] = exc
        raise


@dataclass(frozen=True)
class Serving:
    """The snapshot version to serve, and a one-line warning when it is not the intact current
    one as built (a damaged current version rebuilt, or an older snapshot served instead)."""

    version: str
    warning: str | None = None


def _verify():
    from analytics.core.snapshot import verify

    return verify


def _repair_current(version: str, catalog_dir: Path, snapshots_dir: Path) -> bool:
    """Rebuild a damaged current version from the catalog; whether it is intact now."""
    verify = _verify()
    try:
        verify.repair(version, snapshots_dir, catalog_dir)
    except (OSError, verify.DamagedSnapshot, verify.CatalogError):
        return False
    return verify.check_cached(snapshots_dir / version, catalog_dir).ok


def _newest_intact(catalog_dir: Path, snapshots_dir: Path, skip: str) -> str | None:
    verify = _verify()
    for version in reversed(list_versions(snapshots_dir)):
        if version != skip and verify.check_cached(snapshots_dir / version, catalog_dir).ok:
            return version
    return None


def serving_version(
    catalog_dir: Path | None = None, snapshots_dir: Path | None = None, *, repair: bool = True
) -> Serving:
    """The version to serve: the current catalog's (built when missing) when its files match
    their hashes; when damaged, rebuilt from the catalog (``repair``), else the newest intact
    snapshot, with a one-line warning; when the catalog does not build at all (a damaged or
    half-written file), the newest intact snapshot with the first problem as the warning.
    Raises ``DamagedSnapshot`` (or the ``CatalogError``) when none is intact."""
    catalog_dir = catalog_dir or paths.CATALOG_DIR
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    verify = _verify()
    try:
        current = _built(catalog_dir, snapshots_dir)
    except verify.CatalogError as exc:  # the catalog does not build: serve the last good one
        older = _newest_intact(catalog_dir, snapshots_dir, "")
        if older is None:
            raise
        where, what = exc.where or display(catalog_dir), exc.what or "does not validate"
        more = f" (and {len(exc.problems) - 1} more problems)" if len(exc.problems) > 1 else ""
        return Serving(
            older,
            f"{where}: {what}{more}; the catalog does not build, so the older snapshot {older} "
            "is served; fix: `python -m analytics snapshot validate` lists every problem",
        )
    check = verify.check_cached(snapshots_dir / current, catalog_dir)
    if check.ok:
        return Serving(current)
    if repair and _repair_current(current, catalog_dir, snapshots_dir):
        fix = "none needed; `python -m analytics snapshot check` looks for other damage"
        return Serving(current, f"{check.what()}; snapshot {current} was rebuilt; fix: {fix}")
    older = _newest_intact(catalog_dir, snapshots_dir, current)
    if older is None:
        raise verify.DamagedSnapshot(check.summary())
    what = f"{check.what()}; serving the older snapshot {older} instead"
    return Serving(older, f"{what}; fix: {verify.REPAIR_FIX}")


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
    """One view per runs folder; the tables of a measured run only for runs whose record,
    tables and run manifest agree (``run_unit``): a damaged run is left out, never read."""
    from analytics.core import run_unit

    if not runs_dir.is_dir():
        return
    whole = None
    for folder in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.parquet"))
        if folder.name in run_unit.TABLES:
            whole = run_unit.units_cached(runs_dir).intact if whole is None else whole
            files = [f for f in files if f.stem in whole]
        if _IDENT.match(folder.name) and files:
            listed = ", ".join(_quote_path(f) for f in files)
            con.execute(
                f"CREATE OR REPLACE VIEW {folder.name} AS "
                f"SELECT * FROM read_parquet([{listed}], union_by_name=true)"
            )


def connect(
    version: str | None = None,
    *,
    snapshots_dir: Path | None = None,
    runs_dir: Path | None = None,
    catalog_dir: Path | None = None,
    runs: bool = True,
) -> duckdb.DuckDBPyConnection:
    """Open an in-memory DuckDB with one view per snapshot table and per runs folder
    (``runs=False``: snapshot tables only, for a caller that reads no measured run: listing and
    checking every run costs a command-line call about 0.1 s).

    ``version=None`` means ``serving_version()``: the current catalog's snapshot (built on first
    use if missing, rebuilt if damaged), else the newest intact one (a warning says so). A
    version whose files do not match their hashes raises ``DamagedSnapshot`` (one line).
    """
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    if version is None:
        served = serving_version(catalog_dir, snapshots_dir)
        if served.warning:
            warnings.warn(served.warning, RuntimeWarning, stacklevel=2)
        version = served.version
    folder = snapshots_dir / version
    if not (folder / "MANIFEST.json").exists():
        known = ", ".join(list_versions(snapshots_dir)) or "none"
        raise FileNotFoundError(
            f"{folder}: no snapshot {version!r} (known: {known}); "
            "fix: run `python -m analytics snapshot build`"
        )
    check = _verify().check_cached(folder, catalog_dir or paths.CATALOG_DIR)
    if not check.ok:
        raise _verify().DamagedSnapshot(check.summary())
    con = duckdb.connect(":memory:")
    _add_views(con, folder)
    if runs:
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


def has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether ``table`` exists and has ``column`` (older snapshots lack newer columns)."""
    return column in _columns(con, table)


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    """The columns of view or table ``table`` (none when there is no such one): one catalog
    lookup, a quarter of what ``information_schema`` and a ``LIMIT 0`` query cost together."""
    rows = con.execute(
        "SELECT column_name FROM duckdb_columns() WHERE table_name = ?", [table]
    ).fetchall()
    return {row[0] for row in rows}


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> pd.DataFrame:
    """Run one query on a fresh cursor and return a DataFrame."""
    return con.cursor().execute(sql, params or []).df()


def select_present(
    con: duckdb.DuckDBPyConnection, table: str, columns: list[str], order_by: str | None = None
) -> pd.DataFrame:
    """``columns`` of ``table`` in that order (sorted by the column ``order_by``). An older
    snapshot's missing column reads as all missing (NA); a missing table as no rows."""
    for name in [table, *columns, *([order_by] if order_by else [])]:
        if not _IDENT.match(name):
            raise ValueError(f"not a plain identifier: {name!r}")
    have = _columns(con, table)
    if not have:  # no such table
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    picked = [c for c in columns if c in have]
    order = f" ORDER BY {order_by}" if order_by in have else ""
    out = query(con, f"SELECT {', '.join(picked) or 'NULL AS _none'} FROM {table}{order}")
    for col in columns:
        if col not in out:
            out[col] = pd.NA
    return out[list(columns)]
