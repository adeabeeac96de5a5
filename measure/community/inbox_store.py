"""The inbox as stored: its folders, state file and lock, the audit log it is checked against,
and which accepted results may be shown (``published``). Queueing and deciding are
``measure.community.inbox``; completing an interrupted decision is ``inbox_repair``.

Layout (default ``data/inbox/``; ``MODELATLAS_INBOX_DIR`` or ``--inbox-dir`` override it)::

    state.json     every bundle ever received: status, summary, flags, decision
    queued/<id>.zip  accepted/<id>.zip  rejected/<id>.zip   the bundles as uploaded
    audit.jsonl    append-only, hash-chained log of decisions (measure.community.audit)
    pending/<id>.parquet   an accepted result before it is published (private)
    .lock          flock(2) target: every state transition and marks save holds it exclusively

A published result is ``<runs>/community_results/<id>.parquet`` (:data:`RESULTS_TABLE`); it is
shown only when state, audit line and file agree.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import atomic, paths
from analytics.core.hashing import sha256_hex
from analytics.core.problems import Problem
from measure.community import audit

ENV_INBOX = "MODELATLAS_INBOX_DIR"
STATE_FILE = "state.json"
LOCK_FILE = ".lock"
QUEUED, ACCEPTED, REJECTED = "queued", "accepted", "rejected"
PENDING = "pending"
STATE_FORMAT = "modelatlas-inbox"
DECISIONS = {ACCEPTED: "accept", REJECTED: "reject"}
STATUS_OF = {action: status_ for status_, action in DECISIONS.items()}
RESULTS_TABLE = "community_results"
"""The folder of ``<runs>`` holding one published result per accepted bundle."""


class InboxError(Problem, ValueError):
    """A refused inbox operation (``code`` says which): ``where``, ``what`` and ``fix``."""

    def __init__(self, code: str, where: str, what: str | None = None, fix: str = "") -> None:
        super().__init__(where, what, fix)
        self.code = code

    def __reduce__(self):
        return (type(self), (self.code, self.where, self.what, self.fix))


def inbox_dir(explicit: Path | None = None) -> Path:
    """``explicit``, else $MODELATLAS_INBOX_DIR, else ``<data>/inbox``."""
    if explicit is not None:
        return Path(explicit)
    return Path(os.environ.get(ENV_INBOX) or paths.DATA_DIR / "inbox")


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """Hold the inbox's exclusive lock (creating the inbox folder and lock file if needed)."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / LOCK_FILE, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def load_state(root: Path) -> dict[str, Any]:
    """The state file (an absent one is an empty inbox)."""
    path = root / STATE_FILE
    if not path.exists():
        return {"format": STATE_FORMAT, "version": 1, "bundles": {}}
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        state = f"unreadable: {exc}"
    restore = "restore it from backup (audit.jsonl lists every decision)"
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        what = f"not an inbox state file ({str(state)[:80]})"
        raise InboxError("state", str(path), what, restore)
    if not isinstance(state.get("bundles"), dict):
        raise InboxError("state", str(path), "'bundles' is not an object", restore)
    return state


def save_state(root: Path, state: dict[str, Any]) -> None:
    """Write the state file atomically."""
    atomic.write_json(root / STATE_FILE, state)


def entries(root: Path | None = None, status_: str | None = None) -> list[dict[str, Any]]:
    """Inbox entries, oldest first, optionally only one status."""
    state = load_state(inbox_dir(root))
    found = sorted(state["bundles"].values(), key=lambda e: (e["received_utc"], e["id"]))
    return [e for e in found if status_ is None or e["status"] == status_]


def locate(root: Path, entry: dict[str, Any]) -> Path:
    """The bundle file, also where an interrupted transition left it."""
    for folder in (entry["status"], QUEUED, ACCEPTED, REJECTED):
        path = root / folder / f"{entry['id']}.zip"
        if path.exists():
            return path
    raise InboxError(
        "missing", str(root), f"bundle file of {entry['id']} is missing", "restore it from backup"
    )


