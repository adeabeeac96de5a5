"""Shared fixtures: location of ../shared/data (skip cleanly when absent), temp store dirs, the
tiny catalog as the current one, the hypothesis profile, and a notebook runner.

Catalog builders live in ``tests/fixtures/catalogs.py``; tests never import each other.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from analytics.core import paths
from tests.fixtures import apptest, catalogs, notebooks
from tests.fixtures.store import StorePaths

REPO_ROOT = paths.REPO_ROOT

# Tests never reach a model hub: fail fast offline instead of waiting on network time-outs
# (inherited by the harness's subprocesses too).
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# One hypothesis profile for the whole suite: no per-example deadline (a shared 2-core box and
# first-call imports make timings noisy), a fixed database-free run so results reproduce, and
# function-scoped fixtures allowed (tests reuse tmp_path / monkeypatch across examples on purpose).
# Tests set only max_examples themselves; override with HYPOTHESIS_PROFILE=<name> if ever needed.
settings.register_profile(
    "modelatlas",
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "modelatlas"))


@pytest.fixture(autouse=True, scope="session")
def _one_component_scan() -> None:
    """Every AppTest of a test process shares one scan for installed Streamlit components (a
    server scans once; AppTest scanned per instance, ~0.45 CPU-s each: apptest module)."""
    apptest.scan_components_once()


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> None:
    """In-process torch work uses one thread: on a shared 2-core machine torch's thread pool
    competing for the cores made torch-heavy tests several times slower. Not an environment
    variable, so the measuring harness's worker processes keep their default threading."""
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)


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


@pytest.fixture()
def store_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StorePaths:
    """Snapshots and runs in tmp_path, for this process (``analytics.core.paths``) and for
    subprocesses and notebook kernels (``MODELATLAS_*``); the catalog stays the committed one
    until ``store_paths.serve_catalog()``."""
    store = StorePaths(tmp_path, monkeypatch)
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", store.snapshots)
    monkeypatch.setattr(paths, "RUNS_DIR", store.runs)
    monkeypatch.setenv("MODELATLAS_SNAPSHOTS_DIR", str(store.snapshots))
    monkeypatch.setenv("MODELATLAS_RUNS_DIR", str(store.runs))
    return store


@pytest.fixture()
def tiny_store(store_paths: StorePaths) -> Path:
    """The tiny calculator catalog (``catalogs.make_catalog``) as the current catalog; returns
    the store root (tmp_path)."""
    catalogs.make_catalog(store_paths.root)
    store_paths.serve_catalog()
    return store_paths.root


@pytest.fixture()
def run_notebook(monkeypatch: pytest.MonkeyPatch) -> Callable[..., notebooks.Executed]:
    """``run_notebook(name, timeout=120)``: execute ``notebooks/<name>`` in a kernel that
    inherits this test's environment (and imports the repo); returns what it printed."""
    monkeypatch.setenv("PYTHONPATH", str(paths.REPO_ROOT))
    return notebooks.execute
