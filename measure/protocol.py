"""The timing protocol and its summary statistics (seed 000, section 03).

Every threshold lives here, with its unit, so the record, ``verify`` and the docs agree.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

RUNS = 3  # separate processes per measurement (seed 03)
WARMUP_CALLS = 10  # untimed calls before timing, per run (seed 03)
TIMED_CALLS = 100  # timed calls per run (seed 03)
BATCH_SIZE = 1  # one image per predict() call (seed 03)
MAX_RUN_SPREAD = 0.10  # (max-min)/min of per-run medians above this discards (seed 03)
MAX_OTHER_CPU_PERCENT = 10.0  # other processes' share of all CPU time during a run, %
SAMPLER_PERIOD_MS = 5.0  # memory poll target; the seed asks for <= 10 ms (seed 04)
SAMPLER_DEADLINE_MS = 10.0  # an interval longer than this is a missed deadline (seed 04)
SAMPLER_MAX_MISSED_FRACTION = 0.01  # more missed intervals than this flags the sampler
SAMPLER_MAX_GAP_MS = 50.0  # any single gap longer than this flags the sampler
LISTABLE_PEAK_MIB = 24 * 1024  # 24 GiB, the reference RTX 4090's memory (seed 01)
WORKER_TIMEOUT_S = 3600.0  # default limit on one worker process (load, calls, predictions), s
TIMER = "time.perf_counter around each predict() call"
SYNC_CUDA = "torch.cuda.synchronize before and after each call"
SYNC_CPU = "none (cpu)"
P90 = 90.0  # percentile for the tail figure; numpy's default linear interpolation
THROTTLE_DISTURBING = (
    "sw_power_cap",
    "hw_slowdown",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
)
"""NVML clock-event reasons that mean power or thermal limits slowed the GPU during a run."""


def record_constants(version: int, device: str) -> dict[str, object]:
    """The protocol fields a record of ``version`` made on ``device`` must hold (1 and 2 agree)."""
    del version  # no protocol constant has changed between record versions yet
    sync = SYNC_CUDA if device.startswith("cuda") else SYNC_CPU
    return {"batch_size": BATCH_SIZE, "timer": TIMER, "sync": sync}


def choose_precision(supported: Sequence[str], device: str) -> tuple[str, str]:
    """Protocol precision and the reason: fp16, else bf16, else fp32; fp32 on CPU (seed 03)."""
    if device == "cpu":
        return "fp32", "cpu: the protocol's half precisions are GPU settings; fp32 on CPU"
    for precision in ("fp16", "bf16", "fp32"):
        if precision in supported:
            return precision, f"{precision}: first of fp16, bf16, fp32 the official code supports"
    raise ValueError(f"adapter precisions {list(supported)} include none of fp16, bf16, fp32")


def time_calls(
    call: Callable[[int], object],
    warmup: int,
    calls: int,
    sync: Callable[[], None] | None = None,
    on_call: Callable[[int], None] | None = None,
) -> tuple[list[float], list[float]]:
    """Warm-up and timed durations in ms; ``call(i)`` runs predict on input ``i``.

    Each call is bracketed by ``sync`` (device synchronise) and ``time.perf_counter``.
    """
    sync = sync or _no_sync
    clock = time.perf_counter
    warm_ms, timed_ms = [], []
    for i in range(warmup + calls):
        sync()
        start = clock()
        call(i)
        sync()
        elapsed_ms = (clock() - start) * 1e3
        (warm_ms if i < warmup else timed_ms).append(elapsed_ms)
        if on_call is not None:
            on_call(i)
    return warm_ms, timed_ms


def _no_sync() -> None:
    return None


@dataclass(frozen=True)
class TimingSummary:
    """Median and p90 of the pooled timed calls of all runs, plus per-run medians and spread."""

    median_ms: float
    p90_ms: float
    run_medians_ms: tuple[float, ...]
    run_spread: float


def summarise(runs_calls_ms: Sequence[Sequence[float]]) -> TimingSummary:
    """Pooled median/p90 over every timed call of every run; spread = (max-min)/min of medians."""
    if not runs_calls_ms or any(len(calls) == 0 for calls in runs_calls_ms):
        raise ValueError("every run needs at least one timed call")
    pooled = np.concatenate([np.asarray(c, dtype=float) for c in runs_calls_ms])
    medians = tuple(float(np.median(c)) for c in runs_calls_ms)
    low = min(medians)
    spread = (max(medians) - low) / low if low > 0 else float("inf")
    return TimingSummary(
        median_ms=float(np.median(pooled)),
        p90_ms=float(np.percentile(pooled, P90)),
        run_medians_ms=medians,
        run_spread=float(spread),
    )


def run_disturbance(run: dict) -> str:
    """Why one run counts as disturbed ("" when it does not), from its recorded observations."""
    observed = run.get("disturbance") or {}
    reasons = []
    cpu = observed.get("other_cpu_percent")
    if cpu is not None and cpu > MAX_OTHER_CPU_PERCENT:
        reasons.append(f"other processes used {cpu:.1f}% of CPU (limit {MAX_OTHER_CPU_PERCENT}%)")
    others = observed.get("gpu_other_processes") or []
    if others:
        reasons.append(f"other GPU processes {sorted(others)}")
    throttles = sorted(set(observed.get("throttle_reasons") or []) & set(THROTTLE_DISTURBING))
    if throttles:
        reasons.append(f"GPU clocks limited by {', '.join(throttles)}")
    return "; ".join(reasons)


def discard_reason(summary: TimingSummary, runs: Sequence[dict]) -> str:
    """Why a measurement is discarded ("" when it stands): run spread or a disturbed run."""
    reasons = []
    if summary.run_spread > MAX_RUN_SPREAD:
        medians = ", ".join(f"{m:.3f}" for m in summary.run_medians_ms)
        reasons.append(
            f"per-run medians [{medians}] ms differ by {summary.run_spread:.1%} "
            f"(limit {MAX_RUN_SPREAD:.0%})"
        )
    for index, run in enumerate(runs):
        why = run_disturbance(run)
        if why:
            reasons.append(f"run {index + 1} disturbed: {why}")
    return "; ".join(reasons)


def sampler_stats(times_s: Sequence[float]) -> dict:
    """Achieved sampling intervals (median, max, misses) and whether the sampler kept pace."""
    intervals_ms = np.diff(np.asarray(times_s, dtype=float)) * 1e3
    if intervals_ms.size == 0:
        return {
            "interval_median_ms": None,
            "interval_max_ms": None,
            "missed_deadlines": 0,
            "sampler_ok": False,
        }
    missed = int((intervals_ms > SAMPLER_DEADLINE_MS).sum())
    median = float(np.median(intervals_ms))
    longest = float(intervals_ms.max())
    ok = (
        median <= SAMPLER_DEADLINE_MS
        and missed <= SAMPLER_MAX_MISSED_FRACTION * intervals_ms.size
        and longest <= SAMPLER_MAX_GAP_MS
    )
    return {
        "interval_median_ms": median,
        "interval_max_ms": longest,
        "missed_deadlines": missed,
        "sampler_ok": bool(ok),
    }


RUN_LABEL = re.compile(r"^run (\d+)/(\d+)$")
"""The progress label of one measuring run, as :func:`run_label` writes it (jobs parse it)."""


def run_label(k: int, runs: int) -> str:
    """The progress label of run ``k`` (1-based) of ``runs``."""
    return f"run {k}/{runs}"
