"""The FL notebook executes top to bottom against the committed data."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from analytics.core import paths


@pytest.mark.slow
def test_fl_notebook_executes(tmp_path, monkeypatch):
    monkeypatch.setenv("MODELATLAS_RUNS_DIR", str(tmp_path / "runs"))  # no published uploads
    monkeypatch.setenv("PYTHONPATH", str(paths.REPO_ROOT))
    path = paths.REPO_ROOT / "notebooks" / "fl_track.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(paths.REPO_ROOT)}},
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    first = nb.cells[1]["outputs"]
    text = "".join(o.get("text", "") for o in first) + str(first[-1].get("data", {}))
    assert "FedAvg" in text and "submissions 28" in text
