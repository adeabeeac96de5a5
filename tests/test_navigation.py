"""The page table is complete: every page exists, is navigable, and has an AppTest."""

from __future__ import annotations

from analytics.core import paths
from ui import navigation

PAGE_TESTS = "\n".join(p.read_text() for p in (paths.REPO_ROOT / "tests").glob("test_pages_*.py"))


def test_every_listed_page_exists():
    missing = [p.file for p in navigation.PAGES if not (paths.REPO_ROOT / p.file).exists()]
    assert not missing


def test_every_page_file_is_in_the_navigation():
    listed = {p.file for p in navigation.PAGES}
    pages_dir = paths.REPO_ROOT / "pages"
    on_disk = {f"pages/{p.relative_to(pages_dir)}" for p in pages_dir.rglob("*.py")}
    assert on_disk - listed == set()


def test_every_page_has_an_apptest():
    untested = [p.file for p in navigation.PAGES if p.file.removeprefix("pages/") not in PAGE_TESTS]
    assert not untested, f"no tests/test_pages_*.py runs {untested}"


def test_each_track_has_a_main_page():
    sections = {p.section for p in navigation.main_pages()}
    assert sections == {"LLM leaderboard", "Verified vision", "Federated track"}


def test_url_paths_are_unique_and_keep_the_old_links():
    urls = [p.url_path for p in navigation.PAGES]
    assert len(set(urls)) == len(urls)
    assert {"llm_leaderboard", "hardware_fit", "finetune_planner", "vision_leaderboard"} <= set(
        urls
    )
    assert {"fl_ranked", "vision_review", "llm_model", "fl_run_detail"} <= set(urls)


def test_no_page_file_sits_directly_in_pages():
    """Streamlit's automatic pages/ navigation would list such files by name on a cold server."""
    assert list((paths.REPO_ROOT / "pages").glob("*.py")) == []
    assert navigation.HOME in {p.file for p in navigation.PAGES}
    assert next(p for p in navigation.PAGES if p.file == navigation.HOME).url_path == "home"
