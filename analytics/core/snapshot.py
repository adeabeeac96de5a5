"""Validate the curated catalog and build immutable, versioned Parquet snapshots.

Seed 002, "Versioned snapshots": the catalog (``data/catalog``, CSV and JSON in git) is validated
and built into ``data/snapshots/<version>/``; the version is a content hash of the data, so it
changes only when the data does, and a built version is never rewritten. Seed 002, "Freshness &
contributions": validation enforces referential integrity, score bounds and provenance.

Every problem is one line: ``<file>:<line>: <what is wrong>; fix: <what to do>`` (line 1 is the
CSV header). See ``docs/store.md`` for the layout and for registering track validators.

Command line::

    python -m analytics snapshot build [--catalog DIR] [--snapshots DIR]
    python -m analytics snapshot validate [--catalog DIR]
    python -m analytics snapshot list [--snapshots DIR]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import importlib
import io
import json
import math
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from analytics.core import paths, schema

BUILDER_FORMAT = 1
"""Bump when the builder writes a snapshot differently; it is part of the version hash."""

DATA_SUFFIXES = (".csv", ".json")

REFERENCES: tuple[tuple[str, str, str, str], ...] = (
    ("scores", "model_id", "models", "the model"),
    ("scores", "benchmark_id", "benchmarks", "the benchmark"),
    ("throughput", "gpu_id", "gpus", "the GPU"),
)
"""(table, column, referenced table, noun): each value must be a key of the referenced table."""

ALLOWED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    ("scores", "source_kind"): schema.SOURCE_KINDS,
    ("gpus", "kind"): schema.GPU_KINDS,
}

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT = re.compile(r"^[+-]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_URL = re.compile(r"^https?://[^\s/]+\.[^\s/]+(/\S*)?$")
_ARROW_TYPES = {
    "str": pa.string(),
    "float": pa.float64(),
    "int": pa.int64(),
    "bool": pa.bool_(),
    "date": pa.date32(),
}
_TYPE_FIX = {
    "float": "is not a number; fix: write a plain number such as 71.3",
    "int": "is not a whole number; fix: write an integer such as 32",
    "bool": "is not a boolean; fix: write true or false",
    "date": "is not an ISO date; fix: write the date as YYYY-MM-DD",
}

Validator = Callable[[Path], Iterable[str]]
_VALIDATORS: dict[str, Validator] = {}
_DISCOVERED = False


class CatalogError(ValueError):
    """The catalog failed validation; ``problems`` holds every one-line problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join([*self.problems, f"{len(self.problems)} problems"]))


@dataclass(frozen=True)
class BuildResult:
    """A built (or already existing) snapshot."""

    version: str
    path: Path
    counts: dict[str, int]
    categories: int
    created: bool


@dataclass
class Table:
    """One parsed CSV table: typed cell values per row, with the row's 1-based line number."""

    name: str
    path: Path
    header: list[str]
    lines: list[int] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)


# --- registry ---------------------------------------------------------------------------------


def register_validator(name: str, fn: Validator) -> None:
    """Add (or replace) an extra catalog check run by ``validate`` and ``build``.

    ``fn(catalog_dir)`` returns problem lines (use :func:`problem` to format them). Track modules
    call this at import time from a module named ``catalog_checks.py`` in their package (or
    ``analytics/<track>_catalog_checks.py``); those modules are imported automatically.
    """
    _VALIDATORS[name] = fn


def registered_validators() -> dict[str, Validator]:
    """Extra validators by name, after importing every ``*catalog_checks.py`` module."""
    _discover_checks()
    return dict(_VALIDATORS)


def _check_modules() -> list[str]:
    package = Path(__file__).resolve().parent
    found = sorted(package.rglob("*catalog_checks.py"))
    return [".".join(("analytics", *p.relative_to(package).with_suffix("").parts)) for p in found]


