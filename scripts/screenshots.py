"""Browser screenshots of the app's main pages (Debian chromium, headless).

    python scripts/screenshots.py [--out docs/screenshots] [--pages home llm_leaderboard ...]
        [--all] [--themes light dark] [--phone] [--strict]

``--all`` takes every page of the page table; ``--themes`` starts one server per theme
(``--theme.base``); ``--phone`` adds a 390 px mobile viewport for the main pages. Files:
``<page>.png`` (light, 1400 px), ``<page>-dark.png``, ``<page>-phone.png``,
``<page>-phone-dark.png``.
Each line printed gives the browser's time from navigation to a finished render.

Starts ``streamlit run app.py`` on a free port and waits for its health endpoint, then opens each
page in one headless chromium and saves a PNG once Streamlit reports the script run finished
(``stApp[data-test-script-state=notRunning]``, connected, no stale elements, every plotly chart
drawn). Chromium's own ``--screenshot --virtual-time-budget`` is not used: virtual time runs
ahead of the websocket that delivers Streamlit's content, so it often captured the loading
skeleton. The browser is driven over the DevTools protocol (tornado's websocket client, which
Streamlit already installs). A page's URL path comes from the page table
(``ui/navigation.py``); the default page (home) is ``/``. Exits 1 with one line on failure;
``--strict`` also fails when a page shows an exception. :func:`deep_link_sidebar` (used by
``tests/test_screenshots.py``) opens one deep link as the first request of a fresh server and
reports the sidebar navigation it shows.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

REPO_ROOT = Path(__file__).resolve().parent.parent
MAIN_PAGES = (
    "home",
    "llm_leaderboard",
    "hardware_fit",
    "finetune_planner",
    "vision_leaderboard",
    "fl_ranked",
)
"""Page URL paths (``ui/navigation.py``), screenshotted when their file exists."""

WIDTH_PX, HEIGHT_PX = 1400, 1800
PHONE_WIDTH_PX, PHONE_HEIGHT_PX = 390, 1600  # a common phone viewport (CSS px)
THEMES = ("light", "dark")
START_TIMEOUT_S = 90.0
STOP_GRACE_S = 0.5
"""How long a stopped server or browser may take to exit before it is killed: both are throwaway
(a temp profile, a store whose writes are atomic), and Streamlit's own shutdown spent about 2 s
of each run waiting on nothing the screenshots need."""
SETTLE_S = 0.8  # Streamlit fades elements in; wait this long after the page reports ready
READY_JS = """(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testConnectionState !== "CONNECTED") return false;
  if (!["notRunning", "compilationError"].includes(app.dataset.testScriptState)) return false;
  if (document.querySelector('[data-testid="stAppSkeleton"]')) return false;
  // a lazily loaded element (a plotly chart's code, say) shows this placeholder until it mounts
  const lazy = '[data-testid="stSkeleton"], [data-testid="stSkeletonElement"]';
  if (document.querySelector(lazy)) return false;
  if (document.querySelector('[data-testid="stElementContainer"][data-stale="true"]')) return false;
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!main || !main.querySelector('[data-testid="stElementContainer"]')) return false;
  for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    if (!chart.querySelector(".main-svg")) return false;
  }
  return document.fonts.status === "loaded";
})()"""
HAS_EXCEPTION_JS = "!!document.querySelector('[data-testid=\"stException\"]')"
NAV_JS = """(() => {
  const nav = document.querySelector('[data-testid="stSidebarNav"]');
  if (!nav) return null;
  const label = (el) => el.innerText.trim().split("\\n").filter(Boolean).pop() || "";
  const dialog = document.querySelector('[role="dialog"]');
  return {
    sections: [...nav.querySelectorAll('[data-testid="stNavSectionHeader"]')].map(label),
    titles: [...nav.querySelectorAll('[data-testid="stSidebarNavLink"]')].map(label),
    dialog: dialog ? dialog.innerText.trim() : null,
  };
})()"""
"""The sidebar navigation as shown: section headers and page link labels (null: no sidebar),
and the text of any dialog over the page (Streamlit's "Page not found", for one)."""


class ScreenshotError(RuntimeError):
    """A step failed; the message is the one line the user sees."""


def chromium() -> str | None:
    """Path of the Debian chromium binary, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def page_url(port: int, page: str) -> str:
    """URL of a page: the default page (home) is served at the root."""
    return f"http://127.0.0.1:{port}/" + ("" if page == "home" else page)


def _spawn(cmd: list[str], log_path: Path, cwd: Path = REPO_ROOT) -> subprocess.Popen:
    with log_path.open("wb") as log:
        return subprocess.Popen(
            cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def start_server(port: int, log_path: Path, theme: str = "light") -> subprocess.Popen:
    cmd = [
        sys.executable, "-m", "ui.server",  # streamlit run app.py, deep links safe
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.fileWatcherType", "none",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "viewer",
        "--theme.base", theme,
    ]
    return _spawn(cmd, log_path)


def start_browser(browser: str, port: int, profile: Path, log_path: Path) -> subprocess.Popen:
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
        f"--window-size={WIDTH_PX},{HEIGHT_PX}", f"--remote-debugging-port={port}",
        "about:blank",
    ]
    return _spawn(cmd, log_path)


def _log_tail(log_path: Path) -> str:
    lines = log_path.read_text(errors="replace").strip().splitlines()
    return lines[-1] if lines else "(no output)"


def wait_for_json(proc: subprocess.Popen, url: str, log_path: Path) -> object:
    """Poll ``url`` until it answers JSON (or text 'ok'); fail if ``proc`` exits first."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ScreenshotError(
                f"{proc.args[0]} exited early ({proc.returncode}): {_log_tail(log_path)}"
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                body = resp.read().decode()
                return json.loads(body) if body.strip() != "ok" else body
        except (OSError, ValueError):
            time.sleep(0.3)
    raise ScreenshotError(f"{url} did not answer within {START_TIMEOUT_S:.0f} s; see {log_path}")


def stop(proc: subprocess.Popen) -> None:
    """Stop a process started by this script, with its process group."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


class DevTools:
    """Minimal Chrome DevTools protocol client: one page target, request/response only."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.last_id = 0

    async def call(self, method: str, **params) -> dict:
        self.last_id += 1
        request_id = self.last_id
        await self.conn.write_message(
            json.dumps({"id": request_id, "method": method, "params": params})
        )
        while True:
            message = await self.conn.read_message()
            if message is None:
                raise ScreenshotError(f"chromium closed the DevTools connection during {method}")
            reply = json.loads(message)
            if reply.get("id") == request_id:
                if "error" in reply:
                    raise ScreenshotError(f"chromium refused {method}: {reply['error']}")
                return reply.get("result", {})

    async def evaluate(self, expression: str) -> object:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def viewport(self, phone: bool) -> None:
        """Emulate the phone viewport (mobile) or the 1400 px desktop one."""
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            width=PHONE_WIDTH_PX if phone else WIDTH_PX,
            height=PHONE_HEIGHT_PX if phone else HEIGHT_PX,
            deviceScaleFactor=1,
            mobile=phone,
        )

    async def wait_ready(self, url: str, timeout_s: float) -> None:
        """Poll until READY_JS holds twice in a row, then let fades settle."""
        deadline = time.monotonic() + timeout_s
        streak = 0
        while streak < 2:
            if time.monotonic() > deadline:
                raise ScreenshotError(
                    f"{url} did not finish rendering within {timeout_s:.0f} s; fix: raise --wait-s"
                )
            streak = streak + 1 if await self.evaluate(READY_JS) is True else 0
            await asyncio.sleep(0.25)
        await asyncio.sleep(SETTLE_S)

    async def sidebar_states(self, url: str, timeout_s: float) -> list[dict | None]:
        """Open ``url``; every distinct sidebar navigation (:data:`NAV_JS`) shown from the first
        paint until the page is ready, the final one last."""
        await self.call("Page.navigate", url=url)
        states: list[dict | None] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = await self.evaluate(NAV_JS)
            if not states or states[-1] != state:
                states.append(state)
            if await self.evaluate(READY_JS) is True and states[-1] is not None:
                break
            await asyncio.sleep(0.05)
        await self.wait_ready(url, timeout_s)
        final = await self.evaluate(NAV_JS)
        return states if states[-1] == final else [*states, final]

    async def capture(self, url: str, out: Path, timeout_s: float) -> tuple[bool, float]:
        """Open ``url``, wait for Streamlit to finish, write a PNG; returns (shows an error,
        seconds from navigation to ready, settle pause excluded)."""
        started = time.monotonic()
        await self.call("Page.navigate", url=url)
        await asyncio.sleep(0.5)  # let the old document unload before polling the new one
        await self.wait_ready(url, timeout_s)
        render_s = time.monotonic() - started - SETTLE_S
        shot = await self.call("Page.captureScreenshot", format="png")
        staged = out.with_name(f".{out.name}.tmp")
        staged.write_bytes(compress_png(base64.b64decode(shot["data"])))
        os.replace(staged, out)
        return bool(await self.evaluate(HAS_EXCEPTION_JS)), render_s


