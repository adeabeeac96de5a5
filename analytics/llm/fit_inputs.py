"""What ``python -m analytics fit`` and ``finetune`` read of one snapshot version, precomputed once
into ``data/derived/<version>/`` as one JSON file (a ``derived.TableSet`` with a ``.json``
suffix), so that a cold command reads it with the standard library and imports neither pandas
nor DuckDB (``docs/performance.md``: those imports alone cost about 1 CPU-s here).

The file holds, all from the snapshot's tables:

- ``models``: per model id, the figures the commands use (:data:`MODEL_FIELDS`: numbers as
  floats, flags as true / false, texts as strings) and its checkpoint, each left out when absent
  (the checkpoint when it is the model itself);
- ``model_names`` / ``gpu_names``: every accepted spelling -> id (``catalog.model_names``,
  ``hardware.gpu_names``);
- ``gpus``: per GPU id, the ``gpus`` columns :func:`analytics.llm.hardware.hardware_of` reads,
  and ``price_offers`` (``hardware.with_offers``);
- ``speeds``: per case-folded GPU id, per GPU count, per checkpoint, the measured generation
  speeds the hardware-fit page shows (:func:`throughput.measured_speeds`, one entry per kind:
  :func:`speed_entries`); a hardware the throughput table does not name has none.

:func:`stored` is the read-only reader (None when missing, stale or damaged); without a stored
file the command line computes what it needs (:func:`compute` without the speeds, then
:func:`hardware_speeds` of the one hardware asked about) and stores nothing: it never writes.
``python -m analytics derive`` writes the file (:func:`derive`), and a test fails when the
committed one is missing for the current code.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from analytics.core import derived
from analytics.core.hashing import by_stamps
from analytics.llm import hardware
from analytics.llm.fit import is_missing as _missing

if TYPE_CHECKING:
    import pandas as pd

    from analytics.llm import catalog as cat

SOURCES = (
    "analytics/core/db.py",
    "analytics/core/hashing.py",
    "analytics/core/licences.py",
    "analytics/core/problems.py",
    "analytics/core/schema.py",
    "analytics/llm/catalog.py",
    "analytics/llm/checkpoints.py",
    "analytics/llm/fit.py",
    "analytics/llm/fit_inputs.py",
    "analytics/llm/hardware.py",
    "analytics/llm/ingest/__init__.py",
    "analytics/llm/ingest/roofline.py",
    "analytics/llm/throughput.py",
)
"""Every module the file's computation runs (a test checks this list against the imports of
this module, transitively). Written out, not built from ``catalog.SOURCES``: importing
``catalog`` imports pandas and DuckDB, which the reader must not."""
NAME = "fit_inputs"
FILES = derived.TableSet((NAME,), SOURCES, "fit inputs", suffix=derived.JSON)
TABLES_READ = ("models", "gpus", "throughput")
"""The catalog tables the computation reads."""
NUMBERS = (
    "total_params_b", "active_params_b", "vram_q4_gb", "n_layers", "n_kv_heads", "head_dim",
    "context_length",
)
FLAGS = ("is_moe", "open_weights")
TEXTS = ("vram_q4_basis", "vram_q4_source_url")
MODEL_FIELDS = (*NUMBERS, *FLAGS, *TEXTS)
"""The ``models`` columns the commands read, by kind (a column the catalog lacks is absent)."""


def compute(tables: cat.Catalog, speeds: bool = True) -> dict[str, Any]:
    """The file's content (module docstring) from a snapshot's tables; ``speeds=False`` leaves
    out the speeds (a reader computing one hardware's: :func:`hardware_speeds`)."""
    from analytics.llm import catalog as cat

    models = tables.models
    out = {
        "models": {row["model_id"]: _model(row) for row in models.to_dict("records")},
        "model_names": cat.model_names(models),
        "gpus": {
            str(row["gpu_id"]): _gpu(row) for row in tables.gpus.to_dict("records")
        },
        "gpu_names": cat.gpu_names(tables.gpus),
    }
    if speeds:
        out["speeds"] = _speeds(tables)
    return out


def _model(row: dict) -> dict[str, Any]:
    out: dict[str, Any] = {c: hardware.number(row[c]) for c in NUMBERS if c in row}
    out.update({c: None if _missing(row[c]) else bool(row[c]) for c in FLAGS if c in row})
    out.update({c: hardware.text(row[c]) for c in TEXTS if c in row})
    checkpoint = row.get("checkpoint_id")
    out["checkpoint_id"] = row["model_id"] if _missing(checkpoint) else str(checkpoint)
    # an absent figure reads as None through ``dict.get``, and a model its own checkpoint
    # through the readers' default: leaving both out halves the file
    return {k: v for k, v in out.items() if v not in (None, "", row["model_id"])}


def _gpu(row: dict) -> dict[str, Any]:
    out = {c: hardware.text(row.get(c)) for c in ("gpu_id", "name", "kind")}
    out["memory_gb"] = float(row["memory_gb"])
    out.update({c: hardware.number(row.get(c)) for c in ("bf16_tflops_dense", "usd_per_hour")})
    out.update({c: hardware.text(row.get(c)) for c in ("price_source_url", "price_date")})
    offers = row.get("price_offers")
    out["price_offers"] = None if _missing(offers) else int(offers)
    return out


def _speeds(tables: cat.Catalog) -> dict[str, dict[str, dict[str, list[dict]]]]:
    """Every (GPU, count) the throughput table names -> :func:`hardware_speeds`."""
    import pandas as pd

    rows = tables.throughput
    if rows.empty or tables.models.empty:
        return {}
    keys = pd.DataFrame({
        "gpu": rows["gpu_id"].astype(str).str.casefold(),
        "count": pd.to_numeric(rows["gpu_count"], errors="coerce"),
    }).dropna().drop_duplicates()
    out: dict[str, dict[str, dict[str, list[dict]]]] = {}
    for gpu, count in sorted(keys.itertuples(index=False, name=None)):
        if float(count) != int(count) or int(count) < 1:
            continue  # a count no command line can ask for
        found = hardware_speeds(tables, gpu, int(count))
        if found:
            out.setdefault(gpu, {})[str(int(count))] = found
    return out


def hardware_speeds(tables: cat.Catalog, gpu: str, count: int) -> dict[str, list[dict]]:
    """Checkpoint -> :func:`speed_entries` on ``count`` x ``gpu`` (only checkpoints measured
    there; ``throughput.measured_speeds``)."""
    from analytics.llm import throughput

    speeds = throughput.measured_speeds(tables.throughput, tables.models, gpu, count)
    found = {str(c): speed_entries(row) for c, row in speeds.iterrows()}
    return {c: entries for c, entries in found.items() if entries}


def speed_entries(row: pd.Series) -> list[dict]:
    """One checkpoint's row of ``throughput.measured_speeds`` as JSON entries, one per kind
    measured (``throughput.THROUGHPUT_KINDS`` order), never estimated."""
    import pandas as pd

    from analytics.llm import throughput

    out = []
    for kind in throughput.THROUGHPUT_KINDS:
        prefix = throughput.KIND_PREFIX[kind]
        if _missing(row.get(f"{prefix}_tokens_per_s")):
            continue
        entry = {"kind": kind}
        for field in throughput.SPEED_FIELDS:
            cell = row.get(f"{prefix}_{field}")
            if isinstance(cell, pd.Timestamp):
                cell = cell.date().isoformat()
            missing = not isinstance(cell, str) and _missing(cell)
            entry[field] = None if missing else (cell.item() if hasattr(cell, "item") else cell)
        out.append(entry)
    return out


def stored(version: str) -> dict[str, Any] | None:
    """The stored file of ``version`` when it is current for this code and intact, else None;
    remembered in this process while the file and the folder's digests keep their stamps (the
    in-process runs over every checkpoint read it once)."""
    path = FILES.path(version, NAME)
    if not path.exists():
        return None
    stamps = [p for p in (path, path.parent / derived.DIGESTS) if p.exists()]
    found = by_stamps(stamps, ("fit_inputs", str(path)), lambda: derived.read_verified(path))
    return found if isinstance(found, dict) else None


def derive(version: str) -> list[Path]:
    """The file of ``version`` for the current code (missing or damaged: recomputed), then older
    files removed. Nothing is read when it is current and intact."""
    from analytics.llm import catalog as cat

    def write() -> None:
        derived.store(FILES.path(version, NAME), compute(cat.of_version(version, TABLES_READ)))

    return FILES.refresh(version, write)