def _discover_checks() -> list[str]:
    global _DISCOVERED
    problems: list[str] = []
    if _DISCOVERED:
        return problems
    for module in _check_modules():
        try:
            importlib.import_module(module)
        except Exception as exc:  # a broken track check must block the build, loudly
            problems.append(f"{module}: import failed ({exc!r}); fix: repair the module")
    _DISCOVERED = not problems
    return problems


# --- helpers ----------------------------------------------------------------------------------


def display_path(path: Path) -> str:
    """A path as shown in messages: relative to the repository root when inside it."""
    try:
        return path.resolve().relative_to(paths.REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def problem(path: Path, line: int | None, what: str, fix: str) -> str:
    """Format one problem line: ``<file>:<line>: <what>; fix: <fix>``."""
    where = display_path(path) if line is None else f"{display_path(path)}:{line}"
    return f"{where}: {what}; fix: {fix}"


def catalog_files(catalog_dir: Path) -> list[Path]:
    """The CSV and JSON files of a catalog, sorted by relative path (hidden files skipped)."""
    if not catalog_dir.is_dir():
        return []
    found = []
    for path in catalog_dir.rglob("*"):
        rel = path.relative_to(catalog_dir)
        hidden = any(part.startswith(".") for part in rel.parts)
        if path.is_file() and path.suffix.lower() in DATA_SUFFIXES and not hidden:
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(catalog_dir).as_posix())


def table_name(catalog_dir: Path, path: Path) -> str:
    """Snapshot table name of a catalog file: folders joined with '_' (fl/x.csv -> fl_x)."""
    return "_".join(path.relative_to(catalog_dir).with_suffix("").parts)


def _schema_fingerprint() -> bytes:
    spec = {
        name: [[c.name, c.dtype, c.required] for c in cols] for name, cols in schema.TABLES.items()
    }
    return json.dumps([BUILDER_FORMAT, spec], sort_keys=True).encode()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def catalog_version(catalog_dir: Path) -> str:
    """Content hash of the catalog: ``v`` + 10 hex chars of sha256.

    Hashes each CSV/JSON file's relative path and exact bytes (so line endings count, mtimes do
    not), sorted by path, plus the typed schema and builder format the snapshot is built with.
    """
    digest = hashlib.sha256(_schema_fingerprint())
    for path in catalog_files(catalog_dir):
        data = path.read_bytes()
        rel = path.relative_to(catalog_dir).as_posix().encode()
        digest.update(b"%s\0%d\0" % (rel, len(data)))
        digest.update(data)
    return "v" + digest.hexdigest()[:10]


# --- parsing ----------------------------------------------------------------------------------


def _parse_cell(dtype: str, cell: str) -> Any:
    """Typed value of a non-empty cell; raises ValueError when it does not parse."""
    if dtype == "str":
        return cell
    text = cell.strip()
    if dtype == "float" and _FLOAT.match(text):
        value = float(text)
        if math.isfinite(value):
            return value
    elif dtype == "int" and _INT.match(text):
        return int(text)
    elif dtype == "bool" and text.lower() in ("true", "false"):
        return text.lower() == "true"
    elif dtype == "date" and _DATE.match(text):
        return date.fromisoformat(text)
    raise ValueError(dtype)


def _infer_type(values: list[str]) -> str:
    """Column type of an extra (schema-less) CSV: the narrowest type every non-empty cell fits."""
    present = [v for v in values if v != ""]
    for dtype in ("int", "float", "bool", "date"):
        try:
            if present and all(_parse_cell(dtype, v) is not None for v in present):
                return dtype
        except ValueError:
            continue
    return "str"


