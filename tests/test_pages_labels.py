"""No raw column name on any page: every table of every page in ``ui/navigation.py``
shows human labels, and every LLM page says how fresh its data is.

Each page runs (AppTest) on the small test store of its track (test data only, not real
figures): the LLM rating snapshot of ``tests/fixtures/catalogs.py`` for the leaderboard pages and
the home page, the tiny calculator catalog for the calculators, one stored measurement for the
vision pages, a few reference ZIPs for the federated pages. A header is raw when it is a column
name of the catalog schema (``analytics.core.schema.TABLES``) or of the run record
(``analytics.core.run_schema``), or looks like one (snake_case: an underscore and no space); no
header on any page starts in lower case either.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import labels, paths, run_schema, schema
from analytics.llm import leaderboard
from tests.fixtures import page_stores
from tests.fixtures.apptest import fresh_caches
from tests.fixtures.store import StorePaths
from ui import navigation


def raw_names() -> frozenset[str]:
    """Every column name of the catalog schema and every key (and leaf key) of the run record."""
    names = {c.name for cols in schema.TABLES.values() for c in cols}
    for fields in (run_schema.RECORD, run_schema.RUN, run_schema.INPUT_FILE,
                   run_schema.WEIGHTS_FILE, run_schema.DETECTION):
        for f in fields:
            names |= {f.path, f.path.rsplit(".", 1)[-1]}
    return frozenset(names)


RAW = raw_names()


def shown_headers(frame) -> list[str]:
    """The headers a user sees on an AppTest dataframe: column config labels applied, hidden
    columns and a hidden or unnamed index left out."""
    config = json.loads(frame.proto.columns or "{}")
    value = frame.value
    out = []
    index = config.get("_index", {})
    if not index.get("hidden") and value.index.name is not None:
        out.append(index.get("label") or str(value.index.name))
    order = list(frame.proto.column_order) or [str(c) for c in value.columns]
    for col in order:
        conf = config.get(col, {})
        if not conf.get("hidden"):
            out.append(conf.get("label") or col)
    return out


def bad_headers(at: AppTest) -> list[str]:
    """'table key: header' for every raw header, and every one starting in lower case."""
    bad = []
    for frame in at.dataframe:
        for header in shown_headers(frame):
            if header in RAW or labels.is_raw(header) or header[:1].islower():
                bad.append(f"{frame.key}: {header!r}")
    return bad


# --- one store per track (tests/fixtures/page_stores.py) -----------------------------------

_llm_store = page_stores.llm_store
_setup = page_stores.setup_for


QUERIES: dict[str, list[dict[str, str | list[str]]]] = {
    "pages/llm/leaderboard.py": [
        {"cols": list(leaderboard.MORE_COLUMNS)},
        {"category": "knowledge", "cols": list(leaderboard.MORE_COLUMNS)},
    ],
    "pages/llm/model.py": [{"model": "acme-2-7b"}],
    "pages/llm/compare.py": [{"models": ["beta-pro-2", "acme-2-70b"]}],
    "pages/llm/benchmark.py": [{"benchmark": "kn1"}],
    "pages/fl/ranked.py": [{"model": "cnn", "method": "FedAvg", "protocol": "A"}],
}
"""URL parameters that make a page show all its tables (every page also runs without any)."""

CASES = [
    pytest.param(p.file, query, id=p.file + ("?" + "&".join(query) if query else ""))
    for p in navigation.PAGES
    for query in [{}, *QUERIES.get(p.file, [])]
]


def _run(page: str, query: dict) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / page), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize(("page", "query"), CASES)
def test_no_raw_column_name_on_the_page(store_paths: StorePaths, page: str, query: dict) -> None:
    _setup(page)(store_paths)
    fresh_caches()
    at = _run(page, query)
    if any(t.key == "bm_others" for t in at.toggle):  # other sources' scores: behind a toggle
        at.toggle(key="bm_others").set_value(True).run()
        assert not at.exception
    assert bad_headers(at) == []


FRESH_PAGES = [p.file for p in navigation.PAGES if p.section == "LLM leaderboard"] + [
    navigation.HOME
]


@pytest.mark.parametrize("page", FRESH_PAGES)
def test_every_llm_page_shows_a_data_through_line(store_paths: StorePaths, page: str) -> None:
    _setup(page)(store_paths)
    fresh_caches()
    at = _run(page, QUERIES.get(page, [{}])[0])
    lines = [c.value for c in at.caption if "Data through " in c.value]
    assert lines and all(len(line) > len("Data through ") for line in lines)
    if _setup(page) is _llm_store:  # its models all have a release date
        assert "an unknown date (newest" not in lines[0]


def test_leaderboard_tables_show_the_essential_columns_first(store_paths: StorePaths) -> None:
    _llm_store(store_paths)
    fresh_caches()
    at = _run("pages/llm/leaderboard.py", {})
    assert shown_headers(at.dataframe[0]) == [
        "Rank", "Rank range", "Rank (LMArena)", "Model", "Elo", "Elo 95% interval", "Provenance",
        "Released", "Benchmarks", "Categories", "Sources", "Details",
    ]
    assert at.multiselect(key="lb_cols").value == []


# --- the label helpers --------------------------------------------------------------------


def test_human_labels_carry_units() -> None:
    assert labels.human("used_mib") == "Used (MiB)"
    assert labels.human("comm_bytes") == "Communication (bytes)"
    assert labels.human("latency_ms") == "Latency (ms)"
    assert labels.human("model_id") == "Model ID"
    assert not any(labels.is_raw(labels.human(name)) for name in RAW)


def test_csv_text_has_human_headers_and_dates_as_dates() -> None:
    frame = pd.DataFrame(
        {"model_id": ["a"], "release_date": pd.to_datetime(["2024-05-01"]), "rating": [1.5]}
    )
    text = labels.csv_text(frame, {"rating": "Elo"})
    assert text.splitlines() == ["Model ID,Released,Elo", "a,2024-05-01,1.5"]
    assert "00:00:00" not in text
