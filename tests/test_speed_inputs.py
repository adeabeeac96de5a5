"""Every hardware's measured speeds, precomputed per snapshot version
(``analytics.llm.speed_inputs``): the committed table is current, and ``fit`` answers from it
exactly what it computes without it."""

from __future__ import annotations

import json

import pytest

from analytics.core import db
from analytics.llm import catalog, fit_cli, speed_inputs, throughput
from tests._sources import computation_modules


def test_sources_cover_every_module_the_table_is_computed_with() -> None:
    seen = computation_modules("analytics/llm/speed_inputs.py")
    assert seen <= set(speed_inputs.SOURCES), sorted(seen - set(speed_inputs.SOURCES))


def test_committed_table_of_the_current_snapshot_is_current() -> None:
    reason = speed_inputs.TABLES.stale_reason(db.current_version())
    assert reason is None, reason


def test_stored_speeds_answer_as_computed_ones_on_every_hardware(monkeypatch) -> None:
    """On the hardware with the most measured checkpoints, the one with the fewest, and one the
    throughput table does not name, the speeds read from the stored table give every
    checkpoint the same JSON entries as computed ones."""
    version = db.current_version()
    tables = catalog.of_version(version)
    stored = speed_inputs.stored(version)
    assert stored is not None and len(stored) > 100
    sizes = stored.groupby([speed_inputs.GPU, speed_inputs.COUNT]).size().sort_values()
    assert len(sizes) > 20
    # the hardware with the most checkpoints, the one with the fewest, and one with none
    keys = [*sizes.index[-6:], sizes.index[0], ("no-such-gpu", 1)]
    checked = 0
    for gpu, count in keys:
        fresh = throughput.measured_speeds(tables.throughput, tables.models, gpu, count)
        with monkeypatch.context() as m:
            m.setattr(throughput, "measured_speeds", pytest.fail)  # read, never computed
            read = speed_inputs.speeds_on(version, gpu, count, pytest.fail)
        assert sorted(read.index) == sorted(fresh.index), (gpu, count)
        hw = catalog.Hardware(gpu, gpu, "gpu", 24.0, count, None, None)
        for checkpoint in fresh.index:  # a checkpoint id answers as its model's would
            got = json.dumps(fit_cli.measured_speeds(tables, checkpoint, hw, read))
            want = json.dumps(fit_cli.measured_speeds(tables, checkpoint, hw, fresh))
            assert got != "[]" and got == want  # the text: 1 and 1.0 are equal numbers
            checked += 1
    assert checked == int(sizes.iloc[-6:].sum() + sizes.iloc[0])
