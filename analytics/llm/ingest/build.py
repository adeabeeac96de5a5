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
    epoch_hardware,
    epoch_stitching,
    gpu_benchmarks,
    litgpt,
    llm_analysis,
    llmfit,
    llmstats,
    lmarena,
    open_llm_leaderboard,
    skypilot,
)
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError, ModelObs, ScoreObs
from analytics.llm.ingest.families import (
    closed_by_name,
    family_and_org,
    moe_by_name,
    org_from_hf,
    params_from_name,
)
from analytics.llm.ingest.identity import ModelRegistry, checkpoint_of, load_curated_aliases

SOURCE_ORDER = ("llmstats", "epoch", "open-llm-leaderboard", "lmarena", "llmfit", "llm-analysis")
FIELD_PRIORITY: dict[str, tuple[str, ...]] = {
    "release_date": ("llmstats", "epoch", "llmfit", "open-llm-leaderboard"),
    "licence_raw": ("llmstats", "open-llm-leaderboard", "llmfit", "lmarena"),
    "total_params_b": ("llmstats", "open-llm-leaderboard", "llmfit"),
    "active_params_b": ("llmfit",),
    "open_weights": ("llmstats", "open-llm-leaderboard", "lmarena", "epoch"),
    "context_length": ("llmstats", "llmfit", "llm-analysis"),
    "vram_q4_gb": ("llmfit",),
    "n_layers": ("llmfit", "llm-analysis"),
    "n_kv_heads": ("llmfit", "llm-analysis"),
    "head_dim": ("llmfit", "llm-analysis"),
    "display_name": ("llmstats", "epoch", "lmarena"),
}
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


