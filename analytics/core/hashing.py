"""SHA-256 of files, bytes and text: the one implementation every store, cache, run record and
community bundle hashes with (hex digests throughout)."""

from __future__ import annotations

import hashlib
from pathlib import Path

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
