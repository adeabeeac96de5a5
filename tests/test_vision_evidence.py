"""What each vision accuracy rests on: image and object counts, a bootstrap interval over
images scored by COCOeval itself, and the object floor below which accuracy is no axis."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from analytics.core import paths
from analytics.core.axes import log_ticks
from analytics.vision import evidence
from analytics.vision import runs as vision
from measure import coco

RECORDS = sorted((paths.REPO_ROOT / "data/runs/records").glob("*.json"))


def _accuracy(path):
    accuracy = json.loads(path.read_text())["accuracy"]
    return accuracy, coco.load_ground_truth(paths.REPO_ROOT / accuracy["ground_truth"])


@pytest.mark.parametrize("path", RECORDS[::6], ids=lambda p: p.stem)
def test_a_resample_of_every_image_once_scores_as_the_set_does(path):
    """The bootstrap scores each draw with COCOeval's own accumulation: drawing each image once
    reproduces the record's AP and AP50 exactly."""
    from pycocotools.cocoeval import COCOeval

    accuracy, gt = _accuracy(path)
    ids = sorted(accuracy["image_ids"])
    scored = coco._coco(gt)
    evaluator = COCOeval(scored, coco._results(scored, accuracy["detections"]), "bbox")
    evaluator.params.imgIds = ids
    coco._quiet(evaluator.evaluate)
    ap, ap50 = coco._resampled(evaluator, list(range(len(ids))))
    assert (ap, ap50) == (accuracy["stats"]["ap"], accuracy["stats"]["ap50"])


def test_intervals_are_reproducible_and_within_zero_and_one():
    accuracy, gt = _accuracy(RECORDS[-1])
    args = (gt, accuracy["detections"], accuracy["image_ids"])
    first = coco.bootstrap_intervals(*args, resamples=50)
    assert first == coco.bootstrap_intervals(*args, resamples=50)  # fixed seed
    for low, high in first.values():
        assert 0.0 <= low <= high <= 1.0


def test_one_image_drawn_every_time_gives_a_single_point():
    accuracy, gt = _accuracy(RECORDS[-1])
    one = [accuracy["image_ids"][0]]
    found = coco.bootstrap_intervals(gt, accuracy["detections"], one, resamples=5)
    alone = coco.evaluate(gt, accuracy["detections"], one)
    assert found["ap50"] == (alone["ap50"], alone["ap50"])


def test_committed_face_runs_rest_on_five_images_and_two_faces():
    face = next(p for p in RECORDS if p.stem.startswith("yunet"))
    row = evidence.run_evidence(face.stem, lambda gt, d, i: {"ap": (0.1, 0.2), "ap50": None},
                                paths.REPO_ROOT / "data/runs")
    assert (row["images"], row["objects"], row["sanity_only"]) == (5, 2, True)
    assert (row["ap_low"], row["ap_high"], row["ap50_low"]) == (0.1, 0.2, None)
    assert (
        evidence.evidence_text(5, 2, True) == "5 images, 2 objects (sanity check: under 20 objects)"
    )


def test_an_edited_ground_truth_gives_no_interval(tmp_path):
    face = next(p for p in RECORDS if p.stem.startswith("yunet"))
    record = json.loads(face.read_text())
    record["accuracy"]["ground_truth_sha256"] = "0" * 64
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / face.name).write_text(json.dumps(record))
    row = evidence.run_evidence(face.stem, lambda *a: {}, tmp_path)
    assert row["images"] is None and "differs from the ground truth" in row["note"]


def test_the_floor_counts_only_known_object_counts():
    assert evidence.sanity_only(pd.DataFrame({"objects": [2, 40]}))
    assert not evidence.sanity_only(pd.DataFrame({"objects": [20, 40]}))
    assert not evidence.sanity_only(pd.DataFrame({"objects": [None]}))  # COCO val2017 not here


def test_log_ticks_are_labelled_with_their_unit():
    ticks = log_ticks([3.2, 140.0, None, -1, float("nan")], lambda v: f"{v:g} ms")
    assert ticks["tickvals"][0] <= 3.2 and ticks["tickvals"][-1] >= 140.0
    assert "10 ms" in ticks["ticktext"] and "100 ms" in ticks["ticktext"]
    assert all(t.endswith(" ms") for t in ticks["ticktext"])
    close = log_ticks([242.1, 296.8], lambda v: f"{v:g} ms")  # no 1-2-5 tick between them
    assert close["ticktext"] == ["200 ms", "500 ms"]
    low, high = close["range"]
    assert low < math.log10(200) < math.log10(242.1) and math.log10(296.8) < math.log10(500) < high


def test_no_author_figure_is_a_blank_cell():
    row = pd.Series({"paper_value": None, "paper_metric": "", "paper_benchmark": ""})
    assert vision._paper_label(row) == ""
