"""The leaderboard's precomputed snapshot changes and freshness (``analytics.llm.diff_inputs``):
the committed files are current and equal a fresh computation, ``derive`` writes them, and the
page's "Changes between snapshots" section reads them instead of opening the store."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import derive_cli, diff_inputs, overview, snapshot_diff
from tests._sources import computation_modules
from tests.fixtures.apptest import run_page, serve_llm_pair, tables
from tests.fixtures.catalogs import LLM_NEW as NEW
from tests.fixtures.catalogs import LLM_OLD as OLD
from tests.fixtures.store import StorePaths


def test_sources_cover_every_module_the_tables_are_computed_with() -> None:
    seen = computation_modules("analytics/llm/diff_inputs.py")
    assert seen <= set(diff_inputs.SOURCES), sorted(seen - set(diff_inputs.SOURCES))


def test_committed_tables_of_the_current_snapshot_are_current() -> None:
    """The leaderboard's first render reads these instead of one connection per snapshot."""
    reason = diff_inputs.stale_reason(db.current_version())
    assert reason is None, reason


def test_committed_tables_equal_a_fresh_computation(monkeypatch) -> None:
    version = db.current_version()
    old, new = snapshot_diff.default_pair(db.list_versions(), version)
    fresh = snapshot_diff.diff_versions(old, new)
    monkeypatch.setattr(snapshot_diff, "diff_versions", pytest.fail)  # stored: not computed
    stored = diff_inputs.changes(old, new)
    pd.testing.assert_frame_equal(stored, fresh)
    assert len(stored) > 1000
    found = diff_inputs.freshness(version)
    assert list(found) == db.list_versions()
    for each in found:
        con = db.connect(each)
        try:
            assert found[each] == overview.freshness(con)
        finally:
            con.close()


@pytest.fixture()
def store(store_paths: StorePaths) -> StorePaths:
    """Two built snapshots (OLD then NEW) in tmp_path; the app serves NEW."""
    serve_llm_pair(store_paths)
    return store_paths


def test_derive_writes_the_tables_and_the_page_reads_them(store: StorePaths, monkeypatch) -> None:
    assert derive_cli.main(["derive", NEW]) == 0
    assert diff_inputs.stale_reason(NEW) is None
    assert all(path.exists() for path in diff_inputs.TABLES.paths(NEW))
    fresh = snapshot_diff.diff_versions(OLD, NEW)
    monkeypatch.setattr(snapshot_diff, "diff_versions", pytest.fail)
    monkeypatch.setattr(overview, "freshness", pytest.fail)  # no store connection for dates
    pd.testing.assert_frame_equal(diff_inputs.changes(OLD, NEW), fresh)
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    diff = tables(at)[-1].value
    changed = fresh.loc[fresh["change"] != "unchanged", "model_id"]
    assert diff["model_id"].tolist() == changed.tolist()
    picker = at.selectbox(key="lb_diff_old")
    assert picker.value == OLD and all(" · built " in label for label in picker.options)


def test_another_pair_is_computed_and_a_moved_pair_is_stale(
    store: StorePaths, monkeypatch
) -> None:
    assert derive_cli.main(["derive", NEW]) == 0
    asked = []
    monkeypatch.setattr(snapshot_diff, "diff_versions", lambda o, n: asked.append((o, n)))
    diff_inputs.changes(NEW, OLD)  # OLD's folder holds no changes: computed
    assert asked == [(NEW, OLD)]
    monkeypatch.setattr(snapshot_diff, "default_pair", lambda versions, new: None)
    reason = diff_inputs.stale_reason(NEW)
    assert f"holds the changes from {OLD}, the section opens on none" in reason
    assert derive_cli.main(["derive", NEW, "--check"]) == 1
    assert derive_cli.main(["derive", NEW, "--check", "--planner-only"]) == 0  # not checked


def test_a_snapshot_built_after_the_derive_is_read_from_the_store(store: StorePaths) -> None:
    assert derive_cli.main(["derive", NEW]) == 0
    assert set(diff_inputs.freshness(NEW)) == {OLD, NEW}
    assert diff_inputs.freshness(OLD) == {}  # nothing stored for it: the page asks the store
    path = Path(diff_inputs.TABLES.path(NEW, "freshness"))
    path.unlink()
    assert diff_inputs.freshness(NEW) == {}
