"""Identity audit: candidate splits of one model across several ids, from independent signals.

Signals (each candidate names the one that found it):

- ``name``: two checkpoints whose names coincide once dates in any spelling (YYYY-MM-DD, YYYYMMDD,
  MMDD, YYMM, MM-YYYY, "Mon 'YY"), host prefixes, release-stage words (preview, exp, latest),
  tuning words (instruct / it / chat / base) and word order are set aside
  (``identity.audit_key``);
- ``size-date``: the same organisation, the same total parameters, released within 31 days, and
  names that share every word but one;
- ``cross-link``: a name one model lists among its aliases is the id or display name of another;
- ``same-scores``: one source gives two checkpoints identical scores on 3 or more benchmarks.

Each candidate pair is then *resolved* by a rule that keeps it apart with its reason (different
snapshot dates, base vs tuned weights, different tunings, an undated product name with several
snapshots) or by a ``distinct-from`` row of ``data/catalog/overrides.csv``; a pair that no rule
and no override resolves is an *unresolved* line, which the tests fail on. A merged pair is not
a candidate any more: it is one id.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from datetime import date

import pandas as pd

from analytics.llm.audit import Finding
from analytics.llm.ingest.crosslinks import BUILD, Facts, sibling_key
from analytics.llm.ingest.identity import (
    audit_key,
    date_of_release,
    dates_agree,
    name_tokens,
    tuning_of,
)

SIZE_DATE_DAYS = 31
SAME_SCORES_MIN = 3


class Candidate(Finding):
    """Two checkpoints that one signal says may be one model (``a``, ``b``: sorted ids)."""

    settled_as = "kept apart"

    def __init__(self, a: str, b: str, signal: str, detail: str, resolution: str = "") -> None:
        super().__init__(f"{a} | {b}", f"[{signal}: {detail}]", resolution)
        object.__setattr__(self, "pair", (a, b, signal))

    @property
    def a(self) -> str:
        return self.pair[0]

    @property
    def b(self) -> str:
        return self.pair[1]

    @property
    def signal(self) -> str:
        return self.pair[2]


def checkpoints(models: pd.DataFrame) -> pd.DataFrame:
    """One row per checkpoint: its id, display name (of the default variant when there is one),
    organisation, release date, total parameters and open-weights flag."""
    frame = models.copy()
    frame["checkpoint_id"] = frame["checkpoint_id"].where(
        frame["checkpoint_id"].astype(str).str.strip() != "", frame["model_id"]
    )
    frame["_default"] = frame["variant"].astype(str) != "default"
    frame = frame.sort_values(["checkpoint_id", "_default", "model_id"], kind="mergesort")
    return frame.drop_duplicates("checkpoint_id").drop(columns="_default").reset_index(drop=True)


def _date(row: dict) -> tuple[tuple | None, bool]:
    """(the checkpoint's date, whether its id writes it): else its release date."""
    _, written = name_tokens(row["checkpoint_id"])
    return (written, True) if written else (date_of_release(row.get("release_date")), False)


def _far_apart(a: tuple, b: tuple) -> bool:
    """Whether a release date and a written date are more than a month apart (a release is
    often announced a day or two after the snapshot it serves)."""

    def day(x: tuple, other: tuple) -> date:
        return date(x[0] or other[0] or 2000, x[1], x[2] or 15)

    return abs((day(a, b) - day(b, a)).days) > SIZE_DATE_DAYS


def _is_open(row: dict) -> bool:
    return str(row.get("open_weights")).lower() == "true"


PRODUCT_WORDS = frozenset({
    "coder", "code", "math", "vl", "vision", "omni", "audio", "mini", "nano", "micro", "think",
    "thinking", "reasoning", "sft", "dpo", "rm", "reward", "guard", "turbo", "online", "alpha",
    "zephyr", "speciale", "zero", "distill", "lite", "flash", "pro", "plus", "max", "long",
    "chat", "search", "deep", "research", "embed", "moe",
})
"""Words that name another product of a line ('coder', 'math', 'vl', 'mini'): never a digit, a
size, a context length or 'open' (those are spellings or need a repository each)."""

APART_KINDS = ("co-listing", "stated-date", "repository", "product-word")
"""The evidence a kept-apart line may cite, in the order tried; a reason without one of them (a
free-text override row alone) settles nothing."""


def word_apart(a: str, b: str) -> str:
    """'product-word: ...' when the names differ only by words of :data:`PRODUCT_WORDS`; ''
    otherwise (a digit, a size or 'open' is no other product)."""
    extra = sorted(set(audit_key(a).split()) ^ set(audit_key(b).split()))
    if extra and all(w in PRODUCT_WORDS for w in extra):
        return f"product-word: the names differ by {', '.join(extra)}"
    return ""


def _dated(row: dict) -> str:
    """Where a checkpoint's date comes from: its id, or its release date and the page stating it."""
    _, written = name_tokens(row["checkpoint_id"])
    if written:
        return "written in the id"
    url = str(row.get("metadata_source_url") or "").split(";")[0].strip()
    return f"release_date, {url}" if url and url != "nan" else "release_date"


def date_apart(a: dict, b: dict) -> str:
    """'stated-date: ...' when the two checkpoints' dates cannot be one snapshot."""
    (da, wa), (db, wb) = _date(a), _date(b)
    if da and db and not dates_agree(da, db) and (wa and wb or _far_apart(da, db)):
        return (f"stated-date: {a['checkpoint_id']} {_show(da)} ({_dated(a)}) vs "
                f"{b['checkpoint_id']} {_show(db)} ({_dated(b)})")
    return ""


def stated_apart(a: str, b: str, stated: dict[str, tuple[str, str]]) -> str:
    """'stated-date: ...' when the sources' stated release dates in the evidence extract (the
    dates the cross-link graph reads, each with its source) are more than a month apart."""
    if a in stated and b in stated:
        (da, sa), (db, sb) = stated[a], stated[b]
        if abs((date.fromisoformat(da) - date.fromisoformat(db)).days) > SIZE_DATE_DAYS:
            return f"stated-date: {a} {da} ({sa}) vs {b} {db} ({sb}) (evidence extract)"
    return ""


def weights_kind(checkpoint: str) -> str:
    """'thinking', 'instruct', 'chat', 'base' or '' as the id writes it."""
    words, _ = name_tokens(checkpoint)
    return "thinking" if {"thinking", "reasoning"} & set(words) else tuning_of(checkpoint)


def repository_apart(a: str, b: str, repos: dict[str, str],
                     tuned: dict[str, str] | None = None) -> str:
    """'repository: ...' when each of the two has a repository of its own and the two differ
    (base vs tuned, or two releases such as a 16K-context one; ``repos``: the evidence
    extract's, each cited as weights by a source or listed by the Hub table), or when one is a
    base whose tuned repository exists beside it (``tuned``) and the other is no base."""
    ka, kb = weights_kind(a), weights_kind(b)
    if a in repos and b in repos and repos[a] != repos[b]:
        return (f"repository: {repos[a]} ({ka or 'no tuning word'}) and {repos[b]} "
                f"({kb or 'no tuning word'}) both exist")
    for base, other in ((a, b), (b, a)):
        if (ka if base == a else kb) == "base" and weights_kind(other) != "base" \
                and base in repos and base in (tuned or {}):
            return (f"repository: {repos[base]} (base) and {tuned[base]} (tuned) both exist; "
                    f"{other} is not the base")
    return ""


def listings(models: pd.DataFrame, scores: pd.DataFrame) -> dict[str, set[str]]:
    """checkpoint -> the publisher rows it has: 'source | benchmark | date | setting'."""
    checkpoint_of = _checkpoint_of(models)
    setting = dict(zip(models["model_id"], models["variant"], strict=True))
    out: dict[str, set[str]] = defaultdict(set)
    dates = scores["date"] if "date" in scores.columns else [""] * len(scores)
    for model_id, bench, source, day in zip(
        scores["model_id"], scores["benchmark_id"], scores["source_name"], dates, strict=True
    ):
        day = "" if pd.isna(day) else str(day)
        out[checkpoint_of.get(model_id, model_id)].add(
            f"{source} | {bench} | {day} | {setting.get(model_id, 'default')}")
    return out


def colisted_apart(a: str, b: str, listed: dict[str, set[str]],
                   extract: dict[frozenset[str], str]) -> str:
    """'co-listing: ...' when one publisher's snapshot has a row of each (same benchmark, date
    and setting; in the scores table or the raw rows of the evidence extract): the publisher
    keeps them apart."""
    both = sorted(listed.get(a, set()) & listed.get(b, set()))
    if both:
        return f"co-listing: both are rows of {both[0]}"
    slot = extract.get(frozenset((a, b)))
    return f"co-listing: both are rows of {slot} (evidence extract)" if slot else ""


def undated_apart(a: dict, b: dict, dated: dict[str, dict[str, tuple]]) -> str:
    """'stated-date: ...' when one name writes no date and its snapshots (ids that write a date
    or a build number, ``dated``: audit key -> {id: its date}) state different dates: which of
    them it is, no source says."""
    x, y = a["checkpoint_id"], b["checkpoint_id"]
    for undated, other in ((x, y), (y, x)):
        snaps = dated.get(sibling_key(undated), {})
        if (name_tokens(undated)[1] is None and not BUILD.search(undated) and other in snaps
                and len(set(snaps.values())) > 1):
            return (f"stated-date: {undated} writes no date; its dated snapshots "
                    f"{', '.join(sorted(snaps))} state different dates")
    return ""


def evidence_apart(a: dict, b: dict, repos: dict[str, str], listed: dict[str, set[str]],
                   extract: dict[frozenset[str], str], dated: dict[str, dict[str, tuple]],
                   tuned: dict[str, str] | None = None,
                   stated: dict[str, tuple[str, str]] | None = None) -> str:
    """The first evidence of :data:`APART_KINDS` that keeps two checkpoints apart ('' none)."""
    x, y = a["checkpoint_id"], b["checkpoint_id"]
    return (colisted_apart(x, y, listed, extract) or date_apart(a, b)
            or stated_apart(x, y, stated or {})
            or undated_apart(a, b, dated) or repository_apart(x, y, repos, tuned)
            or word_apart(x, y))


def _show(date: tuple) -> str:
    y, m, d = date
    return "-".join(p for p in (str(y) if y else "????", f"{m:02d}", f"{d:02d}" if d else "") if p)


def name_candidates(cps: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(a, b, key) for checkpoints whose id or display name share an audit key."""
    groups: dict[str, set[str]] = defaultdict(set)
    for cp, name in zip(cps["checkpoint_id"], cps["display_name"], strict=True):
        groups[audit_key(cp)].add(cp)
        if isinstance(name, str) and name.strip():
            groups[audit_key(name)].add(cp)
    out = []
    for key, ids in groups.items():
        for a, b in itertools.combinations(sorted(ids), 2):
            out.append((a, b, key))
    return out


def size_date_candidates(cps: pd.DataFrame) -> list[tuple[str, str, str]]:
    """Same organisation and total parameters, released within :data:`SIZE_DATE_DAYS` days,
    names that differ by one word at most."""
    frame = cps.assign(
        _p=pd.to_numeric(cps["total_params_b"], errors="coerce"),
        _d=pd.to_datetime(cps["release_date"], errors="coerce"),
    ).dropna(subset=["_p", "_d"])
    out = []
    for (_, _), group in frame.groupby(["organisation", "_p"]):
        rows = group.sort_values("_d").to_dict("records")
        for x, y in itertools.combinations(rows, 2):
            if abs((y["_d"] - x["_d"]).days) > SIZE_DATE_DAYS:
                continue
            wx = set(audit_key(x["checkpoint_id"]).split())
            wy = set(audit_key(y["checkpoint_id"]).split())
            if len(wx ^ wy) <= 1:
                a, b = sorted((x["checkpoint_id"], y["checkpoint_id"]))
                out.append((a, b, f"{x['organisation']}, {x['_p']:g}B, within a month"))
    return out


def cross_link_candidates(models: pd.DataFrame, cps: pd.DataFrame) -> list[tuple[str, str, str]]:
    """An alias of one checkpoint that is another checkpoint's id or display name."""
    own: dict[str, str] = {}
    for cp, name in zip(cps["checkpoint_id"], cps["display_name"], strict=True):
        for label in (cp, name):
            if isinstance(label, str) and label.strip():
                own.setdefault(_norm(label), cp)
    checkpoint_of = _checkpoint_of(models)
    out = []
    for model_id, aliases in zip(models["model_id"], models["aliases"], strict=True):
        mine = checkpoint_of.get(model_id) or model_id
        for alias in str(aliases or "").split(";"):
            other = own.get(_norm(alias)) if alias.strip() else None
            if other and other != mine:
                a, b = sorted((mine, other))
                out.append((a, b, f"alias {alias.strip()!r} of {model_id}"))
    return out


def same_score_candidates(
    scores: pd.DataFrame, checkpoint_of: dict[str, str]
) -> list[tuple[str, str, str]]:
    """One source, two checkpoints, identical scores on :data:`SAME_SCORES_MIN`+ benchmarks
    (and no benchmark where both are scored and differ)."""
    frame = scores.assign(cp=scores["model_id"].map(checkpoint_of).fillna(scores["model_id"]))
    out = []
    for source, part in frame.groupby("source_name"):
        rows = part.drop_duplicates(["cp", "benchmark_id"]).pivot(
            index="cp", columns="benchmark_id", values="score"
        )
        if len(rows) < 2:
            continue
        signature = rows.apply(lambda r: tuple(r.round(6).items()), axis=1)
        by_sig: dict[tuple, list[str]] = defaultdict(list)
        for cp, sig in signature.items():
            kept = tuple((k, v) for k, v in sig if pd.notna(v))
            if len(kept) >= SAME_SCORES_MIN:
                by_sig[kept].append(str(cp))
        for sig, ids in by_sig.items():
            for a, b in itertools.combinations(sorted(ids), 2):
                out.append((a, b, f"{source}: {len(sig)} identical scores"))
    return out


def _checkpoint_of(models: pd.DataFrame) -> dict[str, str]:
    """model_id -> checkpoint_id (its own id where the column is empty)."""
    return {
        m: (c if isinstance(c, str) and c.strip() else m)
        for m, c in zip(models["model_id"], models["checkpoint_id"], strict=True)
    }


def _norm(text: str) -> str:
    return "".join(ch for ch in str(text).casefold().replace("+", "plus") if ch.isalnum())


def audit(
    models: pd.DataFrame, scores: pd.DataFrame, apart: dict[frozenset, str],
    evidence: Facts | None = None,
) -> list[Candidate]:
    """Every candidate pair, each with its resolution ('' when unresolved).

    ``apart``: pair of checkpoint ids -> reason, from the override table's ``distinct-from``
    rows (and ``same-name`` rows, which say the same of two model ids); shown beside the
    evidence, never settling a line alone. ``evidence``: the facts of the committed extract
    (``data/catalog/evidence/crosslinks.csv``: repositories and co-listed rows of the raw
    sources)."""
    evidence = evidence or Facts()
    cps = checkpoints(models)
    rows = {r["checkpoint_id"]: r for r in cps.to_dict("records")}
    checkpoint_of = _checkpoint_of(models)
    found: dict[frozenset, tuple[str, str, str, str]] = {}
    for signal, pairs in (
        ("name", name_candidates(cps)),
        ("size-date", size_date_candidates(cps)),
        ("cross-link", cross_link_candidates(models, cps)),
        ("same-scores", same_score_candidates(scores, checkpoint_of)),
    ):
        for a, b, detail in pairs:
            found.setdefault(frozenset((a, b)), (a, b, signal, detail))
    repos = evidence.repos  # a source's weights link or the Hub table: the repository exists
    listed = listings(models, scores)
    dated: dict[str, dict[str, tuple]] = defaultdict(dict)
    for cp in sorted(rows):
        day = _date(rows[cp])[0]
        if (name_tokens(cp)[1] is not None or BUILD.search(cp)) and day:
            dated[sibling_key(cp)][cp] = day
    out = []
    for pair, (a, b, signal, detail) in sorted(found.items(), key=lambda kv: kv[1]):
        reason = ""
        if a in rows and b in rows:
            reason = evidence_apart(rows[a], rows[b], repos, listed, evidence.colisted, dated,
                                    evidence.tuned, evidence.dates)
        elif signal == "size-date":
            reason = word_apart(a, b)
        if reason and pair in apart:
            reason = f"{reason}; override: {apart[pair]}"
        elif pair in apart:  # a curated reason alone settles nothing: it is shown, still open
            detail = f"{detail}; override without evidence of a fixed kind: {apart[pair]}"
        out.append(Candidate(a, b, signal, detail, reason))
    return out
