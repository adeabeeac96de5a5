"""Background memory sampler (seed 000, section 04).

The polling runs in its own small process (``measure.sampler_proc``), not in a thread of the
measuring process: a thread shares the interpreter lock, so importing torch or building a model
(C code that holds the lock for 100+ ms) stalled it well past the 10 ms the seed allows. The
sampler process reads this process's RSS (psutil) or the device's NVML memory every
``SAMPLER_PERIOD_MS`` on a fixed schedule and, on a GPU, checks every ``checks_every`` samples
for other GPU processes and clock-event reasons, so disturbances are seen during the run.

Phases (load, warmup, timed) are marked here with ``time.monotonic()``, a clock both processes
share, and each sample is labelled by the last mark at or before its time. Marking costs a clock
read and a list append, so it adds nothing measurable to a timed call.
"""

from __future__ import annotations

import bisect
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import psutil

from measure.protocol import SAMPLER_PERIOD_MS

MIB = 2**20
START_TIMEOUT_S = 30.0  # the sampler process imports psutil (and NVML): well under a second
STOP_TIMEOUT_S = 10.0
_ROOT = Path(__file__).resolve().parent.parent  # so the sampler finds ``measure`` from any cwd


def rss_reader() -> Callable[[], float]:
    """A reader of this process's resident memory, MiB."""
    process = psutil.Process()
    return lambda: process.memory_info().rss / MIB


def rss_source(pid: int | None = None) -> dict[str, Any]:
    """Sample the resident memory of process ``pid`` (default: this one)."""
    return {"kind": "rss", "pid": pid or os.getpid()}


def nvml_source(gpu: Any, pid: int | None = None) -> dict[str, Any]:
    """Sample ``gpu``'s device memory (an ``nvml.Gpu``); ``pid`` is ours for the process check."""
    return {
        "kind": "nvml",
        "module": gpu.nvml.__name__,
        "index": gpu.index,
        "pid": pid or os.getpid(),
    }


def label_phases(times_s: Sequence[float], marks: Sequence[tuple[float, str]]) -> list[str]:
    """The phase of each sample: the last mark at or before it ('idle' before the first)."""
    starts = [t for t, _ in marks]
    names = ["idle", *(p for _, p in marks)]
    return [names[bisect.bisect_right(starts, t)] for t in times_s]


class MemorySampler:
    """Polls a memory source from a separate process between ``start()`` and ``stop()``."""

    def __init__(
        self, source: dict[str, Any], period_ms: float = SAMPLER_PERIOD_MS, checks_every: int = 20
    ) -> None:
        self.config = {**source, "period_ms": period_ms, "checks_every": checks_every}
        self.samples: list[tuple[float, float, str]] = []
        self.others: set[int] = set()  # GPU processes other than ours seen at any check
        self.reasons: set[str] = set()  # clock-event reasons seen at any check
        self._marks: list[tuple[float, str]] = []
        self._origin = 0.0
        self._proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        """The sampler process's id (None before ``start()``)."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> MemorySampler:
        """Start the sampler process; returns once it has taken its first sample."""
        config = json.dumps({**self.config, "parent": os.getpid()})
        path = os.pathsep.join(p for p in (str(_ROOT), os.environ.get("PYTHONPATH", "")) if p)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "measure.sampler_proc", config],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )
        ready, _, _ = select.select([self._proc.stdout], [], [], START_TIMEOUT_S)
        line = self._proc.stdout.readline().decode() if ready else ""
        if not line.startswith("ready "):
            stderr = self.close()
            raise RuntimeError(f"memory sampler did not start: {_why(line, stderr)}")
        self._origin = float(line.split()[1])
        return self

    def mark(self, phase: str) -> None:
        """Label the samples from now on with ``phase``."""
        self._marks.append((time.monotonic(), phase))

    def cpu_s(self) -> float:
        """CPU seconds the sampler process has used so far (0 when it is not running)."""
        try:
            times = psutil.Process(self._proc.pid).cpu_times() if self._proc else None
        except psutil.Error:
            return 0.0
        return times.user + times.system if times else 0.0

    def stop(self) -> None:
        """Stop the sampler process and collect its samples; raises if it failed."""
        try:
            out, err = self._proc.communicate(b"stop\n", timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.close()
            raise RuntimeError("memory sampler did not stop within 10 s") from None
        lines = out.decode().strip().splitlines()
        result = json.loads(lines[-1]) if lines else {"error": err.decode().strip()[-300:]}
        if result.get("error") or not result.get("t_s"):
            raise RuntimeError(f"memory sampler failed: {result.get('error') or 'no samples'}")
        marks = [(t - self._origin, p) for t, p in self._marks]
        phases = label_phases(result["t_s"], marks)
        self.samples = list(zip(result["t_s"], result["used_mib"], phases, strict=True))
        self.others, self.reasons = set(result["others"]), set(result["reasons"])

    def close(self) -> str:
        """Kill the sampler process if it still runs (safe any time, and again); its stderr."""
        if self._proc is None or self._proc.returncode is not None:
            return ""
        if self._proc.poll() is None:
            self._proc.kill()
        _, err = self._proc.communicate()
        return err.decode(errors="replace").strip()

    def export(self) -> dict[str, Any]:
        """Samples as parallel lists (t_s, used_mib, phase)."""
        rows = list(self.samples)
        return {
            "t_s": [round(t, 6) for t, _, _ in rows],
            "used_mib": [round(v, 3) for _, v, _ in rows],
            "phase": [p for _, _, p in rows],
        }


def _why(line: str, stderr: str) -> str:
    """The sampler process's own error message, else the last line of its stderr."""
    try:
        return json.loads(line)["error"]
    except (ValueError, KeyError, TypeError):
        return (stderr.splitlines() or [line.strip() or "no output"])[-1]
