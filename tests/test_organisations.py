"""One organisations table (analytics/llm/ingest/organisations.py) and its audit
(analytics/llm/audit/organisations.py): one maker per model, never a list or a Hub namespace."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.audit import organisations as ao
from analytics.llm.ingest.organisations import canonical_org


@pytest.mark.parametrize(
    ("spelled", "maker"),
    [
        ("DeepSeek,Peking University", "DeepSeek"),  # a list: the lead the source names first
        ("Hugging Face,BigScience", "Hugging Face"),
        ("mlabonne", "Maxime Labonne"),  # a Hub namespace: the maker publishing under it
        ("meta-llama", "Meta"),
        ("Mistral", "Mistral AI"),  # a source's spelling
        ("Anthropic", "Anthropic"),
    ],
)
def test_one_canonical_maker_per_spelling(spelled, maker):
    assert canonical_org(spelled) == maker


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
