"""Human labels (with units) for the column names tables are built with, one map for every page.

Pages keep the raw column names in their frames (tests and downloads select by them) and show
these labels instead: through ``st.column_config`` or :func:`labelled`. A column not in
:data:`LABELS` gets a readable fallback from :func:`human` (unit suffixes such as ``_ms``,
``_gb``, ``_usd`` become "(ms)", "(GB)", "(USD)"), so no snake_case name reaches a page.
"""

from __future__ import annotations

import re

import pandas as pd

LABELS: dict[str, str] = {
    # ranks (one per snapshot and view), evidence and the changes between snapshots
    "rank_range": "Rank range",
    "rank_ub": "Rank (LMArena)",
    "publishers": "Publishers",
    "rating_delta_field": "Elo change against the field",
    "rank_low_new": "Rank best after",
    "rank_high_new": "Rank worst after",
    "rank_ub_new": "Rank (LMArena) after",
    "set_aside_for": "Set aside for",
    "api_usd_per_mtok_input": "API $/1M input",
    "api_usd_per_mtok_output": "API $/1M output",
    # the fine-tune planner's configs
    "role": "Config",
    "cost_usd": "Cost (rough, $)",
    "wall_clock_hours": "Wall-clock (h)",
    "gpu_hours": "GPU-hours",
    "usd_per_gpu_hour": "$/GPU-hour",
    "price": "Price source",
    # the FL seed spread
    "submitted": "Scored (first seed)",
    "mean": "Mean over seeds",
    "sd": "Standard deviation",
    "low": "Lowest",
    "high": "Highest",
    "seeds": "Seeds",
    # models and the leaderboard
    "model_id": "Model ID",
    "display_name": "Model",
    "organisation": "Organisation",
    "family": "Family",
    "release_date": "Released",
    "total_params_b": "Parameters (B)",
    "active_params_b": "Active parameters (B)",
    "open_weights": "Open weights",
    "licence_raw": "Licence",
    "licence_class": "Licence class",
    "aliases": "Also known as",
    "rank": "Rank",
    "rating": "Elo",
    "rating_low": "Elo 95% low",
    "rating_high": "Elo 95% high",
    "rating_interval": "Elo 95% interval",
    "rank_low": "Rank best",
    "rank_high": "Rank worst",
    "eligible": "Ranked",
    "n_benchmarks": "Benchmarks",
    "n_categories": "Categories",
    "unrated_reason": "Why unrated",
    "provenance": "Provenance",
    "category_profile": "Category profile (0-100)",
    "overall_rating": "Overall Elo",
    "overall_rank": "Overall rank",
    "details": "Details",
    "context_length": "Context length (tokens)",
    "usd_per_mtok_input": "Input price (USD per 1M tokens)",
    "usd_per_mtok_output": "Output price (USD per 1M tokens)",
    "price_date": "Price dated",
    "price_source_url": "Price source",
    "n_sources": "Sources",
    "variants": "Other variants",
    "release_basis": "Date basis",
    "api_price": "API price",
    "api_price_from": "Price from",
    "api_output_tok_per_s": "API speed",
    "api_speed_measured_on": "Speed measured",
    "api_index_cost_usd": "AA index run cost (USD)",
    "api_index_cost_measured_on": "Index cost measured",
    "reference_rating": "Elo (reference)",
    "page": "Page",
    # hardware
    "gpu_id": "GPU ID",
    "gpu_count": "GPUs",
    "memory_gb": "Memory (GB)",
    "usd_per_hour": "Price (USD per GPU-hour)",
    "mem_bandwidth_gbps": "Memory bandwidth (GB/s)",
    "bf16_tflops_dense": "BF16 dense (TFLOPS)",
    "tokens_per_s": "Tokens per second",
    "n_runs": "Runs",
    "tokens_per_s_min": "Slowest run (tok/s)",
    "tokens_per_s_max": "Fastest run (tok/s)",
    # lineage and movers
    "relation": "Relation",
    "predecessor_id": "Predecessor ID",
    "predecessor_name": "Predecessor",
    "predecessor_release_date": "Predecessor released",
    "predecessor_rating": "Predecessor Elo",
    "gain": "Elo gain",
    # changes between snapshots
    "change": "Change",
    "rating_old": "Elo before",
    "rating_new": "Elo after",
    "rank_old": "Rank before",
    "rank_new": "Rank after",
    "rating_delta": "Elo change",
    "rank_delta": "Rank change (+ = up)",
    # benchmarks and scores
    "benchmark": "Benchmark ID",
    "benchmark_id": "Benchmark ID",
    "benchmark_name": "Benchmark",
    "name": "Name",
    "category": "Category",
    "score": "Score",
    "score_text": "Score",
    "unit": "Unit",
    "higher_is_better": "Higher is better",
    "better": "Better",
    "lower_bound": "Lower bound",
    "upper_bound": "Upper bound",
    "is_headline": "Headline",
    "source": "Source kind",
    "source_kind": "Source kind",
    "source_name": "Source",
    "source_url": "Link",
    "date": "Date",
    "position": "#",
    "winner": "Winner ID",
    "winner_name": "Winner",
    "shared": "Shared benchmarks",
    "wins": "Wins",
    "ties": "Ties",
    # sources
    "url": "Home page",
    "licence": "Licence / terms",
    "scores": "Scores",
    "models": "Models",
    "as_of": "Newest score dated",
    "newest_release": "Newest model it scores",
    "data_date": "Data of",
    "package": "Copied from",
    "agreement": "Agreement",
    "fidelity": "How well it agrees",
    # federated track
    "method": "Method",
    "model": "Model",
    "protocol": "Protocol",
    "dataset": "Dataset",
    "condition": "Condition",
    "metric": "Metric",
    "value": "Value",
    "n": "Methods compared",
    "points": "Points",
    "final": "Final score",
    "A": "Protocol A",
    "B": "Protocol B",
    "C": "Protocol C",
    "step": "Step",
    "accuracy": "Accuracy (0-1)",
    "best_accuracy": "Best accuracy (0-1)",
    "ours_best_accuracy": "Our best reference accuracy (0-1)",
    "loss": "Loss",
    "time_s": "Simulated time (s)",
    "comm_bytes": "Communication (bytes)",
    "energy_j": "Simulated energy (J)",
    "peak_mem_bytes": "Peak memory (bytes)",
    "status": "Status",
    "zip": "ZIP file",
    "received_utc": "Received (UTC)",
    "decided_by": "Decided by",
    "decided_utc": "Decided (UTC)",
    "sha256": "SHA-256",
}
"""Raw column name -> label shown to users (units in parentheses)."""

