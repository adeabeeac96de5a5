"""Fine-tune planner: memory parts, verdict and rough cost of tuning an open-weight model."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

import ui.data
from analytics.core.snapshot import CatalogError
from analytics.llm import discovery, finetune, quality

METHOD_CHOICES = ("auto", *finetune.METHODS)
VERDICT_COLOURS = {
    "fits": "background-color: #c8e6c9",
    "fits (tight)": "background-color: #fff59d",
    "won't fit": "background-color: #ef9a9a",
}
LIST_COLUMNS = {
    "display_name": "Model",
    "verdict": "Verdict",
    "method": "Method",
    "required_gb": "Required GB",
    "capacity_gb": "Capacity GB",
    "ratio": "Ratio",
    **{axis: axis for axis in quality.AXES},
    "coverage_label": "Axes scored",
    "total_params_b": "Params (B)",
    "licence_class": "Licence class",
    "licence_raw": "Licence",
    "variants": "Variants (one checkpoint)",
    "smallest_config": "Smallest rentable config",
    "config_method": "Method there",
}
FORMATS = {
    "Required GB": "{:.1f}",
    "Capacity GB": "{:.1f}",
    "Ratio": "{:.2f}",
    "Params (B)": "{:g}",
    **{axis: "{:.2f}" for axis in quality.AXES},
}


@st.cache_data(show_spinner=False)
def load_catalog(version: str) -> discovery.Catalog:
    """Catalog tables of one snapshot version (the cache key)."""
    return discovery.load_catalog(ui.data.connection())


@st.cache_data(show_spinner=False)
def load_plan(
    version: str, model_id: str, gpu_id: str, count: int, recipe: str, method: str, samples: int
) -> discovery.FinetuneView:
    """Plan and rough cost for one model on one hardware choice."""
    catalog = load_catalog(version)
    target = discovery.hardware(catalog.gpus, gpu_id, count)
    return discovery.finetune_view(catalog, model_id, target, recipe, method, samples)


@st.cache_data(show_spinner=False)
def load_list(
    version: str,
    gpu_id: str,
    count: int,
    recipe: str,
    method: str,
    axes: tuple[str, ...],
    show_all: bool,
) -> pd.DataFrame:
    """Discovery list: one row per checkpoint, models that fit first."""
    catalog = load_catalog(version)
    target = discovery.hardware(catalog.gpus, gpu_id, count)
    return discovery.finetune_discovery_view(
        catalog, target, recipe, method, axes, show_all=show_all
    )


def _param(name: str, default: str) -> str:
    return st.query_params.get(name, default)


def _int_param(name: str, default: int, lo: int, hi: int) -> int:
    text = _param(name, str(default))
    return min(max(int(text), lo), hi) if text.isdigit() else default


def _choice(label: str, options: list, name: str, default, **kwargs):
    wanted = _param(name, str(default))
    keys = [str(o) for o in options]
    index = keys.index(wanted) if wanted in keys else keys.index(str(default))
    return st.selectbox(label, options, index=index, key=f"ft_{name}", **kwargs)


def pick_model(models: pd.DataFrame) -> str:
    cand = finetune.finetunable(models).sort_values(["display_name", "model_id"])
    if cand.empty:
        st.warning("No open-weight model with a known parameter count in this catalog.")
        st.stop()
    labels = {
        m: f"{n} · {p:g}B" for m, n, p in zip(cand["model_id"], cand["display_name"],
                                               cand["total_params_b"], strict=True)
    }  # fmt: skip
    ids = list(labels)
    return _choice("Model (open weights, known size)", ids, "model", ids[0], format_func=labels.get)


def pick_hardware(gpus: pd.DataFrame) -> tuple[str, int]:
    apple = _choice("Hardware", ["GPU", "Apple profile"], "kind", "GPU") == "Apple profile"
    names = discovery.gpu_choices(gpus, apple)
    if not names:
        st.warning("The catalog has no entries of that kind.")
        st.stop()
    label = "Apple profile (GPU-usable memory)" if apple else "GPU"
    ids = list(names)
    default = discovery.DEFAULT_GPU if discovery.DEFAULT_GPU in ids else ids[0]
    param = "apple" if apple else "gpu"
    gpu_id = _choice(label, ids, param, default, format_func=names.get)
    count = 1
    if not apple:
        count = st.number_input("GPU count", 1, 8, _int_param("count", 1, 1, 8), key="ft_count")
    kind = "Apple profile" if apple else "GPU"
    st.query_params.update({"kind": kind, param: gpu_id, "count": str(count)})
    return gpu_id, int(count)


def _preset_changed() -> None:
    st.session_state["ft_samples"] = finetune.DATASET_PRESETS[st.session_state["ft_preset"]]


def pick_training() -> tuple[str, str, int]:
    cols = st.columns(3)
    with cols[0]:
        method = _choice(
            "Method", list(METHOD_CHOICES), "method", "auto",
            format_func=lambda m: "auto (highest fidelity that fits)" if m == "auto"
            else finetune.METHOD_LABELS[m],
        )  # fmt: skip
    with cols[1]:
        recipe = _choice(
            "Recipe",
            list(finetune.RECIPES),
            "recipe",
            "sft",
            format_func=finetune.RECIPE_LABELS.get,
        )
    with cols[2]:
        st.selectbox(
            "Dataset preset", list(finetune.DATASET_PRESETS), index=1, key="ft_preset",
            on_change=_preset_changed,
        )  # fmt: skip
    if "ft_samples" not in st.session_state:
        st.session_state["ft_samples"] = _int_param("samples", 10_000, 100, 1_000_000)
    samples = st.slider("Samples", 100, 1_000_000, step=100, key="ft_samples")
    return method, recipe, int(samples)


def show_plan(view: discovery.FinetuneView) -> None:
    plan = view.plan
    cols = st.columns(4)
    cols[0].metric("Verdict", plan.verdict, help="ratio ≤ 0.8 fits · ≤ 1.0 fits (tight)")
    cols[1].metric("Method", finetune.METHOD_LABELS[plan.method])
    cols[2].metric("Required", f"{plan.required_gb:,.1f} GB", help="exact sum of the parts")
    cols[3].metric("Capacity", f"{plan.capacity_gb:,.1f} GB", f"ratio {plan.ratio:.2f}",
                   delta_color="off")  # fmt: skip
    fig = px.bar(
        view.parts.assign(model=view.display_name), x="gb", y="model", color="part",
        orientation="h", labels={"gb": "GB", "model": ""}, text_auto=".1f",
    )  # fmt: skip
    fig.add_vline(x=plan.capacity_gb, line_dash="dash", annotation_text="capacity")
    fig.update_layout(barmode="stack", height=260, margin={"t": 30}, legend_title_text="")
    st.plotly_chart(fig, key="ft_parts")


def show_cost(view: discovery.FinetuneView) -> None:
    st.subheader("Rough estimate")
    cost = view.cost
    cols = st.columns(3)
    gpu_h = "—" if cost is None else f"{cost.gpu_hours:,.1f}"
    wall = "—" if cost is None else f"{cost.wall_clock_hours:,.1f} h"
    usd = "—" if cost is None or cost.cost_usd is None else f"${cost.cost_usd:,.0f}"
    cols[0].metric("GPU-hours (rough)", gpu_h, help="independent of the GPU count")
    cols[1].metric("Wall-clock (rough)", wall)
    cols[2].metric("Cost (rough)", usd)
    if view.cost_note:
        st.info(view.cost_note)
    st.caption(
        "Rough by design: samples × 1,024 tokens × 3 epochs; 6 × params × tokens FLOPs (active "
        "params for MoE) × recipe factor (SFT 1, DPO 2.5, RL 8) at 35% of peak bf16; priced at "
        "the catalog's typical rental rate per GPU-hour."
    )


def show_list(version: str, gpu_id: str, count: int, recipe: str, method: str) -> None:
    st.subheader("Which models can I fine-tune on this hardware?")
    cols = st.columns([3, 1])
    axes = cols[0].multiselect(
        "Rank by quality axes", list(quality.AXES), default=list(quality.AXES), key="ft_axes"
    )
    show_all = cols[1].toggle("Show: All", value=_param("all", "0") == "1", key="ft_all")
    st.query_params["all"] = "1" if show_all else "0"
    if not axes:
        st.info("Pick at least one quality axis to rank the list.")
        return
    table = load_list(version, gpu_id, count, recipe, method, tuple(axes), show_all)
    shown = table[[c for c in LIST_COLUMNS if c in table and (show_all or "config" not in c)]]
    shown = shown.rename(columns=LIST_COLUMNS)
    styled = shown.style.format({k: v for k, v in FORMATS.items() if k in shown}, na_rep="—").map(
        lambda v: VERDICT_COLOURS.get(v, ""), subset=["Verdict"]
    )
    st.dataframe(styled, key="ft_table", hide_index=True, placeholder="—")
    st.caption(
        "Ranked by coverage first: a model scored on more of the selected axes outranks one "
        "scored on fewer. Thinking / non-thinking variants of the same weights share one row; "
        "the variant with the widest coverage represents the checkpoint. “—” = no score."
    )


st.title("Fine-tune planner")
try:
    version = ui.data.snapshot_version()
except CatalogError as exc:
    st.error(f"The catalog does not validate: {exc.problems[0]}")
    st.stop()
catalog = load_catalog(version)
left, right = st.columns(2)
with left:
    model_id = pick_model(catalog.models)
with right:
    gpu_id, count = pick_hardware(catalog.gpus)
method, recipe, samples = pick_training()
st.query_params.update(
    model=model_id, method=method, recipe=recipe, samples=str(samples), count=str(count)
)
view = load_plan(version, model_id, gpu_id, count, recipe, method, samples)
show_plan(view)
show_cost(view)
show_list(version, gpu_id, count, recipe, method)
