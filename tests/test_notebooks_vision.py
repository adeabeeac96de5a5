"""Execute notebooks/vision_runs.ipynb end to end (nbclient) on a store built in a temp folder."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from analytics.core import db
from measure.runner import RunRequest, run_measurement
from tests.fixtures.notebooks import Executed
from tests.fixtures.store import StorePaths


@pytest.mark.slow
def test_notebook_runs(store_paths: StorePaths, run_notebook: Callable[..., Executed]) -> None:
    version = db.current_version()  # an empty snapshot of the current catalog: no build needed
    (store_paths.snapshots / version).mkdir(parents=True)
    (store_paths.snapshots / version / "MANIFEST.json").write_text(json.dumps({"v": version}))
    record = run_measurement(
        RunRequest(adapter="tests/fixtures/measure/busy_adapter.py:BusyWait2ms",
                   out=store_paths.runs, runs=2, warmup=1, calls=15)
    )
    done = run_notebook("vision_runs.ipynb")
    text = done.text
    assert "1 measured runs of 1 adapters" in text
    assert (
        f"30 timed calls, median {record['median_ms']:.3f} ms (stored {record['median_ms']:.3f})"
        in text
    )
    assert "figures recomputed equal: True" in text
    assert not done.errors
