"""Harness figures: per-call overhead, error on a known latency, sampler interval.

Run: ``.venv/bin/python bench/harness.py``. Targets: overhead < 50 us per call, a
2 ms busy-wait adapter reported within 5%, sampler median interval <= 10 ms while predict runs.
Prints figures only; no asserts (timing asserts do not belong in tests).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measure import protocol  # noqa: E402
from measure.sampler import MemorySampler, rss_reader, rss_source  # noqa: E402
from measure.worker import measure_once  # noqa: E402
from tests.fixtures.measure.busy_adapter import BusyWait2ms, Noop  # noqa: E402

IMAGE = [np.zeros((64, 64, 3), np.uint8)]


def overhead_us(calls: int = 20000) -> tuple[float, float]:
    """(median timed duration of an empty predict, wall time per loop iteration), microseconds."""
    adapter = Noop()
    start = time.perf_counter()
    _, timed = protocol.time_calls(lambda i: adapter.predict(IMAGE[0]), 100, calls)
    per_iteration = (time.perf_counter() - start) / (calls + 100) * 1e6
    return float(np.median(timed)) * 1e3, per_iteration


def known_latency(calls: int = 100) -> dict:
    """A full worker run (sampler on) of the 2 ms busy-wait adapter."""
    run = measure_once(BusyWait2ms(), IMAGE, device="cpu", precision="fp32", warmup=10, calls=calls)
    stats = protocol.sampler_stats(
        [
            t
            for t, p in zip(run["memory"]["t_s"], run["memory"]["phase"], strict=True)
            if p == "timed"
        ]
    )
    return {
        "median_ms": float(np.median(run["calls_ms"])),
        "other_cpu_percent": run["disturbance"]["other_cpu_percent"],
        **stats,
    }


def sampler_cost_us(samples: int = 2000) -> float:
    """Cost of one RSS read, microseconds."""
    read = rss_reader()
    start = time.perf_counter()
    for _ in range(samples):
        read()
    return (time.perf_counter() - start) / samples * 1e6


def main() -> None:
    timed_us, loop_us = overhead_us()
    print(f"harness overhead inside the timed window: {timed_us:.2f} us per call (target < 50)")
    print(f"harness loop cost per call (timer, sync hook, bookkeeping): {loop_us:.2f} us")
    result = known_latency()
    error = (result["median_ms"] - 2.0) / 2.0
    print(
        f"2 ms busy-wait adapter: median {result['median_ms']:.4f} ms, error {error:+.2%} "
        f"(target within 5%); other processes used {result['other_cpu_percent']:.1f}% CPU"
    )
    print(
        f"memory sampler while predict runs: median interval {result['interval_median_ms']:.2f} ms,"
        f" max {result['interval_max_ms']:.2f} ms, missed deadlines {result['missed_deadlines']},"
        f" sampler_ok={result['sampler_ok']} (target median <= 10 ms)"
    )
    start = time.perf_counter()
    sampler = MemorySampler(rss_source()).start()
    start_ms = (time.perf_counter() - start) * 1e3
    time.sleep(0.2)
    sampler.stop()
    print(
        f"RSS read cost: {sampler_cost_us():.1f} us per sample; sampler process started in "
        f"{start_ms:.0f} ms and took {len(sampler.samples)} samples in 0.2 s"
    )


if __name__ == "__main__":
    main()
