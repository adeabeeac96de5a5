"""Importer for pydantic's genai-prices table (``genai-prices/<version>/providers.json``: the
``providers`` list of genai_prices/data.py from PyPI package genai-prices 0.2.5, upstream
github.com/pydantic/genai-prices, MIT, converted to JSON: each constructor call is
``{"__type__": Class, field: value}``, Decimal a string, a date YYYY-MM-DD). Prices are the
providers' published API list prices in USD per 1M tokens.

Metadata only: ``load(folder, drops) -> list[ModelObs]``, one per model of a maker's own API.

Read per ``Provider``: ``id``, ``pricing_urls`` (the first one is ``price_source_url``; a
provider without an http(s) one has its models dropped and counted) and ``models`` (ModelInfo:
``id``, ``prices``). ``prices`` is one ModelPrice or a list of ConditionalPrice; as genai-prices
itself does, the list is tried last to first and the first entry whose constraint holds on
``AS_OF`` wins (no constraint always holds; none holding -> the first entry).
StartDateConstraint holds from its ``start_date``; TimeOfDateConstraint entries (DeepSeek's
daily peak windows) are skipped, so the price outside the daily windows is taken (the same rate
model-prices lists as standard) and the model is counted. ``price_date`` is the ``start_date`` of
the price taken; an unconstrained price carries no date and leaves it empty. ``price_variants``
(batch, flex, priority) are other products and ignored.

``input_mtok`` / ``output_mtok`` are a decimal string or TieredPrices ``{base, tiers[{start,
price}]}``: the BASE tier is taken (the price below the first token threshold, e.g. <=200k).
A ModelPrice with neither (image, audio or per-request pricing) is dropped and counted; a model
with one side only (embeddings: input only) keeps that side. Zero prices: as in model_prices.

Makers: ``MAKERS`` lists the providers that are a model maker's own API, in preference order
(``zai`` before ``zhipuai``, ``openai`` before ``openai-decisions``), each with its organisation
and, where it also resells other makers' models (Claude on Vertex AI, Grok in Cursor, GLM on
Mistral), the pattern its own ids match; others' models are counted as resold. Every other
provider (openrouter, together, fireworks, azure, the HuggingFace routers, ...) is counted as a
reseller. ``name`` is the ModelInfo id as given, less a prefix naming the provider
("perplexity/sonar" -> "sonar") and less Bedrock's profile prefixes ("global.amazon.nova-2-lite-
v1:0" -> "amazon.nova-2-lite-v1:0"); a name already kept for the same organisation (any case) is
counted; fine-tune placeholders (``ft:``, ``.ft-``) are counted.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, read_source_json
from analytics.llm.ingest.model_prices import FREE, RESELLER, RESOLD, ZERO_PRICE, usd_per_mtok

SOURCE = "genai-prices"
FILENAME = "providers.json"
VERSION = "0.2.5"
FOLDER = f"genai-prices/{VERSION}"
"""The stored copy, relative to ../shared/data (0.2.5 adds prices that start up to 2026-11-19:
GPT-6.2 Sol and Astra, Gemini 4 Carbon, Hydrogen and Neon)."""
AS_OF = "2026-11-19"
"""The newest price start date in 0.2.5 that had begun when it was published (later ones,
2026-12-01, 2027-01-01 and 2027-03-01, are announced changes): prices are read as in force that
day."""

# provider id -> (organisation, regex the maker's own ids match or None for "all").
MAKERS: dict[str, tuple[str, str | None]] = {
    "openai": ("OpenAI", None),
    "openai-decisions": ("OpenAI", None),
    "anthropic": ("Anthropic", r"^claude"),
    "google": ("Google", r"^(gemini|gemma)"),
    "mistral": ("Mistral AI", r"^(?!zai-|glm|deepseek)"),
    "deepseek": ("DeepSeek", None),
    "x-ai": ("xAI", None),
    "cohere": ("Cohere", None),
    "zai": ("Zhipu AI", None),
    "zhipuai": ("Zhipu AI", None),
    "moonshotai": ("Moonshot AI", None),
    "minimax": ("MiniMax", None),
    "meta": ("Meta", None),
    "aws": ("Amazon", r"^amazon\."),
    "perplexity": ("Perplexity", r"^(sonar|pplx-|r1-1776|llama-3\.1-sonar)"),
    "arcee": ("Arcee AI", r"^trinity"),
    "cursor": ("Cursor", r"^composer"),
    "typesafe": ("TypeSafe", r"^jev"),
    "voyageai": ("Voyage AI", None),
    "elevenlabs": ("ElevenLabs", None),
}
_OWN = {p: re.compile(rx, re.IGNORECASE) for p, (_, rx) in MAKERS.items() if rx}
_PROFILE = re.compile(r"^(us|eu|apac|ap|ca|jp|au|global|regional)\.(?=amazon\.)")

NO_URL = "provider without an http(s) pricing URL"
NO_TOKEN_PRICE = "no input or output price per token (image, audio or request pricing)"
FINE_TUNE = "fine-tune placeholder (ft:...)"
REPEAT = "name already priced by its maker's preferred provider (first kept)"
TIME_OF_DAY = "daily peak-hour price windows ignored: the rest-of-day price kept"


def _typed(path: Path, where: str, value: object, kind: str) -> dict:
    if not isinstance(value, dict) or value.get("__type__") != kind:
        raise IngestError(f"{path}: {where} is not a {kind}; restore the file from its source")
    return value


def base_price(path: Path, where: str, value: object) -> float | None:
    """USD per 1M tokens: a decimal string, or the base of a TieredPrices."""
    if isinstance(value, dict):
        value = _typed(path, where, value, "TieredPrices").get("base")
        where += ".base"
    return usd_per_mtok(path, where, value)


def price_in_force(path: Path, where: str, prices: object) -> tuple[dict, str | None, bool]:
    """(ModelPrice in force on AS_OF, its start date or None, whether daily windows were
    skipped)."""
    if isinstance(prices, dict):
        return _typed(path, where, prices, "ModelPrice"), None, False
    if not isinstance(prices, list) or not prices:
        raise IngestError(f"{path}: {where} is neither a ModelPrice nor a list; restore the file")
    skipped = False
    chosen: tuple[int, str | None] | None = None
    for i in reversed(range(len(prices))):
        entry = _typed(path, f"{where}[{i}]", prices[i], "ConditionalPrice")
        constraint = entry.get("constraint")
        if constraint is None:
            chosen = (i, None)
            break
        kind = constraint.get("__type__") if isinstance(constraint, dict) else None
        if kind == "TimeOfDateConstraint":
            skipped = True
            continue
        start = constraint.get("start_date") if kind == "StartDateConstraint" else None
        if not isinstance(start, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", start):
            raise IngestError(f"{path}: {where}[{i}] has constraint {constraint!r}; restore it")
        if start <= AS_OF:
            chosen = (i, start)
            break
    i, start = chosen or (0, None)
    entry = prices[i]
    return _typed(path, f"{where}[{i}].prices", entry.get("prices"), "ModelPrice"), start, skipped


def model_name(provider: str, model_id: str) -> str:
    """The id less a prefix naming its own provider and less a Bedrock profile prefix."""
    name = model_id
    while name.lower().startswith(provider + "/"):
        name = name[len(provider) + 1 :]
    return _PROFILE.sub("", name)


def _pricing_url(provider: dict) -> str | None:
    urls = provider.get("pricing_urls") or []
    first = urls[0] if isinstance(urls, list) and urls else None
    return first if isinstance(first, str) and first.startswith(("https://", "http://")) else None


def load(folder: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per model of a maker's own API, in ``MAKERS`` order then file order."""
    path = folder / FILENAME
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of Provider objects; restore the file")
    providers: dict[str, dict] = {}
    for i, item in enumerate(data):
        provider = _typed(path, f"providers[{i}]", item, "Provider")
        if not isinstance(provider.get("models"), list):
            raise IngestError(f"{path}: providers[{i}].models is not a list; restore the file")
        if provider.get("id") in MAKERS:
            providers[str(provider["id"])] = provider
        else:
            drops.add(SOURCE, RESELLER, len(provider["models"]))
    out: list[ModelObs] = []
    seen: set[tuple[str, str]] = set()
    for pid in (p for p in MAKERS if p in providers):
        org, models = MAKERS[pid][0], providers[pid]["models"]
        url = _pricing_url(providers[pid])
        if url is None:
            drops.add(SOURCE, NO_URL, len(models))
            continue
        for j, item in enumerate(models):
            where = f"{pid}.models[{j}]"
            info = _typed(path, where, item, "ModelInfo")
            name = model_name(pid, str(info.get("id") or ""))
            own = _OWN.get(pid)
            if own is not None and not own.search(name):
                drops.add(SOURCE, RESOLD)
                continue
            if name.startswith("ft:") or ".ft-" in name:
                drops.add(SOURCE, FINE_TUNE)
                continue
            price, start, skipped = price_in_force(path, f"{where}.prices", info.get("prices"))
            usd_in = base_price(path, f"{where}.prices.input_mtok", price.get("input_mtok"))
            usd_out = base_price(path, f"{where}.prices.output_mtok", price.get("output_mtok"))
            if usd_in is None and usd_out is None:
                drops.add(SOURCE, NO_TOKEN_PRICE)
                continue
            if (org, name.lower()) in seen:
                drops.add(SOURCE, REPEAT)
                continue
            seen.add((org, name.lower()))
            if not usd_in and not usd_out:
                drops.add(SOURCE, FREE)
                continue
            if 0 in (usd_in, usd_out):
                drops.add(SOURCE, ZERO_PRICE)
                usd_in, usd_out = (None if p == 0 else p for p in (usd_in, usd_out))
            if skipped:
                drops.add(SOURCE, TIME_OF_DAY)
            out.append(
                ModelObs(
                    name=name,
                    source=SOURCE,
                    organisation=org,
                    usd_per_mtok_input=usd_in,
                    usd_per_mtok_output=usd_out,
                    price_source_url=url,
                    price_date=start,
                )
            )
    return out
