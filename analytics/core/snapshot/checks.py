"""Validation rules of the catalog: keys, references, bounds, allowed values, aliases, file
names, and the track validators registered by the modules in ``CHECK_MODULES``.

Every problem is one line: ``<file>:<line>: <what is wrong>; fix: <what to do>``.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path

import analytics.core.snapshot.generation as generation
from analytics.core import schema
from analytics.core.problems import Problem, at, display_path, fields
from analytics.core.snapshot.parse import (
    Table,
    catalog_files,
    json_problems,
    one_line,
    read_table,
    rows_with,
    shown,
    table_name,
)

REFERENCES: tuple[tuple[str, str, str, str], ...] = (
    ("scores", "model_id", "models", "the model"),
    ("scores", "benchmark_id", "benchmarks", "the benchmark"),
    ("throughput", "gpu_id", "gpus", "the GPU"),
)
"""(table, column, referenced table, noun): each value must be a key of the referenced table."""

ALLOWED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    ("scores", "source_kind"): schema.SOURCE_KINDS,
    ("gpus", "kind"): schema.GPU_KINDS,
    ("benchmarks", "category"): schema.CATEGORIES,
}

CHECK_MODULES: tuple[str, ...] = ("analytics.fl.catalog_checks",)
"""Track modules that register validators when imported (a test checks every
``*catalog_checks.py`` under analytics/ is listed). Imported by name: core never imports a track."""

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ID = re.compile(schema.ID_PATTERN)
_URL = re.compile(r"^https?://[^\s/]+\.[^\s/]+(/\S*)?$")

Validator = Callable[[Path], Iterable[str]]
_VALIDATORS: dict[str, Validator] = {}
_DISCOVERED = False


class CatalogError(Problem, ValueError):
    """The catalog failed validation; ``problems`` holds every one-line problem, ``where``,
    ``what`` and ``fix`` are the first one's, and the message is every line and the count."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__(*fields(self.problems[0] if self.problems else ""))
        self.args = ("\n".join([*self.problems, f"{len(self.problems)} problems"]),)

    def __reduce__(self):
        return (type(self), (self.problems,), self.__dict__)


# --- registry ---------------------------------------------------------------------------------


def register_validator(name: str, fn: Validator) -> None:
    """Add (or replace) an extra catalog check run by ``validate`` and ``build``.

    ``fn(catalog_dir)`` returns problem lines (format them with ``analytics.core.problems.at``).
    Track modules call this at import time; list the module in ``CHECK_MODULES``.
    """
    _VALIDATORS[name] = fn


def registered_validators() -> dict[str, Validator]:
    """Extra validators by name, after importing every module in ``CHECK_MODULES``."""
    _discover_checks()
    return dict(_VALIDATORS)


def validator_names() -> list[str]:
    """Names of the validators registered so far, sorted (recorded in the manifest)."""
    return sorted(_VALIDATORS)


def _discover_checks() -> list[str]:
    global _DISCOVERED
    problems: list[str] = []
    if _DISCOVERED:
        return problems
    for module in CHECK_MODULES:
        try:
            importlib.import_module(module)
        except Exception as exc:  # a broken track check must block the build, loudly
            problems.append(f"{module}: import failed ({exc!r}); fix: repair the module")
    _DISCOVERED = not problems
    return problems


# --- cross-row checks -------------------------------------------------------------------------


def _check_keys(table: Table) -> list[str]:
    key_cols = schema.PRIMARY_KEYS.get(table.name, ())
    seen: dict[tuple, int] = {}
    problems = []
    for line, row in rows_with(table, *key_cols) if key_cols else []:
        key = tuple(row[c] for c in key_cols)
        if key in seen:
            cells = ", ".join(f"{c}={shown(row[c])}" for c in key_cols)
            what = f"duplicate key ({cells}), first on line {seen[key]}"
            problems.append(at(table.path, line, what, "remove or merge one of the rows"))
        else:
            seen.setdefault(key, line)
    return problems


def _check_references(tables: dict[str, Table]) -> list[str]:
    problems = []
    for name, col, target, noun in REFERENCES:
        key = schema.PRIMARY_KEYS[target][0]
        if name not in tables or target not in tables or key not in tables[target].header:
            continue
        known = {row[key] for _, row in rows_with(tables[target], key)}
        for line, row in rows_with(tables[name], col):
            if row[col] not in known:
                what = f"{col} {shown(row[col])} is not in {target}.csv"
                problems.append(at(tables[name].path, line, what, f"add {noun} or correct the id"))
    return problems


