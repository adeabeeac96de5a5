"""Browser screenshots of the app's main pages (Debian chromium, headless).

    python scripts/screenshots.py [--out docs/screenshots] [--pages home llm_leaderboard ...]

Starts ``streamlit run app.py`` on a free port, waits for its health endpoint, loads each page
once to warm the caches (the first load may build the snapshot), then saves one PNG per page and
stops the server. A page's URL path is its file name without ``.py`` (Streamlit infers it from
the ``st.Page`` file); the default page (home) lives at ``/``. Exits 1 with one line on failure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MAIN_PAGES = (
    "home",
    "llm_leaderboard",
    "hardware_fit",
    "finetune_planner",
    "vision_leaderboard",
    "fl_ranked",
)
"""Page file stems under pages/, screenshotted when their file exists."""

WINDOW = "1400,1800"
HEALTH_TIMEOUT_S = 90.0
CHROMIUM_TIMEOUT_S = 180.0
MIN_INK = 0.005
"""Least share of non-white pixels in a rendered page; Streamlit's loading skeleton has ~0.01%."""


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


def start_server(port: int, log_path: Path) -> subprocess.Popen:
    cmd = [
        sys.executable, "-m", "streamlit", "run", "app.py",
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--server.fileWatcherType", "none",
        "--browser.gatherUsageStats", "false",
        "--client.toolbarMode", "viewer",
    ]  # fmt: skip
    log = log_path.open("wb")
    return subprocess.Popen(
        cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def wait_healthy(proc: subprocess.Popen, port: int, log_path: Path) -> None:
    """Block until /_stcore/health answers ok; raise with the server log tail otherwise."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    url = f"http://127.0.0.1:{port}/_stcore/health"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log_path.read_text(errors="replace").strip().splitlines()[-1:]
            raise ScreenshotError(f"streamlit exited early ({proc.returncode}): {' '.join(tail)}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise ScreenshotError(f"{url} did not answer within {HEALTH_TIMEOUT_S:.0f} s; see {log_path}")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


def screenshot(browser: str, url: str, out: Path, budget_ms: int, profile: Path) -> None:
    """One headless chromium screenshot of ``url`` into ``out`` (PNG)."""
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}",
        f"--window-size={WINDOW}", f"--virtual-time-budget={budget_ms}",
        f"--screenshot={out}", url,
    ]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, timeout=CHROMIUM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ScreenshotError(f"chromium timed out on {url}; fix: raise --budget-ms") from exc
    if done.returncode != 0 or not out.is_file():
        last = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise ScreenshotError(f"chromium failed on {url} ({done.returncode}): {' '.join(last)}")


def ink_fraction(png: Path) -> float:
    """Share of pixels that are not pure white (0 for a blank page)."""
    from PIL import Image

    with Image.open(png) as im:
        gray = im.convert("L")
        hist = gray.histogram()
    return 1.0 - hist[255] / max(1, sum(hist))


def rendered_screenshot(browser: str, url: str, out: Path, budget_ms: int, tmp: Path) -> None:
    """Screenshot ``url``, retrying with a doubled time budget while the page looks blank."""
    for attempt in range(3):
        screenshot(browser, url, out, budget_ms * 2**attempt, tmp / "profile")
        if ink_fraction(out) >= MIN_INK:
            return
    raise ScreenshotError(f"{url} still looks blank; see the server log, or raise --budget-ms")


def existing_pages(wanted: list[str]) -> list[str]:
    """Requested page stems whose file exists under pages/, in the given order."""
    return [p for p in wanted if (REPO_ROOT / "pages" / f"{p}.py").is_file()]


def take_all(pages: list[str], out_dir: Path, budget_ms: int) -> list[Path]:
    """Serve the app once and write ``<out_dir>/<page>.png`` for each page."""
    browser = chromium()
    if browser is None:
        raise ScreenshotError("chromium is not installed; fix: apt-get install -y chromium")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="atlas-shots-") as tmp:
        tmp_dir = Path(tmp)
        port = free_port()
        proc = start_server(port, tmp_dir / "streamlit.log")
        try:
            wait_healthy(proc, port, tmp_dir / "streamlit.log")
            written = []
            for page in pages:
                url = page_url(port, page)
                warm = tmp_dir / f"warm-{page}.png"  # first load builds caches/snapshot
                screenshot(browser, url, warm, budget_ms, tmp_dir / "profile")
                partial = tmp_dir / f"{page}.png"
                rendered_screenshot(browser, url, partial, budget_ms, tmp_dir)
                target = out_dir / f"{page}.png"
                staged = out_dir / f".{page}.png.tmp"
                shutil.copyfile(partial, staged)
                os.replace(staged, target)
                written.append(target)
            return written
        finally:
            stop_server(proc)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "screenshots")
    parser.add_argument("--pages", nargs="+", default=list(MAIN_PAGES), help="page file stems")
    parser.add_argument("--budget-ms", type=int, default=15000, help="chromium virtual time")
    args = parser.parse_args(argv)
    pages = existing_pages(args.pages)
    if not pages:
        print(f"error: none of {', '.join(args.pages)} exists under pages/", file=sys.stderr)
        return 1
    try:
        written = take_all(pages, args.out, args.budget_ms)
    except ScreenshotError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"{path} ({path.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
