"""Start ``python -m measure run`` in the background and read its progress (for the run page)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from analytics.core import paths


@dataclass(frozen=True)
class Launched:
    """A measurement started in its own process; files hold its progress and its output."""

    pid: int
    adapter: str
    device: str
    progress_file: str
    log_file: str

    def as_dict(self) -> dict:
        return asdict(self)


_PROCESSES: dict[int, subprocess.Popen] = {}


def start(
    adapter: str,
    device: str,
    runs: int,
    warmup: int,
    calls: int,
    out: Path | None = None,
    timeout_s: float | None = None,
) -> Launched:
    """Launch one measurement; returns at once. ``timeout_s`` limits each worker (default: the
    protocol's ``WORKER_TIMEOUT_S``)."""
    folder = Path(tempfile.mkdtemp(prefix="atlas-run-"))
    progress, log = folder / "progress.jsonl", folder / "log.txt"
    cmd = [
        sys.executable,
        "-m",
        "measure",
        "run",
        "--adapter",
        adapter,
        "--device",
        device,
        "--runs",
        str(runs),
        "--warmup",
        str(warmup),
        "--calls",
        str(calls),
        "--progress-file",
        str(progress),
        "--no-progress",
    ]
    if out is not None:
        cmd += ["--out", str(out)]
    if timeout_s is not None:
        cmd += ["--timeout", str(timeout_s)]
    with open(log, "w") as handle:
        proc = subprocess.Popen(cmd, cwd=paths.REPO_ROOT, stdout=handle, stderr=subprocess.STDOUT)
    _PROCESSES[proc.pid] = proc
    return Launched(proc.pid, adapter, device, str(progress), str(log))


def status(job: Launched) -> dict:
    """Latest progress line, whether the process finished, its exit code and output tail."""
    lines = (
        Path(job.progress_file).read_text().splitlines() if Path(job.progress_file).exists() else []
    )
    latest = json.loads(lines[-1]) if lines else {"label": "starting", "done": 0, "total": 1}
    proc = _PROCESSES.get(job.pid)
    code = proc.poll() if proc is not None else None
    log = Path(job.log_file).read_text() if Path(job.log_file).exists() else ""
    return {
        **latest,
        "finished": code is not None,
        "exit_code": code,
        "output": "\n".join(log.strip().splitlines()[-5:]),
    }
