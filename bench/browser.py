"""Browser time from navigation start to each main page's main table or chart being drawn; prints
a table of milliseconds with the load average, asserts nothing.

Starts a fresh app server and one headless Debian chromium (``scripts/screenshots.py``'s
``serving``: ``python -m ui.server`` on a free loopback port, the committed data), then opens each
page of :data:`PAGES` ``--repeat`` times (3), each time in a new tab, and reads the times from the
browser's own clock (``performance.now()``: 0 at the navigation start). A script added to every new
document before the page's own records, on each DOM change and each animation frame:

- ``first element``: the first element of the main block with a height (the title, typically);
- ``element code loaded``: the main element's front-end code file had arrived (Streamlit loads
  ``DataFrame.*.js`` and the 4.6 MB ``PlotlyChart.*.js`` on a page's first table or chart);
- ``long tasks before main``: main-thread tasks over 50 ms (script evaluation, data decoding,
  layout, drawing) that ended before the main element's frame, added up;
- ``main``: the page's main element drawn, i.e. the frame after it exists with its drawing
  surface (a dataframe's canvas, a plotly chart's ``.main-svg``) at a non-zero size;
- ``script done``: the page's script run finished (state ``running`` seen, then ``notRunning``).

The first visit of a page is the one that fills its server caches (``first visit``); the median
is over all ``--repeat`` visits, each milestone over the visits that reached it. Beside each page,
the 1-minute load average after its visits (``os.getloadavg``; a shared machine's figures are
upper bounds).

Run: ``.venv/bin/python bench/browser.py [--repeat 3] [--only PAGE ...] [--timeout-s 120]
[--block URL ...]`` (needs ``apt-get install chromium``). ``--block '*PlotlyChart*'`` refuses
plotly's code in every tab: a table page's times then show what its charts' code costs it.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.util
import json
import os
import signal
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

REPO_ROOT = Path(__file__).resolve().parent.parent
POLL_S = 0.1
MILESTONES = ("first_element_ms", "chunk_ms", "busy_ms", "main_ms", "script_done_ms")
CHUNK_JS = """Math.max(0, ...performance.getEntriesByType("resource")
  .filter((e) => new RegExp("/%s[.][^/]*[.]js$").test(e.name)).map((e) => e.responseEnd))"""
"""When the main element's code file had arrived (``%s``: its name; 0 if it never loaded)."""


class Page(NamedTuple):
    """A page to time: its label, URL path (``ui/navigation.py``; '' is home), what its main
    element is, and a CSS selector whose first match holds it (a chart's or container's key is
    its class ``st-key-<key>``; a dataframe's key is not, so a table is found by its place)."""

    label: str
    path: str
    what: str
    main: str
    chunk: str  # the front-end code file that draws it: PlotlyChart or DataFrame (lazy-loaded)


FIRST_TABLE = '[data-testid="stMainBlockContainer"] [data-testid="stDataFrame"]'
CHART, TABLE = "PlotlyChart", "DataFrame"
PAGES = (
    Page("home", "", "provenance chart", ".st-key-home_provenance", CHART),
    Page(
        "LLM leaderboard", "llm_leaderboard", "ranked table", ".st-key-lb_ranked-wide-table", TABLE
    ),
    Page("model detail", "llm_model", "scores table (top model)", FIRST_TABLE, TABLE),
    Page("compare", "llm_compare", "radar (default 2 models)", ".st-key-cmp_radar", CHART),
    Page("charts", "llm_charts", "Elo over time chart", ".st-key-ch_release", CHART),
    Page("hardware fit", "hardware_fit", "fit table", FIRST_TABLE, TABLE),
    Page("fine-tune planner", "finetune_planner", "memory parts chart", ".st-key-ft_parts", CHART),
    Page("vision leaderboard", "vision_leaderboard", "ranking table", FIRST_TABLE, TABLE),
    Page("FL ranked", "fl_ranked", "overall ranking table", FIRST_TABLE, TABLE),
)

TIMING_JS = """(() => {
  const MAIN = %s;
  const t = {long: []};  // long: [start, duration] of every main-thread task over 50 ms
  window.__atlasTimes = t;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) t.long.push([e.startTime, e.duration]);
  }).observe({type: "longtask", buffered: true});
  const drawn = (box) => {
    if (!box) return false;
    const surface = box.querySelector('[data-testid="stDataFrame"] canvas, .main-svg');
    if (!surface) return false;
    const r = surface.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const check = () => {
    const now = performance.now();
    const app = document.querySelector('[data-testid="stApp"]');
    if (app) {
      if (!t.running_ms && app.dataset.testScriptState === "running") t.running_ms = now;
      if (t.running_ms && !t.script_done_ms && app.dataset.testScriptState === "notRunning")
        t.script_done_ms = now;
    }
    if (!t.first_element_ms) {
      const shown = document.querySelectorAll(
        '[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]');
      if ([...shown].some((e) => e.getBoundingClientRect().height > 0)) t.first_element_ms = now;
    }
    if (!t.seen && drawn(document.querySelector(MAIN))) {
      t.seen = now;
      requestAnimationFrame(() => { t.main_ms = performance.now(); });  // the frame it paints in
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
  const tick = () => {
    check();
    if (!(t.main_ms && t.script_done_ms)) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()"""
"""Added to every new document of a timed tab (``%s``: the main element's selector, as JSON)."""


