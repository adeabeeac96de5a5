"""What fits my hardware: seed verdicts per model for a GPU (x count) or an Apple profile."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui.data
from analytics.core.licences import LICENCE_CLASSES
from analytics.core.snapshot import CatalogError
from analytics.llm import discovery
from analytics.llm.fit import THRESHOLDS, VERDICTS

CONTEXTS = (2048, 8192, 32768, 131072)
VERDICT_COLOURS = {
    "fits comfortably": "background-color: #c8e6c9",
    "fits (tight)": "background-color: #fff59d",
    "partial offload": "background-color: #ffcc80",
    "won't run": "background-color: #ef9a9a",
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
    "rating": "Elo rating",
    "total_params_b": "Params (B)",
    "active_params_b": "Active (B)",
    "licence_class": "Licence class",
    "licence_raw": "Licence",
    "smallest_config": "Smallest rentable config",
}
FORMATS = {
    "Required GB": "{:.1f}",
    "Budget GB": "{:.1f}",
    "Ratio": "{:.2f}",
    "Measured tok/s": "{:.1f}",
    "KV cache GB": "{:.2f}",
    "Q4 weights + KV GB": "{:.1f}",
    "Elo rating": "{:.1f}",
    "Params (B)": "{:g}",
    "Active (B)": "{:g}",
}


@st.cache_data(show_spinner=False)
def load_catalog(version: str) -> discovery.Catalog:
    """Catalog tables of one snapshot version (the cache key)."""
    return discovery.load_catalog(ui.data.connection())


@st.cache_data(show_spinner="Fitting Elo ratings…")
def load_ratings(version: str) -> pd.DataFrame:
    """Elo ratings of one snapshot version, shown beside each model."""
    return discovery.elo_ratings(ui.data.connection())


@st.cache_data(show_spinner=False)
def load_view(
    version: str,
    gpu_id: str,
    count: int,
    context: int,
    flt: discovery.ModelFilter,
    show_all: bool,
) -> pd.DataFrame:
    """The fit table for one hardware choice and filter set."""
    catalog = load_catalog(version)
    target = discovery.hardware(catalog.gpus, gpu_id, count)
    ratings = load_ratings(version)
    return discovery.hardware_fit_view(catalog, ratings, target, context, flt, show_all)


def _param(name: str, default: str) -> str:
    return st.query_params.get(name, default)


def _int_param(name: str, default: int, lo: int, hi: int) -> int:
    text = _param(name, str(default))
    return min(max(int(text), lo), hi) if text.isdigit() else default


def pick_hardware(gpus: pd.DataFrame) -> tuple[str, int]:
    kinds = ["GPU", "Apple profile"]
    kind = st.radio(
        "Hardware", kinds, horizontal=True, key="hf_kind",
        index=kinds.index(_param("kind", "GPU")) if _param("kind", "GPU") in kinds else 0,
    )  # fmt: skip
    apple = kind == "Apple profile"
    names = discovery.gpu_choices(gpus, apple)
    ids = list(names)
    if not ids:
        st.warning(f"The catalog has no {kind.lower()} entries.")
        st.stop()
    wanted = _param("gpu", discovery.DEFAULT_GPU if discovery.DEFAULT_GPU in ids else ids[0])
    gpu_id = st.selectbox(
        "Apple profile (GPU-usable memory)" if apple else "GPU", ids, key=f"hf_gpu_{apple}",
        index=ids.index(wanted) if wanted in ids else 0, format_func=names.get,
    )  # fmt: skip
    count = 1
    if not apple:
        count = st.number_input("GPU count", 1, 8, _int_param("count", 1, 1, 8), key="hf_count")
    st.query_params.update(kind=kind, gpu=gpu_id, count=str(count))
    return gpu_id, int(count)


def pick_filters(models: pd.DataFrame) -> tuple[int, discovery.ModelFilter, bool]:
    cols = st.columns(4)
    ctx = _int_param("ctx", 8192, 1, 10**7)
    context = cols[0].selectbox(
        "Context length (KV-cache column)", CONTEXTS, key="hf_ctx",
        index=CONTEXTS.index(ctx) if ctx in CONTEXTS else 1, format_func="{:,} tokens".format,
    )  # fmt: skip
    lic = cols[1].multiselect(
        "Licence class", LICENCE_CLASSES, default=list(LICENCE_CLASSES), key="hf_lic"
    )
    top = float(models["total_params_b"].max() if models["total_params_b"].notna().any() else 1)
    size = cols[2].slider("Parameters (B)", 0.0, top, (0.0, top), key="hf_size")
    open_only = cols[3].checkbox(
        "Open weights only", value=_param("open", "1") == "1", key="hf_open",
        help="Closed API models cannot be downloaded; untick to see their size estimate anyway.",
    )  # fmt: skip
    show_all = cols[3].toggle(
        "Show: All", value=_param("all", "0") == "1", key="hf_all",
        help="Also list models that do not fit, with the smallest rentable config that would.",
    )  # fmt: skip
    st.query_params.update(
        ctx=str(context), all="1" if show_all else "0", open="1" if open_only else "0"
    )
    size_range = None if size == (0.0, top) else size  # full range keeps undisclosed sizes
    flt = discovery.ModelFilter(tuple(lic), size_range, open_only)
    return context, flt, show_all


def render(table: pd.DataFrame, show_all: bool) -> None:
    shown = table[[c for c in COLUMNS if show_all or c != "smallest_config"]]
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
try:
    version = ui.data.snapshot_version()
except CatalogError as exc:
    st.error(f"The catalog does not validate: {exc.problems[0]}")
    st.stop()
catalog = load_catalog(version)
gpu_id, count = pick_hardware(catalog.gpus)
context, flt, show_all = pick_filters(catalog.models)
table = load_view(version, gpu_id, count, context, flt, show_all)
n_fit = int((table["status"] == "fits").sum())
st.caption(
    f"Snapshot **{version}** · {n_fit} models fit (ratio ≤ 1.0). Required = curated Q4 VRAM × "
    "1.08, else params × 4.5/8 × 1.08; ratio = required / budget: "
    + " · ".join(f"≤ {limit:.1f} {name}" for limit, name in THRESHOLDS)
    + f" · above: {VERDICTS[-1]}."
)
render(table, show_all)
st.caption(
    "Measured tok/s appears only where the catalog has a measured generation row for exactly this "
    "GPU and count (never interpolated); MoE models need memory for all parameters while speed "
    "tracks the active ones. The KV-cache column (2 × layers × KV heads × head dim × context × 2 "
    "bytes) is a refinement shown beside the verdict, never replacing it. Elo rating: “—” where "
    "a model has no scores."
)
