"""The catalog tables and hardware choices the hardware-fit and fine-tune views share
(seed 002, "Discovery").

By default a list holds only the models that fit the chosen hardware. ``show_all`` adds the others,
marked "won't fit", each with the smallest rentable configuration that would work: datacenter or
consumer GPUs with a rental price, in counts of 1, 2, 4 or 8, cheapest per hour first, fewer GPUs
on ties. Apple silicon is supported as the user's own hardware but never recommended.

Prices carry their provenance (:class:`Price`). ``gpus.csv`` records the $/h (a median over
provider catalogs), the provider catalogs it came from (``price_source_url``, ';'-separated) and
an optional ``price_date``; it does not record how many offers each provider listed. A price
backed by fewer than :data:`MIN_PRICE_SOURCES` provider catalogs is "thin"; thin prices are used
for the cheapest config only when no config with a better-supported price fits.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core import db
from analytics.core.licences import licence_class
from analytics.llm import hardware as hw

# The pages and views name the hardware types and price rules through this module.
Hardware, Price = hw.Hardware, hw.Price
MIN_PRICE_SOURCES, MIN_PRICE_OFFERS = hw.MIN_PRICE_SOURCES, hw.MIN_PRICE_OFFERS
norm_name = hw.norm_name
RENTABLE_KINDS = ("datacenter", "consumer")
RENTABLE_COUNTS = (1, 2, 4, 8)
DEFAULT_GPU = "rtx-4090"  # preselected on the pages when the catalog has it
WONT_FIT = "won't fit"
FITS = "fits"
TABLES = ("models", "gpus", "throughput", "scores", "benchmarks", "finetune_memory")
SOURCES = (
    "analytics/core/db.py",
    "analytics/core/hashing.py",  # the snapshot check db.connect runs
    "analytics/core/licences.py",
    "analytics/core/problems.py",
    "analytics/core/schema.py",
    "analytics/llm/catalog.py",
    "analytics/llm/fit.py",
    "analytics/llm/hardware.py",
    "analytics/llm/ingest/__init__.py",
    "analytics/llm/ingest/roofline.py",  # fit.py reads its bits-per-weight table
)
"""The modules reading the catalog through this module runs: the start of the code-hash list
of every derived table computed from it (``planner_inputs``; ``fit_inputs`` writes it out)."""
APPLE_TIERS = ("pro", "max", "ultra")  # chip tiers above the base chip


@dataclass(frozen=True)
class Catalog:
    """The catalog tables the calculators read (empty frames where a table is absent)."""

    models: pd.DataFrame
    gpus: pd.DataFrame
    throughput: pd.DataFrame
    scores: pd.DataFrame
    benchmarks: pd.DataFrame
    finetune_memory: pd.DataFrame  # measured fine-tune peak memory (extra catalog table)


def load_catalog(con: duckdb.DuckDBPyConnection, tables: tuple[str, ...] = TABLES) -> Catalog:
    """Read the calculators' tables from a snapshot connection (absent ones are empty, and so
    are those not in ``tables``: a caller that reads only some skips the rest)."""
    unknown = set(tables) - set(TABLES)
    if unknown:
        raise ValueError(f"load_catalog: unknown tables {sorted(unknown)}; fix: one of {TABLES}")
    frames = {}
    for name in TABLES:
        has = name in tables and db.has_table(con, name)
        frames[name] = db.query(con, f"SELECT * FROM {name}") if has else pd.DataFrame()
    return Catalog(**frames)


def of_version(version: str, tables: tuple[str, ...] = TABLES) -> Catalog:
    """:func:`load_catalog` of a built snapshot version (its own connection, snapshot tables
    only, closed after)."""
    con = db.connect(version, runs=False)
    try:
        return load_catalog(con, tables)
    finally:
        con.close()


def hardware(gpus: pd.DataFrame, gpu_id: str, count: int = 1) -> Hardware:
    """The Hardware for a catalog ``gpu_id``; Apple profiles always count as one device."""
    rows = gpus[gpus["gpu_id"] == gpu_id]
    if rows.empty:
        raise KeyError(f"gpus table: no gpu_id {gpu_id!r}")
    return hw.hardware_of(rows.iloc[0].to_dict(), count)


def rentable_configs(gpus: pd.DataFrame) -> list[Hardware]:
    """Every rentable GPU x count (1, 2, 4, 8), cheapest per hour first, fewer GPUs on ties."""
    kinds = gpus["kind"].isin(RENTABLE_KINDS)
    priced = gpus[kinds & gpus["usd_per_hour"].notna() & (gpus["memory_gb"] > 0)]
    single = [hw.hardware_of(row) for row in priced.to_dict("records")]  # one pass over rows
    configs = [h if n == 1 else dataclasses.replace(h, count=n) for h in single
               for n in RENTABLE_COUNTS]
    return sorted(configs, key=lambda h: (h.count * h.usd_per_hour, h.count, h.gpu_id))


def smallest_config(configs: list[Hardware], works: Callable[[Hardware], bool]) -> Hardware | None:
    """First (cheapest) config in ``rentable_configs`` order on which ``works`` holds, among
    those with a well-supported price; a thin-priced one only when none of those works."""
    supported = [h for h in configs if not _thin(h)]
    found = next((h for h in supported if works(h)), None)
    return found or next((h for h in configs if _thin(h) and works(h)), None)


def _thin(config: Hardware) -> bool:
    return config.price is None or config.price.thin


def config_label(config: Hardware | None) -> str:
    """'2× H100 SXM ($5.00/h)' (', thin price' when so), or a dash when no rentable config is
    large enough."""
    if config is None:
        return "— (no rentable config up to 8 GPUs)"
    thin = ", thin price" if config.price is not None and config.price.thin else ""
    return f"{config.label} (${config.count * config.usd_per_hour:,.2f}/h{thin})"


def price_label(config: Hardware | None) -> str | None:
    """'$3.01/GPU-hour · 2 provider catalogs (lambda, vast) · ...', None without a price."""
    if config is None or config.price is None:
        return None
    return f"${config.price.usd_per_hour:,.2f}/GPU-hour · {config.price.provenance()}"


def filter_models(
    models: pd.DataFrame,
    licence_classes: list[str] | None = None,
    params_range_b: tuple[float, float] | None = None,
    open_weights_only: bool = False,
) -> pd.DataFrame:
    """Adds ``licence_class`` and keeps models matching the licence, size and openness filters."""
    out = models.assign(licence_class=[licence_class(x) for x in models["licence_raw"]])
    if licence_classes is not None:
        out = out[out["licence_class"].isin(licence_classes)]
    if params_range_b is not None:
        lo, hi = params_range_b
        out = out[out["total_params_b"].between(lo, hi)]
    if open_weights_only:
        out = out[out["open_weights"].fillna(False).astype(bool)]
    return out.reset_index(drop=True)


@dataclass(frozen=True)
class ModelFilter:
    """Licence classes (None = all), parameter range in B (None = any), open weights only."""

    licence_classes: tuple[str, ...] | None = None
    params_range_b: tuple[float, float] | None = None
    open_weights_only: bool = False


NO_FILTER = ModelFilter()


def filtered_models(catalog: Catalog, flt: ModelFilter) -> pd.DataFrame:
    """:func:`filter_models` of the catalog's models under ``flt``."""
    lic = list(flt.licence_classes) if flt.licence_classes is not None else None
    return filter_models(catalog.models, lic, flt.params_range_b, flt.open_weights_only)


