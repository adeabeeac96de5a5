"""Tables computed from one snapshot version alone, stored beside it in ``data/derived/<version>/``
so that a page's first render reads them instead of redoing per-version work. The one cache
behind every such table (``analytics.llm.ratings``, ``board_inputs``, ``planner_inputs``):
a changed computation finds no file under its new name, computes one and stores it (atomically);
a damaged file is recomputed; a read-only checkout is served what was computed, and nothing is
stored. :class:`TableSet` is a group of tables under code-hashed names (one hash of the code
that computes them); the ratings name their files by the rating method's version instead and
keep a manifest, through the same :func:`cached_table`.

Every stored file's sha256 is recorded in the folder's ``DIGESTS.json``, because a truncated or
hand-edited Parquet file can still read: a file that no longer matches its digest is damaged,
readers recompute it instead of serving it, and ``derive --check`` / ``snapshot check`` report it
(:func:`damage_lines`).

The federated track's cache (``analytics.fl.cache``) shares :func:`code_hash` for its key but
not this folder layout: its entries are keyed by a ZIP's bytes and name, not by a snapshot
version, and hold a validation or score set rather than one table."""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analytics.core import atomic, paths
from analytics.core.hashing import by_stamps, file_sha256

if TYPE_CHECKING:
    import pandas as pd

HASH_DIGITS = 12  # hex digits of the code hash in a file name
PARQUET, JSON = ".parquet", ".json"  # the two kinds of stored file
DIGESTS = "DIGESTS.json"
"""name -> sha256 of every stored file of one derived folder."""
REGENERATE = "python -m analytics derive"
"""The command that writes (or, with ``--check``, checks) a version's derived tables."""


def folder(version: str) -> Path:
    """The derived-data folder of one snapshot version (beside ``data/snapshots``)."""
    return paths.SNAPSHOTS_DIR.parent / "derived" / version


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


def read_verified(path: Path) -> pd.DataFrame | Any | None:
    """The table at ``path`` (a ``.json`` file: its parsed value) when it matches its recorded
    hash (or, with none recorded, when it reads); None when it is missing or damaged."""
    reason = damage(path)
    if reason and reason != "no content hash recorded":
        return None
    if path.suffix == JSON:
        try:
            return json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
    import pandas as pd  # here, not at the top: a command reading only JSON skips pandas

    try:
        return pd.read_parquet(path)
    except (OSError, ValueError):  # damaged (pyarrow's ArrowInvalid is a ValueError)
        return None


