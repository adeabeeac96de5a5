"""Maintainer review of FL uploads: an append-only decision record beside the stored ZIPs.

An upload is ``unverified`` from the moment it is stored until a maintainer accepts or rejects
it. Every event (received, accepted, rejected) is one JSON line in
``data/runs/fl_submissions/reviews.jsonl`` naming the ZIP, its sha256, who and when; lines are
only ever appended, hash-chained like the inbox audit log (``analytics.core.hashlog``: each
line names the chain value before it, the ends are kept in ``reviews.jsonl.head`` and
``.anchor``), so an edited, dropped or inserted decision breaks the chain, and then no upload is
ranked. The state of a stored ZIP is its latest decision whose sha256 matches the file now on
disk, so a replaced file is unverified again. Who may decide is checked by the caller (the
page's maintainer sign-in); this module only records the name it is given.

Decisions are serialised: every append holds an exclusive ``flock(2)`` on
``reviews.jsonl.lock`` (across processes and threads), and a decision reads the record, checks
it and appends its line under that one lock. A decision is refused (one problem line) when the
upload is no longer in the state the maintainer saw (``seen``): of two maintainers deciding the
same unverified upload at once, exactly one is recorded. A rejected upload stays rejected; an
accepted one can be withdrawn only by a rejection made while seeing it accepted.

The record is the only state, and each event is one write, so a kill leaves the old state or
the new one: an event counts once its whole JSON object is on disk. A last line cut short by a
kill (no final newline, not JSON) is skipped and reported by readers, and the next append
writes ``"\\n"`` first so the cut line never merges with the next event (it stays a reported,
uncounted line). A prefix of a JSON object is never itself a JSON object, so a line counts the
same before and after that newline is added.
"""

from __future__ import annotations

import fcntl
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from analytics.core import hashlog, paths
from analytics.core import problems as problem_text
from analytics.core.hashing import file_sha256
from analytics.core.problems import Problem

UNVERIFIED, ACCEPTED, REJECTED = "unverified", "accepted", "rejected"
RECEIVED = "received"
LOG_NAME = "reviews.jsonl"
LOCK_NAME = "reviews.jsonl.lock"
_ZIP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,120}\.zip$")
_DECISIONS = {"accept": ACCEPTED, "reject": REJECTED}


class ReviewError(Problem, ValueError):
    """A refused review action: ``where`` names the upload, ``what`` is refused, ``fix``."""


@dataclass(frozen=True)
class State:
    """Where one stored upload stands: status, sha256 and the events behind it."""

    zip: str
    sha256: str
    status: str
    received_utc: str = ""
    decided_by: str = ""
    decided_utc: str = ""
    reason: str = ""


def uploads_dir() -> Path:
    """Where uploads are stored (resolved at call time)."""
    return paths.RUNS_DIR / "fl_submissions"


def log_path() -> Path:
    """The append-only decision record."""
    return uploads_dir() / LOG_NAME


def lock_path() -> Path:
    """The ``flock(2)`` target every append (and every decision's check) holds."""
    return uploads_dir() / LOCK_NAME


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def locked(shared: bool = False) -> Iterator[None]:
    """Hold the review lock: exclusive for writers (the uploads folder is created), shared for
    readers (who never create anything: no folder, no lock; an unopenable lock reads unlocked)."""
    if shared and not lock_path().parent.is_dir():
        yield
        return
    if not shared:
        uploads_dir().mkdir(parents=True, exist_ok=True)
    try:
        handle = open(lock_path(), "a")  # noqa: SIM115 - closed below, after the unlock
    except OSError:
        if not shared:
            raise
        yield  # a read-only store: nobody can append, so there is nothing to wait for
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _append(event: dict) -> None:
    """Append one chained event line (``analytics.core.hashlog``; the caller holds the
    exclusive lock); raises ``ReviewError`` when the record is damaged, writing nothing."""
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        hashlog.append_entry(path, event)
    except hashlog.AuditError as exc:
        raise ReviewError(exc.where, exc.what, RESTORE_FIX) from None


RESTORE_FIX = (
    "restore reviews.jsonl and its .head and .anchor from backup; until then no upload is "
    "ranked and `python -m analytics fl-review list` names the damage"
)


def _read(path: Path) -> tuple[list[dict], list[str]]:
    """The record's events and problem lines, unlocked (see ``events``). A record whose chain
    is broken (a line edited, dropped, inserted or moved) yields no events, only its damage:
    no decision in it can be trusted, so every upload reads as unverified."""
    try:
        log = hashlog.verify(path)
    except hashlog.AuditError as exc:
        return [], [problem_text.line(exc.where, exc.what, RESTORE_FIX)]
    found = [e for e in log.entries if {"zip", "sha256", "event"} <= set(e)]
    problems = [
        problem_text.at(
            path,
            number,
            "review event cut short by an interrupted write (not counted)",
            "decide that upload again if it is still listed undecided",
        )
        for number in sorted({*log.torn_lines, *(number for number, _sha in log.pending)})
    ]
    if log.legacy:
        problems.append(
            problem_text.at(
                path,
                log.legacy_lines[0],
                f"{log.legacy} review events written before the record was hash-chained",
                "none needed; later events are chained to them",
            )
        )
    return found, problems


