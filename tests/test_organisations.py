"""One organisations table (analytics/llm/ingest/organisations.py) and its audit
(analytics/llm/audit/organisations.py): one maker per model, never a list or a Hub namespace."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.audit import organisations as ao
from analytics.llm.ingest import genai_prices, litellm, model_prices, models_dev
from analytics.llm.ingest.organisations import canonical_org, maker_or_none


@pytest.mark.parametrize(
    ("spelled", "maker"),
    [
        ("DeepSeek,Peking University", "DeepSeek"),  # a list: the lead the source names first
        ("Hugging Face,BigScience", "Hugging Face"),
        ("mlabonne", "Maxime Labonne"),  # a Hub namespace: the maker publishing under it
        ("meta-llama", "Meta"),
        ("Mistral", "Mistral AI"),  # a source's spelling
        ("Anthropic", "Anthropic"),
        ("Minimax", "MiniMax"),  # LiveBench's spellings, once a table of its own
        ("Arcee", "Arcee AI"),
        ("AllenAI", "Allen Institute for AI"),
        ("qwen", "Alibaba"),  # LLM Stats' folders, once a table of its own
        ("ai21", "AI21 Labs"),
        ("xai", "xAI"),
        ("google deepmind", "Google"),  # tau2-bench's spellings, once a table of its own
        ("z.ai", "Zhipu AI"),
    ],
)
def test_one_canonical_maker_per_spelling(spelled, maker):
    assert canonical_org(spelled) == maker


def test_an_anonymous_entry_names_no_maker():
    assert maker_or_none("Stealth") is None and maker_or_none("OpenRouter") is None
    assert maker_or_none("") is None and maker_or_none("Mistral") == "Mistral AI"


def test_every_channel_table_names_makers_as_the_organisations_table_does():
    """The per-source channel tables (which provider ids are a maker's own API) name each maker
    by its one catalog spelling, so they cannot drift from the organisations table."""
    named = [org for _, org, _ in litellm.FIRST_PARTY] + [org for _, org, _ in models_dev.MAKERS]
    named += [org for org, _ in genai_prices.MAKERS.values()]
    named += [org for org, _ in model_prices.MAKERS.values()]
    assert len(named) > 40
    assert [org for org in named if canonical_org(org) != org] == []


def _models(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_id", "organisation", "aliases"])


def test_the_audit_finds_a_list_and_a_namespace_but_not_a_maker_named_like_its_namespace():
    found = ao.audit(_models([
        ("a", "DeepSeek,Peking University", ""),
        ("b", "someone-new", "someone-new/B-7B"),
        ("c", "Anthropic", "anthropic/claude-x"),
        ("d", "Maxime Labonne", "mlabonne/D-8B"),
    ]))
    assert [f.subject for f in found] == ["a", "b"]
    assert all(not f.resolved for f in found)


def test_the_committed_catalog_names_one_maker_per_model():
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)
    assert [f.line() for f in ao.audit(models)] == []
