"""Reading the catalog's CSV and JSON files into typed tables, with a problem line for each
cell, row or file that does not parse (line 1 is the CSV header)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from analytics.core import safejson, schema
from analytics.core.problems import at

DATA_SUFFIXES = (".csv", ".json")

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest catalog file read (the biggest today, scores.csv, is about 1 MB)."""

MAX_JSON_BYTES = 8 * 1024 * 1024
"""Largest catalog JSON file read (today's are under 5 kB)."""

MAX_JSON_DEPTH = 32
"""Deepest nesting of JSON arrays/objects accepted (the catalog's files nest 4 deep)."""

MAX_SHOWN = 60
"""Characters of a cell value echoed in a problem line."""

HIDDEN_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")
"""Unicode categories no cell may hold: control, format (zero-width, bidi), line/paragraph
separators, surrogates."""

_INT64 = (-(2**63), 2**63 - 1)

_INT = re.compile(r"^[+-]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_TYPE_FIX = {
    "float": ("is not a number", "write a plain number such as 71.3"),
    "int": ("is not a whole number", "write an integer such as 32"),
    "int64": ("is outside the 64-bit integer range", "write a smaller whole number"),
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


def shown(value: object) -> str:
    """``value`` quoted for a problem line: repr (so control and invisible characters show as
    escapes and the line stays one line), cut to ``MAX_SHOWN`` characters."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 4] + "…" + text[-1]


def one_line(text: str) -> str:
    """``text`` with every non-printable character (newline, tab, zero-width, bidi) escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def hidden_char(text: str) -> tuple[int, str] | None:
    """(0-based position, ``U+XXXX``) of the first control, zero-width or bidi character."""
    if text.isprintable():
        return None
    for pos, char in enumerate(text):
        if unicodedata.category(char) in HIDDEN_CATEGORIES:
            return pos, f"U+{ord(char):04X}"
    return None


def size_problem(path: Path, limit: int | None = None) -> list[str]:
    """A problem line when ``path`` is larger than ``limit`` bytes (default
    ``MAX_FILE_BYTES``); such a file is not read."""
    limit = MAX_FILE_BYTES if limit is None else limit
    size = path.stat().st_size
    if size <= limit:
        return []
    what = f"file is {size:,} bytes, above the limit of {limit:,}"
    return [at(path, None, what, "split it into smaller tables or remove it")]


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
        value = int(text) if len(text) < 21 else None
        if value is None or not _INT64[0] <= value <= _INT64[1]:
            raise ValueError("int64")
        return value
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
    too_big = size_problem(path)
    if too_big:
        return [], too_big
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
    for col in sorted(c for c, n in Counter(header).items() if n > 1):
        problems.append(at(path, 1, f"column {shown(col)} appears twice", "keep one of them"))
    for col in header:
        if hidden_char(col):
            what = f"column name {shown(col)} holds a control or invisible character"
            problems.append(at(path, 1, what, "type the name in plain text"))
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


def _hidden_problem(path: Path, line: int, col: str, cell: str) -> list[str]:
    """A problem line when a cell holds a control, zero-width or bidi character."""
    found = hidden_char(cell)
    if found is None:
        return []
    what = f"{col} {shown(cell)} holds the invisible or control character {found[1]}"
    return [at(path, line, what, f"delete it (character {found[0] + 1} of the cell)")]


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
        except ValueError as exc:
            row[col] = None
            what, fix = _TYPE_FIX[str(exc) if str(exc) in _TYPE_FIX else table.types[col]]
            problems.append(at(table.path, line, f"{col} {shown(cell)} {what}", fix))
            continue
        problems += _hidden_problem(table.path, line, col, cell)
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
    if not body and name not in schema.MAY_BE_EMPTY:
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
    """Problem lines of one catalog JSON file: size, encoding, nesting depth and syntax."""
    too_big = size_problem(path, MAX_JSON_BYTES)
    if too_big:
        return too_big
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [at(path, None, f"not UTF-8 (byte {exc.start})", "save it as UTF-8")]
    if safejson.depth(text) > MAX_JSON_DEPTH:
        what = f"JSON nests deeper than {MAX_JSON_DEPTH} levels"
        return [at(path, None, what, "flatten the structure")]
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return [at(path, exc.lineno, f"invalid JSON ({exc.msg})", "correct the syntax")]
    except (ValueError, RecursionError) as exc:  # e.g. an integer of over 4300 digits
        return [at(path, None, f"invalid JSON ({one_line(str(exc))})", "correct the value")]
    return []