class Shot(NamedTuple):
    """One screenshot to take: page URL, output file and viewport."""

    url: str
    out: Path
    phone: bool = False


async def _capture_all(
    ws_url: str, jobs: list[Shot], timeout_s: float
) -> list[tuple[Shot, bool, float]]:
    from tornado.websocket import websocket_connect

    conn = await websocket_connect(ws_url, max_message_size=256 * 2**20)
    try:
        tools = DevTools(conn)
        results, phone = [], None
        for job in jobs:
            if job.phone != phone:
                phone = job.phone
                await tools.viewport(phone)
            results.append((job, *await tools.capture(job.url, job.out, timeout_s)))
        return results
    finally:
        conn.close()


@contextlib.contextmanager
def serving(tmp_dir: Path, theme: str = "light") -> Iterator[tuple[int, str]]:
    """A fresh ``streamlit run app.py`` and a headless chromium, both stopped afterwards; yields
    the app's port and the DevTools websocket URL of the browser's page."""
    browser = chromium()
    if browser is None:
        raise ScreenshotError("chromium is not installed; fix: apt-get install -y chromium")
    port, devtools_port = free_port(), free_port()
    server = start_server(port, tmp_dir / "streamlit.log", theme)
    chrome = start_browser(browser, devtools_port, tmp_dir / "profile", tmp_dir / "chrome.log")
    try:
        wait_for_json(server, f"http://127.0.0.1:{port}/_stcore/health", tmp_dir / "streamlit.log")
        targets = wait_for_json(
            chrome, f"http://127.0.0.1:{devtools_port}/json/list", tmp_dir / "chrome.log"
        )
        yield port, next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
    finally:
        stop(chrome)
        stop(server)


