"""The user's hardware (one catalog GPU, or Apple profile, times a count), its rental price with
what backs it, and the lookups that turn a typed GPU or model name into a catalog id.

Plain Python over one catalog row (a dict) or a name table, with no pandas or DuckDB import:
``python -m analytics fit`` answers from the precomputed ``fit_inputs`` file through these, and
``catalog`` builds its tables' hardware with the same functions.

A ``gpus.csv`` $/h is a median over provider catalogs; the row names those catalogs
(``price_source_url``, ';'-separated) and may give a ``price_date``; it never records how many
offers each provider listed. A price backed by fewer than :data:`MIN_PRICE_SOURCES` provider
catalogs is "thin".
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from analytics.core import problems
from analytics.llm import fit as hwfit

MIN_PRICE_SOURCES = 2  # fewer provider catalogs behind a $/h -> "thin"
MIN_PRICE_OFFERS = 2  # fewer on-demand offers behind a $/h (when counted) -> "thin"


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


def hardware_of(row: dict, count: int = 1) -> Hardware:
    """The Hardware of one ``gpus`` row (a dict); Apple profiles always count as one device."""
    kind = str(row["kind"])
    return Hardware(
        gpu_id=str(row["gpu_id"]),
        name=str(row["name"]),
        kind=kind,
        memory_gb=float(row["memory_gb"]),
        count=1 if kind == "apple" else int(count),
        bf16_tflops=number(row.get("bf16_tflops_dense")),
        usd_per_hour=number(row.get("usd_per_hour")),
        price=_price(row),
    )


def with_offers(hw: Hardware, offers: object) -> Hardware:
    """``hw`` with its price's offer count (a ``gpus.price_offers`` cell; None when the catalog
    does not record it); unchanged without a price."""
    if hw.price is None:
        return hw
    count = None if hwfit.is_missing(offers) else int(offers)
    return dataclasses.replace(hw, price=dataclasses.replace(hw.price, offers=count))


def _price(row: dict) -> Price | None:
    """The row's $/h with its provider catalogs and date; None without a price."""
    usd = number(row.get("usd_per_hour"))
    if usd is None:
        return None
    urls = text(row.get("price_source_url"))
    date = text(row.get("price_date"))
    return Price(usd, tuple(u.strip() for u in urls.split(";") if u.strip()), date or None)


def number(value: object) -> float | None:
    """A catalog number as a float, None when absent (None, NaN, a missing marker)."""
    return None if hwfit.is_missing(value) else float(value)


def text(value: object) -> str:
    """A catalog text cell, "" when absent."""
    return "" if hwfit.is_missing(value) else str(value)


def norm_name(name: str) -> str:
    """A typed name as the lookups compare it: case- and separator-insensitive."""
    return re.sub(r"[\s_\-]+", "-", str(name).strip().casefold()).strip("-")


def gpu_names(rows: Iterable[dict]) -> dict[str, str]:
    """Every accepted spelling of a GPU (gpu_id, name, ``aliases``; case- and
    separator-insensitive) -> gpu_id, from ``gpus`` rows."""
    names: dict[str, str] = {}
    for row in rows:
        aliases = text(row.get("aliases"))  # NaN (no aliases) reads as ""
        for label in [row["gpu_id"], row["name"], *aliases.split(";")]:
            if str(label).strip():
                names.setdefault(norm_name(label), row["gpu_id"])
    return names


def resolve_gpu(names: dict[str, str], name: str, ids: Iterable[str]) -> str:
    """The gpu_id a user-typed name refers to (``names``: :func:`gpu_names`); raises
    LookupError (one line) naming the closest known GPUs, else the first of ``ids``."""
    key = norm_name(name)
    if key in names:
        return names[key]
    close = difflib.get_close_matches(key, list(names), n=5, cutoff=0.4)
    shown = list(dict.fromkeys(names[c] for c in close)) or sorted(ids)[:8]
    fix = "pass a catalog gpu_id, name or alias (gpus.csv) or --vram-gb"
    raise LookupError(
        f"unknown GPU {problems.quote(name)}; closest known: {', '.join(shown)}; fix: {fix}"
    )


def resolve_model(names: dict[str, str], name: str, ids: Iterable[str]) -> str:
    """The model_id a user-typed name or alias refers to (``names``: ``catalog.model_names``);
    raises LookupError (one line) naming the closest catalog ids, else the first of ``ids``."""
    key = norm_name(name)
    if key in names:
        return names[key]
    close = difflib.get_close_matches(key, list(names), n=8, cutoff=0.5)
    shown = list(dict.fromkeys(names[c] for c in close))[:5] or sorted(ids)[:5]
    fix = "pass a catalog model_id (models.csv) or --params-b"
    raise LookupError(
        f"unknown model {problems.quote(name)}; closest known: {', '.join(shown)}; fix: {fix}"
    )
