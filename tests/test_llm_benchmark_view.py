"""The benchmark page model and the side-by-side compare table (``analytics/llm/benchmark_view``),
and the benchmark and compare pages (AppTest), on the LLM rating snapshot of
``tests/fixtures/catalogs.py`` (test data only, not real figures)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import benchmark_view, leaderboard
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import LLM_NEW as NEW
from tests.fixtures.catalogs import LLM_URL as URL
from tests.fixtures.catalogs import write_snapshot
from tests.fixtures.store import StorePaths


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """The NEW LLM snapshot in tmp_path, served by the app."""
    write_snapshot(store_paths.snapshots, NEW)
    store_paths.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: NEW)
    fresh_caches()
    return store_paths.root


@pytest.fixture()
def board(store: Path) -> leaderboard.Leaderboard:
    return leaderboard.for_version(NEW, bootstrap=50)


def _rescore(board: leaderboard.Leaderboard, model: str, bench: str, score: float):
    """The board with one model's stored scores on one benchmark set to ``score``."""
    scores = board.scores.copy()
    scores.loc[(scores["model"] == model) & (scores["benchmark"] == bench), "score"] = score
    return dataclasses.replace(board, scores=scores)


# --- benchmark_table -----------------------------------------------------------------------


def test_benchmark_table_lists_headline_scores_best_first(board: leaderboard.Leaderboard) -> None:
    view = benchmark_view.benchmark_table(board, "kn1")
    head = view.headline
    assert list(head.columns) == list(benchmark_view.HEADLINE_COLUMNS)
    assert head["model_id"].tolist() == [
        "beta-pro-2", "acme-2-70b", "beta-pro", "acme-2-7b", "gamma-r", "acme-1-7b",
    ]
    assert head["score"].tolist() == [80.0, 70.0, 65.0, 55.0, 50.0, 40.0]
    assert head["position"].tolist() == [1, 2, 3, 4, 5, 6]
    row = head.set_index("model_id").loc["acme-2-70b"]  # independent 70 beats self-reported 75
    assert row["provenance"] == "independent" and row["source_name"] == "src-independent"
    assert row["score_text"] == "70%" and row["unit"] == "%" and row["source_url"] == URL
    assert row["display_name"] == "Acme 2 70B"
    assert pd.Timestamp(row["date"]) == pd.Timestamp("2024-07-01")
    ranks = head.set_index("model_id")["overall_rank"]
    assert ranks["beta-pro-2"] == 1 and ranks["acme-1-7b"] == 5 and pd.isna(ranks["gamma-r"])
    others = view.others  # the non-headline row, on demand
    assert others[["model_id", "score", "provenance"]].values.tolist() == [
        ["acme-2-70b", 75.0, "self-reported"]
    ]


def test_benchmark_table_lower_is_better(board: leaderboard.Leaderboard) -> None:
    head = benchmark_view.benchmark_table(board, "hal").headline
    assert head["model_id"].tolist() == ["beta-pro", "acme-2-7b", "acme-1-7b"]  # 15, 20, 30
    assert head["position"].tolist() == [1, 2, 3]
    arena = benchmark_view.benchmark_table(board, "arena").headline
    assert arena["score_text"].tolist()[0] == "1280 elo"


def test_benchmark_table_ties_share_a_place(board: leaderboard.Leaderboard) -> None:
    tied = _rescore(board, "beta-pro", "kn1", 70.0)
    head = benchmark_view.benchmark_table(tied, "kn1").headline
    assert head["position"].tolist() == [1, 2, 2, 4, 5, 6]
    # equal scores: the better overall rank first (acme-2-70b is ranked, beta-pro below it)
    assert head["model_id"].tolist()[1:3] == ["acme-2-70b", "beta-pro"]
    hal = benchmark_view.benchmark_table(_rescore(board, "acme-2-7b", "hal", 15.0), "hal")
    assert hal.headline["position"].tolist() == [1, 1, 3]


def test_benchmark_table_of_an_unscored_benchmark_is_empty(board: leaderboard.Leaderboard) -> None:
    view = benchmark_view.benchmark_table(board, "no-such-benchmark")
    assert view.headline.empty and view.others.empty
    assert list(view.headline.columns) == list(benchmark_view.HEADLINE_COLUMNS)


def test_describe_a_benchmark() -> None:
    row = pd.Series({"name": "HAL", "category": "safety", "unit": "%", "lower_bound": 0.0,
                     "upper_bound": 100.0, "higher_is_better": False})
    assert benchmark_view.describe(row) == (
        "HAL · category safety · unit % · bounds 0 – 100 · lower is better"
    )


# --- compare_table -------------------------------------------------------------------------


def test_compare_table_two_models(board: leaderboard.Leaderboard) -> None:
    result = benchmark_view.compare_table(board, ["beta-pro-2", "acme-2-70b"])
    table = result.table.set_index("benchmark")
    # hal: neither has it; every other benchmark of acme-2-70b is shared
    assert set(table.index) == {"kn1", "kn2", "kn3", "ma1", "co1", "arena"}
    assert table.loc["kn1", benchmark_view.score_column("acme-2-70b")] == 70.0  # the headline
    assert table.loc["kn1", benchmark_view.source_column("acme-2-70b")] == (
        "src-independent (independent)"
    )
    assert table.loc["kn1", benchmark_view.source_column("beta-pro-2")] == (
        "src-self-reported (self-reported)"
    )
    assert set(table["winner"]) == {"beta-pro-2"}
    wins = result.wins.set_index("model_id")
    assert wins["wins"].to_dict() == {"beta-pro-2": 6, "acme-2-70b": 0}
    assert wins["shared"].to_dict() == {"beta-pro-2": 6, "acme-2-70b": 6}
    assert wins.loc["beta-pro-2", "display_name"] == "Beta Pro 2"


