"""The catalog tables and hardware choices the hardware-fit and fine-tune views share
(seed 002, "Discovery").

By default a list holds only the models that fit the chosen hardware. ``show_all`` adds the others,
marked "won't fit", each with the smallest rentable configuration that would work: datacenter or
consumer GPUs with a rental price, in counts of 1, 2, 4 or 8, cheapest per hour first, fewer GPUs
on ties. Apple silicon is supported as the user's own hardware but never recommended.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core import db
from analytics.core.licences import licence_class
from analytics.llm import fit as hwfit

RENTABLE_KINDS = ("datacenter", "consumer")
RENTABLE_COUNTS = (1, 2, 4, 8)
DEFAULT_GPU = "rtx-4090"  # preselected on the pages when the catalog has it
WONT_FIT = "won't fit"
FITS = "fits"
TABLES = ("models", "gpus", "throughput", "scores", "benchmarks", "finetune_memory")


@dataclass(frozen=True)
class Hardware:
    """The user's hardware: one catalog GPU (or Apple profile) times a count."""

    gpu_id: str
    name: str
    kind: str
    memory_gb: float
    count: int = 1
    bf16_tflops: float | None = None
    usd_per_hour: float | None = None

    @property
    def budget_gb(self) -> float:
        """count x memory (Apple memory is already the discounted unified-memory budget)."""
        return hwfit.budget_gb(self.memory_gb, self.count)

    @property
    def is_apple(self) -> bool:
        return self.kind == "apple"

    @property
    def label(self) -> str:
        return f"{self.count}× {self.name}"


@dataclass(frozen=True)
class Catalog:
    """The catalog tables the calculators read (empty frames where a table is absent)."""

    models: pd.DataFrame
    gpus: pd.DataFrame
    throughput: pd.DataFrame
    scores: pd.DataFrame
    benchmarks: pd.DataFrame
    finetune_memory: pd.DataFrame  # measured fine-tune peak memory (extra catalog table)


def load_catalog(con: duckdb.DuckDBPyConnection) -> Catalog:
    """Read the calculators' tables from a snapshot connection (absent ones are empty)."""
    frames = {}
    for name in TABLES:
        has = db.has_table(con, name)
        frames[name] = db.query(con, f"SELECT * FROM {name}") if has else pd.DataFrame()
    return Catalog(**frames)


def hardware(gpus: pd.DataFrame, gpu_id: str, count: int = 1) -> Hardware:
    """The Hardware for a catalog ``gpu_id``; Apple profiles always count as one device."""
    rows = gpus[gpus["gpu_id"] == gpu_id]
    if rows.empty:
        raise KeyError(f"gpus table: no gpu_id {gpu_id!r}")
    row = rows.iloc[0]
    kind = str(row["kind"])
    return Hardware(
        gpu_id=gpu_id,
        name=str(row["name"]),
        kind=kind,
        memory_gb=float(row["memory_gb"]),
        count=1 if kind == "apple" else int(count),
        bf16_tflops=_num(row.get("bf16_tflops_dense")),
        usd_per_hour=_num(row.get("usd_per_hour")),
    )


def _num(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def rentable_configs(gpus: pd.DataFrame) -> list[Hardware]:
    """Every rentable GPU x count (1, 2, 4, 8), cheapest per hour first, fewer GPUs on ties."""
    kinds = gpus["kind"].isin(RENTABLE_KINDS)
    priced = gpus[kinds & gpus["usd_per_hour"].notna() & (gpus["memory_gb"] > 0)]
    configs = [hardware(priced, g, n) for g in priced["gpu_id"] for n in RENTABLE_COUNTS]
    return sorted(configs, key=lambda h: (h.count * h.usd_per_hour, h.count, h.gpu_id))


def smallest_config(configs: list[Hardware], works: Callable[[Hardware], bool]) -> Hardware | None:
    """First (cheapest) config in ``rentable_configs`` order on which ``works`` holds."""
    return next((h for h in configs if works(h)), None)


def config_label(config: Hardware | None) -> str:
    """'2× H100 SXM ($5.00/h)', or a dash when no rentable config is large enough."""
    if config is None:
        return "— (no rentable config up to 8 GPUs)"
    return f"{config.label} (${config.count * config.usd_per_hour:,.2f}/h)"


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


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "-", str(name).strip().casefold()).strip("-")


def gpu_names(gpus: pd.DataFrame) -> dict[str, str]:
    """Every accepted spelling (gpu_id, name, aliases; case- and separator-insensitive) -> id."""
    names: dict[str, str] = {}
    for row in gpus.to_dict("records"):
        aliases = str(row.get("aliases") or "")
        aliases = "" if aliases == "nan" else aliases
        for label in [row["gpu_id"], row["name"], *aliases.split(";")]:
            if str(label).strip():
                names.setdefault(_norm(label), row["gpu_id"])
    return names


def resolve_gpu(gpus: pd.DataFrame, name: str) -> str:
    """The gpu_id a user-typed name refers to; raises LookupError naming the closest names."""
    names = gpu_names(gpus)
    key = _norm(name)
    if key in names:
        return names[key]
    close = difflib.get_close_matches(key, list(names), n=5, cutoff=0.4)
    shown = list(dict.fromkeys(names[c] for c in close)) or sorted(gpus["gpu_id"])[:8]
    raise LookupError(f"unknown GPU {name!r}; closest known: {', '.join(shown)}")


def model_aliases(models: pd.DataFrame) -> dict[str, list[str]]:
    """model_id -> the other names sources use for it (``models.aliases``, ';'-separated)."""
    if "aliases" not in models:
        return {}
    out = {}
    for model_id, raw in zip(models["model_id"], models["aliases"], strict=True):
        text = "" if raw is None or pd.isna(raw) else str(raw)
        out[model_id] = [a.strip() for a in text.split(";") if a.strip()]
    return out


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