def gpu_names(gpus: pd.DataFrame) -> dict[str, str]:
    """:func:`hardware.gpu_names` of the ``gpus`` table."""
    return hw.gpu_names(gpus.to_dict("records"))


def resolve_gpu(gpus: pd.DataFrame, name: str, names: dict[str, str] | None = None) -> str:
    """The gpu_id a user-typed name refers to (:func:`hardware.resolve_gpu`); ``names`` is
    ``gpu_names(gpus)`` when the caller has it already."""
    names = gpu_names(gpus) if names is None else names
    return hw.resolve_gpu(names, name, gpus["gpu_id"])


def model_names(models: pd.DataFrame) -> dict[str, str]:
    """Every accepted spelling of a model (model_id, then display_name, then ``aliases``;
    case- and separator-insensitive) -> model_id; an id always wins over another's alias."""
    names: dict[str, str] = {}
    aliases = model_aliases(models)
    for column in ("model_id", "display_name"):
        for model_id, label in zip(models["model_id"], models[column], strict=True):
            if isinstance(label, str) and label.strip():
                names.setdefault(norm_name(label), model_id)
    for model_id, labels in aliases.items():
        for label in labels:
            names.setdefault(norm_name(label), model_id)
    return names


def resolve_model(models: pd.DataFrame, name: str, names: dict[str, str] | None = None) -> str:
    """The model_id a user-typed name or alias refers to (:func:`hardware.resolve_model`);
    ``names`` is ``model_names(models)`` when the caller has it."""
    names = model_names(models) if names is None else names
    return hw.resolve_model(names, name, models["model_id"])


def model_aliases(models: pd.DataFrame) -> dict[str, list[str]]:
    """model_id -> the other names sources use for it (``models.aliases``, ';'-separated)."""
    if "aliases" not in models:
        return {}
    out = {}
    for model_id, raw in zip(models["model_id"], models["aliases"], strict=True):
        text = "" if raw is None or pd.isna(raw) else str(raw)
        out[model_id] = [a.strip() for a in text.split(";") if a.strip()]
    return out


def default_apple(gpus: pd.DataFrame) -> str | None:
    """The preselected Apple profile: the newest base chip (no Pro/Max/Ultra tier: the
    mainstream Mac) in the catalog, largest memory on ties; without a base chip, the newest
    generation's smallest profile. None without Apple profiles."""
    apple = gpus[gpus["kind"] == "apple"]
    if apple.empty:
        return None
    rows = apple.assign(
        _gen=[_apple_generation(n) for n in apple["name"]],
        _base=[not any(t in str(n).casefold().split() for t in APPLE_TIERS) for n in apple["name"]],
    )
    base = rows[rows["_base"]]
    if not base.empty:
        return str(base.sort_values(["_gen", "memory_gb"], ascending=False).iloc[0]["gpu_id"])
    newest = rows[rows["_gen"] == rows["_gen"].max()]
    return str(newest.sort_values(["memory_gb", "gpu_id"]).iloc[0]["gpu_id"])


def _apple_generation(name: object) -> int:
    """The M-number of an Apple chip name ('Apple M3 Max 64GB' -> 3); 0 when absent."""
    found = re.search(r"\bM(\d+)\b", str(name))
    return int(found.group(1)) if found else 0


def default_gpu(gpu_ids: list[str]) -> str:
    """The preselected GPU: :data:`DEFAULT_GPU` when offered, else the first of ``gpu_ids``."""
    return DEFAULT_GPU if DEFAULT_GPU in gpu_ids else gpu_ids[0]


def gpu_choices(gpus: pd.DataFrame, apple: bool) -> dict[str, str]:
    """gpu_id -> 'Name · 80 GB' for the Apple profiles or for the other GPUs, smallest first."""
    pool = gpus[(gpus["kind"] == "apple") == apple].sort_values(["memory_gb", "gpu_id"])
    return {
        g: f"{n} · {m:g} GB"
        for g, n, m in zip(pool["gpu_id"], pool["name"], pool["memory_gb"], strict=True)
    }
