"""One run of the protocol, in its own process: ``python -m measure.worker ...``.

The parent (``measure.runner``) starts one fresh worker per run so that no run inherits
another's caches, allocator state or JIT warm-up. A worker loads the model while the memory
sampler (a process of its own) runs, does the warm-up and timed calls, optionally predicts every
input (outputs for review, detections for accuracy) and writes one JSON file. Before the first
run of an external adapter (``--adapter file.py:Class``) the parent starts one more worker,
``python -m measure.worker describe``, which only imports it and writes its name, task,
precisions and metadata: the parent itself never runs an external adapter's code, so a module
that hangs, exits or fails at import is bounded by the run's timeout and killed like any worker.

Progress goes to the worker's original stdout as lines ``@measure-progress DONE TOTAL``; before
the adapter is imported, file descriptor 1 (and ``sys.stdout``) is pointed at stderr, so whatever
an adapter prints lands in the worker's log and can never corrupt the progress channel. Every
detection an adapter returns is checked (``measure.adapters.base.check_detections``); a malformed
one fails the run with one line naming the image and the detection.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import psutil

from analytics.core import atomic
from measure import nvml
from measure.adapters import resolve, source_file
from measure.adapters.base import check_detections, load_image
from measure.env import image_files, weights_entry
from measure.protocol import time_calls
from measure.sampler import MemorySampler, nvml_source, rss_reader, rss_source


def _cpu_busy_s(helper_cpu_s: float = 0.0) -> tuple[float, float, float]:
    """(wall clock, all CPUs' busy seconds, CPU seconds of this process and its sampler)."""
    t = psutil.cpu_times()
    idle = t.idle + getattr(t, "iowait", 0.0)
    guest = getattr(t, "guest", 0.0) + getattr(t, "guest_nice", 0.0)  # already inside user
    own = psutil.Process().cpu_times()
    return time.perf_counter(), sum(t) - idle - guest, own.user + own.system + helper_cpu_s


def other_cpu_percent(before: tuple, after: tuple) -> float:
    """Share of all CPU capacity used by other processes between two ``_cpu_busy_s`` readings."""
    wall = after[0] - before[0]
    others = (after[1] - before[1]) - (after[2] - before[2])
    capacity = wall * (psutil.cpu_count(logical=True) or 1)
    return max(0.0, others) / capacity * 100 if capacity > 0 else 0.0


class _Watch:
    """GPU processes and clock-event reasons seen at any check during the run."""

    def __init__(self, gpu: nvml.Gpu | None) -> None:
        self.gpu, self.others, self.reasons = gpu, set(), set()

    def __call__(self) -> None:
        if self.gpu is not None:
            self.others.update(self.gpu.other_process_ids())
            self.reasons.update(self.gpu.throttle_reasons())


def measure_once(
    adapter: Any,
    images: list,
    *,
    device: str,
    precision: str,
    warmup: int,
    calls: int,
    gpu: nvml.Gpu | None = None,
    sync: Callable[[], None] | None = None,
    on_call: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Load, warm up and time ``adapter`` on ``images``; the run's part of the record."""
    read = gpu.used_mib if gpu is not None else rss_reader()
    watch = _Watch(gpu)
    watch()
    baseline_mib = read()  # idle baseline before loading (seed 04)
    sampler = MemorySampler(nvml_source(gpu) if gpu is not None else rss_source()).start()
    try:  # the sampler process never outlives this call
        sampler.mark("load")
        started = time.perf_counter()
        adapter.load(device, precision)
        load_s = time.perf_counter() - started
        sampler.mark("warmup")
        cpu_before = _cpu_busy_s(sampler.cpu_s())

        def call(i: int) -> None:
            if i == warmup:
                sampler.mark("timed")
            adapter.predict(images[i % len(images)])

        warm_ms, calls_ms = time_calls(call, warmup, calls, sync, on_call)
        cpu_after = _cpu_busy_s(sampler.cpu_s())
        sampler.stop()
    finally:
        sampler.close()
    watch()
    watch.others.update(sampler.others)
    watch.reasons.update(sampler.reasons)
    disturbance: dict[str, Any] = {
        "gpu_other_processes": sorted(watch.others),
        "throttle_reasons": sorted(watch.reasons),
    }
    if gpu is None:
        disturbance["other_cpu_percent"] = other_cpu_percent(cpu_before, cpu_after)
    return {
        "calls_ms": calls_ms,
        "warmup_ms": warm_ms,
        "input_index": [(warmup + j) % len(images) for j in range(calls)],
        "load_s": load_s,
        "disturbance": disturbance,
        "memory": {"kind": "vram" if gpu is not None else "ram", "baseline_mib": baseline_mib}
        | sampler.export(),
    }


PROGRESS_PREFIX = "@measure-progress"
"""First word of every progress line on the worker's protocol channel."""


def protocol_channel() -> TextIO:
    """The original stdout for protocol lines; fd 1 and ``sys.stdout`` now go to stderr."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def predict_all(adapter: Any, files: list[Path], image_ids: list[int] | None = None) -> list[dict]:
    """Detections for every file, each checked and tagged with its input index (and image id)."""
    out = []
    for index, file in enumerate(files):
        for det in check_detections(adapter.predict(load_image(file)), file.name):
            row = {**det, "bbox": list(det["bbox"]), "input_index": index}
            if image_ids is not None:
                row["image_id"] = image_ids[index]
            out.append(row)
    return out


def _accuracy_detections(adapter: Any, gt_path: Path, images_dir: Path) -> list[dict]:
    from measure.coco import load_ground_truth

    gt = load_ground_truth(gt_path)
    files = [images_dir / img["file_name"] for img in gt["images"]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise ValueError(f"{gt_path}: image {missing[0]} not found; fix: --accuracy-images DIR")
    return predict_all(adapter, files, [img["id"] for img in gt["images"]])


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m measure.worker")
    p.add_argument("--adapter", required=True)
    p.add_argument("--device", required=True)
    p.add_argument("--precision", required=True)
    p.add_argument("--inputs", required=True, type=Path)
    p.add_argument("--warmup", type=int, required=True)
    p.add_argument("--calls", type=int, required=True)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--weights")
    p.add_argument("--predict", action="store_true", help="also predict every input")
    p.add_argument("--accuracy-gt", type=Path)
    p.add_argument("--accuracy-images", type=Path)
    return p


def _sync_for(device: str) -> Callable[[], None] | None:
    if not device.startswith("cuda"):
        return None
    import torch

    return lambda: torch.cuda.synchronize(device)


def run_worker(args: argparse.Namespace, channel: TextIO | None = None) -> dict[str, Any]:
    """Everything one worker process does; returns its JSON payload. Progress lines go to
    ``channel`` (default: stdout)."""
    channel = channel or sys.stdout
    adapter = resolve(args.adapter)(weights=args.weights)
    files = image_files(args.inputs)
    images = [load_image(f) for f in files]
    gpu = None
    if args.device.startswith("cuda"):
        gpu, why = nvml.open_gpu(args.device)
        if gpu is None:
            raise RuntimeError(f"--device {args.device}: {why}; fix: install the NVIDIA driver")
    total = args.warmup + args.calls
    last = [0.0]

    def progress(i: int) -> None:  # at most 4 lines a second: the parent must stay idle
        now = time.perf_counter()
        if now - last[0] >= 0.25 or i + 1 == total:
            last[0] = now
            print(f"{PROGRESS_PREFIX} {i + 1} {total}", file=channel, flush=True)

    run = measure_once(
        adapter,
        images,
        device=args.device,
        precision=args.precision,
        warmup=args.warmup,
        calls=args.calls,
        gpu=gpu,
        sync=_sync_for(args.device),
        on_call=progress,
    )
    run["weights"] = [weights_entry(f) for f in adapter.weight_files()]
    if gpu is not None:
        import torch

        run["gpu_facts"], run["torch_cuda"] = gpu.facts(), torch.version.cuda
    if args.predict:
        run["outputs"] = predict_all(adapter, files)
    if args.accuracy_gt:
        run["accuracy_detections"] = _accuracy_detections(
            adapter, args.accuracy_gt, args.accuracy_images or args.inputs
        )
    return run


def describe(spec: str) -> dict[str, Any]:
    """What the parent needs of an adapter before any run: name, task, precisions, the file
    that defines it and its metadata (``info``), read by importing it here."""
    cls = resolve(spec)
    info = getattr(cls, "info", None)
    facts = {
        "name": cls.name,
        "task": cls.task,
        "precisions": list(cls.precisions),
        "source_file": str(source_file(cls)),
        "info": info.as_dict() if info else None,
    }
    json.dumps(facts, allow_nan=False)  # a metadata value JSON cannot hold fails here
    return facts


def describe_main(argv: list[str]) -> int:
    """``python -m measure.worker describe --adapter SPEC --out FILE``: import an external
    adapter in this process (the parent kills it past its timeout) and write its facts, or
    ``{"error": <one line>}``."""
    p = argparse.ArgumentParser(prog="python -m measure.worker describe")
    p.add_argument("--adapter", required=True)
    p.add_argument("--out", required=True, type=Path)
    args = p.parse_args(argv)
    protocol_channel()  # what the module prints at import goes to the log
    try:
        payload, code = describe(args.adapter), 0
    except ValueError as exc:  # the loader's own one-line refusals and import failures
        payload, code = {"error": str(exc)}, 1
    except Exception as exc:  # e.g. an ``info`` whose as_dict() raises
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
        payload = {"error": f"--adapter {args.adapter}: {what}; fix: {_PROTOCOL_FIX}"}
        code = 1
    atomic.write_json(args.out, payload)
    return code


_PROTOCOL_FIX = "see the adapter protocol in docs/measure.md"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["describe"]:
        return describe_main(argv[1:])
    args = _parser().parse_args(argv)
    channel = protocol_channel()
    try:
        payload = run_worker(args, channel)
        code = 0
    except Exception as exc:  # recorded as a failed run; the parent keeps going
        payload = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        code = 1
    atomic.write_json(args.out, payload)
    return code


if __name__ == "__main__":
    sys.exit(main())
