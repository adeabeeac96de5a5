"""Metadata audit: models the board leans on (5 or more scores) whose facts are missing or
contradict themselves.

Findings:

- no release date, or no organisation;
- open weights without a total parameter count (closed models publish none: not a finding);
- a release date before the full snapshot date the model's id writes, or more than a month
  after it (``dated.release_for_snapshot``: an older release's or a refresh's date);
- active parameters above total parameters, or a dense model whose active count differs;
- a name that says mixture of experts (``families.moe_by_name``: '-a3b', '8x7b') on a model
  marked dense;
- one organisation under two spellings (``families.org_key``: 'PrimeIntellect' and 'Prime
  Intellect'), or variants of one checkpoint under different organisations (every model,
  however few its scores: the board's organisation filter reads them all);
- publishers that disagree on a checkpoint's release date or parameter count (ingest's table
  ``disagreements``, ``ingest/consensus.py``), settled there by agreement, rank, the id's own
  date or an override row, else open.

Evidence checks (:func:`evidence_findings`, every model however few its scores; each line names
its evidence):

- a release date that cannot be a release (``dated.refused_release_day``: a placeholder day such
  as the Hub's migration day, or a day before the date the id writes);
- ``is_moe`` false on a model one of whose repositories has a config with experts, and
  ``open_weights`` false on a model whose maker's own repository exists (both read from the
  Hugging Face config table, :class:`HubConfig`, of llmfit 1.1.17);
- an open-weights model with :data:`MIN_SCORES` or more scores without layers or KV heads: settled
  with the reason no public config states them (no repository of it in the table, or its config
  there states none), open when the table has them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analytics.llm.audit import Finding
from analytics.llm.ingest import llmfit
from analytics.llm.ingest.dated import refused_release_day, release_for_snapshot
from analytics.llm.ingest.families import moe_by_name, org_key
from analytics.llm.ingest.models_table import maker_namespace

MIN_SCORES = 5


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value)) or str(value) == ""


def _num(value: object) -> float | None:
    return None if _blank(value) else float(value)


def audit(
    models: pd.DataFrame, scores: pd.DataFrame, unpublished: dict[str, dict[str, str]] | None = None
) -> list[Finding]:
    """Every metadata finding for models with :data:`MIN_SCORES` or more score rows; a missing
    fact that an ``unpublished`` override row documents (model -> field -> reason) is settled
    with that reason, never filled."""
    unpublished = unpublished or {}

    def missing(mid: str, attr: str, what: str) -> Finding:
        reason = unpublished.get(mid, {}).get(attr, "")
        return Finding(mid, what, f"no public source states it: {reason}" if reason else "")

    counts = scores["model_id"].value_counts()
    busy = models[models["model_id"].map(counts).fillna(0) >= MIN_SCORES]
    out = []
    for row in busy.to_dict("records"):
        mid = row["model_id"]
        if _blank(row.get("release_date")):
            out.append(missing(mid, "release_date", "no release date"))
        if _blank(row.get("organisation")) or str(row.get("organisation")).lower() == "unknown":
            out.append(missing(mid, "organisation", "no organisation"))
        if str(row.get("open_weights")) == "true" and _blank(row.get("total_params_b")):
            out.append(missing(mid, "total_params_b", "open weights without a parameter count"))
        out += _date_findings(row)
        if str(row.get("is_moe")) == "false" and moe_by_name(mid):
            out.append(Finding(mid, "the name says mixture of experts, the row says dense"))
        total, active = _num(row.get("total_params_b")), _num(row.get("active_params_b"))
        if total is not None and active is not None:
            if active > total:
                out.append(Finding(mid, f"active parameters {active:g}B above total {total:g}B"))
            elif str(row.get("is_moe")) == "false" and active != total:
                out.append(Finding(mid, f"dense model with {active:g}B of {total:g}B active"))
    return out


def organisation_findings(models: pd.DataFrame) -> list[Finding]:
    """Spellings of one organisation (a joint list of labs, 'A,B', is its own name) and
    checkpoints whose variants name different organisations."""
    spellings: dict[str, set[str]] = {}
    for org in models["organisation"].dropna().astype(str).unique():
        if org and org.lower() != "unknown" and "," not in org:
            spellings.setdefault(org_key(org), set()).add(org)
    out = [
        Finding(" | ".join(sorted(names)), "one organisation, several spellings; fix: "
                "families.ORG_SYNONYMS")
        for names in spellings.values() if len(names) > 1
    ]
    checkpoint = models["checkpoint_id"].where(models["checkpoint_id"].astype(bool),
                                               models["model_id"])
    for cp, orgs in models["organisation"].groupby(checkpoint):
        named = sorted(set(orgs.dropna().astype(str)) - {"", "unknown"})
        if len(named) > 1 or (named and "unknown" in set(orgs)):
            out.append(Finding(str(cp), f"variants name different organisations: "
                               f"{', '.join(sorted(set(orgs.astype(str))))}"))
    return sorted(out, key=lambda f: f.subject)


def disagreement_findings(
    models: pd.DataFrame, scores: pd.DataFrame, disagreements: pd.DataFrame | None
) -> list[Finding]:
    """One finding per disagreement on a checkpoint the board leans on (a variant of it has
    :data:`MIN_SCORES` or more score rows); its ``settled`` text, if any, resolves it."""
    if disagreements is None or disagreements.empty:
        return []
    counts = scores["model_id"].value_counts()
    busy = set(models.loc[models["model_id"].map(counts).fillna(0) >= MIN_SCORES, "checkpoint_id"])
    out = []
    for row in disagreements.to_dict("records"):
        if row["checkpoint_id"] not in busy:
            continue
        what = f"sources disagree on {row['field']} ({row['values']}); shown: {row['value'] or '—'}"
        out.append(Finding(row["checkpoint_id"], what, str(row.get("settled") or "")))
    return out


def _date_findings(row: dict) -> list[Finding]:
    checkpoint = str(row.get("checkpoint_id") or row["model_id"])
    released = str(row.get("release_date") or "") or None
    expected, from_id = release_for_snapshot(checkpoint, released)
    if not released or expected == released:
        return []
    what = f"release date {released}, but the id's snapshot is {expected}"
    return [Finding(row["model_id"], what)]


@dataclass(frozen=True)
class HubConfig:
    """What one repository's config in the Hub table states (None: not stated)."""

    repo: str
    experts: int
    n_layers: int | None
    n_kv_heads: int | None


