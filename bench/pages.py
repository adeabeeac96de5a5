"""Render time of every page (AppTest), cold and warm; prints a table of seconds, asserts nothing.

Per page of ``ui/navigation.PAGES`` (in the real store; the served snapshot must be built, its
derived ratings too, as ``python -m analytics derive`` leaves them):

- cold: a fresh Python process (``--one``), so every ``st.cache_data`` / ``st.cache_resource``
  is empty while the snapshot and the derived files on disk are present: what the first visitor
  of a freshly started server waits for. The server's start-up work (``ui.server.prepare``: the
  app's imports and plotly's first figure, no data) is done before the clock starts, as
  ``python -m ui.server`` does it before any visitor;
- warm: a second run of the same ``AppTest`` in that process (a rerun, e.g. after a widget
  change: caches full).

Targets: cold < 1.5 s, rerun < 0.3 s, and (the leaderboard's, flagged for every page) a cold
render under 0.9 CPU-s and 15 MB read. Bytes read are ``/proc/self/io`` ``rchar`` of the whole
process during the run (store files and anything else read, page cache or not). Two cold
figures are printed: the first visit (``cold CPU s``, ``cold MB``: the modules the page imports
on first use included) and the same cold render with every module already imported (``page CPU
s``, ``page MB``: what the page itself computes and reads from the store), which the CPU and
read targets are checked on; a page over any target is flagged.
The machine's load average is printed before and after and beside each page (figures from a
shared machine are upper bounds; CPU seconds and bytes read depend on it much less).
``--same-process`` measures cold by clearing the caches in one process instead (faster, less
faithful); ``--version`` serves an already-built snapshot when the catalog is being edited;
``--profile PAGE`` prints the top functions of that page's cold run (cProfile).

Run: ``.venv/bin/python bench/pages.py [--repeat 1] [--only PAGE] [--profile PAGE]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from analytics.core import db  # noqa: E402
from ui import navigation  # noqa: E402

COLD_TARGET_S = 1.5  # a cold render: a first visit should feel immediate
WARM_TARGET_S = 0.3  # a rerun: a widget change should feel instant
COLD_CPU_TARGET_S = 0.9  # the leaderboard's cold render in CPU time (what a loaded host adds
COLD_READ_TARGET_MB = 15.0  # to the wall clock is not the page's) and bytes read from files
VARIANTS = (("pages/llm/leaderboard.py", {"category": "coding"}),)
"""Extra runs with URL query parameters (the category view reads its own cached file)."""


def clear_caches() -> None:
    """Forget every Streamlit cache entry (a cold server)."""
    st.cache_data.clear()
    st.cache_resource.clear()


def serve(version: str | None) -> None:
    """Serve ``version`` (an already-built snapshot) instead of the current catalog's."""
    if version:
        db.ensure_snapshot = lambda *args, **kwargs: version


def _read_bytes() -> int:
    """Bytes this process has read through read()/pread() so far (Linux ``/proc/self/io``
    ``rchar``: files, whether or not the page cache held them); 0 where there is no such file."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith("rchar")), 0)


def timed_run(at: AppTest) -> tuple[float, float, float]:
    """Seconds, CPU seconds (the whole process: AppTest runs the script in a thread) and MB
    read of one script run of ``at``."""
    start, cpu, read = time.perf_counter(), time.process_time(), _read_bytes()
    at.run()
    return (time.perf_counter() - start, time.process_time() - cpu,
            (_read_bytes() - read) / 1e6)


def measure(page: str, query: dict[str, str] | None = None) -> tuple:
    """Cold and warm seconds of one page file in this process, its first exception or error box
    ('' if none), and the cold run's CPU seconds and MB read."""
    clear_caches()
    at = AppTest.from_file(str(REPO_ROOT / page), default_timeout=300)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    cold, cold_cpu, cold_mb = timed_run(at)
    warm = timed_run(at)[0]
    shown = [e.message for e in at.exception] + [f"error box: {e.value}" for e in at.error]
    error = shown[0].splitlines()[0][:160] if shown else ""  # a failed page is not a fast one
    # the same cold render again, caches empty but every module already imported: what the page
    # itself costs and reads from the store (the first run's figures include the imports)
    clear_caches()
    again = AppTest.from_file(str(REPO_ROOT / page), default_timeout=300)
    for key, value in (query or {}).items():
        again.query_params[key] = value
    _, data_cpu, data_mb = timed_run(again)
    return cold, warm, error, cold_cpu, cold_mb, data_cpu, data_mb


