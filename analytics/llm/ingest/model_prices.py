"""Importer for the model-prices price history (``model-prices/<date>/snapshot.json``, PyPI
package model-prices 0.0.5, upstream github.com/wakamex/model-prices, MIT; derived from models.dev
with sourced corrections). Prices are the model makers' published API list prices in USD per 1M
tokens; each history entry links its evidence (``rates.source``).

Metadata only: ``load(folder, drops) -> list[ModelObs]``, one per (maker's own provider, model).

Shape read: ``prices{provider{model{tier: [{start, rates{input, output, source, valid_from,
valid_from_basis, tiers?}}]}}}``. Only the ``standard`` tier is read (batch, flex, fast and
thinking tiers are other products), and within it the BASE context tier: ``rates.input`` /
``rates.output``, the price below the first ``rates.tiers[].above`` token threshold (e.g. Gemini
2.5 Pro's <=200k price). Cache prices are ignored.

The current price: the last entry whose ``start`` (a null ``start`` is the open beginning of the
history) is on or before the snapshot day (``updated_at``, else the folder name). Later entries
often repeat the same input/output price with a new record (a models.dev commit that changed
another field), so ``price_date`` is the first day of the unbroken run of entries with that same
input and output price: its ``start``, or ``valid_from`` (the first record) where ``start`` is
null; always YYYY-MM-DD. For a model already listed when the history begins (models.dev's first
records, 2025-06-04..18) that first record's day is only the earliest attested one, not the day
the price was set. ``price_source_url`` is the latest ``documented`` source of that run (the
maker's pricing page or announcement), else the current entry's source (often a models.dev
commit); an entry with no http(s) link is dropped and counted.

Makers: ``MAKERS`` names each provider's organisation and, where the provider also resells
other makers' models (Alibaba selling GLM, Mistral selling GLM, Volcengine selling DeepSeek, ...),
the pattern its own model keys match; the other rows are counted as resold. A provider not in
``MAKERS`` is counted as a reseller. ``name`` is the key as the maker spells it, less a routing
prefix naming the provider itself ("poolside/laguna-m.1" -> "laguna-m.1") and less Bedrock's
cross-region profile prefixes ("us.amazon.nova-pro-v1:0" -> "amazon.nova-pro-v1:0"; the first
row of a name is kept, repeats counted). The snapshot carries no modality, so embedding or speech
keys are kept: build attaches metadata only to models that exist; ``status`` is not read either
(a removed model keeps its last list price). A model free on both sides is dropped, a single
zero price left empty, both counted; a non-numeric or negative price is an IngestError naming
the file and the entry.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, parse_number, read_source_json

SOURCE = "model-prices"
FILENAME = "snapshot.json"
FOLDER = "model-prices/2026-10-26"
"""The stored snapshot, relative to ../shared/data."""
TIER = "standard"
PAIR = ("input", "output")

# provider -> (organisation, regex the maker's own keys match or None for "all").
MAKERS: dict[str, tuple[str, str | None]] = {
    "openai": ("OpenAI", None),
    "anthropic": ("Anthropic", r"^claude"),
    "google": ("Google", r"^(gemini|gemma|deep-research)"),
    "mistral": ("Mistral AI", r"^(?!zai-|glm|deepseek)"),
    "deepseek": ("DeepSeek", None),
    "xai": ("xAI", None),
    "cohere": ("Cohere", None),
    "ai21": ("AI21 Labs", None),
    "zai": ("Zhipu AI", None),
    "moonshotai": ("Moonshot AI", None),
    "alibaba": ("Alibaba", r"^(qwen|qwq|qvq)"),
    "minimax": ("MiniMax", None),
    "nova": ("Amazon", None),
    "amazon-bedrock": ("Amazon", r"^amazon\."),
    "meta": ("Meta", None),
    "volcengine": ("ByteDance", r"^doubao"),
    "byteplus": ("ByteDance", r"^(dola-)?seed"),
    "tencent-tokenhub": ("Tencent", r"^(hy|hunyuan)"),
    "perplexity": ("Perplexity", r"^(sonar|pplx-|r1-1776)"),
    "xiaomi": ("Xiaomi", r"^mimo"),
    "inception": ("Inception", None),
    "stepfun-ai": ("StepFun", r"^step"),
    "upstage": ("Upstage", r"^solar"),
    "arcee": ("Arcee AI", r"^trinity"),
    "bailing": ("InclusionAI", r"^(ling|ring)"),
    "longcat": ("Meituan", r"^longcat"),
    "sensenova": ("SenseTime", r"^sensenova"),
    "sakana": ("Sakana AI", None),
    "poolside": ("Poolside", r"^laguna"),
    "thinkingmachines": ("Thinking Machines Lab", r"^inkling"),
    "cognition": ("Cognition", None),
    "cursor": ("Cursor", r"^composer"),
}
_OWN = {p: re.compile(rx, re.IGNORECASE) for p, (_, rx) in MAKERS.items() if rx}
_REGION = re.compile(r"^(us|eu|apac|ap|ca|jp|au|us-gov|global|regional)\.(?=amazon\.)")

RESELLER = "provider is a reseller or host, not a model maker's own API"
RESOLD = "another maker's model resold by a maker's API"
FINE_TUNE = "fine-tuning (peft) price, not inference"
NO_TIER = "no standard tier (batch/fast/thinking prices only)"
WITHDRAWN = "no standard price on the snapshot day (withdrawn)"
REPEAT = "name already priced by an earlier row of its maker (first kept)"
NO_URL = "price entry without an http(s) source link"
ZERO_PRICE = "one price is zero (e.g. embeddings' output): that price left empty"
FREE = "free: zero input and output price"


def usd_per_mtok(path: Path, where: str, value: object) -> float | None:
    """A price in USD per 1M tokens (number or decimal string); None when absent; IngestError
    naming the file and the entry when it is not a finite number >= 0."""
    if value is None:
        return None
    number = None if isinstance(value, bool) else parse_number(value)
    if number is None or not math.isfinite(number) or number < 0:
        raise IngestError(
            f"{path}: {where} is {value!r}; expected USD per 1M tokens >= 0; "
            "fix: restore the file from its source"
        )
    return number


def day(stamp: object) -> str | None:
    """YYYY-MM-DD of an ISO timestamp or date, else None."""
    text = str(stamp or "")[:10]
    return text if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else None


def snapshot_day(path: Path, data: dict) -> str:
    """The snapshot's day: ``updated_at``, else a folder named YYYY-MM-DD."""
    found = day(data.get("updated_at")) or day(path.parent.name)
    if found is None:
        raise IngestError(f"{path}: no updated_at and the folder is not named YYYY-MM-DD")
    return found


