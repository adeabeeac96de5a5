"""Importer for litellm's price and context-window table
(``litellm/model_prices_and_context_window_backup.json``, package litellm 1.110.2).

Metadata only, no scores: ``load(root, drops) -> list[ModelObs]`` (unlike the score importers).
The prices are the API list prices each provider publishes, as collected by the litellm project.

What is kept: entries whose ``mode`` is a text-generation endpoint (``chat``, ``completion`` and
``responses``, the last for models served only through OpenAI's Responses API such as o3-pro or
gpt-5-pro) served by the vendor's OWN API (``FIRST_PARTY``: OpenAI, Anthropic, the Gemini API and
Vertex AI for Google, Mistral, DeepSeek, xAI, ...). A vendor with several channels keeps, for each
model name, the entry of its first channel in ``FIRST_PARTY`` order (the Gemini API before
Vertex AI, ``zai`` before ``bigmodel``, ``dashscope`` before its two mirrors); later ones are
counted. Resellers, hosts and gateways (openrouter, bedrock, azure, together_ai, fireworks_ai,
...) are counted and skipped, and so are other vendors' models that a first-party API resells
(DeepSeek and GLM on Alibaba's dashscope or on Mistral, Llama on Perplexity).

Fields: ``name`` is the key without its provider prefix ("gemini/gemini-2.5-pro" ->
"gemini-2.5-pro", "claude-opus-4-5-20251101" as is); ``organisation`` comes from the provider;
``context_length`` is ``max_input_tokens``, else the legacy ``max_tokens`` only when
``max_output_tokens`` is absent too (litellm sets ``max_tokens`` to the output limit when that
is known; no chat entry of 1.110.2 has ``max_tokens`` at all); prices are
``input_cost_per_token`` / ``output_cost_per_token`` (USD per token) x 1e6, the base tier only
(the ``*_above_200k_tokens``, batch, priority and flex prices are ignored). A price of 0 (free or
experimental tiers, e.g. gemini-exp-1206) is left empty and counted. ``price_source_url`` is the
litellm table on GitHub; ``price_date`` stays empty: the file carries no dates (only
``deprecation_date``) and the snapshot is a package version, not a dated commit.

Skipped and counted: the ``sample_spec`` documentation entry, non-text modes (embedding,
image_generation, audio_*, rerank, ...), entries without a mode, fine-tune placeholders
(``ft:...``), and entries stating neither a price nor a context window.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, read_source_json

SOURCE = "litellm"
FILENAME = "model_prices_and_context_window_backup.json"
PRICE_URL = "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json"
TEXT_MODES = ("chat", "completion", "responses")

# (litellm_provider, organisation, regex the un-prefixed name must match or None for "all").
# A vendor's channels are listed in preference order: the first one naming a model wins.
FIRST_PARTY: tuple[tuple[str, str, str | None], ...] = (
    ("openai", "OpenAI", None),
    ("text-completion-openai", "OpenAI", None),
    ("anthropic", "Anthropic", None),
    ("gemini", "Google", None),
    ("vertex_ai-language-models", "Google", None),
    ("vertex_ai", "Google", r"^(gemini|gemma)[^/]*$"),
    ("vertex_ai-text-models", "Google", None),
    ("mistral", "Mistral AI", r"^(?!zai-|glm|deepseek)"),
    ("codestral", "Mistral AI", None),
    ("text-completion-codestral", "Mistral AI", None),
    ("deepseek", "DeepSeek", None),
    ("xai", "xAI", None),
    ("cohere_chat", "Cohere", None),
    ("cohere", "Cohere", None),
    ("ai21", "AI21 Labs", None),
    ("zai", "Zhipu AI", None),
    ("bigmodel", "Zhipu AI", None),
    ("moonshot", "Moonshot AI", None),
    ("dashscope", "Alibaba", r"^(qwen|qwq)"),
    ("qwen_ai_platform", "Alibaba", r"^(qwen|qwq)"),
    ("qwencloud", "Alibaba", r"^(qwen|qwq)"),
    ("minimax", "MiniMax", None),
    ("amazon_nova", "Amazon", None),
    ("meta_llama", "Meta", None),
    ("meta", "Meta", None),
    ("watsonx", "IBM", r"^granite"),
    ("tencent", "Tencent", r"^(hy|hunyuan)"),
    ("volcengine", "ByteDance", r"^doubao"),
    ("perplexity", "Perplexity", r"^(sonar|pplx-|r1-1776)"),
    ("xiaomi_mimo", "Xiaomi", None),
    ("inception", "Inception", None),
    ("text-completion-inception", "Inception", None),
    ("sarvam", "Sarvam AI", None),
    ("gigachat", "Sber", None),
    ("cognition", "Cognition", None),
)
_NAMESPACES = {"watsonx": ("ibm",)}
"""Vendor namespaces inside a provider's keys ("watsonx/ibm/granite-...") stripped as well."""
_RANK = {provider: rank for rank, (provider, _, _) in enumerate(FIRST_PARTY)}
_ORG = {provider: org for provider, org, _ in FIRST_PARTY}
_OWN = {provider: re.compile(rx) for provider, _, rx in FIRST_PARTY if rx}

SAMPLE_SPEC = "sample_spec (documentation entry)"
NO_MODE = "entry without a mode"
RESELLER = "provider is a reseller, host or gateway, not the vendor's own API"
RESOLD = "another vendor's model resold by a first-party API"
FINE_TUNE = "fine-tune placeholder (ft:...)"
SECOND_CHANNEL = "model already priced by its vendor's preferred channel (first kept)"
NOTHING = "neither a price nor a context window"
ZERO_PRICE = "zero price (free or experimental tier): price left empty"


