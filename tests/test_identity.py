"""Model identity (analytics/llm/ingest/identity.py, overrides.py): the variant rule, the loose
and undated matching rules, the override table, and golden pairs read from the committed catalog.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm import catalog as cat
from analytics.llm.ingest import overrides as ov
from analytics.llm.ingest.identity import (
    ModelRegistry,
    canonical_variant,
    loose_key,
    match_key,
    split_variant,
    variant_model_id,
    weights_link_fits,
)
from analytics.llm.ingest.resolver import undated_merges

GOLDEN = Path(__file__).parent / "golden" / "identity_pairs.csv"


@pytest.mark.parametrize(
    ("raw", "base", "variant"),
    [
        ("GPT-5 (high)", "GPT-5", "high"),
        ("Claude 4.5 Sonnet (Reasoning)", "Claude 4.5 Sonnet", "thinking"),
        ("Claude 4.5 Sonnet (Non-reasoning)", "Claude 4.5 Sonnet", "non-thinking"),
        ("o3-2025-04-16_high", "o3-2025-04-16", "high"),
        ("claude-sonnet-4-20250514_8K", "claude-sonnet-4-20250514", "8k"),
        ("Claude 3.7 Sonnet (thinking-32k)", "Claude 3.7 Sonnet", "32k"),
        ("o3-mini-high", "o3-mini", "high"),
        ("claude-opus-4-1-20250805-thinking-16k", "claude-opus-4-1-20250805", "16k"),
        ("gpt-oss-120b (high) (Chutes)", "gpt-oss-120b", "high"),
        ("claude-sonnet-5-xhigh-effort", "claude-sonnet-5", "xhigh"),
        # not settings: sizes, context variants and separate weights keep their names
        ("gpt2-medium", "gpt2-medium", None),
        ("yarn-llama-2-7b-64k", "yarn-llama-2-7b-64k", None),
        ("phi-4-reasoning", "phi-4-reasoning", None),
        ("qwen3-235b-a22b-thinking-2507", "qwen3-235b-a22b-thinking-2507", None),
        ("Qwen3-Max", "Qwen3-Max", None),
    ],
)
def test_split_variant(raw, base, variant):
    assert split_variant(raw) == (base, variant)


def test_the_api_default_setting_is_the_default_variant():
    # OpenAI's reasoning_effort defaults to medium; Claude thinks only when asked.
    assert variant_model_id("o3-2025-04-16", "medium") == ("o3-2025-04-16", "default")
    assert variant_model_id("o3-2025-04-16", "high") == ("o3-2025-04-16-high", "high")
    assert variant_model_id("claude-sonnet-4.5-20250929", "non-thinking")[1] == "default"
    assert variant_model_id("claude-sonnet-4.5-20250929", "thinking")[1] == "thinking"
    assert variant_model_id("gemini-2.5-pro", "thinking")[1] == "default"
    assert variant_model_id("gemini-2.5-flash-lite", "thinking")[1] == "thinking"
    assert variant_model_id("llama-3.1-8b-instruct", None) == ("llama-3.1-8b-instruct", "default")


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("High", "high"), ("xhigh effort", "xhigh"), ("Reasoning", "thinking"),
     ("no-thinking", "non-thinking"), ("16K", "16k"), ("thinking-32k", "32k"), ("Chutes", None)],
)
def test_canonical_variant(text, canonical):
    assert canonical_variant(text) == canonical


def test_loose_key_sorts_words_but_keeps_numbers_in_order():
    assert loose_key("Claude 4.5 Sonnet") == loose_key("claude-sonnet-4-5")
    assert loose_key("bloom-7b1") != loose_key("bloom-1b7")
    assert loose_key("gemini-2.5-pro-preview-05-06") != loose_key("gemini-2.5-pro-preview-06-05")
    assert loose_key("Llama 3.1 8B") != loose_key("Llama 3.1 8B Instruct")


def test_registry_uses_the_loose_key_only_when_one_model_claims_it():
    reg = ModelRegistry()
    first = reg.resolve("claude-sonnet-4.5")
    assert reg.resolve("Claude 4.5 Sonnet") == first
    assert reg.resolve("Sonnet Claude 4.5", loose=False) != first  # pinned names never merge


def test_an_undated_name_joins_its_only_dated_snapshot():
    merges = undated_merges(
        {"claude-sonnet-4.5", "claude-sonnet-4.5-20250929", "gpt-4o", "gpt-4o-2024-05-13",
         "gpt-4o-2024-08-06", "o3"},
        pinned=set(),
    )
    assert merges == {"claude-sonnet-4.5": "claude-sonnet-4.5-20250929"}  # gpt-4o: ambiguous


def test_a_base_weights_repo_never_becomes_an_instruct_models_alias():
    assert not weights_link_fits("Qwen/Qwen2.5-Coder-32B", "qwen-2.5-coder-32b-instruct")
    assert weights_link_fits("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick")
    assert weights_link_fits("google/gemma-2-2b-it", "gemma-2-2b-it")


# --- the override table ------------------------------------------------------------------------


def _write(path: Path, *rows: str) -> Path:
    path.write_text(",".join(ov.COLUMNS) + "\n" + "".join(r + "\n" for r in rows), "utf-8")
    return path


def test_committed_override_table_parses_and_every_row_cites_a_page():
    table = ov.load(ov.OVERRIDES_CSV, match_key=match_key)
    assert table.aliases and table.sets and table.score_rules
    with open(ov.OVERRIDES_CSV, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            assert row["source_url"].startswith("http") and row["reason"], row


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("alias,Foo,,,,,,https://x.org/a,why", "is not a model id"),
        ("merge,Foo,foo,,,,,https://x.org/a,why", "action 'merge' is unknown"),
        ("alias,Foo,foo,,,,,,why", "source_url or reason missing"),
        ("set,foo,,,,release_date,2025-13,https://x.org/a,why", "is not settable"),
        ("drop-score,foo,,,,,,https://x.org/a,why", "benchmark_id is empty"),
    ],
)
def test_a_bad_override_row_is_one_line_naming_file_and_line(tmp_path, row, message):
    path = _write(tmp_path / "overrides.csv", row)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        ov.load(path, match_key=match_key)
    assert f"{path}:2:" in str(err.value) and "\n" not in str(err.value)


def test_an_alias_with_two_targets_is_refused(tmp_path):
    path = _write(
        tmp_path / "overrides.csv",
        "alias,Foo 1,foo-1,,,,,https://x.org/a,why",
        "alias,foo-1,bar-2,,,,,https://x.org/a,why",
    )
    with pytest.raises(ValueError, match="already maps"):
        ov.load(path, match_key=match_key)


# --- golden pairs and uniqueness, on the committed catalog --------------------------------------


@pytest.fixture(scope="module")
def models() -> pd.DataFrame:
    return pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def names(models) -> dict[str, str]:
    return cat.model_names(models)


def _golden() -> list[dict]:
    with open(GOLDEN, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_golden_file_has_at_least_eighty_pairs_of_both_kinds():
    rows = _golden()
    kinds = {r["relation"] for r in rows}
    assert len(rows) >= 80 and kinds == {"same", "different"}  # at least 80 checked pairs
    assert all(r["why"] for r in rows)


@pytest.mark.parametrize("pair", _golden(), ids=lambda r: f"{r['a']}|{r['b']}")
def test_golden_identity_pair(models, names, pair):
    checkpoint = dict(zip(models["model_id"], models["checkpoint_id"], strict=True))
    a = cat.resolve_model(models, pair["a"], names)
    b = cat.resolve_model(models, pair["b"], names)
    level = pair.get("level") or "checkpoint"
    same = (checkpoint[a] == checkpoint[b]) if level == "checkpoint" else (a == b)
    assert same == (pair["relation"] == "same"), (a, b, pair["why"])


def normalised(name: str) -> str:
    """Case, punctuation and date format removed ('2025-04-16' = '20250416'; '+' is 'plus')."""
    return re.sub(r"[^a-z0-9]", "", name.lower().replace("+", "plus"))


def test_no_two_models_share_a_normalised_name(models):
    allowed = ov.load(ov.OVERRIDES_CSV, match_key=match_key).same_name
    owners: dict[str, set[str]] = defaultdict(set)
    for model_id, display, variant in zip(
        models["model_id"], models["display_name"], models["variant"], strict=True
    ):
        owners[normalised(model_id)].add(model_id)
        owners[normalised(f"{display} {variant}")].add(model_id)
    clashes = [ids for ids in owners.values() if len(ids) > 1 and frozenset(ids) not in allowed]
    assert not clashes, clashes[:10]


def test_every_former_model_id_still_resolves(models, names):
    former = Path(paths.REPO_ROOT / "analytics/llm/ingest/former_ids.txt").read_text("utf-8")
    ids = [ln for ln in former.splitlines() if ln and not ln.startswith("#")]
    retired = set(pd.read_csv(paths.CATALOG_DIR / "retired.csv")["model_id"])
    missing = [i for i in ids if cat.norm_name(i) not in names and i not in retired]
    assert not missing, missing[:10]
    assert not retired & set(models["model_id"])
