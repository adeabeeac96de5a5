"""Reading a file a user names on the command line: regular files only, bounded.

A device (``/dev/zero``), a FIFO or a folder given where a file is expected would otherwise be
read without end, hang the command, or fail with a traceback; each is one problem line here.
The file is opened without blocking (a FIFO with no writer does not hang the open), checked
with ``fstat`` on the open descriptor (so a swap after a check cannot slip in), and read at
most ``max_bytes + 1`` bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from analytics.core.problems import Problem


class FileRefused(Problem, ValueError):
    """A path that is not a readable regular file within the size cap."""


def read_regular(path: Path, max_bytes: int, fix: str = "name a regular file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; ``FileRefused`` (one
    line) for anything else: missing, unreadable, not a regular file, or too large."""
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise FileRefused(where, f"cannot be opened ({exc.strerror})", fix) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(where, "is not a regular file (a device, FIFO or folder)", fix)
        if info.st_size > max_bytes:
            raise FileRefused(where, f"is {info.st_size} bytes, over the cap of {max_bytes}", fix)
        chunks, size = [], 0
        while block := os.read(fd, min(1 << 20, max_bytes + 1 - size)):
            chunks.append(block)
            size += len(block)
            if size > max_bytes:
                raise FileRefused(where, f"grew past the cap of {max_bytes} bytes", fix)
        return b"".join(chunks)
    except OSError as exc:
        raise FileRefused(where, f"cannot be read ({exc.strerror})", fix) from None
    finally:
        os.close(fd)
