"""Execute notebooks/hardware_and_finetune.ipynb end to end (nbclient) on the tiny catalog."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from analytics.core import paths
from tests.test_discovery import make_catalog

NOTEBOOK = paths.REPO_ROOT / "notebooks" / "hardware_and_finetune.ipynb"


@pytest.mark.slow
def test_notebook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_catalog(tmp_path)  # the kernel inherits these variables and reads this catalog
    monkeypatch.setenv("MODELATLAS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MODELATLAS_SNAPSHOTS_DIR", str(tmp_path / "snapshots"))
    monkeypatch.setenv("MODELATLAS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("PYTHONPATH", str(paths.REPO_ROOT))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(paths.REPO_ROOT)}},
    )
    client.execute()
    text = "\n".join(
        out.get("text", "") + str(out.get("data", {}).get("text/plain", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
    )
    assert "8 models, 5 GPU profiles, 2 measured throughput rows" in text
    assert "fits (tight) ratio 0.812" in text  # full GRPO 7B on 2x H100
    for anchor in ("22.8", "44.2", "114.0", "8.4", "130.0"):
        assert anchor in text
    assert not any(
        out.get("output_type") == "error" for c in nb.cells for out in c.get("outputs", [])
    )
