"""Jobs per minute with and without Ray on this machine, for the same jobs.

    .venv/bin/python bench/sweep.py [--cpus 2]

Two batches: FL reference runs (``fl-run`` jobs) and a tiny measurement sweep (test adapters,
1 run x 5 calls). "without Ray" is the default path (``reference.build`` in this process;
``measure sweep`` one subprocess per adapter); "Ray" is ``--ray`` on a local instance with
``--cpus`` CPUs, started once beforehand (its start-up time is printed separately).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analytics import paths  # noqa: E402
from analytics.core import jobs
from analytics.fl import distributed as fl_distributed  # noqa: E402
from analytics.fl import reference  # noqa: E402
from measure import cli as measure_cli  # noqa: E402

FL_BATCH = (["FedAvg", "FedProx"], ["linear"], ["iris", "wine"], ["label_noise", "stragglers"])
BUSY = "tests/fixtures/measure/busy_adapter.py:"
ADAPTERS = [BUSY + "BusyWait2ms", BUSY + "SlowSecondRun", BUSY + "Crashing"]
TINY = ["--runs", "1", "--warmup", "1", "--calls", "5"]


def _rate(n: int, seconds: float) -> str:
    return f"{n} jobs in {seconds:6.2f} s = {60 * n / seconds:7.1f} jobs/min"


def bench_fl(tmp: Path) -> None:
    methods, models, datasets, perts = FL_BATCH
    n = len(fl_distributed.run_jobs(methods, models, datasets, perts, 2026))
    t = time.perf_counter()
    reference.build(methods, models, datasets, perts, 2026)
    print(f"fl-run   without Ray: {_rate(n, time.perf_counter() - t)}")
    batch = fl_distributed.run_jobs(methods, models, datasets, perts, 2026)
    for when in ("cold workers", "warm workers"):  # the first pass starts and imports workers
        t = time.perf_counter()
        jobs.run_batch("fl", fl_distributed.fl_job, batch, tmp / when, use_ray=True)
        print(f"fl-run   with Ray:    {_rate(n, time.perf_counter() - t)} ({when})")


def bench_sweep(tmp: Path) -> None:
    quiet = open(os.devnull, "w")
    old = sys.stdout, sys.stderr
    t = time.perf_counter()
    try:
        sys.stdout = sys.stderr = quiet
        measure_cli.main(["sweep", "--only", *ADAPTERS, "--out", str(tmp / "a"), *TINY])
        local = time.perf_counter() - t
        t = time.perf_counter()
        argv = ["--out", str(tmp / "b"), "--ray", "--results", str(tmp / "r"), *TINY]
        measure_cli.main(["sweep", "--only", *ADAPTERS, *argv])
        on_ray = time.perf_counter() - t
    finally:
        sys.stdout, sys.stderr = old
    print(f"sweep    without Ray: {_rate(len(ADAPTERS), local)}")
    print(f"sweep    with Ray:    {_rate(len(ADAPTERS), on_ray)}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cpus", type=int, default=2)
    args = p.parse_args()
    ray = jobs.import_ray()
    os.environ["PYTHONPATH"] = str(paths.REPO_ROOT)
    with tempfile.TemporaryDirectory(prefix="atlas-bench-sweep-") as tmp:
        paths.RUNS_DIR = Path(tmp) / "runs_home"  # keep the sweep index out of data/
        t = time.perf_counter()
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
        print(f"ray {ray.__version__}: local instance, {args.cpus} CPUs; {os.cpu_count()} cores")
        print(f"ray start-up: {time.perf_counter() - t:.2f} s (not counted below)")
        try:
            bench_fl(Path(tmp))
            bench_sweep(Path(tmp))
        finally:
            ray.shutdown()


if __name__ == "__main__":
    main()
