"""Execute notebooks/hardware_and_finetune.ipynb end to end (nbclient) on the tiny catalog."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fixtures.notebooks import Executed


@pytest.mark.slow
def test_notebook_runs(tiny_store: Path, run_notebook: Callable[..., Executed]) -> None:
    done = run_notebook("hardware_and_finetune.ipynb")  # the kernel reads the tiny catalog
    text = done.text
    assert "8 models, 5 GPU profiles, 2 measured throughput rows" in text
    assert "fits (tight) ratio 0.812" in text  # full GRPO 7B on 2x H100
    for anchor in ("22.8", "44.2", "114.0", "8.4", "130.0"):
        assert anchor in text
    assert not done.errors
