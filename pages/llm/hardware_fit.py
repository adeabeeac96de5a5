"""What fits my hardware: seed verdicts per model for a GPU (x count) or an Apple profile."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analytics.core.licences import LICENCE_CLASSES
from analytics.llm import catalog, fit
from ui import llm
from ui.params import flag_param, index_of, int_param

CONTEXTS = (2048, 8192, 32768, 131072)
DEFAULT_CONTEXT = 8192
VERDICT_COLOURS = {
    fit.COMFORTABLE: "background-color: #c8e6c9",
    fit.TIGHT: "background-color: #fff59d",
    fit.OFFLOAD: "background-color: #ffcc80",
    fit.WONT_RUN: "background-color: #ef9a9a",
}
COLUMNS = {
    "display_name": "Model",
    "verdict": "Verdict",
    "required_gb": "Required GB",
    "budget_gb": "Budget GB",
    "ratio": "Ratio",
    "measured_tokens_per_s": "Measured tok/s",
    "measured_quant": "Measured quant",
    "measured_source_url": "Measured source",
    "kv_cache_gb": "KV cache GB",
    "q4_plus_kv_gb": "Q4 weights + KV GB",
    "rating": "Best Elo (variants)",
    "total_params_b": "Params (B)",
    "active_params_b": "Active (B)",
    "licence_class": "Licence class",
    "licence_raw": "Licence",
    "variants": "Variants (one checkpoint)",
    "smallest_config": "Smallest rentable config",
    "smallest_config_price": "Config price (source)",
}
FORMATS = {
    "Required GB": "{:.1f}",
    "Budget GB": "{:.1f}",
    "Ratio": "{:.2f}",
    "Measured tok/s": "{:.1f}",
    "KV cache GB": "{:.2f}",
    "Q4 weights + KV GB": "{:.1f}",
    "Best Elo (variants)": "{:.1f}",
    "Params (B)": "{:g}",
    "Active (B)": "{:g}",
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
        index=index_of(ids, "gpu", default), format_func=names.get,
    )  # fmt: skip
    count = 1
    if not apple:
        count = st.number_input("GPU count", 1, 8, int_param("count", 1, 1, 8), key="hf_count")
    st.query_params.update(kind=kind, gpu=gpu_id, count=str(count))
    return gpu_id, int(count)


def pick_filters(models: pd.DataFrame) -> tuple[int, catalog.ModelFilter, bool]:
    cols = st.columns(4)
    context = cols[0].selectbox(
        "Context length (KV-cache column)", CONTEXTS, key="hf_ctx",
        index=index_of(CONTEXTS, "ctx", DEFAULT_CONTEXT), format_func="{:,} tokens".format,
    )  # fmt: skip
    lic = cols[1].multiselect(
        "Licence class", LICENCE_CLASSES, default=list(LICENCE_CLASSES), key="hf_lic"
    )
    top = float(models["total_params_b"].max() if models["total_params_b"].notna().any() else 1)
    size = cols[2].slider("Parameters (B)", 0.0, top, (0.0, top), key="hf_size")
    open_only = cols[3].checkbox(
        "Open weights only", value=flag_param("open", True), key="hf_open",
        help="Closed API models cannot be downloaded; untick to see their size estimate anyway.",
    )  # fmt: skip
    show_all = cols[3].toggle(
        "Show: All", value=flag_param("all"), key="hf_all",
        help="Also list models that do not fit, with the smallest rentable config that would.",
    )  # fmt: skip
    st.query_params.update(
        ctx=str(context), all="1" if show_all else "0", open="1" if open_only else "0"
    )
    size_range = None if size == (0.0, top) else size  # full range keeps undisclosed sizes
    flt = catalog.ModelFilter(tuple(lic), size_range, open_only)
    return context, flt, show_all


def render(table: pd.DataFrame, show_all: bool) -> None:
    shown = table[[c for c in COLUMNS if show_all or not c.startswith("smallest_config")]]
    renamed = shown.rename(columns=COLUMNS)
    styled = renamed.style.format(
        FORMATS, na_rep="—", subset=[c for c in FORMATS if c in renamed]
    ).map(lambda v: VERDICT_COLOURS.get(v, ""), subset=["Verdict"])
    st.dataframe(
        styled, key="hf_table", hide_index=True,
        column_config={"Measured source": st.column_config.LinkColumn(display_text="source")},
        placeholder="—",
    )  # fmt: skip


st.title("What fits my hardware")
version, tables = llm.served_catalog()
llm.show_freshness(version)
gpu_id, count = pick_hardware(tables.gpus)
context, flt, show_all = pick_filters(tables.models)
table = llm.load_fit_view(version, gpu_id, count, context, flt, show_all)
n_fit = int((table["status"] == catalog.FITS).sum())
overhead = f"{fit.RUNTIME_OVERHEAD:g}"
st.caption(
    f"Snapshot **{version}** · {n_fit} models fit (ratio ≤ {fit.FITS_MAX_RATIO:.1f}). Required = "
    f"curated Q4 VRAM × {overhead}, else params × {fit.Q4_BITS_PER_PARAM:g}/{fit.BITS_PER_BYTE} "
    f"× {overhead}; ratio = required / budget: "
    + " · ".join(f"≤ {limit:.1f} {name}" for limit, name in fit.THRESHOLDS)
    + f" · above: {fit.VERDICTS[-1]}."
)
render(table, show_all)
st.caption(
    "Measured tok/s appears only where the catalog has a measured generation row for exactly this "
    "GPU and count (never interpolated); MoE models need memory for all parameters while speed "
    f"tracks the active ones. The KV-cache column ({fit.KV_TENSORS} × layers × KV heads × head dim "
    f"× context × {fit.KV_BYTES_PER_VALUE} bytes) is a refinement shown beside the verdict, never "
    "replacing it. One row per checkpoint: reasoning-effort / mode variants share weights, so "
    "they share a verdict; the best Elo of the variants is shown (“—” where none is rated). "
    "Config prices: median $/GPU-hour over provider catalogs; “thin” = fewer than "
    f"{catalog.MIN_PRICE_SOURCES} provider catalogs, used only when no better-supported config "
    "fits. The catalog records no offer counts or price dates."
)
