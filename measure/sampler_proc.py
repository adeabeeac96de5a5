"""The memory sampler's own process: ``python -m measure.sampler_proc CONFIG_JSON``.

Started by ``measure.sampler.MemorySampler``. It imports only the standard library, psutil and
(for a GPU) the NVML module, so it starts in a few tens of milliseconds and nothing the measured
process does (importing torch, building a model, a predict() holding the GIL) can delay its
polls. Protocol on its pipes:

- stdout ``ready ORIGIN`` once the first sample is taken (ORIGIN: ``time.monotonic()`` of it);
- stdin: any byte, or end of file, means stop;
- stdout, last: one JSON object ``{t_s, used_mib, others, reasons, error}``.

It also stops within one period when its parent goes away (``os.getppid()`` changes), so it can
never outlive the worker that started it.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import sys
import time
from collections.abc import Callable
from typing import Any

MIB = 2**20


class _Probe:
    """Reads one memory figure (MiB) and, on a GPU, watches for other processes and throttling."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.others: set[int] = set()
        self.reasons: set[str] = set()
        self.check: Callable[[], None] | None = None
        if config["kind"] == "rss":
            import psutil

            process = psutil.Process(config["pid"])
            self.read = lambda: process.memory_info().rss / MIB
            return
        from measure.nvml import Gpu

        module = importlib.import_module(config["module"])
        module.nvmlInit()
        gpu, pid = Gpu(module, config["index"]), config["pid"]
        self.read = gpu.used_mib

        def check() -> None:
            self.others.update(gpu.other_process_ids(own_pid=pid))
            self.reasons.update(gpu.throttle_reasons())

        self.check = check


def _stop_requested(fd: int, timeout_s: float) -> bool:
    """Wait up to ``timeout_s`` for a byte (or end of file) on ``fd``."""
    ready, _, _ = select.select([fd], [], [], max(0.0, timeout_s))
    if ready:
        os.read(fd, 64)
    return bool(ready)


def sample(config: dict[str, Any], probe: _Probe) -> dict[str, Any]:
    """Poll on a fixed schedule until told to stop; the samples and what the checks saw."""
    period_s, every, parent = config["period_ms"] / 1e3, config["checks_every"], config["parent"]
    clock, fd = time.monotonic, sys.stdin.fileno()
    times, values, count = [], [], 0
    origin = due = clock()
    while True:
        now = clock()
        times.append(now - origin)
        values.append(probe.read())
        count += 1
        if count == 1:
            print(f"ready {origin!r}", flush=True)
        if probe.check is not None and count % every == 0:
            probe.check()
        if os.getppid() != parent:  # the worker died: stop now
            break
        due += period_s
        if due < clock():  # fell behind: restart the schedule rather than burst
            due = clock() + period_s
        if _stop_requested(fd, due - clock()):
            break
    if probe.check is not None:
        probe.check()
    return {"t_s": times, "used_mib": values}


def main(argv: list[str] | None = None) -> int:
    config = json.loads((argv if argv is not None else sys.argv[1:])[0])
    out: dict[str, Any] = {"t_s": [], "used_mib": [], "others": [], "reasons": [], "error": ""}
    try:
        probe = _Probe(config)
        out |= sample(config, probe)
        out |= {"others": sorted(probe.others), "reasons": sorted(probe.reasons)}
    except Exception as exc:  # reported to the worker, which records the run as failed
        out["error"] = f"{type(exc).__name__}: {exc}"
    try:
        print(json.dumps(out), flush=True)
    except BrokenPipeError:  # the worker is gone; nobody to report to
        return 1
    return 1 if out["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
