"""Browser screenshots of the main pages (scripts/screenshots.py with Debian chromium)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from analytics.core import paths
from tests.fixtures.browser import chromium_path
from tests.fixtures.catalogs import write_catalog
from tests.fixtures.store import StorePaths

SCRIPT = paths.REPO_ROOT / "scripts" / "screenshots.py"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(chromium_path() is None, reason="chromium absent: apt-get install chromium"),
]


def _load_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("screenshots", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_main_pages_render_to_non_blank_pngs(store_paths: StorePaths) -> None:
    shots = _load_script()
    pages = shots.existing_pages(list(shots.MAIN_PAGES))
    assert pages[0] == "home"
    # the small test catalog: hermetic and fast (~20 s for 6 pages); the server inherits the
    # MODELATLAS_* variables store_paths set
    write_catalog(store_paths.serve_catalog())
    out = store_paths.root / "shots"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--pages", *pages],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for page in pages:
        png = out / f"{page}.png"
        assert png.stat().st_size > 20_000, page
        with Image.open(png) as im:
            assert im.size == (1400, 1800)
            gray = im.convert("L")
            lo, hi = gray.getextrema()
            assert hi - lo > 100, f"{page}.png is one colour"
            hist = gray.histogram()
            text_share = sum(hist[:160]) / sum(hist)  # dark pixels: text, not the grey skeleton
            assert text_share > 0.003, f"{page}.png shows no text (loading skeleton?)"
    with Image.open(out / "home.png") as im:  # the home charts drew: Streamlit's bar blue
        blue = sum(1 for px in im.convert("RGB").get_flattened_data() if px == (0, 104, 201))
    assert blue > 5_000
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{p}.png" for p in pages)
    assert store_paths.snapshots.is_dir()  # the server built the snapshot where it was told


SECTIONS = ["Overview", "LLM leaderboard", "Verified vision", "Federated track", "Maintainers"]


@pytest.mark.parametrize("path", ["llm_leaderboard", "vision_leaderboard", "fl_ranked", "home"])
def test_a_deep_link_on_a_cold_server_shows_the_app_navigation(
    store_paths: StorePaths, path: str
) -> None:
    """A shared link opened as the first request of a freshly started server shows the page
    table's sections and titles, never Streamlit's file-name sidebar of the pages/ folder
    (also not for a moment while loading) and no "Page not found" dialog; /home is what that
    sidebar used to link to."""
    from ui import navigation

    shots = _load_script()
    write_catalog(store_paths.serve_catalog())
    states = shots.deep_link_sidebar(path)
    titles = [p.title for p in navigation.existing_pages()]
    assert states[-1] == {"sections": SECTIONS, "titles": titles, "dialog": None}, states[-1]
    shown = [s for s in states if s is not None and s["titles"]]
    assert all(s["sections"] == SECTIONS for s in shown), shown  # no file-name sidebar
    # and no "Page not found" dialog over the right page (Streamlit's v1 pages/ run: ui/server)
    assert all(s["dialog"] is None for s in states if s is not None), states


def test_missing_pages_fail_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(tmp_path), "--pages", "no_such_page"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "error: none of no_such_page exists under pages/"
    assert list(tmp_path.iterdir()) == []


def test_dark_theme_and_phone_width(store_paths: StorePaths) -> None:
    """``--themes dark --phone``: a dark page at 1400 px and at phone width, named by theme."""
    write_catalog(store_paths.serve_catalog())
    out = store_paths.root / "shots"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), "--pages", "home", "--themes", "dark",
         "--phone", "--strict"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "rendered in" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == ["home-dark.png", "home-phone-dark.png"]
    with Image.open(out / "home-phone-dark.png") as im:
        assert im.size[0] == 390
    with Image.open(out / "home-dark.png") as im:
        gray = im.convert("L")
        assert sum(gray.get_flattened_data()) / (im.size[0] * im.size[1]) < 80, "not dark"


SHOWN_TABLES_JS = """[...document.querySelectorAll('div[class*="-table"]')]
  .filter(e => /st-key-lb_ranked-(wide|phone)-table/.test(e.className))
  .map(e => [e.className.match(/lb_ranked-(wide|phone)-table/)[1],
             e.getBoundingClientRect().width > 0
               && e.querySelector('[data-testid="stDataFrame"]') !== null])"""


def test_the_leaderboard_shows_one_table_per_width(store_paths: StorePaths) -> None:
    """The ranked table is drawn in one order at 1400 px (Rank, Model, Elo...) and in another at
    phone width (Rank, Elo, Model...: Elo on screen); the browser shows exactly one of them.
    One server answers both widths, each a fresh page load."""
    shots = _load_script()
    write_catalog(store_paths.serve_catalog())
    found = shots.probe("llm_leaderboard", SHOWN_TABLES_JS, widths=(False, True))
    for phone, shown in zip((False, True), found, strict=True):
        assert dict(shown) == {"wide": not phone, "phone": phone}, (phone, shown)
