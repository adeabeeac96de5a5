"""The "What fits my hardware" view (seed 002, "Hardware fit" and "Discovery"): seed verdicts
per checkpoint on the user's hardware, measured speed and the best Elo rating of its variants
beside them."""

from __future__ import annotations

import pandas as pd

from analytics.llm import catalog as cat
from analytics.llm import fit as hwfit

HARDWARE_VIEW_COLUMNS = (
    "model_id", "display_name", "verdict", "required_gb", "budget_gb", "ratio",
    "measured_tokens_per_s", "measured_quant", "measured_source_url", "kv_cache_gb",
    "q4_plus_kv_gb", "rating", "total_params_b", "active_params_b", "licence_class",
    "licence_raw", "status", "smallest_config", "smallest_config_price", "checkpoint_id",
    "variants",
)  # fmt: skip


def inference_list(
    models: pd.DataFrame,
    target: cat.Hardware,
    gpus: pd.DataFrame,
    context_tokens: int | None = None,
    show_all: bool = False,
) -> pd.DataFrame:
    """Hardware-fit list: models that fit ``target`` (ratio <= 1.0); ``show_all`` adds the rest
    with status "won't fit" and ``smallest_config``. Models with no size data are left out."""
    table = hwfit.fit_table(models, target.budget_gb, context_tokens)
    table = table[table["required_gb"].notna()].copy()
    table["status"] = [cat.FITS if f else cat.WONT_FIT for f in table["fits"]]
    table["smallest_config"] = None
    table["smallest_config_price"] = None
    if show_all:
        configs = cat.rentable_configs(gpus)
        missing = ~table["fits"]
        found = [
            cat.smallest_config(configs, lambda h, need=need: hwfit.fits(need / h.budget_gb))
            for need in table.loc[missing, "required_gb"]
        ]
        table.loc[missing, "smallest_config"] = [cat.config_label(h) for h in found]
        table.loc[missing, "smallest_config_price"] = [cat.price_label(h) for h in found]
    else:
        table = table[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def hardware_fit_view(
    catalog: cat.Catalog,
    ratings: pd.DataFrame,
    target: cat.Hardware,
    context_tokens: int | None = None,
    flt: cat.ModelFilter = cat.NO_FILTER,
    show_all: bool = False,
) -> pd.DataFrame:
    """The "What fits my hardware" table, one row per checkpoint: seed verdict, measured tok/s
    where a row exists for exactly this GPU and count, KV-cache refinement, and the best Elo
    rating of the checkpoint's variants (listed in ``variants``) beside it.

    Models that fit come first, highest Elo rating first (unrated models after rated ones)."""
    models = cat.filtered_models(catalog, flt)
    table = inference_list(models, target, catalog.gpus, context_tokens, show_all)
    speed = hwfit.measured_throughput(
        catalog.throughput, target.gpu_id, target.count, cat.model_aliases(catalog.models)
    ).rename(
        columns={
            "tokens_per_s": "measured_tokens_per_s",
            "quant": "measured_quant",
            "source_url": "measured_source_url",
        }
    )
    table = table.merge(speed, on="model_id", how="left")
    table = table.merge(ratings[["model_id", "rating"]], on="model_id", how="left")
    table = cat.one_per_checkpoint(table)
    table["checkpoint_id"] = cat.checkpoint_key(table)
    order = ["fits", "rating", "ratio", "model_id"]
    table = table.sort_values(order, ascending=[False, False, True, True], na_position="last")
    return table[list(HARDWARE_VIEW_COLUMNS)].reset_index(drop=True)