def _check_bounds(tables: dict[str, Table]) -> list[str]:
    problems = []
    bench = tables.get("benchmarks")
    bounds: dict[str, tuple[float, float]] = {}
    ranges = rows_with(bench, "benchmark_id", "lower_bound", "upper_bound") if bench else []
    for line, row in ranges:
        low, high = row["lower_bound"], row["upper_bound"]
        if low > high:
            what = f"lower_bound {low:g} is above upper_bound {high:g}"
            problems.append(at(bench.path, line, what, "swap the two bounds"))
        else:
            bounds[row["benchmark_id"]] = (low, high)
    scores = tables.get("scores")
    for line, row in rows_with(scores, "benchmark_id", "score") if scores else []:
        low, high = bounds.get(row["benchmark_id"], (-math.inf, math.inf))
        if not low <= row["score"] <= high:
            what = (
                f"score {row['score']:g} is outside [{low:g}, {high:g}], the bounds of "
                f"benchmark '{row['benchmark_id']}'"
            )
            fix = "correct the score, or the bounds in benchmarks.csv"
            problems.append(at(scores.path, line, what, fix))
    return problems


RANGES: dict[tuple[str, str], tuple[float, float, str]] = {
    ("models", "total_params_b"): (1e-3, 1e5, "billions of parameters"),
    ("models", "active_params_b"): (1e-3, 1e5, "billions of parameters"),
    ("models", "usd_per_mtok_input"): (0.0, 1e4, "US$ per million tokens"),
    ("models", "usd_per_mtok_output"): (0.0, 1e4, "US$ per million tokens"),
    ("models", "vram_q4_gb"): (1e-3, 1e5, "GB"),
    ("models", "context_length"): (1.0, 1e9, "tokens"),
    ("gpus", "memory_gb"): (0.1, 1e5, "GB"),
    ("gpus", "bf16_tflops_dense"): (1e-3, 1e6, "TFLOPS"),
    ("gpus", "mem_bandwidth_gbps"): (1e-3, 1e6, "GB/s"),
    ("gpus", "usd_per_hour"): (0.0, 1e4, "US$ per GPU-hour"),
    ("throughput", "tokens_per_s"): (0.0, 1e7, "tokens per second"),
    ("throughput", "gpu_count"): (1.0, 1e5, "GPUs"),
}
"""(table, column) -> (lowest, highest, unit) a figure may take (no negative price,
no zero memory, no 1e300 parameters). Dates are checked against the build day instead."""
DATED = (("models", "release_date"), ("scores", "date"), ("models", "price_date"))
"""Date columns that may not lie after the day the catalog is validated (no 2099 release)."""


def _check_ranges(table: Table, today: date | None = None) -> list[str]:
    """Figures outside :data:`RANGES` and dates of :data:`DATED` after ``today``."""
    problems = []
    for col in table.header:
        limits = RANGES.get((table.name, col))
        for line, row in rows_with(table, col) if limits else []:
            low, high, unit = limits
            if not low <= row[col] <= high:
                what = f"{col} {row[col]:g} is outside [{low:g}, {high:g}] {unit}"
                problems.append(at(table.path, line, what, "correct the figure from its source"))
        if (table.name, col) in DATED:
            day = today or date.today()
            for line, row in rows_with(table, col):
                if row[col] > day:
                    what = f"{col} {row[col].isoformat()} is after today ({day.isoformat()})"
                    problems.append(at(table.path, line, what, "correct the date"))
    return problems


def _check_values(table: Table) -> list[str]:
    problems = []
    for col in table.header:
        allowed = ALLOWED_VALUES.get((table.name, col))
        for line, row in rows_with(table, col) if allowed else []:
            if row[col] not in allowed:
                what = f"{col} {shown(row[col])} is not one of: {', '.join(allowed)}"
                problems.append(at(table.path, line, what, "use one of those values"))
        if col.endswith("url") and table.types.get(col) == "str":
            for line, row in rows_with(table, col):
                if not _URL.match(row[col]):
                    what = f"{col} {shown(row[col])} is not an http(s) link"
                    fix = "write the full link, starting with https://"
                    problems.append(at(table.path, line, what, fix))
    return problems


