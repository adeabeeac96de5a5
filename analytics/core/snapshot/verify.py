"""Checking built snapshots against their hashes, and rebuilding a damaged one.

A build records the SHA-256 of every file it writes in MANIFEST.json (``outputs``). A snapshot
built before that has no such record; its reference is then a rebuild from a catalog that hashes
to its version (the given catalog folder, else, with ``history=True``, a commit of
``data/catalog`` in git), and when none does, the Parquet files are only checked to read (and
the JSON files against the catalog hashes of the manifest), reported as "no hashes recorded".
The builder is deterministic, so a rebuild writes the same bytes.

Every damaged file is one problem line ``<file>: <what>; fix: <what to do>``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import pyarrow.parquet as pq

from analytics.core import atomic, paths, schema
from analytics.core.hashing import file_sha256
from analytics.core.problems import at, display_path
from analytics.core.snapshot.build import build
from analytics.core.snapshot.checks import CatalogError
from analytics.core.snapshot.manifest import (
    MANIFEST,
    OUTPUTS,
    TEMP_PREFIX,
    DamagedSnapshot,
    catalog_version,
    output_hashes,
    schema_fingerprint,
    try_manifest,
)

REPAIR_FIX = "run `python -m analytics snapshot check --repair` (rebuilds it from its catalog)"
_PARQUET_MAGIC = b"PAR1"
_GIT_CATALOG = "data/catalog"


@dataclass(frozen=True)
class Check:
    """The result of checking one snapshot folder."""

    folder: Path
    damaged: tuple[str, ...]
    """One problem line per damaged, missing or unexpected file."""
    reference: str | None
    """What the files were compared with (``the manifest hashes``, ``a rebuild of …``); None
    when no hashes exist and only the Parquet footers and JSON catalog hashes were checked."""

    @property
    def version(self) -> str:
        return self.folder.name

    @property
    def ok(self) -> bool:
        return not self.damaged

    def summary(self) -> str:
        """One line: the first damaged file, how many more, and the fix."""
        return f"{self.what()}; fix: {self.damaged[0].split('; fix: ', 1)[-1]}"

    def what(self) -> str:
        """The first damaged file and what is wrong, with how many more files are damaged."""
        first = self.damaged[0].split("; fix: ", 1)[0]
        more = len(self.damaged) - 1
        return first + (f" (and {more} more damaged files)" if more else "")


# --- references -------------------------------------------------------------------------------


def _git_catalogs(repo: Path) -> list[str]:
    """Commits that touched ``data/catalog``, newest first (none without git)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "log", "--format=%H", "--", _GIT_CATALOG],
            capture_output=True, text=True, timeout=30, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.split() if done.returncode == 0 else []


