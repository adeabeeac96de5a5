"""The calculators' command-line inputs, precomputed per snapshot version
(``analytics.llm.fit_inputs``): the committed file is current, ``fit`` answers from it exactly
what the catalog's tables give, and a cold ``fit`` imports neither pandas nor DuckDB."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from analytics.core import db, paths
from analytics.llm import catalog, fit_inputs, hardware, throughput
from analytics.llm.fit import is_missing
from tests._sources import computation_modules


def test_sources_cover_every_module_the_file_is_computed_with() -> None:
    seen = computation_modules("analytics/llm/fit_inputs.py")
    assert seen <= set(fit_inputs.SOURCES), sorted(seen - set(fit_inputs.SOURCES))


def test_committed_file_of_the_current_snapshot_is_current() -> None:
    reason = fit_inputs.FILES.stale_reason(db.current_version())
    assert reason is None, reason


@pytest.fixture(scope="module")
def served() -> tuple[catalog.Catalog, dict]:
    version = db.current_version()
    stored = fit_inputs.stored(version)
    assert stored is not None
    return catalog.of_version(version, fit_inputs.TABLES_READ), stored


def test_stored_speeds_are_the_computed_ones_on_every_kind_of_hardware(served) -> None:
    """On the hardware with the most measured checkpoints, the one with the fewest, and one the
    throughput table does not name, every checkpoint's stored entries are the computed ones,
    compared as JSON text (1 and 1.0 are equal numbers, not equal text)."""
    tables, stored = served
    sizes = sorted((len(cps), gpu, int(count)) for gpu, by_count in stored["speeds"].items()
                   for count, cps in by_count.items())
    assert len(sizes) > 20 and sum(n for n, _, _ in sizes) > 100
    checked = 0
    for n, gpu, count in [*sizes[-6:], sizes[0], (0, "no-such-gpu", 1)]:
        fresh = throughput.measured_speeds(tables.throughput, tables.models, gpu, count)
        read = stored["speeds"].get(gpu, {}).get(str(count), {})
        assert sorted(read) == sorted(map(str, fresh.index)) and len(read) == n, (gpu, count)
        for checkpoint, row in fresh.iterrows():
            got, want = json.dumps(read[checkpoint]), json.dumps(fit_inputs.speed_entries(row))
            assert got != "[]" and got == want
            checked += 1
    assert checked == sum(n for n, _, _ in [*sizes[-6:], sizes[0]])


def test_stored_models_and_gpus_are_the_catalog_rows(served) -> None:
    """Every model's figures, every GPU's hardware (price and offer count included) and every
    spelling the lookups accept are those of the snapshot's tables."""
    tables, stored = served
    assert stored["model_names"] == catalog.model_names(tables.models)
    assert stored["gpu_names"] == catalog.gpu_names(tables.gpus)
    rows = tables.models.set_index("model_id")
    assert sorted(stored["models"]) == sorted(rows.index)
    for model_id, figures in stored["models"].items():
        for column in fit_inputs.NUMBERS:
            assert figures.get(column) == hardware.number(rows.at[model_id, column]), model_id
        for column in fit_inputs.FLAGS:
            value = rows.at[model_id, column]
            assert figures.get(column) == (None if is_missing(value) else bool(value)), model_id
    from analytics.llm import finetune_view

    for gpu_id, row in stored["gpus"].items():
        want = finetune_view.hardware(tables.gpus, gpu_id, 2)
        got = hardware.with_offers(hardware.hardware_of(row, 2), row["price_offers"])
        assert got == want, gpu_id


def test_a_missing_figure_reads_as_absent_never_as_a_number() -> None:
    """NaN, pandas' NA and NaT, None: all absent (``fit.is_missing``), in the stored file too."""
    import pandas as pd

    for value in (None, float("nan"), pd.NA, pd.NaT, pd.Series([1.5, None]).iloc[1]):
        assert is_missing(value), value
    for value in (0, 0.0, False, "", "x", 1.5, pd.Timestamp("2026-01-01")):
        assert not is_missing(value), value


def test_a_cold_fit_imports_neither_pandas_nor_duckdb() -> None:
    """The command reads the stored file with the standard library: the imports of a fresh
    process answering ``fit --model ... --gpu ... --json`` (CPU time is in ``bench/``)."""
    code = (
        "import sys, runpy\n"
        "sys.argv = ['analytics', 'fit', '--model', 'llama-3.1-8b', '--gpu', 'RTX 4090', "
        "'--json']\n"
        "try:\n    runpy.run_module('analytics', run_name='__main__')\n"
        "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "heavy = sorted({'pandas', 'duckdb'} & set(sys.modules))\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=paths.REPO_ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert '"verdict": "fits comfortably"' in done.stdout
    assert done.stdout.strip().endswith("HEAVY []"), done.stdout[-200:]