UNIT_SUFFIXES: dict[str, str] = {
    "_ms": "ms",
    "_s": "s",
    "_gb": "GB",
    "_gib": "GiB",
    "_mib": "MiB",
    "_bytes": "bytes",
    "_usd": "USD",
    "_b": "B",
    "_j": "J",
    "_w": "W",
    "_utc": "UTC",
}
"""Unit suffixes of column names (docs/architecture.md and the common rules: units in names)."""


def human(column: object) -> str:
    """The label of ``column``: :data:`LABELS`, else a readable form of the name with its unit
    ('vram_peak_mib' -> 'Vram peak (MiB)')."""
    name = str(column)
    if name in LABELS:
        return LABELS[name]
    unit = ""
    for suffix, text in UNIT_SUFFIXES.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            name, unit = name[: -len(suffix)], text
            break
    words = name.replace("_", " ").strip()
    words = words[:1].upper() + words[1:]
    return f"{words} ({unit})" if unit else words


def is_raw(label: str) -> bool:
    """A label that looks like a column name rather than words: snake_case without a space."""
    return "_" in label and " " not in label


def dates_as_dates(frame: pd.DataFrame) -> pd.DataFrame:
    """Datetime columns whose values are all midnight become plain dates (no '00:00:00')."""
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if pd.api.types.is_datetime64_any_dtype(values):
            present = values.dropna()
            if present.empty or (present == present.dt.normalize()).all():
                out[col] = values.dt.date
    return out


def labelled(frame: pd.DataFrame, labels: dict[str, str] | None = None) -> pd.DataFrame:
    """``frame`` with human column labels (``labels`` first, then :func:`human`) and dates as
    dates: what a CSV download or a table without a column config shows."""
    extra = labels or {}
    out = dates_as_dates(frame)
    out.columns = [extra.get(str(c), human(c)) for c in out.columns]
    if out.index.name is not None:
        out.index.name = extra.get(str(out.index.name), human(out.index.name))
    return out


TRI_STATE = ("open_weights", "is_moe")
"""Flags whose empty cell means no evidence either way: shown as "unknown", never as "no"."""
FLAG_TEXT = {True: "yes", False: "no"}
UNKNOWN_FLAG = "unknown"


def shown_flags(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each :data:`TRI_STATE` column as 'yes' / 'no' / 'unknown' text (pages and
    downloads; the frames themselves keep the nullable booleans filters read)."""
    present = [c for c in TRI_STATE if c in frame.columns]
    if not present:
        return frame
    out = frame.copy()
    for column in present:
        flags = out[column].astype("boolean")
        out[column] = [UNKNOWN_FLAG if pd.isna(v) else FLAG_TEXT[bool(v)] for v in flags]
    return out


def csv_text(frame: pd.DataFrame, labels: dict[str, str] | None = None) -> str:
    """The CSV a download button offers: human headers, dates as dates, no index."""
    return labelled(frame, labels).to_csv(index=False)


_IRREGULAR_VERBS = {"are": "is", "have": "has", "were": "was", "do": "does"}


def verb_for(n: int, verb: str) -> str:
    """The present-tense ``verb`` (given in its plural form: 'match', 'are') agreeing with
    ``n`` things: 'matches' / 'match', 'is' / 'are'."""
    if n == 1:
        if verb in _IRREGULAR_VERBS:
            return _IRREGULAR_VERBS[verb]
        if re.search(r"(s|sh|ch|x|z)$", verb):
            return verb + "es"
        if re.search(r"[^aeiou]y$", verb):
            return verb[:-1] + "ies"
        return verb + "s"
    return verb


def plural(n: int, noun: str, verb: str | None = None, *, many: str | None = None) -> str:
    """``n`` with ``noun`` (and ``verb``) in agreement: '1 model matches', '2 models match',
    '0 models', '1,234 models'; ``many`` for an irregular plural
    (``plural(n, 'category', many='categories')``)."""
    n = int(n)
    text = f"{n:,} {noun if n == 1 else (many or noun + 's')}"
    return f"{text} {verb_for(n, verb)}" if verb else text