def _read_records(path: Path) -> tuple[list[tuple[int, list[str]]], list[str]]:
    """Raw CSV records as (first line number, cells); blank lines are skipped."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [], [problem(path, None, f"not UTF-8 (byte {exc.start})", "save it as UTF-8")]
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []
    while True:
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return records, []
        except csv.Error as exc:
            return records, [problem(path, start, f"malformed CSV ({exc})", "fix the quoting")]
        if cells:
            records.append((start, cells))


def _check_header(path: Path, name: str, header: list[str]) -> list[str]:
    problems = []
    for col in sorted({c for c in header if header.count(c) > 1}):
        problems.append(problem(path, 1, f"column '{col}' appears twice", "keep one of them"))
    if "" in header:
        problems.append(problem(path, 1, "a column has an empty name", "name it or remove it"))
    for col in schema.TABLES.get(name, ()):
        if col.required and col.name not in header:
            fix = f"add the column '{col.name}' ({col.dtype}) to the header"
            problems.append(problem(path, 1, f"missing column '{col.name}'", fix))
    return problems


def _column_types(name: str, header: list[str], records: list[tuple[int, list[str]]]) -> dict:
    specs = {c.name: c.dtype for c in schema.TABLES.get(name, ())}
    if name in schema.TABLES:
        return {col: specs.get(col, "str") for col in header}
    width = len(header)
    return {
        col: _infer_type([cells[i] for _, cells in records if len(cells) == width])
        for i, col in enumerate(header)
    }


def _typed_row(table: Table, line: int, cells: list[str], required: set[str]) -> list[str]:
    problems = []
    row: dict[str, Any] = {}
    for col, cell in zip(table.header, cells, strict=True):
        if cell.strip() == "":
            row[col] = None
            if col in required:
                problems.append(problem(table.path, line, f"{col} is empty", "fill it in"))
            continue
        try:
            row[col] = _parse_cell(table.types[col], cell)
        except ValueError:
            row[col] = None
            what = f"{col} '{cell}' {_TYPE_FIX[table.types[col]]}"
            problems.append(f"{display_path(table.path)}:{line}: {what}")
    table.lines.append(line)
    table.rows.append(row)
    return problems


def read_table(catalog_dir: Path, path: Path) -> tuple[Table | None, list[str]]:
    """Parse one catalog CSV into a typed :class:`Table`, with every problem found."""
    name = table_name(catalog_dir, path)
    records, problems = _read_records(path)
    if not records:
        if not problems:
            fix = "add the header row and at least one data row"
            problems.append(problem(path, None, "file is empty", fix))
        return None, problems
    (_, header), body = records[0], records[1:]
    problems += _check_header(path, name, header)
    if problems and len(set(header)) != len(header):
        return None, problems
    table = Table(name, path, header, types=_column_types(name, header, body))
    if not body:
        problems.append(problem(path, None, "table is empty (header only)", "add data rows"))
    required = {c.name for c in schema.TABLES.get(name, ()) if c.required}
    for line, cells in body:
        if len(cells) != len(header):
            what = f"row has {len(cells)} cells but the header has {len(header)}"
            problems.append(problem(path, line, what, "quote cells that contain commas"))
            continue
        problems += _typed_row(table, line, cells, required)
    return table, problems


# --- cross-row checks -------------------------------------------------------------------------


def _rows(table: Table, *cols: str) -> Iterable[tuple[int, dict[str, Any]]]:
    """Rows whose given columns all exist and are non-null."""
    if not all(c in table.header for c in cols):
        return []
    return [
        (ln, r)
        for ln, r in zip(table.lines, table.rows, strict=True)
        if None not in (r[c] for c in cols)
    ]


def _check_keys(table: Table) -> list[str]:
    key_cols = schema.PRIMARY_KEYS.get(table.name, ())
    seen: dict[tuple, int] = {}
    problems = []
    for line, row in _rows(table, *key_cols) if key_cols else []:
        key = tuple(row[c] for c in key_cols)
        if key in seen:
            shown = ", ".join(f"{c}={row[c]!r}" for c in key_cols)
            what = f"duplicate key ({shown}), first on line {seen[key]}"
            problems.append(problem(table.path, line, what, "remove or merge one of the rows"))
        else:
            seen.setdefault(key, line)
    return problems


def _check_references(tables: dict[str, Table]) -> list[str]:
    problems = []
    for name, col, target, noun in REFERENCES:
        key = schema.PRIMARY_KEYS[target][0]
        if name not in tables or target not in tables or key not in tables[target].header:
            continue
        known = {row[key] for _, row in _rows(tables[target], key)}
        for line, row in _rows(tables[name], col):
            if row[col] not in known:
                what = f"{col} '{row[col]}' is not in {target}.csv"
                problems.append(
                    problem(tables[name].path, line, what, f"add {noun} or correct the id")
                )
    return problems


def _check_bounds(tables: dict[str, Table]) -> list[str]:
    problems = []
    bench = tables.get("benchmarks")
    bounds: dict[str, tuple[float, float]] = {}
    for line, row in _rows(bench, "benchmark_id", "lower_bound", "upper_bound") if bench else []:
        low, high = row["lower_bound"], row["upper_bound"]
        if low > high:
            what = f"lower_bound {low:g} is above upper_bound {high:g}"
            problems.append(problem(bench.path, line, what, "swap the two bounds"))
        else:
            bounds[row["benchmark_id"]] = (low, high)
    scores = tables.get("scores")
    for line, row in _rows(scores, "benchmark_id", "score") if scores else []:
        low, high = bounds.get(row["benchmark_id"], (-math.inf, math.inf))
        if not low <= row["score"] <= high:
            what = (
                f"score {row['score']:g} is outside [{low:g}, {high:g}], the bounds of "
                f"benchmark '{row['benchmark_id']}'"
            )
            fix = "correct the score, or the bounds in benchmarks.csv"
            problems.append(problem(scores.path, line, what, fix))
    return problems


def _check_values(table: Table) -> list[str]:
    problems = []
    for col in table.header:
        allowed = ALLOWED_VALUES.get((table.name, col))
        for line, row in _rows(table, col) if allowed else []:
            if row[col] not in allowed:
                what = f"{col} '{row[col]}' is not one of: {', '.join(allowed)}"
                problems.append(problem(table.path, line, what, "use one of those values"))
        if col.endswith("url") and table.types.get(col) == "str":
            for line, row in _rows(table, col):
                if not _URL.match(row[col]):
                    what = f"{col} '{row[col]}' is not an http(s) link"
                    fix = "write the full link, starting with https://"
                    problems.append(problem(table.path, line, what, fix))
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
    for line, row in _rows(table, key):
        names = [(row[key], key)]
        names += [(a.strip(), "alias") for a in (row["aliases"] or "").split(";") if a.strip()]
        for name, kind in names:
            owner = owners.setdefault(normalise_name(name), (row[key], line))
            if owner[0] != row[key]:
                what = f"{kind} '{name}' also names {key} '{owner[0]}' (line {owner[1]})"
                fix = "keep each name on one row only, or make the names distinct"
                problems.append(problem(table.path, line, what, fix))
    return problems


def _check_json(path: Path) -> list[str]:
    try:
        json.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return [problem(path, None, f"not UTF-8 (byte {exc.start})", "save it as UTF-8")]
    except json.JSONDecodeError as exc:
        return [problem(path, exc.lineno, f"invalid JSON ({exc.msg})", "correct the syntax")]
    return []


def _check_names(catalog_dir: Path, files: list[Path]) -> list[str]:
    problems = []
    seen: dict[str, Path] = {}
    for path in files:
        if path.suffix.lower() != ".csv":
            continue
        name = table_name(catalog_dir, path)
        if not _IDENT.match(name):
            fix = "rename the file using letters, digits and underscores"
            problems.append(problem(path, None, f"table name '{name}' is not an identifier", fix))
        elif name in seen:
            what = f"table name '{name}' is also produced by {display_path(seen[name])}"
            problems.append(problem(path, None, what, "rename one of the files"))
        seen.setdefault(name, path)
    return problems


# --- validation -------------------------------------------------------------------------------


def load_catalog(catalog_dir: Path) -> tuple[dict[str, Table], list[str]]:
    """Parse and check every catalog file; returns the typed tables and all problems."""
    if not catalog_dir.is_dir():
        fix = "create it, or pass --catalog DIR"
        return {}, [problem(catalog_dir, None, "catalog folder is missing", fix)]
    files = catalog_files(catalog_dir)
    problems = _check_names(catalog_dir, files)
    for name in schema.TABLES:
        if not (catalog_dir / f"{name}.csv").is_file():
            fix = f"add it with the columns listed for '{name}' in analytics/core/schema.py"
            problems.append(problem(catalog_dir / f"{name}.csv", None, "file is missing", fix))
    tables: dict[str, Table] = {}
    for path in files:
        if path.suffix.lower() == ".json":
            problems += _check_json(path)
            continue
        table, found = read_table(catalog_dir, path)
        problems += found
        if table is not None:
            tables.setdefault(table.name, table)
    for table in tables.values():
        problems += _check_keys(table) + _check_values(table) + _check_aliases(table)
    problems += _check_references(tables) + _check_bounds(tables)
    return tables, problems


def _run_validators(catalog_dir: Path) -> list[str]:
    problems = _discover_checks()
    for name, fn in sorted(_VALIDATORS.items()):
        try:
            problems += [str(line) for line in fn(catalog_dir)]
        except Exception as exc:  # a crashing check blocks the build rather than passing it
            what = f"validator '{name}' crashed ({exc!r})"
            problems.append(problem(catalog_dir, None, what, "repair the validator"))
    return problems


def validate(catalog_dir: Path) -> list[str]:
    """Every problem in the catalog as one line naming file, row and fix (empty = valid)."""
    _, problems = load_catalog(catalog_dir)
    return problems + _run_validators(catalog_dir)


# --- building ---------------------------------------------------------------------------------


def _arrow_table(table: Table) -> pa.Table:
    """Typed Arrow table: schema columns first (absent optional ones as nulls), then extras."""
    specs = list(schema.TABLES.get(table.name, ()))
    cols = [(c.name, c.dtype) for c in specs]
    cols += [(c, table.types[c]) for c in table.header if c not in {s.name for s in specs}]
    arrays = {}
    for col, dtype in cols:
        values = [row.get(col) for row in table.rows]
        arrays[col] = pa.array(values, type=_ARROW_TYPES[dtype])
    return pa.table(arrays)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _manifest(version: str, catalog_dir: Path, counts: dict[str, int], categories: int) -> dict:
    files = catalog_files(catalog_dir)
    return {
        "version": version,
        "built_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "builder_format": BUILDER_FORMAT,
        "files": {p.relative_to(catalog_dir).as_posix(): _sha256(p.read_bytes()) for p in files},
        "tables": counts,
        "json": [
            p.relative_to(catalog_dir).as_posix() for p in files if p.suffix.lower() == ".json"
        ],
        "categories": categories,
        "tools": {
            "python": platform.python_version(),
            "pyarrow": pa.__version__,
            "validators": sorted(_VALIDATORS),
        },
    }


def _write_snapshot(
    catalog_dir: Path, tables: dict[str, Table], folder: Path, manifest: dict
) -> None:
    for name, table in sorted(tables.items()):
        pq.write_table(_arrow_table(table), folder / f"{name}.parquet")
        _fsync(folder / f"{name}.parquet")
    for rel in manifest["json"]:
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((catalog_dir / rel).read_bytes())
        _fsync(target)
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    _fsync(folder / "MANIFEST.json")
    for sub in sorted({p.parent for p in folder.rglob("*")} | {folder}, reverse=True):
        _fsync(sub)


def _existing(folder: Path) -> BuildResult:
    manifest = read_manifest(folder)
    return BuildResult(
        manifest["version"], folder, manifest["tables"], manifest.get("categories", 0), False
    )


def _categories(tables: dict[str, Table]) -> int:
    bench = tables.get("benchmarks")
    return len({row["category"] for _, row in _rows(bench, "category")}) if bench else 0


def build(catalog_dir: Path, snapshots_dir: Path) -> BuildResult:
    """Validate the catalog and write ``<snapshots_dir>/<version>/`` atomically.

    Raises :class:`CatalogError` with every problem and writes nothing when validation fails.
    A version already built is returned as is, never rewritten.
    """
    tables, problems = load_catalog(catalog_dir)
    problems += _run_validators(catalog_dir)
    if problems:
        raise CatalogError(problems)
    version = catalog_version(catalog_dir)
    final = snapshots_dir / version
    if (final / "MANIFEST.json").exists():
        return _existing(final)
    counts = {name: len(t.rows) for name, t in sorted(tables.items())}
    manifest = _manifest(version, catalog_dir, counts, _categories(tables))
    snapshots_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{version}-", dir=snapshots_dir))
    try:
        _write_snapshot(catalog_dir, tables, tmp, manifest)
        try:
            os.replace(tmp, final)
        except OSError:
            if (final / "MANIFEST.json").exists():  # another process built it meanwhile
                return _existing(final)
            raise
        _fsync(snapshots_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return BuildResult(version, final, counts, manifest["categories"], True)


def read_manifest(folder: Path) -> dict:
    """The MANIFEST.json of a built snapshot folder."""
    return json.loads((folder / "MANIFEST.json").read_text())


def list_snapshots(snapshots_dir: Path) -> list[dict]:
    """Manifests of every built snapshot, oldest build first."""
    if not snapshots_dir.is_dir():
        return []
    found = [
        read_manifest(p)
        for p in snapshots_dir.iterdir()
        if not p.name.startswith(".") and (p / "MANIFEST.json").is_file()
    ]
    return sorted(found, key=lambda m: (m["built_at"], m["version"]))


# --- command line -----------------------------------------------------------------------------


def summary(version: str, counts: dict[str, int], categories: int) -> str:
    """One-line description of a snapshot, e.g. ``snapshot v…: 612 models, 74 benchmarks …``."""
    parts = [
        f"{counts.get('models', 0):,} models",
        f"{counts.get('benchmarks', 0):,} benchmarks ({categories:,} categories)",
        f"{counts.get('scores', 0):,} scores",
        f"{counts.get('gpus', 0):,} gpus",
        f"{counts.get('throughput', 0):,} throughput rows",
    ]
    extra = [f"{n} ({c:,} rows)" for n, c in sorted(counts.items()) if n not in schema.TABLES]
    line = f"snapshot {version}: " + ", ".join(parts)
    return line + (f"; extra tables: {', '.join(extra)}" if extra else "")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analytics snapshot", description="Validate the catalog; build snapshots."
    )
    sub = parser.add_subparsers(dest="action", required=True)
    for action, help_ in (
        ("build", "validate the catalog and write its versioned snapshot"),
        ("validate", "check the catalog and print every problem"),
        ("list", "list built snapshots"),
    ):
        cmd = sub.add_parser(action, help=help_)
        cmd.add_argument("--catalog", type=Path, default=None, help="catalog folder")
        cmd.add_argument("--snapshots", type=Path, default=None, help="snapshots folder")
    return parser


def _report_problems(problems: list[str], tail: str) -> int:
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}; {tail}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """``python -m analytics snapshot build|validate|list``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["snapshot"]:
        argv = argv[1:]
    args = _parser().parse_args(argv)
    catalog_dir = args.catalog or paths.CATALOG_DIR
    snapshots_dir = args.snapshots or paths.SNAPSHOTS_DIR
    if args.action == "validate":
        problems = validate(catalog_dir)
        if problems:
            return _report_problems(problems, "the catalog is not valid")
        print(
            f"catalog {display_path(catalog_dir)} is valid (version {catalog_version(catalog_dir)})"
        )
        return 0
    if args.action == "list":
        for m in list_snapshots(snapshots_dir):
            print(f"{m['built_at']}  {summary(m['version'], m['tables'], m.get('categories', 0))}")
        return 0
    try:
        result = build(catalog_dir, snapshots_dir)
    except CatalogError as exc:
        return _report_problems(exc.problems, "nothing written")
    print(summary(result.version, result.counts, result.categories))
    state = "written to" if result.created else "already built at (not rewritten)"
    print(f"{state} {display_path(result.path)}")
    return 0
