"""The fine-tune planner's views (seed 002, "Fine-tuning fit & cost" and "Discovery"): one
model's plan and rough cost, and the list of models that can be tuned on the user's hardware.

Prices: every $/h carries what backs it - the provider catalogs (SkyPilot, at their
commits), the number of on-demand offers (``gpus.price_offers``) and the date when recorded. A
price from fewer than :data:`MIN_PRICE_OFFERS` offers, or from a single provider's catalog, is
"thin" (:func:`is_thin`); the cheapest config is a thin-priced one only when no config with a
better-supported price fits (:func:`cheapest_config`). A job that does not fit the chosen
hardware is priced on that config and says so (:func:`pricing`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from analytics.llm import catalog as cat
from analytics.llm import checkpoints, finetune, quality
from analytics.llm import hardware as hw_rows

DEFAULT_MODEL_PARAMS_B = (7.0, 9.0)  # the planner's default: a 7-9 B model (one GPU, LoRA)
INSTRUCT_WORDS = ("instruct", "chat")  # a tuned-for-use release, the usual fine-tune base
MIN_PRICE_OFFERS = cat.MIN_PRICE_OFFERS  # the thin rule is ``catalog.Price.thin``
APPLE_DEFAULT_TIER = "max"  # the planner's default Apple profile: the newest Max chip, largest
_COMMIT = re.compile(r"/blob/([0-9a-f]{7,40})/")


# --- prices and configs ---------------------------------------------------------------------


def with_price_basis(hw: cat.Hardware, gpus: pd.DataFrame) -> cat.Hardware:
    """``hw`` with its price's offer count from ``gpus.price_offers`` (None when the catalog
    does not record it; :func:`hardware.with_offers`); unchanged without a price."""
    if hw.price is None or "price_offers" not in gpus:
        return hw
    rows = gpus.loc[gpus["gpu_id"] == hw.gpu_id, "price_offers"]
    return hw_rows.with_offers(hw, None if rows.empty else rows.iloc[0])


def hardware(gpus: pd.DataFrame, gpu_id: str, count: int = 1) -> cat.Hardware:
    """``catalog.hardware`` with the price's offer count (:func:`with_price_basis`)."""
    return with_price_basis(cat.hardware(gpus, gpu_id, count), gpus)


def rentable_configs(gpus: pd.DataFrame) -> list[cat.Hardware]:
    """``catalog.rentable_configs`` (cheapest per hour first), prices with their offer counts."""
    configs = cat.rentable_configs(gpus)
    offers = {h.gpu_id: with_price_basis(h, gpus).price for h in configs if h.count == 1}
    return [dataclasses.replace(h, price=offers.get(h.gpu_id, h.price)) for h in configs]


def is_thin(price: cat.Price | None) -> bool:
    """A $/h backed by fewer than 2 offers or by a single provider catalog (or no price)."""
    return price is None or price.thin


def cheapest_config(
    configs: list[cat.Hardware], works: Callable[[cat.Hardware], bool]
) -> cat.Hardware | None:
    """First config in ``rentable_configs`` order on which ``works`` holds among those with a
    well-supported price; a thin-priced one only when none of those works
    (``catalog.smallest_config``, on prices that carry their offer counts)."""
    return cat.smallest_config(configs, works)


def config_label(config: cat.Hardware | None) -> str:
    """'2× H100 SXM ($6.01/h)' (', thin price' when so); a dash when nothing is large enough."""
    if config is None:
        return f"— (no rentable config up to {max(cat.RENTABLE_COUNTS)} GPUs)"
    thin = ", thin price" if is_thin(config.price) else ""
    return f"{config.label} (${config.count * config.usd_per_hour:,.2f}/h{thin})"


def _provider(url: str) -> str:
    parts = url.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 2 and parts[-1].endswith(".csv") else url


