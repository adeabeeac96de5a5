"""notebooks/llm_ratings.ipynb executes top to bottom (nbclient), on the tiny test snapshot and,
when the repository's catalog is present, on the real one."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from analytics.core import paths
from tests.test_pages_llm import NEW, write_snapshot

NOTEBOOK = paths.REPO_ROOT / "notebooks" / "llm_ratings.ipynb"


def execute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """Run the notebook (the kernel inherits the environment); return its text output."""
    monkeypatch.setenv("MODELATLAS_SNAPSHOTS_DIR", str(tmp_path / "snapshots"))
    monkeypatch.setenv("MODELATLAS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("MODELATLAS_BOOTSTRAP", "20")
    monkeypatch.setenv("PYTHONPATH", str(paths.REPO_ROOT))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(paths.REPO_ROOT)}},
    )
    client.execute()
    outputs = [
        out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])
    ]
    assert not any(out.get("output_type") == "error" for out in outputs)
    assert any("application/vnd.plotly.v1+json" in out.get("data", {}) for out in outputs)
    return "\n".join(
        out.get("text", "") + str(out.get("data", {}).get("text/plain", "")) for out in outputs
    )


@pytest.mark.slow
def test_notebook_on_the_test_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_snapshot(tmp_path / "snapshots", NEW)
    monkeypatch.setenv("MODELATLAS_VERSION", NEW)
    text = execute(monkeypatch, tmp_path)
    assert "24 stored scores, 6 models, 6 benchmarks" in text
    assert "5 ranked, 1 unrated" in text


@pytest.mark.slow
def test_notebook_on_the_real_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (paths.CATALOG_DIR / "scores.csv").exists():
        pytest.skip("data/catalog/scores.csv is absent")
    monkeypatch.delenv("MODELATLAS_VERSION", raising=False)
    text = execute(monkeypatch, tmp_path)  # builds the current snapshot in tmp_path
    assert "converged in" in text and " ranked, " in text
