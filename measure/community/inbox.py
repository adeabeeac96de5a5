"""The review inbox: queueing a bundle and a maintainer's accept or reject, audit line first.

The inbox on disk (folders, state file, lock, what is published) is ``inbox_store``; finishing a
decision a killed process left half done is ``inbox_repair``. Their names that callers use are
importable from here as well.

A bundle that fails validation leaves the inbox and the stored tables untouched. Every decision
is written audit line first: the line (with the result's SHA-256 for an accept) is the durable
decision, then the state file says so, then ``<runs>/community_results/<id>.parquet`` appears.
So the state never says accepted or rejected without its audit line. Readers (``published``)
show a result only when state, audit line and file agree; the next transition (or ``repair``,
run by ``inbox list``) completes a decision whose audit line landed, rolls back a state with no
audit line, and removes orphaned results and the temp files a killed write left.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import atomic, paths, safefile
from analytics.core.hashing import sha256_hex
from measure.community import audit, status
from measure.community import inbox_store as store
from measure.community.auth import Maintainer
from measure.community.inbox_repair import publish, recover
from measure.community.inbox_repair import repair as repair
from measure.community.inbox_store import (
    ACCEPTED,
    QUEUED,
    REJECTED,
    STATE_FILE,
    InboxError,
    inbox_dir,
    load_state,
    locked,
)
from measure.community.inbox_store import ENV_INBOX as ENV_INBOX
from measure.community.inbox_store import PENDING as PENDING
from measure.community.inbox_store import audit_entries as audit_entries
from measure.community.inbox_store import entries as entries
from measure.community.inbox_store import published as published
from measure.community.inbox_store import unaudited as unaudited
from measure.community.inbox_store import verify_audit as verify_audit
from measure.community.validate import (
    DEFAULT_LIMITS,
    Limits,
    Validated,
    check_size,
    validate_bundle,
)

REVIEW_ACTION = "review-marks"


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


def _duplicate_error(upload_name: str, twin: dict[str, Any], github: str) -> InboxError:
    """The refusal of a duplicate; it names the first uploader when someone else sends it."""
    what = (
        f"duplicate of bundle {twin['id']} (run {twin['run_id']}, received "
        f"{twin['received_utc']}, {twin['status']})"
    )
    if str(twin["github"]).lower() == str(github).lower():
        return InboxError("duplicate", upload_name, what, "nothing to do, it is already in")
    return InboxError(
        "duplicate",
        upload_name,
        f"{what}, first sent by {twin['github']!r}, who keeps the credit (a record names no "
        "owner)",
        f"if the run is yours, tell the maintainers so they can reject {twin['id']}",
    )


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
            raise _duplicate_error(upload_name, twin, v.submission["github"])
        entry = _entry(v, upload_name, audit.utc_now())
        if entry["id"] in state["bundles"]:
            raise InboxError(
                "id-collision",
                upload_name,
                f"its ID {entry['id']} is taken by another bundle",
                "re-run the measurement and submit the new record",
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
    fix = "give the path of the .zip made by `python -m measure submit`"
    try:
        info = path.stat()
        if stat.S_ISREG(info.st_mode):
            check_size(info.st_size, str(path), limits)
        data = safefile.read_regular(path, limits.bundle_bytes, fix)
    except OSError as exc:
        raise InboxError("unreadable", str(path), f"cannot read it ({exc.strerror})", fix) from None
    except safefile.FileRefused as exc:  # a device, FIFO or folder: never read, never waited on
        raise InboxError("unreadable", exc.where, exc.what, exc.fix) from None
    return add(data, str(path), root, runs_dir, limits)


def _queued_entry(root: Path, state: dict[str, Any], bundle_id: str) -> dict[str, Any]:
    entry = state["bundles"].get(bundle_id)
    if entry is None:
        raise InboxError(
            "unknown-id",
            str(root),
            f"no bundle {bundle_id!r}",
            "pick an ID from `python -m measure inbox list`",
        )
    if entry["status"] != QUEUED:
        raise InboxError(
            "already-decided",
            f"bundle {bundle_id}",
            f"already {entry['status']} (by {entry['decided_by']} at {entry['decided_utc']})",
            "nothing to do",
        )
    return entry


def _audit_decision(root: Path, entry: dict[str, Any]) -> None:
    """Append the entry's decision (the durable one: the state is saved after it)."""
    try:
        audit.append(
            root / audit.AUDIT_FILE,
            entry["decided_by"],
            store.DECISIONS[entry["status"]],
            entry["id"],
            entry["reason"],
            decided_utc=entry["decided_utc"],
            github=entry["github"],
            adapter=entry["adapter"],
            gpu=entry["gpu"],
            median_ms=entry["median_ms"],
            result_sha256=entry.get("result_sha256"),
        )
    except audit.AuditError as exc:
        raise InboxError("audit", exc.where, exc.what, exc.fix) from None


def _decide(entry: dict[str, Any], new_status: str, by: Maintainer, reason: str) -> dict:
    """The entry as decided (a copy: it enters the state only after its audit line)."""
    return {
        **entry,
        "status": new_status,
        "decided_utc": audit.utc_now(),
        "decided_by": by.name,
        "reason": reason,
    }


