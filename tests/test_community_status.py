"""Reproduced/Unverified at the 10% boundary, power-limited, review flags, and the rule that
community numbers never enter our rankings."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.core import db, paths
from analytics.vision import runs as vision
from measure.adapters.catalog import adapter_catalog
from measure.community import inbox, status
from measure.community.auth import Maintainer
from measure.community.validate import call_time_flags, ours_flag, power_flag
from tests.fixtures.community.records import (
    GPU,
    bundle_bytes,
    make_record,
    our_runs_table,
    timed_calls,
)


def _results(*rows: tuple) -> pd.DataFrame:
    """Rows of (github, median_ms[, gpu[, precision[, input_size]]])."""
    defaults = ("", 0.0, GPU, "fp16", "800")
    full = [tuple(r) + defaults[len(r) :] for r in rows]
    frame = pd.DataFrame(full, columns=["github", "median_ms", "gpu", "precision", "input_size"])
    return frame.assign(adapter="fasterrcnn-resnet50-fpn")


def _statuses(*rows: tuple) -> list[str]:
    return list(status.with_status(_results(*rows))["status"])


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (100.0, 110.0, True),  # exactly 10%: inclusive
        (110.0, 100.0, True),  # symmetric
        (1.0, 1.1, True),  # 10% up to float rounding (1.1 - 1.0 = 0.10000000000000009)
        (100.0, 110.0001, False),
        (100.0, 90.0, False),  # 10/90 = 11.1% of the smaller median
        (100.0, 100.0 / 1.1, True),  # exactly 10% of the smaller median, from below
        (0.0, 0.0, False),
    ],
)
def test_agreement_is_relative_to_the_smaller_median(a, b, expected):
    assert status.agree(a, b) is expected


def test_second_contributor_within_10_percent_makes_both_reproduced():
    assert _statuses(("alice", 100.0), ("bob", 110.0)) == ["Reproduced"] * 2
    assert _statuses(("alice", 100.0), ("bob", 110.0001)) == ["Unverified"] * 2
    assert _statuses(("alice", 100.0)) == ["Unverified"]


def test_the_same_contributor_twice_is_not_a_reproduction():
    assert _statuses(("alice", 100.0), ("Alice", 100.0)) == ["Unverified"] * 2


@pytest.mark.parametrize(
    "other",
    [
        ("bob", 100.0, "NVIDIA GeForce RTX 3090"),
        ("bob", 100.0, GPU, "fp32"),
        ("bob", 100.0, GPU, "fp16", "640x640"),
    ],
    ids=["other-gpu", "other-precision", "other-input-size"],
)
def test_only_the_same_gpu_precision_and_input_size_count(other):
    assert _statuses(("alice", 100.0), other) == ["Unverified"] * 2


def test_reproduced_by_names_the_confirming_contributors():
    out = status.with_status(_results(("alice", 100.0), ("bob", 120.0), ("carol", 109.0)))
    assert list(out["status"]) == ["Reproduced", "Unverified", "Reproduced"]
    assert list(out["reproduced_by"]) == ["carol", "", "alice"]


@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.floats(1.0, 200.0)), min_size=1, max_size=6
    ),
    st.randoms(),
)
def test_status_does_not_depend_on_row_order(rows, rng):
    frame = _results(*rows)
    shuffled = frame.sample(frac=1.0, random_state=rng.randint(0, 2**31))
    expected = status.with_status(frame)["status"]
    assert status.with_status(shuffled)["status"].sort_index().tolist() == expected.tolist()


@pytest.mark.parametrize(
    ("limit_w", "default_w", "flag", "expected"),
    [
        (450.0, 450.0, "no", False),
        (449.99, 450.0, "yes", True),
        (300, 450, "yes", True),
        (None, None, "unknown", None),
        (None, None, "yes", True),
    ],
)
def test_power_limited_is_below_the_default_limit(limit_w, default_w, flag, expected):
    env = {"power_limit_w": limit_w, "default_power_limit_w": default_w, "power_limited": flag}
    assert status.power_limited(env) is expected
    assert [f.code for f in power_flag(env)] == (["power-limited"] if expected else [])


def _runs(*calls: list[float]) -> list[dict]:
    return [{"calls_ms": list(c)} for c in calls]


def test_call_time_flags_at_their_boundaries():
    spread = [10.0 + 0.01 * i for i in range(100)]
    assert call_time_flags(_runs(spread, spread, spread)) == []
    assert call_time_flags(_runs([0.1, *spread[1:]], spread, spread)) == []  # the floor itself
    [flag] = call_time_flags(_runs([0.0999, *spread[1:]], spread, spread))
    assert flag.code == "below-floor" and "0.0999 ms" in flag.message
    [flag] = call_time_flags(_runs([0.0, *spread[1:]], spread, spread))
    assert flag.code == "impossible-calls"
    # 30 of 300 identical = 10%: allowed; 31 = 10.3%: flagged
    thirty = [5.0] * 10 + spread[10:]
    assert call_time_flags(_runs(thirty, thirty, thirty)) == []
    more = [5.0] * 11 + spread[11:]
    assert [f.code for f in call_time_flags(_runs(more, thirty, thirty))] == ["identical-values"]
    codes = [f.code for f in call_time_flags(_runs([7.0] * 100, spread, spread))]
    assert codes == ["zero-variance", "identical-values"]


@pytest.mark.parametrize(
    ("theirs", "flagged"),
    [(15.0, False), (15.0001, True), (10.0 / 1.5, False), (6.6, True), (10.0, False)],
)
def test_far_from_ours_flags_beyond_1_5x_either_way(theirs, flagged):
    flags = ours_flag({"median_ms": theirs}, {"median_ms": 10.0})
    assert [f.code for f in flags] == (["far-from-ours"] if flagged else [])
    assert ours_flag({"median_ms": theirs}, None) == []


# --- end to end: inbox -> community_results -> model page table; rankings ignore it -----------


def _scaled(factor: float, seed: int, **kw) -> dict:
    return make_record(
        calls=[[c * factor for c in run] for run in timed_calls(20.0, 0)], seed=seed, **kw
    )


@pytest.fixture()
def accepted(tmp_path, monkeypatch):
    """Ours ~20 ms; alice ~20 ms, bob exactly 1.10x alice, carol power-limited; all accepted."""
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    ours = make_record(seed=100)
    our_runs_table(runs, ours)
    sent = [
        (_scaled(1.0, 1), "alice"),
        (_scaled(1.10, 2), "bob"),
        (
            _scaled(
                1.0, 3, gpu="NVIDIA RTX A6000", power_limit_w=250.0, default_power_limit_w=300.0
            ),
            "carol",
        ),
    ]
    for record, github in sent:
        entry = inbox.add(bundle_bytes(record, github), f"{github}.zip", root, runs)
        inbox.accept(entry["id"], Maintainer("maint"), root, runs)
    return runs, ours, [r for r, _ in sent]


def test_model_page_table_shows_status_gpu_name_and_date(accepted):
    runs, _, sent = accepted
    assert sent[1]["median_ms"] == pytest.approx(1.10 * sent[0]["median_ms"], rel=1e-12)
    table = status.community_table(
        "fasterrcnn-resnet50-fpn", runs, runs.parent / "inbox"
    ).set_index("contributor")
    assert table.loc["alice", "status"] == table.loc["bob", "status"] == "Reproduced"
    assert table.loc["carol", "status"] == "Unverified"
    assert table.loc["carol", "power"] == "power-limited" and table.loc["alice", "power"] == ""
    assert table.loc["carol", "GPU"] == "NVIDIA RTX A6000"
    assert table.loc["bob", "date"] == "2026-11-20"
    assert table.loc["bob", "profile"] == "https://github.com/bob"
    assert status.community_table("detr-resnet50", runs, runs.parent / "inbox").empty


def test_rankings_use_only_our_measurements(accepted, tmp_path):
    runs, ours, sent = accepted
    snapshot = tmp_path / "snapshots" / "v-test"
    snapshot.mkdir(parents=True)
    (snapshot / "MANIFEST.json").write_text(json.dumps({"version": "v-test"}))
    con = db.connect("v-test", snapshots_dir=tmp_path / "snapshots", runs_dir=runs)
    assert db.has_table(con, "community_results")  # the community rows are in the store ...
    assert len(db.query(con, "SELECT * FROM community_results")) == 3
    assert vision.all_runs(con)["run_id"].tolist() == [ours["run_id"]]  # ... but not in ours
    board = vision.leaderboard(con, adapter_catalog(), "object-detection", f"gpu: {GPU}")
    assert board.ranked["run_id"].tolist() == [ours["run_id"]]
    assert board.ranked["median_ms"].tolist() == [pytest.approx(ours["median_ms"])]
    community_ids = {r["run_id"] for r in sent}
    assert not community_ids & (set(board.ranked["run_id"]) | set(board.excluded["run_id"]))
