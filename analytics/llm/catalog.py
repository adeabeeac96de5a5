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
import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

import duckdb
import pandas as pd

from analytics.core import db, problems
from analytics.core.licences import licence_class
from analytics.llm import fit as hwfit

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
    "analytics/llm/ingest/__init__.py",
    "analytics/llm/ingest/roofline.py",  # fit.py reads its bits-per-weight table
)
"""The modules reading the catalog through this module runs: the start of the code-hash list
of every derived table computed from it (``planner_inputs``, ``speed_inputs``)."""
MIN_PRICE_SOURCES = 2  # fewer provider catalogs behind a $/h -> "thin"
MIN_PRICE_OFFERS = 2  # fewer on-demand offers behind a $/h (when counted) -> "thin"
APPLE_TIERS = ("pro", "max", "ultra")  # chip tiers above the base chip


@dataclass(frozen=True)
class Price:
    """A rental $/GPU-hour and what backs it: provider catalogs (URLs) and the date, if any.
    The number of offers behind it is not in the catalog (``offers`` is None)."""

    usd_per_hour: float
    source_urls: tuple[str, ...] = ()
    date: str | None = None
    offers: int | None = None

    @property
    def sources(self) -> int:
        return len(self.source_urls)

    @property
    def thin(self) -> bool:
        """Backed by fewer than MIN_PRICE_SOURCES provider catalogs, or (where the offers are
        counted) by fewer than MIN_PRICE_OFFERS offers."""
        few = self.offers is not None and self.offers < MIN_PRICE_OFFERS
        return few or self.sources < MIN_PRICE_SOURCES

    def provenance(self) -> str:
        """'2 provider catalogs (lambda, vast) · date not recorded · offers not recorded'."""
        names = ", ".join(_provider(u) for u in self.source_urls) or "no source"
        n = f"{self.sources} provider catalog{'s' if self.sources != 1 else ''} ({names})"
        thin = " · thin" if self.thin else ""
        date = f"as of {self.date}" if self.date else "date not recorded"
        offers = f"{self.offers} offers" if self.offers is not None else "offers not recorded"
        return f"{n}{thin} · {date} · {offers}"


def _provider(url: str) -> str:
    """The provider a SkyPilot catalog URL is for ('.../catalogs/v8/vast/vms.csv' -> 'vast')."""
    parts = url.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 2 and parts[-1].endswith(".csv") else url


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
    price: Price | None = None  # the $/h with its provenance (catalog GPUs)

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
    return _hardware_of(rows.iloc[0].to_dict(), count)


def _hardware_of(row: dict, count: int = 1) -> Hardware:
    """:func:`hardware` of one gpus row (a dict)."""
    gpu_id = str(row["gpu_id"])
    kind = str(row["kind"])
    return Hardware(
        gpu_id=gpu_id,
        name=str(row["name"]),
        kind=kind,
        memory_gb=float(row["memory_gb"]),
        count=1 if kind == "apple" else int(count),
        bf16_tflops=_num(row.get("bf16_tflops_dense")),
        usd_per_hour=_num(row.get("usd_per_hour")),
        price=_price(row),
    )


def _price(row: pd.Series) -> Price | None:
    """The row's $/h with its provider catalogs and date; None without a price."""
    usd = _num(row.get("usd_per_hour"))
    if usd is None:
        return None
    urls = _text(row.get("price_source_url"))
    date = _text(row.get("price_date"))
    return Price(usd, tuple(u.strip() for u in urls.split(";") if u.strip()), date or None)


def _num(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _text(value: object) -> str:
    return "" if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def rentable_configs(gpus: pd.DataFrame) -> list[Hardware]:
    """Every rentable GPU x count (1, 2, 4, 8), cheapest per hour first, fewer GPUs on ties."""
    kinds = gpus["kind"].isin(RENTABLE_KINDS)
    priced = gpus[kinds & gpus["usd_per_hour"].notna() & (gpus["memory_gb"] > 0)]
    single = [_hardware_of(row) for row in priced.to_dict("records")]  # one pass over rows
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


def norm_name(name: str) -> str:
    """A typed name as the lookups compare it: case- and separator-insensitive."""
    return re.sub(r"[\s_\-]+", "-", str(name).strip().casefold()).strip("-")


def gpu_names(gpus: pd.DataFrame) -> dict[str, str]:
    """Every accepted spelling (gpu_id, name, aliases; case- and separator-insensitive) -> id."""
    names: dict[str, str] = {}
    for row in gpus.to_dict("records"):
        aliases = str(row.get("aliases") or "")
        aliases = "" if aliases == "nan" else aliases
        for label in [row["gpu_id"], row["name"], *aliases.split(";")]:
            if str(label).strip():
                names.setdefault(norm_name(label), row["gpu_id"])
    return names


def resolve_gpu(gpus: pd.DataFrame, name: str, names: dict[str, str] | None = None) -> str:
    """The gpu_id a user-typed name refers to; raises LookupError naming the closest names.
    ``names`` is ``gpu_names(gpus)`` when the caller has it already."""
    names = gpu_names(gpus) if names is None else names
    key = norm_name(name)
    if key in names:
        return names[key]
    close = difflib.get_close_matches(key, list(names), n=5, cutoff=0.4)
    shown = list(dict.fromkeys(names[c] for c in close)) or sorted(gpus["gpu_id"])[:8]
    fix = "pass a catalog gpu_id, name or alias (gpus.csv) or --vram-gb"
    raise LookupError(
        f"unknown GPU {problems.quote(name)}; closest known: {', '.join(shown)}; fix: {fix}"
    )


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
    """The model_id a user-typed name or alias refers to; raises LookupError (one line) naming
    the closest catalog ids. ``names`` is ``model_names(models)`` when the caller has it."""
    names = model_names(models) if names is None else names
    key = norm_name(name)
    if key in names:
        return names[key]
    close = difflib.get_close_matches(key, list(names), n=8, cutoff=0.5)
    shown = list(dict.fromkeys(names[c] for c in close))[:5] or sorted(models["model_id"])[:5]
    fix = "pass a catalog model_id (models.csv) or --params-b"
    raise LookupError(
        f"unknown model {problems.quote(name)}; closest known: {', '.join(shown)}; fix: {fix}"
    )


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