def mode_reason(mode: str) -> str:
    """Drop reason for a non-text mode (one reason per mode)."""
    return f"mode {mode}: not a text-generation model"


def read_table(path: Path) -> dict[str, object]:
    """The litellm table (key -> entry); IngestError naming the file when it is not an object."""
    data = read_source_json(path)
    if not isinstance(data, dict):
        raise IngestError(f"{path}: expected one JSON object of model entries; restore the file")
    return data


def strip_prefix(key: str, provider: str) -> str:
    """The model id without litellm's routing prefix ("gemini/", "vertex_ai/", "watsonx/ibm/")."""
    prefixes = {provider, provider.replace("_", "-"), "vertex_ai", *_NAMESPACES.get(provider, ())}
    name = key
    while "/" in name and name.split("/", 1)[0] in prefixes:
        name = name.split("/", 1)[1]
    return name


def _int(path: Path, key: str, entry: dict, field: str) -> int | None:
    value = entry.get(field)
    if value is None:
        return None
    if (
        isinstance(value, bool) or not isinstance(value, int | float)
        or not math.isfinite(value) or value != int(value)
    ):
        raise IngestError(f"{path}: {key!r} has {field}={value!r}; expected a whole number")
    return int(value) if value > 0 else None


def _per_mtok(path: Path, key: str, entry: dict, field: str) -> float | None:
    """USD per 1M tokens from a per-token price (0 stays 0 here)."""
    value = entry.get(field)
    if value is None:
        return None
    if (
        isinstance(value, bool) or not isinstance(value, int | float)
        or not math.isfinite(value) or value < 0
    ):
        raise IngestError(f"{path}: {key!r} has {field}={value!r}; expected USD per token >= 0")
    return round(value * 1e6, 6)


def context_length(path: Path, key: str, entry: dict) -> int | None:
    """max_input_tokens; the legacy max_tokens only when no max_output_tokens is stated."""
    found = _int(path, key, entry, "max_input_tokens")
    if found is None and entry.get("max_output_tokens") is None:
        found = _int(path, key, entry, "max_tokens")
    return found


def _candidate(path: Path, key: str, entry: object, drops: Drops) -> tuple[str, str] | None:
    """(provider, name) of a first-party text model, else None (counted)."""
    if key == "sample_spec":
        drops.add(SOURCE, SAMPLE_SPEC)
        return None
    if not isinstance(entry, dict):
        raise IngestError(f"{path}: {key!r} is not an object; restore the file")
    provider = str(entry.get("litellm_provider") or "")
    name, reason = first_party_text(key, entry.get("mode"), provider)
    if reason:
        drops.add(SOURCE, reason)
        return None
    return provider, name


def first_party_text(key: str, mode: object, provider: str) -> tuple[str, str | None]:
    """(model name, None) for a vendor's own text-model key, else (name, drop reason): no mode,
    a non-text mode, a reseller, a fine-tune endpoint, another vendor's model. Shared by every
    reader of LiteLLM keys (this table and llmledger's key history)."""
    if not mode:
        return key, NO_MODE
    if mode not in TEXT_MODES:
        return key, mode_reason(str(mode))
    if provider not in _RANK:
        return key, RESELLER
    name = strip_prefix(key, provider)
    if name.startswith("ft:"):
        return name, FINE_TUNE
    own = _OWN.get(provider)
    if own is not None and not own.search(name):
        return name, RESOLD
    return name, None


def model_obs(
    path: Path, key: str, entry: dict, name: str, provider: str, drops: Drops
) -> ModelObs | None:
    """Context window and prices of one kept entry; None (counted) when it states neither."""
    context = context_length(path, key, entry)
    prices = [
        _per_mtok(path, key, entry, f) for f in ("input_cost_per_token", "output_cost_per_token")
    ]
    if context is None and all(p is None for p in prices):
        drops.add(SOURCE, NOTHING)
        return None
    if any(p == 0 for p in prices):
        drops.add(SOURCE, ZERO_PRICE)
        prices = [None if p == 0 else p for p in prices]
    priced = any(p is not None for p in prices)
    return ModelObs(
        name=name,
        source=SOURCE,
        organisation=_ORG[provider],
        context_length=context,
        metadata_source_url=PRICE_URL if context is not None else None,
        usd_per_mtok_input=prices[0],
        usd_per_mtok_output=prices[1],
        price_source_url=PRICE_URL if priced else None,
    )


def load(root: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per first-party text model, in file order of the kept entries."""
    path = root / FILENAME
    table = read_table(path)
    chosen: dict[str, tuple[int, int, str, str]] = {}
    for order, (key, entry) in enumerate(table.items()):
        found = _candidate(path, key, entry, drops)
        if found is None:
            continue
        provider, name = found
        pick = (_RANK[provider], order, key, provider)
        if name in chosen:
            drops.add(SOURCE, SECOND_CHANNEL)
            chosen[name] = min(chosen[name], pick)
        else:
            chosen[name] = pick
    models = []
    for name, (_, _, key, provider) in sorted(chosen.items(), key=lambda kv: kv[1][1]):
        obs = model_obs(path, key, table[key], name, provider, drops)
        if obs is not None:
            models.append(obs)
    return models
