"""AppTest of the verified-vision pages on a store built in a temp folder."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths
from analytics.core.licences import licence_verdict
from analytics.vision import runs as vision
from measure.adapters.catalog import COLUMNS as CATALOG_COLUMNS
from measure.adapters.catalog import adapter_catalog
from measure.community import auth
from measure.runner import RunRequest, run_measurement

FIXTURE = "tests/fixtures/measure/busy_adapter.py"
VERSION = "test-vision-pages"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """Two CPU measurements of the busy-wait adapter: one standard protocol, one short."""
    root = tmp_path_factory.mktemp("store")
    snapshot = root / "snapshots" / VERSION
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": VERSION}))
    for calls in (5, 6):
        run_measurement(RunRequest(adapter=f"{FIXTURE}:BusyWait2ms", out=root / "runs",
                                   runs=1, warmup=0, calls=calls))  # fmt: skip
    return root


@pytest.fixture()
def app_env(store, monkeypatch) -> Path:
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", store / "snapshots")
    monkeypatch.setattr(paths, "RUNS_DIR", store / "runs")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VERSION)
    return store


def _frame_with(at: AppTest, column: str) -> pd.DataFrame:
    """The first rendered dataframe that has ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _run(page: str) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / page), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_leaderboard_shows_rankings_and_why_runs_are_left_out(app_env):
    at = _run("pages/vision/leaderboard.py")
    assert at.title[0].value == "Vision leaderboard"
    assert at.selectbox(key="vision_lb_device").value == vision.devices(db.connect(VERSION))[0]
    excluded = _frame_with(at, "why_not_ranked")
    assert len(excluded) == 2  # both runs are short (non-standard): never ranked
    assert excluded["why_not_ranked"].str.contains("non-standard|discarded").all()
    licences = _frame_with(at, "licence_verdict")
    assert "MTCNN (facenet-pytorch weights)" in set(licences["display_name"])
    assert any("not legal advice" in c.value for c in at.caption)


def test_leaderboard_ranks_a_standard_run(app_env, monkeypatch):
    con = db.connect(VERSION)
    rows = vision.all_runs(con)
    monkeypatch.setattr(
        vision, "all_runs",
        lambda c: rows.assign(protocol_standard=True, discarded=False, adapter="mtcnn-facenet"),
    )  # fmt: skip
    board = vision.leaderboard(con, adapter_catalog(), "face-detection", vision.devices(con)[0])
    table = vision.ranking_table(board)
    assert list(table["rank"]) == [1]  # latest rankable run per adapter only
    assert table["author-reported"].iloc[0].startswith("none comparable")
    assert table["runs with fixes"].iloc[0] == "runs with fixes"


def test_model_page_renders_runs_charts_and_review(app_env):
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/model.py"), default_timeout=60)
    at.query_params["model"] = "mtcnn-facenet"
    at.run()
    assert not at.exception
    assert "MTCNN" in at.title[0].value
    assert any(s.value == "Community results" for s in at.subheader)


def test_model_page_review_saves_failure_marks(app_env, monkeypatch):
    con = db.connect(VERSION)
    runs = vision.all_runs(con)
    run_id = runs.iloc[0]["run_id"]
    outputs = vision.outputs_for_review(con, run_id)
    assert len(outputs) == 5 and not outputs["failure"].any()
    marks = outputs.assign(failure=outputs["output_index"] == 0, note="")
    path = vision.save_failure_marks(run_id, marks, "octocat")
    stored = pd.read_parquet(path)
    assert stored["failure"].sum() == 1 and set(stored["reviewer"]) == {"octocat"}
    again = vision.outputs_for_review(db.connect(VERSION), run_id)
    assert again.loc[again["output_index"] == 0, "failure"].item() is True


def test_run_page_shows_the_form_to_a_signed_in_maintainer(app_env, monkeypatch):
    password = "vision-run-test"
    entry = auth.hash_password(password, salt=b"vision-run-salt1")
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{entry}")
    at = _run("pages/vision/run.py")
    assert at.title[0].value == "Run a measurement"
    assert not at.selectbox  # the form stays hidden until sign-in
    at.text_input(key="vision_run_login_name").input("maint")
    at.text_input(key="vision_run_login_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="vision_run_adapter").value == "mtcnn-facenet"


def test_licence_verdict_is_the_stricter_class():
    assert licence_verdict("MIT", "MIT").startswith("permissive")
    assert licence_verdict("BSD-3-Clause", "not stated").startswith("conditional")
    assert licence_verdict("Apache-2.0", "CC-BY-NC-4.0").startswith("research-only")


def test_catalog_comes_from_the_registry_and_vision_never_imports_measure():
    catalog = adapter_catalog()
    assert list(catalog.columns) == list(CATALOG_COLUMNS)
    assert "mtcnn-facenet" in set(catalog["adapter"])
    source = (paths.REPO_ROOT / "analytics" / "vision" / "runs.py").read_text()
    assert "measure" not in {line.split()[1].split(".")[0] for line in source.splitlines()
                             if line.startswith(("import ", "from "))}  # fmt: skip
