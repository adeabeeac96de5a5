"""Atomic writes of run records and their Parquet tables (temp file, fsync, rename).

Layout under the runs folder (``analytics.core.paths.RUNS_DIR`` by default)::

    records/<run_id>.json            the full run record (measure.record)
    vision_runs/<run_id>.parquet     one row: the headline figures
    vision_calls/<run_id>.parquet    one row per timed call
    vision_memory/<run_id>.parquet   one row per memory sample
    vision_outputs/<run_id>.parquet  one row per detection on the shared inputs
    vision_failures/<run_id>.parquet hand review marks (written by analytics.vision.runs)

``analytics.core.db`` exposes each folder as a DuckDB view of the same name.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

TABLES = ("vision_runs", "vision_calls", "vision_memory", "vision_outputs")


def _temp_beside(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(name)


def _fsync_replace(temp: Path, path: Path) -> None:
    with open(temp, "rb") as handle:
        os.fsync(handle.fileno())
    os.chmod(temp, 0o644)  # mkstemp creates 0600; stored runs are readable like any repo file
    os.replace(temp, path)


def write_json_atomic(path: Path, payload: Any) -> None:
    """Write JSON so that readers see the old file or the whole new one, never a part."""
    temp = _temp_beside(Path(path))
    try:
        temp.write_text(json.dumps(payload, indent=1, sort_keys=False, allow_nan=False) + "\n")
        _fsync_replace(temp, Path(path))
    finally:
        temp.unlink(missing_ok=True)


def write_parquet_atomic(path: Path, frame: pd.DataFrame) -> None:
    """Write one Parquet file atomically."""
    temp = _temp_beside(Path(path))
    try:
        frame.to_parquet(temp, index=False)
        _fsync_replace(temp, Path(path))
    finally:
        temp.unlink(missing_ok=True)


def save(record: dict[str, Any], tables: dict[str, pd.DataFrame], runs_dir: Path) -> Path:
    """Write the record JSON and its tables; every temp file is complete before any rename."""
    run_id = record["run_id"]
    targets = {runs_dir / "records" / f"{run_id}.json": None}
    targets |= {runs_dir / name / f"{run_id}.parquet": frame for name, frame in tables.items()}
    existing = [p for p in targets if p.exists()]
    if existing:
        raise FileExistsError(f"{existing[0]}: run {run_id} is already stored; records are final")
    temps: dict[Path, Path] = {}
    try:
        for path, frame in targets.items():
            temps[path] = _temp_beside(path)
            if frame is None:
                body = json.dumps(record, separators=(",", ":"), allow_nan=False) + "\n"
                temps[path].write_text(body)
            else:
                frame.to_parquet(temps[path], index=False)
        for path, temp in temps.items():
            _fsync_replace(temp, path)
    finally:
        for temp in temps.values():
            temp.unlink(missing_ok=True)
    return runs_dir / "records" / f"{run_id}.json"
