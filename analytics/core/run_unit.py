"""A measured vision run as one unit: its record and its tables, sealed by a run manifest of
their sha256 written after them all (``run_manifests/<run_id>.json``).

``measure.store.save`` renames the record and the four tables into place one by one, so a kill
between two renames could leave a record without its calls, memory or outputs (shown with
empty charts), and nothing noticed a truncated or bit-flipped Parquet file (one crashed every
vision page; a flipped bit could show 100 calls as 68,719,476,836). Readers therefore serve a
run only when its manifest lists every file of the run and each still hashes to it; any other
run is skipped and named (``damaged``). Hashes are computed once per process for each state of
a file (size, mtime), so a page run costs a few stats.

Temp files of writes killed mid-way (``.<name>.<random>.tmp``, ``analytics.core.atomic``) are
reported by ``python -m measure check`` once older than ``STALE_TEMP_S`` and removed by
``--clean``; a younger one may belong to a run still writing.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from analytics.core import atomic
from analytics.core.problems import display_path, line

TABLES = ("vision_runs", "vision_calls", "vision_memory", "vision_outputs")
"""The tables a run writes, one Parquet file each (``<runs>/<table>/<run_id>.parquet``)."""
RECORDS = "records"
MANIFESTS = "run_manifests"
MANIFEST_VERSION = 1
MAX_MANIFEST_BYTES = 16 * 1024
STALE_TEMP_S = 24 * 3600  # longer than any run takes to write its files
CHECK_FIX = "run `python -m measure check` for every damaged run, then measure it again"

_HASHES: dict[tuple[str, int, int], str] = {}


def run_files(runs_dir: Path, run_id: str) -> list[Path]:
    """The files of one run that exist: its record and its tables."""
    found = [runs_dir / RECORDS / f"{run_id}.json"]
    found += [runs_dir / table / f"{run_id}.parquet" for table in TABLES]
    return [p for p in found if p.is_file()]


def manifest_path(runs_dir: Path, run_id: str) -> Path:
    return runs_dir / MANIFESTS / f"{run_id}.json"


def sha256_of(path: Path) -> str:
    """A file's sha256, remembered for its (path, size, mtime) in this process."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _HASHES:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
        if len(_HASHES) > 50_000:
            _HASHES.clear()
        _HASHES[key] = digest.hexdigest()
    return _HASHES[key]


def seal(runs_dir: Path, run_id: str) -> Path:
    """Write the run manifest of a run whose files are all in place (the unit's last write)."""
    files = {p.relative_to(runs_dir).as_posix(): sha256_of(p) for p in run_files(runs_dir, run_id)}
    payload = {"version": MANIFEST_VERSION, "run_id": run_id, "files": files}
    target = manifest_path(runs_dir, run_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_json(target, payload, sort_keys=True)
    return target


def _manifest(runs_dir: Path, run_id: str) -> tuple[dict[str, str] | None, str]:
    """(relative path -> sha256, '') or (None, what is wrong)."""
    path = manifest_path(runs_dir, run_id)
    if not path.is_file():
        return None, "has no run manifest (its writing was interrupted, or it predates them)"
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            raise ValueError("too large")
        doc = json.loads(path.read_bytes())
        files = doc["files"]
        if doc.get("run_id") != run_id or not isinstance(files, dict):
            raise ValueError("not this run's manifest")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"has an unreadable run manifest ({type(exc).__name__})"
    return {str(k): str(v) for k, v in files.items()}, ""


def run_problem(runs_dir: Path, run_id: str) -> str | None:
    """Why one run is not served whole (one line), or None when every file matches."""
    listed, what = _manifest(runs_dir, run_id)
    where = display_path(runs_dir / RECORDS / f"{run_id}.json")
    if listed is None:
        return line(where, f"run {run_id} {what}", CHECK_FIX)
    expected = {RECORDS + f"/{run_id}.json"} | {f"{t}/{run_id}.parquet" for t in TABLES}
    for name in sorted(expected - set(listed)):
        return line(where, f"run {run_id}: its manifest does not list {name}", CHECK_FIX)
    for name, digest in sorted(listed.items()):
        path = runs_dir / name
        if not path.is_file():
            return line(display_path(path), f"run {run_id}: file missing", CHECK_FIX)
        if sha256_of(path) != digest:
            what = f"run {run_id}: file changed since it was written (truncated or edited)"
            return line(display_path(path), what, CHECK_FIX)
    return None


def run_ids(runs_dir: Path) -> list[str]:
    """Every run with any file (record, table or manifest), sorted."""
    ids: set[str] = set()
    for folder, suffix in [(RECORDS, ".json"), (MANIFESTS, ".json")] + [
        (t, ".parquet") for t in TABLES
    ]:
        if (runs_dir / folder).is_dir():
            ids |= {p.name[: -len(suffix)] for p in (runs_dir / folder).glob(f"*{suffix}")}
    return sorted(i for i in ids if not i.startswith("."))


@dataclass(frozen=True)
class Units:
    """The runs served whole, and one line per run that is not."""

    intact: frozenset[str]
    damaged: tuple[str, ...]


def units(runs_dir: Path) -> Units:
    """Which runs of a runs folder are whole (record, tables and manifest agree)."""
    intact, damaged = set(), []
    for run_id in run_ids(runs_dir):
        problem = run_problem(runs_dir, run_id)
        if problem is None:
            intact.add(run_id)
        else:
            damaged.append(problem)
    return Units(frozenset(intact), tuple(damaged))


_UNITS_SEEN: dict[Path, tuple[str, Units]] = {}


def units_cached(runs_dir: Path) -> Units:
    """:func:`units`, recomputed only when the folder's :func:`fingerprint` changes (every
    store connection lists the whole runs; re-reading each run's record and manifest for each
    one cost a cold page a quarter of a second)."""
    key = runs_dir.resolve()
    stamp = fingerprint(runs_dir)
    seen = _UNITS_SEEN.get(key)
    if seen is None or seen[0] != stamp:
        seen = _UNITS_SEEN[key] = (stamp, units(runs_dir))
    return seen[1]


def fingerprint(runs_dir: Path) -> str:
    """A short hash of every run file's name, size and mtime (records, tables, manifests): a
    cache key that changes when a run is added, sealed, damaged or removed."""
    parts = []
    if runs_dir.is_dir():
        for pattern in ("vision_*/*.parquet", f"{RECORDS}/*.json", f"{MANIFESTS}/*.json"):
            for p in runs_dir.glob(pattern):
                stat = p.stat()
                parts.append(f"{p.relative_to(runs_dir)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()[:16]


def stale_temps(runs_dir: Path, now: float | None = None) -> list[Path]:
    """Temp files of killed writes older than ``STALE_TEMP_S`` anywhere in the runs folder."""
    now = time.time() if now is None else now
    if not runs_dir.is_dir():
        return []
    found = []
    for path in runs_dir.rglob(".*.tmp"):
        try:
            if path.is_file() and not path.is_symlink():
                if now - path.stat().st_mtime > STALE_TEMP_S:
                    found.append(path)
        except OSError:
            continue
    return sorted(found)


def remove_stale_temps(runs_dir: Path) -> list[Path]:
    """Delete the stale temp files (regular files only, never followed links); returns them."""
    removed = []
    for path in stale_temps(runs_dir):
        try:
            os.unlink(path)
        except OSError:
            continue
        removed.append(path)
    return removed