def price_basis(price: cat.Price) -> str:
    """'median of 6 offers from 1 provider (vast) · SkyPilot catalog @01b8cdd · date not
    recorded · thin'."""
    names = ", ".join(_provider(u) for u in price.source_urls) or "no source"
    n = price.sources
    plural = "s" if n != 1 else ""
    if price.offers is None:
        text = f"median over {n} provider{plural} ({names}; offer count not recorded)"
    else:
        text = f"median of {price.offers} offers from {n} provider{plural} ({names})"
    commits = sorted({m.group(1)[:7] for u in price.source_urls if (m := _COMMIT.search(u))})
    if commits:
        text += f" · SkyPilot catalog @{', @'.join(commits)}"
    text += f" · as of {price.date}" if price.date else " · date not recorded"
    return text + (" · thin" if is_thin(price) else "")


def price_label(config: cat.Hardware | None) -> str | None:
    """'$2.62/GPU-hour · median of 6 offers from 1 provider (vast) · ...', None without one."""
    if config is None or config.price is None:
        return None
    return f"${config.price.usd_per_hour:,.2f}/GPU-hour · {price_basis(config.price)}"


def price_facts(config: cat.Hardware | None) -> dict:
    """The JSON keys of a price: usd_per_hour, price_offers, price_providers, price_date,
    price_thin, price_sources (URLs); all None without a price."""
    price = None if config is None else config.price
    if price is None:
        keys = ("price_offers", "price_providers", "price_date", "price_thin", "price_sources")
        return dict.fromkeys(keys)
    return {
        "price_offers": price.offers, "price_providers": price.sources,
        "price_date": price.date, "price_thin": is_thin(price),
        "price_sources": list(price.source_urls),
    }


def default_apple(gpus: pd.DataFrame) -> str | None:
    """The planner's preselected Apple profile: the Max chip of the newest generation that has
    one in the catalog, largest memory (e.g. M4 Max 128GB: the Mac most bought for local
    training and inference, whose GPU budget holds a 7-8 B LoRA or a 70 B QLoRA); without a Max
    chip, ``catalog.default_apple``. None without Apple profiles."""
    apple = gpus[gpus["kind"] == "apple"]
    names = apple["name"].astype(str)
    tier = names.str.casefold().str.split().map(lambda w: APPLE_DEFAULT_TIER in w)
    maxes = apple[tier]
    if maxes.empty:
        return cat.default_apple(gpus)
    gen = names[tier].str.extract(r"\bM(\d+)\b")[0].fillna(0).astype(int)
    ranked = maxes.assign(_gen=gen).sort_values(["_gen", "memory_gb", "gpu_id"], ascending=False)
    return str(ranked.iloc[0]["gpu_id"])


# --- models -----------------------------------------------------------------------------------


def default_model(
    models: pd.DataFrame,
    scores: pd.DataFrame,
    ratings: pd.DataFrame | None = None,
    rows: pd.DataFrame | None = None,
) -> str | None:
    """The planner's preselected model, by rule (docs/calculators.md): among fine-tunable dense
    checkpoints of 7-9 B parameters (the size most often fine-tuned: one GPU, LoRA), the one
    whose best-rated variant has the highest Elo rating; its best-rated variant is returned.
    Without a rated one: the instruct/chat one scored on the most distinct benchmarks (newest
    release, then model_id on ties), dropping the instruct condition, then the size range, when
    nothing qualifies. None when nothing is fine-tunable. ``rows``: the fine-tunable models'
    ``checkpoints.one_row_per_checkpoint`` with ``ratings``, when already computed (variants of
    a checkpoint share its size and MoE flag, so filtering rows or variants is the same)."""
    cand = finetune.finetunable(models)
    if cand.empty:
        return None
    dense = cand[_known_dense(cand)]
    lo, hi = DEFAULT_MODEL_PARAMS_B
    sized = dense[dense["total_params_b"].between(lo, hi)]
    if ratings is not None and not sized.empty:
        if rows is None:
            rows = checkpoints.one_row_per_checkpoint(sized, ratings)
        else:
            rows = rows[_known_dense(rows) & rows["total_params_b"].between(lo, hi)]
        rated = rows[rows["best_rating"].notna()]
        if not rated.empty:
            top = rated.sort_values(["best_rating", "best_model_id"], ascending=[False, True])
            return str(top.iloc[0]["best_model_id"])
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
    """The planner's model options, one per checkpoint (``checkpoints.one_row_per_checkpoint``)
    among fine-tunable models: model_id (the best-rated variant), checkpoint_id, label ('Name ·
    8.03B · Elo 1234 · variants: ...'), search (lower-case names and aliases) and rating,
    sorted by label."""
    rows = checkpoints.one_row_per_checkpoint(finetune.finetunable(models), ratings)
    return _choices(models, rows)


