"""``python -m measure run`` and ``python -m measure sweep``."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from analytics.core import paths, run_schema
from measure import protocol, run_jobs
from measure.adapters import registry
from measure.runner import RunRequest, check_request, run_measurement


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m measure run", description="measure one adapter")
    p.add_argument("--adapter", required=True, help="registry name or path/file.py:Class")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    p.add_argument("--inputs", type=Path, help="image folder (default: the task's shared set)")
    p.add_argument("--runs", type=int, default=protocol.RUNS)
    p.add_argument("--warmup", type=int, default=protocol.WARMUP_CALLS)
    p.add_argument("--calls", type=int, default=protocol.TIMED_CALLS)
    p.add_argument("--precision", choices=("fp16", "bf16", "fp32"), help="override (non-standard)")
    p.add_argument("--weights", help="local weights file or folder")
    p.add_argument("--accuracy-gt", type=Path, help="COCO annotation JSON (default: the task's)")
    p.add_argument("--accuracy-images", type=Path, help="images of --accuracy-gt")
    p.add_argument("--out", type=Path, default=None, help="runs folder (default data/runs)")
    p.add_argument(
        "--timeout",
        type=float,
        default=protocol.WORKER_TIMEOUT_S,
        metavar="SECONDS",
        help="limit per worker process (load, calls, predictions); past it the worker is killed "
        f"and the run recorded as failed (default {protocol.WORKER_TIMEOUT_S:g})",
    )
    p.add_argument("--progress-file", type=Path, help="also write progress as JSON lines here")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--job", type=Path, help=argparse.SUPPRESS)  # the folder run_jobs.start made
    return p


class _Progress:
    """tqdm on stderr, plus optional JSON lines for the 'Run a measurement' page."""

    def __init__(self, files: list[Path], show: bool) -> None:
        self.files, self.show, self.bar, self.label = files, show, None, None

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.show:
            from tqdm import tqdm

            if label != self.label:
                if self.bar is not None:
                    self.bar.close()
                self.bar, self.label = tqdm(total=total, desc=label, file=sys.stderr), label
            self.bar.update(done - self.bar.n)
        if done == total or done % 5 == 0:
            line = json.dumps({"label": label, "done": done, "total": total}) + "\n"
            for file in self.files:
                with open(file, "a") as handle:
                    handle.write(line)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_main(argv: list[str]) -> int:
    args = _run_parser().parse_args(argv[1:])
    req = RunRequest(
        adapter=args.adapter,
        device=args.device,
        inputs=args.inputs,
        runs=args.runs,
        warmup=args.warmup,
        calls=args.calls,
        out=args.out,
        precision=args.precision,
        weights=args.weights,
        accuracy_gt=args.accuracy_gt,
        accuracy_images=args.accuracy_images,
        timeout_s=args.timeout,
    )
    counts, job = (args.runs, args.warmup, args.calls), None
    try:  # a bad request is refused before the lock: it writes nothing (no jobs/ folder)
        check_request(req)
    except (ValueError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        adopted = run_jobs.load(args.job) if args.job is not None else None
        if adopted is not None:  # a job the page started: it shows why, and the folder is free
            run_jobs.record_outcome(adopted, run_jobs.FAILED, error=str(exc))
            run_jobs.release(adopted, args.out)
        return 2
    try:
        with run_jobs.claim(args.adapter, args.device, counts, args.out, args.job) as job:
            return _run_job(req, args, job)
    except run_jobs.BusyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except run_jobs.Cancelled:
        if job is not None:
            run_jobs.record_outcome(job, run_jobs.CANCELLED, cancelled_by="SIGTERM")
        print("cancelled: the measurement was cancelled; nothing was recorded", file=sys.stderr)
        return 143


def _run_job(req: RunRequest, args: argparse.Namespace, job: run_jobs.Job) -> int:
    """Measure under the runs folder's lock; the job folder gets the progress and the outcome."""
    files = [
        job.path / run_jobs.PROGRESS_FILE,
        *([args.progress_file] if args.progress_file else []),
    ]
    progress = _Progress(files, not args.no_progress)
    try:
        record = run_measurement(req, progress)
    except (ValueError, FileExistsError) as exc:  # a bad request (other problems: dispatch.run)
        print(f"error: {exc}", file=sys.stderr)
        run_jobs.record_outcome(job, run_jobs.FAILED, error=str(exc))
        return 2
    except Exception as exc:
        run_jobs.record_outcome(
            job, run_jobs.FAILED, error=(str(exc).splitlines() or [type(exc).__name__])[0][:500]
        )
        raise
    finally:
        progress.close()
    outcome = run_jobs.FINISHED if record["status"] == "ok" else run_jobs.FAILED
    run_jobs.record_outcome(job, outcome, run_id=record["run_id"], error=record["error"])
    out = Path(args.out or paths.RUNS_DIR) / "records" / f"{record['run_id']}.json"
    _report(record, out)
    return 0 if record["status"] == "ok" else 1


