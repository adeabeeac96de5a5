"""The fine-tune planner's views (seed 002, "Fine-tuning fit & cost" and "Discovery"): one
model's plan and rough cost, and the list of models that can be tuned on the user's hardware."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analytics.llm import catalog as cat
from analytics.llm import finetune, quality


def finetune_list(
    models: pd.DataFrame,
    target: cat.Hardware,
    gpus: pd.DataFrame,
    recipe: str = "sft",
    method: str = "auto",
    show_all: bool = False,
) -> pd.DataFrame:
    """Fine-tune list over open-weight models with known size: method, required_gb, ratio,
    verdict on ``target``; ``show_all`` adds models that do not fit with ``smallest_config``."""
    cand = finetune.finetunable(models).reset_index(drop=True)
    plans = [finetune.plan(p, recipe, target.budget_gb, method) for p in cand["total_params_b"]]
    table = cand.assign(
        method=[p.method for p in plans],
        required_gb=[p.required_gb for p in plans],
        capacity_gb=target.budget_gb,
        ratio=[p.ratio for p in plans],
        verdict=[p.verdict for p in plans],
        fits=[p.fits for p in plans],
    )
    table["status"] = [cat.FITS if f else cat.WONT_FIT for f in table["fits"]]
    table["smallest_config"] = None
    table["config_method"] = None
    if show_all:
        configs = cat.rentable_configs(gpus)
        missing = ~table["fits"]
        found = [
            _finetune_config(configs, p, recipe, method)
            for p in table.loc[missing, "total_params_b"]
        ]
        table.loc[missing, "smallest_config"] = [cat.config_label(h) for h, _ in found]
        table.loc[missing, "config_method"] = [m for _, m in found]
    else:
        table = table[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def _finetune_config(
    configs: list[cat.Hardware], params_b: float, recipe: str, method: str
) -> tuple[cat.Hardware | None, str | None]:
    """Cheapest rentable config for this fine-tune and the method the plan picks on it."""
    for config in configs:
        found = finetune.plan(params_b, recipe, config.budget_gb, method)
        if found.fits:
            return config, found.method
    return None, None


@dataclass(frozen=True)
class FinetuneView:
    """One model's fine-tune plan on the user's hardware, with its rough cost."""

    model_id: str
    display_name: str
    plan: finetune.FinetunePlan
    parts: pd.DataFrame  # part, gb (stacked bar data; sums to plan.required_gb)
    cost: finetune.CostEstimate | None
    cost_note: str | None  # why there is no (full) cost estimate, when there is none


def plan_view(
    catalog: cat.Catalog,
    model_id: str,
    target: cat.Hardware,
    recipe: str,
    method: str,
    samples: int,
) -> FinetuneView:
    """Plan and rough cost of fine-tuning ``model_id`` on ``target`` (seed 002)."""
    row = catalog.models.set_index("model_id").loc[model_id]
    plan = finetune.plan(float(row["total_params_b"]), recipe, target.budget_gb, method)
    parts = pd.DataFrame({"part": list(plan.parts), "gb": list(plan.parts.values())})
    compute = finetune.compute_params_b(
        row["total_params_b"], row.get("active_params_b"), bool(row["is_moe"])
    )
    cost, note = None, None
    if target.is_apple:
        note = "Apple silicon gets a fit verdict only: no comparable rental market."
    elif compute is None:
        note = "Active parameter count undisclosed for this MoE model: compute unknown."
    elif target.bf16_tflops is None:
        note = f"No peak bf16 figure for {target.name} in the catalog."
    else:
        cost = finetune.cost_estimate(
            compute, samples, recipe, target.bf16_tflops, target.count, target.usd_per_hour
        )
        if target.usd_per_hour is None:
            note = f"No rental price for {target.name} in the catalog."
    name = str(row.get("display_name") or model_id)
    return FinetuneView(model_id, name, plan, parts, cost, note)


def discovery_view(
    catalog: cat.Catalog,
    target: cat.Hardware,
    recipe: str = "sft",
    method: str = "auto",
    axes: tuple[str, ...] = tuple(quality.AXES),
    flt: cat.ModelFilter = cat.NO_FILTER,
    show_all: bool = False,
) -> pd.DataFrame:
    """Fine-tune discovery list, one row per checkpoint: models that fit first, then by
    quality coverage tier and value over ``axes`` (seed 002 ranking honesty rules)."""
    models = cat.filtered_models(catalog, flt)
    table = finetune_list(models, target, catalog.gpus, recipe, method, show_all)
    if table.empty:
        return table
    ranked = quality.quality_ranking(
        catalog.scores, catalog.benchmarks, table[["model_id", "checkpoint_id"]], list(axes)
    )
    keep = ["model_id", *axes, "coverage", "coverage_label", "quality", "variants"]
    table = ranked[keep].merge(table.drop(columns="checkpoint_id"), on="model_id")
    order = ["fits", "coverage", "quality", "ratio"]
    table = table.sort_values(order, ascending=[False, False, False, True], na_position="last")
    return table.reset_index(drop=True)
