"""Tables computed from one snapshot version alone, stored beside it in ``data/derived/<version>/``
under file names that carry a short hash of the code computing them (issue 13: a page's first
render reads them instead of redoing per-version work). The one mechanism behind
``analytics.llm.planner_inputs`` and ``analytics.llm.board_inputs``: a changed computation finds
no file under its new name, computes one and stores it (atomically); a damaged file is
recomputed; a read-only checkout is served what was computed, and nothing is stored."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from analytics.core import atomic, paths

HASH_DIGITS = 12  # hex digits of the code hash in a file name


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


def remove_tables(folder: Path, names: Iterable[str]) -> None:
    """Delete every stored version (any code hash) of the tables ``names`` in ``folder``."""
    for name in names:
        for old in folder.glob(f"{name}_*.parquet"):
            old.unlink()


def cached_table(target: Path, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The table stored at ``target``, or ``compute()``'s, stored there when the folder is
    writable (also over a stored file that no longer reads: it is only a cache of what
    ``compute`` gives)."""
    if target.exists():
        try:
            return pd.read_parquet(target)
        except (OSError, ValueError):  # damaged (pyarrow's ArrowInvalid is a ValueError)
            pass
    table = compute()
    try:
        atomic.write_parquet(target, table)
    except OSError:  # a read-only checkout: serve what was computed, store nothing
        pass
    return table


def missing_reason(targets: Iterable[Path], what: str, fix: str) -> str | None:
    """None when every file of ``targets`` exists; otherwise one line naming the first missing
    one (relative to ``data/``), ``what`` computes it and the command ``fix`` that writes it."""
    for target in targets:
        if not target.exists():
            where = target.relative_to(paths.SNAPSHOTS_DIR.parent)
            return f"{where} is missing (other {what} code); fix: {fix}"
    return None
