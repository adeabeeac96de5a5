"""Completing or undoing an inbox decision a killed accept or reject left half done.

Every decision is written audit line first (``measure.community.inbox``), so the audit log
decides: a decision whose audit line landed is completed (state, result, bundle), a state
decision with no audit line goes back to the queue, result files of bundles that are not
accepted are removed, and so are temp files of killed writes. ``recover`` runs under the lock
before every decision; ``repair`` takes the lock (``inbox list`` runs it first).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analytics.core import atomic, paths
from analytics.core.hashing import sha256_hex
from measure.community import audit
from measure.community import inbox_store as store
from measure.community.inbox_store import ACCEPTED, PENDING, QUEUED, REJECTED, STATUS_OF


def publish(root: Path, runs_dir: Path, entry: dict[str, Any]) -> None:
    """Copy the pending result into community_results (atomically), then drop the pending one."""
    pending = store.pending_path(root, entry["id"])
    data = pending.read_bytes()
    if sha256_hex(data) == entry["result_sha256"]:
        atomic.write_bytes(store.result_path(runs_dir, entry["id"]), data)
    store.remove(pending)


def _roll_back(root: Path, entry: dict[str, Any]) -> None:
    """A state decision with no audit line (written by an older accept order): back to queued."""
    entry.pop("result_sha256", None)
    entry.update(status=QUEUED, decided_utc=None, decided_by=None, reason="")
    store.move_bundle(root, entry, QUEUED)


def _roll_forward(root: Path, runs_dir: Path, entry: dict[str, Any], line: dict) -> None:
    """A durable decision (its audit line landed) that the state does not show yet: complete
    it. An accept whose result file is gone stays queued (a maintainer decides again)."""
    decision = {
        "status": STATUS_OF[line["action"]],
        "decided_by": line.get("maintainer"),
        "decided_utc": line.get("decided_utc") or line.get("time_utc"),
        "reason": line.get("reason", ""),
    }
    if decision["status"] == ACCEPTED:
        sha = line.get("result_sha256")
        files = (store.pending_path(root, entry["id"]), store.result_path(runs_dir, entry["id"]))
        if not any(p.is_file() and sha256_hex(p.read_bytes()) == sha for p in files):
            store.remove(*files)
            return
        decision["result_sha256"] = sha
    entry.update(decision)
    _finish(root, runs_dir, entry)


def _finish(root: Path, runs_dir: Path, entry: dict[str, Any]) -> None:
    """A durable decision whose last steps did not run: publish (accept) and move the bundle."""
    if entry["status"] == ACCEPTED and store.pending_path(root, entry["id"]).exists():
        publish(root, runs_dir, entry)
    if entry["status"] != ACCEPTED:
        store.remove(
            store.result_path(runs_dir, entry["id"]), store.pending_path(root, entry["id"])
        )
    store.move_bundle(root, entry, entry["status"])


def _repair(root: Path, runs_dir: Path, entry: dict[str, Any], last: dict) -> None:
    """Make the entry what the audit log's last decision on it says (the log is the record)."""
    if entry["status"] != QUEUED and store.audited(entry, last):
        _finish(root, runs_dir, entry)
        return
    if entry["status"] != QUEUED:
        _roll_back(root, entry)
    line = last.get(entry["id"])
    if line is not None:
        _roll_forward(root, runs_dir, entry, line)
    else:
        store.remove(
            store.result_path(runs_dir, entry["id"]), store.pending_path(root, entry["id"])
        )


def _temp_files(root: Path, runs_dir: Path) -> list[Path]:
    """Temp files (``atomic.temp_beside``) a killed inbox write left: ours alone, all written
    under the lock (the login throttle's own files are left to it)."""
    log = root / audit.AUDIT_FILE
    found = []
    for target in (root / store.STATE_FILE, audit.head_path(log), audit.anchor_path(log)):
        found += target.parent.glob(f".{target.name}.*.tmp")
    for folder in (QUEUED, ACCEPTED, REJECTED, PENDING):
        found += (root / folder).glob(".*.tmp")
    found += (runs_dir / store.RESULTS_TABLE).glob(".*.parquet.*.tmp")
    return sorted(found)


def recover(root: Path, runs_dir: Path, state: dict[str, Any]) -> None:
    """Repair what an interrupted accept or reject left (call under the lock; saves the state).

    The audit log decides: a decision whose audit line landed is completed (state, result,
    bundle), a state decision with no audit line goes back to the queue, result files of
    bundles that are not accepted are removed, and so are temp files of killed writes.
    """
    last = store.last_decisions(store.audit_log(root))
    before = json.dumps(state, sort_keys=True)
    for entry in state["bundles"].values():
        try:
            _repair(root, runs_dir, entry, last)
        except store.InboxError:  # a missing bundle file: reported when that bundle is acted on
            pass
    if json.dumps(state, sort_keys=True) != before:
        store.save_state(root, state)
    store.remove(*_temp_files(root, runs_dir))


def repair(root: Path | None = None, runs_dir: Path | None = None) -> None:
    """``recover`` under the lock (what ``inbox list`` runs first); nothing for a missing inbox.

    Raises InboxError ("state" or "audit") when the inbox cannot be trusted.
    """
    root = store.inbox_dir(root)
    if not (root / store.STATE_FILE).exists():
        return
    with store.locked(root):
        recover(root, Path(runs_dir or paths.RUNS_DIR), store.load_state(root))
