"""Fine-tune planner: memory parts, verdict and rough cost of tuning an open-weight model."""

from __future__ import annotations

from functools import partial

import pandas as pd
import plotly.express as px
import streamlit as st

from analytics.llm import catalog, finetune, finetune_view, quality
from ui import format as fmt
from ui import llm
from ui.params import choice, flag_param, index_of, int_param

METHOD_CHOICES = ("auto", *finetune.METHODS)
VERDICT_HELP = "ratio " + " · ".join(f"≤ {upper:.1f} {name}" for upper, name in finetune.THRESHOLDS)
FACTORS = ", ".join(
    f"{finetune.RECIPE_LABELS[r].split(' ')[0]} {m:g}"
    for r, m in finetune.RECIPE_FLOP_MULTIPLIER.items()
)
COST_CAPTION = (
    f"Rough by design: samples × {finetune.TOKENS_PER_SAMPLE:,} tokens × {finetune.EPOCHS} "
    f"epochs; {finetune.FLOPS_PER_PARAM_TOKEN} × params × tokens FLOPs (active params for MoE) × "
    f"recipe factor ({FACTORS}) at {finetune.MFU:.0%} of peak bf16; priced at the catalog's "
    "typical rental rate per GPU-hour. LoRA and QLoRA change the memory above, not this FLOPs "
    "estimate: the seed counts the full model's training FLOPs for every method."
)
SAMPLE_STEPS = sorted(
    {m * 10**k for k in range(2, 6) for m in (1, 2, 5)} | set(finetune.DATASET_PRESETS.values())
)  # 100 … 1,000,000 in 1-2-5 steps: a log-scale control
ft_choice = partial(choice, key_prefix="ft")  # URL-bound selectbox with this page's widget keys
# verdict badge colours (translucent: the theme's text colour stays readable in both themes)
VERDICT_BADGES = {finetune.FITS: llm.GOOD, finetune.TIGHT: llm.CAUTION, finetune.WONT_FIT: llm.BAD}
MEASURED_CAPTION = (
    "LoRA and QLoRA change the memory, not the seed's FLOPs estimate (the cost below counts the "
    "full model's training FLOPs for every method). The formula is the seed's and is never "
    "adjusted to a measurement."
)
LIST_COLUMNS = {
    "display_name": "Model",
    "verdict": "Verdict",
    "method": "Method",
    "required_gb": "Required (GB)",
    "capacity_gb": "Capacity (GB)",
    "ratio": "Ratio",
    **{axis: axis for axis in quality.AXES},
    "coverage_label": "Axes scored",
    "total_params_b": "Params (B)",
    "licence_class": "Licence class",
    "licence_raw": "Licence",
    "rating": "Best Elo (variants)",
    "variants": "Variants (one checkpoint)",
    "smallest_config": "Smallest rentable config",
    "smallest_config_price": "Config price (source)",
    "config_method": "Method there",
}
DECIMALS = {
    "Required (GB)": 1,
    "Capacity (GB)": 1,
    "Ratio": 2,
    "Params (B)": 1,
    "Best Elo (variants)": fmt.ELO_DECIMALS,
    **{axis: 2 for axis in quality.AXES},
}  # fixed decimals per numeric column of the list (one rule: ui.format)
# a metric's value must fit a quarter of the page: the method's short name (help: the full one)
SHORT_METHOD = {"full": "Full", "lora": "LoRA", "qlora": "QLoRA"}
MEMORY_AXIS = "Memory (GB)"  # seed 002's unit: GB of 10^9 bytes, as the GPUs are sold


def pick_model(version: str) -> str:
    choices, default = llm.load_model_choices(version)
    if choices.empty:
        st.warning("No open-weight model with a known parameter count in this catalog.")
        st.stop()
    query = st.text_input("Search models by name", key="ft_search", placeholder="e.g. qwen 7b")
    found = finetune_view.search_choices(choices, query)
    if found.empty:
        st.warning(f"No model matches “{query}”; fix: shorten the search. Showing all models.")
        found = choices
    labels = dict(zip(found["model_id"], found["label"], strict=True))
    ids = list(labels)
    label = "Model (open weights, known size; one per checkpoint)"
    return ft_choice(label, ids, "model", default or ids[0], format_func=labels.get)


def pick_hardware(gpus: pd.DataFrame) -> tuple[str, int]:
    apple = ft_choice("Hardware", ["GPU", "Apple profile"], "kind", "GPU") == "Apple profile"
    names = catalog.gpu_choices(gpus, apple)
    if not names:
        st.warning("The catalog has no entries of that kind.")
        st.stop()
    label = "Apple profile (GPU-usable memory)" if apple else "GPU"
    ids = list(names)
    default = (finetune_view.default_apple(gpus) if apple else None) or catalog.default_gpu(ids)
    param = "apple" if apple else "gpu"
    gpu_id = ft_choice(label, ids, param, default, format_func=names.get)
    count = 1
    if not apple:
        count = st.number_input("GPU count", 1, 8, int_param("count", 1, 1, 8), key="ft_count")
    kind = "Apple profile" if apple else "GPU"
    st.query_params.update({"kind": kind, param: gpu_id, "count": str(count)})
    return gpu_id, int(count)


