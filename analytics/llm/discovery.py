"""Discovery lists for the hardware-fit and fine-tune pages (seed 002, "Discovery").

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
from analytics.llm import finetune, quality
from analytics.llm import fit as hwfit

RENTABLE_KINDS = ("datacenter", "consumer")
RENTABLE_COUNTS = (1, 2, 4, 8)
DEFAULT_GPU = "rtx-4090"  # preselected on the pages when the catalog has it
WONT_FIT = "won't fit"
FITS = "fits"


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
    for name in ("models", "gpus", "throughput", "scores", "benchmarks", "finetune_memory"):
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


def inference_list(
    models: pd.DataFrame,
    target: Hardware,
    gpus: pd.DataFrame,
    context_tokens: int | None = None,
    show_all: bool = False,
) -> pd.DataFrame:
    """Hardware-fit list: models that fit ``target`` (ratio <= 1.0); ``show_all`` adds the rest
    with status "won't fit" and ``smallest_config``. Models with no size data are left out."""
    table = hwfit.fit_table(models, target.budget_gb, context_tokens)
    table = table[table["required_gb"].notna()].copy()
    table["status"] = [FITS if f else WONT_FIT for f in table["fits"]]
    table["smallest_config"] = None
    if show_all:
        configs = rentable_configs(gpus)
        missing = ~table["fits"]
        table.loc[missing, "smallest_config"] = [
            config_label(
                smallest_config(configs, lambda h, need=need: hwfit.fits(need / h.budget_gb))
            )
            for need in table.loc[missing, "required_gb"]
        ]
    else:
        table = table[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def finetune_list(
    models: pd.DataFrame,
    target: Hardware,
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
    table["status"] = [FITS if f else WONT_FIT for f in table["fits"]]
    table["smallest_config"] = None
    table["config_method"] = None
    if show_all:
        configs = rentable_configs(gpus)
        missing = ~table["fits"]
        found = [
            _finetune_config(configs, p, recipe, method)
            for p in table.loc[missing, "total_params_b"]
        ]
        table.loc[missing, "smallest_config"] = [config_label(h) for h, _ in found]
        table.loc[missing, "config_method"] = [m for _, m in found]
    else:
        table = table[table["fits"]]
    return table.sort_values(["fits", "ratio"], ascending=[False, True]).reset_index(drop=True)


def _finetune_config(
    configs: list[Hardware], params_b: float, recipe: str, method: str
) -> tuple[Hardware | None, str | None]:
    """Cheapest rentable config for this fine-tune and the method the plan picks on it."""
    for config in configs:
        found = finetune.plan(params_b, recipe, config.budget_gb, method)
        if found.fits:
            return config, found.method
    return None, None


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


def elo_ratings(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """model_id, rating, eligible from the leaderboard's Elo fit (empty when that module or the
    scores are absent); callers cache it by snapshot version."""
    empty = pd.DataFrame({"model_id": [], "rating": [], "eligible": []})
    try:
        from analytics.llm import elo, leaderboard
    except ImportError:
        return empty
    scores = leaderboard.load_scores(con)
    if scores.empty:
        return empty
    ratings = elo.rate(scores, bootstrap=0)
    return ratings.rename(columns={"model": "model_id"})[["model_id", "rating", "eligible"]]


HARDWARE_VIEW_COLUMNS = (
    "model_id", "display_name", "verdict", "required_gb", "budget_gb", "ratio",
    "measured_tokens_per_s", "measured_quant", "measured_source_url", "kv_cache_gb",
    "q4_plus_kv_gb", "rating", "total_params_b", "active_params_b", "licence_class",
    "licence_raw", "status", "smallest_config",
)  # fmt: skip


@dataclass(frozen=True)
class ModelFilter:
    """Licence classes (None = all), parameter range in B (None = any), open weights only."""

    licence_classes: tuple[str, ...] | None = None
    params_range_b: tuple[float, float] | None = None
    open_weights_only: bool = False


def hardware_fit_view(
    catalog: Catalog,
    ratings: pd.DataFrame,
    target: Hardware,
    context_tokens: int | None = None,
    flt: ModelFilter = ModelFilter(),
    show_all: bool = False,
) -> pd.DataFrame:
    """The "What fits my hardware" table: seed verdict, measured tok/s where a row exists for
    exactly this GPU and count, KV-cache refinement and Elo rating beside each model.

    Models that fit come first, highest Elo rating first (unrated models after rated ones)."""
    lic = list(flt.licence_classes) if flt.licence_classes is not None else None
    models = filter_models(catalog.models, lic, flt.params_range_b, flt.open_weights_only)
    table = inference_list(models, target, catalog.gpus, context_tokens, show_all)
    speed = hwfit.measured_throughput(
        catalog.throughput, target.gpu_id, target.count, model_aliases(catalog.models)
    ).rename(
        columns={
            "tokens_per_s": "measured_tokens_per_s",
            "quant": "measured_quant",
            "source_url": "measured_source_url",
        }
    )
    table = table.merge(speed, on="model_id", how="left")
    table = table.merge(ratings[["model_id", "rating"]], on="model_id", how="left")
    order = ["fits", "rating", "ratio", "model_id"]
    table = table.sort_values(order, ascending=[False, False, True, True], na_position="last")
    return table[list(HARDWARE_VIEW_COLUMNS)].reset_index(drop=True)


@dataclass(frozen=True)
class FinetuneView:
    """One model's fine-tune plan on the user's hardware, with its rough cost."""

    model_id: str
    display_name: str
    plan: finetune.FinetunePlan
    parts: pd.DataFrame  # part, gb (stacked bar data; sums to plan.required_gb)
    cost: finetune.CostEstimate | None
    cost_note: str | None  # why there is no (full) cost estimate, when there is none


def finetune_view(
    catalog: Catalog,
    model_id: str,
    target: Hardware,
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


def finetune_discovery_view(
    catalog: Catalog,
    target: Hardware,
    recipe: str = "sft",
    method: str = "auto",
    axes: tuple[str, ...] = tuple(quality.AXES),
    flt: ModelFilter = ModelFilter(),
    show_all: bool = False,
) -> pd.DataFrame:
    """Fine-tune discovery list, one row per checkpoint: models that fit first, then by
    quality coverage tier and value over ``axes`` (seed 002 ranking honesty rules)."""
    lic = list(flt.licence_classes) if flt.licence_classes is not None else None
    models = filter_models(catalog.models, lic, flt.params_range_b, flt.open_weights_only)
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


def gpu_choices(gpus: pd.DataFrame, apple: bool) -> dict[str, str]:
    """gpu_id -> 'Name · 80 GB' for the Apple profiles or for the other GPUs, smallest first."""
    pool = gpus[(gpus["kind"] == "apple") == apple].sort_values(["memory_gb", "gpu_id"])
    return {
        g: f"{n} · {m:g} GB"
        for g, n, m in zip(pool["gpu_id"], pool["name"], pool["memory_gb"], strict=True)
    }