def test_compare_table_lower_is_better_and_partial_rows(board: leaderboard.Leaderboard) -> None:
    ids = ["acme-1-7b", "acme-2-7b", "beta-pro"]
    result = benchmark_view.compare_table(board, ids)
    table = result.table.set_index("benchmark")
    assert set(table.index) == {"kn1", "ma1", "co1", "hal"}  # arena: beta-pro alone
    assert table.loc["hal", "winner"] == "beta-pro"  # 15 < 20 < 30, lower is better
    assert table.loc["co1", "winner"] == "acme-2-7b"  # 30 > 15; beta-pro has no co1 score
    assert pd.isna(table.loc["co1", benchmark_view.score_column("beta-pro")])
    assert result.wins["wins"].tolist() == [0, 1, 3]  # in the order asked
    assert result.wins["shared"].tolist() == [4, 4, 3]


def test_compare_table_ties(board: leaderboard.Leaderboard) -> None:
    tied = _rescore(_rescore(board, "beta-pro", "kn1", 70.0), "beta-pro", "hal", 15.0)
    result = benchmark_view.compare_table(tied, ["acme-2-70b", "beta-pro"])
    table = result.table.set_index("benchmark")
    assert table["winner"].to_dict() == {"kn1": benchmark_view.TIE, "ma1": "acme-2-70b",
                                         "arena": "acme-2-70b"}
    wins = result.wins.set_index("model_id")
    assert wins["wins"].to_dict() == {"acme-2-70b": 2, "beta-pro": 0}
    assert wins["ties"].to_dict() == {"acme-2-70b": 1, "beta-pro": 1}
    low = benchmark_view.compare_table(
        _rescore(board, "acme-2-7b", "hal", 15.0), ["acme-2-7b", "beta-pro"]
    )
    assert low.table.set_index("benchmark").loc["hal", "winner"] == benchmark_view.TIE


def test_compare_table_without_shared_benchmarks(board: leaderboard.Leaderboard) -> None:
    result = benchmark_view.compare_table(board, ["gamma-r", "delta-noscore"])
    assert result.table.empty
    assert result.wins["wins"].tolist() == [0, 0] and result.wins["shared"].tolist() == [0, 0]


# --- pages ---------------------------------------------------------------------------------


def _labels(frame) -> list[str]:
    """The header labels an AppTest dataframe element shows (its column config)."""
    config = json.loads(frame.proto.columns)
    return [c.get("label") for c in config.values() if not c.get("hidden")]


def test_benchmark_page_from_query(store: Path) -> None:
    at = run_page("llm/benchmark.py", benchmark="hal")
    assert not at.exception and not at.warning
    assert at.title[0].value == "Benchmark"
    assert at.selectbox(key="bm_benchmark").value == "hal"
    assert "hal" in str(at.query_params["benchmark"])  # the choice stays in the URL
    assert any(c.value.startswith("Data through ") for c in at.caption)
    assert any(c.value.endswith("bounds 0 – 100 · lower is better") for c in at.caption)
    table = at.dataframe[0]
    assert table.value["display_name"].tolist() == ["Beta Pro", "Acme 2 7B", "Acme 1 7B"]
    labels = _labels(table)
    assert {"Model", "Score (%)", "Provenance", "Source", "Overall rank"} <= set(labels)
    assert not set(labels) & set(benchmark_view.HEADLINE_COLUMNS)  # human labels only
    assert [b.label for b in at.get("download_button")] == ["Download CSV"]


def test_benchmark_page_other_sources_on_demand(store: Path) -> None:
    at = run_page("llm/benchmark.py", benchmark="kn1")
    assert not at.exception and len(at.dataframe) == 1
    at.toggle(key="bm_others").set_value(True).run()
    assert len(at.dataframe) == 2
    assert at.dataframe[1].value["score_text"].tolist() == ["75.0%"]  # % to 0.1: ui.format


def test_unknown_benchmark_is_one_warning(store: Path) -> None:
    at = run_page("llm/benchmark.py", benchmark="no-such-bench")
    assert not at.exception and not at.warning  # ui.params draws the one-line link notice
    assert len(at.info) == 1 and "`benchmark=no-such-bench`" in at.info[0].value
    assert "\n" not in at.info[0].value
    assert at.selectbox(key="bm_benchmark").value == "arena"  # the first, by category and name
    assert len(at.dataframe) == 1


def test_compare_page_shows_the_shared_table(store: Path) -> None:
    at = run_page("llm/compare.py", models=["beta-pro-2", "acme-2-70b"])
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1  # the radar stays
    profile, ratings_table, shared, wins = at.dataframe
    assert set(shared.value["benchmark_name"]) == {"KN1", "KN2", "KN3", "MA1", "CO1", "ARENA"}
    assert shared.value["winner_name"].eq("Beta Pro 2").all()
    assert shared.value["page"].tolist()[0].startswith("llm_benchmark?benchmark=")
    assert {"Benchmark", "Beta Pro 2", "Acme 2 70B: source", "Winner"} <= set(_labels(shared))
    assert wins.value["Wins"].tolist() == [6, 0]
    assert any("10 % of the benchmark range" in c.value for c in at.caption)
    assert any(c.value.startswith("Wins: Beta Pro 2 6 · Acme 2 70B 0") for c in at.caption)
    assert [b.label for b in at.get("download_button")] == ["Download CSV"]
