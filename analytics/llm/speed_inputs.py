"""The measured generation speeds of every catalog hardware, precomputed once per snapshot version
into ``data/derived/<version>/`` (a ``derived.TableSet``, like ``planner_inputs``), so that
``python -m analytics fit`` reads one small file instead of matching every checkpoint's names
and release siblings against the throughput table in each cold process.

One table, ``measured_speeds``: :func:`analytics.llm.throughput.measured_speeds` (generation
phase) for every (GPU id, GPU count) that the throughput table has a row for, stacked with the
two key columns :data:`GPU` (case-folded, as the matching is) and :data:`COUNT`. A hardware with
no row there has no measured speed. :func:`speeds_on` answers from the stored table when it is
current and intact, else computes, and never writes: the command line stores nothing.
``python -m analytics derive`` writes it (:func:`derive`), and a test fails when the committed
one is missing for the current code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from analytics.core import derived
from analytics.llm import catalog as cat
from analytics.llm import throughput

SOURCES = (
    *cat.SOURCES,
    "analytics/llm/checkpoints.py",
    "analytics/llm/speed_inputs.py",
    "analytics/llm/throughput.py",
)
"""Every module the table's computation runs (a test checks this list against the imports of
this module, transitively)."""
NAME = "measured_speeds"
TABLES = derived.TableSet((NAME,), SOURCES, "measured speeds")
GPU, COUNT = "gpu_key", "gpu_count"
"""The stored table's key columns: the case-folded GPU id and the GPU count."""
TABLES_READ = ("models", "throughput")
"""The catalog tables the computation reads."""


def compute(tables: cat.Catalog) -> pd.DataFrame:
    """Every hardware's measured speeds (module docstring), one row per (GPU, count, checkpoint)."""
    rows = tables.throughput
    if rows.empty or tables.models.empty:
        return _empty()
    keys = pd.DataFrame({
        GPU: rows["gpu_id"].astype(str).str.casefold(),
        COUNT: pd.to_numeric(rows["gpu_count"], errors="coerce"),
    }).dropna().drop_duplicates()
    parts = []
    for gpu, count in sorted(keys.itertuples(index=False, name=None)):
        if float(count) != int(count) or int(count) < 1:
            continue  # a count no command line can ask for
        speeds = throughput.measured_speeds(rows, tables.models, gpu, int(count))
        if not speeds.empty:
            parts.append(speeds.reset_index().assign(**{GPU: gpu, COUNT: int(count)}))
    if not parts:
        return _empty()
    table = pd.concat(parts, ignore_index=True)
    for column in table.columns:  # whole numbers stay whole through Parquet (1 runs, not 1.0)
        values = table[column].dropna()
        if table[column].dtype == object and len(values) and values.map(_whole).all():
            table[column] = table[column].astype("Int64")
    return table[[GPU, COUNT, *[c for c in table.columns if c not in (GPU, COUNT)]]]


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _empty() -> pd.DataFrame:
    columns = [f"{throughput.KIND_PREFIX[k]}_{f}" for k in throughput.THROUGHPUT_KINDS
               for f in throughput.SPEED_FIELDS]
    return pd.DataFrame(columns=[GPU, COUNT, "checkpoint_id", *columns])


def stored(version: str) -> pd.DataFrame | None:
    """The stored table of ``version`` when it is current and intact, else None."""
    return TABLES.stored(version, NAME)


def speeds_on(
    version: str, gpu_id: str, count: int, catalog: Callable[[], cat.Catalog]
) -> pd.DataFrame:
    """``throughput.measured_speeds`` on ``count`` x ``gpu_id`` of ``version`` (indexed by
    checkpoint_id): from the stored table, else computed from ``catalog()`` (nothing stored)."""
    table = stored(version)
    if table is None:
        tables = catalog()
        return throughput.measured_speeds(tables.throughput, tables.models, gpu_id, count)
    rows = table[(table[GPU] == str(gpu_id).casefold()) & (table[COUNT] == int(count))]
    return rows.drop(columns=[GPU, COUNT]).set_index("checkpoint_id")


def derive(version: str) -> list[Path]:
    """The table of ``version`` for the current code (missing or damaged: recomputed), then
    older files removed. Nothing is read when it is current and intact."""
    def write() -> None:
        TABLES.cached(version, NAME, lambda: compute(cat.of_version(version, TABLES_READ)))

    return TABLES.refresh(version, write)
