"""The page table is complete: every page exists, is navigable, and has an AppTest."""

from __future__ import annotations

from analytics import paths
from ui import navigation

PAGE_TESTS = "\n".join(p.read_text() for p in (paths.REPO_ROOT / "tests").glob("test_pages_*.py"))


def test_every_listed_page_exists():
    missing = [p.file for p in navigation.PAGES if not (paths.REPO_ROOT / p.file).exists()]
    assert not missing


def test_every_page_file_is_in_the_navigation():
    listed = {p.file for p in navigation.PAGES}
    on_disk = {f"pages/{p.name}" for p in (paths.REPO_ROOT / "pages").glob("*.py")}
    assert on_disk - listed == set()


def test_every_page_has_an_apptest():
    untested = [p.file for p in navigation.PAGES if p.file.split("/")[-1] not in PAGE_TESTS]
    assert not untested, f"no tests/test_pages_*.py runs {untested}"


def test_each_track_has_a_main_page():
    sections = {p.section for p in navigation.main_pages()}
    assert sections == {"LLM leaderboard", "Verified vision", "Federated track"}
