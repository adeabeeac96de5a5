"""Pure parts of the vision pages: Pareto front, chart builders, memory baseline, extras, labels."""

from __future__ import annotations

import json
import math
import sys

import pandas as pd
import pytest

from analytics.vision import charts
from analytics.vision import runs as vision
from measure.adapters import registry


def _install(adapter: str, name: str) -> str:
    """An adapter module's install line (through the registry, so its order is unchanged)."""
    return getattr(sys.modules[registry()[adapter].__module__], name)


NAN = math.nan


def test_pareto_front_golden_case_with_ties_and_missing_values():
    latency = pd.Series([10, 20, 20, 30, 40, 15, NAN, 50, 10], index=list("abcdefghi"))
    ap = pd.Series([0.5, 0.7, 0.6, 0.7, 0.9, 0.5, 0.99, NAN, 0.5], index=list("abcdefghi"))
    front = vision.pareto_front(latency, ap)
    assert front.index.tolist() == list("abcdefghi")
    # a: fastest; b: best AP at 20 ms; c: b is as fast and better (latency tie); d: b is faster
    # and as good (AP tie); e: most accurate; f: a is faster and as good; g, h: a value missing;
    # i: identical to a, so both stay on the front
    assert front.tolist() == [True, True, False, False, True, False, False, False, True]


def test_pareto_front_edge_cases():
    assert vision.pareto_front(pd.Series([], dtype=float), pd.Series([], dtype=float)).empty
    assert vision.pareto_front(pd.Series([5.0]), pd.Series([0.1])).tolist() == [True]
    assert vision.pareto_front(pd.Series([5.0]), pd.Series([NAN])).tolist() == [False]


def _ranked(rows: list[tuple]) -> pd.DataFrame:
    cols = ["display_name", "median_ms", "p90_ms", "ap", "ap50", "memory_peak_mib",
            "memory_kind", "licence_verdict", "accuracy_benchmark"]
    return pd.DataFrame(rows, columns=cols)


BENCH = "Atlas CC0 faces (5 images, hand-labelled)"


def _board(rows: list[tuple]) -> vision.Leaderboard:
    return vision.Leaderboard("face-detection", "cpu: X", _ranked(rows), pd.DataFrame())


def test_pareto_figure_draws_the_front_as_a_step_line_with_hover():
    board = _board(
        [
            ("Slow good", 90.0, 99.0, 0.8, 0.95, 300.0, "ram", "permissive (MIT)", BENCH),
            ("Fast", 10.0, 12.0, 0.5, 0.9, 20.0, "ram", "permissive (MIT)", BENCH),
            ("Dominated", 50.0, 60.0, 0.4, 0.7, 40.0, "ram", "research-only (NC)", BENCH),
            ("No AP", 5.0, 6.0, NAN, NAN, 10.0, "ram", "permissive (MIT)", BENCH),
        ]
    )
    fig = charts.pareto_figure(board)
    front = next(t for t in fig.data if t.name == charts.FRONT_NAME)
    others = next(t for t in fig.data if t.name != charts.FRONT_NAME)
    assert list(front.x) == [10.0, 90.0] and list(front.y) == [0.5, 0.8]
    assert front.line.shape == "hv" and "markers" in front.mode
    assert list(others.x) == [50.0]  # "No AP" is not plotted
    assert fig.layout.xaxis.type == "log"
    assert "our set, not a standard benchmark" in fig.layout.title.text
    hover = front.hovertext[0]
    for part in ("Fast", "median 10.0 ms", "p90 12.0 ms", "AP 0.500", "AP50 0.900",
                 "memory peak 20.0 MiB (RAM)", "permissive (MIT)"):
        assert part in hover


def test_pareto_figure_of_an_empty_board_and_a_standard_benchmark():
    empty = charts.pareto_figure(vision.Leaderboard("t", "d", pd.DataFrame(), pd.DataFrame()))
    assert not empty.data and empty.layout.title.text == charts.EMPTY_TITLE
    coco = _board([("A", 10.0, 11.0, 0.3, 0.5, 900.0, "vram", "permissive", "COCO val2017")])
    fig = charts.pareto_figure(coco)
    assert "VRAM" in fig.data[-1].hovertext[0]
    assert fig.layout.yaxis.title.text == "AP on COCO val2017 (ours, standard benchmark)"


def _record(tmp_path, runs: list[dict]) -> str:
    run_id = "demo-cpu-20260101T000000Z-abcdef"
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / f"{run_id}.json").write_text(json.dumps({"run_id": run_id, "runs": runs}))
    return run_id


