"""The append-only, hash-chained audit log of maintainer decisions (one JSON object per line).

Every line carries ``prev_sha256``, the chain value of the lines before it: the chain starts at
``GENESIS`` and each line ``L`` moves it to ``sha256(chain + "\\n" + L)``. An edited, dropped,
inserted or reordered line breaks the chain at the next line; ``<log>.head`` (rewritten after
every append) holds the line count and chain value, so an edited or dropped *last* line is found
too. Lines written before the chain existed (no ``prev_sha256``) are verified as a legacy
prefix: they are allowed only at the start, and the first chained line pins all of them.
Appends must hold the inbox lock (``measure.community.inbox.locked``). docs/community.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analytics.core import atomic, problems

AUDIT_FILE = "audit.jsonl"
HEAD_SUFFIX = ".head"
CHAIN_KEY = "prev_sha256"
GENESIS = hashlib.sha256(b"modelatlas-inbox-audit-v1").hexdigest()
"""The chain value before the first line (fixed, so a log cannot start anywhere else)."""
FIELDS = ("time_utc", "maintainer", "action", "bundle_id", "reason")
"""Every entry holds at least these: who, when (UTC), what, to which bundle, and why."""
RESTORE = "restore the log from backup; `python -m measure audit verify` checks it"


class AuditError(ValueError):
    """The log is damaged: one line naming the file, the line number and the fix."""


@dataclass(frozen=True)
class Log:
    """A verified log: its entries (oldest first), chain head, line count and legacy lines."""

    entries: list[dict[str, Any]]
    head: str
    lines: int
    legacy: int


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def link(chain: str, line: str) -> str:
    """The chain value after ``line`` (its text without the newline)."""
    return hashlib.sha256(f"{chain}\n{line}".encode()).hexdigest()


def head_path(path: Path) -> Path:
    """Where the log's head (line count and chain value) is kept."""
    return Path(f"{path}{HEAD_SUFFIX}")


def _damaged(path: Path, number: int, what: str) -> AuditError:
    return AuditError(problems.line(f"{path}", f"line {number} {what}", RESTORE))


def _lines(path: Path) -> list[str]:
    data = path.read_bytes() if path.exists() else b""
    raw = data.split(b"\n")
    if raw[-1]:
        raise _damaged(path, len(raw), "is incomplete (no final newline; an append was cut)")
    out = []
    for number, chunk in enumerate(raw[:-1], start=1):
        try:
            out.append(chunk.decode("utf-8"))
        except UnicodeDecodeError:
            raise _damaged(path, number, "is not UTF-8 text") from None
    return out


def _entry(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        raise _damaged(path, number, "is not JSON") from None
    if not isinstance(entry, dict):
        raise _damaged(path, number, "is not a JSON object")
    return entry


def _check_link(path: Path, number: int, entry: dict, chain: str, chained: bool) -> bool:
    """Whether the line is chained; raises when it breaks the chain."""
    prev = entry.get(CHAIN_KEY)
    if prev is None:
        if chained:
            raise _damaged(path, number, "has no prev_sha256 after chained lines (inserted)")
        return False
    if prev != chain and number == 1:
        raise _damaged(path, 1, "does not chain to the start: the first line was dropped or moved")
    if prev != chain:
        raise _damaged(
            path,
            number,
            f"does not chain to the lines before it: line {number - 1} was edited, or a line "
            "was dropped, inserted or moved here",
        )
    return True


def _check_head(path: Path, chains: list[str]) -> None:
    """The recorded head still matches (catches an edited or dropped last line)."""
    head_file = head_path(path)
    if not head_file.exists():
        return
    try:
        head = json.loads(head_file.read_text())
        count, value = int(head["lines"]), str(head["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        raise AuditError(problems.line(f"{head_file}", "unreadable head", RESTORE)) from None
    if count > len(chains) - 1:
        what = f"is missing: the log has {len(chains) - 1} lines, its head records {count}"
        raise _damaged(path, len(chains), what)
    if count >= 1 and chains[count] != value:
        raise _damaged(path, count, "was edited (the chain up to it differs from the head)")


def verify(path: Path) -> Log:
    """The verified log (an absent one is empty); AuditError naming the first damaged line."""
    path = Path(path)
    entries, chains, chained, legacy = [], [GENESIS], False, 0
    for number, line in enumerate(_lines(path), start=1):
        entry = _entry(path, number, line)
        chained = _check_link(path, number, entry, chains[-1], chained)
        legacy += not chained
        entries.append(entry)
        chains.append(link(chains[-1], line))
    _check_head(path, chains)
    return Log(entries, chains[-1], len(entries), legacy)


def append(
    path: Path, maintainer: str, action: str, bundle_id: str, reason: str = "", **extra: Any
) -> dict[str, Any]:
    """Append one chained decision and fsync it (then the head); earlier lines never change.

    Raises AuditError, writing nothing, when the log is already damaged.
    """
    path = Path(path)
    log = verify(path)
    entry = {
        "time_utc": utc_now(),
        "maintainer": maintainer,
        "action": action,
        "bundle_id": bundle_id,
        "reason": reason,
        **extra,
        CHAIN_KEY: log.head,
    }
    line = json.dumps(entry, sort_keys=True, allow_nan=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic.append_bytes(path, (line + "\n").encode())
    atomic.write_json(head_path(path), {"lines": log.lines + 1, "sha256": link(log.head, line)})
    return entry


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first, after verifying the chain (AuditError when damaged)."""
    return verify(path).entries
