"""``db.connect``'s views and the column lookups beside it, on the committed store."""

from __future__ import annotations

from analytics.core import db, paths
from analytics.llm import catalog


def _views(con) -> set[str]:
    return {row[0] for row in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}


def test_a_connection_without_runs_has_the_snapshot_views_only() -> None:
    version = db.current_version()
    runs = {p.name for p in paths.RUNS_DIR.iterdir() if p.is_dir() and any(p.glob("*.parquet"))}
    assert runs  # the committed store has measured runs
    every, snapshot_only = db.connect(version), db.connect(version, runs=False)
    try:
        assert runs <= _views(every)
        assert _views(snapshot_only) == _views(every) - runs
    finally:
        every.close()
        snapshot_only.close()
    assert len(catalog.of_version(version).models) > 1000  # the calculators read no runs


def test_select_present_fills_a_missing_column_and_a_missing_table() -> None:
    con = db.connect(db.current_version(), runs=False)
    try:
        found = db.select_present(con, "api_speed", ["model_id", "no_such_column"], "model_id")
        assert found["no_such_column"].isna().all() and len(found) > 100
        assert found["model_id"].is_monotonic_increasing
        assert db.select_present(con, "no_such_table", ["a", "b"]).columns.tolist() == ["a", "b"]
        assert db.has_column(con, "models", "model_id")
        assert not db.has_column(con, "models", "no_such_column")
        assert not db.has_column(con, "no_such_table", "model_id")
    finally:
        con.close()
