"""COCO box scoring: golden cases, empty detections, image subsets, the 80->91 id mapping."""

from __future__ import annotations

import contextlib
import io

import pytest
from pycocotools.coco import COCO
from pycocotools.cocoeval import COCOeval

from measure.coco import COCO80_TO_91, evaluate, load_ground_truth, remap_contiguous


def _gt() -> dict:
    images = [{"id": i, "file_name": f"{i}.png", "width": 640, "height": 480} for i in (1, 2, 3)]
    anns = [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [100, 100, 120, 150]},
        {"id": 2, "image_id": 2, "category_id": 1, "bbox": [300, 200, 100, 100]},
        {"id": 3, "image_id": 3, "category_id": 18, "bbox": [10, 20, 200, 160]},
    ]
    cats = [{"id": 1, "name": "person"}, {"id": 18, "name": "dog"}]
    return {"images": images, "annotations": anns, "categories": cats}


def _perfect(gt: dict) -> list[dict]:
    return [
        {
            "image_id": a["image_id"],
            "category_id": a["category_id"],
            "bbox": a["bbox"],
            "score": 0.9,
        }
        for a in gt["annotations"]
    ]


def test_perfect_detections_score_one():
    stats = evaluate(_gt(), _perfect(_gt()))
    assert stats["ap"] == pytest.approx(1.0) and stats["ap50"] == pytest.approx(1.0)
    assert stats["ar100"] == pytest.approx(1.0)
    assert stats["ap_small"] is None  # no small objects: undefined, not zero


def test_no_detections_score_zero():
    stats = evaluate(_gt(), [])
    assert stats["ap"] == 0.0 and stats["ar100"] == 0.0


def test_hand_computed_precision_recall():
    # person: a false positive (0.95) ranked above the one true positive (0.90); the other
    # person is missed. Precision 0.5 up to recall 0.5, then 0: AP = 51 * 0.5 / 101 on the
    # 101-point recall grid. The dog is found exactly: AP 1. Mean over the two classes.
    gt = _gt()
    dets = [
        {"image_id": 2, "category_id": 1, "bbox": [0, 0, 50, 50], "score": 0.95},
        {"image_id": 1, "category_id": 1, "bbox": [100, 100, 120, 150], "score": 0.90},
        {"image_id": 3, "category_id": 18, "bbox": [10, 20, 200, 160], "score": 0.80},
    ]
    assert evaluate(gt, dets)["ap"] == pytest.approx((51 * 0.5 / 101 + 1.0) / 2)


def test_image_subset_ignores_other_images():
    gt = _gt()
    dets = [d for d in _perfect(gt) if d["image_id"] == 1]
    assert evaluate(gt, dets, image_ids=[1])["ap"] == pytest.approx(1.0)
    assert evaluate(gt, dets)["ap"] < 1.0
    with pytest.raises(ValueError, match="not in the ground truth"):
        evaluate(gt, dets, image_ids=[99])


def test_matches_pycocotools_used_directly():
    gt = _gt()
    dets = [{**d, "bbox": [v + 7 for v in d["bbox"]]} for d in _perfect(gt)]
    coco = COCO()
    coco.dataset = {
        **gt,
        "annotations": [
            {**a, "iscrowd": 0, "area": a["bbox"][2] * a["bbox"][3]} for a in gt["annotations"]
        ],
    }
    with contextlib.redirect_stdout(io.StringIO()):
        coco.createIndex()
        ev = COCOeval(coco, coco.loadRes(dets), "bbox")
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    assert evaluate(gt, dets)["ap"] == pytest.approx(ev.stats[0])


def test_80_to_91_mapping():
    assert len(COCO80_TO_91) == 80 and len(set(COCO80_TO_91)) == 80
    assert COCO80_TO_91[0] == 1 and COCO80_TO_91[16] == 18 and COCO80_TO_91[79] == 90
    missing = sorted(set(range(1, 91)) - set(COCO80_TO_91))
    assert missing == [12, 26, 29, 30, 45, 66, 68, 69, 71, 83]
    dets = [{"image_id": 3, "category_id": 16, "bbox": [10, 20, 200, 160], "score": 1.0}]
    assert evaluate(_gt(), remap_contiguous(dets), image_ids=[3])["ap"] == pytest.approx(1.0)


def test_malformed_ground_truth_names_the_row(tmp_path):
    bad = tmp_path / "gt.json"
    bad.write_text('{"images": [], "categories": [], "annotations": [{"id": 1, "bbox": [1, 2]}]}')
    with pytest.raises(ValueError, match=r"gt.json: annotations\[0\] bbox"):
        load_ground_truth(bad)
