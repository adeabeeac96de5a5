"""The review inbox: a directory with queued/, accepted/, rejected/, a state file and an audit log.

Layout (default ``data/inbox/``; ``MODELATLAS_INBOX_DIR`` or ``--inbox-dir`` override it)::

    state.json     every bundle ever received: status, summary, flags, decision
    queued/<id>.zip  accepted/<id>.zip  rejected/<id>.zip   the bundles as uploaded
    audit.jsonl    append-only log of decisions (measure.community.audit)
    .lock          flock(2) target: every state transition holds it exclusively

A bundle that fails validation leaves the inbox and the stored tables untouched. An accepted
bundle also becomes ``<runs>/community_results/<id>.parquet`` (written atomically).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analytics.core import atomic, paths
from measure.community import audit, bundle, status
from measure.community.auth import Maintainer
from measure.community.validate import (
    DEFAULT_LIMITS,
    Limits,
    Validated,
    check_size,
    validate_bundle,
)

ENV_INBOX = "MODELATLAS_INBOX_DIR"
STATE_FILE = "state.json"
LOCK_FILE = ".lock"
QUEUED, ACCEPTED, REJECTED = "queued", "accepted", "rejected"
STATE_FORMAT = "modelatlas-inbox"


class InboxError(ValueError):
    """A refused inbox operation (``code`` says which), with a one-line reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


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
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise InboxError(
            "state",
            f"{path}: not an inbox state file ({str(state)[:80]}); fix: restore it from backup "
            "(audit.jsonl lists every decision)",
        )
    if not isinstance(state.get("bundles"), dict):
        raise InboxError(
            "state", f"{path}: 'bundles' is not an object; fix: restore it from backup"
        )
    return state


def _entry(v: Validated, upload_name: str, received_utc: str) -> dict[str, Any]:
    record, info = v.record, v.record["adapter"]["info"]
    env, proto = record["environment"], record["protocol"]
    return {
        "id": v.bundle_id,
        "status": QUEUED,
        "file": f"{QUEUED}/{v.bundle_id}.zip",
        "bundle_sha256": v.bundle_sha256,
        "content_sha256": v.content_sha256,
        "run_id": record["run_id"],
        "github": v.submission["github"],
        "adapter": record["adapter"]["name"],
        "display_name": status.display_name(record["adapter"]["name"]),
        "task": record["adapter"]["task"],
        "gpu": env["device_name"],
        "precision": proto["precision"],
        "input_size": info["default_input_size"],
        "median_ms": record["median_ms"],
        "p90_ms": record["p90_ms"],
        "power_limited": status.power_limited(env),
        "measured_utc": record["created_utc"],
        "submitted_utc": v.submission["submitted_utc"],
        "received_utc": received_utc,
        "upload_name": Path(upload_name).name[:200],
        "flags": [{"code": f.code, "message": f.message} for f in v.flags],
        "our_median_ms": (v.our_run or {}).get("median_ms"),
        "decided_utc": None,
        "decided_by": None,
        "reason": "",
    }


def _duplicate_of(state: dict[str, Any], v: Validated) -> dict[str, Any] | None:
    for entry in state["bundles"].values():
        if entry["content_sha256"] == v.content_sha256 or entry["run_id"] == v.record["run_id"]:
            return entry
    return None


