"""Category leaderboards on the leaderboard page (AppTest): choosing a category re-ranks.

The store is the LLM rating snapshot of ``tests/fixtures/catalogs.py`` with two knowledge scores
changed (test data only) so that the knowledge leader differs from the overall leader: gamma-r,
unrated overall (one category), tops all three knowledge benchmarks.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.llm import elo
from tests.fixtures.apptest import run_page, serve_tables, tables
from tests.fixtures.catalogs import llm_catalog_rows
from tests.fixtures.store import StorePaths

VERSION = "vtest-llm-category"


@pytest.fixture()
def store(store_paths: StorePaths) -> StorePaths:
    """The changed LLM snapshot, served (never building one), with fresh caches."""
    tables = llm_catalog_rows()
    gamma = {k: v for k, v in tables["scores"][-1].items()}
    assert gamma["model_id"] == "gamma-r" and gamma["benchmark_id"] == "kn1"
    tables["scores"][-1] = {**gamma, "score": 90.0}
    tables["scores"].append({**gamma, "benchmark_id": "kn2", "score": 95.0})
    tables["scores"].append({**gamma, "benchmark_id": "kn3", "score": 93.0,
                             "source_kind": "self-reported", "source_name": "Gamma model card",
                             "source_url": "https://lab.example.com/model-card"})  # 2 publishers
    tables["scores"].append({**gamma, "model_id": "beta-pro", "benchmark_id": "kn2", "score": 60.0})
    tables["scores"].append({**gamma, "model_id": "beta-pro", "benchmark_id": "kn3", "score": 58.0})
    serve_tables(store_paths, VERSION, tables)
    return store_paths


def test_choosing_a_category_re_ranks(store: StorePaths) -> None:
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    overall = tables(at)[0].value
    assert overall["display_name"].tolist()[0] == "Beta Pro 2"
    at.selectbox(key="lb_category").set_value("knowledge").run()
    assert not at.exception
    ranked, unrated = tables(at)[0].value, tables(at)[1].value
    assert ranked["rank"].tolist() == list(range(1, len(ranked) + 1))  # 1 first, contiguous
    assert ranked["display_name"].tolist() == ["Gamma R", "Beta Pro 2", "Acme 2 70B", "Beta Pro"]
    assert pd.isna(ranked["overall_rank"].iloc[0])  # unrated overall, first in knowledge
    assert ranked["overall_rank"].iloc[1] == 1
    assert set(unrated["display_name"]) == {"Acme 1 7B", "Acme 2 7B"}
    assert set(unrated["unrated_reason"]) == {elo.UNRATED_CATEGORY_FLOOR}
    assert (ranked["rating_low"] <= ranked["rating_high"]).all()
    rule = f"at least {elo.MIN_CATEGORY_BENCHMARKS} of its benchmarks"
    assert any(rule in box.value for box in at.info)
    assert at.query_params["category"] == "knowledge"


def test_a_category_nobody_qualifies_in_lists_everyone_unrated(store: StorePaths) -> None:
    at = run_page("llm/leaderboard.py", category="math")  # one math benchmark only
    assert not at.exception
    assert tables(at)[0].value.empty
    assert len(tables(at)[1].value) == 5  # every model with the math score
    floor = f"No model has {elo.MIN_CATEGORY_BENCHMARKS} benchmarks"
    assert any(floor in c.value for c in at.caption)
