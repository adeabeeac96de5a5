"""Append-only, hash-chained logs (one JSON object per line): the inbox audit log of maintainer
decisions (``measure.community.audit``) and the FL review record (``analytics.fl.review``).

Every line carries ``prev_sha256``, the chain value of the entries before it, and ``seq``, its
own entry number: the chain starts at ``GENESIS`` and each line ``L`` moves it to
``sha256(chain + "\\n" + L)``. An edited, dropped, inserted or reordered line breaks the chain at
the next line. The log's end is anchored twice: ``<log>.head`` and ``<log>.anchor`` (written
together with ``atomic.write_all``, created before the first chained line) hold the entry count
and chain value, so an edited or dropped *last* line is found too, and once the log has a
chained line a missing head (or, for a version-2 head, a missing anchor) is damage: deleting the
head and dropping the last line is reported.

Lines without ``prev_sha256`` (written before the chain existed, or stripped since) are
*unchained*: allowed only at the start, reported by ``Log.legacy_lines``, never "intact".

A crash mid-append leaves a *cut* line (no final newline). It is no decision: readers skip and
report it, and the next append starts on a new line (writes ``"\\n"`` first) and names the cut
lines' SHA-256 in ``torn_sha256``, so they stay covered by the chain. A line that is not JSON
and that no later line acknowledges is damage. Appends must hold their log's lock (the inbox
lock, ``measure.community.inbox.locked``; the review lock, ``analytics.fl.review.locked``).
docs/community.md.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from analytics.core import atomic
from analytics.core.problems import Problem

AUDIT_FILE = "audit.jsonl"
HEAD_SUFFIX = ".head"
ANCHOR_SUFFIX = ".anchor"
CHAIN_KEY = "prev_sha256"
SEQ_KEY = "seq"
TORN_KEY = "torn_sha256"
HEAD_FORMAT = "modelatlas-audit-head"
HEAD_VERSION = 2
"""Heads of this version have an anchor beside them; a missing anchor is then damage."""
GENESIS = hashlib.sha256(b"modelatlas-inbox-audit-v1").hexdigest()
"""The chain value before the first line (fixed, so a log cannot start anywhere else)."""
FIELDS = ("time_utc", "maintainer", "action", "bundle_id", "reason")
"""Every entry holds at least these: who, when (UTC), what, to which bundle, and why."""
RESTORE = "restore the log from backup; `python -m measure audit verify` checks it"
_NOT_JSON = object()


class AuditError(Problem, ValueError):
    """The log is damaged: ``where`` the file, ``what`` its line number and the damage, ``fix``."""


@dataclass(frozen=True)
class Log:
    """A verified log: entries (oldest first), chain head, entry count and what was skipped.

    ``legacy_lines``: line numbers without ``prev_sha256`` (unchained, not verified).
    ``torn_lines``: cut lines a later line acknowledges (skipped). ``pending``: (line number,
    SHA-256) of the cut lines at the end, which the next append acknowledges; ``cut``: the file
    does not end with a newline.
    """

    entries: list[dict[str, Any]]
    head: str
    lines: int
    legacy_lines: tuple[int, ...] = ()
    torn_lines: tuple[int, ...] = ()
    pending: tuple[tuple[int, str], ...] = ()
    cut: bool = False

    @property
    def legacy(self) -> int:
        """How many lines are unchained."""
        return len(self.legacy_lines)


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def link(chain: str, line: str) -> str:
    """The chain value after ``line`` (its text without the newline)."""
    return hashlib.sha256(f"{chain}\n{line}".encode()).hexdigest()


def head_path(path: Path) -> Path:
    """Where the log's head (entry count and chain value) is kept."""
    return Path(f"{path}{HEAD_SUFFIX}")


def anchor_path(path: Path) -> Path:
    """The head's second copy, written with it in one ``atomic.write_all``."""
    return Path(f"{path}{ANCHOR_SUFFIX}")


def ranges(numbers: tuple[int, ...] | list[int]) -> str:
    """``1-3, 7`` for [1, 2, 3, 7]."""
    out: list[str] = []
    for n in sorted(numbers):
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)