def _check_ids(table: Table) -> list[str]:
    """Every identifier cell (``schema.ID_COLUMNS``) matches ``schema.ID_PATTERN``."""
    problems = []
    for col in schema.ID_COLUMNS.get(table.name, ()):
        for line, row in rows_with(table, col):
            if not _ID.match(row[col]):
                what = f"{col} {shown(row[col])} is not a valid id"
                fix = "use lower-case ASCII letters, digits and . _ + - (at most 128)"
                problems.append(at(table.path, line, what, fix))
    return problems


def normalise_name(name: str) -> str:
    """Name as compared for alias ambiguity: case-folded, spaces/underscores/hyphens -> '-'."""
    return re.sub(r"[\s_\-]+", "-", name.strip().casefold()).strip("-")


def _check_aliases(table: Table) -> list[str]:
    key = schema.PRIMARY_KEYS.get(table.name, ("",))[0]
    if "aliases" not in table.header:
        return []
    owners: dict[str, tuple[str, int]] = {}
    problems = []
    for line, row in rows_with(table, key):
        names = [(row[key], key)]
        names += [(a.strip(), "alias") for a in (row["aliases"] or "").split(";") if a.strip()]
        for name, kind in names:
            owner = owners.setdefault(normalise_name(name), (row[key], line))
            if owner[0] != row[key]:
                what = f"{kind} {shown(name)} also names {key} {shown(owner[0])} (line {owner[1]})"
                fix = "keep each name on one row only, or make the names distinct"
                problems.append(at(table.path, line, what, fix))
    return problems


def _check_names(catalog_dir: Path, files: list[Path]) -> list[str]:
    problems = []
    seen: dict[str, Path] = {}
    for path in files:
        if path.suffix.lower() != ".csv":
            continue
        name = table_name(catalog_dir, path)
        if not _IDENT.match(name):
            fix = "rename the file using letters, digits and underscores"
            problems.append(at(path, None, f"table name {shown(name)} is not an identifier", fix))
        elif name in seen:
            what = f"table name {shown(name)} is also produced by {display_path(seen[name])}"
            problems.append(at(path, None, what, "rename one of the files"))
        seen.setdefault(name, path)
    return problems


# --- validation -------------------------------------------------------------------------------


def load_catalog(catalog_dir: Path) -> tuple[dict[str, Table], list[str]]:
    """Parse and check every catalog file; returns the typed tables and all problems."""
    if not catalog_dir.is_dir():
        fix = "create it, or pass --catalog DIR"
        return {}, [at(catalog_dir, None, "catalog folder is missing", fix)]
    files = catalog_files(catalog_dir)
    problems = generation.problems(catalog_dir) + _check_names(catalog_dir, files)
    for name in schema.TABLES:
        if not (catalog_dir / f"{name}.csv").is_file():
            fix = f"add it with the columns listed for '{name}' in analytics/core/schema.py"
            problems.append(at(catalog_dir / f"{name}.csv", None, "file is missing", fix))
    tables: dict[str, Table] = {}
    for path in files:
        if path.suffix.lower() == ".json":
            problems += json_problems(path)
            continue
        table, found = read_table(catalog_dir, path)
        problems += found
        if table is not None:
            tables.setdefault(table.name, table)
    for table in tables.values():
        problems += _check_keys(table) + _check_values(table) + _check_aliases(table)
        problems += _check_ids(table) + _check_ranges(table)
    problems += _check_references(tables) + _check_bounds(tables)
    return tables, [one_line(p) for p in problems]


def run_validators(catalog_dir: Path) -> list[str]:
    """Problems from every registered track validator (a failed import or a crash is one too)."""
    problems = _discover_checks()
    for name, fn in sorted(_VALIDATORS.items()):
        try:
            problems += [one_line(str(line)) for line in fn(catalog_dir)]
        except Exception as exc:  # a crashing check blocks the build rather than passing it
            what = f"validator '{name}' crashed ({one_line(repr(exc))})"
            problems.append(at(catalog_dir, None, what, "repair the validator"))
    return problems


def validate(catalog_dir: Path) -> list[str]:
    """Every problem in the catalog as one line naming file, row and fix (empty = valid)."""
    _, problems = load_catalog(catalog_dir)
    return problems + run_validators(catalog_dir)