def result_path(runs_dir: Path, bundle_id: str) -> Path:
    """Where the bundle's published result is (or would be)."""
    return Path(runs_dir) / RESULTS_TABLE / f"{bundle_id}.parquet"


def pending_path(root: Path, bundle_id: str) -> Path:
    """Where an accepted result waits, private, until it is published."""
    return root / PENDING / f"{bundle_id}.parquet"


def move_bundle(root: Path, entry: dict[str, Any], folder: str) -> None:
    """Put the bundle file in ``folder`` and record where it is (the state is saved after)."""
    source, target = locate(root, entry), root / folder / f"{entry['id']}.zip"
    if source != target:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
    entry["file"] = f"{folder}/{entry['id']}.zip"


def remove(*files: Path) -> None:
    """Delete the files that exist."""
    for path in files:
        path.unlink(missing_ok=True)


def audit_log(root: Path) -> audit.Log:
    """The verified audit log; InboxError("audit") naming the damaged line."""
    try:
        return audit.verify(root / audit.AUDIT_FILE)
    except audit.AuditError as exc:
        raise InboxError("audit", exc.where, exc.what, exc.fix) from None


def audit_entries(root: Path | None = None) -> list[dict[str, Any]]:
    """The inbox's audit log, newest first (InboxError("audit") when it is damaged)."""
    return audit_log(inbox_dir(root)).entries[::-1]


def verify_audit(root: Path | None = None) -> audit.Log:
    """The verified audit log of the inbox (InboxError("audit") naming the damaged line)."""
    return audit_log(inbox_dir(root))


# --- what is published ------------------------------------------------------------------------


def last_decisions(log: audit.Log) -> dict[str, dict[str, Any]]:
    """Each bundle's last accept/reject line in the audit log."""
    return {e.get("bundle_id"): e for e in log.entries if e.get("action") in STATUS_OF}


def audited(entry: dict[str, Any], last: dict[str, dict[str, Any]]) -> bool:
    """Whether the audit log's last decision on the bundle is this entry's decision."""
    line = last.get(entry["id"])
    if line is None or line.get("action") != DECISIONS.get(entry["status"]):
        return False
    return entry["status"] != ACCEPTED or line.get("result_sha256") == entry.get("result_sha256")


def unaudited(root: Path | None = None) -> set[str]:
    """IDs whose state says accepted or rejected without that decision in the audit log (all
    decided IDs when the log is damaged). Read-only; after ``repair`` only a damaged log, or a
    state edited by hand, leaves any."""
    root = inbox_dir(root)
    bundles = load_state(root)["bundles"]
    decided = {i for i, e in bundles.items() if e["status"] != QUEUED}
    try:
        last = last_decisions(audit_log(root))
    except InboxError:
        return decided
    return {i for i in decided if not audited(bundles[i], last)}


def file_matches(path: Path, entry: dict[str, Any]) -> bool:
    """The result file holds this entry's result: its SHA-256 (legacy entries: its row ids)."""
    if not path.is_file():
        return False
    if entry.get("result_sha256") is not None:
        return sha256_hex(path.read_bytes()) == entry["result_sha256"]
    try:
        row = pd.read_parquet(path, columns=["result_id", "content_sha256"])
    except (OSError, ValueError, KeyError):
        return False
    return row[["result_id", "content_sha256"]].values.tolist() == [
        [entry["id"], entry["content_sha256"]]
    ]


def published(root: Path | None = None, runs_dir: Path | None = None) -> dict[str, Path]:
    """Result files that may be shown: state accepted, audit accept line, file matching.

    Read-only. Raises InboxError ("state" or "audit") when the inbox cannot be trusted.
    """
    root, runs_dir = inbox_dir(root), Path(runs_dir or paths.RUNS_DIR)
    state = load_state(root)
    last = last_decisions(audit_log(root))
    out = {}
    for bundle_id, entry in sorted(state["bundles"].items()):
        path = result_path(runs_dir, bundle_id)
        if entry.get("status") == ACCEPTED and audited(entry, last) and file_matches(path, entry):
            out[bundle_id] = path
    return out
