"""A rank rests on independent evidence (docs/elo.md, "One evaluation, one benchmark" and
"Eligibility and ranks"): views of one evaluation count once, a rank needs two publishers,
LMArena's upper-bound rank, one rank per model in every view, movers from ranked predecessors,
and the snapshot diff's default pair and scale drift. Golden tests on small tables, then the
done-when checks on the committed snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db, paths
from analytics.llm import elo, leaderboard, lineage, ratings, snapshot_diff
from analytics.llm.ingest import benchmarks as bench_table


def _scores(rows: list[tuple]) -> pd.DataFrame:
    """model, benchmark, category, score, publisher, family, view_order."""
    cols = ["model", "benchmark", "category", "score", "publisher", "family", "view_order"]
    return pd.DataFrame(rows, columns=cols)


# --- one evaluation, one benchmark -------------------------------------------------------------


def test_a_model_enters_each_family_once_from_its_best_view() -> None:
    frame = _scores([
        ("a", "sc", "chat", 1500, "arena", "pool", 1),
        ("a", "plain", "chat", 1400, "arena", "pool", 2),
        ("b", "plain", "chat", 1300, "arena", "pool", 2),
        ("a", "k1", "knowledge", 50, "lab", "", 1),
    ])
    rated = elo.rated_scores(frame)
    assert sorted(zip(rated["model"], rated["benchmark"], strict=True)) == [
        ("a", "k1"), ("a", "sc"), ("b", "plain"),
    ]  # a's plain view is set aside (its style-control view counts); b has only the plain one
    aside = elo.views_set_aside(frame)
    assert aside[["model", "benchmark"]].values.tolist() == [["a", "plain"]]


def test_without_families_every_headline_score_counts() -> None:
    frame = _scores([("a", "x", "c", 1, "p", "", 1), ("a", "y", "c", 2, "p", "", 1)])
    assert len(elo.rated_scores(frame.drop(columns=["family", "view_order"]))) == 2
    assert len(elo.rated_scores(frame)) == 2


def test_declared_families_each_have_one_headline_view() -> None:
    views = bench_table.views()
    families: dict[str, dict[int, str]] = {}
    for bench, (family, order, note) in views.items():
        assert order not in families.setdefault(family, {}), (family, order)
        families[family][order] = bench
        assert note, f"{bench}: a view needs its reason (view_note)"
    assert all(1 in orders for orders in families.values())
    # the evaluations the rule exists for, headline first
    assert families["arena-text"] == {1: "arena-text-sc", 2: "lmarena-text"}
    assert families["arena-vision"] == {1: "arena-vision-sc", 2: "lmarena-vision"}
    assert families["arena-webdev"] == {1: "arena-webdev", 2: "webdev-arena"}
    assert families["gdpval-aa"] == {1: "gdpval-aa-v2", 2: "gdpval-aa-v1"}
    assert families["livebench-reasoning"][1] == "livebench-reasoning"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("x,X,math,true,0,100,%,,,fam,2,n\n", "no headline view"),
        ("x,X,math,true,0,100,%,,,fam,1,n\ny,Y,math,true,0,100,%,,,fam,1,n\n", "both view 1"),
        ("x,X,math,true,0,100,%,,,,2,n\n", "without a family"),
        ("x,X,math,true,0,100,%,,,fam,first,n\n", "needs a view_order"),
    ],
)
def test_a_bad_family_declaration_is_one_line(tmp_path: Path, rows: str, message: str) -> None:
    path = tmp_path / "benchmarks.csv"
    header = "benchmark_id,name,category,higher_is_better,lower_bound,upper_bound,unit,"
    path.write_text(header + "source_names,protocol,family,view_order,view_note\n" + rows)
    table: dict = {}
    with pytest.raises(ValueError, match=message):
        bench_table._read_into(path, table, {})
        bench_table._check_families(table)


# --- publishers, not rows ----------------------------------------------------------------------


def _floor_rows(model: str, publishers: tuple[str, str, str], base: float) -> list[tuple]:
    cats = ("k", "k", "m")
    return [
        (model, f"b{i}", cats[i], base + i, publishers[i], "", 1) for i in range(3)
    ]


def test_a_rank_needs_two_publishers_one_publisher_is_provisional() -> None:
    frame = _scores(
        _floor_rows("one", ("arena", "arena", "arena"), 90)  # the best scores, one publisher
        + _floor_rows("two", ("arena", "lab", "lab"), 50)
        + _floor_rows("three", ("x", "y", "z"), 10)
    )
    table = elo.rate(frame).set_index("model")
    assert not table.loc["one", "eligible"] and table.loc["one", "provisional"]
    assert table.loc["one", "unrated_reason"] == "one publisher (arena)"
    assert pd.isna(table.loc["one", "rank"]) and table.loc["one", "rating"] > 1000
    assert table.loc["two", "rank"] == 1 and table.loc["three", "rank"] == 2
    assert table.loc["two", "publishers"] == "arena; lab" and table.loc["two", "n_publishers"] == 2
    assert not table["provisional"][["two", "three"]].any()


def test_category_ranks_follow_the_publisher_rule() -> None:
    rows = [(m, f"k{i}", "k", s + i, p, "", 1) for m, s, p in
            (("solo", 90, "arena"), ("pair", 50, None), ("trio", 10, None)) for i in range(3)]
    rows = [(m, b, c, s, p or ("x" if b == "k0" else "y"), f, o) for m, b, c, s, p, f, o in rows]
    table = elo.rate_categories(_scores(rows)).set_index("model")
    assert pd.isna(table.loc["solo", "rank"]) and table.loc["solo", "provisional"]
    assert table.loc["pair", "rank"] == 1 and table.loc["trio", "rank"] == 2


def test_publisher_is_the_page_domain_or_the_source_on_a_shared_host() -> None:
    assert elo.publisher_of("Arena text", "https://lmarena.ai/leaderboard/text") == "lmarena.ai"
    assert elo.publisher_of("Paper A", "https://arxiv.org/abs/1") == "Paper A"
    assert leaderboard.publisher_of is elo.publisher_of  # one implementation


# --- ranks as the data allows ------------------------------------------------------------------


def test_upper_bound_rank_counts_models_wholly_above() -> None:
    table = pd.DataFrame({
        "eligible": [True, True, True, True, False],
        "rating_low": [2000.0, 1950.0, 1700.0, 1500.0, 2500.0],
        "rating_high": [2200.0, 2100.0, 1990.0, 1690.0, 2600.0],
    })
    # the second overlaps the first: both rank 1; the third lies below both; the fourth below
    # all three; the unrated row neither counts nor gets a rank
    assert elo.upper_bound_ranks(table).tolist() == [1, 1, 2, 4, pd.NA]


def test_grouping_variants_never_renumbers_ranks() -> None:
    rows = pd.DataFrame({
        "model_id": ["x-high", "y", "x-low", "z"], "checkpoint_id": ["x", "y", "x", "z"],
        "display_name": ["X high", "Y", "X low", "Z"], "eligible": [True, True, True, True],
        "rating": [1300.0, 1200.0, 1100.0, 1000.0], "rank": pd.array([1, 2, 3, 4], "Int64"),
        "rank_low": pd.array([1, 1, 2, 3], "Int64"), "rank_high": pd.array([2, 3, 4, 4], "Int64"),
    })
    grouped = leaderboard.group_variants(rows).set_index("model_id")
    assert grouped["rank"].to_dict() == {"x-high": 1, "y": 2, "z": 4}  # 3 is X's other setting
    assert grouped.loc["z", "rank_low"] == 3 and grouped.loc["z", "rank_high"] == 4
    shown = leaderboard.with_interval(grouped.assign(rating_low=1.0, rating_high=2.0))
    assert shown.loc["y", "rank_range"] == "1–3" and shown.loc["z", "rank_range"] == "3–4"


# --- movers and diffs --------------------------------------------------------------------------


def test_a_mover_starts_from_a_ranked_predecessor() -> None:
    edges = pd.DataFrame({"model_id": ["new", "newer"], "predecessor_id": ["unrated", "new"]})
    rated = pd.DataFrame({"model_id": ["unrated", "new", "newer"], "rating": [-57.0, 1457.0,
                                                                             1500.0]})
    ranked = rated[rated["model_id"] != "unrated"]
    out = lineage.movers(edges, rated, predecessors=ranked)
    assert out["model_id"].tolist() == ["newer"] and out["gain"].tolist() == [43.0]


def test_scale_drift_is_told_apart_from_real_moves() -> None:
    ids = list("abcdefghijk")  # 11 models ranked in both: enough to tell the scale's move
    old = pd.DataFrame({"model_id": ids, "rating": [1000.0 + 100 * i for i in range(11)],
                        "rank": pd.array(range(11, 0, -1), "Int64")})
    new = old.assign(rating=old["rating"] + 20)  # the scale moved +20 ...
    new.loc[new["model_id"] == "d", "rating"] += 60  # ... and d moved +60 against the field
    new.loc[new["model_id"] == "e", "rating"] -= 30  # ... and e -30
    out = snapshot_diff.rating_changes(old, new).set_index("model_id")
    assert snapshot_diff.scale_shift(old, new) == 20.0 and (out["scale_shift"] == 20.0).all()
    assert out.loc["d", "change"] == "moved" and out.loc["d", "rating_delta_field"] == 60.0
    assert out.loc["e", "change"] == "moved" and out.loc["e", "rating_delta_field"] == -30.0
    assert (out.drop(index=["d", "e"])["change"] == "scale").all()
    assert out.index[:2].tolist() == ["d", "e"]  # sorted by the size of the move
    few = snapshot_diff.rating_changes(old.head(4), new.head(4))  # 4 models: no scale to take out
    assert (few["scale_shift"] == 0).all() and set(few["change"]) == {"moved"}


def _manifest(root: Path, version: str, scores: str, built: str) -> None:
    folder = root / version
    folder.mkdir(parents=True)
    files = {"scores.csv": scores, "models.csv": "m", "benchmarks.csv": "b"}
    (folder / "MANIFEST.json").write_text(json.dumps({"built_at": built, "files": files}))


def test_changes_open_on_the_newest_pair_whose_data_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path)
    _manifest(tmp_path, "v1", "s1", "2026-01-01T00:00:00Z")
    _manifest(tmp_path, "v2", "s2", "2026-02-01T00:00:00Z")
    _manifest(tmp_path, "v3", "s2", "2026-03-01T00:00:00Z")  # other files changed only
    models = json.loads((tmp_path / "v3" / "MANIFEST.json").read_text())
    models["files"]["models.csv"] = "renamed"  # new display names: the same ratings
    (tmp_path / "v3" / "MANIFEST.json").write_text(json.dumps(models))
    assert snapshot_diff.default_pair(["v1", "v2", "v3"], "v3") == ("v1", "v3")
    assert snapshot_diff.default_pair(["v1", "v2", "v3"], "v2") == ("v1", "v2")
    assert snapshot_diff.default_pair(["v2", "v3"], "v3") is None


# --- done when: the committed snapshot ---------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> tuple[str, pd.DataFrame, pd.DataFrame]:
    version = db.ensure_snapshot()
    scores = ratings.scores_of(version)
    return version, scores, elo.rate(scores).rename(columns={"model": "model_id"})


def test_no_family_counts_one_vote_pool_twice(real) -> None:
    _, scores, _ = real
    rated = elo.rated_scores(scores)
    member = rated[rated["family"] != ""]
    twice = member.groupby(["model", "family"])["benchmark"].nunique()
    assert twice.max() == 1, twice[twice > 1].head()
    # and the rule had work to do: Arena's plain text view is set aside where style control is
    aside = elo.views_set_aside(scores)
    assert (aside["benchmark"] == "lmarena-text").sum() > 100


def test_the_top_ten_rest_on_two_publishers(real) -> None:
    _, _, table = real
    top = table[table["eligible"]].head(10)
    assert (top["n_publishers"] >= elo.MIN_PUBLISHERS).all(), top[["model_id", "publishers"]]
    assert table.loc[table["provisional"], "rank"].isna().all()


def test_movers_top_ten_have_ranked_predecessors(real) -> None:
    version, _, table = real
    board = leaderboard.for_version(version, bootstrap=0)
    ranked = set(board.table.loc[board.table["eligible"], "model_id"])
    for grouped in (True, False):
        moves = leaderboard.movers(board, top=10, grouped=grouped)
        assert moves["predecessor_id"].isin(ranked).all()


def test_the_diffs_default_pair_differs_in_data(real) -> None:
    version = real[0]
    versions = db.list_versions()
    pair = snapshot_diff.default_pair(versions, version)
    assert pair is not None and pair[1] == version
    assert snapshot_diff.rating_inputs(pair[0]) != snapshot_diff.rating_inputs(pair[1])
