"""Every URL parameter either applies or says why not (``ui/params.py``): each page of
``ui/navigation.py`` opened with every parameter it reads set to a value it cannot have shows,
for each of them, one line naming the parameter, its value and what is shown instead."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import paths
from tests.fixtures import page_stores
from tests.fixtures.apptest import fresh_caches
from tests.fixtures.store import StorePaths
from ui import navigation, params

ABSENT = "zz-absent-9"


def _run(page: str, query: dict) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / page), default_timeout=90)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _url(at: AppTest, key: str) -> list[str]:
    value = at.query_params[key]
    return [value] if isinstance(value, str) else list(value)


def _read(at: AppTest) -> dict[str, str]:
    return dict(at.session_state[params.READ_KEY]) if params.READ_KEY in at.session_state else {}


def notices(at: AppTest) -> list[str]:
    """The one-line link notices on the page (any info or warning naming a parameter)."""
    return [e.value for e in [*at.info, *at.warning] if "`" in e.value or "'" in e.value]


def _says(at: AppTest, name: str, value: str) -> bool:
    return any(f"`{name}={value}`" in n or (name in n and value in n) for n in notices(at))


@pytest.mark.parametrize("page", [p.file for p in navigation.PAGES])
def test_every_parameter_of_every_page_applies_or_says_why_not(
    store_paths: StorePaths, page: str
) -> None:
    page_stores.setup_for(page)(store_paths)
    fresh_caches()
    read = _read(_run(page, {}))
    checked = {name for name, kind in read.items() if kind == params.CHOICE}
    if not checked:
        return  # reads no URL parameter (a maintainer page before sign-in, the upload pages)
    at = _run(page, dict.fromkeys(checked, ABSENT))
    silent = sorted(name for name in checked if not _says(at, name, ABSENT))
    assert silent == [], f"{page}: no notice for {silent}; notices: {notices(at)}"
    for line in notices(at):
        assert "\n" not in line.strip()


def test_pages_with_parameters_are_walked(store_paths: StorePaths) -> None:
    """The walk finds the parameters (a page that stopped recording them would pass silently)."""
    page_stores.setup_for("pages/llm/hardware_fit.py")(store_paths)
    fresh_caches()
    read = _read(_run("pages/llm/hardware_fit.py", {}))
    assert {"kind", "gpu", "count", "ctx", "lic", "size", "open", "all", "sort"} <= set(read)


@pytest.mark.parametrize(
    ("query", "name", "shown"),
    [
        ({"gpu": "nonexistent", "count": "999"}, "gpu", "showing"),
        ({"gpu": "nonexistent", "count": "999"}, "count", "showing 8 instead"),
        ({"kind": "Apple profile", "gpu": "rtx-4090"}, "gpu", "showing"),
    ],
)
def test_hardware_links_say_what_they_show_instead(store_paths, query, name, shown) -> None:
    page_stores.calculator_store(store_paths)
    fresh_caches()
    at = _run("pages/llm/hardware_fit.py", query)
    lines = [n for n in notices(at) if f"`{name}={query[name]}`" in n]
    assert len(lines) == 1 and shown in lines[0], notices(at)


def test_hardware_filters_and_planner_preset_are_kept_in_the_url(store_paths) -> None:
    page_stores.calculator_store(store_paths)
    fresh_caches()
    at = _run("pages/llm/hardware_fit.py", {"lic": "permissive", "size": "30-50"})
    assert at.multiselect(key="hf_lic").value == ["permissive"] and not notices(at)
    assert at.slider(key="hf_size").value == (30.0, 50.0)
    assert _url(at, "lic") == ["permissive"] and _url(at, "size") == ["30-50"]
    planner = _run("pages/llm/finetune_planner.py", {"preset": "Large (100k samples)"})
    assert planner.selectbox(key="ft_preset").value == "Large (100k samples)"
    assert _url(planner, "preset") == ["Large (100k samples)"]


@pytest.mark.parametrize(("key", "value"), [("from", "9999-99-99"), ("org", "NotAnOrg")])
def test_leaderboard_filters_say_when_they_do_not_apply(store_paths, key, value) -> None:
    page_stores.llm_store(store_paths)
    fresh_caches()
    at = _run("pages/llm/leaderboard.py", {key: value})
    assert _says(at, key, value), notices(at)
