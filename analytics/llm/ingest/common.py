"""Shared pieces of the importers: row records, the drop ledger, value parsing, atomic writes."""

from __future__ import annotations

import csv
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


class IngestError(Exception):
    """A bad input file: the message names the file, the row and the fix."""


@dataclass
class Drops:
    """Counts rows an importer skipped, keyed by (source, reason); never drop silently."""

    counts: Counter = field(default_factory=Counter)

    def add(self, source: str, reason: str, n: int = 1) -> None:
        self.counts[(source, reason)] += n

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


def write_csv(path: Path, columns: Iterable[str], rows: Iterable[dict]) -> None:
    """Write rows (dicts) with exactly `columns`, '\\n' line endings, cells via format_cell."""
    columns = list(columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([format_cell(row.get(col)) for col in columns])
        fh.flush()
        os.fsync(fh.fileno())


def replace_dir_atomically(staging: Path, target: Path, names: Iterable[str]) -> None:
    """Move each named file from `staging` into `target` with os.replace (same filesystem)."""
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        os.replace(staging / name, target / name)


def staging_dir(target: Path) -> Path:
    """A fresh temp directory next to `target`, so os.replace stays on one filesystem."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".ingest-", dir=target.parent))
