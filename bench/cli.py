"""CPU time of the command-line calls a user or maintainer waits on, each in a fresh Python
process (cold: nothing imported, no in-process cache); prints a table, asserts nothing.

- ``fit --json``: the hardware-fit answer for one catalog model on one catalog GPU (target:
  under 1.0 CPU-s; it reads the snapshot's ``fit_inputs`` file and imports neither pandas nor
  DuckDB);
- ``finetune --json --samples``: the same for a priced fine-tune (it reads the GPUs with pandas);
- ``derive`` with nothing changed (target: under 3 CPU-s) and ``derive --check``.

CPU is user + system time of the child process and its children (``resource.getrusage``),
best and median of ``--repeat`` runs; each row has the 1-minute load average before and after
it (``os.getloadavg``, as ``uptime`` prints it): a figure taken under load is not a quiet one.

    python bench/cli.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS: dict[str, tuple[list[str], float | None]] = {
    "fit --json": (
        ["fit", "--model", "llama-3.1-8b", "--gpu", "RTX 4090", "--context", "32768", "--json"],
        1.0,
    ),
    "finetune --json --samples": (
        ["finetune", "--model", "qwen2.5-72b", "--gpu", "rtx-4090", "--samples", "5000",
         "--json"],
        None,
    ),
    "derive (nothing changed)": (["derive"], 3.0),
    "derive --check": (["derive", "--check"], None),
}


def child_cpu_s(argv: list[str]) -> float:
    """User + system CPU seconds of ``python -m analytics <argv>`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "analytics", *argv], cwd=REPO,
                          capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} exited {done.returncode}: "
                         f"{done.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (default 5)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    print(f"{'command':<28} {'best CPU s':>10} {'median':>8} {'target':>8}  load before -> after")
    for name, (command, target) in COMMANDS.items():
        load_before = os.getloadavg()[0]
        runs = [child_cpu_s(command) for _ in range(args.repeat)]
        load_after = os.getloadavg()[0]
        goal = f"< {target:g}" if target is not None else ""
        print(f"{name:<28} {min(runs):>10.2f} {statistics.median(runs):>8.2f} {goal:>8}  "
              f"{load_before:.2f} -> {load_after:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
