"""Atomic file writes: readers see the old file or the whole new one, never a part.

Every write goes to a temp file in the target's folder (so the rename stays on one filesystem),
is fsynced, made readable like any repository file (0644; ``mkstemp`` creates 0600) and renamed
over the target with ``os.replace``. On any error the temp file is removed and the target is
untouched. Append-only logs use ``append_bytes`` (one write, fsynced) and folders published in
one step use ``temp_dir_beside`` + ``fsync_tree`` + ``replace_dir``. This is the project's one
implementation; every store uses it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

FILE_MODE = 0o644


def temp_beside(path: Path) -> Path:
    """A new, empty temp file next to ``path`` (its folder is created when missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(name)


def fsync_file(path: Path) -> None:
    """fsync one file's contents to disk."""
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def fsync_replace(temp: Path, path: Path) -> None:
    """fsync ``temp``, give it the repository file mode and rename it over ``path``."""
    fsync_file(temp)
    os.chmod(temp, FILE_MODE)
    os.replace(temp, path)


def fsync_dir(folder: Path) -> None:
    """fsync a folder so a rename inside it survives a crash (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_with(path: Path, fill: Callable[[Path], Any]) -> None:
    """Atomically create ``path`` from whatever ``fill(temp_path)`` writes to the temp file."""
    path = Path(path)
    temp = temp_beside(path)
    try:
        fill(temp)
        fsync_replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def write_all(fills: dict[Path, Callable[[Path], Any]]) -> None:
    """Atomically create several files: every temp file is complete before any rename.

    ``fills`` maps each target to a function that writes its temp file. An error while filling
    leaves every target untouched (a crash during the renames can leave some renamed).
    """
    temps: dict[Path, Path] = {}
    try:
        for path, fill in fills.items():
            temps[Path(path)] = temp_beside(Path(path))
            fill(temps[Path(path)])
        for path, temp in temps.items():
            fsync_replace(temp, path)
    finally:
        for temp in temps.values():
            temp.unlink(missing_ok=True)


def temp_dir_beside(path: Path) -> Path:
    """A new, empty temp folder next to ``path`` (for a folder published in one rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".tmp-{path.name}-", dir=path.parent))


def fsync_tree(folder: Path) -> None:
    """fsync every file under ``folder``, then every folder, deepest first."""
    found = sorted(Path(folder).rglob("*"))
    for path in found:
        if path.is_file():
            fsync_file(path)
    for sub in sorted({p.parent for p in found} | {Path(folder)}, reverse=True):
        fsync_dir(sub)


def replace_dir(temp: Path, path: Path) -> None:
    """Rename the complete folder ``temp`` to ``path`` (an empty or absent one) and fsync the
    parent; raises OSError when ``path`` is a non-empty folder."""
    os.replace(temp, path)
    fsync_dir(Path(path).parent)


def append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` in one write and fsync it (the folder too when the file is
    new); what was there before is never rewritten."""
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(path.parent)


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically write ``data`` to ``path``."""
    write_with(path, lambda temp: temp.write_bytes(data))


def create_bytes(path: Path, data: bytes) -> None:
    """Atomically create ``path`` holding ``data``; ``FileExistsError`` when it exists already
    (also when another writer creates it first: ``os.link`` never replaces, unlike a rename)."""
    path = Path(path)
    temp = temp_beside(path)
    try:
        temp.write_bytes(data)
        fsync_file(temp)
        os.chmod(temp, FILE_MODE)
        os.link(temp, path)
        fsync_dir(path.parent)
    finally:
        temp.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> None:
    """Atomically write UTF-8 ``text`` to ``path``."""
    write_with(path, lambda temp: temp.write_text(text, encoding="utf-8"))


def json_text(payload: Any, *, indent: int | None = 1, **options: Any) -> str:
    """``payload`` as JSON text with a final newline (NaN and infinity refused unless
    ``allow_nan=True``); ``options`` go to ``json.dumps`` (``sort_keys``, ``separators``)."""
    options.setdefault("allow_nan", False)
    return json.dumps(payload, indent=indent, **options) + "\n"


def write_json(path: Path, payload: Any, *, indent: int | None = 1, **options: Any) -> None:
    """Atomically write ``json_text(payload, indent=indent, **options)`` to ``path``."""
    write_text(path, json_text(payload, indent=indent, **options))


def write_parquet(path: Path, frame: Any) -> None:
    """Atomically write a pandas DataFrame as one Parquet file (no index)."""
    write_with(path, lambda temp: frame.to_parquet(temp, index=False))
