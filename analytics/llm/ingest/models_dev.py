"""Importer of model release dates from a copy of models.dev (``model-registry.json``).

The copy: ``facet/data/model-registry.json`` of the PyPI package facet-models 2026.9.1 (upstream
github.com/hsliuping/Facet, generator ``sync_models_dev@0.2.0``), dated ``updated_at``
2026-09-16. It flattens models.dev (MIT; github.com/anomalyco/models.dev, formerly sst/models.dev)
into ``"provider/model"`` rows ``{provider, context_window, max_output, open_weights, cost,
release_date, last_updated, ...}``; models.dev is the original publisher and is what we cite.

Release dates only: ``load(folder, drops) -> list[ModelObs]``. models.dev lists one model under
every provider that serves it, and a reseller's row carries the reseller's own guess (Bedrock's
claude-opus-4-5 says 2025-11-01, Anthropic's 2025-11-24), so a date is read from the MAKER's own
provider rows only (:data:`MAKERS`, explicit). A maker's API that also serves other makers'
models keeps its own names only (the regex: Mistral's ``zai-glm-5-2`` is counted, not kept); a
maker with two channels (Google's Gemini API and Vertex AI, Alibaba's international and China
DashScope) keeps, per name, the dated row of its first channel. The maker's own listing states the
day, so ``release_date_basis`` is None.

Kept fields: ``name`` (the model id without the provider), ``organisation``, ``release_date``,
``context_length`` (``context_window`` when positive), ``open_weights`` (when stated) and
``metadata_source_url``: the provider TOML upstream,
``https://github.com/anomalyco/models.dev/blob/dev/providers/<provider>/models/<model>.toml``
(models.dev stores one file per provider model; since 2026 that file may inherit the date from
``models/<maker>/<model>.toml`` through ``base_model``, which the generator has already merged).

Dropped and counted: rows of providers outside the maker table (resellers, hosts, gateways),
makers' subscription-plan routes (coding / token plans: product aliases, not model listings),
other makers' models on a maker's API, a name a preferred channel already dated, rows without a
release date, month-only dates (``YYYY-MM``: models.dev allows them, they are not a day), 1 January
dates (year placeholders: Perplexity's sonar and sonar-pro say 2024-01-01 for a January 2025
release, StepFun's step-1 and step-2 2025-01-01), dates before 2015 and dates after the copy's own
``updated_at``. A malformed file or row is an
IngestError naming the file (and the row).
"""

from __future__ import annotations

import math
import re
from datetime import date
from pathlib import Path

from analytics.llm.ingest.common import RESTORE, Drops, IngestError, ModelObs, read_source_json

SOURCE = "models-dev"
FILENAME = "model-registry.json"
TOML_URL = (
    "https://github.com/anomalyco/models.dev/blob/dev/providers/{provider}/models/{model}.toml"
)
EARLIEST = "2015-01-01"

# (models.dev provider id, organisation, regex the model id must match or None for "all").
# A maker's channels are listed in preference order: the first one naming a model wins.
MAKERS: tuple[tuple[str, str, str | None], ...] = (
    ("anthropic", "Anthropic", r"^claude"),
    ("openai", "OpenAI", None),
    ("google", "Google", None),
    ("google-vertex", "Google", r"^(gemini|gemma)"),
    ("mistral", "Mistral AI", r"^(?!zai-|glm|deepseek|qwen|kimi|llama)"),
    ("deepseek", "DeepSeek", r"^deepseek"),
    ("xai", "xAI", r"^grok"),
    ("alibaba", "Alibaba", r"^(qwen|qwq|qvq|tongyi)"),
    ("alibaba-cn", "Alibaba", r"^(qwen|qwq|qvq|tongyi)"),
    ("moonshotai", "Moonshot AI", r"^kimi"),
    ("zhipuai", "Zhipu AI", r"^glm"),
    ("llama", "Meta", r"^llama"),
    ("minimax", "MiniMax", r"^minimax"),
    ("cohere", "Cohere", None),
    ("perplexity", "Perplexity", r"^sonar"),
    ("inception", "Inception", r"^mercury"),
    ("xiaomi", "Xiaomi", r"^mimo"),
    ("stepfun", "StepFun", r"^step"),
    ("upstage", "Upstage", r"^solar"),
    ("watsonx", "IBM", r"^granite"),
    ("nova", "Amazon", r"^nova"),
    ("bailing", "InclusionAI", r"^(ling|ring)"),
    ("sensenova", "SenseTime", r"^sensenova"),
    ("poolside", "Poolside", r"^(laguna|malibu|point)"),
    ("sakana", "Sakana AI", None),
)
PLANS = frozenset(
    {
        "zai-coding-plan",
        "kimi-for-coding",
        "tencent-coding-plan",
        "alibaba-token-plan-cn",
        "xiaomi-token-plan-cn",
        "stepfun-step-plan",
    }
)
"""Makers' subscription routes: their ids are plan aliases ('k3', 'glm-5.3-highspeed')."""
_RANK = {provider: rank for rank, (provider, _, _) in enumerate(MAKERS)}
_ORG = {provider: org for provider, org, _ in MAKERS}
_OWN = {provider: re.compile(rx) for provider, _, rx in MAKERS if rx}
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")

