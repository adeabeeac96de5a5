"""``python -m measure gpu-check``: the CUDA/NVML path checked once on a real NVIDIA GPU.

The harness's CUDA timing, the NVML memory sampler and the power-limit and throttle checks are
tested on the CPU against a fake NVML module; this command is how they meet real hardware. It is
what ``scripts/gpu_check.sh`` runs on a lent GPU machine (docs/measure.md, "GPU check"):

1. preflight: NVML opens and torch sees CUDA, else one line and exit 2 before anything is run;
2. the GPU's facts (name, driver, CUDA driver, NVML version, power limits, clocks, throttle
   reasons), read through ``measure.nvml`` exactly as a run reads them;
3. the memory sampler alone for ``--sampler-s`` seconds on the idle card, with its achieved
   interval (the seed asks for 10 ms or faster);
4. ``measure run --device cuda`` under the full protocol for every registered adapter that
   declares CUDA in ``devices`` (the protocol picks fp16 where the adapter supports it); an
   adapter whose weights are not on the machine fails in one line, recorded as data, and the
   check goes on (timm's benchmark habit);
5. ``measure verify`` on every record written.

Everything lands in ``--out`` as ``gpu_check.json`` plus the run records.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from analytics.core.atomic import write_text
from analytics.core.problems import Problem
from measure import nvml
from measure.sampler import MemorySampler, nvml_source

SAMPLER_S = 5.0
"""How long the sampler runs alone on the idle card."""

RUN_LIMIT_S = 150.0
"""Wall-clock backstop per adapter (the three protocol runs on a GPU take well under a minute)."""

SAMPLER_TARGET_MS = 10.0  # seed 000, section 04: poll memory every 10 ms or faster


class NoGpu(Problem, RuntimeError):
    """No usable NVIDIA GPU: NVML does not open or torch sees no CUDA device."""

    exit_status = 2


def cuda_adapters() -> list[tuple[str, str]]:
    """(adapter name, precisions) of every registered adapter whose runtime can use CUDA."""
    from measure.adapters import devices_of, registry

    return [
        (name, ",".join(cls.precisions))
        for name, cls in registry().items()
        if "cuda" in devices_of(cls)
    ]


def preflight(device: str = "cuda", module: Any | None = None) -> nvml.Gpu:
    """The NVML handle of ``device``, or ``NoGpu`` naming what is missing."""
    gpu, why = nvml.open_gpu(device, module)
    if gpu is None:
        raise NoGpu(
            "gpu-check",
            f"no NVIDIA GPU: {why}",
            "run it on a machine with an NVIDIA GPU, its driver and nvidia-ml-py",
        )
    if module is None:  # the real path: torch must see the same card
        try:
            import torch
        except ImportError as exc:
            raise NoGpu(
                "gpu-check", f"torch does not import ({exc})", "pip install -r requirements.txt"
            ) from None
        if not torch.cuda.is_available():
            raise NoGpu(
                "gpu-check",
                f"torch {torch.__version__} sees no CUDA device",
                "install a CUDA build of torch that matches the driver",
            )
    return gpu


def gpu_facts(gpu: nvml.Gpu) -> dict[str, Any]:
    """What a run records of the card, plus the clock-event (throttle) reasons active now."""
    return {**gpu.facts(), "throttle_reasons": gpu.throttle_reasons()}


def sampler_alone(gpu: nvml.Gpu, seconds: float = SAMPLER_S) -> dict[str, Any]:
    """Run the memory sampler on the idle card for ``seconds``; its achieved interval."""
    sampler = MemorySampler(nvml_source(gpu)).start()
    try:
        time.sleep(seconds)
        sampler.stop()
    finally:
        sampler.close()
    times_s = [t for t, _, _ in sampler.samples]
    gaps_ms = [(b - a) * 1000.0 for a, b in zip(times_s, times_s[1:], strict=False)]
    median_ms = statistics.median(gaps_ms) if gaps_ms else None
    return {
        "seconds": seconds,
        "samples": len(times_s),
        "interval_median_ms": median_ms,
        "interval_p90_ms": statistics.quantiles(gaps_ms, n=10)[-1] if len(gaps_ms) > 1 else None,
        "interval_max_ms": max(gaps_ms) if gaps_ms else None,
        "meets_target": median_ms is not None and median_ms <= SAMPLER_TARGET_MS,
        "used_mib_idle": statistics.median(v for _, v, _ in sampler.samples),
        "other_processes": sorted(sampler.others),
        "reasons_seen": sorted(sampler.reasons),
    }


def _call(cmd: list[str], limit_s: float) -> tuple[int, str]:
    """Run ``cmd``; (exit code, its last output lines). A run past ``limit_s`` is killed."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return 124, f"killed after {limit_s:g} s"
    tail = (done.stdout + done.stderr).strip().splitlines()[-4:]
    return done.returncode, " | ".join(tail)


