"""Security review, round 2: external adapter code runs only inside a
worker, under the timeout, and everything it starts is ended; echoed user text is cut and
escaped; the leaderboard's size filter takes only finite numbers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from analytics.core import paths, problems
from analytics.llm import fit_cli
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import LLM_NEW, LLM_OLD, write_snapshot
from tests.fixtures.cli import run_main
from tests.fixtures.store import StorePaths

PROBE = """\
    class Probe:
        name = "probe"
        task = "face-detection"
        precisions = ("fp32",)

        def load(self, device, precision):
            pass

        def predict(self, image):
            return [{"bbox": [1.0, 2.0, 3.0, 4.0], "score": 0.9, "category_id": 1}]
"""


def _adapter(tmp_path: Path, top: str, name: str = "probe.py") -> Path:
    """An adapter file whose module code starts with ``top``, then a working ``Probe``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(top) + "\n\n" + textwrap.dedent(PROBE))
    return path


def _measure(adapter: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess, float]:
    """``python -m measure run`` on ``adapter:Probe`` (1 run, 1 call); (result, seconds)."""
    started = time.monotonic()
    done = subprocess.run(
        [
            sys.executable, "-m", "measure", "run", "--adapter", f"{adapter}:Probe",
            "--runs", "1", "--warmup", "0", "--calls", "1", "--out", str(out), "--no-progress",
            *extra,
        ],
        cwd=paths.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, time.monotonic() - started


def _one_line(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


# --- item 4: external adapter code inside the worker, the timeout and the kill --------------


@pytest.mark.slow
def test_a_module_level_sleep_is_bounded_by_the_timeout(tmp_path):
    adapter = _adapter(tmp_path, "import time\ntime.sleep(60)")
    done, took = _measure(adapter, tmp_path / "runs", "--timeout", "3")
    assert took < 15, f"the import ran outside the timeout ({took:.0f} s)"
    line = _one_line(done)
    assert done.returncode != 0
    assert str(adapter) in line and "--timeout 3 s" in line and "fix:" in line and "load()" in line


@pytest.mark.slow
def test_os_exit_at_import_is_a_failure_not_a_silent_exit_0(tmp_path):
    adapter = _adapter(tmp_path, "import os\nos._exit(0)")
    done, _ = _measure(adapter, tmp_path / "runs", "--timeout", "20")
    assert done.returncode != 0
    line = _one_line(done)
    assert str(adapter) in line and "exit code 0" in line and "fix:" in line
    # refused before any run, like a missing class: no record or table, only the job's state
    assert {p.name for p in (tmp_path / "runs").iterdir()} == {"jobs"}


@pytest.mark.slow
def test_a_syntax_error_is_one_line_naming_the_file(tmp_path):
    adapter = _adapter(tmp_path, "def broken(:\n    pass")
    done, _ = _measure(adapter, tmp_path / "runs", "--timeout", "20")
    assert done.returncode == 2
    line = _one_line(done)
    assert str(adapter) in line and "SyntaxError at probe.py:1" in line and "fix:" in line
    assert "Traceback" not in done.stderr


SETSID_CHILD = """\
    import os, subprocess
    _child = subprocess.Popen(["sleep", "300"], start_new_session=True, env={**os.environ})
    with open(os.environ["ATLAS_TEST_PID_FILE"], "a") as _handle:
        _handle.write(f"{_child.pid}\\n")
"""


@pytest.mark.slow
def test_a_child_detached_with_setsid_does_not_outlive_the_run(tmp_path, monkeypatch):
    pid_file = tmp_path / "children.pid"
    monkeypatch.setenv("ATLAS_TEST_PID_FILE", str(pid_file))
    adapter = _adapter(tmp_path, SETSID_CHILD)
    done, _ = _measure(adapter, tmp_path / "runs", "--timeout", "30")
    assert done.returncode == 0, done.stderr  # the run itself succeeds
    pids = [int(x) for x in pid_file.read_text().split()]
    assert pids  # one per import: the describe worker's and the measuring worker's
    for pid in pids:
        assert _gone(pid), f"setsid child {pid} outlived the run"
    (record,) = (tmp_path / "runs" / "records").glob("*.json")
    assert json.loads(record.read_text())["status"] == "ok"


# --- item 9: the leaderboard's size filter ---------------------------------------------------


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """The LLM fixture snapshots (tests/test_pages_llm.py's pattern); the app serves NEW."""
    from analytics.core import db

    write_snapshot(store_paths.snapshots, LLM_OLD, old=True)
    write_snapshot(store_paths.snapshots, LLM_NEW)
    store_paths.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: LLM_NEW)
    fresh_caches()
    return store_paths.root


@pytest.mark.parametrize("size", ["inf-inf", "nan-5", "-inf-1e999", "1e9-2e9", "50-1"])
def test_leaderboard_size_parameter_takes_only_finite_numbers(store, size):
    at = run_page("llm/leaderboard.py", size=size)
    assert not at.exception, at.exception
    low, high = at.slider(key="lb_size").value
    assert low <= high and all(abs(v) < 1e6 for v in (low, high))


# --- item 9: echoed user text is cut and escaped --------------------------------------------


def test_an_unknown_model_of_100k_characters_is_echoed_short(tiny_store, capsys):
    name = "x" * 100_000
    rc, out, err = run_main(capsys, fit_cli.main, "fit", "--model", name, "--gpu", "h100")
    assert rc == 2 and not out
    (line,) = err.strip().splitlines()
    assert len(line) < 300 and "unknown model 'xxx" in line and "…" in line and "fix:" in line


def test_a_problem_line_escapes_bidi_control_and_zero_width_characters():
    hidden = "\u202e\u2066\u200b\x1b\n\u2028"
    text = problems.line(f"upload{hidden}.zip", f"method {hidden}", f"rename {hidden}")
    assert text.isprintable() and "\n" not in text
    assert not set(hidden) & set(text)
    assert "\\u202e" in text and "\\x1b" in text and "\\n" in text
    assert problems.line("a.csv", "ok", "none") == "a.csv: ok; fix: none"  # plain text as is
    assert os.linesep not in problems.at("a.csv", 3, "bad\r\nrow", "fix it")
