"""Reading the catalog's CSV and JSON files into typed tables, with a problem line for each
cell, row or file that does not parse (line 1 is the CSV header)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from analytics.core import schema
from analytics.core.problems import at

DATA_SUFFIXES = (".csv", ".json")

_INT = re.compile(r"^[+-]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_TYPE_FIX = {
    "float": ("is not a number", "write a plain number such as 71.3"),
    "int": ("is not a whole number", "write an integer such as 32"),
    "bool": ("is not a boolean", "write true or false"),
    "date": ("is not an ISO date", "write the date as YYYY-MM-DD"),
}
"""dtype -> (what is wrong with a cell, how to fix it)."""


@dataclass
class Table:
    """One parsed CSV table: typed cell values per row, with the row's 1-based line number."""

    name: str
    path: Path
    header: list[str]
    lines: list[int] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)


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


def rows_with(table: Table, *cols: str) -> Iterable[tuple[int, dict[str, Any]]]:
    """(line, row) of the rows whose given columns all exist and are non-null."""
    if not all(c in table.header for c in cols):
        return []
    return [
        (ln, r)
        for ln, r in zip(table.lines, table.rows, strict=True)
        if None not in (r[c] for c in cols)
    ]


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
        return [], [at(path, None, f"not UTF-8 (byte {exc.start})", "save it as UTF-8")]
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []
    while True:
        start = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return records, []
        except csv.Error as exc:
            return records, [at(path, start, f"malformed CSV ({exc})", "fix the quoting")]
        if cells:
            records.append((start, cells))


def _check_header(path: Path, name: str, header: list[str]) -> list[str]:
    problems = []
    for col in sorted({c for c in header if header.count(c) > 1}):
        problems.append(at(path, 1, f"column '{col}' appears twice", "keep one of them"))
    if "" in header:
        problems.append(at(path, 1, "a column has an empty name", "name it or remove it"))
    for col in schema.TABLES.get(name, ()):
        if col.required and col.name not in header:
            fix = f"add the column '{col.name}' ({col.dtype}) to the header"
            problems.append(at(path, 1, f"missing column '{col.name}'", fix))
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
                problems.append(at(table.path, line, f"{col} is empty", "fill it in"))
            continue
        try:
            row[col] = _parse_cell(table.types[col], cell)
        except ValueError:
            row[col] = None
            what, fix = _TYPE_FIX[table.types[col]]
            problems.append(at(table.path, line, f"{col} '{cell}' {what}", fix))
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
            problems.append(at(path, None, "file is empty", fix))
        return None, problems
    (_, header), body = records[0], records[1:]
    problems += _check_header(path, name, header)
    if problems and len(set(header)) != len(header):
        return None, problems
    table = Table(name, path, header, types=_column_types(name, header, body))
    if not body:
        problems.append(at(path, None, "table is empty (header only)", "add data rows"))
    required = {c.name for c in schema.TABLES.get(name, ()) if c.required}
    for line, cells in body:
        if len(cells) != len(header):
            what = f"row has {len(cells)} cells but the header has {len(header)}"
            problems.append(at(path, line, what, "quote cells that contain commas"))
            continue
        problems += _typed_row(table, line, cells, required)
    return table, problems


def json_problems(path: Path) -> list[str]:
    try:
        json.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return [at(path, None, f"not UTF-8 (byte {exc.start})", "save it as UTF-8")]
    except json.JSONDecodeError as exc:
        return [at(path, exc.lineno, f"invalid JSON ({exc.msg})", "correct the syntax")]
    return []