def _choices(models: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`model_choices` from the fine-tunable models' checkpoint rows."""
    aliases = cat.model_aliases(models)
    labels, search = [], []
    for row in rows.to_dict("records"):
        name = str(row.get("display_name") or row["model_id"])
        label = f"{name} · {row['total_params_b']:g}B"
        if not pd.isna(row["best_rating"]):
            label += f" · Elo {row['best_rating']:.0f}"
        if row["n_variants"] > 1:
            label += f" · variants: {row['variants']}"
        labels.append(label)
        words = [row["model_id"], row["checkpoint_id"], name, str(row["variants"])]
        words += aliases.get(row["model_id"], [])
        search.append(" ".join(words).casefold())
    out = pd.DataFrame(
        {"model_id": rows["model_id"], "checkpoint_id": rows["checkpoint_id"], "label": labels,
         "search": search, "rating": rows["best_rating"]}
    )
    return out.sort_values(["label", "model_id"]).reset_index(drop=True)


def planner_models(
    models: pd.DataFrame, scores: pd.DataFrame, ratings: pd.DataFrame
) -> tuple[pd.DataFrame, str | None]:
    """:func:`model_choices` and the option standing for :func:`default_model`'s checkpoint
    (both from one set of checkpoint rows)."""
    rows = checkpoints.one_row_per_checkpoint(finetune.finetunable(models), ratings)
    choices = _choices(models, rows)
    wanted = default_model(models, scores, ratings, rows=rows)
    if wanted is None:
        return choices, None
    key = checkpoints.checkpoint_ids(models)[models["model_id"] == wanted].iloc[0]
    hit = choices.loc[choices["checkpoint_id"] == key, "model_id"]
    return choices, (str(hit.iloc[0]) if not hit.empty else None)


def search_choices(choices: pd.DataFrame, query: str) -> pd.DataFrame:
    """The options whose names or aliases contain every word of ``query`` (case-insensitive);
    all of them for an empty query."""
    words = str(query).casefold().split()
    keep = [all(w in text for w in words) for text in choices["search"]]
    return choices[keep].reset_index(drop=True)


def _release_twins(models: pd.DataFrame, model_id: str) -> set[str]:
    """Model ids sharing ``model_id``'s weights_release AND arch_key (both known): the base and
    instruct checkpoints of one release; just ``model_id`` otherwise."""
    if not {"weights_release", "arch_key"} <= set(models.columns):
        return {model_id}
    keys = models[["model_id", "weights_release", "arch_key"]].astype(str)
    keys = keys.replace({"nan": "", "None": "", "<NA>": ""})
    mine = keys[keys["model_id"] == model_id]
    if mine.empty or (mine.iloc[0][["weights_release", "arch_key"]] == "").any():
        return {model_id}
    same = (keys["weights_release"] == mine.iloc[0]["weights_release"]) & (
        keys["arch_key"] == mine.iloc[0]["arch_key"]
    )
    return set(keys.loc[same, "model_id"]) | {model_id}


def measured_model_ids(catalog: cat.Catalog) -> list[str | None]:
    """Per ``finetune_memory`` row, the catalog model its ``model`` name refers to (id, name or
    alias; None when none)."""
    if catalog.finetune_memory.empty:
        return []
    names = cat.model_names(catalog.models)
    return [names.get(cat.norm_name(m)) for m in catalog.finetune_memory["model"]]


def measured_comparison(
    catalog: cat.Catalog, model_id: str, ids: list[str | None] | None = None
) -> pd.DataFrame:
    """The measured fine-tune memory rows (catalog ``finetune_memory``, LitGPT) of this model -
    matched by id or alias, or of a checkpoint of the same release and architecture (same
    weights_release and arch_key), named in ``measured_on`` - beside the formula
    (``finetune.compare_measured``), with ``ratio`` = measured / formula; empty when none.
    ``ids``: :func:`measured_model_ids`, when already known."""
    measured = catalog.finetune_memory
    if measured.empty:
        return pd.DataFrame()
    ids = measured_model_ids(catalog) if ids is None else ids
    twins = _release_twins(catalog.models, model_id)
    mine = measured.assign(measured_on=ids)[[i in twins for i in ids]]
    if mine.empty:
        return pd.DataFrame()
    out = finetune.compare_measured(mine)
    out = out[out["measured_gb"].notna()]
    return out.assign(ratio=out["measured_gb"] / out["formula_gb"]).reset_index(drop=True)


def measured_note(row: dict) -> str:
    """One formula-vs-measured line: both numbers, the ratio both ways, the checkpoint measured
    on when it is another one of the same release."""
    method = finetune.METHOD_LABELS[row["formula_method"]]
    return (
        f"{method} ({row['quantization']}, micro-batch 1) on {row['gpu_id']}: LitGPT measured "
        f"{row['measured_gb']:.2f} GB, the seed formula gives {row['formula_gb']:.2f} GB "
        f"(measured / formula {row['ratio']:.2f}; the formula is {1 / row['ratio']:.2f}× the "
        "measurement)"
    )


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
    sizes = cand["total_params_b"]  # one plan per distinct size: checkpoints share sizes
    by_size = {p: finetune.plan(p, recipe, target.budget_gb, method) for p in set(sizes)}
    plans = [by_size[p] for p in sizes]
    table = cand.assign(
        method=[p.method for p in plans],
        required_gb=[p.required_gb for p in plans],
        capacity_gb=target.budget_gb,
        ratio=[p.ratio for p in plans],
        verdict=[p.verdict for p in plans],
        # bool even when empty: an empty object column used as a mask would select columns
        fits=pd.Series([p.fits for p in plans], index=cand.index, dtype=bool),
    )
    table["status"] = [cat.FITS if f else cat.WONT_FIT for f in table["fits"]]
    table["smallest_config"] = None
    table["smallest_config_price"] = None
    table["config_method"] = None
    if show_all:
        configs = rentable_configs(gpus)
        missing = ~table["fits"]
        found = [
            finetune_config(configs, p, recipe, method)
            for p in table.loc[missing, "total_params_b"]
        ]
        table.loc[missing, "smallest_config"] = [config_label(h) for h, _ in found]
        table.loc[missing, "smallest_config_price"] = [price_label(h) for h, _ in found]
        table.loc[missing, "config_method"] = [m for _, m in found]
    else:
        table = table.loc[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def finetune_config(
    configs: list[cat.Hardware], params_b: float, recipe: str, method: str
) -> tuple[cat.Hardware | None, str | None]:
    """Cheapest rentable config for this fine-tune (:func:`cheapest_config`: well-supported
    prices first) and the method the plan picks on it; (None, None) when none up to 8 GPUs is
    large enough."""
    config = cheapest_config(
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
    the cheapest of the rentable ``configs`` (:func:`rentable_configs`) that fits it
    (:func:`finetune_config`), saying so: "won't fit on 1× RTX 4090; priced on 2× A40, the
    smallest rentable config that fits"; else nowhere, saying why."""
    if target.is_apple or finetune.plan(params_b, recipe, target.budget_gb, method).fits:
        return Pricing(target)
    config, _ = finetune_config(configs, params_b, recipe, method)
    if config is None:
        why = f"no rentable config up to {max(cat.RENTABLE_COUNTS)} GPUs can run this job"
        return Pricing(None, f"No price: the chosen {target.label} cannot run this job and {why}.")
    thin = " (thin price: no better-supported config fits)" if is_thin(config.price) else ""
    note = f"won't fit on {target.label}; priced on {config.label}, the smallest rentable config"
    return Pricing(config, f"{note} that fits{thin}")


SMALLEST, CHEAPEST, FASTEST = "smallest", "cheapest", "fastest"
CONFIG_ROLES = {
    SMALLEST: "smallest rentable config that fits (lowest $/h; the seed's suggestion)",
    CHEAPEST: "cheapest job: lowest GPU-hours × $/GPU-hour among configs that fit (fewest GPUs "
    "on a tie)",
    FASTEST: "fastest job: shortest wall-clock among configs that fit (then the cheaper)",
}
"""The rentable configs the planner prices a job on, and what picks each."""


@dataclass(frozen=True)
class ConfigOption:
    """One rentable config a job fits on, with its rough cost there."""

    role: str  # a CONFIG_ROLES key
    hardware: cat.Hardware
    method: str  # the method the plan picks on it
    cost: finetune.CostEstimate | None  # None: no peak bf16 figure for this GPU


def config_options(
    configs: list[cat.Hardware],
    params_b: float,
    compute_params_b: float | None,
    recipe: str,
    method: str,
    samples: int,
) -> tuple[ConfigOption, ...]:
    """The seed's smallest rentable config that fits (:func:`finetune_config`), and the cheapest
    and the fastest of the rentable ``configs`` on which the job fits and which have a peak
    bf16 figure, each with its rough cost; well-supported prices first, thin ones only when none
    of those fits (the rule of :func:`cheapest_config`). Empty when the compute is unknown or no
    config fits."""
    smallest, _ = finetune_config(configs, params_b, recipe, method)
    if compute_params_b is None or smallest is None:
        return ()
    plans: dict[float, finetune.FinetunePlan] = {}

    def plan_on(h: cat.Hardware) -> finetune.FinetunePlan:
        if h.budget_gb not in plans:
            plans[h.budget_gb] = finetune.plan(params_b, recipe, h.budget_gb, method)
        return plans[h.budget_gb]

    def option(role: str, h: cat.Hardware) -> ConfigOption:
        cost = finetune.cost_estimate(
            compute_params_b, samples, recipe, h.bf16_tflops, h.count, h.usd_per_hour
        )
        return ConfigOption(role, h, plan_on(h).method, cost)

    fitting = [h for h in configs if h.bf16_tflops is not None and plan_on(h).fits]
    pool = [h for h in fitting if not is_thin(h.price)] or fitting
    costed = [option("", h) for h in pool]
    out = [option(SMALLEST, smallest)]
    if costed:
        # a job's cost does not depend on the GPU count: on a tie, the fewest GPUs to rent
        cheapest = min(costed, key=lambda o: (o.cost.cost_usd, o.hardware.count))
        fastest = min(costed, key=lambda o: (o.cost.wall_clock_hours, o.cost.cost_usd))
        out += [dataclasses.replace(cheapest, role=CHEAPEST),
                dataclasses.replace(fastest, role=FASTEST)]
    return tuple(out)


_OPTION_COLUMNS = ["role", "config", "method", "gpu_hours", "wall_clock_hours", "cost_usd",
                   "usd_per_gpu_hour", "price_date", "price"]
_OPTION_NUMBERS = ("gpu_hours", "wall_clock_hours", "cost_usd", "usd_per_gpu_hour")


def option_records(options: tuple[ConfigOption, ...]) -> list[dict]:
    """One record per option (:func:`options_table`'s rows), numbers as floats or None."""
    def number(value: float | None) -> float | None:
        return None if value is None or value != value else float(value)

    return [{
        "role": o.role, "config": o.hardware.label, "method": o.method,
        "gpu_hours": number(o.cost.gpu_hours if o.cost else None),
        "wall_clock_hours": number(o.cost.wall_clock_hours if o.cost else None),
        "cost_usd": number(o.cost.cost_usd if o.cost else None),
        "usd_per_gpu_hour": number(o.hardware.usd_per_hour),
        "price_date": o.hardware.price.date if o.hardware.price else None,
        "price": price_label(o.hardware),
    } for o in options]


def options_table(options: tuple[ConfigOption, ...]) -> pd.DataFrame:
    """One row per option: role, config, method, gpu_hours, wall_clock_hours, cost_usd,
    usd_per_gpu_hour, price_date (None: the source records none) and price (its basis)."""
    table = pd.DataFrame(option_records(options), columns=_OPTION_COLUMNS)
    return table.astype({c: "float64" for c in _OPTION_NUMBERS})


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
    options: tuple[ConfigOption, ...] = ()  # smallest, cheapest, fastest rentable configs


def plan_view(
    catalog: cat.Catalog,
    model_id: str,
    target: cat.Hardware,
    recipe: str,
    method: str,
    samples: int,
    measured_ids: list[str | None] | None = None,
) -> FinetuneView:
    """Plan and rough cost of fine-tuning ``model_id`` on ``target`` (seed 002); a job that does
    not fit ``target`` is priced on the smallest rentable config that fits (:func:`pricing`).
    ``measured_ids``: :func:`measured_model_ids`, when already known."""
    row = catalog.models.set_index("model_id").loc[model_id]
    params_b = float(row["total_params_b"])
    target = with_price_basis(target, catalog.gpus)
    plan = finetune.plan(params_b, recipe, target.budget_gb, method)
    parts = pd.DataFrame({"part": list(plan.parts), "gb": list(plan.parts.values())})
    moe = row["is_moe"]  # an unknown flag (NA) computes on every parameter, like a dense model
    compute = finetune.compute_params_b(
        row["total_params_b"], row.get("active_params_b"), bool(moe) if pd.notna(moe) else False
    )
    configs = rentable_configs(catalog.gpus)
    priced = pricing(target, configs, params_b, recipe, method)
    cost, note = _cost(compute, samples, recipe, target, priced)
    name = str(row.get("display_name") or model_id)
    on = None if target.is_apple else priced.hardware
    measured = measured_comparison(catalog, model_id, measured_ids)
    options = config_options(configs, params_b, compute, recipe, method, samples)
    return FinetuneView(
        model_id, name, plan, parts, cost, note, on, priced.note, measured, options
    )


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
    axis_values: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Fine-tune discovery list, one row per checkpoint: models that fit first, then by
    quality coverage tier and value over ``axes`` (seed 002 ranking honesty rules); with
    ``ratings``, the best Elo rating of the checkpoint's variants beside it (``rating``);
    ``axis_values``: ``quality.axis_values`` of the catalog's scores, if already computed."""
    models = cat.filtered_models(catalog, flt)
    table = finetune_list(models, target, catalog.gpus, recipe, method, show_all)
    if table.empty:
        return table.assign(rating=pd.Series(dtype=float))
    if ratings is not None:
        best = checkpoints.best_ratings(catalog.models, ratings)
        table = table.merge(best, on="checkpoint_id", how="left")
    else:
        table["rating"] = float("nan")
    ranked = quality.quality_ranking(
        catalog.scores, catalog.benchmarks, table[["model_id", "checkpoint_id"]], list(axes),
        axis_values,
    )
    keep = ["model_id", *axes, "coverage", "coverage_label", "quality", "variants"]
    table = ranked[keep].merge(table.drop(columns="checkpoint_id"), on="model_id")
    order = ["fits", "coverage", "quality", "ratio"]
    table = table.sort_values(order, ascending=[False, False, False, True], na_position="last")
    return table.reset_index(drop=True)


BY_RATING, BY_QUALITY = "rating", "quality"
LIST_ORDERS = {
    BY_RATING: "Best Elo that fits first",
    BY_QUALITY: "Quality axes (coverage tier, then value)",
}
"""The fine-tune list's orders: by the checkpoint's best Elo (the default), or by the selected
quality axes (:func:`discovery_view`'s order)."""


def ordered(table: pd.DataFrame, order: str) -> pd.DataFrame:
    """:func:`discovery_view`'s table in ``order``: :data:`BY_RATING` puts the models that fit
    first, then the highest best Elo of the variants (unrated last, then the quality order);
    :data:`BY_QUALITY` keeps the table as it is."""
    if order == BY_QUALITY or table.empty:
        return table
    if order != BY_RATING:
        raise ValueError(f"order {order!r}: unknown; fix: use one of {', '.join(LIST_ORDERS)}")
    out = table.sort_values(["fits", "rating"], ascending=[False, False], na_position="last",
                            kind="stable")
    return out.reset_index(drop=True)


def _known_dense(models: pd.DataFrame) -> pd.Series:
    """True where the MoE flag says dense (an unknown flag is neither dense nor a mixture)."""
    return models["is_moe"].astype("boolean").eq(False).fillna(False).astype(bool)
