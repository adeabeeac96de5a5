"""Protocol A/B/C scoring on hand-computed scenarios (seed 001 rules)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.fl import scoring
from analytics.fl.submission import Run
from tests.fixtures.fl.builders import checkpoints, ok, point, policy, sub

OOM = Run("oom")


def _row(table, method):
    return table.set_index("method").loc[method]


def test_competition_ranks_share_and_skip():
    assert scoring.competition_ranks([0.8, 0.8, 0.7], higher_better=True) == [1, 1, 3]
    assert scoring.competition_ranks([3.0, None, 1.0, 1.0], higher_better=False) == [3, None, 1, 1]
    assert [scoring.points_for(r) for r in (1, 2, 10, 11, 12, None)] == [10, 9, 1, 0, 0, 0]


def test_ranks_beyond_ten_earn_nothing():
    ranks = scoring.competition_ranks([float(v) for v in range(12)], higher_better=True)
    assert [scoring.points_for(r) for r in ranks][:2] == [0, 0]  # values 0 and 1 rank 12, 11


def test_protocol_a_selection_tie_breaks():
    ck = checkpoints(
        point(1, 0.9, loss=0.4, time_s=5),
        point(2, 0.9, loss=0.3, time_s=9),  # same accuracy, lower loss: wins
        point(3, 0.9, loss=0.3, time_s=9),  # identical, later step: loses
        point(4, 0.8, loss=0.1, time_s=1),
    )
    assert int(scoring.best_checkpoint(ck)["step"]) == 2
    ck2 = checkpoints(point(1, 0.9, 0.3, time_s=9), point(2, 0.9, 0.3, time_s=8))
    assert int(scoring.best_checkpoint(ck2)["step"]) == 2  # lower simulated time wins


def _scenario_a():
    pol = policy(datasets=("d1", "d2"))
    subs = [
        sub(
            "A",
            "X",
            {("d1", "nominal"): ok(point(1, 0.8, 0.5)), ("d2", "nominal"): ok(point(1, 0.6, 0.9))},
        ),
        sub("A", "Y", {("d1", "nominal"): ok(point(1, 0.8, 0.4))}),  # d2 missing
        sub("A", "Z", {("d1", "nominal"): OOM, ("d2", "nominal"): ok(point(1, 0.7, 1.0))}),
        # a reference better than everyone never takes a rank or shifts one
        sub(
            "A",
            "Local Only",
            {
                ("d1", "nominal"): ok(point(1, 0.99, 0.01)),
                ("d2", "nominal"): ok(point(1, 0.99, 0.01)),
            },
        ),
    ]
    return pol, subs


def test_golden_protocol_a_with_tie_oom_missing_and_reference():
    pol, subs = _scenario_a()
    result = scoring.score(subs, pol)
    # d1 acc: X=Y tie (10, 10); d1 loss: Y 10, X 9; d2 acc: Z 10, X 9; d2 loss: X 10, Z 9; n = 2
    # X = (20+18+18+20)/8 = 9.5; Y = (20+20)/8 = 5; Z = (20+18)/8 = 4.75
    table = result.table
    assert _row(table, "X")["A"] == pytest.approx(9.5)
    assert _row(table, "Y")["A"] == pytest.approx(5.0)
    assert _row(table, "Z")["A"] == pytest.approx(4.75)
    assert _row(table, "X")["final"] == pytest.approx(9.5 / 3)  # B and C missing count 0
    assert table["method"].tolist() == ["X", "Y", "Z"]
    assert table["rank"].tolist() == [1, 2, 3]
    assert "Local Only" not in set(table["method"])
    refs = result.comparisons[result.comparisons["reference"]]
    assert refs["rank"].isna().all() and set(refs["method"]) == {"Local Only"}
    assert result.references["accuracy"].tolist() == [0.99, 0.99]


def test_golden_protocol_b_with_unreached_target_and_oom():
    pol = policy(targets=(0.5, 0.7, 0.9))
    x = ok(
        point(1, 0.6, time_s=1, comm=100, energy=2, mem=10),
        point(2, 0.95, time_s=2, comm=200, energy=4, mem=10),
    )
    y = ok(
        point(1, 0.72, time_s=1.5, comm=100, energy=1, mem=12),
        point(2, 0.8, time_s=3, comm=200, energy=2, mem=12),
    )
    subs = [
        sub("B", "X", {("d1", "nominal"): x}),
        sub("B", "Y", {("d1", "nominal"): y}),
        sub("B", "Z", {("d1", "nominal"): OOM}),
    ]
    result = scoring.score(subs, pol)
    # target 0.5: X 39, Y 38 points (n=2); target 0.7: X 37, Y 39 (n=2); 0.9: only X, 40 (n=1)
    # X = (78 + 74 + 40) / 20 = 9.6; Y = (76 + 78) / 20 = 7.7
    assert _row(result.table, "X")["B"] == pytest.approx(9.6)
    assert _row(result.table, "Y")["B"] == pytest.approx(7.7)
    assert _row(result.table, "Z")["B"] == 0.0
    assert _row(result.table, "X")["A"] == 0.0  # no A submission: protocol missing counts 0
    assert pd_na(_row(result.table, "Z")["rank"])  # OOM everywhere: no scored comparison
    unreached = result.comparisons.query("condition == 'target 0.9' and method == 'Y'")
    assert not unreached["valid"].any() and (unreached["n"] == 1).all()


def pd_na(value) -> bool:
    import pandas as pd

    return bool(pd.isna(value))


def test_golden_protocol_c_and_name_tie_break():
    pol = policy()
    zeta = {
        ("d1", "nominal"): ok(point(1, 0.9, 0.3, time_s=10, comm=1000, energy=5, mem=100)),
        ("d1", "p"): ok(point(1, 0.8, 0.5, time_s=12, comm=1000, energy=6, mem=100)),
    }
    alpha = {
        ("d1", "nominal"): ok(point(1, 0.85, 0.3, time_s=10, comm=1000, energy=5, mem=120)),
        ("d1", "p"): ok(point(1, 0.85, 0.3, time_s=15, comm=900, energy=5, mem=120)),
    }
    flat = {("d1", "nominal"): ok(point(1, 0.5)), ("d1", "p"): ok(point(1, 0.5))}
    subs = [sub("C", "Zeta", zeta), sub("C", "Alpha", alpha), sub("C", "Local Only", flat)]
    result = scoring.score(subs, pol)
    # |d| acc: Alpha 0 (10), Zeta 0.1 (9); time: Zeta 2 (10), Alpha 5 (9); comm: Zeta 0 (10),
    # Alpha 100 (9); energy: Alpha 0 (10), Zeta 1 (9); memory: tie 0 (10, 10) -> both 96/10
    assert _row(result.table, "Zeta")["C"] == pytest.approx(9.6)
    assert _row(result.table, "Alpha")["C"] == pytest.approx(9.6)
    assert result.table["method"].tolist() == ["Alpha", "Zeta"]  # equal finals: by name
    assert result.table["rank"].tolist() == [1, 2]


def test_comparison_without_valid_method_carries_no_weight():
    pol, subs = _scenario_a()
    base = scoring.score(subs, pol).table.set_index("method")["A"]
    pol3 = policy(datasets=("d1", "d2", "d3"))
    subs3 = [s for s in subs]
    subs3[0] = sub("A", "X", subs[0].runs | {("d3", "nominal"): OOM})
    result = scoring.score(subs3, pol3)
    assert result.table.set_index("method")["A"].to_dict() == pytest.approx(base.to_dict())
    d3 = result.comparisons.query("dataset == 'd3'")
    assert (d3["n"] == 0).all()


def test_per_model_scores_and_shared_denominator():
    pol = policy(models=("m1", "m2"))
    subs = [
        sub("A", "X", {("d1", "nominal"): ok(point(1, 0.9, 0.1))}, model="m1"),
        sub("A", "Y", {("d1", "nominal"): ok(point(1, 0.8, 0.2))}, model="m1"),
        sub("A", "Y", {("d1", "nominal"): ok(point(1, 0.7, 0.3))}, model="m2"),
    ]
    result = scoring.score(subs, pol)
    per = result.per_model.set_index(["model", "method"])
    assert per.loc[("m1", "X"), "A"] == pytest.approx(10.0)  # (2*10 + 2*10) / 4
    assert per.loc[("m1", "Y"), "A"] == pytest.approx(9.0)
    assert per.loc[("m2", "X"), "A"] == 0.0  # no m2 submission
    assert per.loc[("m2", "Y"), "A"] == pytest.approx(10.0)  # alone: n = 1, 10 points
    # overall: denominators 2+2 (m1) + 1+1 (m2) = 6; X = 40/6, Y = (36 + 20)/6
    overall = result.table.set_index("method")["A"]
    assert overall["X"] == pytest.approx(40 / 6)
    assert overall["Y"] == pytest.approx(56 / 6)


def test_api_rounds_to_four_decimals():
    pol, subs = _scenario_a()
    api = scoring.to_api(scoring.score(subs, pol))
    x = api["methods"][0]
    assert x["final"] == 3.1667 and x["rank"] == 1
    assert x["per_model"]["m"]["A"] == 9.5


accuracies = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(accuracies, st.randoms(use_true_random=False))
def test_scores_bounded_and_order_invariant(values, rnd):
    pol = policy()
    subs = [
        sub("A", f"M{i}", {("d1", "nominal"): ok(point(1, v, 1 - v))}) for i, v in enumerate(values)
    ]
    shuffled = list(subs)
    rnd.shuffle(shuffled)
    a = scoring.score(subs, pol).table.reset_index(drop=True)
    b = scoring.score(shuffled, pol).table.reset_index(drop=True)
    assert a.equals(b)
    assert ((a["A"] >= 0) & (a["A"] <= 10)).all()
    assert (a["final"] <= 10 / 3 + 1e-12).all()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=8))
def test_better_value_never_ranks_worse(values):
    ranks = scoring.competition_ranks(values, higher_better=True)
    keys = [float(f"{v:.12g}") for v in values]  # equality is judged at 12 significant digits
    for v, r in zip(keys, ranks, strict=True):
        for w, q in zip(keys, ranks, strict=True):
            if v > w:
                assert r < q
