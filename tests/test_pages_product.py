"""What a visitor sees: no developer text, no red box on the maintainer pages, the
viewer toolbar, snapshot pickers with dates, one-sentence reasons and singular wording."""

from __future__ import annotations

import ast
import json
import os
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db, paths
from analytics.core.labels import plural
from analytics.vision import runs as vision
from measure.adapters.base import RANDOM_WEIGHTS_REASON
from measure.community import auth, inbox
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import LLM_NEW as NEW
from tests.fixtures.catalogs import LLM_OLD as OLD
from tests.fixtures.catalogs import write_snapshot
from tests.fixtures.store import StorePaths
from ui import navigation

CONFIG = paths.REPO_ROOT / ".streamlit" / "config.toml"
VERSION = "test-product-pages"
LOGIN_KEYS = {"pages/vision/review.py": "review", "pages/vision/run.py": "vision_run"}
"""Maintainer page -> the key prefix of its sign-in form."""

# --- no bare literal on any page -----------------------------------------------------------

_RENDERED_BY_MAGIC = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)  # everything else is drawn


def _bare_expressions(source: str) -> list[tuple[int, str]]:
    """(line, code) of every expression statement Streamlit's magic would draw: anything but
    a call (a string, f-string, constant, name, ...), docstrings of modules, classes and
    functions aside."""
    found = []
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        scoped = isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        )
        for i, stmt in enumerate(body):
            if not isinstance(stmt, ast.Expr) or isinstance(stmt.value, _RENDERED_BY_MAGIC):
                continue
            docstring = scoped and i == 0 and isinstance(stmt.value, ast.Constant)
            if not docstring:
                found.append((stmt.lineno, ast.unparse(stmt)[:60]))
    return found


def _page_sources() -> list[Path]:
    return [paths.REPO_ROOT / "app.py", *sorted((paths.REPO_ROOT / "pages").rglob("*.py"))]


def test_no_page_has_a_bare_literal_magic_would_draw():
    bare = {
        str(p.relative_to(paths.REPO_ROOT)): found
        for p in _page_sources()
        if (found := _bare_expressions(p.read_text()))
    }
    assert bare == {}


def test_the_bare_literal_check_catches_what_magic_draws():
    source = '"""doc"""\nx = 1\n"""attribute note"""\nf"{x}"\nx\ndef f():\n    """doc"""\n    2\n'
    assert [line for line, _ in _bare_expressions(source)] == [3, 4, 5, 8]


def test_config_turns_magic_off_and_the_toolbar_to_viewer():
    settings = tomllib.loads(CONFIG.read_text())
    assert settings["runner"]["magicEnabled"] is False
    assert settings["client"]["toolbarMode"] == "viewer"  # no Deploy button
    assert settings["server"]["address"] == "localhost" and settings["server"]["maxUploadSize"]


# --- maintainer pages ----------------------------------------------------------------------


def test_navigation_puts_the_maintainer_pages_under_maintainers_last():
    gated = {
        p.file for p in navigation.PAGES
        if "require_maintainer" in (paths.REPO_ROOT / p.file).read_text()
        and p.section != "Federated track"  # its review control sits inside a public page
    }
    assert gated == set(LOGIN_KEYS)
    assert {p.file for p in navigation.maintainer_pages()} == set(LOGIN_KEYS)
    assert {p.title for p in navigation.maintainer_pages()} == {"Review inbox", "Run a measurement"}
    sections = list(dict.fromkeys(p.section for p in navigation.PAGES))
    assert sections[-1] == navigation.MAINTAINERS == "Maintainers"


@pytest.fixture()
def community_store(tmp_path, monkeypatch) -> Path:
    """An empty inbox, runs folder and snapshot in tmp_path; nobody configured."""
    snapshot = tmp_path / "snapshots" / VERSION
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": VERSION}))
    monkeypatch.setattr(paths, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", tmp_path / "snapshots")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VERSION)
    monkeypatch.setenv(inbox.ENV_INBOX, str(tmp_path / "inbox"))
    monkeypatch.delenv(auth.ENV_MAINTAINERS, raising=False)
    fresh_caches()
    return tmp_path


def _visit(page: str):
    at = run_page(page.removeprefix("pages/"))
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]  # never a red box for a visitor
    assert not at.dataframe and not at.selectbox  # nothing of the page before sign-in
    assert all("raw keys" not in m.value for m in at.markdown)  # no developer note drawn
    return at


@pytest.mark.parametrize("page", sorted(LOGIN_KEYS))
def test_a_visitor_sees_the_sign_in_form(community_store, monkeypatch, page):
    entry = auth.hash_password("product-test-pass", salt=b"product-test-salt")
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{entry}")
    at = _visit(page)
    key = LOGIN_KEYS[page]
    assert at.text_input(key=f"{key}_login_name").label == "Maintainer name"
    assert at.text_input(key=f"{key}_login_password").label == "Password"
    assert [b.label for b in at.button] == ["Sign in"]
    assert "sign in to continue" in at.info[0].value


@pytest.mark.parametrize("page", sorted(LOGIN_KEYS))
def test_with_no_maintainer_the_page_is_an_operator_note(community_store, page):
    at = _visit(page)
    assert len(at.info) == 1 and "No maintainer is configured" in at.info[0].value
    assert any("hash-password" in c.value and auth.ENV_MAINTAINERS in c.value for c in at.code)
    assert not at.text_input and not at.button


