"""Atomic writes of run records and their Parquet tables (``analytics.core.atomic``).

Layout under the runs folder (``analytics.core.paths.RUNS_DIR`` by default)::

    records/<run_id>.json            the full run record (measure.record)
    vision_runs/<run_id>.parquet     one row: the headline figures
    vision_calls/<run_id>.parquet    one row per timed call
    vision_memory/<run_id>.parquet   one row per memory sample
    vision_outputs/<run_id>.parquet  one row per detection on the shared inputs
    vision_failures/<run_id>.parquet hand review marks (written by analytics.vision.runs)
    run_manifests/<run_id>.json      sha256 of the record and the four tables, written last
                                     (analytics.core.run_unit: readers serve only whole runs)

``analytics.core.db`` exposes each folder as a DuckDB view of the same name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import atomic, run_unit

TABLES = run_unit.TABLES


def save(record: dict[str, Any], tables: dict[str, pd.DataFrame], runs_dir: Path) -> Path:
    """Write the record JSON and its tables (every temp file complete before any rename), then
    the run manifest of their hashes: until it is written the run is not served at all."""
    run_id = record["run_id"]
    targets = {runs_dir / "records" / f"{run_id}.json": None}
    targets |= {runs_dir / name / f"{run_id}.parquet": frame for name, frame in tables.items()}
    existing = [p for p in [*targets, run_unit.manifest_path(runs_dir, run_id)] if p.exists()]
    if existing:
        raise FileExistsError(f"{existing[0]}: run {run_id} is already stored; records are final")
    body = atomic.json_text(record, indent=None, separators=(",", ":"))
    fills = {path: _filler(body, frame) for path, frame in targets.items()}
    atomic.write_all(fills)
    run_unit.seal(runs_dir, run_id)
    return runs_dir / "records" / f"{run_id}.json"


def _filler(body: str, frame: pd.DataFrame | None):
    """What writes one target's temp file: the record JSON, or a table as Parquet."""
    if frame is None:
        return lambda temp: temp.write_text(body)
    return lambda temp: frame.to_parquet(temp, index=False)
