"""The "What fits my hardware" view (seed 002, "Hardware fit" and "Discovery"): seed verdicts
per checkpoint on the user's hardware, measured speed and the best Elo rating of its variants
beside them.

One row per checkpoint (:func:`analytics.llm.checkpoints.one_row_per_checkpoint`); measured speed
by kind (:func:`analytics.llm.throughput.measured_speeds`): llama.cpp single-stream decode tok/s and
MLPerf server throughput in separate columns, each with what it was measured on and its source.
"""

from __future__ import annotations

import pandas as pd

from analytics.llm import catalog as cat
from analytics.llm import checkpoints, throughput
from analytics.llm import fit as hwfit

_QUANT_COLUMNS = tuple(
    f"{prefix}_{field}"
    for prefix in hwfit.QUANT_PREFIX.values()
    for field in ("verdict", "gb", "weights_gb", "basis")
)
_SPEEDS = tuple(
    f"{throughput.KIND_PREFIX[k]}_{f}"
    for k in throughput.THROUGHPUT_KINDS
    for f in throughput.SPEED_FIELDS
)
HARDWARE_VIEW_COLUMNS = (
    "checkpoint_id", "model_id", "display_name", "verdict", "rating",
    "single_stream_tokens_per_s", "server_tokens_per_s", "required_gb", "budget_gb", "ratio",
    "q4_basis", "q4_source_url", "context_verdict", "q4_plus_kv_gb", "kv_cache_gb",
    "context_ratio", "max_context_tokens", "best_quant", "best_quant_bits", *_QUANT_COLUMNS,
    *[c for c in _SPEEDS if c not in ("single_stream_tokens_per_s", "server_tokens_per_s")],
    "measured_tokens_per_s", "measured_quant", "measured_source_url",
    "total_params_b", "active_params_b", "licence_class", "licence_raw", "status",
    "smallest_config", "smallest_config_price", "variants", "n_variants", "best_model_id",
)
"""The view's columns. ``measured_*`` repeat the single-stream figure under the names the view
had before speeds were split by kind (notebooks read them); never a server figure."""


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
        table = table.loc[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def hardware_fit_view(
    catalog: cat.Catalog,
    ratings: pd.DataFrame,
    target: cat.Hardware,
    context_tokens: int | None = None,
    flt: cat.ModelFilter = cat.NO_FILTER,
    show_all: bool = False,
) -> pd.DataFrame:
    """The "What fits my hardware" table, one row per checkpoint: seed verdict, the Q4 figure's
    basis, measured tok/s by kind where a row exists for exactly this GPU and count (its own, or
    labelled "measured on ..." from the other checkpoint of its release), the context-length
    verdict and Q8_0 / FP16 alternatives beside it, and the best Elo rating of the checkpoint's
    variants (listed in ``variants``).

    Models that fit come first, highest Elo rating first (unrated models after rated ones)."""
    models = cat.filtered_models(catalog, flt)
    collapsed = checkpoints.one_row_per_checkpoint(models, ratings)
    table = inference_list(collapsed, target, catalog.gpus, context_tokens, show_all)
    speeds = throughput.measured_speeds(
        catalog.throughput, catalog.models, target.gpu_id, target.count
    )
    table = table.merge(speeds, left_on="checkpoint_id", right_index=True, how="left")
    for field in ("tokens_per_s", "quant", "source_url"):
        table[f"measured_{field}"] = table[f"single_stream_{field}"]
    order = ["fits", "rating", "ratio", "model_id"]
    table = table.sort_values(order, ascending=[False, False, True, True], na_position="last")
    return table.reindex(columns=list(HARDWARE_VIEW_COLUMNS)).reset_index(drop=True)


def speed_coverage(catalog: cat.Catalog, target: cat.Hardware) -> dict[str, int]:
    """How many measured generation rows of each kind the catalog has for exactly this GPU and
    count (whatever model they name): the page says so when there are none."""
    rows = catalog.throughput
    if rows is None or rows.empty:
        return {kind: 0 for kind in throughput.THROUGHPUT_KINDS}
    here = rows[
        (rows["gpu_id"].astype(str).str.casefold() == target.gpu_id.casefold())
        & (pd.to_numeric(rows["gpu_count"], errors="coerce") == target.count)
        & (rows["phase"].astype(str) == "generation")
    ]
    kinds = throughput.throughput_kinds(here)
    return {kind: int((kinds == kind).sum()) for kind in throughput.THROUGHPUT_KINDS}


SPEED_COLUMNS = {
    k: f"{throughput.KIND_PREFIX[k]}_tokens_per_s" for k in throughput.THROUGHPUT_KINDS
}
"""Kind -> the view's measured tok/s column of that kind (measured-only, sort)."""


def has_measured_speed(table: pd.DataFrame) -> pd.Series:
    """True per row with a measured generation figure of any kind (own or same-release)."""
    present = [c for c in SPEED_COLUMNS.values() if c in table]
    if not present:
        return pd.Series(False, index=table.index)
    return table[present].notna().any(axis=1)


def speed_kinds_present(table: pd.DataFrame) -> list[str]:
    """The kinds with at least one measured figure in ``table``, in THROUGHPUT_KINDS order."""
    return [k for k, c in SPEED_COLUMNS.items() if c in table and table[c].notna().any()]


def empty_speed_columns(table: pd.DataFrame) -> set[str]:
    """The columns of every speed kind without a figure in ``table`` (all its fields): a page
    shows only the kinds measured for the selection."""
    absent = [k for k in throughput.THROUGHPUT_KINDS if k not in speed_kinds_present(table)]
    return {f"{throughput.KIND_PREFIX[k]}_{f}" for k in absent for f in throughput.SPEED_FIELDS}


def narrowed(table: pd.DataFrame, measured_only: bool, sort_kind: str | None) -> pd.DataFrame:
    """The view with only measured rows when asked, sorted by one kind's measured tok/s
    (fastest first, rows without a figure of that kind after, in their verdict order) when
    ``sort_kind`` names one; kinds are never merged into one sort key (they measure different
    things)."""
    out = table[has_measured_speed(table)] if measured_only else table
    if sort_kind is not None:
        column = SPEED_COLUMNS[sort_kind]
        out = out.sort_values(column, ascending=False, na_position="last", kind="stable")
    return out.reset_index(drop=True)
