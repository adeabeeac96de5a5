"""One protocol per benchmark (analytics/llm/ingest/protocols.py), and the examples an expert
found in the old catalog, checked on the committed catalog."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.ingest import protocols
from analytics.llm.quality import headline_scores


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("pass@1", None),
        ("Pass@1, avg over 64 samples", None),
        ("0-shot CoT", None),
        ("cons@64", protocols.AGGREGATED),
        ("Cons@64", protocols.AGGREGATED),
        ("maj@32", protocols.AGGREGATED),
        ("pass@8", protocols.AGGREGATED),
        ("best of 16", protocols.AGGREGATED),
        ("with parallel test-time compute", protocols.PARALLEL),
        ("Explicitly fine-tuned on it", protocols.FINE_TUNED),
    ],
)
def test_method_drop_reason(text, reason):
    assert protocols.method_drop_reason(text) == reason


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Gemini 2.5 Deep Think", protocols.PARALLEL),
        ("grok-4-heavy", protocols.PARALLEL),
        ("GPT-5.4 Pro (xhigh)", protocols.PARALLEL),
        ("gpt-5.5-pre-release", protocols.UNRELEASED),
        ("Claude Fable 5 (Adaptive Reasoning, Max Effort, Opus 4.8 Fallback)", protocols.SCAFFOLD),
        ("gemini-3-pro-preview", None),  # a preview released as a product stays
        ("o3-pro-2025-06-10", None),
        ("Qwen3-Max", None),
    ],
)
def test_system_drop_reason(name, reason):
    assert protocols.system_drop_reason(name) == reason


@pytest.fixture(scope="module")
def scores() -> pd.DataFrame:
    return pd.read_csv(paths.CATALOG_DIR / "scores.csv")


@pytest.fixture(scope="module")
def headline(scores) -> pd.DataFrame:
    return headline_scores(scores)


@pytest.fixture(scope="module")
def models() -> pd.DataFrame:
    return pd.read_csv(paths.CATALOG_DIR / "models.csv").set_index("model_id")


def _headline(headline, model, bench) -> float:
    row = headline[(headline.model_id == model) & (headline.benchmark_id == bench)]
    assert len(row) == 1, (model, bench)
    return float(row["score"].iloc[0])


def test_cons_at_64_never_stands_for_pass_at_1(headline, scores):
    assert _headline(headline, "deepseek-r1-distill-qwen-1.5b", "aime-2024") == 28.9
    r1 = scores[(scores.model_id == "deepseek-r1-distill-qwen-1.5b") & (scores.score == 52.7)]
    assert r1.empty


def test_a_known_broken_harness_row_is_dropped(headline, scores):
    assert scores[(scores.model_id == "phi-4") & (scores.benchmark_id == "ifeval")].score.min() > 6
    assert _headline(headline, "phi-4", "ifeval") == 63


def test_task_fine_tuned_superglue_results_are_not_in(scores):
    superglue = scores[scores.benchmark_id == "superglue"]
    assert not superglue.model_id.str.match(r"^(t5|switch)").any()


def test_preview_claims_sit_on_the_preview_not_the_released_o3(scores):
    o3 = scores[scores.model_id == "o3-2025-04-16"]
    assert not ((o3.benchmark_id == "arc-agi") & (o3.score == 88)).any()
    assert not ((o3.benchmark_id == "frontiermath") & (o3.score == 25.2)).any()
    preview = scores[scores.model_id == "o3-preview"]
    assert set(preview.benchmark_id) == {"arc-agi", "frontiermath"}


def test_parallel_and_unreleased_systems_have_no_scores(scores):
    ids = scores.model_id.drop_duplicates()
    assert not ids.str.contains(r"deep-think|-heavy|pre-release|gpt-5(?:\.\d+)?-pro").any()


def test_agent_scaffolds_of_third_parties_are_not_headlines(scores):
    # SWE-bench: only the bash-only board (one minimal agent for every model) is imported
    swe = scores[scores.source_name.str.contains("SWE-bench", na=False)]
    assert set(swe.benchmark_id) <= {"swe-bench-verified-bash-only", "swe-bench-verified"}


@pytest.mark.parametrize(
    ("model", "column", "value"),
    [
        ("kimi-k2-0905", "release_date", "2025-09-05"),  # Kimi-K2-Instruct-0905
        ("gemma-2-2b-it", "release_date", "2024-07-31"),
        ("deepseek-v3-0324", "active_params_b", 37.0),
        ("deepseek-r1-0528", "active_params_b", 37.0),
        ("gpt-oss-120b", "active_params_b", 5.1),
        ("gpt-oss-20b", "open_weights", True),
        ("gpt-oss-20b", "licence_raw", "Apache-2.0"),
        ("kimi-k2-thinking", "checkpoint_id", "kimi-k2-thinking"),
    ],
)
def test_metadata_corrections(models, model, column, value):
    assert models.loc[model, column] == value


def test_third_party_llama_fine_tunes_are_not_credited_to_meta(models):
    meta = models[models.organisation == "Meta"]
    third_party = meta.index.str.contains(r"steerlm|dolphin|hermes|tulu|nemotron|wizard|vicuna")
    assert not third_party.any(), list(meta.index[third_party])