RESELLER = "reseller row (release dates from the maker's rows only)"
PLAN = "maker's subscription-plan route (coding / token plan), not its model listing"
RESOLD = "another maker's model on a maker's own API"
SECOND_CHANNEL = "model already dated by its maker's preferred channel (first kept)"
NO_DATE = "no release date"
MONTH_ONLY = "release date is a month (YYYY-MM), not a day"
NEW_YEAR = "release date is 1 January (a year placeholder, not a day)"
TOO_OLD = f"release date before {EARLIEST[:4]}"


def too_new(copy_date: str) -> str:
    """Drop reason for a date after the copy's own date."""
    return f"release date after the copy's date ({copy_date})"


def read_registry(path: Path) -> tuple[str, dict[str, object]]:
    """(copy date, ``models`` object) of the registry; IngestError naming the file otherwise."""
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise IngestError(f"{path}: expected an object with a 'models' object; fix: {RESTORE}")
    copy_date = data.get("updated_at")
    if not isinstance(copy_date, str) or not _valid_day(copy_date):
        raise IngestError(f"{path}: updated_at={copy_date!r}; expected YYYY-MM-DD; fix: {RESTORE}")
    return copy_date, data["models"]


def _valid_day(text: str) -> bool:
    if not _DAY.match(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _split(path: Path, key: str, row: object) -> tuple[str, str]:
    """(provider, model id) of a row, checked against the row's own ``provider`` field."""
    provider = row.get("provider") if isinstance(row, dict) else None
    if not isinstance(provider, str) or not key.startswith(provider + "/"):
        raise IngestError(
            f"{path}: row {key!r} is not an object whose provider prefixes its key; fix: {RESTORE}"
        )
    return provider, key[len(provider) + 1 :]


def release_day(path: Path, key: str, row: dict, copy_date: str, drops: Drops) -> str | None:
    """The row's release day, or None (counted) when it states none, a month or an
    implausible day; IngestError for a value that is no date at all."""
    value = row.get("release_date")
    if value is None or value == "":
        drops.add(SOURCE, NO_DATE)
        return None
    if isinstance(value, str) and _MONTH.match(value):
        drops.add(SOURCE, MONTH_ONLY)
        return None
    if not isinstance(value, str) or not _valid_day(value):
        raise IngestError(
            f"{path}: row {key!r} has release_date={value!r}; expected YYYY-MM-DD or YYYY-MM"
        )
    if value.endswith("-01-01"):
        drops.add(SOURCE, NEW_YEAR)
        return None
    if value < EARLIEST:
        drops.add(SOURCE, TOO_OLD)
        return None
    if value > copy_date:
        drops.add(SOURCE, too_new(copy_date))
        return None
    return value


def _context(row: dict) -> int | None:
    value = row.get("context_window")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return int(value) if value > 0 and value == int(value) else None


def _candidate(path: Path, key: str, row: object, drops: Drops) -> tuple[str, str] | None:
    """(provider, model id) of a maker's own row, else None (counted)."""
    provider, model = _split(path, key, row)
    if provider not in _RANK:
        drops.add(SOURCE, PLAN if provider in PLANS else RESELLER)
        return None
    own = _OWN.get(provider)
    if own is not None and not own.search(model):
        drops.add(SOURCE, RESOLD)
        return None
    return provider, model


def load(folder: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per dated maker-row model, in file order of the kept rows."""
    path = folder / FILENAME
    copy_date, rows = read_registry(path)
    chosen: dict[str, tuple[int, int, str, str, str]] = {}
    for order, (key, row) in enumerate(rows.items()):
        found = _candidate(path, key, row, drops)
        if found is None:
            continue
        provider, model = found
        day = release_day(path, key, row, copy_date, drops)
        if day is None:
            continue
        pick = (_RANK[provider], order, key, provider, day)
        if model in chosen:
            drops.add(SOURCE, SECOND_CHANNEL)
            chosen[model] = min(chosen[model], pick)
        else:
            chosen[model] = pick
    models = []
    for model, (_, _, key, provider, day) in sorted(chosen.items(), key=lambda kv: kv[1][1]):
        row = rows[key]
        open_weights = row.get("open_weights")
        models.append(
            ModelObs(
                name=model,
                source=SOURCE,
                organisation=_ORG[provider],
                release_date=day,
                release_date_basis=None,
                context_length=_context(row),
                open_weights=open_weights if isinstance(open_weights, bool) else None,
                metadata_source_url=TOML_URL.format(provider=provider, model=model),
            )
        )
    return models
