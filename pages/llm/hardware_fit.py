"""What fits my hardware: seed verdicts per checkpoint for a GPU (x count) or an Apple profile."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.core.licences import LICENCE_CLASSES
from analytics.llm import catalog, fit, fit_view, throughput
from ui import llm
from ui.params import flag_param, index_of, int_param, multi_param, one_of, range_param

CONTEXTS = (2048, 8192, 32768, 131072)
DEFAULT_CONTEXT = 8192
# verdict badge colours (translucent: the theme's text colour stays readable in both themes)
VERDICT_BADGES = {
    fit.COMFORTABLE: llm.GOOD, fit.TIGHT: llm.CAUTION, fit.OFFLOAD: llm.POOR, fit.WONT_RUN: llm.BAD,
    fit.KV_UNKNOWN: llm.UNKNOWN, fit.ABOVE_MAX_CONTEXT: llm.BAD,
}
SINGLE_TOKS = "Single-stream decode tok/s"
SERVER_TOKS = "Server tok/s (MLPerf)"
COMMUNITY_TOKS = "Community single-stream tok/s (median)"
BENCH_TOKS = "Benchmarker single-stream tok/s"
VENDOR_TOKS = "Vendor tok/s per GPU (aggregate)"
KIND_NAMES = {
    throughput.SINGLE_STREAM: "llama.cpp single-stream", throughput.SERVER: "MLPerf server",
    throughput.COMMUNITY: "community single-stream",
    throughput.BENCHMARKER: "benchmarker single-stream",
    throughput.VENDOR: "vendor aggregate",
}


def quant_labels(at: str) -> dict[str, str]:
    """Per quantisation: its verdict, its GB (weights + KV) at the context, and the basis."""
    out = {}
    for quant, prefix in fit.QUANT_PREFIX.items():
        out[f"{prefix}_verdict"] = f"{quant} at {at}"
        out[f"{prefix}_gb"] = f"{quant} GB at {at} (weights + KV)"
    for quant, prefix in fit.QUANT_PREFIX.items():
        out[f"{prefix}_basis"] = f"{quant} size basis"
    return out


def columns(context: int) -> dict[str, str]:
    """View column -> shown label, essentials first (model, verdict, rating, speed, GB)."""
    at = f"{context:,} tokens"
    return {
        "display_name": "Model",
        "verdict": "Verdict",
        "context_verdict": f"Verdict at {at}",  # what the page is for: fits at my context?
        "best_quant": f"Best quant that fits at {at}",
        "rating": "Best Elo (variants)",
        "single_stream_tokens_per_s": SINGLE_TOKS,
        "server_tokens_per_s": SERVER_TOKS,
        "community_tokens_per_s": COMMUNITY_TOKS,
        "community_n_runs": "Community runs",
        "benchmarker_tokens_per_s": BENCH_TOKS,
        "vendor_tokens_per_s": VENDOR_TOKS,
        "required_gb": "Required GB",
        "q4_basis": "Q4 basis",
        "best_quant_bits": "Best quant bits/weight",
        "max_context_tokens": "Model's max context (tokens)",
        "q4_plus_kv_gb": f"Q4 weights + KV GB at {at}",
        "kv_cache_gb": f"KV cache GB at {at}",
        **quant_labels(at),
        "budget_gb": "Budget GB",
        "ratio": "Ratio",
        "single_stream_quant": "Single-stream quant",
        "single_stream_applies": "Single-stream: applies as",
        "single_stream_measured_on": "Single-stream: source ran",
        "single_stream_source_url": "Single-stream source",
        "server_scenario": "MLPerf scenario",
        "server_system": "MLPerf system",
        "server_quant": "MLPerf weights",
        "server_applies": "Server: applies as",
        "server_measured_on": "Server: source ran",
        "server_source_url": "Server source",
        "community_tokens_per_s_min": "Community slowest run tok/s",
        "community_tokens_per_s_max": "Community fastest run tok/s",
        "community_quant": "Community quant",
        "community_engine": "Community engine",
        "community_applies": "Community: applies as",
        "community_source_url": "Community source",
        "benchmarker_quant": "Benchmarker quant",
        "benchmarker_engine": "Benchmarker engine",
        "benchmarker_applies": "Benchmarker: applies as",
        "benchmarker_source_url": "Benchmarker source",
        "vendor_quant": "Vendor weights",
        "vendor_scenario": "Vendor workload",
        "vendor_engine": "Vendor engine",
        "vendor_applies": "Vendor: applies as",
        "vendor_source_url": "Vendor source",
        "q4_source_url": "Q4 source",
        "total_params_b": "Params (B)",
        "active_params_b": "Active (B)",
        "licence_class": "Licence class",
        "licence_raw": "Licence",
        "variants": "Variants (one checkpoint)",
        "smallest_config": "Smallest rentable config",
        "smallest_config_price": "Config price (source)",
        "checkpoint_id": "Checkpoint id",
    }


def formats(labels: dict[str, str]) -> dict[str, str]:
    """Shown label -> number format."""
    fmt = {
        "required_gb": "%.1f", "budget_gb": "%.1f", "ratio": "%.2f",
        "single_stream_tokens_per_s": "%.1f", "server_tokens_per_s": "localized",
        "community_tokens_per_s": "%.1f", "benchmarker_tokens_per_s": "%.1f",
        "vendor_tokens_per_s": "localized", "community_tokens_per_s_min": "%.1f",
        "community_tokens_per_s_max": "%.1f",
        "kv_cache_gb": "%.2f", "q4_plus_kv_gb": "%.1f", "rating": "%.1f",
        "total_params_b": "%g", "active_params_b": "%g", "best_quant_bits": "%.2f",
        "max_context_tokens": "localized",
        **{f"{prefix}_gb": "%.1f" for prefix in fit.QUANT_PREFIX.values()},
    }
    return {labels[c]: f for c, f in fmt.items()}


LINKS = {
    "Single-stream source": "llama.cpp bench",
    "Server source": "MLPerf result",
    "Community source": "community runs",
    "Benchmarker source": "benchmark run",
    "Vendor source": "vendor table",
    "Q4 source": "Q4 source",
}
HELP = {
    SINGLE_TOKS: "llama.cpp decode speed of ONE stream (batch 1), measured on exactly this GPU "
    "and count; never interpolated.",
    SERVER_TOKS: "MLPerf Inference aggregate throughput of the whole system (many concurrent "
    "requests) under its scenario's latency bound; not comparable with single-stream speed.",
    COMMUNITY_TOKS: "Median decode speed of ONE stream over the community runs of this exact "
    "setting (checkpoint, quantisation, GPU and count, engine); runs with speculative decoding or "
    "MTP, batching, CPU offload or a speed above the memory-bandwidth limit are left out. "
    "'Community runs' says how many; one run is one run.",
    BENCH_TOKS: "A benchmarker's measured decode speed of one stream (Jeff Geerling's Ollama eval "
    "rate, averaged over runs); the engine is beside it.",
    VENDOR_TOKS: "The vendor's own offline maximum throughput per GPU with thousands of queued "
    "requests (NVIDIA TensorRT-LLM): an aggregate server figure, never a single user's speed.",
    "Q4 basis": "published file size / measured memory: the curated figure (ground truth) drives "
    f"the verdict; formula: params × {fit.Q4_BITS_PER_PARAM:g}/8 GB.",
    "Best quant bits/weight": "Bits per weight of the most precise quantisation that fits at "
    "this context (sort by it: higher is closer to the original weights).",
}


def pick_hardware(gpus: pd.DataFrame) -> tuple[str, int]:
    kinds = ["GPU", "Apple profile"]
    kind = st.radio(
        "Hardware", kinds, horizontal=True, key="hf_kind", index=index_of(kinds, "kind", "GPU")
    )
    apple = kind == "Apple profile"
    names = catalog.gpu_choices(gpus, apple)
    ids = list(names)
    if not ids:
        st.warning(f"The catalog has no {kind.lower()} entries.")
        st.stop()
    default = (catalog.default_apple(gpus) if apple else None) or catalog.default_gpu(ids)
    gpu_id = st.selectbox(
        "Apple profile (GPU-usable memory)" if apple else "GPU", ids, key=f"hf_gpu_{apple}",
        index=index_of(ids, "gpu", default, label_of=names.get), format_func=names.get,
    )
    count = 1
    if not apple:
        count = st.number_input("GPU count", 1, 8, int_param("count", 1, 1, 8), key="hf_count")
    st.query_params.update(kind=kind, gpu=gpu_id, count=str(count))
    return gpu_id, int(count)


def _keep_in_url(name: str, value: str | list[str] | None) -> None:
    """``name=value`` in the URL; None (the default view) leaves it out."""
    if value is None:
        st.query_params.pop(name, None)
    else:
        st.query_params[name] = value


def pick_filters(models: pd.DataFrame) -> tuple[int, catalog.ModelFilter, bool]:
    cols = st.columns(4)
    context = cols[0].selectbox(
        "Context length (verdict at N tokens, KV cache)", CONTEXTS, key="hf_ctx",
        index=index_of(CONTEXTS, "ctx", DEFAULT_CONTEXT), format_func="{:,} tokens".format,
    )
    lic = cols[1].multiselect(
        "Licence class", LICENCE_CLASSES, key="hf_lic",
        default=multi_param("lic", LICENCE_CLASSES) or list(LICENCE_CLASSES),
    )
    top = float(models["total_params_b"].max() if models["total_params_b"].notna().any() else 1)
    start = range_param("size", 0.0, top) or (0.0, top)
    size = cols[2].slider("Parameters (B)", 0.0, top, start, key="hf_size")
    open_only = cols[3].checkbox(
        "Open weights only", value=flag_param("open", True), key="hf_open",
        help="Closed API models cannot be downloaded; untick to see their size estimate anyway.",
    )
    show_all = cols[3].toggle(
        "Show: All", value=flag_param("all"), key="hf_all",
        help="Also list models that do not fit, with the smallest rentable config that would.",
    )
    st.query_params.update(
        ctx=str(context), all="1" if show_all else "0", open="1" if open_only else "0"
    )
    _keep_in_url("lic", lic if set(lic) != set(LICENCE_CLASSES) else None)
    _keep_in_url("size", f"{size[0]:g}-{size[1]:g}" if size != (0.0, top) else None)
    size_range = None if size == (0.0, top) else size  # full range keeps undisclosed sizes
    flt = catalog.ModelFilter(tuple(lic), size_range, open_only)
    return context, flt, show_all


def render(table: pd.DataFrame, show_all: bool, context: int, lead: str | None = None) -> None:
    """The table; ``lead`` (the column the rows are sorted by) comes right after the verdict."""
    labels = columns(context)
    empty = fit_view.empty_speed_columns(table)
    keep = [
        c for c in labels
        if (show_all or not c.startswith("smallest_config")) and c not in empty
    ]
    if lead in keep:
        keep.remove(lead)
        keep.insert(keep.index("verdict") + 1, lead)
    renamed = table[keep].rename(columns=labels)
    verdict_columns = ["verdict", "context_verdict"]
    verdict_columns += [f"{p}_verdict" for p in fit.QUANT_PREFIX.values()]
    verdicts = [labels[c] for c in verdict_columns]
    number_formats = {k: v for k, v in formats(labels).items() if k in renamed}
    config = {
        name: st.column_config.LinkColumn(name, display_text=text) for name, text in LINKS.items()
    }
    config.update({name: st.column_config.Column(name, help=text) for name, text in HELP.items()})
    config.update(llm.number_columns(number_formats, HELP))
    config["Model"] = st.column_config.Column("Model", width="medium", pinned=True)
    config.update({name: llm.badge_column(name, VERDICT_BADGES) for name in verdicts})
    llm.show_table(
        llm.verdict_badges(renamed, verdicts), "hf_table", config,
        csv="hardware_fit.csv", csv_frame=renamed,
    )


BY_VERDICT = "Verdict, then Elo"


def pick_speed_view(table: pd.DataFrame) -> tuple[pd.DataFrame, int, str | None]:
    """Measured-only toggle and sort by one kind's measured speed (both kept in the URL);
    returns the narrowed table, how many rows of the full table have a measured speed and the
    kind sorted by (None: verdict order)."""
    n_measured = int(fit_view.has_measured_speed(table).sum())
    kinds = fit_view.speed_kinds_present(table)
    cols = st.columns([1, 1])
    measured_only = cols[0].toggle(
        "Only models with a measured speed", value=flag_param("measured"), key="hf_measured",
        help="Hide rows without a measured generation speed of any kind on this hardware.",
    )
    options = [BY_VERDICT, *(KIND_NAMES[k] for k in kinds)]
    by_name = {KIND_NAMES[k]: k for k in kinds}
    from_url = {throughput.KIND_PREFIX[k]: KIND_NAMES[k] for k in kinds}  # URL: ?sort=community
    from_url[""] = BY_VERDICT
    sort = cols[1].selectbox(
        "Sort by", options, key="hf_sort",
        index=options.index(from_url[one_of(list(from_url), "sort", "", label_of=from_url.get)]),
        format_func=lambda o: o if o == BY_VERDICT else f"measured {o} tok/s (fastest first)",
        help="Kinds are never merged into one sort: each measures something different.",
    )
    kind = by_name.get(sort)
    st.query_params.update(
        measured="1" if measured_only else "0", sort=throughput.KIND_PREFIX[kind] if kind else ""
    )
    return fit_view.narrowed(table, measured_only, kind), n_measured, kind


def say_speed_coverage(coverage: dict[str, int], label: str) -> None:
    """One line when the catalog has no measured row of a kind for this exact hardware."""
    missing = [kind for kind, n in coverage.items() if n == 0]
    if len(missing) == len(coverage):
        st.info(
            f"The catalog has no measured throughput for {label} (no llama.cpp, community, "
            "benchmarker, vendor or MLPerf row): the speed columns stay empty, never "
            "interpolated from other hardware."
        )
    elif missing:
        names = " or ".join(KIND_NAMES[k] for k in missing)
        st.caption(f"No {names} rows for {label} in the catalog.")


st.title("What fits my hardware")
version, tables = llm.served_catalog()
llm.show_freshness(version)
gpu_id, count = pick_hardware(tables.gpus)
context, flt, show_all = pick_filters(tables.models)
table = llm.load_fit_view(version, gpu_id, count, context, flt, show_all)
if table.empty:
    st.info(
        "No checkpoint with a known size matches these filters on this hardware: widen the "
        "licence classes or the size range, untick “Open weights only”, or switch on “Show: All”."
    )
    st.stop()
target = catalog.hardware(tables.gpus, gpu_id, count)
n_fit = int((table["status"] == catalog.FITS).sum())
overhead = f"{fit.RUNTIME_OVERHEAD:g}"
st.caption(
    f"Snapshot **{version}** · {n_fit} checkpoints fit {target.label} "
    f"(ratio ≤ {fit.FITS_MAX_RATIO:.1f}). Seed verdict: required = ground-truth Q4 figure "
    f"(published file size or measured memory) × {overhead}, else params × "
    f"{fit.Q4_BITS_PER_PARAM:g}/{fit.BITS_PER_BYTE} × {overhead}; ratio = required / budget: "
    + " · ".join(f"≤ {limit:.1f} {name}" for limit, name in fit.THRESHOLDS)
    + f" · above: {fit.VERDICTS[-1]}."
)
say_speed_coverage(llm.load_fit_speed_coverage(version, gpu_id, count), target.label)
shown, n_measured, sort_kind = pick_speed_view(table)
rows_word = "row has" if n_measured == 1 else "rows have"
st.caption(f"{n_measured:,} of {len(table):,} {rows_word} a measured speed on {target.label}.")
render(shown, show_all, context, fit_view.SPEED_COLUMNS.get(sort_kind))
st.caption(
    "Measured speed appears only where the catalog has a measured generation row for exactly "
    "this GPU and count (an 8× H100 row applies to 8× H100 only; never interpolated), in five "
    "kinds that are never mixed: llama.cpp single-stream decode tok/s, community single-stream "
    "runs (median, number of runs and range), a benchmarker's single-stream runs, the vendor's "
    "aggregate per GPU and MLPerf server throughput (scenario and system beside it). A row "
    "applies to the checkpoint it was measured on and, marked “measured on …”, to the other "
    "checkpoint of the same weights release with an identical architecture (base ↔ instruct); "
    "to nothing else. MoE models need memory for all parameters while speed tracks the active "
    "ones."
)
st.caption(
    f"Beside the seed verdict, never replacing it: the verdict at {context:,} tokens is Q4 "
    f"weights + KV cache ({fit.KV_TENSORS} × layers × KV heads × head dim × context × "
    f"{fit.KV_BYTES_PER_VALUE} bytes, fp16) against the budget, same thresholds, no extra "
    f"overhead factor; “{fit.KV_UNKNOWN}” where the catalog lacks layers / KV heads / head dim. "
    f"A model asked for more than its own maximum context is refused (“{fit.ABOVE_MAX_CONTEXT}”). "
    f"Per quantisation ({', '.join(fit.QUANTS)}): weights + the same KV cache at {context:,} "
    "tokens, same thresholds; weights from the published file where the catalog has one "
    "(Q4_K_M), else params × llama.cpp's bits per weight / 8 (labelled formula: an estimate, "
    "not a measurement). “Best quant that fits” is the most precise one with ratio ≤ "
    f"{fit.FITS_MAX_RATIO:.1f}; sort by its bits/weight."
)
st.caption(
    "One row per checkpoint: reasoning-effort / mode variants share weights, so they share a "
    "verdict; the best Elo of the variants is shown (“—” where none is rated). "
    "Config prices: median $/GPU-hour over provider catalogs; “thin” = fewer than "
    f"{catalog.MIN_PRICE_SOURCES} provider catalogs, used only when no better-supported config "
    "fits. Each GPU's offer and provider counts are in the fine-tune planner; SkyPilot's catalogs "
    "carry no date, so the catalog commit in the price link dates a price."
)
