"""Lineage, movers (seed 002, "Movers & lineage") and category profiles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analytics.llm import lineage, profiles


def models(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_id", "family", "release_date", "total_params_b"])


FAMILY = models(
    [
        ("llama-1-7b", "llama", "2023-02-24", 7),
        ("llama-1-65b", "llama", "2023-02-24", 65),
        ("llama-2-7b", "llama", "2023-07-18", 7),
        ("llama-2-70b", "llama", "2023-07-18", 70),
        ("llama-3-8b", "llama", "2024-04-18", 8),
        ("other-1", "other", "2023-01-01", None),
        ("other-2", "other", "2024-01-01", None),
        ("undated", "llama", None, 7),
        ("orphan", None, "2024-01-01", 7),
    ]
)


def edges_of(frame: pd.DataFrame) -> dict[str, str | None]:
    out = lineage.predecessors(frame)
    return {
        m: (None if pd.isna(p) else p)
        for m, p in zip(out.model_id, out.predecessor_id, strict=True)
    }


def test_same_day_releases_are_size_variants_without_predecessor() -> None:
    edges = edges_of(FAMILY)
    assert edges["llama-1-7b"] is None and edges["llama-1-65b"] is None


def test_nearest_strictly_older_member_closest_in_size() -> None:
    edges = edges_of(FAMILY)
    assert edges["llama-2-7b"] == "llama-1-7b"
    assert edges["llama-2-70b"] == "llama-1-65b"  # same older date: nearest size wins
    assert edges["llama-3-8b"] == "llama-2-7b"  # the nearest date, not the first generation
    assert edges["other-2"] == "other-1"
    assert edges["other-1"] is None


def test_models_without_date_or_family_have_no_lineage() -> None:
    edges = edges_of(FAMILY)
    assert edges["undated"] is None and edges["orphan"] is None
    assert "undated" not in edges.values() and "orphan" not in edges.values()


def test_a_base_and_its_own_tuned_release_are_one_release() -> None:
    """The Hub created qwen2-72b's repository on 2024-05-22; its instruct tune is dated by the
    2024-06-07 release: neither is the other's predecessor, both follow the older generation."""
    qwen = models([
        ("qwen1.5-72b", "qwen", "2024-02-04", 72), ("qwen1.5-72b-chat", "qwen", "2024-02-04", 72),
        ("qwen2-72b", "qwen", "2024-05-22", 72), ("qwen2-72b-instruct", "qwen", "2024-06-07", 72),
        ("qwen2.5-72b-instruct", "qwen", "2024-09-19", 72),
        ("gemma-7b-it", "gemma", "2024-02-13", 8.5), ("gemma-7b", "gemma", "2024-02-21", 8.5),
    ])
    edges = edges_of(qwen)
    assert edges["qwen2-72b-instruct"] == "qwen1.5-72b-chat"  # not its own base; tuned, tuned
    assert edges["qwen2-72b"] == "qwen1.5-72b"
    assert edges["qwen2.5-72b-instruct"] == "qwen2-72b-instruct"
    assert edges["gemma-7b"] is None and edges["gemma-7b-it"] is None  # one release, the first
    modern = models([
        ("qwen2.5-72b", "qwen", "2024-09-19", 72),
        ("qwen-2.5-72b-instruct", "qwen", "2024-09-19", 72),
        ("qwen3.5-122b-a10b", "qwen", "2026-02-16", 122),
    ])
    assert edges_of(modern)["qwen3.5-122b-a10b"] == "qwen-2.5-72b-instruct"  # no word: tuned


def test_size_tie_breaks_by_id_and_unknown_size_is_its_own_class() -> None:
    frame = models(
        [
            ("a-1-x", "a", "2023-01-01", None),
            ("a-1-b", "a", "2023-01-01", 10),
            ("a-1-a", "a", "2023-01-01", 10),
            ("a-2", "a", "2024-01-01", 12),
        ]
    )
    assert edges_of(frame)["a-2"] == "a-1-a"  # same size class and date: the smaller id
    frame.loc[3, "total_params_b"] = None  # undisclosed size follows an undisclosed size only
    assert edges_of(frame)["a-2"] == "a-1-x"


def test_a_predecessor_is_in_the_same_product_line_and_size_class() -> None:
    frame = models(
        [
            ("gemini-2.5-pro", "gemini", "2025-06-17", None),
            ("gemini-2.5-flash-lite", "gemini", "2025-07-22", None),
            ("gemini-3-pro-preview", "gemini", "2025-11-18", None),
            ("gemma-3-270m", "gemma", "2025-08-14", 0.27),
            ("gemma-3-27b-it", "gemma", "2025-03-12", 27),
            ("gemma-4-31b", "gemma", "2026-04-02", 31),
        ]
    )
    edges = edges_of(frame)
    assert edges["gemini-3-pro-preview"] == "gemini-2.5-pro"  # not the newer Flash-Lite
    assert edges["gemma-4-31b"] == "gemma-3-27b-it"  # not the newer, tiny Gemma 3 270M
    assert edges["gemini-2.5-flash-lite"] is None and edges["gemma-3-270m"] is None
    assert lineage.product_line("gemini-2.5-flash-lite-preview", "gemini", None) == (
        "gemini|flash lite|?"
    )


