"""The committed trail of the hand-review marks: who reviewed which run's outputs, and when.

The marks themselves are committed (``<runs>/vision_failures/<run_id>.parquet``), but the inbox's
audit log lives in the private, uncommitted inbox, so a fresh clone could not check who set the
marks a page shows. This trail is a second hash-chained log of the same kind
(``measure.community.audit``), committed beside the marks: ``<runs>/review_trail/audit.jsonl``
with its head and anchor. Each entry names the reviewer, the run, the marks file and the SHA-256
of the marks' content (:func:`marks_sha256`); :func:`check` verifies the chain and that every
marks file is exactly what its run's latest entry says (``python -m measure audit verify``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import paths
from analytics.core.problems import display_path, line
from measure.community import audit
from measure.community.inbox_store import locked

TRAIL_DIR = "review_trail"
MARKS_DIR = "vision_failures"
REVIEW_ACTION = "review-marks"
IMPORT_ACTION = "review-marks-import"
"""An entry for marks stored before the trail existed: reviewer and date as the file states."""
MARK_COLUMNS = ("run_id", "output_index", "input_name", "failure", "note", "reviewer",
                "reviewed_utc")
"""The columns whose content the trail's hash covers (every column a review stores)."""


def trail_dir(runs_dir: Path | None = None) -> Path:
    return Path(runs_dir or paths.RUNS_DIR) / TRAIL_DIR


def trail_log(runs_dir: Path | None = None) -> Path:
    return trail_dir(runs_dir) / audit.AUDIT_FILE


def marks_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of a review's content: its rows sorted by output index and input name, each cell
    as JSON (so the same marks hash the same whichever Parquet writer stored them)."""
    missing = [c for c in MARK_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"review marks lack columns {missing}")
    rows = []
    for rec in frame[list(MARK_COLUMNS)].to_dict("records"):
        rows.append({
            "run_id": str(rec["run_id"]),
            "output_index": int(rec["output_index"]),
            "input_name": "" if pd.isna(rec["input_name"]) else str(rec["input_name"]),
            "failure": bool(rec["failure"]),
            "note": "" if pd.isna(rec["note"]) else str(rec["note"]),
            "reviewer": str(rec["reviewer"]),
            "reviewed_utc": str(rec["reviewed_utc"]),
        })
    rows.sort(key=lambda r: (r["output_index"], r["input_name"]))
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _entry_fields(frame: pd.DataFrame, run_id: str) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "marks_file": f"{MARKS_DIR}/{run_id}.parquet",
        "marks_sha256": marks_sha256(frame),
        "outputs": int(len(frame)),
        "failures": int(frame["failure"].astype(bool).sum()),
        "reviewed_utc": str(frame["reviewed_utc"].iloc[0]) if len(frame) else "",
    }


def record(
    run_id: str, frame: pd.DataFrame, reviewer: str, via: str, runs_dir: Path | None = None
) -> dict[str, Any]:
    """Append the trail entry of a review about to be stored (call it before writing the marks
    file, so a kill leaves an entry the old file does not match: ``check`` reports it)."""
    fields = _entry_fields(frame, run_id)
    reason = f"{fields['failures']} failure marks on {fields['outputs']} outputs"
    with locked(trail_dir(runs_dir)):
        return audit.append(trail_log(runs_dir), reviewer, REVIEW_ACTION, "", reason,
                            via=via, **fields)


def latest(runs_dir: Path | None = None) -> dict[str, dict[str, Any]]:
    """Each run's latest trail entry (AuditError when the trail is damaged)."""
    found: dict[str, dict[str, Any]] = {}
    for entry in audit.verify(trail_log(runs_dir)).entries:
        if entry.get("action") in (REVIEW_ACTION, IMPORT_ACTION) and entry.get("run_id"):
            found[entry["run_id"]] = entry
    return found


def _marks_files(runs_dir: Path | None) -> list[Path]:
    return sorted((Path(runs_dir or paths.RUNS_DIR) / MARKS_DIR).glob("*.parquet"))


def mismatch(path: Path, entry: dict[str, Any] | None) -> str | None:
    """Why the marks file ``path`` is not what the trail says (None when it is)."""
    if entry is None:
        return "has no entry in the review trail"
    got = marks_sha256(pd.read_parquet(path))
    if got != entry.get("marks_sha256"):
        said = str(entry.get("marks_sha256"))[:12]
        seq = entry.get(audit.SEQ_KEY)
        return f"does not match trail entry {seq} (content SHA-256 {got[:12]}, the trail: {said})"
    return None


def check(runs_dir: Path | None = None) -> tuple[audit.Log, list[str]]:
    """The verified trail and one problem line per marks file it does not vouch for (an
    AuditError when the trail itself is damaged)."""
    log = audit.verify(trail_log(runs_dir))
    entries = latest(runs_dir)
    problems = []
    for path in _marks_files(runs_dir):
        why = mismatch(path, entries.get(path.stem))
        if why:
            fix = ("store the review again (model page or scripts/review_sheet.py --store), "
                   "which writes its trail entry")
            problems.append(line(display_path(path), why, fix))
    return log, problems


def import_existing(runs_dir: Path | None = None, via: str = "") -> list[dict[str, Any]]:
    """Give every marks file without a matching entry an ``review-marks-import`` entry whose
    maintainer and ``reviewed_utc`` are those the file states (for marks stored before the trail
    existed; the entry's own ``time_utc`` says when they were entered)."""
    added = []
    with locked(trail_dir(runs_dir)):
        entries = latest(runs_dir)
        for path in _marks_files(runs_dir):
            if mismatch(path, entries.get(path.stem)) is None:
                continue
            frame = pd.read_parquet(path)
            reviewers = sorted(set(frame["reviewer"].astype(str)))
            reason = ("marks stored before the review trail existed; reviewer and review date "
                      "as the marks file states them")
            fields = _entry_fields(frame, path.stem)
            who = ", ".join(reviewers)
            added.append(
                audit.append(trail_log(runs_dir), who, IMPORT_ACTION, "", reason, via=via, **fields)
            )
    return added
