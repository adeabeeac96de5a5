"""Tables computed from one snapshot version alone, stored beside it in ``data/derived/<version>/``
under file names that carry a short hash of the code computing them (issue 13: a page's first
render reads them instead of redoing per-version work). The one mechanism behind
``analytics.llm.planner_inputs`` and ``analytics.llm.board_inputs``: a changed computation finds
no file under its new name, computes one and stores it (atomically); a damaged file is
recomputed; a read-only checkout is served what was computed, and nothing is stored.

Every stored file's sha256 is recorded in the folder's ``DIGESTS.json`` (issue 27): a file that
no longer matches its digest (truncated, edited) is damaged; readers recompute it instead of
serving it, and ``derive --check`` / ``snapshot check`` report it (:func:`damage_lines`)."""

from __future__ import annotations

import fcntl
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from analytics.core import atomic, paths

HASH_DIGITS = 12  # hex digits of the code hash in a file name
DIGESTS = "DIGESTS.json"
"""name -> sha256 of every stored file of one derived folder."""


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_digests(folder: Path) -> dict[str, str]:
    """The folder's digests; a file that does not parse reads as empty (every file then shows
    as having no recorded hash, which the checks report). Writes are atomic renames, so a
    reader needs no lock (and a read-only checkout can be read)."""
    try:
        found = json.loads((folder / DIGESTS).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


@contextmanager
def _digests(folder: Path) -> Iterator[dict[str, str]]:
    """The folder's digests for an update, under a cross-process lock, written back
    atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f".{DIGESTS}.lock", "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            found = _read_digests(folder)
            yield found
            atomic.write_json(folder / DIGESTS, dict(sorted(found.items())))
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def record_digest(path: Path) -> None:
    """Record the sha256 of a stored file in its folder's :data:`DIGESTS`."""
    with _digests(path.parent) as found:
        found[path.name] = file_sha256(path)


def forget_digests(folder: Path, names: Iterable[str]) -> None:
    """Drop the digests of removed files."""
    with _digests(folder) as found:
        for name in names:
            found.pop(name, None)


def damage(path: Path) -> str | None:
    """Why a stored file must not be served ('' never): missing, no recorded hash, or its
    bytes differ from the recorded hash; None when it is intact."""
    if not path.exists():
        return "missing"
    expected = _read_digests(path.parent).get(path.name)
    if expected is None:
        return "no content hash recorded"
    if file_sha256(path) != expected:
        return "content differs from its recorded sha256 (truncated or edited)"
    return None


def read_verified(path: Path) -> pd.DataFrame | None:
    """The table at ``path`` when it matches its recorded hash (or, with none recorded, when it
    reads); None when it is missing or damaged."""
    reason = damage(path)
    if reason and reason != "no content hash recorded":
        return None
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError):  # damaged (pyarrow's ArrowInvalid is a ValueError)
        return None


def store(path: Path, table: pd.DataFrame) -> None:
    """Write a table atomically (beside the old file, then renamed over it) and record its
    hash; a read-only checkout stores nothing."""
    try:
        atomic.write_parquet(path, table)
        record_digest(path)
    except OSError:
        pass


def damage_lines(folder: Path) -> list[str]:
    """One problem line per damaged Parquet file of a derived folder (see :func:`damage`)."""
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob("*.parquet")):
        reason = damage(path)
        if reason:
            where = path.relative_to(paths.SNAPSHOTS_DIR.parent) if _under_data(path) else path
            out.append(
                f"{where}: {reason}; fix: python -m analytics derive {folder.name}"
            )
    return out


def _under_data(path: Path) -> bool:
    try:
        path.relative_to(paths.SNAPSHOTS_DIR.parent)
    except ValueError:
        return False
    return True


def code_hash(sources: Iterable[str]) -> str:
    """First :data:`HASH_DIGITS` hex digits of a sha256 over the repository files ``sources``
    (their paths and contents, line endings normalised)."""
    digest = hashlib.sha256()
    for rel in sources:
        digest.update(rel.encode())
        digest.update((paths.REPO_ROOT / rel).read_bytes().replace(b"\r\n", b"\n"))
    return digest.hexdigest()[:HASH_DIGITS]


def table_path(folder: Path, name: str, digest: str) -> Path:
    """Where table ``name`` computed by code of hash ``digest`` is stored in ``folder``."""
    return folder / f"{name}_{digest}.parquet"


def remove_tables(folder: Path, names: Iterable[str], keep: Iterable[Path] = ()) -> None:
    """Delete every stored version (any code hash) of the tables ``names`` in ``folder``
    except ``keep`` (the current ones, written first: a reader always finds a file)."""
    kept = {Path(p).name for p in keep}
    gone = []
    for name in names:
        for old in folder.glob(f"{name}_*.parquet"):
            if old.name not in kept:
                old.unlink()
                gone.append(old.name)
    if gone:
        forget_digests(folder, gone)


def cached_table(target: Path, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table stored at ``target``, or ``compute()``'s, stored there when the folder is
    writable (also over a stored file that no longer reads: it is only a cache of what
    ``compute`` gives)."""
    if target.exists():
        table = read_verified(target)
        if table is not None:
            return table
    table = compute()
    store(target, table)  # a read-only checkout: served what was computed, nothing stored
    return table


def missing_reason(targets: Iterable[Path], what: str, fix: str) -> str | None:
    """None when every file of ``targets`` exists and matches its recorded hash; otherwise one
    line naming the first missing or damaged one (relative to ``data/``), ``what`` computes it
    and the command ``fix`` that writes it."""
    for target in targets:
        where = target.relative_to(paths.SNAPSHOTS_DIR.parent)
        if not target.exists():
            return f"{where} is missing (other {what} code); fix: {fix}"
        reason = damage(target)
        if reason:
            return f"{where}: {reason}; fix: {fix}"
    return None
