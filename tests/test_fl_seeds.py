"""The seed spread: each comparison value beside its spread over seeds, and adjacent gaps."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.fl import seeds


def _comparisons(values: dict[str, float | None], metric: str = "accuracy") -> pd.DataFrame:
    rows = []
    for method, value in values.items():
        rows.append({"protocol": "A", "model": "cnn", "dataset": "mnist", "condition": "",
                     "metric": metric, "method": method, "reference": method == "Centralized",
                     "value": value, "valid": value is not None, "n": 3, "rank": 1,
                     "points": 10})
    frame = pd.DataFrame(rows)
    frame["value"] = frame["value"].astype("Float64")
    return frame


PER_SEED = {
    2026: _comparisons({"FedAvg": 0.90, "FedProx": 0.89, "FedAdam": 0.80, "Centralized": 0.95}),
    2027: _comparisons({"FedAvg": 0.88, "FedProx": 0.91, "FedAdam": 0.81, "Centralized": 0.96}),
    2028: _comparisons({"FedAvg": 0.89, "FedProx": 0.90, "FedAdam": None, "Centralized": 0.94}),
}


def test_spread_keeps_the_submitted_value_and_summarises_the_seeds():
    spread = seeds.metric_spread(PER_SEED, 2026).set_index("method")
    fedavg = spread.loc["FedAvg"]
    assert fedavg["submitted"] == 0.90
    assert fedavg["mean"] == pytest.approx(0.89)
    assert fedavg["sd"] == pytest.approx(0.01)
    assert (fedavg["low"], fedavg["high"], fedavg["seeds"]) == (0.88, 0.90, 3)
    assert spread.loc["FedAdam", "seeds"] == 2  # a missing value is left out, not zero


def test_adjacent_gaps_compare_each_gap_with_the_larger_seed_range():
    gaps = seeds.adjacent_gaps(seeds.metric_spread(PER_SEED, 2026))
    assert gaps[["better", "worse"]].values.tolist() == [["FedAvg", "FedProx"],
                                                       ["FedProx", "FedAdam"]]
    first, second = gaps.iloc[0], gaps.iloc[1]
    assert first["gap"] == pytest.approx(0.01) and first["spread"] == pytest.approx(0.02)
    assert bool(first["inside"]) and not bool(second["inside"])  # 0.09 > 0.02
    assert seeds.gap_counts(gaps) == {"gaps": 2, "inside": 1, "exceed": 1, "ties": 0, "one_seed": 0}


def test_references_take_no_part_in_gaps_and_lower_is_better_for_costs():
    per_seed = {s: f.assign(protocol="B", metric="time_s") for s, f in PER_SEED.items()}
    gaps = seeds.adjacent_gaps(seeds.metric_spread(per_seed, 2026))
    assert "Centralized" not in set(gaps["better"]) | set(gaps["worse"])
    assert gaps["better"].iloc[0] == "FedAdam"  # the smallest time first


def test_a_tie_lies_inside_any_spread():
    tie = {s: _comparisons({"FedAvg": 0.5, "FedProx": 0.5}) for s in (1, 2, 3)}
    counts = seeds.gap_counts(seeds.adjacent_gaps(seeds.metric_spread(tie, 1)))
    assert counts == {"gaps": 1, "inside": 1, "exceed": 0, "ties": 1, "one_seed": 0}


def test_a_single_seed_has_no_spread_and_is_counted_apart():
    one = {1: _comparisons({"FedAvg": 0.9, "FedProx": 0.5})}
    counts = seeds.gap_counts(seeds.adjacent_gaps(seeds.metric_spread(one, 1)))
    assert counts == {"gaps": 0, "inside": 0, "exceed": 0, "ties": 0, "one_seed": 1}


def test_score_spread_per_method_and_score():
    tables = {
        1: pd.DataFrame({"method": ["X", "Y"], "A": [10.0, 9.0], "B": [9.0, 10.0],
                         "C": [10.0, 10.0], "final": [29 / 3, 29 / 3]}),
        2: pd.DataFrame({"method": ["X", "Y"], "A": [9.0, 10.0], "B": [9.0, 10.0],
                         "C": [10.0, 10.0], "final": [28 / 3, 10.0]}),
    }
    spread = seeds.score_spread(tables, 1).set_index(["method", "score"])
    assert spread.loc[("X", "A"), "submitted"] == 10.0
    assert spread.loc[("X", "A"), "low"] == 9.0 and spread.loc[("Y", "final"), "high"] == 10.0
