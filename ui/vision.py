"""Cached loaders of the vision pages: catalog, devices, rankings, one model, review, community.

Every cache is keyed by the snapshot version and the run files' fingerprint, so a new measurement
or review shows on the next rerun. The adapter catalog comes from ``measure.adapters.catalog`` and
is passed into ``analytics.vision.runs`` (which never imports ``measure``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import streamlit as st

from analytics.core import paths
from analytics.vision import evidence
from analytics.vision import runs as vision
from measure import coco, review_trail
from measure.adapters import registry
from measure.adapters.catalog import adapter_catalog
from measure.community import audit, inbox, status
from measure.community.auth import Maintainer
from ui import data


@st.cache_data(show_spinner=False)
def _catalog(version: str) -> pd.DataFrame:
    return adapter_catalog()


def catalog() -> pd.DataFrame:
    """One row of metadata per registered adapter (task, licences, paper figure, fixes)."""
    return _catalog(data.snapshot_version())


@st.cache_data(show_spinner=False)
def _damaged(runs_key: str) -> tuple[str, ...]:
    return vision.damaged_runs()


def warn_damaged_runs() -> None:
    """One warning naming the stored runs left out because they are not whole (record, tables
    and run manifest disagree): the first one's line, and how many more."""
    damaged = _damaged(vision.runs_fingerprint())
    if damaged:
        more = f" ({len(damaged) - 1} more: `python -m measure check` lists them)"
        st.warning(f"Skipped: {damaged[0]}" + (more if len(damaged) > 1 else ""))


@st.cache_data(show_spinner=False)
def _devices(version: str, runs_key: str) -> list[str]:
    return vision.devices(data.connection())


def devices() -> list[str]:
    """Device labels with at least one stored run, GPUs first."""
    return _devices(data.snapshot_version(), vision.runs_fingerprint())


@st.cache_data(show_spinner=False)
def _board(version: str, runs_key: str, task: str, device: str) -> vision.Leaderboard:
    return vision.leaderboard(data.connection(), _catalog(version), task, device)


def board(task: str, device: str) -> vision.Leaderboard:
    """The ranking of one task on one device, with the runs left out."""
    return _board(data.snapshot_version(), vision.runs_fingerprint(), task, device)


@st.cache_data(show_spinner=False)
def _model_view(version: str, runs_key: str, adapter: str, run_id: str | None) -> vision.ModelView:
    return vision.model_view(data.connection(), _catalog(version), adapter, run_id)


def model_view(adapter: str, run_id: str | None) -> vision.ModelView:
    """One adapter's runs and the calls and memory trace of ``run_id`` (default: the latest)."""
    return _model_view(data.snapshot_version(), vision.runs_fingerprint(), adapter, run_id)


@st.cache_data(show_spinner=False)
def _outputs(version: str, runs_key: str, run_id: str) -> pd.DataFrame:
    return vision.outputs_for_review(data.connection(), run_id)


def outputs(run_id: str) -> pd.DataFrame:
    """One run's detections above the task threshold, with any failure marks."""
    return _outputs(data.snapshot_version(), vision.runs_fingerprint(), run_id)


@st.cache_data(show_spinner=False)
def _memory_baselines(version: str, runs_key: str, run_id: str) -> tuple[pd.DataFrame, str | None]:
    try:
        return vision.memory_baselines(run_id), None
    except ValueError as exc:
        return pd.DataFrame(), str(exc)


def memory_baselines(run_id: str) -> tuple[pd.DataFrame, str | None]:
    """Per run of ``run_id``: idle baseline, highest sample and reported peak (from its stored
    record), and the one-line reason when the record cannot be read."""
    return _memory_baselines(data.snapshot_version(), vision.runs_fingerprint(), run_id)


def missing_extras(adapter: str) -> list[tuple[str, str]]:
    """(requirement, pip command) for each package ``adapter`` declares in ``info.requires``
    that is not installed; the commands are the adapter module's own ``*INSTALL`` lines."""
    cls = registry().get(adapter)
    if cls is None or cls.info is None:
        return []
    module = vars(sys.modules[cls.__module__])
    lines = [v for k, v in module.items() if k.endswith("INSTALL") and isinstance(v, str)]
    return vision.missing_extras(cls.info.requires, lines)


def save_review(run_id: str, marks: pd.DataFrame, who: Maintainer) -> Path:
    """Store a signed-in maintainer's failure marks, audit line first (``inbox.save_marks``:
    the ``review-marks`` line, then the marks file, under the inbox lock), and drop only the
    vision caches that show marks (every other cache, the Elo fits included, survives).

    Raises InboxError, writing nothing, when the audit log is damaged.
    """
    failures = int(marks["failure"].astype(bool).sum())
    path = inbox.save_marks(
        run_id,
        who,
        failures,
        lambda: vision.save_failure_marks(
            run_id,
            marks,
            who.name,
            before_write=lambda frame: review_trail.record(run_id, frame, who.name, "model page"),
        ),
        file=f"{run_id}.parquet",
    )
    for cached in REVIEW_CACHES:
        cached.clear()
    return path


REVIEW_CACHES = (_outputs, _model_view)


@st.cache_data(show_spinner="Bootstrapping the accuracy intervals over images…")
def _evidence(runs_dir: str, runs_key: str, run_ids: tuple[str, ...]) -> pd.DataFrame:
    return evidence.evidence_table(list(run_ids), coco.bootstrap_intervals, Path(runs_dir))


def accuracy_evidence(run_ids: list[str]) -> pd.DataFrame:
    """Images, objects and bootstrap intervals of each run's accuracy
    (``analytics.vision.evidence``, scored by ``measure.coco``)."""
    key = tuple(sorted(set(run_ids)))
    return _evidence(str(paths.RUNS_DIR), vision.runs_fingerprint(), key)


def review_trail_line(run_id: str) -> tuple[str, bool]:
    """Who reviewed the run's outputs and when, from the committed review trail, as one line,
    and whether the trail vouches for the stored marks (False: the line says why not)."""
    try:
        entry = review_trail.latest().get(run_id)
    except audit.AuditError as exc:
        return f"The review trail is damaged: {exc}", False
    marks = paths.RUNS_DIR / review_trail.MARKS_DIR / f"{run_id}.parquet"
    if not marks.exists():
        return "", True
    problem = review_trail.mismatch(marks, entry)
    log = review_trail.TRAIL_DIR + "/" + audit.AUDIT_FILE
    if problem is not None:
        return f"The stored marks {problem} (`{log}`).", False
    imported = (
        " (entered from the marks file)" if entry["action"] == review_trail.IMPORT_ACTION else ""
    )
    return (
        f"Reviewed by {entry['maintainer']} on {entry['reviewed_utc'][:10]}: "
        f"{entry['failures']} failure marks on {entry['outputs']} outputs; entry "
        f"{entry[audit.SEQ_KEY]}{imported} of the committed, hash-chained review trail "
        f"`data/runs/{log}`, which `python -m measure audit verify` checks.",
        True,
    )


"""The cached loaders whose results include failure marks or the run files they change."""


@st.cache_data(show_spinner=False)
def _community_results(version: str, results_key: str, adapter: str) -> pd.DataFrame:
    return status.community_table(adapter)


def community_results(adapter: str) -> tuple[pd.DataFrame, str | None]:
    """Published community runs of one adapter (never mixed with ours), and the one-line reason
    when none can be shown because the inbox state or audit log is damaged."""
    try:
        key = status.results_fingerprint()
        return _community_results(data.snapshot_version(), key, adapter), None
    except inbox.InboxError as exc:
        return status.empty_results(), str(exc)