def hub_configs(path: Path) -> dict[str, HubConfig]:
    """Repository id (lower case) -> its config facts, from llmfit 1.1.17's Hub table."""
    out = {}
    for entry in llmfit.read_models(path):
        obs = llmfit.config_obs(entry, frozenset())
        experts = entry.get("num_experts") if isinstance(entry.get("num_experts"), int) else 0
        out[entry["name"].lower()] = HubConfig(entry["name"], experts, obs.n_layers,
                                               obs.n_kv_heads)
    return out


def _repos(row: dict, hub: dict[str, HubConfig]) -> list[HubConfig]:
    """The Hub table's configs of the repositories the row names (its maker's repository
    first, then its aliases)."""
    names = [str(row.get("weights_repo") or "")] + str(row.get("aliases") or "").split(";")
    found = [hub[n.strip().lower()] for n in names if n.strip().lower() in hub]
    return list({c.repo: c for c in found}.values())


def evidence_findings(
    models: pd.DataFrame, scores: pd.DataFrame, hub: dict[str, HubConfig] | None
) -> list[Finding]:
    """The evidence checks of the module docstring; ``hub`` None (the table is missing) is
    one unresolved line, since the flags cannot be re-checked without it."""
    out = []
    counts = scores["model_id"].value_counts()
    for row in models.to_dict("records"):
        out += _release_day_findings(row)
        repos = _repos(row, hub or {})
        out += _flag_findings(row, repos)
        if counts.get(row["model_id"], 0) >= MIN_SCORES:
            out += _shape_findings(row, repos)
    if hub is None:
        out.append(Finding(llmfit.CONFIGS_FILE, "the Hub config table is missing: is_moe and "
                           "open_weights not re-checked; fix: restore it under ../shared/data"))
    return out


def _release_day_findings(row: dict) -> list[Finding]:
    checkpoint = str(row.get("checkpoint_id") or row["model_id"])
    released = str(row.get("release_date") or "")
    reason = refused_release_day(released, checkpoint) if released else None
    if not reason or release_for_snapshot(checkpoint, released)[0] != released:
        return []  # a full snapshot date in the id is the date check's line
    return [Finding(row["model_id"], f"release date {released} is not a release: {reason}")]


def _flag_findings(row: dict, repos: list[HubConfig]) -> list[Finding]:
    out = []
    mixture = next((c for c in repos if c.experts > 1), None)
    if str(row.get("is_moe")) == "false" and mixture:
        out.append(Finding(row["model_id"], f"marked dense, but the config of {mixture.repo} "
                           f"has {mixture.experts} experts"))
    maker = next((c for c in repos if maker_namespace(c.repo, row.get("organisation"))), None)
    if str(row.get("open_weights")) == "false" and maker:
        out.append(Finding(row["model_id"], f"marked closed, but its maker publishes "
                           f"https://huggingface.co/{maker.repo}"))
    return out


def _shape_findings(row: dict, repos: list[HubConfig]) -> list[Finding]:
    if str(row.get("open_weights")) != "true":
        return []
    if not _blank(row.get("n_layers")) and not _blank(row.get("n_kv_heads")):
        return []
    what = "open weights without layers or KV heads"
    stating = next((c for c in repos if c.n_layers and c.n_kv_heads), None)
    if stating:
        return [Finding(row["model_id"], f"{what}, though the config of {stating.repo} states "
                        f"{stating.n_layers} layers and {stating.n_kv_heads} KV heads")]
    if repos:
        listed = ", ".join(c.repo for c in repos)
        return [Finding(row["model_id"], what, f"no public source states it: the Hub "
                        f"table's config of {listed} has none")]
    return [Finding(row["model_id"], what, "no public source states it: no repository of "
                    "it is in the Hub table (llmfit 1.1.17), and no other source gives them")]