def _preset_changed() -> None:
    st.session_state["ft_samples"] = finetune.DATASET_PRESETS[st.session_state["ft_preset"]]


def pick_training() -> tuple[str, str, int]:
    cols = st.columns(3)
    with cols[0]:
        method = ft_choice(
            "Method", list(METHOD_CHOICES), "method", "auto",
            format_func=lambda m: "auto (highest fidelity that fits)" if m == "auto"
            else finetune.METHOD_LABELS[m],
        )
    with cols[1]:
        recipe = ft_choice(
            "Recipe",
            list(finetune.RECIPES),
            "recipe",
            "sft",
            format_func=finetune.RECIPE_LABELS.get,
        )
    with cols[2]:
        presets = list(finetune.DATASET_PRESETS)
        preset = st.selectbox(
            "Dataset preset", presets, index=index_of(presets, "preset", presets[1]),
            key="ft_preset", on_change=_preset_changed,
        )
        st.query_params["preset"] = preset
    if "ft_samples" not in st.session_state:
        preset_samples = finetune.DATASET_PRESETS[preset]  # a shared preset without samples
        st.session_state["ft_samples"] = int_param("samples", preset_samples, 100, 1_000_000)
    steps = sorted({*SAMPLE_STEPS, int(st.session_state["ft_samples"])})
    samples = st.select_slider(
        "Samples (log scale)", steps, key="ft_samples", format_func="{:,}".format,
        help=f"each sample is {finetune.TOKENS_PER_SAMPLE:,} tokens, trained {finetune.EPOCHS}×",
    )
    return method, recipe, int(samples)


def show_plan(view: finetune_view.FinetuneView) -> None:
    plan = view.plan
    cols = st.columns(4)
    cols[0].metric("Verdict", plan.verdict, help=VERDICT_HELP)
    short = SHORT_METHOD.get(plan.method, plan.method)
    cols[1].metric("Method", short, help=fmt.finetune_method_name(plan.method))
    cols[2].metric("Required", f"{plan.required_gb:,.1f} GB", help="exact sum of the parts")
    cols[3].metric("Capacity", f"{plan.capacity_gb:,.1f} GB", f"ratio {plan.ratio:.2f}",
                   delta_color="off")
    st.plotly_chart(memory_chart(view), key="ft_parts")


def memory_chart(view: finetune_view.FinetuneView):
    """The memory parts as one stacked bar against the capacity line: the model named in the
    title (no tick label takes the bar's width), the legend under the plot, a minimum height
    (a readable bar at phone width) and a capacity line visible on both themes."""
    plan = view.plan
    fig = px.bar(
        view.parts.assign(model=view.display_name), x="gb", y="model", color="part",
        orientation="h", labels={"gb": MEMORY_AXIS, "model": "", "part": ""}, text_auto=".1f",
    )
    fig.add_vline(
        x=plan.capacity_gb, line_dash="dash", line_color=fmt.ACCENT, line_width=2,
        annotation_text=f"capacity {plan.capacity_gb:,.1f} GB", annotation_position="top left",
    )
    top = max(plan.capacity_gb, plan.required_gb) * 1.08  # the line and the bar both in view
    fig.update_layout(
        barmode="stack", title=f"Memory needed by {view.display_name}",
        margin={"t": 70, "l": 10, "r": 10}, xaxis={"range": [0, top], "tickformat": ",.0f"},
    )
    fig.update_yaxes(showticklabels=False)
    return fmt.readable(fig, min_height=360)


def show_cost(view: finetune_view.FinetuneView) -> None:
    st.subheader("Rough estimate")
    cost = view.cost
    cols = st.columns(3)
    gpu_h = "—" if cost is None else f"{cost.gpu_hours:,.1f}"
    wall = "—" if cost is None else f"{cost.wall_clock_hours:,.1f} h"
    usd = "—" if cost is None or cost.cost_usd is None else f"${cost.cost_usd:,.0f}"
    on = view.priced_on
    where = None if on is None else f"on {on.label}"
    cols[0].metric("GPU-hours (rough)", gpu_h, help="independent of the GPU count")
    cols[1].metric("Wall-clock (rough)", wall, help=where)
    cols[2].metric("Cost (rough)", usd, help=where)
    if view.priced_note:
        st.warning(view.priced_note[:1].upper() + view.priced_note[1:])
    if view.cost_note and view.cost_note != view.priced_note:
        st.info(view.cost_note)
    show_options(view)
    if on is not None and on.price is not None:
        st.caption(f"Price on {on.label}: {finetune_view.price_label(on)}.")
        if finetune_view.is_thin(on.price):
            st.caption(
                f"Thin price: fewer than {finetune_view.MIN_PRICE_OFFERS} offers or a single "
                "provider's catalog back it; treat the $ figure with extra caution."
            )
    st.caption(COST_CAPTION)


