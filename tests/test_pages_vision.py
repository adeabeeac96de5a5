"""AppTest of the verified-vision pages on a store built in a temp folder."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import db, paths
from analytics.core.licences import licence_verdict
from analytics.vision import charts
from analytics.vision import runs as vision
from measure.adapters import registry
from measure.adapters.catalog import COLUMNS as CATALOG_COLUMNS
from measure.adapters.catalog import adapter_catalog
from measure.community import auth, inbox
from measure.runner import RunRequest, run_measurement
from tests.fixtures.apptest import fresh_caches

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
                                   runs=1, warmup=0, calls=calls))
    return root


@pytest.fixture()
def app_env(store, monkeypatch) -> Path:
    monkeypatch.setattr(paths, "SNAPSHOTS_DIR", store / "snapshots")
    monkeypatch.setattr(paths, "RUNS_DIR", store / "runs")
    monkeypatch.setattr(db, "ensure_snapshot", lambda *a, **k: VERSION)
    monkeypatch.setenv(inbox.ENV_INBOX, str(store / "inbox"))  # audit log, login throttle
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
    excluded = _frame_with(at, "Why not ranked")
    assert len(excluded) == 2  # both runs are short (non-standard): never ranked
    assert excluded["Why not ranked"].str.contains("non-standard|discarded").all()
    assert [b.label for b in at.get("download_button")] == ["Download runs left out (CSV)"]
    licences = _frame_with(at, "Verdict")
    assert "MTCNN (facenet-pytorch weights)" in set(licences["Model"])
    assert any("not legal advice" in c.value for c in at.caption)


def test_leaderboard_ranks_a_standard_run(app_env, monkeypatch):
    con = db.connect(VERSION)
    rows = vision.all_runs(con)
    monkeypatch.setattr(
        vision, "all_runs",
        lambda c: rows.assign(protocol_standard=True, discarded=False, adapter="mtcnn-facenet"),
    )
    board = vision.leaderboard(con, adapter_catalog(), "face-detection", vision.devices(con)[0])
    table = vision.ranking_table(board)
    assert list(table["Rank"]) == [1]  # latest rankable run per adapter only
    assert table["Author-reported"].iloc[0] == ""  # no comparable author figure: blank
    assert table["Runs with fixes"].iloc[0] == "runs with fixes"


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
                             if line.startswith(("import ", "from "))}


# --- charts, human labels, memory baseline, review marks, missing extras ----------

TWO_MODELS = ["mtcnn-facenet", "yunet-libfacedetection"]


@pytest.fixture()
def fresh(app_env):
    """Empty Streamlit caches before and after (tests below patch what the loaders read)."""
    fresh_caches()
    yield app_env
    fresh_caches()


def _rankable(monkeypatch) -> pd.DataFrame:
    """Both stored runs made rankable, as two registered face detectors (the real rows)."""
    rows = vision.all_runs(db.connect(VERSION))
    patched = rows.assign(protocol_standard=True, discarded=False, adapter=TWO_MODELS)
    monkeypatch.setattr(vision, "all_runs", lambda con: patched)
    return patched


def _values(data) -> list:
    """A plotly JSON array: a plain list, or the typed-array form (dtype + base64 bdata)."""
    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data or [])


def _figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _signed_in(page: str, monkeypatch, login_key: str) -> AppTest:
    password = "vision-pages-test"
    entry = auth.hash_password(password, salt=b"vision-page-salt")
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{entry}")
    at = _run(page)
    at.text_input(key=f"{login_key}_login_name").input("maint")
    at.text_input(key=f"{login_key}_login_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _model_page(adapter: str) -> AppTest:
    at = AppTest.from_file(str(paths.REPO_ROOT / "pages/vision/model.py"), default_timeout=60)
    at.query_params["model"] = adapter
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_set_under_the_object_floor_draws_no_accuracy_axis(fresh, monkeypatch):
    """The face set (5 images, 2 faces) is a sanity check: latency alone, no Pareto front, and
    the table says what each AP rests on, with its interval."""
    runs = _rankable(monkeypatch)
    at = _run("pages/vision/leaderboard.py")
    chart = next(f for f in _figures(at) if "Latency, " in f["layout"]["title"]["text"])
    title = chart["layout"]["title"]["text"].replace("<br>", " ")  # wrapped for a phone
    assert "no accuracy axis: 5 images, 2 objects (under 20)" in title
    assert not chart["layout"]["yaxis"]["title"]["text"]  # no accuracy axis
    assert charts.FRONT_NAME not in {t.get("name") for t in chart["data"]}
    assert not any("Accuracy vs latency" in f["layout"]["title"]["text"] for f in _figures(at))
    assert sorted(_values(chart["data"][0]["x"])) == sorted(runs["median_ms"])
    table = _frame_with(at, "Accuracy rests on")
    assert set(table["Accuracy rests on"]) == {
        "5 images, 2 objects (sanity check: under 20 objects)"
    }
    assert all(t for t in table["AP50 95% interval (ours)"])
    assert any("Accuracy here is a sanity check" in c.value for c in at.caption)


def test_leaderboard_has_the_pareto_chart_for_a_set_above_the_floor(fresh, monkeypatch):
    from analytics.vision import evidence

    monkeypatch.setattr(evidence, "MIN_OBJECTS", 2)  # the 2 faces count as enough here
    runs = _rankable(monkeypatch)
    assert runs["ap"].notna().all()
    at = _run("pages/vision/leaderboard.py")
    assert at.selectbox(key="vision_lb_task").value == "face-detection"
    chart = next(f for f in _figures(at) if "Accuracy vs latency" in f["layout"]["title"]["text"])
    assert "our set, not a standard benchmark" in chart["layout"]["title"]["text"]
    assert chart["layout"]["xaxis"]["type"] == "log"
    assert chart["layout"]["yaxis"]["range"] == [0, 1.05]  # AP never drawn below 0
    assert all(t.endswith(" ms") for t in chart["layout"]["xaxis"]["ticktext"])
    traces = {t["name"]: t for t in chart["data"]}
    front = traces[charts.FRONT_NAME]
    plotted = _values(front["x"]) + _values(traces.get(charts.OTHERS_NAME, {}).get("x"))
    assert sorted(plotted) == sorted(runs["median_ms"])  # both ranked models, measured latency
    assert front["line"]["shape"] == "hv" and _values(front["y"])
    assert "median" in front["hovertext"][0] and "(RAM)" in front["hovertext"][0]
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download ranking (CSV)"]  # nothing left out: no empty table
    assert "No stored run on this device was left out of this ranking." in [
        c.value for c in at.caption
    ]


def _raw_names(store: Path) -> set[str]:
    """Every column name of the run tables, the review marks and the adapter catalog."""
    names = set(CATALOG_COLUMNS) | set(vision.REVIEW_MARK_COLUMNS) | {"why_not_ranked"}
    for folder in (store / "runs").glob("vision_*"):
        for file in folder.glob("*.parquet"):
            names |= set(pd.read_parquet(file).columns)
    return names


def _headers(at: AppTest) -> list[str]:
    """Column headers of every table and axis titles of every chart on the page."""
    out = [str(c) for d in at.dataframe for c in d.value.columns]
    for fig in _figures(at):
        for axis in ("xaxis", "yaxis"):
            out.append(fig["layout"].get(axis, {}).get("title", {}).get("text", ""))
    return out


VISION_PAGES = {
    "leaderboard": (lambda mp: _run("pages/vision/leaderboard.py"), 2, 1),  # no empty left-out
    "model": (lambda mp: _model_page(TWO_MODELS[0]), 3, 2),
    "run": (lambda mp: _signed_in("pages/vision/run.py", mp, "vision_run"), 0, 0),
    "review": (lambda mp: _signed_in("pages/vision/review.py", mp, "review"), 2, 0),
}
"""Each vision page, how it is opened, and at least how many tables and charts it shows."""


@pytest.mark.parametrize("page", sorted(VISION_PAGES))
def test_no_vision_page_shows_a_raw_column_name(fresh, monkeypatch, page):
    _rankable(monkeypatch)
    raw = _raw_names(fresh)
    assert {"used_mib", "latency_ms", "median_ms", "created_utc", "run_id"} <= raw
    open_page, tables, figures = VISION_PAGES[page]
    at = open_page(monkeypatch)
    assert len(at.dataframe) >= tables and len(_figures(at)) >= figures
    shown_raw = [h for h in _headers(at) if h in raw or "_" in h]
    assert not shown_raw, shown_raw


def test_model_page_memory_chart_shows_the_idle_baseline(fresh, monkeypatch):
    runs = _rankable(monkeypatch)
    at = _model_page(TWO_MODELS[0])
    memory = next(f for f in _figures(at) if "Memory trace" in f["layout"]["title"]["text"])
    names = [t["name"] for t in memory["data"]]
    baseline = next(n for n in names if n.startswith("idle baseline "))
    peak = next(n for n in names if n.startswith("peak "))
    reported = runs.loc[runs["adapter"] == TWO_MODELS[0], "memory_peak_mib"].item()
    assert f"reported = peak − baseline = {reported:.1f} MiB" in peak
    line = next(t for t in memory["data"] if t["name"] == baseline)
    assert len(set(_values(line["y"]))) == 1  # a horizontal line
    assert memory["layout"]["xaxis"]["title"]["text"] == "time since start (s)"
    assert memory["layout"]["yaxis"]["title"]["text"] == "memory (MiB)"


def test_model_page_shows_review_marks_beside_each_output(fresh, monkeypatch):
    reviewed = _rankable(monkeypatch)["run_id"].iloc[0]
    outputs = vision.outputs_for_review(db.connect(VERSION), reviewed)
    vision.save_failure_marks(reviewed, outputs.assign(failure=True, note="x"), "octocat")
    at = _model_page(TWO_MODELS[0])
    assert any("reviewed by octocat on " in c.value for c in at.caption)
    table = _frame_with(at, "Reviewed by")
    assert set(table["Reviewed by"]) == {"octocat"} and table["Failure (hand-marked)"].all()


def test_model_page_says_not_reviewed_yet(fresh, monkeypatch):
    _rankable(monkeypatch)  # the second run is never reviewed in this module
    at = _model_page(TWO_MODELS[1])
    assert any(i.value == "Review: not reviewed yet." for i in at.info)
    assert set(_frame_with(at, "Reviewed by")["Reviewed by"]) == {""}


def test_run_page_names_the_pip_command_of_a_missing_extra(fresh, monkeypatch):
    from measure import run_jobs

    monkeypatch.setattr(run_jobs, "other_cpu_percent", lambda seconds=1.0: 0.0)  # a quiet machine
    monkeypatch.setattr(vision, "_installed", lambda name: name != "ai-edge-litert")
    at = _signed_in("pages/vision/run.py", monkeypatch, "vision_run")
    assert not at.warning
    at.selectbox(key="vision_run_adapter").select("blazeface-short").run()
    assert "ai-edge-litert==2.3.0" in at.warning[0].value
    module = sys.modules[registry()["blazeface-short"].__module__]  # registry order kept
    assert [c.value for c in at.code] == [module.LITERT_INSTALL]


def test_a_maintainer_saves_marks_from_the_labelled_editor(fresh, monkeypatch):
    run_id = _rankable(monkeypatch)["run_id"].iloc[0]
    password = "vision-review-test"
    entry = auth.hash_password(password, salt=b"vision-rev-salt1")
    monkeypatch.setenv(auth.ENV_MAINTAINERS, f"maint:{entry}")
    at = _model_page(TWO_MODELS[0])
    at.text_input(key="vision_review_login_name").input("maint")
    at.text_input(key="vision_review_login_password").input(password)
    next(b for b in at.button if b.label == "Sign in").click().run()
    at.button(key="vision_review_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.success[0].value.endswith("as maint")
    stored = pd.read_parquet(fresh / "runs" / "vision_failures" / f"{run_id}.parquet")
    assert set(stored["reviewer"]) == {"maint"}
    assert {"output_index", "input_name", "failure", "note"} <= set(stored.columns)
    from measure import review_trail

    assert review_trail.check(fresh / "runs")[1] == []  # the committed trail vouches for them
    assert review_trail.latest(fresh / "runs")[run_id]["maintainer"] == "maint"
    at = _model_page(TWO_MODELS[0])
    trail = [c.value for c in at.caption if "review trail" in c.value]
    assert trail and trail[0].startswith("Reviewed by maint on ")
    assert "python -m measure audit verify" in trail[0]


def test_model_page_gives_each_accuracy_its_evidence(fresh, monkeypatch):
    _rankable(monkeypatch)
    accuracy = _frame_with(_model_page(TWO_MODELS[0]), "Rests on")
    ours = accuracy[accuracy["Source"] == "ours (measured)"]
    assert set(ours["Rests on"]) == {"5 images, 2 objects (sanity check: under 20 objects)"}
    assert all("–" in t for t in ours["AP50 95% interval"])


def test_vision_pages_show_names_not_adapter_or_task_ids(fresh, monkeypatch):
    """Human names instead of raw ids: the model picker lists display names (the
    URL keeps the id), the task picker task names, the left-out table the model's name."""
    rows = _rankable(monkeypatch)
    at = _model_page(TWO_MODELS[0])
    picker = at.selectbox(key="vision_model_pick")
    assert picker.value == "mtcnn-facenet"  # the id stays the value (and the URL's model=)
    assert "MTCNN (facenet-pytorch weights)" in picker.options
    assert not set(picker.options) & set(adapter_catalog()["adapter"])  # no raw id shown
    runs = _frame_with(at, "Measured (UTC)")
    assert runs["Measured (UTC)"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d").all()
    assert set(runs["Device kind"]) == {"CPU"}
    monkeypatch.setattr(vision, "all_runs", lambda con: rows.assign(protocol_standard=False))
    fresh_caches()
    board = _run("pages/vision/leaderboard.py")  # both runs non-standard: left out, named
    assert board.selectbox(key="vision_lb_task").options[0] == "Face detection"
    assert board.selectbox(key="vision_lb_device").options[0].startswith("CPU: ")
    excluded = _frame_with(board, "Why not ranked")
    assert "Adapter" not in excluded.columns
    assert "MTCNN (facenet-pytorch weights)" in set(excluded["Model"])
    assert not set(excluded["Model"]) & set(adapter_catalog()["adapter"])


def test_vision_tables_have_fixed_decimals_and_charts_a_minimum_height(fresh, monkeypatch):
    """One number of decimals per column, not 55.8031 beside 57.787; charts never a sliver."""
    _rankable(monkeypatch)
    at = _run("pages/vision/leaderboard.py")
    ranking = next(d for d in at.dataframe if "AP (ours)" in d.value.columns)
    config = json.loads(ranking.proto.columns)
    assert config["Median latency (ms, ours)"]["type_config"]["format"] == "localized"
    assert config["AP (ours)"]["type_config"]["step"] == pytest.approx(0.001)  # 3 decimals
    model = _model_page(TWO_MODELS[0])
    for fig in _figures(model):
        assert fig["layout"]["height"] >= 320
    memory = next(f for f in _figures(model) if "Memory trace" in f["layout"]["title"]["text"])
    colours = {t.get("line", {}).get("color") for t in memory["data"]} - {None}
    assert "#444" not in colours  # the baseline lines: visible on the dark theme too


def test_one_left_out_run_is_counted_in_the_singular(fresh, monkeypatch):
    """'1 stored run is left out', never '1 stored runs are'."""
    rows = vision.all_runs(db.connect(VERSION))
    one = rows.iloc[:1].assign(adapter=TWO_MODELS[0], protocol_standard=False)
    monkeypatch.setattr(vision, "all_runs", lambda con: one)
    at = _run("pages/vision/leaderboard.py")
    (info,) = [i.value for i in at.info]
    assert "Nothing is ranked for face detection on CPU: " in info
    assert ": 1 stored run is left out, each with its reason below." in info