@pytest.mark.parametrize("page", sorted(LOGIN_KEYS))
def test_a_misconfigured_maintainer_is_a_note_too(community_store, monkeypatch, page):
    monkeypatch.setenv(auth.ENV_MAINTAINERS, "maint:not-a-hash")
    at = _visit(page)
    assert "misconfigured" in at.info[0].value and not at.text_input


# --- vision leaderboard: an empty ranking says why -----------------------------------------


def _runs(task: str, adapter: str, listable_reason: str) -> pd.DataFrame:
    """One stored run (the columns the leaderboard reads); not listable for ``listable_reason``."""
    return pd.DataFrame([{
        "run_id": "r1", "adapter": adapter, "task": task, "device_kind": "cpu",
        "device_name": "Test CPU", "status": "ok", "error": None, "discarded": False,
        "discard_reason": None, "protocol_standard": True, "listable": False,
        "listable_reason": listable_reason, "created_utc": "2026-01-01T00:00:00Z",
        "median_ms": 12.0, "display_name": adapter, "code_licence": "MIT",
        "weights_licence": "MIT", "runs_with_fixes": False, "patch_url": None,
        "paper_value": None, "paper_metric": None, "paper_benchmark": None, "paper_url": None,
    }])


def test_object_detection_with_no_run_says_why_and_shows_no_empty_table(
    community_store, monkeypatch
):
    stored = _runs("face-detection", "mtcnn-facenet", "peak over 24 GiB")
    monkeypatch.setattr(vision, "all_runs", lambda con: stored)
    at = run_page("vision/leaderboard.py", task="object-detection")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="vision_lb_task").value == "object-detection"
    [why] = [i.value for i in at.info]
    assert "COCO detectors" in why and "code-path tests" in why and "installs offline" in why
    assert why.count(". ") == 0 and why.endswith(".")  # one sentence
    assert "Runs left out of this ranking" not in [s.value for s in at.subheader]
    assert all(not d.value.empty for d in at.dataframe)  # the licences table only
    assert not [d for d in at.dataframe if "Why not ranked" in d.value.columns]


def test_a_code_path_run_is_listed_with_the_same_reason(community_store, monkeypatch):
    stored = _runs("object-detection", "fasterrcnn-resnet50-fpn", RANDOM_WEIGHTS_REASON)
    monkeypatch.setattr(vision, "all_runs", lambda con: stored)
    at = run_page("vision/leaderboard.py", task="object-detection")
    assert not at.exception
    assert "COCO detectors" in at.info[0].value
    [left_out] = [d.value for d in at.dataframe if "Why not ranked" in d.value.columns]
    assert len(left_out) == 1


def test_another_task_with_only_left_out_runs_counts_them_in_the_singular(
    community_store, monkeypatch
):
    stored = _runs("face-detection", "mtcnn-facenet", "peak over 24 GiB")
    monkeypatch.setattr(vision, "all_runs", lambda con: stored)
    at = run_page("vision/leaderboard.py", task="face-detection")
    assert not at.exception
    assert "1 stored run is left out, each with its reason below" in at.info[0].value
    assert "Runs left out of this ranking" in [s.value for s in at.subheader]


# --- LLM leaderboard: snapshot pickers and the search count -------------------------------


@pytest.fixture()
def llm_store(store_paths: StorePaths) -> Path:
    """Two snapshots: OLD with a hand-written manifest (its file time is its build time), NEW
    with a built manifest (built_at and table counts); the app serves NEW."""
    snapshots = store_paths.snapshots
    write_snapshot(snapshots, OLD, old=True)
    write_snapshot(snapshots, NEW)
    stamp = (snapshots / OLD / "MANIFEST.json").stat().st_mtime
    manifest = {"version": NEW, "built_at": "2099-01-02T03:04:05Z",
                "tables": {"models": 5, "scores": 1234, "benchmarks": 1}}
    (snapshots / NEW / "MANIFEST.json").write_text(json.dumps(manifest))
    os.utime(snapshots / NEW / "MANIFEST.json", (stamp + 10, stamp + 10))
    store_paths.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: NEW)
    fresh_caches()
    return store_paths.root


def test_snapshot_pickers_show_build_date_data_date_and_counts(llm_store):
    at = run_page("llm/leaderboard.py")
    assert not at.exception, [e.value for e in at.exception]
    new = at.selectbox(key="lb_diff_new")
    assert new.value == NEW  # the value stays the version
    [label] = [o for o in new.options if o.startswith(NEW)]
    assert label.startswith(f"{NEW} · built 2099-01-02 · data through ")
    assert label.endswith("· 5 models, 1,234 scores")
    [old] = at.selectbox(key="lb_diff_old").options
    assert old.startswith(f"{OLD} · built ") and " · data through " in old


def test_search_count_is_singular_for_one_model(llm_store):
    at = run_page("llm/leaderboard.py", q="beta-pro-2")
    assert not at.exception
    assert "1 model matches 'beta-pro-2'." in [c.value for c in at.caption]
    assert "models match" not in " ".join(c.value for c in at.caption)


def test_plural():
    assert [plural(n, "model") for n in (0, 1, 2, 1234)] == [
        "0 models", "1 model", "2 models", "1,234 models",
    ]
    assert plural(1, "category", many="categories") == "1 category"
    assert plural(3, "category", many="categories") == "3 categories"