def _fmt(value: float | None, digits: int) -> str:
    """A figure with ``digits`` decimals, or 'n/a' when there is none (too few samples)."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def _report(record: dict, out: Path) -> None:
    peak_key = run_schema.peak_key(record["memory_kind"])
    if record["status"] != "ok":
        print(f"failed: {record['error']} (recorded in {out})", file=sys.stderr)
        return
    line = (
        f"{record['adapter']['name']} on {record['environment']['device_name']}: "
        f"median {record['median_ms']:.3f} ms, p90 {record['p90_ms']:.3f} ms, "
        f"{peak_key} {_fmt(record[peak_key], 1)}, sampler median "
        f"{_fmt(record['sampler']['interval_median_ms'], 2)} ms"
    )
    if record["discarded"]:
        line += f"; DISCARDED: {record['discard_reason']}"
    if not record["protocol"]["standard"]:
        line += "; non-standard protocol (never ranked)"
    print(line)
    print(f"record: {out}")


SWEEP_SLACK_S = 300.0
"""Time a ``measure run`` process may take beyond its workers' limits (imports, accuracy, store)."""


def _run_one(cmd: list[str], limit_s: float) -> tuple[int, str]:
    """Run one ``measure run`` in its own process group; (exit code, last output line).

    Past ``limit_s`` the whole group is killed (a backstop: the run enforces --timeout itself)."""
    proc = subprocess.Popen(
        cmd,
        cwd=paths.REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return 1, f"timeout after {limit_s:g} s (measure run killed)"
    return proc.returncode, (output.strip().splitlines()[-1:] or [""])[0]


def sweep_main(argv: list[str]) -> int:
    """Measure every registered adapter, each in its own ``measure run`` process."""
    p = argparse.ArgumentParser(prog="python -m measure sweep")
    p.add_argument("--device", default="cpu")
    p.add_argument("--only", nargs="*", help="adapter names (default: the whole registry)")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="one Ray task per job")
    p.add_argument("--results", type=Path, help="job results folder (docs/ray.md)")
    p.add_argument("--cpus-per-task", type=float, default=1, help="CPUs per CPU job on Ray")
    p.add_argument(
        "--timeout",
        type=float,
        default=protocol.WORKER_TIMEOUT_S,
        metavar="SECONDS",
        help=f"limit per worker process of each run (default {protocol.WORKER_TIMEOUT_S:g})",
    )
    args, passthrough = p.parse_known_args(argv[1:])
    names = args.only or list(registry())
    run_args = ["--timeout", str(args.timeout), *passthrough]
    options = _run_parser().parse_args(["--adapter", "-", *run_args])
    if args.ray is not None or args.results is not None:
        from measure import distributed

        return distributed.sweep(args, names, options)
    failures = 0
    limit_s = options.timeout * max(options.runs, 1) + SWEEP_SLACK_S
    for name in names:
        cmd = [sys.executable, "-m", "measure", "run", "--adapter", name, "--device", args.device]
        cmd += ["--no-progress", *run_args] + (["--out", str(args.out)] if args.out else [])
        code, tail = _run_one(cmd, limit_s)
        print(f"{name}: {'ok' if code == 0 else 'FAILED'}: {tail}", flush=True)
        failures += code != 0
    print(f"sweep: {len(names) - failures} ok, {failures} failed")
    return 0 if failures == 0 else 1


def main(argv: list[str]) -> int:
    return sweep_main(argv) if argv[0] == "sweep" else run_main(argv)
