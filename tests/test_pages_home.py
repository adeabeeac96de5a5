"""Home page: the catalog overview figures (golden, hand-counted) and the page itself (AppTest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths, snapshot
from analytics.llm import overview
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import edit, write_catalog
from tests.fixtures.store import StorePaths
from ui import navigation

ROOT = paths.REPO_ROOT  # AppTest resolves relative paths against the calling file


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """Point the app at the small catalog in tmp_path, with no snapshot built yet."""
    write_catalog(store_paths.serve_catalog())
    fresh_caches()
    return store_paths.root


def test_overview_counts_the_small_catalog(store: Path) -> None:
    ov = overview.catalog_overview(db.connect())
    # hand count of the small catalog (tests/fixtures/catalogs.py)
    assert (ov.models, ov.open_weight_models, ov.benchmarks, ov.categories) == (3, 2, 2, 2)
    assert (ov.scores, ov.sources, ov.gpus, ov.throughput_rows) == (6, 4, 2, 1)
    assert ov.provenance["source_kind"].tolist() == [
        "independent",
        "arena",
        "admin-run",
        "curated",
        "self-reported",
    ]
    assert ov.provenance["score_rows"].tolist() == [1, 2, 0, 1, 2]
    assert ov.provenance["share"].tolist() == pytest.approx([1 / 6, 2 / 6, 0, 1 / 6, 2 / 6])
    assert ov.by_category.to_dict("records") == [
        {"category": "knowledge", "benchmarks": 1, "score_rows": 4, "models": 3},
        {"category": "chat-preference", "benchmarks": 1, "score_rows": 2, "models": 2},
    ]


def test_overview_of_an_empty_connection() -> None:
    import duckdb

    ov = overview.catalog_overview(duckdb.connect(":memory:"))
    assert (ov.models, ov.scores, ov.categories) == (0, 0, 0)
    assert ov.provenance["score_rows"].sum() == 0 and ov.by_category.empty


def test_home_page_builds_the_snapshot_and_renders(store: Path) -> None:
    assert not (store / "snapshots").exists()
    at = run_page("overview/home.py")
    assert not at.exception
    version = snapshot.catalog_version(store / "catalog")
    assert (store / "snapshots" / version / "MANIFEST.json").exists()
    assert at.title[0].value == "Model Atlas"
    assert any(version in c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {
        "Models": "3",
        "Benchmarks": "2",
        "Categories": "2",
        "Scores": "6",
        "GPUs": "2",
    }
    charts = at.get("plotly_chart")
    assert len(charts) == 2


def test_home_page_shows_catalog_problems(store: Path) -> None:
    edit(store / "catalog" / "scores.csv", 3, model_id="gpt-9")
    at = run_page("overview/home.py")
    assert not at.exception
    assert len(at.error) == 1 and "model_id 'gpt-9' is not in models.csv" in at.error[0].value
    assert not at.metric and not (store / "snapshots").exists()


MAIN_PAGES = [
    "pages/llm/leaderboard.py",
    "pages/llm/hardware_fit.py",
    "pages/llm/finetune_planner.py",
    "pages/vision/leaderboard.py",
    "pages/fl/ranked.py",
]
"""The track pages the home page links to, in order (``main`` in ``ui/navigation.PAGES``)."""


def test_home_inside_app_navigation(store: Path) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert at.title[0].value == "Model Atlas"
    main = [p for p in navigation.PAGES if p.main]
    assert [p.file for p in main] == MAIN_PAGES
    links = [(link.proto.page, link.proto.label, link.proto.icon) for link in at.get("page_link")]
    assert links == [(p.url_path, f"{p.section}: {p.title}", p.icon) for p in main]
