"""Execute notebooks/vision_runs.ipynb end to end (nbclient) on a store built in a temp folder."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from analytics.core import db, paths
from measure.runner import RunRequest, run_measurement

NOTEBOOK = paths.REPO_ROOT / "notebooks" / "vision_runs.ipynb"


@pytest.mark.slow
def test_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    version = db.current_version()  # an empty snapshot of the current catalog: no build needed
    (tmp_path / "snapshots" / version).mkdir(parents=True)
    (tmp_path / "snapshots" / version / "MANIFEST.json").write_text(json.dumps({"v": version}))
    record = run_measurement(
        RunRequest(adapter="tests/fixtures/measure/busy_adapter.py:BusyWait2ms",
                   out=tmp_path / "runs", runs=2, warmup=1, calls=15)
    )  # fmt: skip
    monkeypatch.setenv("MODELATLAS_SNAPSHOTS_DIR", str(tmp_path / "snapshots"))
    monkeypatch.setenv("MODELATLAS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("PYTHONPATH", str(paths.REPO_ROOT))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(paths.REPO_ROOT)}})  # fmt: skip
    client.execute()
    text = "\n".join(
        out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    assert "1 measured runs of 1 adapters" in text
    assert (
        f"30 timed calls, median {record['median_ms']:.3f} ms (stored {record['median_ms']:.3f})"
        in text
    )
    assert "figures recomputed equal: True" in text
    assert not any(
        out.get("output_type") == "error" for c in nb.cells for out in c.get("outputs", [])
    )