PALETTE_COLOURS = 256


def compress_png(data: bytes) -> bytes:
    """``data`` (a PNG) as an optimised 8-bit palette PNG of its :data:`PALETTE_COLOURS` most
    frequent exact colours, every other pixel mapped to the nearest of them without dithering:
    a page's flat colours (text, backgrounds, chart marks) stay exact and the file is about a
    third of the browser's, so the committed screenshots weigh little in git."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        rgb = image.convert("RGB")
    counts = rgb.getcolors(maxcolors=rgb.width * rgb.height) or []
    top = [colour for _, colour in sorted(counts, reverse=True)[:PALETTE_COLOURS]]
    flat = [value for colour in top for value in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + flat[:3] * (PALETTE_COLOURS - len(top)))
    out = io.BytesIO()
    rgb.quantize(palette=palette, dither=Image.Dither.NONE).save(out, format="PNG", optimize=True)
    return out.getvalue()


def declared_set(pages: list[str]) -> list[str]:
    """The committed screenshots (``--all --themes light dark --phone``): every page of
    ``pages`` in both themes, and the :data:`MAIN_PAGES` among them at phone width too."""
    names = [shot_name(p, theme) for theme in THEMES for p in pages]
    names += [shot_name(p, theme, True) for theme in THEMES for p in pages if p in MAIN_PAGES]
    return sorted(names)


def shot_name(page: str, theme: str = "light", phone: bool = False) -> str:
    """File name of one screenshot: ``<page>[-phone][-dark].png``."""
    return page + ("-phone" if phone else "") + ("-dark" if theme == "dark" else "") + ".png"


def take_all(
    pages: list[str],
    out_dir: Path,
    timeout_s: float,
    themes: tuple[str, ...] = ("light",),
    phone_pages: tuple[str, ...] = (),
) -> list[tuple[Shot, bool, float]]:
    """Serve the app once per theme (fresh server each); screenshot every page at 1400 px and
    ``phone_pages`` at phone width too. Returns (shot, shows an error, render seconds) each."""
    out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    for theme in themes:
        with tempfile.TemporaryDirectory(prefix="atlas-shots-") as tmp:
            with serving(Path(tmp), theme) as (port, ws_url):
                jobs = [Shot(page_url(port, p), out_dir / shot_name(p, theme)) for p in pages]
                jobs += [
                    Shot(page_url(port, p), out_dir / shot_name(p, theme, True), phone=True)
                    for p in pages
                    if p in phone_pages
                ]
                results += asyncio.run(_capture_all(ws_url, jobs, timeout_s))
    return results


def deep_link_sidebar(path: str, timeout_s: float = 120.0) -> list[dict | None]:
    """Start a FRESH server, open ``/<path>`` as its very first request and return every
    sidebar navigation shown until the page is ready (:meth:`DevTools.sidebar_states`)."""

    async def visit(ws_url: str, url: str) -> list[dict | None]:
        from tornado.websocket import websocket_connect

        conn = await websocket_connect(ws_url, max_message_size=256 * 2**20)
        try:
            return await DevTools(conn).sidebar_states(url, timeout_s)
        finally:
            conn.close()

    with tempfile.TemporaryDirectory(prefix="atlas-deeplink-") as tmp:
        with serving(Path(tmp)) as (port, ws_url):
            return asyncio.run(visit(ws_url, f"http://127.0.0.1:{port}/{path}"))


def probe(
    path: str, expression: str, phone: bool = False, timeout_s: float = 120.0,
    widths: tuple[bool, ...] | None = None,
) -> object:
    """Start a fresh server, open ``/<path>`` at phone width or 1400 px, wait until it is
    ready and return the value of the JavaScript ``expression`` there (for browser tests).
    With ``widths`` (a phone flag per visit), one server answers a visit per width, each in a
    fresh page load, and the values come back as a list in that order."""

    async def visit(ws_url: str, url: str, at_phone: bool) -> object:
        from tornado.websocket import websocket_connect

        conn = await websocket_connect(ws_url, max_message_size=256 * 2**20)
        try:
            tools = DevTools(conn)
            await tools.viewport(at_phone)
            await tools.call("Page.navigate", url=url)
            await asyncio.sleep(0.5)
            await tools.wait_ready(url, timeout_s)
            return await tools.evaluate(expression)
        finally:
            conn.close()

    async def visits(ws_url: str, url: str) -> list:
        return [await visit(ws_url, url, at_phone) for at_phone in widths or (phone,)]

    with tempfile.TemporaryDirectory(prefix="atlas-probe-") as tmp:
        with serving(Path(tmp)) as (port, ws_url):
            found = asyncio.run(visits(ws_url, f"http://127.0.0.1:{port}/{path}"))
    return found if widths else found[0]


def existing_pages(wanted: list[str] | None) -> list[str]:
    """Requested page URL paths whose file exists under pages/, in the given order (every page
    of the page table when ``wanted`` is None)."""
    sys.path.insert(0, str(REPO_ROOT))
    from ui import navigation

    known = [page.url_path for page in navigation.existing_pages()]
    return known if wanted is None else [p for p in wanted if p in known]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--pages", nargs="+", default=list(MAIN_PAGES), help="page URL paths")
    parser.add_argument("--wait-s", type=float, default=120.0, help="render timeout per page")
    parser.add_argument("--strict", action="store_true", help="fail if a page shows an exception")
    parser.add_argument("--all", action="store_true", help="every page of the page table")
    parser.add_argument("--themes", nargs="+", choices=THEMES, default=["light"])
    parser.add_argument("--phone", action="store_true", help="main pages at phone width too")
    args = parser.parse_args(argv)
    pages = existing_pages(None if args.all else args.pages)
    if not pages:
        print(f"error: none of {', '.join(args.pages)} exists under pages/", file=sys.stderr)
        return 1
    phone_pages = tuple(p for p in MAIN_PAGES if p in pages) if args.phone else ()
    try:
        results = take_all(pages, args.out, args.wait_s, tuple(args.themes), phone_pages)
    except ScreenshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    failing = [shot for shot, error, _ in results if error]
    for shot, _, render_s in results:
        size_kib = shot.out.stat().st_size / 1024
        print(f"{shot.out} ({size_kib:.0f} KiB, rendered in {render_s:.2f} s)")
    for shot in failing:
        print(f"warning: {shot.url} shows an exception; see {shot.out}", file=sys.stderr)
    return 1 if failing and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