def measure_adapters(out: Path, only: list[str] | None, limit_s: float) -> list[dict[str, Any]]:
    """``measure run --device cuda`` then ``measure verify`` for each CUDA adapter, as rows."""
    rows = []
    for name, precisions in cuda_adapters():
        if only and name not in only:
            continue
        before = set((out / "records").glob("*.json"))
        started = time.monotonic()
        code, tail = _call(
            [
                sys.executable,
                "-m",
                "measure",
                "run",
                "--adapter",
                name,
                "--device",
                "cuda",
                "--out",
                str(out),
                "--no-progress",
            ],
            limit_s,
        )
        records = sorted(set((out / "records").glob("*.json")) - before)
        row = {
            "adapter": name,
            "precisions": precisions,
            "exit": code,
            "output": tail,
            "seconds": round(time.monotonic() - started, 1),
            "records": [p.name for p in records],
        }
        if records:
            vcode, vtail = _call(
                [sys.executable, "-m", "measure", "verify", *map(str, records)], limit_s
            )
            row.update(verify_exit=vcode, verify_output=vtail)
        rows.append(row)
        print(f"{name}: exit {code} in {row['seconds']} s; {tail}", flush=True)
    return rows


def check(
    out: Path,
    only: list[str] | None = None,
    sampler_s: float = SAMPLER_S,
    limit_s: float = RUN_LIMIT_S,
) -> dict[str, Any]:
    """The whole check; writes ``out/gpu_check.json`` and returns its content."""
    gpu = preflight()
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"gpu": gpu_facts(gpu)}
    print(json.dumps(report["gpu"]), flush=True)
    report["sampler_alone"] = sampler_alone(gpu, sampler_s)
    print(json.dumps(report["sampler_alone"]), flush=True)
    report["runs"] = measure_adapters(out, only, limit_s)
    report["gpu_after"] = gpu_facts(gpu)
    write_text(out / "gpu_check.json", json.dumps(report, indent=1, default=str) + "\n")
    return report


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="python -m measure gpu-check", description=__doc__.split("\n")[0]
    )
    p.add_argument("--out", type=Path, required=True, help="folder for the report and the records")
    p.add_argument("--only", nargs="*", help="adapter names (default: every CUDA adapter)")
    p.add_argument("--sampler-s", type=float, default=SAMPLER_S, help="seconds of sampler alone")
    p.add_argument("--limit-s", type=float, default=RUN_LIMIT_S, help="backstop per adapter run")
    args = p.parse_args(argv[1:])
    report = check(args.out, args.only, args.sampler_s, args.limit_s)
    ok = all(r["exit"] == 0 and r.get("verify_exit", 1) == 0 for r in report["runs"])
    measured = sum(r["exit"] == 0 for r in report["runs"])
    print(f"gpu-check: {len(report['runs'])} adapter(s), {measured} measured; report {args.out}")
    return 0 if ok and report["runs"] else 1
