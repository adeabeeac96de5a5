"""Maintainer review of FL uploads: an append-only decision record beside the stored ZIPs.

An upload is ``unverified`` from the moment it is stored until a maintainer accepts or rejects
it. Every event (received, accepted, rejected) is one JSON line in
``data/runs/fl_submissions/reviews.jsonl`` naming the ZIP, its sha256, who and when; lines are
only ever appended (``analytics.core.atomic.append_bytes``). The state of a stored ZIP is its
latest decision whose sha256 matches the file now on disk, so a replaced file is unverified
again. Who may decide is checked by the caller (the page's maintainer sign-in); this module only
records the name it is given.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from analytics.core import atomic, paths
from analytics.core import problems as problem_text

UNVERIFIED, ACCEPTED, REJECTED = "unverified", "accepted", "rejected"
RECEIVED = "received"
LOG_NAME = "reviews.jsonl"
_ZIP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,120}\.zip$")
_DECISIONS = {"accept": ACCEPTED, "reject": REJECTED}


class ReviewError(ValueError):
    """A refused review action; the message is one line naming the upload and the fix."""


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


def sha256_of(path: Path) -> str:
    """Hex sha256 of a stored file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _append(event: dict) -> None:
    line = json.dumps(event, sort_keys=True, ensure_ascii=True) + "\n"
    log_path().parent.mkdir(parents=True, exist_ok=True)
    atomic.append_bytes(log_path(), line.encode("ascii"))


def events() -> tuple[list[dict], list[str]]:
    """Every well-formed event of the record, oldest first, and one line per unreadable one."""
    path = log_path()
    if not path.is_file():
        return [], []
    found, problems = [], []
    for number, text in enumerate(path.read_text("utf-8", errors="replace").splitlines(), 1):
        try:
            event = json.loads(text)
        except ValueError:
            event = None
        if not isinstance(event, dict) or not {"zip", "sha256", "event"} <= set(event):
            where = f"{problem_text.display_path(path)}:{number}"
            problems.append(
                problem_text.line(where, "unreadable review event", "leave the record as written")
            )
            continue
        found.append(event)
    return found, problems


def record_received(name: str, sha256: str, upload_name: str) -> None:
    """Note that an upload was stored (unverified until a maintainer decides)."""
    _append({"event": RECEIVED, "zip": name, "sha256": sha256, "at": _now(), "upload": upload_name})


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
        out[file.name] = _state(file.name, sha256_of(file), history)
    return out, problems


def _target(name: str) -> Path:
    path = uploads_dir() / name
    if not _ZIP_NAME.match(name) or not path.is_file():
        raise ReviewError(
            problem_text.line(name[:130], "no such stored upload", "pick one from the list")
        )
    return path


def decide(name: str, action: str, by: str, sha256: str | None = None, reason: str = "") -> State:
    """Record a maintainer's ``accept`` or ``reject`` of a stored upload; returns its new state.

    ``sha256`` (when given) must match the file, so the decision is about the bytes reviewed.
    An accepted upload may later be rejected (withdrawn); a rejected one stays rejected.
    """
    if action not in _DECISIONS or not by:
        raise ReviewError(problem_text.line(name, f"action {action!r}", "accept or reject"))
    path = _target(name)
    digest = sha256_of(path)
    if sha256 is not None and sha256 != digest:
        raise ReviewError(
            problem_text.line(name, "the stored file changed since it was shown", "review it again")
        )
    history, _ = events()
    now = _state(name, digest, history)
    if now.status == REJECTED or now.status == _DECISIONS[action]:
        raise ReviewError(
            problem_text.line(name, f"already {now.status} by {now.decided_by}", "nothing to do")
        )
    event = {"event": _DECISIONS[action], "zip": name, "sha256": digest, "by": by, "at": _now()}
    event |= {"reason": " ".join(reason.split())[:500]} if reason else {}
    _append(event)
    return _state(name, digest, [*history, event])