def measure_fresh(page: str, query: dict[str, str], version: str | None) -> tuple:
    """:func:`measure` in a fresh Python process (``--one``): a cold server."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", page]
    cmd += [f"--query={k}={v}" for k, v in query.items()]
    cmd += [f"--version={version}"] if version else []
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        nan = float("nan")
        return nan, nan, f"process failed: {tail[:120]}", nan, nan, nan, nan
    out = json.loads(lines[-1])
    return (out["cold"], out["warm"], out["error"], out["cold_cpu"], out["cold_mb"],
            out["data_cpu"], out["data_mb"])


def import_app() -> None:
    """The server's start-up work (``ui.server.prepare``: the app's imports, plotly's first
    figure; and Streamlit's one scan for installed components, which AppTest would otherwise
    repeat for every app instance), before the clock starts: what ``python -m ui.server`` does
    before any visitor."""
    from tests.fixtures.apptest import scan_components_once
    from ui import server

    server.prepare()
    scan_components_once()


def one(page: str, query: list[str], version: str | None) -> int:
    """The child of :func:`measure_fresh`: import the app, then time one page; print JSON."""
    serve(version)
    import_app()
    cold, warm, error, cold_cpu, cold_mb, data_cpu, data_mb = measure(
        page, dict(q.split("=", 1) for q in query))
    print(json.dumps({"cold": cold, "warm": warm, "error": error, "cold_cpu": cold_cpu,
                      "cold_mb": cold_mb, "data_cpu": data_cpu, "data_mb": data_mb}))
    return 0


def profile(page: str, top: int = 30, sort: str = "cumulative") -> str:
    """cProfile of one cold run of ``page`` in the script thread AppTest starts: the ``top``
    functions by ``sort`` (pstats key; default cumulative time), after the server's start-up
    work, as for a cold run."""
    import_app()
    clear_caches()
    at = AppTest.from_file(str(REPO_ROOT / page), default_timeout=300)
    prof = cProfile.Profile()

    def start_in_new_thread(*_args) -> None:
        sys.setprofile(None)
        if threading.current_thread().name.startswith("ScriptRunner"):
            prof.enable()

    threading.setprofile(start_in_new_thread)
    try:
        at.run()
    finally:
        threading.setprofile(None)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(sort).print_stats(top)
    return out.getvalue()


def _note(cold: float, warm: float, error: str, cpu: float, read_mb: float) -> str:
    """Which targets a page misses; ``cpu`` and ``read_mb`` are the imports-warm cold run's."""
    if error:
        return error
    over = [f"cold > {COLD_TARGET_S} s"] if cold > COLD_TARGET_S else []
    over += [f"rerun > {WARM_TARGET_S} s"] if warm > WARM_TARGET_S else []
    over += [f"cold CPU > {COLD_CPU_TARGET_S} s"] if cpu > COLD_CPU_TARGET_S else []
    over += [f"read > {COLD_READ_TARGET_MB:g} MB"] if read_mb > COLD_READ_TARGET_MB else []
    return ", ".join(over)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=1, help="measure each page this often (best; worst cold)"
    )
    parser.add_argument("--profile", metavar="PAGE", help="also profile this page file's cold run")
    parser.add_argument("--same-process", action="store_true", help="cold = caches cleared")
    parser.add_argument("--version", help="serve this built snapshot (not the catalog's)")
    parser.add_argument("--only", metavar="PAGE", action="append", default=[],
                        help="measure only this page file (repeatable)")
    parser.add_argument("--one", metavar="PAGE", help=argparse.SUPPRESS)
    parser.add_argument("--query", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.chdir(REPO_ROOT)
    if args.one:
        return one(args.one, args.query, args.version)
    serve(args.version)
    mode = "one process, caches cleared" if args.same_process else "a fresh process per page"
    print(f"snapshot {db.current_version() if not args.version else args.version}; cold: {mode}")
    print(f"load average (1, 5, 15 min) before: {os.getloadavg()}, {os.cpu_count()} CPUs")
    if args.same_process:
        measure(navigation.HOME)  # untimed: imports
    worst = args.repeat > 1  # then also the slowest cold render of the repeats
    extra = f" {'worst':>6}" if worst else ""
    print(f"{'page':50} {'cold s':>8} {'rerun s':>8}{extra} {'cold CPU s':>10} {'cold MB':>8}"
          f" {'page CPU s':>10} {'page MB':>8} {'load 1m':>7}  note")
    jobs = [(p.file, {}) for p in navigation.existing_pages()] + list(VARIANTS)
    jobs = [(page, query) for page, query in jobs if not args.only or page in args.only]
    for page, query in jobs:
        runs = [
            measure(page, query) if args.same_process else measure_fresh(page, query, args.version)
            for _ in range(args.repeat)
        ]
        cold, warm = min(r[0] for r in runs), min(r[1] for r in runs)
        cpu, read_mb = min(r[3] for r in runs), min(r[4] for r in runs)
        page_cpu, page_mb = min(r[5] for r in runs), min(r[6] for r in runs)
        name = page + "".join(f"?{k}={v}" for k, v in query.items())
        slowest = f" {max(r[0] for r in runs):6.2f}" if worst else ""
        note = _note(cold, warm, runs[-1][2], page_cpu, page_mb)
        print(f"{name:50} {cold:8.2f} {warm:8.2f}{slowest} {cpu:10.2f} {read_mb:8.1f}"
              f" {page_cpu:10.2f} {page_mb:8.1f} {os.getloadavg()[0]:7.2f}  {note}", flush=True)
    print(f"load average after: {os.getloadavg()}")
    if args.profile:
        print(profile(args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