def test_memory_baselines_come_from_the_record_and_the_chart_draws_them(tmp_path):
    mem = [
        {"kind": "ram", "baseline_mib": 40.0, "used_mib": [40.0, 55.0, 50.0], "t_s": [0, 1, 2]},
        {"kind": "ram", "baseline_mib": 30.0, "used_mib": [31.0, 52.0], "t_s": [0, 1]},
    ]
    run_id = _record(tmp_path, [{"memory": m} for m in mem])
    baselines = vision.memory_baselines(run_id, tmp_path)
    assert baselines["above_baseline_mib"].tolist() == [15.0, 22.0]
    samples = pd.DataFrame(
        [
            (i, t, u, "ram")
            for i, m in enumerate(mem)
            for t, u in zip(m["t_s"], m["used_mib"], strict=True)
        ],
        columns=["run_index", "t_s", "used_mib", "kind"],
    )
    fig = charts.memory_figure(samples, baselines)
    names = [t.name for t in fig.data]
    assert names[:2] == ["run 1 (RAM)", "run 2 (RAM)"]
    assert "idle baseline 30.0 MiB (run 2)" in names
    assert "peak 52.0 MiB, reported = peak − baseline = 22.0 MiB (run 2)" in names
    line = next(t for t in fig.data if t.name.startswith("idle baseline"))
    assert list(line.y) == [30.0, 30.0] and list(line.x) == [0.0, 2.0]
    assert fig.layout.xaxis.title.text == "time since start (s)"
    assert fig.layout.yaxis.title.text == "memory (MiB)"
    without = charts.memory_figure(samples, vision.memory_baselines("missing-run", tmp_path))
    assert [t.name for t in without.data] == ["run 1 (RAM)", "run 2 (RAM)"]


def test_an_unreadable_record_is_one_problem_line(tmp_path):
    run_id = _record(tmp_path, [{"memory": {"kind": "ram", "used_mib": [1.0]}}])
    with pytest.raises(ValueError, match=r"records/.*json: memory baseline unreadable.*; fix: "):
        vision.memory_baselines(run_id, tmp_path)


def test_latency_histogram_has_human_axis_titles():
    calls = pd.DataFrame({"run_index": [0, 0, 1], "latency_ms": [1.0, 2.0, 1.5]})
    fig = charts.latency_histogram(calls)
    assert [t.name for t in fig.data] == ["run 1", "run 2"]
    assert fig.layout.xaxis.title.text == "latency per predict() call (ms)"
    assert fig.layout.yaxis.title.text == "number of calls"


def test_missing_extras_use_the_adapters_own_install_lines():
    requires = ("facenet-pytorch==2.6.0 (--no-deps)", "torchvision", "odd-pkg==1.0 (--no-deps)",
                "present==1")
    torchvision_line = _install("fasterrcnn-resnet50-fpn", "INSTALL")
    lines = ["pip install --no-deps facenet-pytorch==2.6.0", torchvision_line]
    missing = vision.missing_extras(requires, lines, installed=lambda name: name == "present")
    assert missing == [
        ("facenet-pytorch==2.6.0 (--no-deps)", "pip install --no-deps facenet-pytorch==2.6.0"),
        ("torchvision", torchvision_line),
        ("odd-pkg==1.0 (--no-deps)", "pip install --no-deps odd-pkg==1.0"),
    ]


def test_missing_extras_of_registered_adapters(monkeypatch):
    from ui import vision as loaders

    monkeypatch.setattr(vision, "_installed", lambda name: name != "ai-edge-litert")
    assert loaders.missing_extras("blazeface-short") == [
        ("ai-edge-litert==2.3.0", _install("blazeface-short", "LITERT_INSTALL"))
    ]
    monkeypatch.setattr(vision, "_installed", lambda name: False)
    assert [c for _, c in loaders.missing_extras("ppocrv6-det-small")] == [
        _install("ppocrv6-det-small", "INSTALL")
    ] * 2
    assert loaders.missing_extras("not-an-adapter") == []


def test_labelled_tables_keep_a_header_row_and_never_raw_names():
    empty = vision.labelled(pd.DataFrame(), vision.EXCLUDED_COLUMNS)
    assert list(empty.columns) == ["Adapter", "Measured (UTC)", "Median latency (ms)",
                                   "Why not ranked", "Run ID"]
    assert vision.raw_name("Why not ranked") == "why_not_ranked"
    assert all("_" not in label for label in vision.COLUMN_LABELS.values())


def test_review_state_names_the_reviewer_and_date():
    outputs = pd.DataFrame({"failure": [False, False], "reviewer": ["", ""],
                            "reviewed_utc": ["", ""]})
    assert vision.review_state(outputs) == "not reviewed yet"
    done = outputs.assign(failure=[True, False], reviewer="octocat",
                          reviewed_utc="2026-12-01T10:00:00+00:00")
    assert vision.review_state(done) == (
        "reviewed by octocat on 2026-12-01: 1 of 2 detections marked failures"
    )
    missed = pd.concat([done.assign(output_index=[0, 1]), done.assign(output_index=[-1, -1])])
    state = vision.review_state(missed)
    assert state.endswith("1 of 2 detections marked failures, 2 missed objects")


def test_a_single_ranked_model_is_the_whole_front():
    board = _board([("Only", 30.0, 40.0, 0.6, 0.9, 50.0, "ram", "permissive (MIT)", BENCH)])
    fig = charts.pareto_figure(board)
    assert [t.name for t in fig.data] == [charts.FRONT_NAME]
    assert list(fig.data[0].x) == [30.0] and list(fig.data[0].text) == ["Only"]
