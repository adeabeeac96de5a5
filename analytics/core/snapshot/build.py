"""Writing a snapshot: validate, then write every table as typed Parquet (plus the JSON files and
MANIFEST.json) into a temp folder beside the target and publish it in one rename.

A version already built is never rewritten; if another process publishes the same version
first, its snapshot is kept.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import analytics.core.snapshot.checks as checks
from analytics.core import atomic, schema
from analytics.core.problems import at
from analytics.core.snapshot.manifest import (
    MANIFEST,
    OUTPUTS,
    DamagedSnapshot,
    catalog_version,
    manifest_text,
    new_manifest,
    output_hashes,
    remove_stale_temp_dirs,
    try_manifest,
)
from analytics.core.snapshot.parse import Table, rows_with

DIR_MODE = 0o755
FILE_MODE = atomic.FILE_MODE
"""Snapshot folders and files are readable by everyone (``mkdtemp`` creates 0700)."""

_ARROW_TYPES = {
    "str": pa.string(),
    "float": pa.float64(),
    "int": pa.int64(),
    "bool": pa.bool_(),
    "date": pa.date32(),
}


@dataclass(frozen=True)
class BuildResult:
    """A built (or already existing) snapshot."""

    version: str
    path: Path
    counts: dict[str, int]
    categories: int
    created: bool


def _arrow_table(table: Table) -> pa.Table:
    """Typed Arrow table: schema columns first (absent optional ones as nulls), then extras."""
    specs = list(schema.TABLES.get(table.name, ()))
    cols = [(c.name, c.dtype) for c in specs]
    cols += [(c, table.types[c]) for c in table.header if c not in {s.name for s in specs}]
    arrays = {}
    for col, dtype in cols:
        values = [row.get(col) for row in table.rows]
        arrays[col] = pa.array(values, type=_ARROW_TYPES[dtype])
    return pa.table(arrays)


def _write_snapshot(
    catalog_dir: Path, tables: dict[str, Table], folder: Path, manifest: dict
) -> None:
    """Fill ``folder``: one Parquet per table, the JSON files, MANIFEST.json (with the SHA-256
    of every file written); modes 0755/0644; all fsynced."""
    for name, table in sorted(tables.items()):
        pq.write_table(_arrow_table(table), folder / f"{name}.parquet")
    for rel in manifest["json"]:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((catalog_dir / rel).read_bytes())
    manifest[OUTPUTS] = output_hashes(folder)
    (folder / MANIFEST).write_text(manifest_text(manifest))
    _set_modes(folder)
    atomic.fsync_tree(folder)


def _set_modes(folder: Path) -> None:
    """Folders 0755 and files 0644 under (and including) ``folder``."""
    os.chmod(folder, DIR_MODE)
    for path in folder.rglob("*"):
        os.chmod(path, DIR_MODE if path.is_dir() else FILE_MODE)


def _existing(folder: Path) -> BuildResult:
    """The snapshot already built at ``folder`` (one-line error when its manifest is broken)."""
    manifest = try_manifest(folder)
    if manifest is None or not isinstance(manifest.get("tables"), dict):
        what = "does not parse as a snapshot manifest"
        fix = "run `python -m analytics snapshot check --repair`"
        raise DamagedSnapshot(at(folder / MANIFEST, None, what, fix))
    return BuildResult(
        manifest["version"], folder, manifest["tables"], manifest.get("categories", 0), False
    )


def _categories(tables: dict[str, Table]) -> int:
    bench = tables.get("benchmarks")
    return len({row["category"] for _, row in rows_with(bench, "category")}) if bench else 0


def build(catalog_dir: Path, snapshots_dir: Path) -> BuildResult:
    """Validate the catalog and write ``<snapshots_dir>/<version>/`` atomically.

    Raises :class:`CatalogError` with every problem and writes nothing when validation fails.
    A version already built is returned as is, never rewritten.
    """
    tables, problems = checks.load_catalog(catalog_dir)
    problems += checks.run_validators(catalog_dir)
    if problems:
        raise checks.CatalogError(problems)
    version = catalog_version(catalog_dir)
    final = snapshots_dir / version
    remove_stale_temp_dirs(snapshots_dir)
    if (final / MANIFEST).exists():
        return _existing(final)
    counts = {name: len(t.rows) for name, t in sorted(tables.items())}
    manifest = new_manifest(
        version, catalog_dir, counts, _categories(tables), checks.validator_names()
    )
    tmp = atomic.temp_dir_beside(final)
    try:
        _write_snapshot(catalog_dir, tables, tmp, manifest)
        try:
            atomic.replace_dir(tmp, final)
        except OSError:
            if (final / MANIFEST).exists():  # another process built it meanwhile
                return _existing(final)
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return BuildResult(version, final, counts, manifest["categories"], True)
