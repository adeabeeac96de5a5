"""Filesystem locations used across the project (one place, overridable by environment)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = Path(os.environ.get("MODELATLAS_DATA_DIR", REPO_ROOT / "data"))
CATALOG_DIR = DATA_DIR / "catalog"
SNAPSHOTS_DIR = Path(os.environ.get("MODELATLAS_SNAPSHOTS_DIR", DATA_DIR / "snapshots"))
RUNS_DIR = Path(os.environ.get("MODELATLAS_RUNS_DIR", DATA_DIR / "runs"))
SHARED_DATA_DIR = Path(
    os.environ.get("MODELATLAS_SHARED_DATA", REPO_ROOT.parent / "shared" / "data")
)
