"""Quality axes and ranking honesty rules (seed 002, licence/quality paragraph)."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.llm import profiles, quality
from tests.fixtures.catalogs import TINY_BENCHMARKS, TINY_MODELS, TINY_SCORES

AXES2 = ["Documents", "Instruction following"]


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Scores, benchmarks and models of the tiny calculator catalog as frames."""
    scores = pd.DataFrame(TINY_SCORES, columns=["model_id", "benchmark_id", "score", "source_kind"])
    scores["source_name"] = scores["source_kind"]
    bench_cols = [
        "benchmark_id",
        "name",
        "category",
        "higher_is_better",
        "lower_bound",
        "upper_bound",
        "unit",
    ]
    benchmarks = pd.DataFrame(TINY_BENCHMARKS, columns=bench_cols)
    models = pd.DataFrame(
        {"model_id": [m[0] for m in TINY_MODELS], "checkpoint_id": [m[7] for m in TINY_MODELS]}
    )
    return scores, benchmarks, models


def test_axis_values_golden() -> None:
    scores, benchmarks, _ = _frames()
    values = quality.axis_values(scores, benchmarks).set_index("model_id")
    # IFEval headline is the independent 80 (not the self-reported 90): 80 / 100
    assert values.loc["llama-3.1-8b", "Instruction following"] == pytest.approx(0.80)
    assert values.loc["llama-3.1-8b", "Documents"] == pytest.approx(0.70)
    # arena score 1120 against bounds [800, 1600] -> 0.4
    assert values.loc["mixtral-8x7b", "Chat quality"] == pytest.approx(0.40)
    assert values.loc["mixtral-8x7b", "Instruction following n"] == 1


def test_sparse_coverage_is_none_never_zero() -> None:
    scores, benchmarks, _ = _frames()
    values = quality.axis_values(scores, benchmarks).set_index("model_id")
    assert pd.isna(values.loc["mixtral-8x7b", "Documents"])
    assert values.loc["mixtral-8x7b", "Documents n"] == 0
    assert pd.isna(values.loc["llama-3.1-8b", "Chat quality"])


def test_axis_mean_over_the_basket_the_model_has() -> None:
    scores = pd.DataFrame(
        {
            "model_id": ["m", "m"],
            "benchmark_id": ["docvqa", "chartqa"],
            "score": [90.0, 60.0],
            "source_kind": ["independent", "self-reported"],
            "source_name": ["a", "b"],
        }
    )
    _, benchmarks, _ = _frames()
    values = quality.axis_values(scores, benchmarks)
    assert values.loc[0, "Documents"] == pytest.approx(0.75)
    assert values.loc[0, "Documents n"] == 2


def test_lower_is_better_is_flipped() -> None:
    benchmarks = pd.DataFrame(
        {
            "benchmark_id": ["err"],
            "lower_bound": [0.0],
            "upper_bound": [50.0],
            "higher_is_better": [False],
        }
    )
    head = pd.DataFrame({"model_id": ["m"], "benchmark_id": ["err"], "score": [10.0]})
    assert quality.normalised(head, benchmarks)["norm"].iloc[0] == pytest.approx(0.8)


def test_coverage_tiers_first_then_collapse_variants() -> None:
    scores, benchmarks, models = _frames()
    ranked = quality.quality_ranking(scores, benchmarks, models, AXES2)
    order = ranked["model_id"].tolist()
    # 2-of-2 models first (thinking variant 0.89, llama 0.75), then the 0.99 single-axis model
    assert order[:3] == ["qwen3-32b-thinking", "llama-3.1-8b", "closed-chat"]
    assert ranked.loc[0, "coverage_label"] == "2 of 2"
    assert ranked.loc[2, "coverage_label"] == "1 of 2"
    # one row per checkpoint: the thinking variant represents qwen3-32b (wider coverage)
    assert "qwen3-32b" not in order and ranked["checkpoint_id"].is_unique
    row = ranked.set_index("model_id").loc["qwen3-32b-thinking"]
    assert row["variants"] == "qwen3-32b, qwen3-32b-thinking"
    # models with no score at all rank last with quality None
    assert pd.isna(ranked.set_index("model_id").loc["nc-model-7b", "quality"])
    assert order[-1] in {"nc-model-7b", "big-moe-secret"}


def test_rank_needs_an_axis() -> None:
    with pytest.raises(ValueError):
        quality.rank_by_axes(pd.DataFrame({"model_id": ["a"], "Documents": [0.5]}), [])


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(st.none() | st.floats(0, 1), st.none() | st.floats(0, 1)),
        min_size=1,
        max_size=12,
    )
)
def test_coverage_always_dominates_value(rows: list[tuple[float | None, float | None]]) -> None:
    values = pd.DataFrame(
        {
            "model_id": [f"m{i}" for i in range(len(rows))],
            "Documents": [r[0] for r in rows],
            "Instruction following": [r[1] for r in rows],
        }
    ).astype({"Documents": float, "Instruction following": float})
    ranked = quality.rank_by_axes(values, AXES2)
    assert list(ranked["coverage"]) == sorted(ranked["coverage"], reverse=True)
    shuffled = quality.rank_by_axes(values.iloc[::-1], AXES2)
    assert ranked["model_id"].tolist() == shuffled["model_id"].tolist()


def test_headline_is_the_elo_pick() -> None:
    scores, _, _ = _frames()
    shared = quality.headline_scores(scores).set_index(["model_id", "benchmark_id"])
    assert shared.loc[("llama-3.1-8b", "ifeval"), "score"] == 80.0  # independent beats self-rep.
    assert len(shared) == len(scores.drop_duplicates(["model_id", "benchmark_id"]))


def test_normalisation_clips_at_the_bounds_for_axes_and_profiles() -> None:
    """One normalisation (profiles.between_bounds): scores beyond a bound count as the bound."""
    benchmarks = pd.DataFrame(
        {
            "benchmark_id": ["acc", "acc", "acc", "acc", "err", "err"],
            "category": ["c"] * 6,
            "lower_bound": [10.0] * 4 + [0.0] * 2,
            "upper_bound": [90.0] * 4 + [50.0] * 2,
            "higher_is_better": [True] * 4 + [False] * 2,
        }
    ).drop_duplicates("benchmark_id")
    scores = [("below", "acc", 5.0), ("low", "acc", 10.0), ("high", "acc", 90.0),
              ("above", "acc", 95.0), ("worse", "err", 60.0), ("better", "err", -5.0)]
    head = pd.DataFrame(scores, columns=["model_id", "benchmark_id", "score"])
    norm = quality.normalised(head, benchmarks).set_index("model_id")["norm"]
    expected = {"below": 0.0, "low": 0.0, "high": 1.0, "above": 1.0, "worse": 0.0, "better": 1.0}
    assert norm.to_dict() == expected
    engine = head.rename(columns={"model_id": "model", "benchmark_id": "benchmark"})
    value = profiles.normalised_scores(engine, benchmarks).set_index("model")["value"]
    assert value.to_dict() == {m: 100.0 * v for m, v in expected.items()}
