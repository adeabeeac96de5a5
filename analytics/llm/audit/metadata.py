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
"""

from __future__ import annotations

import pandas as pd

from analytics.llm.audit import Finding
from analytics.llm.ingest.dated import release_for_snapshot
from analytics.llm.ingest.families import moe_by_name, org_key

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
