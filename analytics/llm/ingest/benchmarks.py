"""The curated benchmark table (``benchmarks.csv`` next to this file) and unit conversion.

Every benchmark has one unit for all its rows: '%' (0-100), 'elo', 'score 0-10' or 'minutes'.
Sources that publish fractions are converted to that unit here (see docs/data.md, "Units").
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from analytics.llm.ingest.protocols import declared_terms

BENCHMARKS_CSV = Path(__file__).with_name("benchmarks.csv")
SOURCE_BENCHMARKS_DIR = Path(__file__).with_name("benchmarks")
"""One CSV per source family for benchmarks only that source publishes (same columns)."""


@dataclass(frozen=True)
class Benchmark:
    benchmark_id: str
    name: str
    category: str
    higher_is_better: bool
    lower_bound: float
    upper_bound: float
    unit: str
    protocol: str = ""
    """The one protocol its rows follow (``protocols.DECLARED_KEYS`` terms, ';'-joined; empty:
    the source's own leaderboard protocol, one id per protocol)."""
    family: str = ""
    """The one evaluation (vote pool or suite) this benchmark is a view of; empty: its own."""
    view_order: int = 1
    """1: the family's headline view; 2, 3, ...: other views, in order of preference."""
    view_note: str = ""
    """Why this view has its place in the family (shown on the model page)."""

    def in_bounds(self, score: float) -> bool:
        """True when the score lies within [lower_bound, upper_bound]."""
        return self.lower_bound <= score <= self.upper_bound

    def as_row(self) -> dict:
        return {
            "benchmark_id": self.benchmark_id,
            "name": self.name,
            "category": self.category,
            "higher_is_better": self.higher_is_better,
            "lower_bound": self.lower_bound,
            "upper_bound": self.upper_bound,
            "unit": self.unit,
            "protocol": self.protocol,
        }


def benchmark_files() -> list[Path]:
    """The shared table first, then the per-source tables in name order."""
    return [BENCHMARKS_CSV, *sorted(SOURCE_BENCHMARKS_DIR.glob("*.csv"))]


@cache
def _load() -> tuple[dict[str, Benchmark], dict[str, str]]:
    table: dict[str, Benchmark] = {}
    by_name: dict[str, str] = {}
    for path in benchmark_files():
        _read_into(path, table, by_name)
    _check_families(table)
    return table, by_name


def _view_fields(path: Path, lineno: int, row: dict) -> dict:
    """``family``, ``view_order`` and ``view_note`` of a table row (the columns are optional: a
    table without families leaves them out)."""
    family = (row.get("family") or "").strip()
    order = (row.get("view_order") or "").strip()
    if not family:
        if order:
            raise ValueError(
                f"{path}:{lineno}: view_order {order!r} without a family; "
                "fix: name the family or clear view_order"
            )
        return {}
    if not order.isdigit() or int(order) < 1:
        raise ValueError(
            f"{path}:{lineno}: family {family!r} needs a view_order of 1 (the "
            f"headline view) or more, not {order!r}"
        )
    return {
        "family": family,
        "view_order": int(order),
        "view_note": (row.get("view_note") or "").strip(),
    }


def _check_families(table: dict[str, Benchmark]) -> None:
    """Each family has exactly one headline view (order 1) and no two views share an order,
    so which view of an evaluation counts is never a tie (docs/elo.md, "One evaluation, one
    benchmark")."""
    orders: dict[str, dict[int, str]] = {}
    for bench in table.values():
        if not bench.family:
            continue
        taken = orders.setdefault(bench.family, {})
        if bench.view_order in taken:
            raise ValueError(
                f"benchmarks: {taken[bench.view_order]!r} and {bench.benchmark_id!r} are both "
                f"view {bench.view_order} of family {bench.family!r}; fix: give each view of "
                "a family its own view_order"
            )
        taken[bench.view_order] = bench.benchmark_id
    for family, taken in sorted(orders.items()):
        if 1 not in taken:
            raise ValueError(
                f"benchmarks: family {family!r} has no headline view; fix: give "
                "one of its views view_order 1"
            )


def _read_into(path: Path, table: dict[str, Benchmark], by_name: dict[str, str]) -> None:
    with open(path, newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            if row["benchmark_id"] in table:
                raise ValueError(
                    f"{path}:{lineno}: benchmark {row['benchmark_id']!r} is already defined; "
                    "keep one row per benchmark across the benchmark tables"
                )
            bench = Benchmark(
                benchmark_id=row["benchmark_id"],
                name=row["name"],
                category=row["category"],
                higher_is_better=row["higher_is_better"] == "true",
                lower_bound=float(row["lower_bound"]),
                upper_bound=float(row["upper_bound"]),
                unit=row["unit"],
                protocol=(row.get("protocol") or "").strip(),
                **_view_fields(path, lineno, row),
            )
            try:
                declared_terms(bench.protocol)
            except ValueError as exc:
                raise ValueError(f"{path}:{lineno}: {exc}") from None
            table[bench.benchmark_id] = bench
            for name in filter(None, (row["source_names"] or "").split(";")):
                by_name[name.strip().lower()] = bench.benchmark_id


def all_benchmarks() -> dict[str, Benchmark]:
    """benchmark_id -> Benchmark for every curated benchmark."""
    return _load()[0]


def views() -> dict[str, tuple[str, int, str]]:
    """benchmark_id -> (family, view_order, view_note) for every benchmark declared a view of
    a family; benchmarks that are their own evaluation are absent."""
    return {
        b.benchmark_id: (b.family, b.view_order, b.view_note)
        for b in all_benchmarks().values()
        if b.family
    }


def benchmark_for_name(dataset_name: str) -> str | None:
    """Curated benchmark_id for a source's dataset name (case-insensitive), else None."""
    return _load()[1].get(dataset_name.strip().lower())


def from_fraction_or_percent(value: float, unit: str) -> tuple[float, str]:
    """Convert an LLM-Stats style value to `unit`; returns (value, conversion label).

    LLM Stats stores fractions (0.873 = 87.3 %); a few rows are already in percent (81.4). A
    value <= 1 is read as a fraction and scaled (x100 for '%', x10 for 'score 0-10'); a larger
    value is taken as already in the benchmark's unit.
    """
    scale = {"%": 100.0, "score 0-10": 10.0}.get(unit)
    if scale is None:
        return value, "as published"
    if 0 <= value <= 1:
        return value * scale, f"fraction x{scale:g}"
    return value, "already in unit"
