"""The fine-tune planner's views (seed 002, "Fine-tuning fit & cost" and "Discovery"): one
model's plan and rough cost, and the list of models that can be tuned on the user's hardware."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analytics.llm import catalog as cat
from analytics.llm import finetune, quality

DEFAULT_MODEL_PARAMS_B = (7.0, 9.0)  # the planner's default: a 7-9 B model (one GPU, LoRA)
INSTRUCT_WORDS = ("instruct", "chat")  # a tuned-for-use release, the usual fine-tune base


def default_model(models: pd.DataFrame, scores: pd.DataFrame) -> str | None:
    """The planner's preselected model, by rule: among fine-tunable dense models of 7-9 B
    parameters whose name says instruct/chat, the one scored on the most distinct benchmarks
    (the most evaluated, a popularity proxy), newest release then model_id on ties. Without
    such a model the instruct condition is dropped, then the size range. None when nothing is
    fine-tunable."""
    cand = finetune.finetunable(models)
    if cand.empty:
        return None
    dense = cand[~cand["is_moe"].fillna(False).astype(bool)]
    lo, hi = DEFAULT_MODEL_PARAMS_B
    sized = dense[dense["total_params_b"].between(lo, hi)]
    names = (sized["model_id"] + " " + sized["display_name"].fillna("")).str.casefold()
    instruct = sized[names.str.contains("|".join(INSTRUCT_WORDS))]
    pool = next(p for p in (instruct, sized, cand) if not p.empty)
    counts = scores.groupby("model_id")["benchmark_id"].nunique() if not scores.empty else {}
    ranked = pool.assign(
        _n=pool["model_id"].map(counts).fillna(0),
        _date=pool["release_date"].astype(str) if "release_date" in pool else "",
    ).sort_values(["_n", "_date", "model_id"], ascending=[False, False, True])
    return str(ranked.iloc[0]["model_id"])


def model_choices(models: pd.DataFrame, ratings: pd.DataFrame) -> pd.DataFrame:
    """The planner's model options, one per checkpoint (:func:`catalog.one_per_checkpoint`)
    among fine-tunable models: model_id (the representative), label ('Name · 8.03B · Elo 1234
    · variants: ...'), search (lower-case names and aliases) and rating, sorted by label."""
    cand = finetune.finetunable(models)
    cand = cand.merge(ratings[["model_id", "rating"]], on="model_id", how="left")
    rows = cat.one_per_checkpoint(cand)
    aliases = cat.model_aliases(models)
    labels, search = [], []
    for row in rows.to_dict("records"):
        name = str(row.get("display_name") or row["model_id"])
        label = f"{name} · {row['total_params_b']:g}B"
        if not pd.isna(row["rating"]):
            label += f" · Elo {row['rating']:.0f}"
        if "," in str(row["variants"]):
            label += f" · variants: {row['variants']}"
        labels.append(label)
        words = [row["model_id"], name, str(row["variants"]), *aliases.get(row["model_id"], [])]
        search.append(" ".join(words).casefold())
    out = pd.DataFrame(
        {"model_id": rows["model_id"], "checkpoint_id": cat.checkpoint_key(rows), "label": labels,
         "search": search, "rating": rows["rating"]}
    )  # fmt: skip
    return out.sort_values(["label", "model_id"]).reset_index(drop=True)


def planner_models(
    models: pd.DataFrame, scores: pd.DataFrame, ratings: pd.DataFrame
) -> tuple[pd.DataFrame, str | None]:
    """:func:`model_choices` and the option standing for :func:`default_model`'s checkpoint."""
    choices = model_choices(models, ratings)
    wanted = default_model(models, scores)
    if wanted is None:
        return choices, None
    key = cat.checkpoint_key(models)[models["model_id"] == wanted].iloc[0]
    hit = choices.loc[choices["checkpoint_id"] == key, "model_id"]
    return choices, (str(hit.iloc[0]) if not hit.empty else None)


def search_choices(choices: pd.DataFrame, query: str) -> pd.DataFrame:
    """The options whose names or aliases contain every word of ``query`` (case-insensitive);
    all of them for an empty query."""
    words = str(query).casefold().split()
    keep = [all(w in text for w in words) for text in choices["search"]]
    return choices[keep].reset_index(drop=True)


def measured_comparison(catalog: cat.Catalog, model_id: str) -> pd.DataFrame:
    """The measured fine-tune memory rows (catalog ``finetune_memory``, LitGPT) for this model,
    matched by id or alias, beside the formula (``finetune.compare_measured``) and their ratio
    measured / formula; empty when there is none."""
    measured = catalog.finetune_memory
    if measured.empty:
        return pd.DataFrame()
    names = cat.model_names(catalog.models)
    ids = [names.get(cat.norm_name(m)) for m in measured["model"]]
    mine = measured[[i == model_id for i in ids]]
    if mine.empty:
        return pd.DataFrame()
    out = finetune.compare_measured(mine)
    out = out[out["measured_gb"].notna()]
    return out.assign(ratio=out["measured_gb"] / out["formula_gb"]).reset_index(drop=True)


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
    table["smallest_config_price"] = None
    table["config_method"] = None
    if show_all:
        configs = cat.rentable_configs(gpus)
        missing = ~table["fits"]
        found = [
            finetune_config(configs, p, recipe, method)
            for p in table.loc[missing, "total_params_b"]
        ]
        table.loc[missing, "smallest_config"] = [cat.config_label(h) for h, _ in found]
        table.loc[missing, "smallest_config_price"] = [cat.price_label(h) for h, _ in found]
        table.loc[missing, "config_method"] = [m for _, m in found]
    else:
        table = table[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def finetune_config(
    configs: list[cat.Hardware], params_b: float, recipe: str, method: str
) -> tuple[cat.Hardware | None, str | None]:
    """Cheapest rentable config for this fine-tune (``catalog.smallest_config`` order) and the
    method the plan picks on it; (None, None) when none up to 8 GPUs is large enough."""
    config = cat.smallest_config(
        configs, lambda h: finetune.plan(params_b, recipe, h.budget_gb, method).fits
    )
    if config is None:
        return None, None
    return config, finetune.plan(params_b, recipe, config.budget_gb, method).method


@dataclass(frozen=True)
class Pricing:
    """The hardware a cost is for (None: no price) and, when it is not the chosen one, why."""

    hardware: cat.Hardware | None
    note: str | None = None


def pricing(
    target: cat.Hardware,
    configs: list[cat.Hardware],
    params_b: float,
    recipe: str,
    method: str,
) -> Pricing:
    """Price on ``target`` when the job fits there (or it is Apple, which gets no cost); else on
    the smallest of the rentable ``configs`` (``catalog.rentable_configs``) that fits; else
    nowhere, saying why."""
    if target.is_apple or finetune.plan(params_b, recipe, target.budget_gb, method).fits:
        return Pricing(target)
    config, _ = finetune_config(configs, params_b, recipe, method)
    if config is None:
        why = f"no rentable config up to {max(cat.RENTABLE_COUNTS)} GPUs can run this job"
        return Pricing(None, f"No price: the chosen {target.label} cannot run this job and {why}.")
    why = f"the chosen {target.label} cannot run this job"
    return Pricing(config, f"priced on {config.label}: {why}")


@dataclass(frozen=True)
class FinetuneView:
    """One model's fine-tune plan on the user's hardware, with its rough cost."""

    model_id: str
    display_name: str
    plan: finetune.FinetunePlan
    parts: pd.DataFrame  # part, gb (stacked bar data; sums to plan.required_gb)
    cost: finetune.CostEstimate | None
    cost_note: str | None  # why there is no (full) cost estimate, when there is none
    priced_on: cat.Hardware | None = None  # the hardware the cost is for (None: no price)
    priced_note: str | None = None  # why it is not the chosen hardware, when it is not
    measured: pd.DataFrame | None = None  # measured rows beside the formula (measured_comparison)


def plan_view(
    catalog: cat.Catalog,
    model_id: str,
    target: cat.Hardware,
    recipe: str,
    method: str,
    samples: int,
) -> FinetuneView:
    """Plan and rough cost of fine-tuning ``model_id`` on ``target`` (seed 002); a job that does
    not fit ``target`` is priced on the smallest rentable config that fits (:func:`pricing`)."""
    row = catalog.models.set_index("model_id").loc[model_id]
    params_b = float(row["total_params_b"])
    plan = finetune.plan(params_b, recipe, target.budget_gb, method)
    parts = pd.DataFrame({"part": list(plan.parts), "gb": list(plan.parts.values())})
    compute = finetune.compute_params_b(
        row["total_params_b"], row.get("active_params_b"), bool(row["is_moe"])
    )
    priced = pricing(target, cat.rentable_configs(catalog.gpus), params_b, recipe, method)
    cost, note = _cost(compute, samples, recipe, target, priced)
    name = str(row.get("display_name") or model_id)
    on = None if target.is_apple else priced.hardware
    measured = measured_comparison(catalog, model_id)
    return FinetuneView(model_id, name, plan, parts, cost, note, on, priced.note, measured)


def _cost(
    compute: float | None, samples: int, recipe: str, target: cat.Hardware, priced: Pricing
) -> tuple[finetune.CostEstimate | None, str | None]:
    """The rough cost on the priced hardware, and why there is none (or no $) when so."""
    on = priced.hardware
    if target.is_apple:
        return None, "Apple silicon gets a fit verdict only: no comparable rental market."
    if compute is None:
        return None, "Active parameter count undisclosed for this MoE model: compute unknown."
    if on is None:
        return None, priced.note
    if on.bf16_tflops is None:
        return None, f"No peak bf16 figure for {on.name} in the catalog."
    cost = finetune.cost_estimate(
        compute, samples, recipe, on.bf16_tflops, on.count, on.usd_per_hour
    )
    note = f"No rental price for {on.name} in the catalog." if on.usd_per_hour is None else None
    return cost, note


def discovery_view(
    catalog: cat.Catalog,
    target: cat.Hardware,
    recipe: str = "sft",
    method: str = "auto",
    axes: tuple[str, ...] = tuple(quality.AXES),
    flt: cat.ModelFilter = cat.NO_FILTER,
    show_all: bool = False,
    ratings: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Fine-tune discovery list, one row per checkpoint: models that fit first, then by
    quality coverage tier and value over ``axes`` (seed 002 ranking honesty rules); with
    ``ratings``, the best Elo rating of the checkpoint's variants beside it (``rating``)."""
    models = cat.filtered_models(catalog, flt)
    table = finetune_list(models, target, catalog.gpus, recipe, method, show_all)
    if table.empty:
        return table.assign(rating=pd.Series(dtype=float))
    if ratings is not None:
        best = cat.best_ratings(catalog.models, ratings)
        table = table.merge(best, on="checkpoint_id", how="left")
    else:
        table["rating"] = float("nan")
    ranked = quality.quality_ranking(
        catalog.scores, catalog.benchmarks, table[["model_id", "checkpoint_id"]], list(axes)
    )
    keep = ["model_id", *axes, "coverage", "coverage_label", "quality", "variants"]
    table = ranked[keep].merge(table.drop(columns="checkpoint_id"), on="model_id")
    order = ["fits", "coverage", "quality", "ratio"]
    table = table.sort_values(order, ascending=[False, False, False, True], na_position="last")
    return table.reset_index(drop=True)