def _screenshots():
    """``scripts/screenshots.py``: the server + browser start-up and DevTools client it owns."""
    path = REPO_ROOT / "scripts" / "screenshots.py"
    spec = importlib.util.spec_from_file_location("screenshots", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shots = _screenshots()


def _devtools(port: int, verb: str, method: str = "GET") -> dict:
    """One call of chromium's HTTP DevTools endpoint (``/json/<verb>``)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/json/{verb}", method=method)
    with urllib.request.urlopen(req, timeout=10) as resp:
        body = resp.read().decode()
    return json.loads(body) if body.startswith(("{", "[")) else {}


async def visit(
    devtools_port: int, url: str, page: Page, timeout_s: float, block: tuple[str, ...] = ()
) -> dict[str, float]:
    """Open ``url`` in a new tab (refusing requests for URLs matching a ``block`` pattern), wait
    for its main element and the end of its script run, close the tab; the milestones in ms since
    navigation start (a missing one is absent)."""
    from tornado.websocket import websocket_connect

    tab = _devtools(devtools_port, "new?about:blank", "PUT")
    conn = await websocket_connect(tab["webSocketDebuggerUrl"], max_message_size=64 * 2**20)
    try:
        tools = shots.DevTools(conn)
        await tools.call("Page.enable")  # else the added script does not run
        if block:
            await tools.call("Network.enable")
            await tools.call("Network.setBlockedURLs", urls=list(block))
        await tools.call(
            "Page.addScriptToEvaluateOnNewDocument", source=TIMING_JS % json.dumps(page.main)
        )
        await tools.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout_s
        times: dict = {}
        while time.monotonic() < deadline:
            times = await tools.evaluate("window.__atlasTimes || null") or {}
            if "main_ms" in times and "script_done_ms" in times:
                break
            await asyncio.sleep(POLL_S)
        chunk_ms = await tools.evaluate(CHUNK_JS % page.chunk)
        if chunk_ms:
            times["chunk_ms"] = chunk_ms
        if "main_ms" in times:  # long tasks over before the main element's frame
            ends = [(s, s + d) for s, d in times.get("long", [])]
            times["busy_ms"] = sum(e - s for s, e in ends if e <= times["main_ms"])
        return {k: float(times[k]) for k in MILESTONES if k in times}
    finally:
        conn.close()
        _devtools(devtools_port, f"close/{tab['id']}")


class Timed(NamedTuple):
    """One page's visits (milestones in ms each) and the 1-minute load average after them."""

    page: Page
    visits: list[dict[str, float]]
    load_1min: float


def measure(
    pages: list[Page], repeat: int, timeout_s: float, block: tuple[str, ...] = ()
) -> list[Timed]:
    """Every visit's milestones per page: one fresh server and browser, ``repeat`` new tabs per
    page, pages in order (visit 1 of a page is its first on that server)."""
    results = []
    with tempfile.TemporaryDirectory(prefix="atlas-browser-bench-") as tmp:
        with shots.serving(Path(tmp)) as (port, ws_url):
            devtools_port = int(ws_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
            for page in pages:
                url = shots.page_url(port, page.path or "home")
                visits = [
                    asyncio.run(visit(devtools_port, url, page, timeout_s, block))
                    for _ in range(repeat)
                ]
                results.append(Timed(page, visits, os.getloadavg()[0]))
    return results


def _median_ms(visits: list[dict[str, float]], key: str) -> str:
    values = [v[key] for v in visits if key in v]
    return f"{statistics.median(values):,.0f}" if values else "—"


COLUMNS = (
    ("first_element_ms", "first element"),
    ("chunk_ms", "element code loaded"),
    ("busy_ms", "long tasks before main"),
    ("script_done_ms", "script done"),
)


def table(results: list[Timed], repeat: int) -> list[str]:
    """Markdown rows: per page, the main element drawn at the first visit and the median over
    the visits that drew it, then the median of the other milestones (ms since navigation)."""
    head = f"| page | main element | first visit ms | median of {repeat} ms | " + " | ".join(
        f"{name} ms" for _, name in COLUMNS
    )
    rows = [head + " | load 1 min |", "|" + " --- |" * (5 + len(COLUMNS))]
    for timed in results:
        first = timed.visits[0].get("main_ms")
        missed = sum("main_ms" not in v for v in timed.visits)
        cells = [
            timed.page.label,
            timed.page.what,
            "not drawn" if first is None else f"{first:,.0f}",
            _median_ms(timed.visits, "main_ms") + (f" ({missed} not drawn)" if missed else ""),
            *(_median_ms(timed.visits, key) for key, _ in COLUMNS),
            f"{timed.load_1min:.2f}",
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="visits per page, each a new tab")
    parser.add_argument("--only", nargs="+", metavar="PATH", help="URL paths (home: home)")
    parser.add_argument("--timeout-s", type=float, default=120.0, help="per visit")
    parser.add_argument(
        "--block", nargs="+", default=[], metavar="URL",
        help="refuse these URL patterns (e.g. '*PlotlyChart*'): what a page would cost without",
    )
    args = parser.parse_args(argv)
    pages = [p for p in PAGES if not args.only or (p.path or "home") in args.only]
    if not pages:
        known = ", ".join(p.path or "home" for p in PAGES)
        print(f"error: no page {' '.join(args.only)}; known: {known}", file=sys.stderr)
        return 1
    # a SIGTERM (timeout, kill) unwinds like Ctrl-C: the server and browser are stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load_before = os.getloadavg()
    started = time.perf_counter()
    try:
        results = measure(pages, args.repeat, args.timeout_s, tuple(args.block))
    except shots.ScreenshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        f"{dt.date.today()}, {os.cpu_count()} CPUs, load average before "
        f"{', '.join(f'{x:.2f}' for x in load_before)}, after "
        f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.perf_counter() - started:.0f} s"
        + (f"; blocked: {' '.join(args.block)}" if args.block else "")
    )
    print("\n".join(table(results, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
