"""Atomic file writes: readers see the old file or the whole new one, never a part.

Every write goes to a temp file in the target's folder (so the rename stays on one filesystem),
is fsynced, made readable like any repository file (0644; ``mkstemp`` creates 0600) and renamed
over the target with ``os.replace``. On any error the temp file is removed and the target is
untouched. This is the project's one implementation; every store uses it.
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


def fsync_replace(temp: Path, path: Path) -> None:
    """fsync ``temp``, give it the repository file mode and rename it over ``path``."""
    with open(temp, "rb") as handle:
        os.fsync(handle.fileno())
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


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically write ``data`` to ``path``."""
    write_with(path, lambda temp: temp.write_bytes(data))


def write_text(path: Path, text: str) -> None:
    """Atomically write UTF-8 ``text`` to ``path``."""
    write_with(path, lambda temp: temp.write_text(text, encoding="utf-8"))


def write_json(path: Path, payload: Any, *, indent: int | None = 1) -> None:
    """Atomically write ``payload`` as JSON (NaN and infinity refused) with a final newline."""
    text = json.dumps(payload, indent=indent, allow_nan=False) + "\n"
    write_text(path, text)


def write_parquet(path: Path, frame: Any) -> None:
    """Atomically write a pandas DataFrame as one Parquet file (no index)."""
    write_with(path, lambda temp: frame.to_parquet(temp, index=False))
