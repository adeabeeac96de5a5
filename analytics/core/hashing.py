"""SHA-256 of files, bytes and text: the one implementation every store, cache, run record and
community bundle hashes with (hex digests throughout)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
CHUNK_BYTES = 1 << 20  # a file is hashed in blocks, so a large weights file never sits in memory


def file_sha256(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes (read in :data:`CHUNK_BYTES` blocks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(CHUNK_BYTES), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_hex(data: bytes | str) -> str:
    """Hex SHA-256 of bytes, or of text encoded as UTF-8."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


RACY_S = 2.0
"""A file modified less than this long ago is read again, never trusted by its stamp: a second
write within one tick of the file system's clock can leave size and mtime alike (git's
"racily clean" rule)."""
_BY_STAMPS: dict[tuple, object] = {}
_MAX_REMEMBERED = 64  # a long-lived server sees a few states of its files, not many


def by_stamps(files: Iterable[Path], key: tuple, compute: Callable[[], T]) -> T:
    """``compute()``, remembered for this process while every file of ``files`` keeps its path,
    size, mtime and inode (``key`` names what is computed): a hash over many files is read
    again only when one of them changes. Files modified in the last :data:`RACY_S` seconds
    are never remembered."""
    stamps, newest_ns = [], 0
    for path in files:
        stat = path.stat()
        stamps.append((str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino))
        newest_ns = max(newest_ns, stat.st_mtime_ns)
    full = (key, tuple(stamps))
    if full in _BY_STAMPS:
        return _BY_STAMPS[full]  # type: ignore[return-value]
    value = compute()
    if time.time_ns() - newest_ns > RACY_S * 1e9:
        if len(_BY_STAMPS) >= _MAX_REMEMBERED:
            _BY_STAMPS.clear()
        _BY_STAMPS[full] = value
    return value
