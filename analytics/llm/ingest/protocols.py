"""One protocol per benchmark: which published scores may stand as a benchmark's headline.

Rule (docs/data.md, "Protocols"): a benchmark's battles compare like with like. The headline
protocol is a single attempt scored the benchmark's standard way (pass@1, or the leaderboard's own
metric). A score obtained another way is dropped, and counted under one of the reasons below:

- several samples aggregated (cons@k, maj@k, best-of-N, pass@k with k > 1),
- parallel test-time compute (many attempts reconciled by the system: "Deep Think", "Heavy",
  "parallel thinking"),
- a model fine-tuned for that one task,
- a scaffold other than the benchmark's own (third-party agents on agent leaderboards),
- an estimate rather than a run,
- a composite index built from benchmarks already counted one by one,
- a row the override table marks as a known-bad run.

Importers call ``method_drop_reason`` on whatever text the source uses to describe how a score
was obtained (LLM Stats ``analysis_method``, a note column, a model-name suffix).
"""

from __future__ import annotations

import re

from analytics.llm.ingest.identity import slugify

AGGREGATED = "protocol: several samples aggregated (cons@k / maj@k / best-of-N / pass@k>1)"
PARALLEL = "protocol: parallel test-time compute"
FINE_TUNED = "protocol: fine-tuned for this task"
SCAFFOLD = "protocol: non-standard scaffold"
ESTIMATED = "protocol: estimated, not run"
COMPOSITE = "protocol: composite index of benchmarks already counted"
KNOWN_BAD = "override: known-bad run"
UNRELEASED = "protocol: pre-release or unreleased system (not a released checkpoint)"

MIXED_VERSIONS = "protocol: benchmark version not stated (several versions under one name)"
SECOND_VIEW = "protocol: a second view of an evaluation already counted"
DRAWS = "protocol: nearly every battle a draw (90%+ of the scores equal)"

DROP_REASONS = (
    AGGREGATED, PARALLEL, FINE_TUNED, SCAFFOLD, ESTIMATED, COMPOSITE, UNRELEASED, KNOWN_BAD,
    MIXED_VERSIONS, SECOND_VIEW, DRAWS,
)
"""Every protocol drop reason, in the order docs/data.md lists them."""

_AGGREGATED = re.compile(
    r"\b(cons|maj|majority|best|bo|rm)\s*@\s*\d+|\bbest[- ]of[- ]\d+|\bpass\s*@\s*(?!1\b)\d+"
    r"|\bmajority vot|\bself[- ]consistency"
    r"|\bmaj\d+\b|\bcons\d+\b",
    re.IGNORECASE,
)
_PARALLEL = re.compile(
    r"\bdeep ?think\b|\bheavy\b|\bparallel (test[- ]time|thinking|compute|sampling)"
    r"|\bwith parallel\b|\bttc\b|\bhigh[- ]compute\b|\bmultiple (parallel )?attempts\b",
    re.IGNORECASE,
)
_FINE_TUNED = re.compile(r"\bfine[- ]?tuned\b|\bfinetuned\b|\btask[- ]specific\b", re.IGNORECASE)


def method_drop_reason(text: str | None) -> str | None:
    """The protocol drop reason a method description implies, or None for a headline score."""
    if not text:
        return None
    if _AGGREGATED.search(text):
        return AGGREGATED
    if _PARALLEL.search(text):
        return PARALLEL
    if _FINE_TUNED.search(text):
        return FINE_TUNED
    return None


_PARALLEL_SYSTEM = re.compile(
    r"\bdeep[- ]?think\b|\bheavy\b|\bgpt-?5(\.\d+)?[- ]pro\b", re.IGNORECASE
)
"""Systems that reconcile many parallel attempts by design: Gemini Deep Think, Grok Heavy and
OpenAI's GPT-5.x Pro (documented as parallel test-time compute)."""


_ROUTED_SYSTEM = re.compile(r"\bfallback\b|\bharness\b", re.IGNORECASE)
"""A system that hands some requests to another model ('Claude Fable 5 (..., Opus 4.8
Fallback)'): two models' results mixed in one row; or a model run inside an agent harness
('GPT-5.5 (xHigh, Codex Harness)' on Arena WebDev): the harness's result, not the model's."""
_UNRELEASED_SYSTEM = re.compile(r"pre-?release|\bunreleased\b", re.IGNORECASE)


def system_drop_reason(model_name: str) -> str | None:
    """PARALLEL for a parallel test-time-compute system, UNRELEASED for a pre-release build,
    else None. Applied to every source's scores, so such a system is out of every benchmark
    alike (a preview that was released as a product, 'gemini-3-pro-preview', stays)."""
    text = f"{model_name.replace('_', ' ')} {slugify(model_name)}"  # 'gpt-5-2-pro' = 5.2
    if _PARALLEL_SYSTEM.search(text):
        return PARALLEL
    if _UNRELEASED_SYSTEM.search(text):
        return UNRELEASED
    if _ROUTED_SYSTEM.search(text):
        return SCAFFOLD
    return None


