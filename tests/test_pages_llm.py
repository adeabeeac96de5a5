"""Leaderboard assembly, filters, snapshot diff, and the four LLM pages (AppTest).

The store is the LLM rating snapshot of ``tests/fixtures/catalogs.py`` (test data only, not real
figures) written straight to snapshot Parquet in tmp_path, so these tests do not depend on the real
catalog.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import (
    board_inputs,
    category_columns,
    derive_cli,
    diff_inputs,
    elo,
    elo_cli,
    fit_inputs,
    leaderboard,
    planner_inputs,
    ratings,
    snapshot_diff,
)
from tests.fixtures.apptest import (
    run_page,
    serve_llm_pair,
    serve_version,
    shown_labels,
    tables,
)
from tests.fixtures.catalogs import LLM_NEW as NEW
from tests.fixtures.catalogs import LLM_OLD as OLD
from tests.fixtures.catalogs import LLM_URL as URL
from tests.fixtures.catalogs import llm_catalog_rows, write_snapshot
from tests.fixtures.store import StorePaths


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """Two built snapshots (OLD then NEW) in tmp_path; the app serves NEW."""
    serve_llm_pair(store_paths)
    return store_paths.root


@pytest.fixture()
def board(store: Path) -> leaderboard.Leaderboard:
    return leaderboard.for_version(NEW, bootstrap=50)


# --- the leaderboard frame -----------------------------------------------------------------


def test_table_ranks_eligible_models_first(board: leaderboard.Leaderboard) -> None:
    table = board.table.set_index("model_id")
    assert "delta-noscore" not in table.index  # no score, nothing to rate
    assert table.index[-1] == "gamma-r" and pd.isna(table.loc["gamma-r", "rank"])
    assert not table.loc["gamma-r", "eligible"] and table.loc["gamma-r", "n_benchmarks"] == 1
    assert table.loc["beta-pro-2", "rank"] == 1  # wins every battle it has
    assert table.loc["acme-1-7b", "rank"] == 5  # loses every battle it has
    assert table["rank"].dropna().tolist() == [1, 2, 3, 4, 5]
    assert (table["rating_low"] <= table["rating_high"]).all()
    assert list(board.table.columns) == list(leaderboard.TABLE_COLUMNS)


def test_a_publisher_counts_once_whatever_its_boards_or_pages() -> None:
    of = leaderboard.publisher_of
    arena = of("Arena text leaderboard (style control)", "https://lmarena.ai/leaderboard/text")
    assert arena == of("Arena WebDev leaderboard", "https://web.lmarena.ai/leaderboard")
    assert of("Model card", "https://assets.anthropic.com/c.pdf") == of(
        "News", "https://www.anthropic.com/news/claude")
    assert of("Paper A", "https://arxiv.org/abs/1") != of("Paper B", "https://arxiv.org/abs/2")
    assert of("No page", "") == "No page"


def test_a_rating_on_arena_boards_alone_is_provisional_on_the_committed_board() -> None:
    version = db.serving_version().version
    board = leaderboard.for_version(version).table.set_index("model_id")
    scores = ratings.scores_of(version)
    on_arena = scores["source_url"].str.contains("lmarena.ai").groupby(scores["model"]).all()
    floor = board["n_benchmarks"].ge(elo.MIN_BENCHMARKS) & board["n_categories"].ge(2)
    arena_only = [m for m in board.index[floor] if on_arena.get(m, False)]
    assert arena_only  # Arena's newest releases (2026-09) pass the floor on its boards alone
    assert not board.loc[arena_only, "eligible"].any()  # ... and are never ranked on them
    assert board.loc[arena_only, "provisional"].all()
    assert (board.loc[arena_only, "publishers"] == "lmarena.ai").all()
    assert (board.loc[arena_only, "n_sources"] == 1).all()
    assert board.loc[arena_only, "provenance"].str.endswith("one source").all()


def test_provenance_badge_and_licence_class(board: leaderboard.Leaderboard) -> None:
    table = board.table.set_index("model_id")
    # kn1: independent 70 beats the newer self-reported 75
    assert table.loc["acme-2-70b", "provenance"] == "independent 3 · arena 1 · self-reported 2"
    assert table.loc["gamma-r", "provenance"] == "independent 1 · one source"
    assert table.loc["gamma-r", "n_sources"] == 1 and table.loc["acme-2-70b", "n_sources"] > 1
    assert table.loc["acme-1-7b", "licence_class"] == "permissive"
    assert table.loc["acme-2-70b", "licence_class"] == "conditional / custom"
    assert table.loc["gamma-r", "licence_class"] == "research-only"


def test_every_stored_score_is_kept_with_one_headline(board: leaderboard.Leaderboard) -> None:
    rows = leaderboard.model_scores(board, "acme-2-70b")
    assert len(rows) == 7  # both kn1 rows are kept
    kn1 = rows[rows.benchmark == "kn1"]
    assert kn1[["source", "is_headline"]].values.tolist() == [
        ["independent", True],
        ["self-reported", False],
    ]
    assert rows.groupby("benchmark")["is_headline"].sum().eq(1).all()


def test_filters(board: leaderboard.Leaderboard) -> None:
    def ids(**kwargs) -> list[str]:
        flt = leaderboard.LeaderboardFilter(**kwargs)
        return leaderboard.filter_table(board, flt)["model_id"].tolist()

    everyone = board.table["model_id"].tolist()
    assert ids() == everyone
    assert ids(organisations=("Beta Labs",)) == ["beta-pro-2", "beta-pro"]
    assert set(ids(open_weights=False)) == {"beta-pro", "beta-pro-2"}
    assert ids(licence_classes=("research-only",)) == ["gamma-r"]
    assert set(ids(size_b=(7.0, 13.0))) == {"acme-1-7b", "acme-2-7b", "gamma-r"}  # unknown hidden
    assert "beta-pro" not in ids(provenance=("independent",))
    with pytest.raises(ValueError, match="category ratings"):
        ids(category="chat")  # a category view needs the category ratings


def test_category_filter_switches_to_the_category_leaderboard(
    board: leaderboard.Leaderboard,
) -> None:
    by_category = ratings.categories_of_version(NEW, bootstrap=50)
    flt = leaderboard.LeaderboardFilter(category="knowledge")
    rows = leaderboard.filter_table(board, flt, by_category).set_index("model_id")
    # kn1-3: only acme-2-70b and beta-pro-2 have all three; the others are listed unrated
    assert rows.index[:2].tolist() == ["beta-pro-2", "acme-2-70b"]
    assert rows["rank"].tolist()[:2] == [1, 2] and rows["rank"].iloc[2:].isna().all()
    assert set(rows.index) == {"beta-pro-2", "acme-2-70b", "acme-1-7b", "acme-2-7b",
                               "beta-pro", "gamma-r"}
    assert rows.loc["gamma-r", "unrated_reason"] == elo.UNRATED_CATEGORY_FLOOR
    assert rows.loc["beta-pro-2", "overall_rank"] == 1 and pd.isna(
        rows.loc["gamma-r", "overall_rank"]
    )
    assert rows.loc["acme-2-70b", "provenance"] == "independent 2 · self-reported 1"
    assert rows.loc["beta-pro-2", "category_profile"] == 76.7  # (80 + 78 + 72) / 3
    acme = leaderboard.LeaderboardFilter(category="knowledge", organisations=("Acme",))
    hidden = leaderboard.filter_table(board, acme, by_category)
    assert hidden["model_id"].tolist()[0] == "acme-2-70b"  # other filters only hide rows:
    assert hidden["rank"].tolist()[0] == 2  # beta-pro-2 (rank 1) is hidden, ranks are kept


def test_model_summary_and_lineage(board: leaderboard.Leaderboard) -> None:
    top = leaderboard.model_summary(board, "beta-pro-2")
    assert top.rank == 1 and top.rank_text.startswith("1 (")
    unrated = leaderboard.model_summary(board, "gamma-r")
    assert unrated.rank is None and unrated.rank_text.startswith("unrated")
    empty = leaderboard.model_summary(board, "delta-noscore")
    assert empty.rating is None and empty.interval_text == "—"
    fam = leaderboard.lineage_of(board, "acme-1-7b")  # 70B is another size class
    assert fam[["relation", "model_id"]].values.tolist() == [["successor", "acme-2-7b"]]
    assert leaderboard.lineage_of(board, "acme-2-7b")["model_id"].tolist() == ["acme-1-7b"]


def test_movers_of_the_board(board: leaderboard.Leaderboard) -> None:
    moves = leaderboard.movers(board)
    assert set(moves["model_id"]) == {"acme-2-7b", "beta-pro-2"}  # 70B: first of its class
    assert moves["gain"].is_monotonic_decreasing and (moves["gain"] > 0).all()
    assert moves.loc[moves.model_id == "acme-2-7b", "predecessor_name"].item() == "Acme 1 7B"


# --- changes between snapshots -------------------------------------------------------------


def test_rating_changes_hand_example() -> None:
    old = pd.DataFrame({"model_id": ["a", "b", "c"], "rating": [1100.0, 1000.0, 900.0]})
    old["rank"] = pd.array([1, 2, None], dtype="Int64")
    new = pd.DataFrame({"model_id": ["b", "a", "d"], "rating": [1120.0, 1100.0, 950.0]})
    new["rank"] = pd.array([1, 2, None], dtype="Int64")
    out = snapshot_diff.rating_changes(old, new).set_index("model_id")
    assert out["change"].to_dict() == {"d": "added", "c": "removed", "b": "moved", "a": "unchanged"}
    assert out.loc["b", "rating_delta"] == 120.0 and out.loc["b", "rank_delta"] == 1
    assert out.loc["a", "rating_delta"] == 0.0 and out.loc["a", "rank_delta"] == -1
    same = snapshot_diff.rating_changes(old, old)
    assert set(same["change"]) == {"unchanged"}
    nudged = new.assign(rating=new["rating"] + [4.9, 0.0, 0.0])
    assert snapshot_diff.rating_changes(new, nudged)["change"].eq("unchanged").all()  # < 5 points


def test_a_renamed_or_merged_id_is_reported_as_such() -> None:
    old = pd.DataFrame({"model_id": ["x-10-2024", "y", "z-old"], "rating": [1100.0, 1000.0, 950.0]})
    old["rank"] = pd.array([1, 2, 3], dtype="Int64")
    new = pd.DataFrame({"model_id": ["x-20241022", "y"], "rating": [1101.0, 990.0]})
    new["rank"] = pd.array([1, 2], dtype="Int64")
    out = snapshot_diff.rating_changes(old, new, {"x-10-2024": "x-20241022", "z-old": "y"})
    rows = {(r.model_id, r.change, r.former_id) for r in out.itertuples()}
    assert ("x-20241022", "renamed", "x-10-2024") in rows  # not removed + added
    assert ("y", "merged", "z-old") in rows
    own = out[(out["model_id"] == "y") & out["former_id"].isna()]
    assert own["change"].tolist() == ["moved"]  # y's own row, beside the merge
    assert not set(out["change"]) & {"added", "removed"}
    models = pd.DataFrame({"model_id": ["x-20241022"], "display_name": ["X"],
                           "aliases": ["x-10-2024;X (Oct '24)"]})
    assert snapshot_diff.renamed_ids({"x-10-2024", "gone"}, models) == {"x-10-2024": "x-20241022"}


def test_elo_diff_between_snapshots(store: Path, capsys) -> None:
    changes = snapshot_diff.diff_versions(OLD, NEW).set_index("model_id")
    assert changes.loc["beta-pro-2", "change"] == "added"
    # the fit is joint: the newcomer's battles move every other rating, some beyond 5 points
    rest = changes.drop(index="beta-pro-2")
    assert set(rest["change"]) <= {"moved", "unchanged"} and "moved" in set(rest["change"])
    assert (rest.loc[rest["change"] == "moved", "rating_delta"].abs() >= 5).all()
    assert changes.loc["acme-2-7b", "rating_delta"] < 0  # it loses all three battles to it
    assert elo_cli.main(["elo-diff", OLD, NEW]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("model_id,change,rating_old,rank_old,rating_new,rank_new")
    assert any(line.startswith("beta-pro-2,added,") for line in lines[1:])
    assert elo_cli.main(["elo-diff", OLD, "v-missing"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no snapshot 'v-missing'" in err[0] and "fix:" in err[0]


# --- the derived-ratings cache -------------------------------------------------------------


def test_ratings_cache_is_keyed_by_snapshot_and_algorithm(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = ratings.of_version(NEW)
    path = ratings.cache_path(NEW, 0, 0)
    assert path.exists() and NEW in str(path) and elo.ALGORITHM_VERSION in path.name
    entry = ratings.read_manifest(NEW)["files"][path.name]
    assert entry["algorithm_version"] == elo.ALGORITHM_VERSION
    assert entry["source_sha256"] == ratings.source_hash()
    fits = []
    real_rate = elo.rate
    monkeypatch.setattr(elo, "rate", lambda *a, **k: fits.append(1) or real_rate(*a, **k))
    pd.testing.assert_frame_equal(ratings.of_version(NEW), first)
    assert fits == []  # read from the cache
    monkeypatch.setattr(elo, "ALGORITHM_VERSION", "test-next-method")
    pd.testing.assert_frame_equal(ratings.of_version(NEW), first)
    assert fits == [1]  # a new rating method never serves the old file
    assert ratings.cache_path(NEW, 0, 0).exists() and path.exists()


def test_stale_derived_files_are_reported_and_regenerated(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    assert derive_cli.main(["derive", NEW, "--check"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"fix: python -m analytics derive {NEW}" in err[0]
    assert derive_cli.main(["derive", NEW]) == 0
    written = capsys.readouterr().out.splitlines()  # + categories, changes, board's, fit inputs,
    want = len(ratings.SERVED) + 1 + len(diff_inputs.NAMES) + len(board_inputs.NAMES)  # planner's
    want += len(board_inputs.RATED_NAMES) + len(fit_inputs.FILES.names)
    want += len(planner_inputs.NAMES)
    assert len(written) == want
    assert derive_cli.main(["derive", NEW, "--check"]) == 0
    monkeypatch.setattr(ratings, "source_hash", lambda: "edited rating code")
    assert "stale" in ratings.stale_reason(NEW)


# --- pages ---------------------------------------------------------------------------------


def test_leaderboard_page(store: Path) -> None:
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    assert at.title[0].value == "LLM leaderboard"
    ranked, unrated, diff = tables(at)
    assert ranked.value["display_name"].tolist()[0] == "Beta Pro 2"
    assert len(ranked.value) == 5 and unrated.value["display_name"].tolist() == ["Gamma R"]
    assert ranked.value["provenance"].str.len().gt(0).all()
    buttons = [b.label for b in at.get("download_button")]  # leaderboard CSV + Parquet, diff CSV
    assert buttons == ["Download CSV", "Download Parquet", "Download CSV"]
    assert "beta-pro-2" in diff.value["model_id"].tolist()  # added, after the moves by size
    moves = diff.value["rating_delta_field"].dropna().abs()
    assert moves.tolist() == sorted(moves, reverse=True)
    assert "Beta Pro 2" in diff.value["display_name"].tolist()
    assert any("added 1" in c.value for c in at.caption)
    # essential columns first; the rest behind "More columns" (the frame keeps them)
    assert shown_labels(ranked)[:11] == [
        "Rank", "Rank range", "Rank (LMArena)", "Model", "Elo", "Elo 95% interval", "Provenance",
        "Released", "Benchmarks", "Categories", "Sources",
    ]
    assert "Why unrated" in shown_labels(unrated) and "Rank" not in shown_labels(unrated)
    assert ranked.value["rating_interval"].str.contains(" – ").all()
    assert "Elo before" in shown_labels(diff) and "Model ID" not in shown_labels(diff)


def test_leaderboard_search_keeps_ranks_and_more_columns(
    board: leaderboard.Leaderboard,
) -> None:
    at = run_page("llm/leaderboard.py", q="ACME 2", cols=["organisation", "family"])
    assert not at.exception
    ranked = tables(at)[0]
    assert ranked.value["display_name"].tolist() == ["Acme 2 70B", "Acme 2 7B"]  # any case
    full = board.table.set_index("model_id")["rank"]
    assert ranked.value["rank"].tolist() == full[["acme-2-70b", "acme-2-7b"]].tolist()
    labels = shown_labels(ranked)
    assert labels[-2:] == ["Organisation", "Family"] and "Released" in labels  # essential
    assert at.multiselect(key="lb_cols").value == ["organisation", "family"]
    by_id = run_page("llm/leaderboard.py", q="beta-pro-2")
    assert tables(by_id)[0].value["display_name"].tolist() == ["Beta Pro 2"]
    nothing = run_page("llm/leaderboard.py", q="no such model")
    assert not nothing.exception and tables(nothing)[0].value.empty


def test_leaderboard_search_matches_aliases(board: leaderboard.Leaderboard) -> None:
    models = board.models.copy()
    models.loc[models["model_id"] == "gamma-r", "aliases"] = "G-Reason;gr-1"
    aliased = dataclasses.replace(board, models=models)
    rows = leaderboard.search(aliased, board.table, " gr-1 ")
    assert rows["model_id"].tolist() == ["gamma-r"]
    assert leaderboard.search(aliased, board.table, "")["model_id"].tolist() == (
        board.table["model_id"].tolist()
    )


def test_no_changes_between_identical_snapshots(store_paths: StorePaths) -> None:
    write_snapshot(store_paths.snapshots, "vtest-llm-a")
    write_snapshot(store_paths.snapshots, "vtest-llm-b")
    serve_version(store_paths, "vtest-llm-b")
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    assert len(tables(at)) == 2  # ranked and unrated, no empty changes table
    assert any(box.value.startswith("No changes") for box in at.info)


def test_leaderboard_page_filters_from_query_params(store: Path) -> None:
    at = run_page("llm/leaderboard.py", org="Beta Labs", category="knowledge")
    assert not at.exception
    assert at.selectbox(key="lb_category").value == "knowledge"
    assert tables(at)[0].value["display_name"].tolist() == ["Beta Pro 2"]
    assert tables(at)[1].value["display_name"].tolist() == ["Beta Pro"]  # kn1 only
    at.multiselect(key="lb_org").set_value([]).run()
    assert at.query_params["category"] == "knowledge" and "org" not in at.query_params
    assert tables(at)[0].value["rank"].tolist() == [1, 2]


def test_model_page(store: Path) -> None:
    at = run_page("llm/model.py", model="acme-2-7b")
    assert not at.exception
    assert at.header[0].value == "Acme 2 7B"
    scores, family = at.dataframe[0], at.dataframe[1]
    assert len(scores.value) == 4 and scores.value["source_url"].eq(URL).sum() == 3
    assert family.value["model_id"].tolist() == ["acme-1-7b"]
    assert len(at.get("plotly_chart")) == 1
    unscored = run_page("llm/model.py", model="delta-noscore")
    assert not unscored.exception


def test_movers_page(store: Path) -> None:
    at = run_page("llm/movers.py", top="5")
    assert not at.exception
    table = at.dataframe[0].value
    assert table["gain"].is_monotonic_decreasing and len(table) == 2
    assert len(at.get("plotly_chart")) == 1


def test_compare_page(store: Path) -> None:
    at = run_page("llm/compare.py", models=["beta-pro-2", "acme-2-70b"])
    assert not at.exception
    assert at.multiselect(key="cmp_models").value == ["beta-pro-2", "acme-2-70b"]
    assert len(at.get("plotly_chart")) == 1
    assert any("not a ranking" in c.value for c in at.caption)


@pytest.mark.parametrize(
    "page",
    ["llm/leaderboard.py", "llm/model.py", "llm/movers.py", "llm/compare.py", "llm/benchmark.py"],
)
def test_pages_survive_a_snapshot_without_scores(store_paths: StorePaths, page: str) -> None:
    write_snapshot(store_paths.snapshots, "vtest-llm-empty", without_scores=True)
    serve_version(store_paths, "vtest-llm-empty")
    at = run_page(page)
    assert not at.exception


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("llm/leaderboard.py", {}),
        ("llm/model.py", {"model": "acme-2-7b"}),
        ("llm/movers.py", {}),
        ("llm/compare.py", {}),
        ("llm/benchmark.py", {"benchmark": "kn1"}),
    ],
)
def test_every_llm_page_says_how_fresh_its_data_is(store: Path, page: str, query: dict) -> None:
    at = run_page(page, **query)
    assert not at.exception
    lines = [c.value for c in at.caption if c.value.startswith("Data through ")]
    assert lines, [c.value for c in at.caption]
    newest = max(r["release_date"] for r in llm_catalog_rows()["models"] if r["release_date"])
    assert lines[0].startswith(f"Data through {newest} (newest model release)")


# --- release date, "released on or after", categories side by side ---------------


def test_released_on_or_after_filter_is_kept_in_the_url(board: leaderboard.Leaderboard) -> None:
    days = pd.to_datetime(board.table["release_date"])
    cut = days.dropna().sort_values().iloc[len(days.dropna()) // 2]
    at = run_page("llm/leaderboard.py", **{"from": cut.date().isoformat()})
    assert not at.exception and not at.error
    ranked, unrated, _ = tables(at)
    shown = pd.concat([ranked.value, unrated.value])
    expected = board.table.loc[days >= cut, "model_id"]
    assert 0 < len(expected) < len(board.table)
    assert sorted(shown["model_id"]) == sorted(expected)
    assert (pd.to_datetime(shown["release_date"]) >= cut).all()
    assert at.date_input(key="lb_from").value == cut.date()
    assert at.query_params["from"] == cut.date().isoformat()
    for bad in ("not-a-day", "2024-13-40"):  # a broken link: no filter, no error
        broken = run_page("llm/leaderboard.py", **{"from": bad})
        assert not broken.exception and not broken.error
        assert at.date_input(key="lb_from").value is not None
        assert broken.date_input(key="lb_from").value is None
        assert len(tables(broken)[0].value) >= len(ranked.value)


def test_categories_side_by_side_view(board: leaderboard.Leaderboard) -> None:
    at = run_page("llm/leaderboard.py", view="categories")
    assert not at.exception and not at.error
    assert at.radio(key="lb_view").value == "Categories side by side"
    side = tables(at)[0]
    headers = shown_labels(side)
    assert headers[:3] == ["Rank", "Model", "Elo"]
    cat_headers = [h for h in headers if h.endswith(" Elo") and h != "Elo"]
    assert cat_headers, headers
    frame = side.value
    assert frame["eligible"].all()  # ranked models only
    cols = [c for c in frame if c.startswith(category_columns.SIDE_BY_SIDE_PREFIX)]
    assert len(cols) == len(cat_headers)
    by_category = ratings.categories_of_version(NEW, bootstrap=50)
    for col in cols:  # each cell is the category's rating where ranked there, else blank
        cat = col.removeprefix(category_columns.SIDE_BY_SIDE_PREFIX)
        ranked = by_category[(by_category["category"] == cat) & by_category["eligible"]]
        want = ranked.set_index("model_id")["rating"].reindex(frame["model_id"]).to_numpy()
        assert np.allclose(frame[col].to_numpy(float), want.astype(float), equal_nan=True)
    assert [b.label for b in at.get("download_button")][0] == "Download CSV"
    back = run_page("llm/leaderboard.py")
    assert back.radio(key="lb_view").value == "Ranked list" and "view" not in back.query_params


def test_board_release_date_says_its_basis_on_the_committed_snapshot() -> None:
    con = db.connect(db.serving_version().version)
    try:
        models = leaderboard.board_models(con)
        raw = db.query(con, "SELECT model_id, release_date_basis FROM models")
    finally:
        con.close()
    proxies = set(raw.loc[raw["release_date_basis"].fillna("").str.strip() != "", "model_id"])
    assert proxies  # 22 models dated only by their first appearance in LiteLLM (2026-12)
    facts = models.set_index("model_id")
    assert facts.loc[sorted(proxies), "release_date"].isna().all()  # lineage: stated only
    assert facts.loc[sorted(proxies), "listed_release_date"].notna().all()
    from analytics.llm.ingest import litellm_first_seen, open_llm_leaderboard

    bases = {litellm_first_seen.BASIS, open_llm_leaderboard.SUBMITTED_BASIS}  # the two proxies
    assert set(facts.loc[sorted(proxies), "release_basis"]) <= bases
    stated = facts.index.difference(sorted(proxies))
    assert facts.loc[stated, "release_basis"].isna().all()
