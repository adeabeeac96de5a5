"""Shared fixtures: location of ../shared/data (skip cleanly when absent), temp store dirs."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from analytics.core import paths

REPO_ROOT = paths.REPO_ROOT

# Tests never reach a model hub: fail fast offline instead of waiting on network time-outs
# (inherited by the harness's subprocesses too).
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path to ../shared/data; skips the test when a user's clone has no ../shared."""
    if not paths.SHARED_DATA_DIR.is_dir():
        pytest.skip(f"{paths.SHARED_DATA_DIR} is absent (only maintainers and CI have ../shared)")
    return paths.SHARED_DATA_DIR


@pytest.fixture()
def catalog_copy(tmp_path: Path) -> Path:
    """A writable copy of the committed catalog, for corruption tests."""
    dst = tmp_path / "catalog"
    shutil.copytree(paths.CATALOG_DIR, dst)
    return dst


def chromium_path() -> str | None:
    """Debian chromium, if installed."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None
