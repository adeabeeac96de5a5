"""The leaderboard's "Changes between snapshots" section, precomputed once per snapshot version
into ``data/derived/<version>/`` (a ``derived.TableSet``, like ``board_inputs``), so the page's
first render reads two small files instead of opening a store connection per built snapshot:

- ``changes``: :func:`snapshot_diff.diff_versions` from the snapshot the section opens on
  (:func:`snapshot_diff.default_pair`) to this version, that snapshot named in ``old_version``;
- ``freshness``: ``overview.freshness`` of every snapshot built when it was derived
  (``version``, ``data_through``, ``sources_as_of``): the snapshot picker's labels and the
  page's data line.

Snapshots are immutable, so a stored row stays true for good; a pair or a snapshot the files do
not hold (another pick, a snapshot built after the derive) is computed as before.
``python -m analytics derive`` writes them (:func:`derive`) beside the ratings they are
computed from, and a test fails when the committed ones are missing for the current code.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analytics.core import db, derived
from analytics.llm import board_inputs, overview, snapshot_diff

SOURCES = (
    *board_inputs.SOURCES,  # the ratings of both sides and the new side's models
    "analytics/core/labels.py",
    "analytics/core/licences.py",
    "analytics/core/safejson.py",
    "analytics/core/snapshot/manifest.py",  # which snapshots are built, and their files
    "analytics/core/snapshot/parse.py",
    "analytics/llm/api_facts.py",
    "analytics/llm/catalog.py",  # the new snapshot's names: renames and merges
    "analytics/llm/diff_inputs.py",
    "analytics/llm/fit.py",
    "analytics/llm/hardware.py",
    "analytics/llm/ingest/roofline.py",
    "analytics/llm/overview.py",
    "analytics/llm/snapshot_diff.py",
)
"""Every module the tables' computation runs (a test checks this list against the imports of
this module, transitively)."""
NAMES = ("changes", "freshness")
TABLES = derived.TableSet(NAMES, SOURCES, "snapshot diff")
OLD = "old_version"
"""The ``changes`` column naming the snapshot the changes are from."""


def changes(old: str, new: str) -> pd.DataFrame:
    """``snapshot_diff.diff_versions(old, new)``: ``new``'s stored table when it holds that
    pair, else computed (and not stored: the file keeps the pair the section opens on)."""
    stored = TABLES.stored(new, "changes")
    if stored is not None and len(stored) and stored[OLD].eq(old).all():
        return stored.drop(columns=OLD)
    return snapshot_diff.diff_versions(old, new)


def freshness(version: str) -> dict[str, overview.Freshness]:
    """version -> ``overview.Freshness`` of every snapshot ``version``'s stored table holds
    (empty when it holds none)."""
    stored = TABLES.stored(version, "freshness")
    if stored is None:
        return {}
    rows = zip(stored["version"], stored["data_through"], stored["sources_as_of"], strict=True)
    return {str(v): overview.Freshness(_text(through), _text(as_of)) for v, through, as_of in rows}


def _text(value: object) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def _old_version(version: str) -> str | None:
    """The snapshot the section opens on when ``version`` is the new one (None: none)."""
    pair = snapshot_diff.default_pair(db.list_versions(), version)
    return pair[0] if pair else None


def stale_reason(version: str) -> str | None:
    """``TABLES.stale_reason``, or a line when the stored changes are from another snapshot
    than the one the section now opens on (one built or pruned since); None when current."""
    reason = TABLES.stale_reason(version)
    if reason:
        return reason
    stored = TABLES.stored(version, "changes")
    have = str(stored[OLD].iloc[0]) if stored is not None and len(stored) else None
    want = _old_version(version)
    if have == want:
        return None
    where = TABLES.path(version, "changes").relative_to(derived.folder(version).parent.parent)
    return (f"{where}: holds the changes from {have or 'no snapshot'}, the section opens on "
            f"{want or 'none'}; fix: {derived.REGENERATE} {version}")


def compute_changes(version: str) -> pd.DataFrame:
    """The ``changes`` table of ``version``: from the snapshot the section opens on (no rows
    when there is none)."""
    old = _old_version(version)
    if old is None:
        return pd.DataFrame({OLD: pd.Series(dtype=object)})
    return snapshot_diff.diff_versions(old, version).assign(**{OLD: old})


def compute_freshness() -> pd.DataFrame:
    """The ``freshness`` table: every built snapshot's, oldest build first."""
    rows = []
    for version in db.list_versions():
        con = db.connect(version)
        try:
            found = overview.freshness(con)
        finally:
            con.close()
        rows.append((version, found.data_through, found.sources_as_of))
    return pd.DataFrame(rows, columns=["version", "data_through", "sources_as_of"], dtype=object)


def derive(version: str) -> list[Path]:
    """Both tables of ``version`` for the current code and snapshots (rewritten when stale,
    :func:`stale_reason`), older files removed after; nothing is read when they are current.
    Needs the ratings of both sides (``ratings.of_version``: computed when not stored)."""
    if stale_reason(version) is not None:
        derived.store(TABLES.path(version, "changes"), compute_changes(version))
        derived.store(TABLES.path(version, "freshness"), compute_freshness())
    return TABLES.remove_older(version)
