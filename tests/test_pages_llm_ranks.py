"""One rank per model everywhere (AppTest on the committed snapshot): the leaderboard, a model
page and the snapshot diff show the same rank, rank range, LMArena rank and Elo for each of the
top 25; filters and the name search never renumber; the diff opens on a pair whose data
differ, named in the URL (docs/elo.md sections 4, 5 and 7)."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import leaderboard, snapshot_diff
from tests.fixtures.apptest import fresh_caches, run_page, tables
from ui import format as fmt

TOP = 25


@pytest.fixture(scope="module")
def board_page():
    fresh_caches()
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    return at


def _ranked(at) -> pd.DataFrame:
    found = tables(at)[0].value
    assert found["eligible"].all()
    return found


def test_the_top_25_show_one_rank_range_and_elo_on_every_page(board_page) -> None:
    ranked = _ranked(board_page).head(TOP)
    assert ranked["rank_range"].notna().all() and ranked["rank_ub"].notna().all()
    old, new = board_page.query_params["diff_old"], board_page.query_params["diff_new"]
    assert new == db.ensure_snapshot()
    diff = snapshot_diff.diff_versions(old, new).set_index("model_id")
    shown_diff = tables(board_page)[-1].value.set_index("model_id")
    for row in ranked.itertuples():
        page = run_page("llm/model.py", model=row.model_id)
        assert not page.exception
        line = next(c.value for c in page.caption if c.value.startswith("Rank "))
        assert line.startswith(f"Rank {row.rank} · rank range {row.rank_range} ("), line
        assert f"· Rank (LMArena) {row.rank_ub} (" in line, line
        assert page.metric[0].value == fmt.elo_text(row.rating)
        after = diff.loc[row.model_id]
        assert (after["rank_new"], after["rating_new"]) == (row.rank, row.rating)
        span = leaderboard.rank_range_text(after["rank_low_new"], after["rank_high_new"])
        assert (span, after["rank_ub_new"]) == (row.rank_range, row.rank_ub)
        if row.model_id in shown_diff.index:  # the page's table of changed rows agrees
            assert shown_diff.loc[row.model_id, "rank_new"] == row.rank
            assert shown_diff.loc[row.model_id, "rating_new"] == row.rating


def test_the_diff_opens_on_snapshots_whose_data_differ(board_page) -> None:
    old, new = board_page.query_params["diff_old"], board_page.query_params["diff_new"]
    assert snapshot_diff.rating_inputs(old) != snapshot_diff.rating_inputs(new)
    assert not any("No changes" in i.value for i in board_page.info)


@pytest.mark.parametrize(
    "query", [{"weights": "Open weights"}, {"from": "2026-06-01"}, {"q": "claude"}]
)
def test_filters_keep_the_boards_ranks(board_page, query: dict) -> None:
    full = _ranked(board_page).set_index("model_id")[["rank", "rank_range", "rank_ub"]]
    at = run_page("llm/leaderboard.py", **query)
    assert not at.exception
    part = _ranked(at).set_index("model_id")[["rank", "rank_range", "rank_ub"]]
    assert 0 < len(part) < len(full)
    pd.testing.assert_frame_equal(part, full.loc[part.index])  # hidden rows leave gaps


def test_the_default_top_ten_rest_on_two_publishers(board_page) -> None:
    top = _ranked(board_page).head(10)
    assert (top["n_sources"] >= 2).all(), top[["model_id", "publishers"]]
