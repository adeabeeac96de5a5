"""Proposed hand-review marks: IoU matching against our ground truth (analytics.vision.review)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analytics.vision import review


def _outputs(rows: list[tuple]) -> pd.DataFrame:
    cols = ["input_name", "output_index", "x", "y", "w", "h", "score", "above_threshold"]
    return pd.DataFrame(rows, columns=cols)


def test_iou_golden() -> None:
    assert review.iou_xywh((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert review.iou_xywh((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(50 / 150)
    assert review.iou_xywh((0, 0, 10, 10), (20, 20, 5, 5)) == 0.0
    assert review.iou_xywh((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0


def test_hit_false_positive_and_miss() -> None:
    truth = {"a.png": [[0, 0, 10, 10]], "b.png": [[50, 50, 20, 20]], "c.png": []}
    outputs = _outputs([
        ("a.png", 0, 1, 0, 10, 10, 0.95, True),    # IoU 9/11 -> hit
        ("a.png", 1, 0, 0, 10, 10, 0.91, True),    # the box is taken -> false positive
        ("b.png", 2, 50, 50, 20, 20, 0.40, False),  # below threshold -> the box is missed
        ("c.png", 3, 5, 5, 5, 5, 0.99, True),      # nothing to find -> false positive
    ])
    marks = review.proposed_marks(outputs, truth).set_index("output_index")
    assert not marks.loc[0, "failure"] and "IoU 0.82" in marks.loc[0, "note"]
    assert marks.loc[1, "failure"] and marks.loc[1, "note"].startswith("false positive")
    assert marks.loc[3, "failure"]
    miss = marks.loc[review.MISS_INDEX]
    assert miss["input_name"] == "b.png" and miss["failure"]
    assert "found below threshold at score 0.40" in miss["note"]
    assert 2 not in marks.index  # below-threshold outputs are not marked themselves


def test_highest_score_claims_the_box_first() -> None:
    truth = {"a.png": [[0, 0, 10, 10]]}
    outputs = _outputs([("a.png", 0, 0, 0, 10, 9, 0.5, True), ("a.png", 1, 0, 0, 10, 8, 0.9, True)])
    marks = review.proposed_marks(outputs, truth).set_index("output_index")
    assert not marks.loc[1, "failure"] and marks.loc[0, "failure"]


def test_ground_truth_reads_coco(tmp_path) -> None:
    coco = {
        "images": [{"id": 1, "file_name": "a.png"}, {"id": 2, "file_name": "b.png"}],
        "annotations": [{"id": 1, "image_id": 1, "bbox": [1, 2, 3, 4], "category_id": 1}],
    }
    path = tmp_path / "gt.json"
    path.write_text(json.dumps(coco))
    assert review.ground_truth(path) == {"a.png": [[1.0, 2.0, 3.0, 4.0]], "b.png": []}


def test_every_shown_run_is_reviewed_by_hand() -> None:
    """Seed 000: every output of a run the vision leaderboard shows carries a hand-review mark
    (the committed data/runs), and every ground-truth miss is recorded as a failure."""
    from analytics.core import db
    from analytics.vision import runs
    from measure.adapters.catalog import adapter_catalog
    from measure.tasks import load_tasks

    con = db.connect()
    catalog, tasks = adapter_catalog(), load_tasks()
    shown = [
        run_id
        for task in tasks
        for device in runs.devices(con)
        for run_id in runs.leaderboard(con, catalog, task, device).ranked.get("run_id", [])
    ]
    assert shown, "no ranked run in data/runs"
    for run_id in shown:
        outputs = runs.outputs_for_review(con, run_id)
        assert (outputs["reviewer"] != "").all(), f"{run_id}: outputs without a review mark"
        task = tasks[runs.all_runs(con).set_index("run_id").loc[run_id, "task"]]
        raw = db.query(con, "SELECT * FROM vision_outputs WHERE run_id = ?", [run_id])
        proposed = review.proposed_marks(raw, review.ground_truth(task.ground_truth))
        misses = proposed[proposed["output_index"] == review.MISS_INDEX]
        stored = outputs[outputs["output_index"] == review.MISS_INDEX]
        assert len(stored) == len(misses), f"{run_id}: missed objects not all recorded"
