"""Render time of every page (AppTest), cold and warm; prints a table of seconds, asserts nothing.

Per page of ``ui/navigation.PAGES`` (in the real store; the current snapshot must be built):

- cold: every ``st.cache_data`` / ``st.cache_resource`` entry cleared, a fresh ``AppTest``, one run
  (what the first visitor of a freshly started server waits for, imports excluded);
- warm: a second run of the same ``AppTest`` (a rerun, e.g. after a widget change: caches full).

One untimed run of the home page first loads the Python modules, so the first cold figure is not
mostly imports. ``--profile PAGE`` prints the top functions of that page's cold run (cProfile).

Run: ``.venv/bin/python bench/pages.py [--repeat 1] [--profile pages/llm/leaderboard.py]``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
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

SLOW_COLD_S = 1.5  # the threshold for a cold render worth profiling
VARIANTS = (("pages/llm/leaderboard.py", {"category": "coding"}),)
"""Extra runs with URL query parameters (the category view reads its own cached file)."""


def clear_caches() -> None:
    """Forget every Streamlit cache entry (a cold server)."""
    st.cache_data.clear()
    st.cache_resource.clear()


def timed_run(at: AppTest) -> float:
    """Seconds of one script run of ``at``."""
    start = time.perf_counter()
    at.run()
    return time.perf_counter() - start


def measure(page: str, query: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Cold and warm seconds of one page file, and its first exception ('' if none)."""
    clear_caches()
    at = AppTest.from_file(str(REPO_ROOT / page), default_timeout=300)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    cold = timed_run(at)
    warm = timed_run(at)
    error = at.exception[0].message.splitlines()[0] if at.exception else ""
    return cold, warm, error


def profile(page: str, top: int = 30) -> str:
    """cProfile of one cold run of ``page`` in the script thread AppTest starts: the ``top``
    functions by cumulative time."""
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
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="measure each page this often")
    parser.add_argument("--profile", metavar="PAGE", help="also profile this page file's cold run")
    args = parser.parse_args(argv)
    os.chdir(REPO_ROOT)
    print(f"snapshot {db.current_version()}, load average {os.getloadavg()[0]:.2f}")
    measure(navigation.HOME)  # untimed: imports
    print(f"{'page':50} {'cold s':>8} {'warm s':>8}  note")
    jobs = [(p.file, {}) for p in navigation.existing_pages()] + list(VARIANTS)
    for page, query in jobs:
        runs = [measure(page, query) for _ in range(args.repeat)]
        cold, warm = min(r[0] for r in runs), min(r[1] for r in runs)
        note = runs[-1][2] or ("> 1.5 s cold" if cold > SLOW_COLD_S else "")
        name = page + "".join(f"?{k}={v}" for k, v in query.items())
        print(f"{name:50} {cold:8.2f} {warm:8.2f}  {note}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.profile:
        print(profile(args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