def _damaged(path: Path, number: int, what: str) -> AuditError:
    return AuditError(str(path), f"line {number} {what}", RESTORE)


def _split(path: Path) -> tuple[list[bytes], bool]:
    """The lines' bytes (a cut last line included) and whether the file lacks a final newline."""
    data = path.read_bytes() if path.exists() else b""
    if not data:
        return [], False
    raw = data.split(b"\n")
    return (raw if raw[-1] else raw[:-1]), bool(raw[-1])


def _sha(chunk: bytes) -> str:
    return hashlib.sha256(chunk).hexdigest()


def _parse(chunk: bytes) -> Any:
    try:
        return json.loads(chunk.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _NOT_JSON


def _acknowledged(path: Path, chunks: list[bytes], complete: int) -> set[int]:
    """Indexes of lines a later line names in ``torn_sha256`` (latest first, so a line that is
    itself acknowledged as cut acknowledges nothing)."""
    torn: set[int] = set()
    for i in range(complete - 1, -1, -1):
        doc = _parse(chunks[i]) if i not in torn else None
        acks = doc.get(TORN_KEY) if isinstance(doc, dict) else None
        if acks is None:
            continue
        if not isinstance(acks, list) or len(acks) > i or not all(isinstance(a, str) for a in acks):
            raise _damaged(path, i + 1, f"has a malformed {TORN_KEY}")
        for j, sha in zip(range(i - len(acks), i), acks, strict=True):
            if _sha(chunks[j]) != sha:
                raise _damaged(path, i + 1, f"names line {j + 1} as cut, but that line differs")
            torn.add(j)
    return torn


def _pending_start(chunks: list[bytes], cut: bool, torn: set[int]) -> int:
    """Where the trailing cut lines start (len(chunks) when there are none): the cut last line
    and the unreadable lines just before it (an append that was cut again)."""
    if not cut:
        return len(chunks)
    start = len(chunks) - 1
    while start > 0 and start - 1 not in torn and _parse(chunks[start - 1]) is _NOT_JSON:
        start -= 1
    return start


def _entry(path: Path, number: int, chunk: bytes) -> tuple[str, dict[str, Any]]:
    doc = _parse(chunk)
    if doc is _NOT_JSON:
        raise _damaged(path, number, "is not JSON")
    if not isinstance(doc, dict):
        raise _damaged(path, number, "is not a JSON object")
    return chunk.decode("utf-8"), doc


def _check_link(path: Path, number: int, entry: dict, chain: str, chained: bool) -> bool:
    """Whether the line is chained; raises when it breaks the chain."""
    prev = entry.get(CHAIN_KEY)
    if prev is None:
        if chained:
            raise _damaged(path, number, "has no prev_sha256 after chained lines (inserted)")
        return False
    if prev != chain and not chained and number == 1:
        raise _damaged(path, 1, "does not chain to the start: the first line was dropped or moved")
    if prev != chain:
        raise _damaged(
            path,
            number,
            f"does not chain to the lines before it: line {number - 1} was edited, or a line "
            "was dropped, inserted or moved here",
        )
    return True


def _read_head(head_file: Path) -> tuple[int, str, int]:
    try:
        head = json.loads(head_file.read_text())
        return int(head["lines"]), str(head["sha256"]), int(head.get("version", 1))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise AuditError(str(head_file), "unreadable head", RESTORE) from None


def _check_end(path: Path, chains: list[str], numbers: list[int], legacy: tuple) -> None:
    """Head and anchor still match a prefix of the log (an edited or dropped last line is
    found), and neither is missing once the log has a chained line."""
    unchained = f" (lines {ranges(legacy)} have no prev_sha256: stripped?)" if legacy else ""
    found = {}
    for anchor in (anchor_path(path), head_path(path)):
        if not anchor.exists():
            continue
        count, value, version = found[anchor] = _read_head(anchor)
        entries = len(chains) - 1
        if count > entries:
            last = numbers[-1] if numbers else 0
            what = f"is missing: the log has {entries} entries, {anchor.name} records {count}"
            raise _damaged(path, last + 1, what + unchained)
        if count >= 1 and chains[count] != value:
            raise _damaged(
                path, numbers[count - 1], f"was edited (the chain up to it differs from "
                f"{anchor.name}){unchained}"
            )
    head, anchor = head_path(path), anchor_path(path)
    if head not in found and (len(chains) - 1 > len(legacy) or anchor in found):
        raise AuditError(
            str(head),
            "is missing although the log has chained lines: it was deleted, so a dropped "
            "last line cannot be ruled out",
            RESTORE,
        )
    # a head of no entries without its anchor is the first write cut between its two renames
    # (head first): nothing can have been dropped yet, so it is no damage; the next append
    # writes both again
    if head in found and found[head][2] >= HEAD_VERSION and anchor not in found:
        if found[head][0] > 0 or len(chains) > 1:
            raise AuditError(str(anchor), "is missing (deleted?)", RESTORE)


def verify(path: Path) -> Log:
    """The verified log (an absent one is empty); AuditError naming the first damaged line."""
    path = Path(path)
    chunks, cut = _split(path)
    complete = len(chunks) - cut
    torn = _acknowledged(path, chunks, complete)
    pending_from = _pending_start(chunks, cut, torn)
    entries, chains, numbers, legacy, chained = [], [GENESIS], [], [], False
    for index in range(pending_from):
        if index in torn:
            continue
        number = index + 1
        line, entry = _entry(path, number, chunks[index])
        chained = _check_link(path, number, entry, chains[-1], chained)
        if not chained:
            legacy.append(number)
        if chained and entry.get(SEQ_KEY, len(entries) + 1) != len(entries) + 1:
            raise _damaged(path, number, f"has {SEQ_KEY} {entry.get(SEQ_KEY)!r}, expected "
                           f"{len(entries) + 1}")
        entries.append(entry)
        numbers.append(number)
        chains.append(link(chains[-1], line))
    _check_end(path, chains, numbers, tuple(legacy))
    pending = tuple((i + 1, _sha(chunks[i])) for i in range(pending_from, len(chunks)))
    torn_lines = tuple(sorted(i + 1 for i in torn))
    return Log(entries, chains[-1], len(entries), tuple(legacy), torn_lines, pending, cut)


def _write_anchors(path: Path, lines: int, chain: str) -> None:
    """Head and anchor in one ``atomic.write_all`` (both temp files complete before a rename)."""
    text = atomic.json_text(
        {"format": HEAD_FORMAT, "version": HEAD_VERSION, "lines": lines, "sha256": chain}
    )
    atomic.write_all(
        {
            head_path(path): lambda temp: temp.write_text(text),
            anchor_path(path): lambda temp: temp.write_text(text),
        }
    )


def append_entry(path: Path, fields: dict[str, Any]) -> dict[str, Any]:
    """Append one chained entry (``fields`` plus ``seq`` and ``prev_sha256``) and fsync it,
    then head and anchor; earlier lines never change. Raises AuditError, writing nothing, when
    the log is already damaged. Before the first chained line the head and anchor are created
    for the log as it is, so a crash between the line and its head never leaves a chained log
    without a head."""
    path = Path(path)
    log = verify(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not head_path(path).exists():
        _write_anchors(path, log.lines, log.head)
    entry = {**fields, SEQ_KEY: log.lines + 1, CHAIN_KEY: log.head}
    if log.pending:
        entry[TORN_KEY] = [sha for _, sha in log.pending]
    line = json.dumps(entry, sort_keys=True, allow_nan=False)
    atomic.append_bytes(path, (b"\n" if log.cut else b"") + (line + "\n").encode())
    _write_anchors(path, log.lines + 1, link(log.head, line))
    return entry


def append(
    path: Path, maintainer: str, action: str, bundle_id: str, reason: str = "", **extra: Any
) -> dict[str, Any]:
    """Append one chained decision and fsync it (then head and anchor); earlier lines never
    change. Raises AuditError, writing nothing, when the log is already damaged."""
    fields = {
        "time_utc": utc_now(),
        "maintainer": maintainer,
        "action": action,
        "bundle_id": bundle_id,
        "reason": reason,
        **extra,
    }
    return append_entry(path, fields)


def read(path: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first, after verifying the chain (AuditError when damaged)."""
    return verify(path).entries