EXCLUDED_BENCHMARKS: dict[str, str] = {
    "livebench": COMPOSITE,  # LLM Stats' 'LiveBench' rows: global averages and coding subscores
    "bfcl": MIXED_VERSIONS,  # LLM Stats' 'BFCL': v1, v2 and v3 figures under one name
    "aa-omniscience-accuracy": SECOND_VIEW,  # the accuracy half of the AA-Omniscience index
}
"""Benchmark ids whose rows never enter the catalog, with the reason."""
DRAW_SHARE = 0.9
DRAW_MIN_ROWS = 5


def draw_only(scores: list[dict]) -> dict[str, str]:
    """benchmark_id -> reason for benchmarks with :data:`DRAW_MIN_ROWS`+ rows whose most common
    score holds :data:`DRAW_SHARE` or more of them: their battles are nearly all draws and say
    nothing about order (FrontierMath Tier 4 public: 26 zeros of 26)."""
    values: dict[str, list[float]] = {}
    for row in scores:
        values.setdefault(row["benchmark_id"], []).append(float(row["score"]))
    out = {}
    for bench, found in values.items():
        if len(found) < DRAW_MIN_ROWS:
            continue
        top = max(found.count(v) for v in set(found))
        if top / len(found) >= DRAW_SHARE:
            out[bench] = f"{DRAWS}: {top} of {len(found)} equal"
    return out


# --- declared protocols (benchmarks.csv ``protocol``) vs a row's recorded method --------------

METHOD_DIFFERS = "protocol: method differs from the benchmark's declared protocol"

_SHOTS = re.compile(r"\b(\d+|zero|one|few)[- ]?shots?\b", re.IGNORECASE)
_COT = re.compile(r"\bcot\b|chain[- ]of[- ]thought", re.IGNORECASE)
_NO_COT = re.compile(r"\b(no|without|w/o)[- ]cot\b|\bdirect\b", re.IGNORECASE)
_SUBSET = re.compile(r"\b(val|validation|test|testmini|dev|diamond|main)\b", re.IGNORECASE)
_THINKING_OFF = re.compile(r"\bno extended thinking\b|\breasoning off\b", re.IGNORECASE)
_THINKING_ON = re.compile(
    r"\bextended thinking\b|\breasoning on\b(?!\s+\w)|,\s*reasoning\s*$", re.IGNORECASE
)
_WORD_SHOTS = {"zero": 0, "one": 1}
_SUBSETS = {"validation": "val"}
DECLARED_KEYS = ("shots", "cot", "subset", "thinking")
"""What a benchmark's ``protocol`` may fix: ``shots=<n>``, ``cot=yes|no``, ``subset=<name>``."""


def method_terms(text: str | None) -> dict[str, str]:
    """What a method description states, in the declared keys ('0-shot CoT' -> shots 0, cot
    yes; '5-shot' -> shots 5; 'val' -> subset val; 'Extended thinking' -> thinking yes); a key
    it does not state is absent."""
    out: dict[str, str] = {}
    if not text:
        return out
    shots = _SHOTS.search(text)
    if shots and shots.group(1).lower() != "few":
        word = shots.group(1).lower()
        out["shots"] = str(_WORD_SHOTS.get(word, word))
    if _NO_COT.search(text):
        out["cot"] = "no"
    elif _COT.search(text):
        out["cot"] = "yes"
    subset = _SUBSET.search(text)
    if subset:
        word = subset.group(1).lower()
        out["subset"] = _SUBSETS.get(word, word)
    if _THINKING_OFF.search(text):
        out["thinking"] = "no"
    elif _THINKING_ON.search(text):
        out["thinking"] = "yes"
    return out


def stated_variant(method: str | None) -> str | None:
    """'thinking' / 'non-thinking' when a method says the run used (or did not use) extended
    thinking: such a row belongs to that variant, not to the default."""
    found = method_terms(method).get("thinking")
    return {"yes": "thinking", "no": "non-thinking"}.get(found or "")


def declared_terms(protocol: str) -> dict[str, str]:
    """A ``protocol`` cell ('shots=5;cot=no') as a dict; raises ValueError on a bad term."""
    out = {}
    for term in filter(None, (t.strip() for t in (protocol or "").split(";"))):
        key, sep, value = term.partition("=")
        if not sep or key not in DECLARED_KEYS or not value:
            raise ValueError(f"protocol term {term!r}: write {'|'.join(DECLARED_KEYS)}=<value>")
        out[key] = value
    return out


def method_conflict(protocol: str, method: str | None) -> str | None:
    """Why a row's recorded method contradicts its benchmark's declared protocol (None: it
    does not; a method that states nothing about a key follows the declaration)."""
    declared, stated = declared_terms(protocol), method_terms(method)
    if declared.get("shots") is not None and stated.get("cot") == "yes" and "shots" not in stated:
        stated["shots"] = "0"  # '0-shot CoT' is often written 'CoT'
    wrong = [f"{k} {stated[k]} (declared {v})" for k, v in declared.items()
             if k in stated and stated[k] != v]
    return f"{METHOD_DIFFERS}: {', '.join(wrong)}" if wrong else None
