"""The append-only audit log of maintainer decisions (one JSON object per line, fsynced)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

AUDIT_FILE = "audit.jsonl"
FIELDS = ("time_utc", "maintainer", "action", "bundle_id", "reason")
"""Every entry holds at least these: who, when (UTC), what, to which bundle, and why."""


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def append(
    path: Path, maintainer: str, action: str, bundle_id: str, reason: str = "", **extra: Any
) -> dict[str, Any]:
    """Append one decision and fsync it before returning; earlier lines are never rewritten."""
    entry = {
        "time_utc": utc_now(),
        "maintainer": maintainer,
        "action": action,
        "bundle_id": bundle_id,
        "reason": reason,
        **extra,
    }
    line = (json.dumps(entry, sort_keys=True, allow_nan=False) + "\n").encode()
    path = Path(path)
    created = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        _fsync_dir(path.parent)
    return entry


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first (an absent log is empty)."""
    path = Path(path)
    if not path.exists():
        return []
    entries = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            raise ValueError(
                f"{path}: line {number} is not JSON; fix: restore the log from backup"
            ) from None
    return entries


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