def model_name(provider: str, key: str) -> str:
    """The key less a prefix naming its own provider and less a Bedrock region prefix."""
    name = key
    while name.lower().startswith(provider + "/"):
        name = name[len(provider) + 1 :]
    return _REGION.sub("", name)


def _current(
    path: Path, where: str, entries: list, as_of: str
) -> tuple[float | None, float | None, str | None, str | None] | None:
    """(input, output, price_date, source url) of the price in force on ``as_of``; None when
    none is (the entry in force has no rates)."""
    rows = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise IngestError(f"{path}: {where}[{i}] is not an object; restore the file")
        start = day(entry.get("start"))
        if start is None or start <= as_of:
            rows.append((i, entry.get("rates")))
    if not rows or not isinstance(rows[-1][1], dict):
        return None

    def pair(i: int, rates: dict) -> tuple[float | None, ...]:
        return tuple(usd_per_mtok(path, f"{where}[{i}].{k}", rates.get(k)) for k in PAIR)

    now = pair(*rows[-1])
    run = [rows[-1]]
    for i, rates in reversed(rows[:-1]):
        if not isinstance(rates, dict) or pair(i, rates) != now:
            break
        run.append((i, rates))
    first_i, first = run[-1]
    since = day(entries[first_i].get("start")) or day(first.get("valid_from"))
    documented = [r for _, r in run if r.get("valid_from_basis") == "documented"]
    url = str((documented or [run[0][1]])[0].get("source") or "")
    return now[0], now[1], since, url if url.startswith(("https://", "http://")) else None


def load(folder: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per maker's own (provider, model) with its current standard price, in
    ``MAKERS`` order then file order."""
    path = folder / FILENAME
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("prices"), dict):
        raise IngestError(f"{path}: expected an object with a 'prices' object; restore the file")
    as_of = snapshot_day(path, data)
    prices = data["prices"]
    for provider, models in prices.items():
        if not isinstance(models, dict):
            raise IngestError(f"{path}: prices.{provider} is not an object; restore the file")
        if provider not in MAKERS:
            drops.add(SOURCE, RESELLER, len(models))
    out: list[ModelObs] = []
    seen: set[tuple[str, str]] = set()
    for provider in (p for p in MAKERS if p in prices):
        org = MAKERS[provider][0]
        for key, tiers in prices[provider].items():
            name = model_name(provider, key)
            own = _OWN.get(provider)
            if own is not None and not own.search(name):
                drops.add(SOURCE, RESOLD)
                continue
            if ":peft:" in name:
                drops.add(SOURCE, FINE_TUNE)
                continue
            entries = tiers.get(TIER) if isinstance(tiers, dict) else None
            if not isinstance(entries, list) or not entries:
                drops.add(SOURCE, NO_TIER)
                continue
            found = _current(path, f"prices.{provider}.{key}.{TIER}", entries, as_of)
            if found is None:
                drops.add(SOURCE, WITHDRAWN)
                continue
            if (org, name.lower()) in seen:
                drops.add(SOURCE, REPEAT)
                continue
            usd_in, usd_out, since, url = found
            if url is None:
                drops.add(SOURCE, NO_URL)
                continue
            seen.add((org, name.lower()))
            if usd_in == 0 and usd_out == 0:
                drops.add(SOURCE, FREE)
                continue
            if 0 in (usd_in, usd_out):
                drops.add(SOURCE, ZERO_PRICE)
                usd_in, usd_out = (None if p == 0 else p for p in (usd_in, usd_out))
            out.append(
                ModelObs(
                    name=name,
                    source=SOURCE,
                    organisation=org,
                    usd_per_mtok_input=usd_in,
                    usd_per_mtok_output=usd_out,
                    price_source_url=url,
                    price_date=since,
                )
            )
    return out
