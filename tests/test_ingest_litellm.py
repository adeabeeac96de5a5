"""litellm price / context-window importer: first-party channel choice, units, every drop reason,
the IngestError lines, and (with ../shared) exact counts and hand-checked values of 1.110.2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytics.llm.ingest import litellm
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "litellm"


def _by_name(models):
    names = [m.name for m in models]
    assert len(names) == len(set(names)), "one observation per model name"
    return {m.name: m for m in models}


def _load_fixture():
    drops = Drops()
    return litellm.load(FIX, drops), drops


def test_fixture_keeps_first_party_text_models_in_file_order():
    models, _ = _load_fixture()
    assert [m.name for m in models] == [
        "gpt-4o-2024-08-06",
        "o3-pro",
        "gpt-3.5-turbo-instruct",
        "claude-3-5-sonnet-20241022",
        "gemini-2.5-pro",
        "gemini-exp-1206",
        "qwen-max",
        "deepseek-chat",
        "grok-2",
        "nova-pro-v1",
        "granite-3-8b-instruct",
    ]
    assert {m.source for m in models} == {"litellm"}


def test_prices_per_million_tokens_context_and_organisation():
    models = _by_name(_load_fixture()[0])
    gpt = models["gpt-4o-2024-08-06"]
    assert (gpt.organisation, gpt.context_length) == ("OpenAI", 128000)
    assert (gpt.usd_per_mtok_input, gpt.usd_per_mtok_output) == (2.5, 10.0)
    assert gpt.price_source_url == litellm.PRICE_URL and gpt.price_date is None
    assert gpt.metadata_source_url == litellm.PRICE_URL
    assert models["claude-3-5-sonnet-20241022"].organisation == "Anthropic"
    assert (models["o3-pro"].usd_per_mtok_input, models["o3-pro"].usd_per_mtok_output) == (20, 80)
    assert models["qwen-max"].organisation == "Alibaba"
    assert models["nova-pro-v1"].organisation == "Amazon"
    assert models["granite-3-8b-instruct"].organisation == "IBM"
    assert all(m.release_date is None and m.display_name is None for m in models.values())


def test_vendor_channel_order_beats_file_order():
    gemini = _by_name(_load_fixture()[0])["gemini-2.5-pro"]
    # the Vertex AI entry comes first in the file, but the Gemini API is Google's first channel
    assert (gemini.usd_per_mtok_input, gemini.context_length) == (1.25, 1048576)


def test_context_length_rules():
    models = _by_name(_load_fixture()[0])
    # legacy max_tokens only when neither max_input_tokens nor max_output_tokens is stated
    assert models["gpt-3.5-turbo-instruct"].context_length == 4096
    grok = models["grok-2"]
    assert grok.context_length is None and grok.metadata_source_url is None
    assert grok.usd_per_mtok_input == 2.0


def test_zero_price_is_left_empty_but_context_kept():
    exp = _by_name(_load_fixture()[0])["gemini-exp-1206"]
    assert exp.usd_per_mtok_input is None and exp.usd_per_mtok_output is None
    assert exp.price_source_url is None and exp.context_length == 2097152


def test_every_drop_reason_is_counted():
    _, drops = _load_fixture()
    assert dict(drops.counts) == {
        ("litellm", litellm.SAMPLE_SPEC): 1,
        ("litellm", litellm.FINE_TUNE): 1,
        ("litellm", litellm.mode_reason("embedding")): 1,
        ("litellm", litellm.mode_reason("image_generation")): 1,
        ("litellm", litellm.NOTHING): 1,
        ("litellm", litellm.RESELLER): 2,
        ("litellm", litellm.SECOND_CHANNEL): 2,
        ("litellm", litellm.RESOLD): 2,
        ("litellm", litellm.NO_MODE): 1,
        ("litellm", litellm.ZERO_PRICE): 1,
    }


@pytest.mark.parametrize(
    ("key", "provider", "name"),
    [
        ("gemini/gemini-2.5-pro", "gemini", "gemini-2.5-pro"),
        ("vertex_ai/gemini-3-pro-preview", "vertex_ai", "gemini-3-pro-preview"),
        ("amazon-nova/nova-pro-v1", "amazon_nova", "nova-pro-v1"),
        ("perplexity/perplexity/sonar", "perplexity", "sonar"),
        ("watsonx/ibm/granite-3-8b-instruct", "watsonx", "granite-3-8b-instruct"),
        ("watsonx/mistralai/mistral-large", "watsonx", "mistralai/mistral-large"),
        ("claude-opus-4-5-20251101", "anthropic", "claude-opus-4-5-20251101"),
    ],
)
def test_strip_prefix(key, provider, name):
    assert litellm.strip_prefix(key, provider) == name


def _copy_with(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "litellm"
    root.mkdir()
    (root / litellm.FILENAME).write_text(text, encoding="utf-8")
    return root


def _one_entry(tmp_path: Path, **fields) -> Path:
    entry = {"litellm_provider": "openai", "mode": "chat", **fields}
    return _copy_with(tmp_path, json.dumps({"gpt-x": entry}))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected one JSON object"),
        ('{"gpt-x": 3}', "'gpt-x' is not an object"),
    ],
)
def test_bad_file_is_one_line(tmp_path, text, message):
    root = _copy_with(tmp_path, text)
    with pytest.raises(IngestError, match=message) as info:
        litellm.load(root, Drops())
    assert litellm.FILENAME in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"input_cost_per_token": "0.000002"}, "input_cost_per_token='0.000002'"),
        ({"output_cost_per_token": -1e-6}, "output_cost_per_token=-1e-06"),
        ({"max_input_tokens": "lots"}, "max_input_tokens='lots'; expected a whole number"),
        ({"max_input_tokens": True}, "max_input_tokens=True"),
    ],
)
def test_bad_field_names_the_key(tmp_path, fields, message):
    root = _one_entry(tmp_path, **fields)
    with pytest.raises(IngestError, match=message) as info:
        litellm.load(root, Drops())
    assert "'gpt-x'" in str(info.value)


# --- the real file (needs ../shared) ----------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data):
    drops = Drops()
    models = litellm.load(shared_data / "litellm", drops)
    return models, drops


@pytest.mark.shared
def test_real_counts(real):
    models, drops = real
    assert len(models) == 445
    counts = {reason: n for (_, reason), n in drops.counts.items()}
    assert counts[litellm.RESELLER] == 2984
    assert counts[litellm.RESOLD] == 139
    assert counts[litellm.SECOND_CHANNEL] == 124
    assert counts[litellm.FINE_TUNE] == 14
    assert counts[litellm.NO_MODE] == 109
    assert counts[litellm.NOTHING] == 2
    assert counts[litellm.ZERO_PRICE] == 26
    assert counts[litellm.mode_reason("image_generation")] == 414
    assert counts[litellm.mode_reason("embedding")] == 157
    # every one of the 4,878 keys is either kept or counted once (zero price is a field note)
    assert len(models) + drops.total - counts[litellm.ZERO_PRICE] == 4878
    assert sum(m.usd_per_mtok_input is not None for m in models) == 393
    assert sum(m.context_length is not None for m in models) == 436


@pytest.mark.shared
def test_real_golden_values(real):
    models = _by_name(real[0])
    expected = {
        "gpt-4o-2024-08-06": ("OpenAI", 128000, 2.5, 10.0),
        "claude-opus-4-5-20251101": ("Anthropic", 200000, 5.0, 25.0),
        "gemini-2.5-pro": ("Google", 1048576, 1.25, 10.0),
        "deepseek-chat": ("DeepSeek", 131072, 0.28, 0.42),
        "o3-pro": ("OpenAI", 200000, 20.0, 80.0),
        "mistral-large-3": ("Mistral AI", 262144, 0.5, 1.5),
        "qwen-max": ("Alibaba", 30720, 1.6, 6.4),
        "sonar-pro": ("Perplexity", 200000, 3.0, 15.0),
    }
    for name, (org, context, price_in, price_out) in expected.items():
        obs = models[name]
        assert (obs.organisation, obs.context_length) == (org, context), name
        assert (obs.usd_per_mtok_input, obs.usd_per_mtok_output) == (price_in, price_out), name
    # the DeepSeek price, not dashscope's resold one (0.2 / 0.4)
    assert models["deepseek-v4-flash"].usd_per_mtok_input == 0.3
    # zai (Z.ai) before bigmodel (its China channel, 1.1428...)
    assert models["glm-5.3"].usd_per_mtok_input == 1.4


@pytest.mark.shared
def test_real_names_are_unprefixed_first_party(real):
    models = real[0]
    assert not [m.name for m in models if "/" in m.name or m.name.startswith("ft:")]
    assert not [m.name for m in models if m.name.startswith(("zai-", "glm-5-2"))]
    assert all(m.price_date is None for m in models)
