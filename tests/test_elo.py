"""The Elo engine (seed 002, "The Elo rating", "Ranking eligibility", "Provenance") and its CLI."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.core import db
from analytics.core.schema import SOURCE_KINDS
from analytics.llm import elo, elo_cli, ratings

GOLDEN = json.loads((Path(__file__).parent / "golden" / "elo_cases.json").read_text())
TOL = GOLDEN["tolerances"]
COLUMNS = ["model", "benchmark", "category", "score"]
REPO_ROOT = Path(__file__).resolve().parent.parent


def frame(rows: list, **extra) -> pd.DataFrame:
    out = pd.DataFrame(rows, columns=COLUMNS)
    return out.assign(**extra)


def exact_ratings(scores: pd.DataFrame) -> dict[str, float]:
    battles = elo.build_battles(elo.headline_scores(scores))
    result = elo.fit(elo.aggregate(battles))
    return dict(zip(battles.models, elo.to_rating(result.theta), strict=True))


def cubic_rating(coefficients: list[float]) -> float:
    roots = np.roots(coefficients)
    u = float(next(r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0))
    return 1000 + 400 * math.log10(u)


# --- golden cases --------------------------------------------------------------------------


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: c["name"])
def test_golden_ratings(case: dict) -> None:
    scores = frame(case["rows"], higher_is_better=case.get("higher_is_better", True))
    expected = case.get("expected")
    if expected is None:  # two-model win case solved by a cubic: A = 1000 + x, B = 1000 - x
        top = cubic_rating(case["cubic"])
        expected = {"A": top, "B": 2000 - top}
    got = exact_ratings(scores)
    assert got == pytest.approx(expected, abs=TOL["rating_abs"])
    published = elo.rate(scores).set_index("model")["rating"]
    for model, rating in expected.items():
        assert published[model] == pytest.approx(round(rating, 1), abs=TOL["published_abs"])


def test_undefeated_model_stays_finite_and_above_anchor() -> None:
    rows = [("A", f"b{i}", f"c{i % 3}", 10) for i in range(30)]
    rows += [("B", f"b{i}", f"c{i % 3}", 1) for i in range(30)]
    ratings = exact_ratings(frame(rows))
    assert math.isfinite(ratings["A"]) and ratings["A"] > 1000 > ratings["B"]
    assert ratings["A"] - 1000 == pytest.approx(1000 - ratings["B"], abs=1e-9)


def test_anchor_pins_the_scale_for_a_model_without_battles() -> None:
    scores = frame([("A", "b1", "math", 9), ("B", "b1", "math", 1), ("loner", "b9", "code", 5)])
    assert exact_ratings(scores)["loner"] == pytest.approx(1000.0, abs=1e-9)


# --- weights -------------------------------------------------------------------------------


def weights_example() -> pd.DataFrame:
    """A and B share 4 math benchmarks and 1 code benchmark; C shares only m1 with them."""
    rows = [("A", f"m{i}", "math", 10 + i) for i in range(1, 5)]
    rows += [("B", f"m{i}", "math", 12) for i in range(1, 5)]
    rows += [("A", "c1", "code", 3), ("B", "c1", "code", 3), ("C", "m1", "math", 0)]
    return frame(rows)


def test_battle_weights_are_one_over_root_shared_count() -> None:
    table = elo.battle_table(elo.headline_scores(weights_example()))
    ab = table[(table.model_a == "A") & (table.model_b == "B")].set_index("benchmark")
    assert ab.loc[["m1", "m2", "m3", "m4"], "weight"].tolist() == [0.5] * 4  # n = 4
    assert ab.loc["c1", "weight"] == 1.0  # n = 1 in code
    assert ab["result_a"].to_dict() == {"c1": 0.5, "m1": 0.0, "m2": 0.5, "m3": 1.0, "m4": 1.0}
    ac = table[(table.model_a == "A") & (table.model_b == "C")]
    assert ac["weight"].tolist() == [1.0]  # the pair shares one math benchmark
    assert len(table) == 5 + 2  # A-B on 5 benchmarks, A-C and B-C on m1


def test_aggregated_wins_on_hand_example() -> None:
    battles = elo.build_battles(elo.headline_scores(weights_example()))
    pw = elo.aggregate(battles)
    got = {
        (battles.models[i], battles.models[j]): (wi, wj)
        for i, j, wi, wj in zip(pw.pair_i, pw.pair_j, pw.wins_i, pw.wins_j, strict=True)
    }
    # A-B math (weight 1/2 each): A loses m1, draws m2 (half each), wins m3 and m4;
    # code c1 is a draw of weight 1.
    assert got[("A", "B")] == pytest.approx((0.5 * 2.5 + 0.5, 0.5 * 1.5 + 0.5))
    assert got[("A", "C")] == pytest.approx((1.0, 0.0))
    assert got[("B", "C")] == pytest.approx((1.0, 0.0))
    # a shared domain votes with sqrt(n) total weight: sqrt(4) + sqrt(1) = 3
    assert got[("A", "B")][0] + got[("A", "B")][1] == pytest.approx(3.0)


score_tables = st.lists(
    st.tuples(
        st.sampled_from("ABCDEF"),
        st.sampled_from(["b1", "b2", "b3", "b4", "b5", "b6"]),
        st.integers(0, 4),
    ),
    min_size=1,
    max_size=30,
    unique_by=lambda r: (r[0], r[1]),
).map(
    lambda rows: pd.DataFrame(
        [(m, b, "cat" + str(int(b[1]) % 3), float(s)) for m, b, s in rows], columns=COLUMNS
    )
)


@settings(max_examples=40, deadline=None)
@given(score_tables)
def test_vectorised_aggregate_matches_battle_enumeration(scores: pd.DataFrame) -> None:
    headline = elo.headline_scores(scores)
    battles = elo.build_battles(headline)
    pw = elo.aggregate(battles)
    table = elo.battle_table(headline)
    ref = table.assign(w_a=table.weight * table.result_a, w_b=table.weight * (1 - table.result_a))
    ref = ref.groupby(["model_a", "model_b"])[["w_a", "w_b"]].sum()
    got = pd.DataFrame(
        {
            "model_a": [battles.models[i] for i in pw.pair_i],
            "model_b": [battles.models[j] for j in pw.pair_j],
            "w_a": pw.wins_i,
            "w_b": pw.wins_j,
        }
    ).set_index(["model_a", "model_b"])
    got = got[(got.w_a + got.w_b) > 0]
    pd.testing.assert_frame_equal(
        got.sort_index(), ref.sort_index(), check_dtype=False, check_index_type=False
    )
    assert battles.n_battles == len(table)


# --- the fit -------------------------------------------------------------------------------


def synthetic(n_models: int = 40, n_bench: int = 24, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = rng.normal(size=n_models)
    rows = []
    for b in range(n_bench):
        for m in np.flatnonzero(rng.random(n_models) > 0.3):
            score = round(50 + 10 * (skill[m] + rng.normal(scale=0.8)))  # whole points: ties
            rows.append((f"m{m:02d}", f"b{b:02d}", f"c{b % 5}", float(score)))
    return frame(rows)


def test_solution_is_the_mm_fixed_point_with_zero_gradient() -> None:
    """One more plain MM sweep moves nothing by tol: each model's gradient is below tol times
    its wins W_i (anchor included; its MM step is log W_i - log(W_i - gradient_i))."""
    pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic())))
    result = elo.fit(pw, tol=1e-10)
    again = elo.mm_sweep(result.theta, pw)
    assert np.max(np.abs(again - result.theta)) < 1e-10
    wins = elo.Evidence.of_pairwise(pw).wins + 0.5
    grad = elo.gradient(result.theta, pw)
    assert np.max(np.abs(grad) / wins) < 1.001e-10 and np.max(np.abs(grad)) < 1e-7
    assert result.max_abs_gradient == pytest.approx(np.max(np.abs(grad)), rel=1e-3, abs=1e-12)
    assert result.last_mm_step < 1e-10


def test_accelerated_fit_equals_plain_mm_and_maximises_likelihood() -> None:
    pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic(15, 10))))
    fast = elo.fit(pw)
    slow = elo.fit(pw, accelerate=False, max_iter=100_000)
    np.testing.assert_allclose(fast.theta, slow.theta, atol=1e-8)
    assert fast.iterations < slow.iterations
    best = elo.log_likelihood(fast.theta, pw)
    rng = np.random.default_rng(0)
    for _ in range(5):
        assert elo.log_likelihood(fast.theta + rng.normal(scale=1e-3, size=15), pw) < best


def test_gradient_matches_finite_differences() -> None:
    pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic(8, 6))))
    theta = np.random.default_rng(3).normal(size=8)
    eps = 1e-6
    numeric = [
        (elo.log_likelihood(theta + eps * e, pw) - elo.log_likelihood(theta - eps * e, pw))
        / (2 * eps)
        for e in np.eye(8)
    ]
    np.testing.assert_allclose(elo.gradient(theta, pw), numeric, atol=1e-6)


def test_non_convergence_raises() -> None:
    pw = elo.aggregate(elo.build_battles(elo.headline_scores(synthetic())))
    with pytest.raises(elo.ConvergenceError) as caught:
        elo.fit(pw, max_iter=2, accelerate=False)
    assert caught.value.where == "rating fit"
    assert "did not converge in 2 sweeps" in caught.value.what
    assert "max_iter" in caught.value.fix


@settings(max_examples=25, deadline=None)
@given(score_tables, st.randoms(use_true_random=False))
def test_row_order_changes_nothing(scores: pd.DataFrame, rnd) -> None:
    order = list(range(len(scores)))
    rnd.shuffle(order)
    shuffled = scores.iloc[order].reset_index(drop=True)
    pd.testing.assert_frame_equal(elo.rate(scores), elo.rate(shuffled))


# --- eligibility, ranks, precedence --------------------------------------------------------


def test_eligibility_boundaries() -> None:
    rows = [
        ("three_two", "m1", "math", 5), ("three_two", "m2", "math", 5),
        ("three_two", "c1", "code", 5),
        ("three_one", "m1", "math", 6), ("three_one", "m2", "math", 6),
        ("three_one", "m3", "math", 6),
        ("two_two", "m1", "math", 7), ("two_two", "c1", "code", 7),
    ]
    table = elo.rate(frame(rows)).set_index("model")
    assert table.loc["three_two", "eligible"]
    assert not table.loc["three_one", "eligible"]  # one category only
    assert not table.loc["two_two", "eligible"]  # two benchmarks only
    assert table.loc["three_two", "rank"] == 1
    assert table.loc["three_one", "rank"] is pd.NA and table.loc["two_two", "rank"] is pd.NA
    assert table.loc["two_two", "rating"] > table.loc["three_two", "rating"]  # shown, not ranked
    assert table.index.tolist()[0] == "three_two"  # ranked rows first, whatever the rating
    assert table.loc[
        ["three_two", "three_one"], ["n_benchmarks", "n_categories"]
    ].values.tolist() == [
        [3, 2],
        [3, 1],
    ]


def test_ties_share_the_better_rank() -> None:
    rows = [
        (m, b, c, 1) for m in ("A", "B") for b, c in (("m1", "math"), ("m2", "math"), ("c", "code"))
    ]
    table = elo.rate(frame(rows))
    assert table["rank"].tolist() == [1, 1]


def test_precedence_independent_beats_newer_self_reported() -> None:
    rows = pd.DataFrame(
        {
            "model": ["A"] * 4,
            "benchmark": ["b"] * 4,
            "category": ["math"] * 4,
            "score": [60.0, 90.0, 55.0, 70.0],
            "source": ["independent", "self-reported", "independent", "arena"],
            "date": ["2024-01-01", "2025-06-01", "2024-06-01", "2025-01-01"],
        }
    )
    head = elo.headline_scores(rows)
    assert len(head) == 1
    assert head.loc[0, "score"] == 55.0  # independent first, then the newest independent row
    only_vendor = rows[rows.source == "self-reported"]
    assert elo.headline_scores(only_vendor).loc[0, "score"] == 90.0
    arena_vs_vendor = rows[rows.source.isin(["arena", "self-reported"])]
    assert elo.headline_scores(arena_vs_vendor).loc[0, "score"] == 70.0


def test_headline_tie_break_is_deterministic() -> None:
    rows = pd.DataFrame(
        {
            "model": ["A", "A"],
            "benchmark": ["b", "b"],
            "category": ["math", "math"],
            "score": [1.0, 2.0],
            "source": ["independent", "independent"],
            "date": ["2024-01-01", "2024-01-01"],
            "source_name": ["zeta", "alpha"],
        }
    )
    assert elo.headline_scores(rows).loc[0, "score"] == 2.0
    assert elo.headline_scores(rows.iloc[::-1]).loc[0, "score"] == 2.0


def test_headline_pick_equals_the_multi_key_sort_it_replaces() -> None:
    """The pick (one stable sort of integer keys) against the pandas sort it replaced, on rows
    with every kind of tie and missing value, in any row order."""
    rng = np.random.default_rng(7)
    n = 600
    rows = pd.DataFrame(
        {
            "model": rng.choice(["m1", "m2", "m10", "M3"], n),
            "benchmark": rng.choice(["b", "a", "B2"], n),
            "category": "math",
            "score": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 4, n).astype(float)),
            "source": rng.choice(["independent", "arena", "curated", "self-reported"], n),
            "date": pd.to_datetime(rng.choice(["2024-01-01", "2025-02-03", None], n)),
            "source_name": rng.choice(["alpha", "zeta", "Beta", None], n),
        }
    )
    rows["row"] = np.arange(n)  # tells identical-looking rows apart
    rank = rows["source"].map({k: i for i, k in enumerate(SOURCE_KINDS)})
    for frame in (rows, rows.sample(frac=1, random_state=3)):
        want = (
            frame.assign(_rank=rank)
            .sort_values(
                ["model", "benchmark", "_rank", "date", "source_name", "score"],
                ascending=[True, True, True, False, True, False],
                na_position="last",
                kind="mergesort",
            )
            .drop_duplicates(["model", "benchmark"])
            .drop(columns="_rank")
            .reset_index(drop=True)
        )
        pd.testing.assert_frame_equal(elo.headline_scores(frame), want)
        assert len(want) == 12


def test_unknown_source_and_inconsistent_benchmark_are_rejected() -> None:
    with pytest.raises(ValueError, match="source 'vendor'"):
        elo.headline_scores(frame([("A", "b", "c", 1)], source="vendor"))
    with pytest.raises(ValueError, match="benchmark 'b' has more than one category"):
        elo.build_battles(frame([("A", "b", "x", 1), ("B", "b", "y", 2)]))


# --- bootstrap -----------------------------------------------------------------------------


def test_bootstrap_is_seeded_and_ordered() -> None:
    scores = synthetic(12, 10)
    one = elo.rate(scores, bootstrap=30, seed=7)
    two = elo.rate(scores, bootstrap=30, seed=7)
    other = elo.rate(scores, bootstrap=30, seed=8)
    pd.testing.assert_frame_equal(one, two)
    assert not one["rating_low"].equals(other["rating_low"])
    assert (one["rating_low"] <= one["rating_high"]).all()
    ranked = one[one["eligible"]]
    assert (ranked["rank_low"] <= ranked["rank_high"]).all()
    assert ranked["rank_low"].min() == 1 and ranked["rank_high"].max() <= len(ranked)
    assert one.loc[~one["eligible"], "rank_low"].isna().all()


def test_bootstrap_rounds_that_miss_a_model_say_nothing_about_it() -> None:
    rows = [(m, f"b{i}", f"c{i % 2}", s + i) for i in range(6) for m, s in (("A", 3), ("B", 1))]
    rows.append(("C", "b0", "c0", 2))  # C shares only b0
    battles = elo.build_battles(elo.headline_scores(frame(rows)))
    samples = elo.bootstrap_ratings(battles, 40, seed=2)
    c = battles.models.index("C")
    missed = np.isnan(samples[:, c])
    assert missed.any() and not missed.all()  # b0 is left out of some resamples
    assert not np.isnan(samples[:, :c]).any()  # A and B always have battles
    table = elo.rate(frame(rows), bootstrap=40, seed=2).set_index("model")
    assert np.isfinite(table.loc["C", ["rating_low", "rating_high"]].astype(float)).all()


def test_bootstrap_does_not_depend_on_threads() -> None:
    battles = elo.build_battles(elo.headline_scores(synthetic(12, 10)))
    one = elo.bootstrap_ratings(battles, 12, seed=5, workers=1)
    four = elo.bootstrap_ratings(battles, 12, seed=5, workers=4)
    np.testing.assert_array_equal(one, four)


def test_bootstrap_of_a_single_benchmark_collapses() -> None:
    scores = frame([("A", "b", "m", 2), ("B", "b", "m", 1)])
    table = elo.rate(scores, bootstrap=10).set_index("model")
    # every resample draws the only benchmark once: the interval is the point estimate
    assert table.loc["A", "rating_low"] == table.loc["A", "rating"] == table.loc["A", "rating_high"]


# --- category leaderboards -----------------------------------------------------------------


def category_example() -> pd.DataFrame:
    """A beats B on all three math benchmarks; B beats A (and C) on the only code benchmark."""
    rows = [("A", "m1", "math", 10), ("A", "m2", "math", 10), ("A", "m3", "math", 10)]
    rows += [("B", "m1", "math", 5), ("B", "m2", "math", 5), ("B", "m3", "math", 5)]
    rows += [("A", "c1", "code", 1), ("B", "c1", "code", 9), ("C", "c1", "code", 5)]
    return frame(rows)


def test_category_fit_golden() -> None:
    """Math alone: the battles are A>B three times, weight 1/sqrt(3) each (seed 002 weights),
    plus the anchor draws; by symmetry A = 1000 + r, B = 1000 - r with x = r ln10 / 400 solving
    sqrt(3) (1 - sigma(2x)) + 1/2 - sigma(x) = 0 (the gradient of the log-likelihood)."""
    import scipy.optimize

    def sigma(x: float) -> float:
        return 1 / (1 + math.exp(-x))

    x = scipy.optimize.brentq(lambda t: math.sqrt(3) * (1 - sigma(2 * t)) + 0.5 - sigma(t), 0, 20)
    r = 400 * x / math.log(10)
    table = elo.rate_categories(category_example())
    math_rows = table[table["category"] == "math"].set_index("model")
    assert math_rows.loc["A", "rating"] == pytest.approx(round(1000 + r, 1), abs=1e-9)
    assert math_rows.loc["B", "rating"] == pytest.approx(round(1000 - r, 1), abs=1e-9)
    assert math_rows["rank"].tolist() == [1, 2]  # code, where B wins, plays no part
    assert "C" not in math_rows.index  # no math score, not on the math board
    code = table[table["category"] == "code"].set_index("model")
    assert code.index.tolist() == ["B", "C", "A"] and code["rank"].isna().all()
    assert set(code["unrated_reason"]) == {elo.UNRATED_CATEGORY_FLOOR}  # one code benchmark
    assert "n_categories" not in table.columns
    overall = elo.rate(category_example()).set_index("model")
    assert overall.loc["A", "rating"] != math_rows.loc["A", "rating"]  # overall stays its own


def test_category_floor_and_main_graph() -> None:
    rows = [("A", "m1", "math", 3), ("A", "m2", "math", 2), ("A", "m6", "math", 2)]
    rows += [("B", "m1", "math", 1), ("B", "m2", "math", 1)]
    rows += [("D", "m3", "math", 1), ("D", "m4", "math", 1), ("D", "m5", "math", 1)]
    rows += [("E", "m3", "math", 0), ("E", "m4", "math", 0), ("E", "m5", "math", 0)]
    rows += [("F", "m3", "math", 2), ("F", "m4", "math", 5), ("F", "m5", "math", 3)]
    table = elo.rate_categories(frame(rows)).set_index("model")
    both = f"{elo.UNRATED_CATEGORY_FLOOR}; {elo.UNRATED_DISCONNECTED}"
    assert table.loc["B", "unrated_reason"] == both  # two math benchmarks, not in the main graph
    assert table.loc["A", "unrated_reason"] == elo.UNRATED_DISCONNECTED  # m1/m2/m6 apart from m3-5
    assert table.loc[["F", "D", "E"], "rank"].tolist() == [1, 2, 3]


def test_category_bootstrap_is_seeded_and_resamples_the_category() -> None:
    scores = synthetic(12, 10)
    one = elo.rate_categories(scores, bootstrap=20, seed=3)
    pd.testing.assert_frame_equal(one, elo.rate_categories(scores, bootstrap=20, seed=3))
    assert {"rating_low", "rating_high", "rank_low", "rank_high"} <= set(one.columns)
    ranked = one[one["eligible"]]
    assert (ranked["rating_low"] <= ranked["rating_high"]).all()
    assert (ranked.groupby("category")["rank"].min() == 1).all()
    # A wins every math resample (both benchmarks): its interval collapses to the point
    collapsed = elo.rate_categories(category_example(), bootstrap=20).set_index("model")
    a = collapsed[collapsed["category"] == "math"].loc["A"]
    assert a["rating_low"] == a["rating"] == a["rating_high"]


def test_drawn_only_rounds_give_the_same_ratings() -> None:
    rows = [(m, f"b{i}", f"c{i % 3}", (7 * j + 3 * i) % 11) for i in range(9) for j, m in
            enumerate("ABCDEFG") if (i + j) % 4]
    battles = elo.build_battles(elo.headline_scores(frame(rows)))
    full = elo.bootstrap_ratings(battles, 15, seed=4)
    small = elo.bootstrap_ratings(battles, 15, seed=4, drawn_only=True)
    np.testing.assert_allclose(small, full, atol=1e-6)
    assert np.array_equal(np.isnan(small), np.isnan(full))


# --- CLI -----------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


GOOD_CSV = """model,benchmark,category,score,source,date,higher_is_better
A,ab,math,90,independent,2025-01-01,true
A,ab,math,10,self-reported,2025-06-01,true
B,ab,math,80,self-reported,,true
B,bc,code,60,independent,,true
C,bc,code,50,independent,,true
"""


def test_cli_writes_ratings_csv(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "s.csv", GOOD_CSV)
    assert elo_cli.main(["elo", str(src)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "model,rating,rank,eligible,n_benchmarks,n_categories,unrated_reason"
    # chain case of the golden file: independent 90 (not the newer vendor 10) makes A beat B
    floor = elo.UNRATED_FLOOR
    assert out[1:] == [f"A,1190.8,,false,1,1,{floor}", f"B,1000.0,,false,2,2,{floor}",
                       f"C,809.2,,false,1,1,{floor}"]


def test_cli_bootstrap_and_out_file(tmp_path: Path, capsys) -> None:
    src = write(tmp_path / "s.csv", GOOD_CSV)
    dst = tmp_path / "ratings.csv"
    argv = ["elo", str(src), "--out", str(dst), "--bootstrap", "20", "--seed", "3"]
    assert elo_cli.main(argv) == 0
    assert capsys.readouterr().out == ""
    table = pd.read_csv(dst)
    assert list(table.columns[:6]) == [
        "model",
        "rating",
        "rank",
        "eligible",
        "n_benchmarks",
        "n_categories",
    ]
    assert {"rating_low", "rating_high", "rank_low", "rank_high"} <= set(table.columns)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.csv", "s.csv"]  # no temp left


H = "model,benchmark,category,score"
BAD_INPUTS = [
    ("", "file is empty"),
    ("model,benchmark,score\nA,b,1\n", "missing column(s) category"),
    (f"{H}\n", "no score rows"),
    (f"{H}\nA,b,c,1\nB,b,c,abc\n", "line 3: score 'abc' is not a finite number"),
    (f"{H}\nA,b,c,1\n,b,c,2\n", "line 3: empty model"),
    (f"{H},source\nA,b,c,1,vendor\n", "line 2: source 'vendor' is unknown"),
    (f"{H},date\nA,b,c,1,June\n", "line 2: date 'June' is not a date"),
    (f"{H},higher_is_better\nA,b,c,1,maybe\n", "line 2: higher_is_better 'maybe'"),
    (f"{H}\nA,b,c,1\nB,b,d,2\n", "line 3: benchmark 'b' has category 'd'"),
    (f"{H}\nA,b,c,inf\n", "line 2: score 'inf' is not a finite number"),
    (f'{H}\nA,b,c,1\n"B,b,c,2\n', "malformed CSV"),
]


@pytest.mark.parametrize(("text", "message"), BAD_INPUTS, ids=[m for _, m in BAD_INPUTS])
def test_cli_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys, text: str, message: str
) -> None:
    src = write(tmp_path / "bad.csv", text)
    dst = tmp_path / "out.csv"
    assert elo_cli.main(["elo", str(src), "--out", str(dst)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(src) in lines[0] and "fix:" in lines[0]
    assert not dst.exists()


def test_cli_missing_and_unreadable_files(tmp_path: Path, capsys) -> None:
    assert elo_cli.main(["elo", str(tmp_path / "nope.csv")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert elo_cli.main(["elo", str(tmp_path)]) == 1  # a folder is not a CSV
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a regular file" in err[0] and "fix:" in err[0]
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"model,benchmark,category,score\n\xff\xfe,\x00,x,1\n")
    assert elo_cli.main(["elo", str(binary)]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_cli_entry_point_runs_as_module(tmp_path: Path) -> None:
    src = write(tmp_path / "s.csv", GOOD_CSV)
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "elo", str(src)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("A,1190.8,")


# --- committed derived ratings ---------------------------------------------------------------


def test_committed_ratings_of_the_current_snapshot_are_current() -> None:
    """data/derived/<current version>/ must come from today's rating code (the first page load
    reads it instead of fitting ~30 s of bootstrap)."""
    version = db.current_version()
    assert ratings.stale_reason(version) is None, ratings.stale_reason(version)
