"""notebooks/llm_ratings.ipynb executes top to bottom (nbclient), on the tiny test snapshot and
on the repository's committed catalog."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from analytics.core import paths
from tests.fixtures.catalogs import LLM_NEW, write_snapshot
from tests.fixtures.notebooks import Executed
from tests.fixtures.store import StorePaths


@pytest.fixture()
def execute(
    store_paths: StorePaths,
    run_notebook: Callable[..., Executed],
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[], str]:
    """Run the notebook on the temp store (the kernel inherits the environment); returns a
    function giving its text output."""
    monkeypatch.setenv("MODELATLAS_BOOTSTRAP", "20")

    def run() -> str:
        done = run_notebook("llm_ratings.ipynb", timeout=300)
        assert not done.errors
        assert any("application/vnd.plotly.v1+json" in out.get("data", {}) for out in done.outputs)
        return done.text

    return run


@pytest.mark.slow
def test_notebook_on_the_test_snapshot(
    store_paths: StorePaths, execute: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_snapshot(store_paths.snapshots, LLM_NEW)
    monkeypatch.setenv("MODELATLAS_VERSION", LLM_NEW)
    text = execute()
    assert "26 stored scores, 6 models, 7 benchmarks" in text
    assert "5 ranked, 1 unrated" in text


@pytest.mark.slow
def test_notebook_on_the_real_catalog(
    execute: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    scores_csv = paths.CATALOG_DIR / "scores.csv"  # committed: its absence is a failure
    assert scores_csv.is_file(), f"{scores_csv} is missing; fix: git checkout -- data/catalog"
    monkeypatch.delenv("MODELATLAS_VERSION", raising=False)
    text = execute()  # builds the current snapshot in tmp_path
    assert "converged in" in text and " ranked, " in text
