"""Background memory sampler (seed 000, section 04).

A daemon thread polls one reader (NVML device memory, or this process's RSS without a GPU)
every ``SAMPLER_PERIOD_MS`` against a fixed schedule, and records each sample's time, value
and the phase it fell in (load, warmup, timed). Every ``checks_every`` samples it also calls an
optional ``check`` (GPU processes and clock-event reasons) so disturbances are seen during the
run, not only before and after.

While it runs, the interpreter's GIL switch interval is lowered to 1 ms (restored on stop):
with the default 5 ms a predict() that holds the GIL in pure Python would delay each wake-up
of the sampler by up to 5 ms, pushing its median interval past the 10 ms the seed allows.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import psutil

from measure.protocol import SAMPLER_PERIOD_MS

MIB = 2**20
GIL_SWITCH_S = 0.001  # so the sampler thread gets the GIL within 1 ms of waking


def rss_reader() -> Callable[[], float]:
    """A reader of this process's resident memory, MiB."""
    process = psutil.Process()
    return lambda: process.memory_info().rss / MIB


class MemorySampler:
    """Polls ``read()`` (MiB) on a background thread until ``stop()``."""

    def __init__(
        self,
        read: Callable[[], float],
        period_ms: float = SAMPLER_PERIOD_MS,
        check: Callable[[], None] | None = None,
        checks_every: int = 20,
    ) -> None:
        self.read, self.period_s, self.check = read, period_ms / 1e3, check
        self.checks_every = checks_every
        self.samples: list[tuple[float, float, str]] = []
        self.phase = "idle"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="memory-sampler", daemon=True)
        self._t0 = 0.0

    def start(self) -> MemorySampler:
        self._switch_s = sys.getswitchinterval()
        sys.setswitchinterval(GIL_SWITCH_S)
        self._t0 = time.perf_counter()
        self._thread.start()
        return self

    def mark(self, phase: str) -> None:
        """Label the samples from now on with ``phase``."""
        self.phase = phase

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        sys.setswitchinterval(self._switch_s)

    def _loop(self) -> None:
        clock, due, count = time.perf_counter, time.perf_counter(), 0
        while not self._stop.is_set():
            now = clock()
            self.samples.append((now - self._t0, self.read(), self.phase))
            count += 1
            if self.check is not None and count % self.checks_every == 0:
                self.check()
            due += self.period_s
            if due < clock():  # fell behind: restart the schedule rather than burst
                due = clock() + self.period_s
            self._stop.wait(max(0.0, due - clock()))

    def export(self) -> dict[str, Any]:
        """Samples as parallel lists (t_s, used_mib, phase)."""
        rows = list(self.samples)
        return {
            "t_s": [round(t, 6) for t, _, _ in rows],
            "used_mib": [round(v, 3) for _, v, _ in rows],
            "phase": [p for _, _, p in rows],
        }
