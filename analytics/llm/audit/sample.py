"""A random sample of checkable models, each fact re-read from its maker's own repository config.

``python -m analytics audit sample [--n 40] [--seed S] [--catalog DIR]``. A model is checkable
when its weights repository is in its maker's Hub namespace (``models_table.maker_namespace``)
and llmfit 1.1.17's Hub table (``../shared/data/llmfit-1.1.17/hf_models.json``) holds that
repository's config. Per model, each fact the config states is compared with the catalog:

- parameters: the config's exact count against ``total_params_b`` (within
  :data:`PARAMS_TOLERANCE`; a whole number within :data:`ROUNDED_TOLERANCE` is a rounded size,
  counted apart; a quantised upload's packed count or a rounded count in the table states none);
- layers, KV heads and head dim: equal;
- mixture of experts: the config's stated expert count against ``is_moe`` (unknown is counted
  apart, never as right; a config without the count states nothing);
- open weights: the maker's repository exists, so ``open_weights`` must be true;
- licence: the licence class (``analytics.core.licences``) of the repository's licence against
  the catalog's.

Release dates and context lengths are not checked: the table's dates are repository creation days
and its context falls back to 4096 (docs/data.md). The printout lists each wrong or unknown fact
with both values, then the counts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analytics.core.licences import licence_class
from analytics.llm.ingest import llmfit
from analytics.llm.ingest.models_table import maker_namespace

PARAMS_TOLERANCE = 0.02
"""Relative difference allowed between the config's exact count and the catalog's (publishers
round: 7.24B written 7.2)."""
ROUNDED_TOLERANCE = 0.05
"""A whole number of billions within this of the exact count is the maker's rounded size (Qwen2.5
3B: 3.09B in its config), reported apart, neither right nor wrong."""
RIGHT, WRONG, UNKNOWN, ROUNDED = "right", "wrong", "unknown", "rounded"
OUTCOMES = (RIGHT, ROUNDED, WRONG, UNKNOWN)


@dataclass(frozen=True)
class Check:
    model_id: str
    fact: str
    catalog: object
    maker: object
    outcome: str  # one of OUTCOMES (UNKNOWN: the catalog does not state what the maker does)

    def line(self) -> str:
        return (f"{self.outcome:<7} {self.model_id}: {self.fact}: catalog {self.catalog!r}, "
                f"maker's config {self.maker!r}")


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value)) or str(value) == ""


def _flag(value: object) -> bool | None:
    return None if _blank(value) else str(value).strip().lower() in ("true", "1")


def configs(path: Path) -> dict[str, dict]:
    """Repository id (lower case) -> its entry in the Hub table."""
    return {e["name"].lower(): e for e in llmfit.read_models(path)}


def checkable(models: pd.DataFrame, hub: dict[str, dict]) -> list[dict]:
    """One row per checkpoint (its default variant first) whose maker's repository is in the
    Hub table, sorted by checkpoint id."""
    rows = models.sort_values(["checkpoint_id", "variant"]).drop_duplicates("checkpoint_id")
    out = []
    for row in rows.to_dict("records"):
        repo = str(row.get("weights_repo") or "")
        if repo.lower() in hub and maker_namespace(repo, row.get("organisation")):
            out.append(row)
    return out


def _compare(model_id: str, fact: str, mine: object, theirs: object, same: bool) -> Check:
    outcome = UNKNOWN if _blank(mine) else (RIGHT if same else WRONG)
    return Check(model_id, fact, None if _blank(mine) else mine, theirs, outcome)


def check(row: dict, entry: dict) -> list[Check]:
    """Every fact of one catalog row that its maker's config (``entry``) states."""
    model_id = row["checkpoint_id"]
    obs = llmfit.config_obs(entry, frozenset())
    out = []
    if obs.total_params_b and not llmfit.quantised(entry) and (
            entry.get("parameters_raw") or 0) % llmfit.ROUNDED:
        mine = None if _blank(row.get("total_params_b")) else float(row["total_params_b"])
        gap = None if mine is None else abs(mine - obs.total_params_b) / obs.total_params_b
        found = _compare(model_id, "parameters (B)", mine, round(obs.total_params_b, 3),
                         gap is not None and gap <= PARAMS_TOLERANCE)
        if found.outcome == WRONG and mine == int(mine) and gap <= ROUNDED_TOLERANCE:
            found = Check(model_id, found.fact, mine, found.maker, ROUNDED)
        out.append(found)
    for fact in llmfit.SHAPE_FIELDS:
        theirs = getattr(obs, fact)
        if theirs is not None:
            mine = None if _blank(row.get(fact)) else int(float(row[fact]))
            out.append(_compare(model_id, fact, mine, theirs, mine == theirs))
    experts = entry.get("num_experts")
    if isinstance(experts, int) and not isinstance(experts, bool):
        # only a stated expert count: the table leaves it out for some mixtures (granitemoe)
        mine = _flag(row.get("is_moe"))
        out.append(_compare(model_id, "mixture of experts", mine, experts > 1,
                            mine == (experts > 1)))
    mine = _flag(row.get("open_weights"))
    out.append(_compare(model_id, "open weights", mine, True, mine is True))
    if entry.get("license"):
        theirs = licence_class(entry["license"])
        mine = None if _blank(row.get("licence_raw")) else licence_class(row["licence_raw"])
        out.append(_compare(model_id, "licence class", mine, theirs, mine == theirs))
    return out


def sample(models: pd.DataFrame, hub: dict[str, dict], n: int, seed: int) -> list[list[Check]]:
    """The checks of ``n`` checkable models drawn with ``random.Random(seed)``."""
    pool = checkable(models, hub)
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    return [check(row, hub[str(row["weights_repo"]).lower()]) for row in picked]


def report(checked: list[list[Check]]) -> list[str]:
    """Wrong and unknown facts, one per line, then the counts."""
    flat = [c for checks in checked for c in checks]
    lines = [c.line() for c in flat if c.outcome != RIGHT]
    wrong_models = sum(any(c.outcome == WRONG for c in checks) for checks in checked)
    counts = {o: sum(c.outcome == o for c in flat) for o in OUTCOMES}
    lines.append(
        f"{len(checked)} models, {len(flat)} facts: {counts[RIGHT]} right, {counts[ROUNDED]} a "
        f"rounded size, {counts[WRONG]} wrong, {counts[UNKNOWN]} unknown in the catalog; "
        f"{wrong_models} models with a wrong fact"
    )
    return lines