def _git_extract(repo: Path, commit: str, into: Path) -> Path | None:
    """``data/catalog`` at ``commit`` extracted under ``into``; None when git fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "archive", "--format=tar", commit, _GIT_CATALOG],
            capture_output=True, timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4
            archive.extractall(into, filter="data")
        else:  # pragma: no cover - our own repository's archive
            archive.extractall(into)  # noqa: S202
    return into / _GIT_CATALOG


@contextmanager
def matching_catalog(
    version: str, catalog_dir: Path | None, *, history: bool = False
) -> Iterator[tuple[Path, str] | None]:
    """(catalog folder, description) of a catalog that hashes to ``version``, or None: the given
    folder, else (``history``) the newest commit of ``data/catalog`` in git that does."""
    if catalog_dir is not None and catalog_dir.is_dir():
        spec = _schema_for(catalog_dir, version)
        if spec is not None:
            with _schema(spec):
                yield catalog_dir, display_path(catalog_dir)
            return
    with tempfile.TemporaryDirectory(prefix="modelatlas-catalog-") as tmp:
        for commit in _git_catalogs(paths.REPO_ROOT) if history else []:
            key = (commit, schema_fingerprint())
            if key in _HISTORY and version not in _HISTORY[key]:
                continue  # hashed before in this process, to other versions
            found = _git_extract(paths.REPO_ROOT, commit, Path(tmp) / commit)
            if found is None or not found.is_dir():
                continue
            versions = _HISTORY.setdefault(key, _versions_of(found))
            if version in versions:
                at = versions.index(version)
                with _schema(PAST_SCHEMAS[at - 1] if at else {}):
                    yield found, f"{_GIT_CATALOG} at git commit {commit[:10]}"
                return
        yield None


_HISTORY: dict[tuple[str, bytes], tuple[str, ...]] = {}
"""(git commit, today's schema) -> the versions that commit's catalog hashes to under today's
schema and each of :data:`PAST_SCHEMAS`: a commit never changes, so a process that checks
several snapshots against the history extracts and hashes each commit once, not once per
snapshot (a snapshot no commit matches walked the whole history each time)."""


def _versions_of(catalog_dir: Path) -> tuple[str, ...]:
    """The catalog's version under today's schema, then under each of :data:`PAST_SCHEMAS`."""
    found = [catalog_version(catalog_dir)]
    for spec in PAST_SCHEMAS:
        with schema.tables_as(spec):
            found.append(catalog_version(catalog_dir))
    return tuple(found)


PAST_SCHEMAS = json.loads(Path(__file__).with_name("past_schemas.json").read_text("utf-8"))
"""Earlier schemas (newest first): a snapshot built under one still hashes and rebuilds. A change
to ``schema.TABLES`` appends the spec it replaces here (``[[column, dtype, required], ...]`` per
table), or older snapshots can no longer be checked against their catalog."""


def _schema_for(catalog_dir: Path, version: str) -> dict | None:
    """The schema under which ``catalog_dir`` hashes to ``version`` ({} = today's), or None."""
    if catalog_version(catalog_dir) == version:
        return {}
    for spec in PAST_SCHEMAS:
        with schema.tables_as(spec):
            if catalog_version(catalog_dir) == version:
                return spec
    return None


@contextmanager
def _schema(spec: dict) -> Iterator[None]:
    if not spec:
        yield
        return
    with schema.tables_as(spec):
        yield


_REBUILT: dict[str, dict[str, str]] = {}
"""Version -> output hashes of a rebuild (a version's content never changes)."""


def rebuilt_hashes(
    version: str, catalog_dir: Path | None, *, history: bool = False
) -> tuple[dict[str, str], str] | None:
    """(output hashes, description) of ``version`` rebuilt in a temp folder, or None when no
    catalog hashes to it or it does not build."""
    with matching_catalog(version, catalog_dir, history=history) as found:
        if found is None:
            return None
        catalog, source = found
        if version not in _REBUILT:
            with tempfile.TemporaryDirectory(prefix="modelatlas-rebuild-") as tmp:
                try:
                    result = build(catalog, Path(tmp))
                except (CatalogError, OSError):
                    return None
                _REBUILT[version] = output_hashes(result.path)
        return _REBUILT[version], f"a rebuild of {source}"


# --- checks -----------------------------------------------------------------------------------


def _unsafe(rel: str) -> bool:
    parts = PurePosixPath(rel).parts
    return not parts or PurePosixPath(rel).is_absolute() or ".." in parts


def _compare(folder: Path, reference: dict[str, str], source: str) -> list[str]:
    """Problem lines for files missing, differing from ``reference`` or not listed in it."""
    problems = []
    for rel, digest in sorted(reference.items()):
        path = folder / rel
        if _unsafe(rel):
            what = f"lists the unsafe path {rel!r}"
            problems.append(at(folder / MANIFEST, None, what, REPAIR_FIX))
        elif not path.is_file():
            problems.append(at(path, None, "is missing", REPAIR_FIX))
        elif file_sha256(path) != digest:
            what = f"is damaged: its SHA-256 differs from {source}"
            problems.append(at(path, None, what, REPAIR_FIX))
    for rel in sorted(set(output_hashes(folder)) - set(reference)):
        what = f"is not part of the snapshot ({source} does not list it)"
        problems.append(at(folder / rel, None, what, "delete it"))
    return problems


def _parquet_problem(path: Path) -> str | None:
    """Why a Parquet file does not read (magic bytes, footer, pages), or None."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
            handle.seek(-4, os.SEEK_END)
            tail = handle.read(4)
        if head != _PARQUET_MAGIC or tail != _PARQUET_MAGIC:
            return "has no Parquet magic bytes"
        pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - any reader failure means the file is damaged
        return f"does not read as Parquet ({type(exc).__name__})"
    return None


def _structural(folder: Path, manifest: dict) -> list[str]:
    """Without recorded hashes: every Parquet file reads, every JSON file matches the catalog
    hash in the manifest (JSON is copied byte for byte)."""
    problems = []
    for path in sorted(folder.rglob("*.parquet")):
        why = _parquet_problem(path)
        if why:
            problems.append(at(path, None, f"is damaged: it {why}", REPAIR_FIX))
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    for rel in manifest.get("json", []) if isinstance(manifest.get("json"), list) else []:
        path = folder / str(rel)
        if rel in files and not _unsafe(str(rel)):
            if not path.is_file():
                problems.append(at(path, None, "is missing", REPAIR_FIX))
            elif file_sha256(path) != files[rel]:
                what = "is damaged: its SHA-256 differs from the catalog file's in the manifest"
                problems.append(at(path, None, what, REPAIR_FIX))
    return problems


def check_snapshot(
    folder: Path, catalog_dir: Path | None = None, *, history: bool = False
) -> Check:
    """Re-hash every file of a snapshot folder against its reference (see the module)."""
    manifest = try_manifest(folder)
    if manifest is None:
        what = "is missing or does not parse as a JSON object"
        return Check(folder, (at(folder / MANIFEST, None, what, REPAIR_FIX),), None)
    recorded = manifest.get(OUTPUTS)
    if isinstance(recorded, dict):
        return Check(folder, tuple(_compare(folder, recorded, "the manifest")), "the manifest")
    rebuilt = rebuilt_hashes(folder.name, catalog_dir, history=history)
    if rebuilt is not None:
        return Check(folder, tuple(_compare(folder, *rebuilt)), rebuilt[1])
    return Check(folder, tuple(_structural(folder, manifest)), None)


_CACHE: dict[tuple, Check] = {}
_LOCK = threading.Lock()


def _signature(folder: Path) -> tuple:
    """(path, size, mtime) of every file under ``folder``: a cheap change detector."""
    found = []
    for path in sorted(folder.rglob("*")):
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append((path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def check_cached(folder: Path, catalog_dir: Path | None = None) -> Check:
    """``check_snapshot`` once per process for each state of the folder's files (a file that
    changes size or mtime is checked again)."""
    key = (str(folder.resolve()), str(catalog_dir), _signature(folder))
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = check_snapshot(folder, catalog_dir)
        return _CACHE[key]


# --- repair -----------------------------------------------------------------------------------


def repair(
    version: str, snapshots_dir: Path, catalog_dir: Path | None, *, history: bool = False
) -> str:
    """Rebuild ``version`` from a catalog that hashes to it and swap it in for the damaged
    folder (two renames inside ``snapshots_dir``); returns where it was rebuilt from.

    Raises :class:`DamagedSnapshot` (one line) when no catalog hashes to the version.
    """
    final = snapshots_dir / version
    with matching_catalog(version, catalog_dir, history=history) as found:
        if found is None:
            what = f"no catalog (given folder or git history) hashes to {version}"
            raise DamagedSnapshot(at(final, None, what, "restore the folder from a backup"))
        catalog, source = found
        work = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}repair-{version}-", dir=snapshots_dir))
        try:
            built = build(catalog, work)
            if final.exists():
                os.replace(final, work / "damaged")
            atomic.replace_dir(built.path, final)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return source
