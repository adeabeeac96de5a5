"""The leaderboard's precomputed lineage and profiles (``analytics.llm.board_inputs``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import board_inputs, derive_cli, elo, leaderboard, lineage, profiles, ratings
from tests._sources import computation_modules


def test_sources_cover_every_module_the_tables_are_computed_with() -> None:
    seen = computation_modules("analytics/llm/board_inputs.py")
    assert seen <= set(board_inputs.SOURCES), sorted(seen - set(board_inputs.SOURCES))
    assert "analytics/llm/leaderboard.py" in board_inputs.SOURCES  # it reads their inputs


def test_committed_board_inputs_of_the_current_snapshot_are_current() -> None:
    """A leaderboard page's first render reads these instead of computing them."""
    version = db.current_version()
    reason = board_inputs.TABLES.stale_reason(version)
    assert reason is None, reason


def test_committed_tables_equal_a_fresh_computation() -> None:
    version = db.current_version()
    con = db.connect(version)
    try:
        models, benchmarks = leaderboard.board_models(con), leaderboard.benchmarks_table(con)
        headline = elo.rated_scores(ratings.load_scores(con))  # one view per family
    finally:
        con.close()
    stored = board_inputs.lineage_of(version, pytest.fail)  # stored: the models are not read
    pd.testing.assert_frame_equal(stored, lineage.predecessors(models))
    assert stored["predecessor_id"].notna().sum() > 100  # real edges, not an empty table
    stored = board_inputs.profiles_of(version, pytest.fail, pytest.fail)
    pd.testing.assert_frame_equal(stored, profiles.category_profiles(headline, benchmarks))
    assert stored["model"].nunique() > 500


@pytest.fixture()
def version(tiny_store: Path) -> str:
    return db.ensure_snapshot()


def test_derive_writes_the_tables_and_the_board_reads_them(version: str, monkeypatch) -> None:
    written = derive_cli.board_inputs_of(version)
    assert [p.name.split("_")[0] for p in written] == ["lineage", "profiles"]
    assert all(p.exists() for p in written)
    assert not ratings.cache_path(version, 0, 0).exists()  # the ratings are not computed
    monkeypatch.setattr(lineage, "predecessors", pytest.fail)
    monkeypatch.setattr(profiles, "category_profiles", pytest.fail)
    board = leaderboard.for_version(version, bootstrap=0)  # reads both, computes neither
    pd.testing.assert_frame_equal(board.lineage, pd.read_parquet(written[0]))
    pd.testing.assert_frame_equal(board.profiles, pd.read_parquet(written[1]))
    assert not board.profiles.empty


def test_other_code_never_reads_the_old_files(version: str, monkeypatch) -> None:
    first = derive_cli.board_inputs_of(version)
    before = leaderboard.for_version(version, bootstrap=0)
    monkeypatch.setattr(board_inputs.TABLES, "source_hash", lambda: "edited-code")
    assert board_inputs.TABLES.stale_reason(version).endswith(f"derive {version}")
    assert "lineage_edited-code.parquet" in board_inputs.TABLES.stale_reason(version)
    calls = []
    real = lineage.predecessors
    monkeypatch.setattr(lineage, "predecessors", lambda m: calls.append(1) or real(m))
    after = leaderboard.for_version(version, bootstrap=0)
    assert calls == [1]  # recomputed under the new name, the old file untouched
    pd.testing.assert_frame_equal(after.lineage, before.lineage)
    assert board_inputs.TABLES.stale_reason(version) is None
    assert all(p.exists() for p in first)


def test_ad_hoc_boards_store_nothing(tiny_store: Path) -> None:
    version = db.ensure_snapshot()
    con = db.connect(version)
    try:
        board = leaderboard.build(con, "", bootstrap=0)  # no version: nothing cached
    finally:
        con.close()
    assert not board.lineage.empty
    assert not any(board_inputs.TABLES.path(version, n).exists() for n in board_inputs.NAMES)


def test_derive_check_names_a_missing_board_table(version: str, capsys) -> None:
    assert derive_cli.main(["derive", version, "--planner-only"]) == 0
    capsys.readouterr()
    board_inputs.TABLES.path(version, "profiles").unlink()
    assert derive_cli.main(["derive", version, "--check", "--planner-only"]) == 1
    err = capsys.readouterr().err.strip()
    assert "profiles_" in err and err.endswith(f"fix: python -m analytics derive {version}")


def test_rated_sources_cover_every_module_the_board_is_computed_with() -> None:
    seen = computation_modules("analytics/llm/leaderboard.py")
    assert seen <= set(board_inputs.RATED_SOURCES), sorted(seen - set(board_inputs.RATED_SOURCES))


def test_committed_board_and_flagged_scores_are_current_and_equal_a_fresh_build(
    monkeypatch,
) -> None:
    """The first render of a leaderboard page reads the ranked table, the flagged scores and the
    API facts (the scores then not read at all); built afresh from the stored ratings they are
    equal."""
    version = db.current_version()
    assert board_inputs.RATED.stale_reason(version) is None
    con = db.connect(version, runs=False)
    try:
        with monkeypatch.context() as m:
            m.setattr(ratings, "load_scores", pytest.fail)  # stored: the scores are not read
            read = leaderboard.build(con, version)
        m = monkeypatch
        m.setattr(board_inputs, "rated_of", lambda version, name, compute: compute())
        fresh = leaderboard.build(con, version)
    finally:
        con.close()
    pd.testing.assert_frame_equal(read.table, fresh.table)
    pd.testing.assert_frame_equal(read.scores, fresh.scores)
    pd.testing.assert_frame_equal(read.api, fresh.api)
    assert len(read.api) > 100
    assert read.table["eligible"].sum() > 100 and read.scores["is_headline"].sum() > 1000