def test_successors() -> None:
    edges = lineage.predecessors(FAMILY)
    assert lineage.successors(edges, "llama-2-7b") == ["llama-3-8b"]
    assert lineage.successors(edges, "llama-3-8b") == []


def test_movers_are_positive_gains_biggest_first() -> None:
    edges = lineage.predecessors(FAMILY)
    ratings = pd.DataFrame(
        {
            "model_id": ["llama-1-7b", "llama-1-65b", "llama-2-7b", "llama-2-70b", "llama-3-8b"],
            "rating": [900.0, 1000.0, 950.0, 1150.0, 1300.0],
        }
    )
    out = lineage.movers(edges, ratings)
    assert out[["model_id", "predecessor_id", "gain"]].values.tolist() == [
        ["llama-3-8b", "llama-2-7b", 350.0],
        ["llama-2-70b", "llama-1-65b", 150.0],
        ["llama-2-7b", "llama-1-7b", 50.0],
    ]
    ratings.loc[ratings.model_id == "llama-3-8b", "rating"] = 940.0  # a regression is no mover
    assert "llama-3-8b" not in set(lineage.movers(edges, ratings).model_id)
    assert len(lineage.movers(edges, ratings, top=1)) == 1


def test_movers_skip_edges_with_an_unrated_end() -> None:
    edges = lineage.predecessors(FAMILY)
    ratings = pd.DataFrame({"model_id": ["llama-3-8b"], "rating": [1500.0]})
    assert lineage.movers(edges, ratings).empty


# --- profiles ------------------------------------------------------------------------------

BENCHMARKS = pd.DataFrame(
    {
        "benchmark_id": ["mmlu", "gsm", "err", "arena", "flat"],
        "category": ["knowledge", "math", "math", "chat", "chat"],
        "higher_is_better": [True, True, False, True, True],
        "lower_bound": [0.0, 0.0, 0.0, 800.0, 5.0],
        "upper_bound": [100.0, 100.0, 50.0, 1600.0, 5.0],
    }
)
HEADLINE = pd.DataFrame(
    {
        "model": ["A", "A", "A", "A", "B", "B"],
        "benchmark": ["mmlu", "gsm", "err", "arena", "gsm", "flat"],
        "score": [70.0, 80.0, 10.0, 1200.0, 40.0, 5.0],
    }
)


def test_normalised_scores_flip_lower_is_better() -> None:
    norm = profiles.normalised_scores(HEADLINE, BENCHMARKS).set_index(["model", "benchmark"])
    assert norm.loc[("A", "err"), "value"] == pytest.approx(80.0)  # 10 of 0..50, lower better
    assert norm.loc[("A", "arena"), "value"] == pytest.approx(50.0)  # 1200 of 800..1600
    assert ("B", "flat") not in norm.index  # zero-width bounds cannot be normalised


def test_category_profiles_are_means_and_missing_stays_missing() -> None:
    prof = profiles.category_profiles(HEADLINE, BENCHMARKS)
    got = {(m, c): (v, n) for m, c, v, n in prof.itertuples(index=False)}
    assert got[("A", "math")] == (pytest.approx(80.0), 2)  # mean of 80 and 80
    assert got[("B", "math")] == (pytest.approx(40.0), 1)
    assert ("B", "knowledge") not in got
    radar = profiles.radar_data(prof, ["A", "B"])
    assert len(radar) == 2 * 3  # both models on the same three category axes
    missing = radar[(radar.model == "B") & (radar.category == "knowledge")]
    assert missing["value"].isna().all() and (missing["n_benchmarks"] == 0).all()


def test_radar_limit_is_four_models() -> None:
    prof = profiles.category_profiles(HEADLINE, BENCHMARKS)
    with pytest.raises(ValueError, match="at most 4"):
        profiles.radar_data(prof, list("ABCDE"))


def test_radar_figure_has_one_closed_trace_per_model() -> None:
    prof = profiles.category_profiles(HEADLINE, BENCHMARKS)
    fig = profiles.radar_figure(profiles.radar_data(prof, ["A", "B"]))
    assert [t.name for t in fig.data] == ["A", "B"]
    theta = list(fig.data[0].theta)
    assert theta[0] == theta[-1]  # closed polygon
    assert np.isnan(fig.data[1].r[theta.index("knowledge")])  # a gap, not a zero
