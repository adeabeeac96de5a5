"""The page table is complete: every page exists, is navigable, and has an AppTest (a
``tests/test_pages_*.py`` that opens it: ``tests/fixtures/page_tests.py`` reads the calls)."""

from __future__ import annotations

from analytics.core import paths
from tests.fixtures.page_tests import opened_pages
from ui import navigation


def _opened_by_page_tests() -> set[str]:
    files = sorted((paths.REPO_ROOT / "tests").glob("test_pages_*.py"))
    return set().union(*(opened_pages(f.read_text(encoding="utf-8")) for f in files))


def test_every_listed_page_exists():
    missing = [p.file for p in navigation.PAGES if not (paths.REPO_ROOT / p.file).exists()]
    assert not missing


def test_every_page_file_is_in_the_navigation():
    listed = {p.file for p in navigation.PAGES}
    pages_dir = paths.REPO_ROOT / "pages"
    on_disk = {f"pages/{p.relative_to(pages_dir)}" for p in pages_dir.rglob("*.py")}
    assert on_disk - listed == set()


def test_every_page_has_an_apptest():
    opened = _opened_by_page_tests()
    untested = [p.file for p in navigation.PAGES if p.file not in opened]
    assert not untested, f"no tests/test_pages_*.py opens {untested} with AppTest"


MENTIONS = '''
"""Covers pages/llm/movers.py."""
PAGES = ["llm/movers.py"]
def test_movers(store):
    assert "llm/movers.py" in PAGES  # pages/llm/movers.py
    helper("llm/movers.py")
    run_page(next(iter(navigation.PAGES)).file)
'''
OPENS = """
PAGE = "llm/movers.py"
LOGIN = {"pages/vision/run.py": "vision_run"}
def _open(page, key=None):
    return AppTest.from_file(str(ROOT / "pages" / page)).run()
def _visit(page):
    return run_page(page.removeprefix("pages/"))
def test_a(store):
    _open(PAGE)
    run_page("llm/compare.py", models=["a"])
@pytest.mark.parametrize(("page", "query"), [("llm/model.py", {}), ("fl/ranked.py", {})])
def test_b(page, query):
    _open(page, query)
@pytest.mark.parametrize("page", sorted(LOGIN))
def test_c(page):
    _visit(page)
"""


def test_only_an_opened_page_counts_as_tested():
    """The check reads calls, not mentions: a page whose test is deleted fails it."""
    assert opened_pages(MENTIONS) == set()
    assert opened_pages(OPENS) == {
        "pages/llm/movers.py", "pages/llm/compare.py", "pages/llm/model.py", "pages/fl/ranked.py",
        "pages/vision/run.py",
    }


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


def test_the_menu_stays_expanded_with_the_maintainer_pages_after_sign_in(monkeypatch, tmp_path):
    """Streamlit folds a long menu to 10 pages and "View N more" once the sidebar holds anything
    else (the sign-in line); the app asks for it always expanded, signed in or not."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from measure.community import auth, inbox

    password = "nav-test-password"
    monkeypatch.setenv(
        auth.ENV_MAINTAINERS, f"maint:{auth.hash_password(password, salt=b's' * 16)}"
    )
    monkeypatch.setenv(inbox.ENV_INBOX, str(tmp_path / "inbox"))
    calls: list[dict] = []
    real = st.navigation

    def spy(pages, **kwargs):
        calls.append({"pages": pages, **kwargs})
        return real(pages, **kwargs)

    monkeypatch.setattr(st, "navigation", spy)
    at = AppTest.from_file(str(paths.REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/vision/review.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.text_input(key="review_login_name").input("maint")
    at.text_input(key="review_login_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Signed in as maintainer" in c.value for c in at.sidebar.caption)
    last = calls[-1]
    assert last["expanded"] is True
    shown = [
        p.title for section in last["pages"].values() for p in section if p.visibility != "hidden"
    ]
    for page in navigation.maintainer_pages() + [
        p for p in navigation.PAGES if p.section == "Federated track"
    ]:
        assert page.title in shown
