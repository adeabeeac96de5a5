"""Shared pieces of the importers: row records, the drop ledger, value parsing, atomic writes."""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analytics.core import safejson
from analytics.core.problems import Problem


class IngestError(Problem):
    """A bad input file: ``where`` names the file (and row), ``what`` is wrong, ``fix`` says
    what to do."""


@dataclass
class Drops:
    """Counts rows an importer skipped, keyed by (source, reason); never drop silently."""

    counts: Counter = field(default_factory=Counter)
    listed: list[tuple[str, str, str, int]] = field(default_factory=list)
    """(source, reason, item, n) of drops that name what was dropped (measured-speed runs)."""

    def add(self, source: str, reason: str, n: int = 1, item: str | None = None,
            measurements: int | None = None) -> None:
        """Count ``n`` rows dropped for ``reason``; ``item`` names them, to be listed with the
        number of measurements they held (``measurements``, else ``n``)."""
        self.counts[(source, reason)] += n
        if item is not None:
            self.listed.append((source, reason, item, measurements or n))

    def lines(self) -> list[str]:
        """One summary line per (source, reason), largest first."""
        items = sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return [f"  dropped {n:>5}  {src}: {reason}" for (src, reason), n in items]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class ModelObs:
    """What one source says about one model (any field may be unknown)."""

    name: str
    source: str
    organisation: str | None = None
    release_date: str | None = None
    release_date_basis: str | None = None
    """None: the source states the release day; otherwise how the date was found (a proxy such
    as 'first seen in LiteLLM'), shown beside the date, never used where a release is needed."""
    total_params_b: float | None = None
    active_params_b: float | None = None
    is_moe: bool | None = None
    open_weights: bool | None = None
    licence_raw: str | None = None
    hf_id: str | None = None
    display_name: str | None = None
    context_length: int | None = None
    vram_q4_gb: float | None = None
    n_layers: int | None = None
    n_kv_heads: int | None = None
    head_dim: int | None = None
    metadata_source_url: str | None = None
    variant: str | None = None
    usd_per_mtok_input: float | None = None
    usd_per_mtok_output: float | None = None
    price_source_url: str | None = None
    price_date: str | None = None


@dataclass
class ScoreObs:
    """One score as a source published it, already converted to the benchmark's unit."""

    model_name: str
    benchmark_id: str
    score: float
    source_kind: str
    source_name: str
    source_url: str
    date: str | None = None
    origin: str = ""
    variant: str | None = None
    method: str | None = None
    """How the source says it ran the score ('5-shot', '0-shot CoT'), verbatim."""
    votes: int | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    """Arena boards: the votes and the 95 % interval the rating was published with."""


_PERCENT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*%\s*$")


def parse_number(value: object) -> float | None:
    """A float from '42%', '42.0', 42 or None; NaN and blanks give None (percent sign dropped)."""
    if value is None:
        return None
    if isinstance(value, int | float):
        return None if isinstance(value, float) and math.isnan(value) else float(value)
    text = str(value).strip().replace(",", "")
    if not text or text.lower() in {"nan", "n/a", "-", "oom", "none"}:
        return None
    match = _PERCENT.match(text)
    if match:
        return float(match.group(1))
    try:
        return float(text.lstrip("$"))
    except ValueError:
        return None


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def day_of(value: object) -> dt.date | None:
    """The date a value starts with ('2025-06-17', '2025-06-17T00:00:00Z'), or None."""
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def iso_day(value: object) -> str | None:
    """``value`` when it is a ``YYYY-MM-DD`` day, else None."""
    return value if isinstance(value, str) and _DAY.match(value) else None


def clean_text(value: object) -> str | None:
    """Stripped string, or None for blanks/NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    return text or None


def format_cell(value: object) -> str:
    """CSV cell text: booleans true/false, None/NaN empty, floats without trailing noise."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "" if math.isnan(value) else _fmt(value)
    return str(value)


