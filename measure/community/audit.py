"""The append-only audit log of maintainer decisions (one JSON object per line, fsynced)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analytics.core import atomic

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
    atomic.append_bytes(Path(path), line)
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