def accept(
    bundle_id: str,
    by: Maintainer,
    root: Path | None = None,
    runs_dir: Path | None = None,
    reason: str = "",
) -> dict[str, Any]:
    """Accept a queued bundle: audit line first, then the state, then the public result.

    Steps: result written to pending/ (private), audit line appended (with the result's
    SHA-256: the decision is now durable), state saved as accepted, result copied into
    community_results/, bundle moved, state saved. A kill after any step leaves the old state
    or an accepted state with its audit line; ``recover`` completes it.
    """
    root = inbox_dir(root)
    runs_dir = Path(runs_dir or paths.RUNS_DIR)
    with locked(root):
        state = load_state(root)
        recover(root, runs_dir, state)
        entry = _queued_entry(root, state, bundle_id)
        v = _revalidate(root, entry, runs_dir)
        decided = _decide(entry, ACCEPTED, by, reason)
        pending = store.pending_path(root, entry["id"])
        atomic.write_parquet(pending, _row(v, decided))
        decided["result_sha256"] = sha256_hex(pending.read_bytes())
        _audit_decision(root, decided)
        entry.update(decided)
        store.save_state(root, state)
        publish(root, runs_dir, entry)
        store.move_bundle(root, entry, ACCEPTED)
        store.save_state(root, state)
        return entry


def _row(v: Validated, entry: dict[str, Any]) -> pd.DataFrame:
    """The bundle's ``community_results`` row, stamped with the decision."""
    return status.result_row(
        v.record,
        entry["github"],
        entry["submitted_utc"],
        result_id=entry["id"],
        content_sha256=entry["content_sha256"],
        our_median_ms=(v.our_run or {}).get("median_ms"),
        flags=[f"{f.code}: {f.message}" for f in v.flags],
        accepted_by=entry["decided_by"],
        accepted_utc=entry["decided_utc"],
    )


def reject(
    bundle_id: str,
    by: Maintainer,
    reason: str,
    root: Path | None = None,
    runs_dir: Path | None = None,
) -> dict[str, Any]:
    """Reject a queued bundle with a reason (kept, so a resubmission is seen as a duplicate).

    Audit line first, then the state. Any result file of the bundle (left by an interrupted
    accept) is removed.
    """
    if not (reason or "").strip():
        raise InboxError(
            "no-reason",
            f"rejecting {bundle_id}",
            "needs a reason",
            "pass --reason TEXT (the contributor sees it)",
        )
    root = inbox_dir(root)
    runs_dir = Path(runs_dir or paths.RUNS_DIR)
    with locked(root):
        state = load_state(root)
        recover(root, runs_dir, state)
        entry = _queued_entry(root, state, bundle_id)
        decided = _decide(entry, REJECTED, by, reason.strip())
        _audit_decision(root, decided)
        entry.update(decided)
        store.save_state(root, state)
        store.remove(
            store.result_path(runs_dir, entry["id"]), store.pending_path(root, entry["id"])
        )
        store.move_bundle(root, entry, REJECTED)
        store.save_state(root, state)
        return entry


def _revalidate(root: Path, entry: dict[str, Any], runs_dir: Path | None) -> Validated:
    """The stored bundle, checked again (its bytes must still be the ones received)."""
    data = store.locate(root, entry).read_bytes()
    if sha256_hex(data) != entry["bundle_sha256"]:
        raise InboxError(
            "tampered",
            str(root),
            f"bundle file of {entry['id']} changed since it was received",
            "restore it from backup or reject it",
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
        raise InboxError("unknown-id", str(root), f"no bundle {bundle_id!r}", "pick a queued one")
    return Review(entry, _revalidate(root, entry, runs_dir))


def _review_line(root: Path, by: Maintainer, action: str, reason: str, **extra: Any) -> dict:
    try:
        return audit.append(root / audit.AUDIT_FILE, by.name, action, "", reason, **extra)
    except audit.AuditError as exc:
        raise InboxError("audit", exc.where, exc.what, exc.fix) from None


def save_marks(
    run_id: str,
    by: Maintainer,
    failures: int,
    write: Callable[[], Path],
    root: Path | None = None,
    **extra: Any,
) -> Path:
    """Store a maintainer's hand review of one of our runs, audit line first.

    Under the inbox lock: the ``review-marks`` line (maintainer, ``run_id``, failure count,
    ``extra``) is appended, then ``write()`` stores the marks file and returns its path. A kill
    in between leaves the line and the old marks (or none), never marks without their line; a
    ``write`` that raises appends ``review-marks-failed`` and re-raises. Raises
    InboxError("audit"), writing nothing, when the audit log is damaged.
    """
    root = inbox_dir(root)
    with locked(root):
        store.audit_log(root)
        _review_line(root, by, REVIEW_ACTION, f"{failures} failure marks", run_id=run_id, **extra)
        try:
            return write()
        except Exception as exc:
            _review_line(root, by, f"{REVIEW_ACTION}-failed", str(exc)[:200], run_id=run_id)
            raise