def as_stored(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` as its stored file reads back (a Parquet round trip in memory: text columns of
    Python objects come back as strings, for one): a table some readers compute and others
    read from its file is then the same frame either way."""
    import pandas as pd

    buffer = io.BytesIO()
    table.to_parquet(buffer, index=False)
    buffer.seek(0)
    return pd.read_parquet(buffer)


def store(path: Path, table: pd.DataFrame | Any) -> bool:
    """Write a table (to a ``.json`` path: a JSON value, compact) atomically (beside the old
    file, then renamed over it) and record its hash; whether it was stored (a read-only
    checkout stores nothing)."""
    try:
        if path.suffix == JSON:
            atomic.write_json(path, table, indent=None, allow_nan=False)  # keys in written order
        else:
            atomic.write_parquet(path, table)
        record_digest(path)
    except OSError:
        return False
    return True


def damage_lines(folder: Path) -> list[str]:
    """One problem line per damaged stored file of a derived folder (see :func:`damage`): every
    Parquet file, and every JSON file under a code-hashed name (not the folder's digests or
    the ratings' manifest)."""
    if not folder.is_dir():
        return []
    hashed = re.compile(rf"_[0-9a-f]{{{HASH_DIGITS}}}\{JSON}$")
    tables = [p for p in folder.glob("*.json") if hashed.search(p.name)]
    files = [*folder.glob(f"*{PARQUET}"), *tables]
    out = []
    for path in sorted(files):
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


def code_hash(sources: Iterable[str], extra: bytes = b"", digits: int = HASH_DIGITS) -> str:
    """First ``digits`` hex digits of a sha256 over the repository files ``sources`` (their
    paths and contents, line endings normalised so a Windows checkout hashes alike), then
    ``extra`` (values the computation also depends on). Read again only when a file's stamp
    changes (``hashing.by_stamps``): a page names a table's file several times a run."""
    sources = tuple(sources)
    files = [paths.REPO_ROOT / rel for rel in sources]
    return by_stamps(files, ("code_hash", sources, extra, digits),
                     lambda: _code_hash(sources, extra, digits))


def _code_hash(sources: tuple[str, ...], extra: bytes, digits: int) -> str:
    digest = hashlib.sha256()
    for rel in sources:
        digest.update(rel.encode())
        digest.update((paths.REPO_ROOT / rel).read_bytes().replace(b"\r\n", b"\n"))
    digest.update(extra)
    return digest.hexdigest()[:digits]


def table_path(folder: Path, name: str, digest: str, suffix: str = PARQUET) -> Path:
    """Where table ``name`` computed by code of hash ``digest`` is stored in ``folder``."""
    return folder / f"{name}_{digest}{suffix}"


def remove_tables(
    folder: Path, names: Iterable[str], keep: Iterable[Path] = (), suffix: str = PARQUET
) -> None:
    """Delete every stored version (any code hash) of the tables ``names`` in ``folder``
    except ``keep`` (the current ones, written first: a reader always finds a file)."""
    kept = {Path(p).name for p in keep}
    gone = []
    for name in names:
        for old in folder.glob(f"{name}_*{suffix}"):
            if old.name not in kept:
                old.unlink()
                gone.append(old.name)
    if gone:
        forget_digests(folder, gone)


def cached_table(
    target: Path | None,
    compute: Callable[[], pd.DataFrame],
    stored: Callable[[Path], None] | None = None,
) -> pd.DataFrame:
    """The table stored at ``target``, or ``compute()``'s, stored there when the folder is
    writable (also over a stored file that no longer reads: it is only a cache of what
    ``compute`` gives). ``target`` None (ad-hoc data, no version): computed, never stored.
    ``stored(target)`` runs after a successful store (the ratings' manifest entry)."""
    if target is not None and target.exists():
        table = read_verified(target)
        if table is not None:
            return table
    table = compute()
    if target is not None and store(target, table) and stored is not None:
        stored(target)
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


@dataclass
class TableSet:
    """Tables of one snapshot version computed by one body of code: stored as
    ``<name>_<code hash>.parquet`` (or ``.json``) in :func:`folder`, so changed code never serves
    an old file.

    ``sources`` are the repository files whose code computes them (a test checks each set's list
    against the imports of the code that computes it); ``what`` names the tables in a problem
    line ('planner', 'leaderboard'). Not frozen, so a test can stand in another code hash."""

    names: tuple[str, ...]
    sources: tuple[str, ...]
    what: str
    suffix: str = PARQUET  # JSON: each "table" is one JSON value (``read_verified``, ``store``)

    def source_hash(self) -> str:
        """Short hash of :attr:`sources` (:func:`code_hash`)."""
        return code_hash(self.sources)

    def path(self, version: str, name: str) -> Path:
        """The file of table ``name`` for ``version`` and the current code."""
        return table_path(folder(version), name, self.source_hash(), self.suffix)

    def paths(self, version: str) -> list[Path]:
        """Every table's file for ``version`` and the current code, in :attr:`names` order."""
        digest = self.source_hash()
        return [table_path(folder(version), name, digest, self.suffix) for name in self.names]

    def cached(
        self, version: str | None, name: str, compute: Callable[[], pd.DataFrame]
    ) -> pd.DataFrame:
        """The stored table ``name`` of ``version``, or ``compute()``'s, stored
        (:func:`cached_table`); no version: computed, not stored."""
        return cached_table(self.path(version, name) if version else None, compute)

    def stored(self, version: str, name: str) -> pd.DataFrame | None:
        """The stored table ``name`` of ``version`` for the current code when it is there and
        intact, else None (nothing computed: for a reader that must not write)."""
        path = self.path(version, name)
        return read_verified(path) if path.exists() else None

    def refresh(self, version: str, write: Callable[[], object]) -> list[Path]:
        """``derive``'s step for this set: ``write()`` (which stores the tables) only when one
        is stale or damaged, then the files of other code removed; returns the current files.
        Nothing is read when every table is current and intact."""
        if self.stale_reason(version) is not None:
            write()
        return self.remove_older(version)

    def remove_older(self, version: str) -> list[Path]:
        """Delete the stored tables of ``version`` written by other code (other hashes), after
        the current ones are written; returns the current files."""
        current = self.paths(version)
        remove_tables(folder(version), self.names, keep=current, suffix=self.suffix)
        return current

    def stale_reason(self, version: str) -> str | None:
        """None when every table of ``version`` exists for the current code and matches its
        recorded hash; otherwise one line naming the first that does not, and the fix."""
        return missing_reason(self.paths(version), self.what, f"{REGENERATE} {version}")
