"""Versions and manifests: the content-hash version of a catalog, the MANIFEST.json a build
writes, and the listing of built snapshots (oldest build first, by the manifest's ``built_at``).
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa

from analytics.core import schema
from analytics.core.hashing import by_stamps, file_sha256
from analytics.core.problems import Problem
from analytics.core.snapshot.parse import catalog_files

BUILDER_FORMAT = 1
"""Bump when the builder writes a snapshot differently; it is part of the version hash."""

MANIFEST = "MANIFEST.json"


class DamagedSnapshot(Problem, RuntimeError):
    """A snapshot whose files differ from their recorded hashes: where, what and the fix."""


OUTPUTS = "outputs"
"""Manifest key: relative path -> SHA-256 of every file the build wrote (MANIFEST.json aside).
Snapshots built before it was added have no such key (``snapshot check`` rebuilds them)."""

TEMP_PREFIX = ".tmp-"
"""Folders a build (or repair) works in before its one rename; hidden from the listing."""

STALE_TEMP_S = 600
"""A temp folder untouched this long (10 minutes) belongs to a build that was killed."""


def schema_fingerprint() -> bytes:
    spec = {
        name: [[c.name, c.dtype, c.required] for c in cols] for name, cols in schema.TABLES.items()
    }
    return json.dumps([BUILDER_FORMAT, spec], sort_keys=True).encode()


def catalog_version(catalog_dir: Path) -> str:
    """Content hash of the catalog: ``v`` + 10 hex chars of sha256.

    Hashes each CSV/JSON file's relative path and exact bytes (so line endings count, mtimes do
    not), sorted by path, plus the typed schema and builder format the snapshot is built with.
    """
    digest = hashlib.sha256(schema_fingerprint())
    for path in catalog_files(catalog_dir):
        data = path.read_bytes()
        rel = path.relative_to(catalog_dir).as_posix().encode()
        digest.update(b"%s\0%d\0" % (rel, len(data)))
        digest.update(data)
    return "v" + digest.hexdigest()[:10]


def catalog_version_stamped(catalog_dir: Path) -> str:
    """:func:`catalog_version`, hashed again only when a catalog file's path, size, mtime or
    inode changes (``hashing.by_stamps``): every page run asks for the served version, and
    hashing the whole catalog read ~8 MB each time."""
    key = ("catalog_version", str(catalog_dir.resolve()), schema_fingerprint())
    return by_stamps(catalog_files(catalog_dir), key, lambda: catalog_version(catalog_dir))


def new_manifest(
    version: str,
    catalog_dir: Path,
    counts: dict[str, int],
    categories: int,
    validators: list[str],
) -> dict:
    """The MANIFEST.json of a snapshot being built now from ``catalog_dir``."""
    files = catalog_files(catalog_dir)
    return {
        "version": version,
        "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "builder_format": BUILDER_FORMAT,
        "files": {p.relative_to(catalog_dir).as_posix(): file_sha256(p) for p in files},
        "tables": counts,
        "json": [
            p.relative_to(catalog_dir).as_posix() for p in files if p.suffix.lower() == ".json"
        ],
        "categories": categories,
        "tools": {
            "python": platform.python_version(),
            "pyarrow": pa.__version__,
            "validators": validators,
        },
    }


def output_hashes(folder: Path) -> dict[str, str]:
    """Relative path -> SHA-256 of every file under a snapshot folder except MANIFEST.json."""
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.relative_to(folder).as_posix() != MANIFEST
    }


def manifest_text(manifest: dict) -> str:
    """MANIFEST.json as written: indent 2, sorted keys, final newline."""
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def read_manifest(folder: Path) -> dict:
    """The MANIFEST.json of a built snapshot folder."""
    return json.loads((folder / MANIFEST).read_text())


def try_manifest(folder: Path) -> dict | None:
    """The manifest of ``folder``, or None when it is missing or does not parse as an object."""
    try:
        manifest = read_manifest(folder)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def built_at(folder: Path, manifest: dict) -> str:
    """When a snapshot was built: the manifest's ``built_at``, else (a hand-written manifest)
    the manifest file's modification time in the same format."""
    if isinstance(manifest.get("built_at"), str):
        return manifest["built_at"]
    mtime_s = (folder / MANIFEST).stat().st_mtime
    return datetime.fromtimestamp(mtime_s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def built_snapshots(snapshots_dir: Path) -> list[tuple[Path, dict]]:
    """(folder, manifest) of every built snapshot, oldest build first (then by folder name).

    A folder whose MANIFEST.json does not parse is left out (``snapshot check`` reports it).
    """
    if not snapshots_dir.is_dir():
        return []
    folders = [p for p in snapshots_dir.iterdir() if not p.name.startswith(".")]
    found = [(p, try_manifest(p)) for p in folders if (p / MANIFEST).is_file()]
    return sorted(
        ((p, m) for p, m in found if m is not None), key=lambda pm: (built_at(*pm), pm[0].name)
    )


def list_snapshots(snapshots_dir: Path) -> list[dict]:
    """Manifests of every built snapshot, oldest build first."""
    return [manifest for _, manifest in built_snapshots(snapshots_dir)]


def list_versions(snapshots_dir: Path) -> list[str]:
    """Versions (folder names) of every built snapshot, oldest build first."""
    return [folder.name for folder, _ in built_snapshots(snapshots_dir)]


def stale_temp_dirs(snapshots_dir: Path, max_age_s: float = STALE_TEMP_S) -> list[Path]:
    """Temp folders (``.tmp-*``) in ``snapshots_dir`` last modified over ``max_age_s`` ago:
    left behind by a build that was killed before its rename."""
    if not snapshots_dir.is_dir():
        return []
    cutoff = time.time() - max_age_s
    found = []
    for path in sorted(snapshots_dir.glob(TEMP_PREFIX + "*")):
        try:
            if path.is_dir() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                found.append(path)
        except OSError:  # removed meanwhile
            continue
    return found


def remove_stale_temp_dirs(snapshots_dir: Path, max_age_s: float = STALE_TEMP_S) -> list[Path]:
    """Delete the stale temp folders of ``snapshots_dir``; returns those removed."""
    removed = stale_temp_dirs(snapshots_dir, max_age_s)
    for path in removed:
        shutil.rmtree(path, ignore_errors=True)
    return removed