def _fmt(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text if text not in {"-0", ""} else "0"


SOURCE_MAX_BYTES = 64 * 2**20
"""The largest source file an importer reads (the biggest stored today is under 10 MB): a file
grown past it is refused before it is read, so an appended blob cannot exhaust memory."""
SOURCE_MAX_DEPTH = 64
"""The deepest JSON nesting an importer parses (the sources nest under 10 levels)."""
RESTORE = "restore the file from its source"


def _read_bytes(path: Path) -> bytes:
    """A source file's bytes within :data:`SOURCE_MAX_BYTES`; IngestError naming it otherwise."""
    try:
        size = path.stat().st_size
        if size > SOURCE_MAX_BYTES:
            what = f"{size} bytes, over the {SOURCE_MAX_BYTES} bytes a source may have"
            raise IngestError(str(path), what, RESTORE)
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(str(path), f"unreadable ({exc.strerror or exc})", RESTORE) from exc


def _gunzip(path: Path, data: bytes) -> bytes:
    """A gzip file's content, inflated no further than :data:`SOURCE_MAX_BYTES`."""
    inflate = zlib.decompressobj(wbits=31)
    try:
        out = inflate.decompress(data, SOURCE_MAX_BYTES + 1)
    except zlib.error as exc:
        raise IngestError(str(path), f"not a gzip file ({exc})", RESTORE) from None
    if len(out) > SOURCE_MAX_BYTES or inflate.unconsumed_tail:
        what = f"inflates past the {SOURCE_MAX_BYTES} bytes a source may have"
        raise IngestError(str(path), what, RESTORE)
    return out


def read_source_json(path: Path) -> object:
    """A source JSON file (``.json`` or ``.json.gz``), parsed within the size and nesting caps
    (``safejson``); IngestError naming the file when it is unreadable, too large, too deep or
    invalid."""
    data = _read_bytes(path)
    if path.name.endswith(".gz"):
        data = _gunzip(path, data)
    try:
        return safejson.loads(data, SOURCE_MAX_BYTES, SOURCE_MAX_DEPTH)
    except safejson.JsonLimitError as exc:
        what = f"not valid JSON ({exc})" if "invalid JSON" in str(exc) else str(exc)
        raise IngestError(str(path), what, RESTORE) from None


def read_source_csv(path: Path, required: Iterable[str], expected: str) -> pd.DataFrame:
    """A source CSV as strings (BOM stripped, blanks kept as ''); IngestError naming the file
    when it is unreadable, too large, empty, cut off mid-row or lacks a ``required`` column
    (``expected`` names the header)."""
    data = _read_bytes(path)
    if not data.strip():
        raise IngestError(str(path), "empty (no header, no rows)", RESTORE)
    try:
        frame = pd.read_csv(
            io.BytesIO(data), dtype=str, encoding="utf-8-sig", keep_default_na=False
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise IngestError(str(path), f"unreadable CSV ({exc})", RESTORE) from exc
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise IngestError(str(path), f"missing column(s) {missing}; expected {expected}", RESTORE)
    short = _cut_last_row(data, len(frame.columns))
    if short:
        what = (
            f"the last row has {short} of {len(frame.columns)} cells and no line end: the file "
            "was cut off"
        )
        raise IngestError(f"{path}:{len(frame) + 1}", what, RESTORE)
    return frame


def _cut_last_row(data: bytes, width: int) -> int:
    """The cell count of a last row that was cut off (fewer cells than the header and no
    final line end), else 0."""
    if data.endswith((b"\n", b"\r")):
        return 0
    text = data.decode("utf-8-sig", "replace")
    last: list[str] = []
    for record in csv.reader(io.StringIO(text, newline="")):  # quoted cells may span lines
        last = record
    return len(last) if 0 < len(last) < width else 0


def write_csv(path: Path, columns: Iterable[str], rows: Iterable[dict]) -> None:
    """Write rows (dicts) with exactly `columns`, '\\n' line endings, cells via format_cell."""
    columns = list(columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([format_cell(row.get(col)) for col in columns])