def events() -> tuple[list[dict], list[str]]:
    """Every well-formed event of the record, oldest first, and one line per unreadable one.

    A last line cut short by a kill (no final newline, not JSON) and any other line that is not
    a JSON event are skipped and reported, never merged with their neighbours. Read under the
    shared lock, so a line being appended is not mistaken for a cut one.
    """
    with locked(shared=True):
        return _read(log_path())


def record_received(name: str, sha256: str, upload_name: str) -> None:
    """Note that an upload was stored (unverified until a maintainer decides)."""
    with locked():
        _append(
            {"event": RECEIVED, "zip": name, "sha256": sha256, "at": _now(), "upload": upload_name}
        )


def _state(name: str, sha256: str, history: list[dict]) -> State:
    mine = [e for e in history if e.get("zip") == name and e.get("sha256") == sha256]
    received = next((str(e.get("at", "")) for e in mine if e.get("event") == RECEIVED), "")
    decided = [e for e in mine if e.get("event") in (ACCEPTED, REJECTED)]
    if not decided:
        return State(name, sha256, UNVERIFIED, received)
    last = decided[-1]
    return State(
        name,
        sha256,
        str(last["event"]),
        received,
        str(last.get("by", "")),
        str(last.get("at", "")),
        str(last.get("reason", "")),
    )


def states(folder: Path | None = None) -> tuple[dict[str, State], list[str]]:
    """The review state of every stored upload ZIP, by file name, and unreadable-record lines."""
    folder = folder or uploads_dir()
    history, problems = events()
    out = {}
    for file in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        out[file.name] = _state(file.name, file_sha256(file), history)
    return out, problems


def _target(name: str) -> Path:
    path = uploads_dir() / name
    if not _ZIP_NAME.match(name) or not path.is_file():
        raise ReviewError(name[:130], "no such stored upload", "pick one from the list")
    return path


def _refusal(name: str, now: State, action: str, seen: str) -> ReviewError | None:
    """Why ``action`` on an upload now in state ``now`` (shown as ``seen``) is refused, if so."""
    if now.status == UNVERIFIED and now.status == seen:
        return None
    if now.status == ACCEPTED and seen == ACCEPTED and action == "reject":
        return None  # a withdrawal, made while seeing it accepted
    if now.status == UNVERIFIED:
        what = f"it is unverified, not {problem_text.quote(seen)} as shown"
    else:
        what = f"already {now.status} by {now.decided_by} at {now.decided_utc}"
    done = now.status == _DECISIONS[action]
    fix = "nothing to do" if done else "reload the list and review it again"
    return ReviewError(name, what, fix)


def decide(
    name: str,
    action: str,
    by: str,
    sha256: str | None = None,
    reason: str = "",
    seen: str = UNVERIFIED,
) -> State:
    """Record a maintainer's ``accept`` or ``reject`` of a stored upload; returns its new state.

    ``sha256`` (when given) must match the file, so the decision is about the bytes reviewed;
    ``seen`` is the status the maintainer was shown, and the decision is refused when the
    upload has moved on since (another maintainer decided first). Check and append hold the
    exclusive lock together. A rejected upload stays rejected; an accepted one is withdrawn by
    ``reject`` with ``seen=ACCEPTED``. Raises ReviewError (one line) and then has recorded
    nothing, except when writing the line itself fails, which says so.
    """
    if action not in _DECISIONS or not by:
        raise ReviewError(name, f"action {action!r}", "accept or reject")
    with locked():
        path = _target(name)
        digest = file_sha256(path)
        if sha256 is not None and sha256 != digest:
            raise ReviewError(name, "the stored file changed since it was shown", "review it again")
        history, _ = _read(log_path())
        refusal = _refusal(name, _state(name, digest, history), action, seen)
        if refusal is not None:
            raise refusal
        event = {"event": _DECISIONS[action], "zip": name, "sha256": digest, "by": by, "at": _now()}
        event |= {"reason": " ".join(reason.split())[:500]} if reason else {}
        try:
            _append(event)
        except OSError as exc:
            raise ReviewError(
                name,
                f"the decision could not be written to {LOG_NAME} ({exc.strerror or exc})",
                "reload the list: it shows whether the decision was recorded",
            ) from None
    return _state(name, digest, [*history, event])