def load_sources(shared: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Every model and score observation, in SOURCE_ORDER."""
    models, scores = [], []
    for loader in (
        lambda: llmstats.load(shared / "llmstats", drops),
        lambda: epoch_stitching.load(shared / "epoch-benchmark-stitching", drops),
        lambda: open_llm_leaderboard.load(shared / "llm-leaderboard-csv/huggingface_v2.csv", drops),
        lambda: lmarena.load(shared / "llm-leaderboard-csv/lmarena_text.csv", drops),
    ):
        found_models, found_scores = loader()
        models += found_models
        scores += found_scores
    return models, scores


def resolve_identities(
    registry: ModelRegistry, models: list[ModelObs], scores: list[ScoreObs]
) -> tuple[dict[str, list[ModelObs]], list[tuple[str, ScoreObs]]]:
    """model_id for every observation; weights repo ids of LLM Stats models become aliases."""
    by_model: dict[str, list[ModelObs]] = defaultdict(list)
    for obs in models:
        model_id = registry.resolve(obs.name)
        by_model[model_id].append(obs)
        if obs.source == "llmstats" and obs.hf_id:
            registry.add_alias(obs.hf_id, model_id)
    resolved = [(registry.resolve(s.model_name), s) for s in scores]
    return by_model, resolved


def attach_metadata(registry: ModelRegistry, by_model: dict, extra: list[ModelObs]) -> int:
    """Add metadata-only observations (llmfit, llm-analysis) to models that already exist."""
    attached = 0
    for obs in extra:
        model_id = registry.lookup(obs.name)
        if model_id in by_model:
            by_model[model_id].append(obs)
            attached += 1
    return attached


def _first(observations: list[ModelObs], attr: str) -> object:
    order = FIELD_PRIORITY[attr]
    ranked = sorted(
        (o for o in observations if o.source in order), key=lambda o: order.index(o.source)
    )
    return next((getattr(o, attr) for o in ranked if getattr(o, attr) is not None), None)


def _organisation(model_id: str, observations: list[ModelObs], rule_org: str | None) -> str:
    by_source = {o.source: o.organisation for o in observations if o.organisation}
    if "llmstats" in by_source:
        return by_source["llmstats"]
    if rule_org:
        return rule_org
    if "lmarena" in by_source:
        return by_source["lmarena"]
    if "open-llm-leaderboard" in by_source:
        return org_from_hf(by_source["open-llm-leaderboard"])
    hf = next((o.hf_id for o in observations if o.hf_id and "/" in o.hf_id), None)
    return org_from_hf(hf.split("/")[0]) if hf else "unknown"


WEIGHT_FIELDS = (
    "release_date",
    "total_params_b",
    "active_params_b",
    "open_weights",
    "licence_raw",
    "vram_q4_gb",
    "n_layers",
    "n_kv_heads",
    "head_dim",
    "context_length",
    "metadata_source_url",
)
"""Properties of the weights: reasoning-effort variants inherit them from their checkpoint."""


def stated_row(model_id: str, observations: list[ModelObs], aliases: str) -> dict:
    """One models.csv row with only what sources state (unknowns stay None)."""
    family, rule_org = family_and_org(model_id)
    urls = [o.metadata_source_url for o in observations if o.metadata_source_url]
    meta_url = ";".join(dict.fromkeys(urls)) or None
    row = {
        "model_id": model_id,
        "display_name": _first(observations, "display_name") or model_id,
        "organisation": _organisation(model_id, observations, rule_org),
        "family": family,
        "is_moe": any(o.is_moe for o in observations) or moe_by_name(model_id),
        "checkpoint_id": checkpoint_of(model_id),
        "aliases": aliases or None,
        "metadata_source_url": meta_url,
    }
    for attr in WEIGHT_FIELDS[:-1]:
        row[attr] = _first(observations, attr)
    row["release_date"] = _iso(row["release_date"])
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
    if not row["is_moe"] and total is not None:
        active = total
    row["total_params_b"] = round(total, 3) if total else None
    row["active_params_b"] = round(active, 3) if active else None
    row["is_moe"] = bool(row["is_moe"])
    row["open_weights"] = bool(row["open_weights"])
    return row


def model_rows(by_model: dict, registry: ModelRegistry, model_ids: set[str]) -> list[dict]:
    """models.csv rows for `model_ids`, sorted by id."""
    rows = [stated_row(mid, by_model[mid], registry.alias_string(mid)) for mid in sorted(model_ids)]
    inherit_from_checkpoint(rows)
    return [finish_row(row) for row in rows]


def score_rows(resolved: list[tuple[str, ScoreObs]], drops: Drops) -> list[dict]:
    """Validated, de-duplicated score rows (highest score kept per primary key)."""
    benches = all_benchmarks()
    best: dict[tuple, dict] = {}
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
        row = {
            "model_id": model_id,
            "benchmark_id": obs.benchmark_id,
            "score": round(obs.score, 4),
            "source_kind": obs.source_kind,
            "source_name": obs.source_name,
            "source_url": obs.source_url,
            "date": _iso(obs.date),
        }
        key = tuple(row[c] for c in schema.PRIMARY_KEYS["scores"])
        if key in best:
            drops.add(label, "same model, benchmark and source listed twice (highest kept)")
            if best[key]["score"] >= row["score"]:
                continue
        best[key] = row
    return sorted(
        best.values(), key=lambda r: tuple(str(r[c]) for c in schema.PRIMARY_KEYS["scores"])
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
        row["usd_per_hour"] = price["usd_per_hour"] if price else None
        row["price_source_url"] = price["price_source_url"] if price else None
        row["price_date"] = None
    return sorted(rows, key=lambda r: r["gpu_id"])


def throughput_rows(
    shared: Path, registry: ModelRegistry, models: set[str], gpus: set[str], drops: Drops
) -> list[dict]:
    """throughput.csv rows; a model label becomes the catalog id when the catalog has the model."""
    rows = gpu_benchmarks.load(shared / "gpu-benchmarks-llm-inference/README.md", drops)
    out = []
    for row in rows:
        if row["gpu_id"] not in gpus:
            raise IngestError(f"throughput GPU {row['gpu_id']} missing from gpus_curated.csv")
        label = row.pop("model")
        model_id = registry.lookup(label)
        out.append({"model_id": model_id if model_id in models else label, **row})
    return out


def build(shared: Path) -> Catalog:
    """Run every importer over ``shared`` (shared/data) and return the catalog tables."""
    catalog = Catalog()
    drops = catalog.drops
    registry = ModelRegistry(curated=load_curated_aliases())
    models, scores = load_sources(shared, drops)
    by_model, resolved = resolve_identities(registry, models, scores)
    extra = llmfit.load(shared / "llmfit/hf_models.json")
    extra += llm_analysis.load(shared / "llm-analysis/model_configs")
    attached = attach_metadata(registry, by_model, extra)
    score_table = score_rows(resolved, drops)
    scored = {r["model_id"] for r in score_table}
    model_table = model_rows(by_model, registry, scored)
    used = {r["benchmark_id"] for r in score_table}
    bench_table = [b.as_row() for bid, b in sorted(all_benchmarks().items()) if bid in used]
    gpu_table = gpu_rows(shared, drops)
    catalog.tables = {
        "models": model_table,
        "benchmarks": bench_table,
        "scores": score_table,
        "gpus": gpu_table,
        "throughput": throughput_rows(
            shared, registry, scored, {g["gpu_id"] for g in gpu_table}, drops
        ),
        FINETUNE_TABLE: litgpt.load(shared / "litgpt/resource-tables.md", drops),
    }
    catalog.notes.append(f"metadata-only observations attached to models: {attached}")
    unused = sorted(set(all_benchmarks()) - used)
    if unused:
        catalog.notes.append(
            f"curated benchmarks without scores (not written): {', '.join(unused)}"
        )
    return catalog
