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
    return table, by_name


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
