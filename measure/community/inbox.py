"""The review inbox: a directory with queued/, accepted/, rejected/, a state file and an audit log.

Layout (default ``data/inbox/``; ``MODELATLAS_INBOX_DIR`` or ``--inbox-dir`` override it)::

    state.json     every bundle ever received: status, summary, flags, decision
    queued/<id>.zip  accepted/<id>.zip  rejected/<id>.zip   the bundles as uploaded
    audit.jsonl    append-only, hash-chained log of decisions (measure.community.audit)
    pending/<id>.parquet   an accepted result before it is published (private)
    .lock          flock(2) target: every state transition and marks save holds it exclusively

A bundle that fails validation leaves the inbox and the stored tables untouched. Every decision
is written audit line first: the line (with the result's SHA-256 for an accept) is the durable
decision, then the state file says so, then ``<runs>/community_results/<id>.parquet`` appears.
So the state never says accepted or rejected without its audit line. Readers (``published``)
show a result only when state, audit line and file agree; the next transition (or ``repair``,
run by ``inbox list``) completes a decision whose audit line landed, rolls back a state with no
audit line, and removes orphaned results and the temp files a killed write left.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

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
PENDING = "pending"
STATE_FORMAT = "modelatlas-inbox"
DECISIONS = {ACCEPTED: "accept", REJECTED: "reject"}
STATUS_OF = {action: status_ for status_, action in DECISIONS.items()}
REVIEW_ACTION = "review-marks"


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


def _duplicate_error(upload_name: str, twin: dict[str, Any], github: str) -> InboxError:
    """The refusal of a duplicate; it names the first uploader when someone else sends it."""
    where = (
        f"{upload_name}: duplicate of bundle {twin['id']} (run {twin['run_id']}, received "
        f"{twin['received_utc']}, {twin['status']})"
    )
    if str(twin["github"]).lower() == str(github).lower():
        return InboxError("duplicate", f"{where}; fix: nothing to do, it is already in")
    return InboxError(
        "duplicate",
        f"{where}, first sent by {twin['github']!r}, who keeps the credit (a record names no "
        f"owner); fix: if the run is yours, tell the maintainers so they can reject {twin['id']}",
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


def _result_path(runs_dir: Path, bundle_id: str) -> Path:
    return Path(runs_dir) / status.RESULTS_TABLE / f"{bundle_id}.parquet"


def _pending_path(root: Path, bundle_id: str) -> Path:
    return root / PENDING / f"{bundle_id}.parquet"


def _move_bundle(root: Path, entry: dict[str, Any], folder: str) -> None:
    """Put the bundle file in ``folder`` and record where it is (the state is saved after)."""
    source, target = _locate(root, entry), root / folder / f"{entry['id']}.zip"
    if source != target:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)
    entry["file"] = f"{folder}/{entry['id']}.zip"


def _audit_log(root: Path) -> audit.Log:
    """The verified audit log; InboxError("audit") naming the damaged line."""
    try:
        return audit.verify(root / audit.AUDIT_FILE)
    except audit.AuditError as exc:
        raise InboxError("audit", str(exc)) from None


def _audit_decision(root: Path, entry: dict[str, Any]) -> None:
    """Append the entry's decision (the durable one: the state is saved after it)."""
    try:
        audit.append(
            root / audit.AUDIT_FILE,
            entry["decided_by"],
            DECISIONS[entry["status"]],
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
        raise InboxError("audit", str(exc)) from None


def _decide(entry: dict[str, Any], new_status: str, by: Maintainer, reason: str) -> dict:
    """The entry as decided (a copy: it enters the state only after its audit line)."""
    return {
        **entry,
        "status": new_status,
        "decided_utc": audit.utc_now(),
        "decided_by": by.name,
        "reason": reason,
    }


def _save(root: Path, state: dict[str, Any]) -> None:
    atomic.write_json(root / STATE_FILE, state)


def _remove(*files: Path) -> None:
    for path in files:
        path.unlink(missing_ok=True)


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
        pending = _pending_path(root, entry["id"])
        atomic.write_parquet(pending, _row(v, decided))
        decided["result_sha256"] = bundle.sha256_bytes(pending.read_bytes())
        _audit_decision(root, decided)
        entry.update(decided)
        _save(root, state)
        _publish(root, runs_dir, entry)
        _move_bundle(root, entry, ACCEPTED)
        _save(root, state)
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


def _publish(root: Path, runs_dir: Path, entry: dict[str, Any]) -> None:
    """Copy the pending result into community_results (atomically), then drop the pending one."""
    pending = _pending_path(root, entry["id"])
    data = pending.read_bytes()
    if bundle.sha256_bytes(data) == entry["result_sha256"]:
        atomic.write_bytes(_result_path(runs_dir, entry["id"]), data)
    _remove(pending)


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
            f"rejecting {bundle_id} needs a reason; fix: pass --reason "
            "TEXT (the contributor sees it)",
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
        _save(root, state)
        _remove(_result_path(runs_dir, entry["id"]), _pending_path(root, entry["id"]))
        _move_bundle(root, entry, REJECTED)
        _save(root, state)
        return entry


# --- what is published, and recovery from an interrupted transition ---------------------------


def _last_decisions(log: audit.Log) -> dict[str, dict[str, Any]]:
    """Each bundle's last accept/reject line in the audit log."""
    return {e.get("bundle_id"): e for e in log.entries if e.get("action") in STATUS_OF}


def _audited(entry: dict[str, Any], last: dict[str, dict[str, Any]]) -> bool:
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
        last = _last_decisions(_audit_log(root))
    except InboxError:
        return decided
    return {i for i in decided if not _audited(bundles[i], last)}


def _file_matches(path: Path, entry: dict[str, Any]) -> bool:
    """The result file holds this entry's result: its SHA-256 (legacy entries: its row ids)."""
    if not path.is_file():
        return False
    if entry.get("result_sha256") is not None:
        return bundle.sha256_bytes(path.read_bytes()) == entry["result_sha256"]
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
    last = _last_decisions(_audit_log(root))
    out = {}
    for bundle_id, entry in sorted(state["bundles"].items()):
        path = _result_path(runs_dir, bundle_id)
        if entry.get("status") == ACCEPTED and _audited(entry, last) and _file_matches(path, entry):
            out[bundle_id] = path
    return out


def _roll_back(root: Path, entry: dict[str, Any]) -> None:
    """A state decision with no audit line (written by an older accept order): back to queued."""
    entry.pop("result_sha256", None)
    entry.update(status=QUEUED, decided_utc=None, decided_by=None, reason="")
    _move_bundle(root, entry, QUEUED)


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
        files = (_pending_path(root, entry["id"]), _result_path(runs_dir, entry["id"]))
        if not any(p.is_file() and bundle.sha256_bytes(p.read_bytes()) == sha for p in files):
            _remove(*files)
            return
        decision["result_sha256"] = sha
    entry.update(decision)
    _finish(root, runs_dir, entry)


def _finish(root: Path, runs_dir: Path, entry: dict[str, Any]) -> None:
    """A durable decision whose last steps did not run: publish (accept) and move the bundle."""
    if entry["status"] == ACCEPTED and _pending_path(root, entry["id"]).exists():
        _publish(root, runs_dir, entry)
    if entry["status"] != ACCEPTED:
        _remove(_result_path(runs_dir, entry["id"]), _pending_path(root, entry["id"]))
    _move_bundle(root, entry, entry["status"])


def _repair(root: Path, runs_dir: Path, entry: dict[str, Any], last: dict) -> None:
    """Make the entry what the audit log's last decision on it says (the log is the record)."""
    if entry["status"] != QUEUED and _audited(entry, last):
        _finish(root, runs_dir, entry)
        return
    if entry["status"] != QUEUED:
        _roll_back(root, entry)
    line = last.get(entry["id"])
    if line is not None:
        _roll_forward(root, runs_dir, entry, line)
    else:
        _remove(_result_path(runs_dir, entry["id"]), _pending_path(root, entry["id"]))


def _temp_files(root: Path, runs_dir: Path) -> list[Path]:
    """Temp files (``atomic.temp_beside``) a killed inbox write left: ours alone, all written
    under the lock (the login throttle's own files are left to it)."""
    log = root / audit.AUDIT_FILE
    found = []
    for target in (root / STATE_FILE, audit.head_path(log), audit.anchor_path(log)):
        found += target.parent.glob(f".{target.name}.*.tmp")
    for folder in (QUEUED, ACCEPTED, REJECTED, PENDING):
        found += (root / folder).glob(".*.tmp")
    found += (runs_dir / status.RESULTS_TABLE).glob(".*.parquet.*.tmp")
    return sorted(found)


def recover(root: Path, runs_dir: Path, state: dict[str, Any]) -> None:
    """Repair what an interrupted accept or reject left (call under the lock; saves the state).

    The audit log decides: a decision whose audit line landed is completed (state, result,
    bundle), a state decision with no audit line goes back to the queue, result files of
    bundles that are not accepted are removed, and so are temp files of killed writes.
    """
    last = _last_decisions(_audit_log(root))
    before = json.dumps(state, sort_keys=True)
    for entry in state["bundles"].values():
        try:
            _repair(root, runs_dir, entry, last)
        except InboxError:  # a missing bundle file: reported when that bundle is acted on
            pass
    if json.dumps(state, sort_keys=True) != before:
        _save(root, state)
    _remove(*_temp_files(root, runs_dir))


def repair(root: Path | None = None, runs_dir: Path | None = None) -> None:
    """``recover`` under the lock (what ``inbox list`` runs first); nothing for a missing inbox.

    Raises InboxError ("state" or "audit") when the inbox cannot be trusted.
    """
    root = inbox_dir(root)
    if not (root / STATE_FILE).exists():
        return
    with locked(root):
        recover(root, Path(runs_dir or paths.RUNS_DIR), load_state(root))


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
    """The inbox's audit log, newest first (InboxError("audit") when it is damaged)."""
    return _audit_log(inbox_dir(root)).entries[::-1]


def verify_audit(root: Path | None = None) -> audit.Log:
    """The verified audit log of the inbox (InboxError("audit") naming the damaged line)."""
    return _audit_log(inbox_dir(root))


def _review_line(root: Path, by: Maintainer, action: str, reason: str, **extra: Any) -> dict:
    try:
        return audit.append(root / audit.AUDIT_FILE, by.name, action, "", reason, **extra)
    except audit.AuditError as exc:
        raise InboxError("audit", str(exc)) from None


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
        _audit_log(root)
        _review_line(root, by, REVIEW_ACTION, f"{failures} failure marks", run_id=run_id, **extra)
        try:
            return write()
        except Exception as exc:
            _review_line(root, by, f"{REVIEW_ACTION}-failed", str(exc)[:200], run_id=run_id)
            raise


def record_review(
    run_id: str, by: Maintainer, failures: int, saved: Path, root: Path | None = None
) -> dict[str, Any]:
    """Audit marks that were already saved (who saved which marks).

    Superseded by ``save_marks``, which writes the audit line before the marks file; kept for
    callers that store the marks themselves.
    """
    root = inbox_dir(root)
    with locked(root):
        _audit_log(root)
        return _review_line(
            root, by, REVIEW_ACTION, f"{failures} failure marks", run_id=run_id,
            file=Path(saved).name,
        )  # fmt: skip