OPTION_COLUMNS = {
    "role": st.column_config.TextColumn("Config", help=" · ".join(
        f"{k}: {v}" for k, v in finetune_view.CONFIG_ROLES.items())),
    "config": "Rentable hardware",
    "method": "Method there",
    "cost_usd": st.column_config.NumberColumn("Cost (rough, $)", format="$%.0f"),
    "wall_clock_hours": st.column_config.NumberColumn("Wall-clock (h)", format="%.1f"),
    "gpu_hours": st.column_config.NumberColumn("GPU-hours", format="%.1f"),
    "usd_per_gpu_hour": st.column_config.NumberColumn("$/GPU-hour", format="$%.2f"),
    "price_date": st.column_config.TextColumn(
        "Price dated", help="The day the price applies, where its source records one."
    ),
    "price": st.column_config.TextColumn("Price source", width="large"),
}


def show_options(view: finetune_view.FinetuneView) -> None:
    """The seed's smallest rentable config beside the cheapest and the fastest that fit."""
    if not view.options:
        return
    table = finetune_view.options_table(view.options)
    table = table.assign(
        method=[fmt.finetune_method_name(m) for m in table["method"]],
        price_date=table["price_date"].fillna("not recorded"),
    )
    st.markdown("**Where to rent it**: the smallest, the cheapest and the fastest config")
    llm.show_table(table, "ft_options", OPTION_COLUMNS)


def show_measured(view: finetune_view.FinetuneView) -> None:
    """Formula vs measured, where LitGPT measured this model's fine-tune memory."""
    rows = view.measured
    if rows is None or rows.empty:
        return
    st.markdown("**Formula vs measured** (LitGPT fine-tune peak memory)")
    for r in rows.to_dict("records"):
        on = r.get("measured_on")
        other = f" · measured on {on}" if on and on != view.model_id else ""
        st.markdown(
            f"- {finetune.METHOD_LABELS[r['formula_method']]} ({r['quantization']}, micro-batch "
            f"1) on {r['gpu_id']}: measured **{r['measured_gb']:.2f} GB**, formula "
            f"**{r['formula_gb']:.2f} GB**, ratio {r['ratio']:.2f} (the formula is "
            f"{1 / r['ratio']:.2f}× the measurement){other} · LitGPT [source]({r['source_url']})"
        )
    st.caption(MEASURED_CAPTION)


def show_list(version: str, gpu_id: str, count: int, recipe: str, method: str) -> None:
    st.subheader("Which models can I fine-tune on this hardware?")
    cols = st.columns([3, 1])
    axes = cols[0].multiselect(
        "Rank by quality axes", list(quality.AXES), default=list(quality.AXES), key="ft_axes"
    )
    show_all = cols[1].toggle("Show: All", value=flag_param("all"), key="ft_all")
    st.query_params["all"] = "1" if show_all else "0"
    if not axes:
        st.info("Pick at least one quality axis to rank the list.")
        return
    table = llm.load_finetune_list(version, gpu_id, count, recipe, method, tuple(axes), show_all)
    orders = list(finetune_view.LIST_ORDERS)
    order = ft_choice(
        "Order", orders, "order", finetune_view.BY_RATING,
        format_func=finetune_view.LIST_ORDERS.get,
    )
    st.query_params["order"] = order
    table = finetune_view.ordered(table, order)
    shown = table[[c for c in LIST_COLUMNS if c in table and (show_all or "config" not in c)]]
    named = [c for c in ("method", "config_method") if c in shown]
    methods = {c: [fmt.finetune_method_name(m) for m in shown[c]] for c in named}
    shown = shown.assign(**methods).rename(columns=LIST_COLUMNS)
    config = {k: fmt.number_column(k, d) for k, d in DECIMALS.items() if k in shown}
    config["Model"] = st.column_config.Column("Model", width="medium", pinned=True)
    config["Verdict"] = llm.badge_column("Verdict", VERDICT_BADGES, VERDICT_HELP)
    llm.show_table(
        llm.verdict_badges(shown, ["Verdict"]), "ft_table", config,
        csv="finetune_list.csv", csv_frame=shown,
    )
    st.caption(
        "Best Elo first: models that fit, highest best Elo of their variants first (unrated "
        "after). Quality axes: coverage first, so a model scored on more of the selected axes "
        "outranks one scored on fewer. Thinking / non-thinking variants of the same weights "
        "share one row; the variant with the widest coverage represents the checkpoint. “—” = "
        "no score."
    )


st.title("Fine-tune planner")
version, tables = llm.served_catalog()
llm.show_freshness(version)
left, right = st.columns(2)
with left:
    model_id = pick_model(version)
with right:
    gpu_id, count = pick_hardware(tables.gpus)
method, recipe, samples = pick_training()
st.query_params.update(
    model=model_id, method=method, recipe=recipe, samples=str(samples), count=str(count)
)
view = llm.load_plan(version, model_id, gpu_id, count, recipe, method, samples)
show_plan(view)
show_measured(view)
show_cost(view)
show_list(version, gpu_id, count, recipe, method)
