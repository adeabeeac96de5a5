"""Declarative schema of the curated LLM catalog (``data/catalog/*.csv``).

One table of column specs per catalog file; the snapshot builder validates against it and
``docs/data.md`` documents it. Types: ``str``, ``float``, ``int``, ``bool``, ``date``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

SOURCE_KINDS = ("independent", "arena", "admin-run", "curated", "self-reported")
"""Provenance of a score, in headline precedence order (seed 002, "Provenance")."""

GPU_KINDS = ("datacenter", "consumer", "apple")

CATEGORIES = (
    "knowledge",
    "reasoning",
    "math",
    "coding",
    "instruction-following",
    "agentic",
    "multimodal",
    "long-context",
    "commonsense",
    "chat-preference",
    "writing",
    "multilingual",
)
"""Benchmark categories (``benchmarks.category``); a new one is added here and in docs/data.md."""

ID_PATTERN = r"^[a-z0-9][a-z0-9._+-]{0,127}$"
"""Every identifier cell: lower-case ASCII letters, digits and ``._+-``, at most 128 characters
(so no spaces, control, zero-width, markup or look-alike non-ASCII characters)."""

MAY_BE_EMPTY = frozenset({"retired", "api_speed", "api_index_cost", "copies", "disagreements",
                          "evidence_measured_refused"})
"""Tables that may hold no rows (nothing retired yet; a catalog built without newer copies has
no API speeds and no copies; one without Artificial Analysis' index costs has none; one without
measured-speed files refuses no run); every other table needs data."""

ID_COLUMNS: dict[str, tuple[str, ...]] = {
    "models": ("model_id", "checkpoint_id"),
    "benchmarks": ("benchmark_id",),
    "scores": ("model_id", "benchmark_id"),
    "gpus": ("gpu_id",),
    "throughput": ("model_id", "gpu_id"),
    "sources": ("source_id",),
    "retired": ("model_id",),
    "disagreements": ("checkpoint_id",),
}
"""Columns whose cells must match ``ID_PATTERN``. Names (``display_name``, ``aliases``) may be
any Unicode text, but no cell may hold control, zero-width or bidi characters."""


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str
    required: bool = True
    help: str = ""


# Changing TABLES changes every snapshot version: add the replaced spec to
# analytics/core/snapshot/past_schemas.json so `snapshot check` can still verify old snapshots.
TABLES: dict[str, tuple[Column, ...]] = {
    "models": (
        Column("model_id", "str", help="stable slug, unique"),
        Column("display_name", "str"),
        Column("organisation", "str"),
        Column("family", "str", help="lineage family, e.g. 'llama'"),
        Column("release_date", "date", required=False),
        Column("total_params_b", "float", required=False, help="total parameters, billions"),
        Column("active_params_b", "float", required=False, help="active params (MoE), billions"),
        Column(
            "is_moe", "bool", required=False,
            help="true/false from a config or a source; empty: unknown (never read as dense)",
        ),
        Column(
            "open_weights", "bool", required=False,
            help="true/false from a maker's repository or a source; empty: unknown",
        ),
        Column("licence_raw", "str", required=False, help="licence string as published"),
        Column(
            "vram_q4_gb", "float", required=False,
            help="ground truth only: a published Q4 file size or measured 4-bit memory, GB",
        ),
        Column(
            "vram_q4_basis", "str", required=False,
            help="'published file size' / 'measured memory'; empty: the seed formula applies",
        ),
        Column("vram_q4_source_url", "str", required=False, help="the file stating vram_q4_gb"),
        Column("checkpoint_id", "str", help="reasoning/mode variants of one weight share it"),
        Column("variant", "str", help="'default' or the setting: effort, thinking mode, budget"),
        Column("aliases", "str", required=False, help="';'-separated names used by sources"),
        Column("n_layers", "int", required=False),
        Column("n_kv_heads", "int", required=False),
        Column("head_dim", "int", required=False),
        Column("context_length", "int", required=False),
        Column("metadata_source_url", "str", required=False),
        Column(
            "weights_repo", "str", required=False,
            help="the maker's own Hugging Face repository: evidence of open weights and shapes",
        ),
        Column(
            "arch_key", "str", required=False,
            help="equal for checkpoints of identical architecture and size; empty: unknown",
        ),
        Column(
            "weights_release", "str", required=False,
            help="equal only for the base and instruct checkpoints of one release",
        ),
        Column("usd_per_mtok_input", "float", required=False, help="API list price, input"),
        Column("usd_per_mtok_output", "float", required=False, help="API list price, output"),
        Column("price_source_url", "str", required=False),
        Column("price_date", "date", required=False, help="the day the price applies from"),
        Column(
            "release_date_basis", "str", required=False,
            help="empty: a source states the release; else the proxy ('first seen in LiteLLM')",
        ),
    ),
    "benchmarks": (
        Column("benchmark_id", "str"),
        Column("name", "str"),
        Column("category", "str"),
        Column("higher_is_better", "bool"),
        Column("lower_bound", "float", help="lowest valid score"),
        Column("upper_bound", "float", help="highest valid score"),
        Column("unit", "str", help="e.g. '%', 'elo', 'accuracy'"),
        Column(
            "protocol", "str", required=False,
            help="the one protocol its rows follow: 'shots=5;cot=no', 'subset=val'",
        ),
    ),
    "scores": (
        Column("model_id", "str"),
        Column("benchmark_id", "str"),
        Column("score", "float"),
        Column("source_kind", "str", help=f"one of {', '.join(SOURCE_KINDS)}"),
        Column("source_name", "str", help="e.g. 'Epoch AI', 'Open LLM Leaderboard v2'"),
        Column("source_url", "str"),
        Column("date", "date", required=False),
        Column(
            "method", "str", required=False,
            help="how the source says it ran the score ('5-shot', '0-shot CoT', 'val')",
        ),
        Column("votes", "int", required=False, help="Arena boards: votes behind the rating"),
        Column("ci_low", "float", required=False, help="Arena boards: 95 % interval, low end"),
        Column("ci_high", "float", required=False, help="Arena boards: 95 % interval, high end"),
    ),
    "sources": (
        Column("source_id", "str", help="importer id, e.g. 'livebench'"),
        Column("name", "str"),
        Column("url", "str", required=False),
        Column("licence", "str", required=False, help="licence or terms as the source states"),
        Column("scores", "int"),
        Column("models", "int"),
        Column("as_of", "date", required=False, help="newest date on the source's score rows"),
        Column("newest_release", "date", required=False, help="newest release it scores"),
    ),
    "retired": (
        Column("model_id", "str", help="an id published before that no model holds now"),
        Column("reason", "str"),
    ),
    "gpus": (
        Column("gpu_id", "str"),
        Column("name", "str"),
        Column("vendor", "str"),
        Column("kind", "str", help="datacenter / consumer / apple"),
        Column("memory_gb", "float", help="for apple: GPU-usable unified-memory budget"),
        Column("memory_note", "str", required=False, help="discount applied and its source"),
        Column("bf16_tflops_dense", "float", required=False),
        Column("mem_bandwidth_gbps", "float", required=False),
        Column("usd_per_hour", "float", required=False, help="typical rental $/GPU-hour"),
        Column("price_date", "date", required=False),
        Column("price_source_url", "str", required=False),
        Column("price_offers", "int", required=False, help="on-demand offers behind the $/h"),
        Column("price_providers", "int", required=False, help="provider catalogs behind it"),
        Column("spec_source_url", "str"),
        Column("aliases", "str", required=False),
    ),
    "throughput": (
        Column("model_id", "str", help="catalog model, or a generic label such as 'llama-3-8b'"),
        Column("gpu_id", "str"),
        Column("gpu_count", "int"),
        Column("quant", "str"),
        Column("phase", "str", help="'generation' or 'prompt'"),
        Column("tokens_per_s", "float"),
        Column("source_url", "str"),
        # Columns added after the first catalogs: always filled by `ingest`; optional here so
        # catalogs written before them still validate (kind, measured_on, source_name can become
        # required later)
        Column(
            "kind", "str", required=False,
            help="'single-stream' (llama.cpp), 'server' (MLPerf aggregate), "
            "'community-single-stream', 'benchmarker-single-stream', 'vendor-aggregate'",
        ),
        Column("scenario", "str", required=False, help="MLPerf scenario; empty for llama.cpp"),
        Column(
            "measured_on", "str", required=False,
            help="the exact model the source ran, as it names it",
        ),
        Column("system", "str", required=False, help="MLPerf system name; empty for llama.cpp"),
        Column("source_name", "str", required=False, help="e.g. 'MLPerf Inference v6.0'"),
        Column("engine", "str", required=False, help="llama.cpp, vLLM, MLX, TensorRT-LLM ..."),
        Column("context_tokens", "int", required=False, help="context the run used, if stated"),
        Column("n_runs", "int", required=False, help="community runs behind a median"),
        Column("tokens_per_s_min", "float", required=False, help="slowest of those runs"),
        Column("tokens_per_s_max", "float", required=False, help="fastest of those runs"),
        Column("date", "date", required=False, help="day of the run or of the file"),
    ),
    "api_speed": (
        Column("model_id", "str"),
        Column("output_tokens_per_s", "float", help="median output tokens/s of the API as served"),
        Column("ttft_s", "float", required=False, help="median time to first token, thinking in"),
        Column("measured_on", "date", help="the day of the file that states it"),
        Column("source_name", "str", help="'Artificial Analysis (API, as served)'"),
        Column("source_url", "str"),
    ),
    "api_index_cost": (
        Column("model_id", "str"),
        Column(
            "index_cost_usd", "float",
            help="USD it cost Artificial Analysis to run its Intelligence Index on the model "
            "(every token it spent, thinking included)",
        ),
        Column("measured_on", "date", help="the day of the file that states it"),
        Column(
            "source_name", "str",
            help="'Artificial Analysis (cost to run its Intelligence Index)'",
        ),
        Column("source_url", "str", help="the model's page on Artificial Analysis"),
    ),
    "disagreements": (
        Column("checkpoint_id", "str"),
        Column("field", "str", help="release_date or total_params_b"),
        Column("value", "str", required=False, help="the value the catalog shows"),
        Column("values", "str", help="every publisher's value, 'Epoch AI 2024-06-07; ...'"),
        Column("settled", "str", required=False, help="the rule or override; empty = open"),
    ),
    "copies": (
        Column("copy_id", "str", help="importer id of a third party's copy of newer data"),
        Column("publisher", "str", help="who published the data (credited)"),
        Column("package", "str", help="the package the copy shipped in"),
        Column("data_date", "date", help="the day the copied data is of"),
        Column("used_for", "str"),
        Column("compared_with", "str", help="the first-party file it was checked against"),
        Column("shared", "int", help="items in both"),
        Column("agreement", "float", required=False, help="share of them that agree (0..1)"),
        Column("fidelity", "str", help="the agreement in one sentence"),
        Column("licence", "str"),
        Column("path", "str", help="the file under shared/data"),
    ),
}


PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "models": ("model_id",),
    "benchmarks": ("benchmark_id",),
    "scores": ("model_id", "benchmark_id", "source_kind", "source_name"),
    "gpus": ("gpu_id",),
    "sources": ("source_id",),
    "retired": ("model_id",),
    "api_speed": ("model_id",),
    "api_index_cost": ("model_id",),
    "copies": ("copy_id",),
    "disagreements": ("checkpoint_id", "field"),
    "throughput": (
        "model_id", "gpu_id", "gpu_count", "quant", "phase", "kind", "scenario", "system",
        "source_url", "engine",
    ),
}


@contextmanager
def tables_as(spec: dict[str, list[list]]) -> Iterator[None]:
    """Use a past schema (``{table: [[column, dtype, required], ...]}``) for the duration: the
    snapshot check hashes and rebuilds a snapshot made before the schema last changed."""
    global TABLES
    saved = TABLES
    TABLES = {name: tuple(Column(c, d, bool(r)) for c, d, r in cols) for name, cols in spec.items()}
    try:
        yield
    finally:
        TABLES = saved