def add(
    data: bytes,
    upload_name: str,
    root: Path | None = None,
    runs_dir: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """Validate a bundle and queue it; returns its inbox entry.

    Raises BundleError (invalid) or InboxError("duplicate") and then has written nothing.
    """
    root = inbox_dir(root)
    v = validate_bundle(data, upload_name, limits, runs_dir)
    with locked(root):
        state = load_state(root)
        twin = _duplicate_of(state, v)
        if twin is not None:
            raise InboxError(
                "duplicate",
                f"{upload_name}: duplicate of bundle {twin['id']} "
                f"(run {twin['run_id']}, received {twin['received_utc']}, "
                f"{twin['status']}); fix: nothing to do, it is already in",
            )
        entry = _entry(v, upload_name, audit.utc_now())
        if entry["id"] in state["bundles"]:
            raise InboxError(
                "id-collision",
                f"{upload_name}: its ID {entry['id']} is taken by another bundle; fix: re-run "
                "the measurement and submit the new record",
            )
        atomic.write_bytes(root / entry["file"], data)
        state["bundles"][entry["id"]] = entry
        atomic.write_json(root / STATE_FILE, state)
    return entry


def add_file(
    path: Path,
    root: Path | None = None,
    runs_dir: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> dict[str, Any]:
    """``add`` for a bundle on disk (its size is checked before it is read)."""
    path = Path(path)
    try:
        check_size(path.stat().st_size, str(path), limits)
        data = path.read_bytes()
    except OSError as exc:
        raise InboxError(
            "unreadable",
            f"{path}: cannot read it ({exc.strerror}); fix: give the "
            "path of the .zip made by `python -m measure submit`",
        ) from None
    return add(data, str(path), root, runs_dir, limits)


def entries(root: Path | None = None, status_: str | None = None) -> list[dict[str, Any]]:
    """Inbox entries, oldest first, optionally only one status."""
    state = load_state(inbox_dir(root))
    found = sorted(state["bundles"].values(), key=lambda e: (e["received_utc"], e["id"]))
    return [e for e in found if status_ is None or e["status"] == status_]


def _locate(root: Path, entry: dict[str, Any]) -> Path:
    """The bundle file, also where an interrupted transition left it."""
    for folder in (entry["status"], QUEUED, ACCEPTED, REJECTED):
        path = root / folder / f"{entry['id']}.zip"
        if path.exists():
            return path
    raise InboxError(
        "missing", f"{root}: bundle file of {entry['id']} is missing; fix: restore it from backup"
    )


def _queued_entry(root: Path, state: dict[str, Any], bundle_id: str) -> dict[str, Any]:
    entry = state["bundles"].get(bundle_id)
    if entry is None:
        raise InboxError(
            "unknown-id",
            f"no bundle {bundle_id!r} in {root}; fix: pick an ID from "
            "`python -m measure inbox list`",
        )
    if entry["status"] != QUEUED:
        raise InboxError(
            "already-decided",
            f"bundle {bundle_id} is already {entry['status']} "
            f"(by {entry['decided_by']} at {entry['decided_utc']}); nothing done",
        )
    return entry


def _decide(
    root: Path,
    entry: dict[str, Any],
    state: dict[str, Any],
    new_status: str,
    by: Maintainer,
    reason: str,
) -> dict[str, Any]:
    """Move the bundle, save the state, then append the audit line (all under the lock)."""
    source = _locate(root, entry)
    target = root / new_status / f"{entry['id']}.zip"
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(source, target)
    entry.update(
        status=new_status,
        file=f"{new_status}/{entry['id']}.zip",
        decided_utc=audit.utc_now(),
        decided_by=by.name,
        reason=reason,
    )
    atomic.write_json(root / STATE_FILE, state)
    action = {ACCEPTED: "accept", REJECTED: "reject"}[new_status]
    audit.append(
        root / audit.AUDIT_FILE,
        by.name,
        action,
        entry["id"],
        reason,
        github=entry["github"],
        adapter=entry["adapter"],
        gpu=entry["gpu"],
        median_ms=entry["median_ms"],
    )
    return entry


def accept(
    bundle_id: str,
    by: Maintainer,
    root: Path | None = None,
    runs_dir: Path | None = None,
    reason: str = "",
) -> dict[str, Any]:
    """Accept a queued bundle: its result row is stored, the decision audited."""
    root = inbox_dir(root)
    runs_dir = Path(runs_dir or paths.RUNS_DIR)
    with locked(root):
        state = load_state(root)
        entry = _queued_entry(root, state, bundle_id)
        v = _revalidate(root, entry, runs_dir)
        row = status.result_row(
            v.record,
            entry["github"],
            entry["submitted_utc"],
            result_id=entry["id"],
            content_sha256=entry["content_sha256"],
            our_median_ms=(v.our_run or {}).get("median_ms"),
            flags=[f"{f.code}: {f.message}" for f in v.flags],
            accepted_by=by.name,
            accepted_utc=audit.utc_now(),
        )
        atomic.write_parquet(runs_dir / status.RESULTS_TABLE / f"{entry['id']}.parquet", row)
        return _decide(root, entry, state, ACCEPTED, by, reason)


def reject(bundle_id: str, by: Maintainer, reason: str, root: Path | None = None) -> dict[str, Any]:
    """Reject a queued bundle with a reason (kept, so a resubmission is seen as a duplicate)."""
    if not (reason or "").strip():
        raise InboxError(
            "no-reason",
            f"rejecting {bundle_id} needs a reason; fix: pass --reason "
            "TEXT (the contributor sees it)",
        )
    root = inbox_dir(root)
    with locked(root):
        state = load_state(root)
        entry = _queued_entry(root, state, bundle_id)
        return _decide(root, entry, state, REJECTED, by, reason.strip())


def _revalidate(root: Path, entry: dict[str, Any], runs_dir: Path | None) -> Validated:
    """The stored bundle, checked again (its bytes must still be the ones received)."""
    data = _locate(root, entry).read_bytes()
    if bundle.sha256_bytes(data) != entry["bundle_sha256"]:
        raise InboxError(
            "tampered",
            f"{root}: bundle file of {entry['id']} changed since it was "
            "received; fix: restore it from backup or reject it",
        )
    return validate_bundle(data, entry["upload_name"], runs_dir=runs_dir)


@dataclass(frozen=True)
class Review:
    """What the review page shows for one queued bundle."""

    entry: dict[str, Any]
    validated: Validated


def review(bundle_id: str, root: Path | None = None, runs_dir: Path | None = None) -> Review:
    """A bundle re-read and re-checked for review, with our measurement on the same GPU."""
    root = inbox_dir(root)
    state = load_state(root)
    entry = state["bundles"].get(bundle_id)
    if entry is None:
        raise InboxError("unknown-id", f"no bundle {bundle_id!r} in {root}")
    return Review(entry, _revalidate(root, entry, runs_dir))


def audit_entries(root: Path | None = None) -> list[dict[str, Any]]:
    """The inbox's audit log, newest first."""
    return audit.read(inbox_dir(root) / audit.AUDIT_FILE)[::-1]
