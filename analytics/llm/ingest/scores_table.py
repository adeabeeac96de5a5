"""The scores table (scores.csv): every score observation checked (a curated benchmark, within
its bounds, one http(s) link, the protocol rules, the override rows), one row per primary key
(a newer export of the same publisher first, else the newest), copied base-model rows and
draw-only benchmarks dropped; every drop counted."""

from __future__ import annotations

import re

from analytics.core import schema
from analytics.llm.ingest.attachments import COPIED, copied_base_rows
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError, ScoreObs, day_of, iso_day
from analytics.llm.ingest.identity import default_variant
from analytics.llm.ingest.overrides import Overrides
from analytics.llm.ingest.protocols import (
    EXCLUDED_BENCHMARKS,
    KNOWN_BAD,
    METHOD_DIFFERS,
    draw_only,
    method_conflict,
    system_drop_reason,
)

_URL = re.compile(r"^https?://[^\s/]+\.[^\s/]+(/\S*)?$")


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
            what = f"benchmark {obs.benchmark_id!r} is not curated"
            raise IngestError(obs.origin, what, "add it to benchmarks.csv or benchmarks/*.csv")
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
            "date": iso_day(obs.date),
            "method": obs.method,
            "votes": obs.votes,
            "ci_low": obs.ci_low,
            "ci_high": obs.ci_high,
            "origin": label,  # not a column: feeds the sources table
            "moved": bool(rule),  # not a column: an override row placed it (release rule)
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


BEFORE_RELEASE_DAYS = 31
"""A score dated more than this before its checkpoint's stated release cannot be of that
checkpoint (an earlier snapshot's or a preview's number repeated for it); the slack covers
sources that date a result by its month or by the report that preceded the public weights."""
BEFORE_RELEASE = (f"dated more than {BEFORE_RELEASE_DAYS} days before the checkpoint's stated "
                  "release (an earlier snapshot's or a preview's result)")


def refuse_before_release(rows: list[dict], models: list[dict], drops: Drops) -> list[dict]:
    """``rows`` less the scores dated more than :data:`BEFORE_RELEASE_DAYS` before their
    model's stated release day (a proxy day, such as a first-seen or submission day, is no
    release and refuses nothing; a row citing the model's own weights repository is its
    maker's card of these weights, and a row an override moved here was placed by a curated row
    citing its source: both kept); each refusal counted under its source."""
    released = {
        m["model_id"]: day for m in models
        if not m.get("release_date_basis") and (day := day_of(m.get("release_date")))
    }
    own_card = {m["model_id"]: _card(m["weights_repo"]) for m in models if m.get("weights_repo")}
    kept = []
    for row in rows:
        release, day = released.get(row["model_id"]), day_of(row.get("date"))
        if row.get("moved") or own_card.get(row["model_id"]) == _card(row.get("source_url")):
            # an override row placed it on this model, citing its source; or the maker's card
            # of these very weights (a pre-release run of them)
            kept.append(row)
            continue
        if release and day and (release - day).days > BEFORE_RELEASE_DAYS:
            drops.add(row["origin"], BEFORE_RELEASE)
            continue
        kept.append(row)
    return kept


def _card(repo_or_url: object) -> str:
    """A Hugging Face repository as its page's URL, lower case, no trailing slash."""
    text = str(repo_or_url or "").strip().rstrip("/").lower()
    return text if text.startswith("https://") else f"https://huggingface.co/{text}"




_EFFORT = re.compile(
    r"\b(?:o\d+(?:-mini|-pro)?|gpt-[\w.]+)[- ](minimal|low|medium|high|xhigh)\b"
    r"|\b(minimal|low|medium|high|xhigh)[- ](?:reasoning[- ])?effort\b"
    r"|\breasoning[_ ]effort[ =:]+(minimal|low|medium|high|xhigh)\b",
    re.IGNORECASE,
)
_TOOLS = re.compile(r"\bwith (?:a |the )?(?:python|code execution|tools?|browsing|search)\b",
                    re.IGNORECASE)
TOOL_CATEGORIES = frozenset({"agentic"})
"""Benchmark categories whose protocol is to use tools (BrowseComp browses, tau-bench calls
tools): a tool run elsewhere (AIME 'with python tool') is another setting than the board's."""
WITH_TOOLS = "method states tools the benchmark's protocol does not use (another setting)"
OTHER_EFFORT = "method states a reasoning effort the catalog has no variant for"
MOVED_EFFORT = "method states another reasoning effort: moved to that variant (counted, kept)"


def stated_effort(method: str | None) -> str | None:
    """The reasoning effort a method text names ('o3-mini high', 'accuracy (o4-mini-high)',
    'high reasoning effort'), lower case, or None."""
    found = _EFFORT.search(method or "")
    return next((g.lower() for g in found.groups() if g), None) if found else None


def settle_settings(
    rows: list[dict], models: list[dict], categories: dict[str, str], drops: Drops
) -> list[dict]:
    """A row whose method states tools off its benchmark's protocol leaves the rating; one that
    states a reasoning effort other than its model's setting moves to that effort's variant
    of the checkpoint when the catalog has it (unless that variant has its own row there), else
    leaves; every such row counted."""
    by_id = {m["model_id"]: m for m in models}
    variants = {(m["checkpoint_id"], m["variant"]): m["model_id"] for m in models}
    taken = {(r["model_id"], r["benchmark_id"], r["source_name"]) for r in rows}
    kept = []
    for row in rows:
        method = row.get("method") or ""
        if _TOOLS.search(method) and categories.get(row["benchmark_id"]) not in TOOL_CATEGORIES:
            drops.add(row["origin"], WITH_TOOLS)
            continue
        effort, model = stated_effort(method), by_id.get(row["model_id"])
        if effort and model:
            setting = model["variant"]
            if setting == "default":
                setting = default_variant(model["checkpoint_id"]) or "default"
            if effort != setting:
                target = variants.get((model["checkpoint_id"], effort))
                if target is None or (target, row["benchmark_id"], row["source_name"]) in taken:
                    drops.add(row["origin"], OTHER_EFFORT)
                    continue
                drops.add(row["origin"], MOVED_EFFORT)
                row = {**row, "model_id": target}
                taken.add((target, row["benchmark_id"], row["source_name"]))
        kept.append(row)
    return kept
