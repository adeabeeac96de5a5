"""The FL notebook executes top to bottom against the committed data."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fixtures.notebooks import Executed
from tests.fixtures.store import StorePaths


@pytest.mark.slow
def test_fl_notebook_executes(
    store_paths: StorePaths, run_notebook: Callable[..., Executed]
) -> None:
    done = run_notebook("fl_track.ipynb", timeout=300)  # empty runs dir: no published uploads
    assert not done.errors
    first = done.nb.cells[1]["outputs"]
    text = "".join(o.get("text", "") for o in first) + str(first[-1].get("data", {}))
    assert "FedAvg" in text and "submissions 52" in text  # 2 models x (8 x A/B/C + 2)
