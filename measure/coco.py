"""COCO-style box accuracy with the reference scorer (pycocotools ``COCOeval``, bbox).

Reference settings: IoU thresholds .50:.05:.95, area ranges all/small/medium/large and
maxDets 1/10/100, all detections ranked by score (no score threshold; seed 000, section 05).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any

STAT_NAMES = (
    "ap",
    "ap50",
    "ap75",
    "ap_small",
    "ap_medium",
    "ap_large",
    "ar1",
    "ar10",
    "ar100",
    "ar_small",
    "ar_medium",
    "ar_large",
)
"""The twelve numbers ``COCOeval.summarize`` prints, in its order."""

COCO80_TO_91 = (
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27,
    28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 46, 47, 48, 49, 50, 51, 52, 53,
    54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 67, 70, 72, 73, 74, 75, 76, 77, 78, 79, 80,
    81, 82, 84, 85, 86, 87, 88, 89, 90,
)
"""COCO category id for each of the 80 contiguous training labels (index 0..79)."""


def load_ground_truth(path: Path) -> dict[str, Any]:
    """A COCO annotation file, checked for the keys the scorer needs."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not readable COCO JSON ({exc}); fix the file") from None
    for key in ("images", "annotations", "categories"):
        if not isinstance(data.get(key), list):
            raise ValueError(f"{path}: missing list {key!r}; fix: add it (COCO format)")
    for i, ann in enumerate(data["annotations"]):
        bbox = ann.get("bbox")
        if not (isinstance(bbox, list) and len(bbox) == 4 and bbox[2] >= 0 and bbox[3] >= 0):
            raise ValueError(f"{path}: annotations[{i}] bbox {bbox!r} is not [x, y, w, h]")
        for key in ("id", "image_id", "category_id"):
            if key not in ann:
                raise ValueError(f"{path}: annotations[{i}] lacks {key!r}; fix: add it")
    return data


def remap_contiguous(detections: list[dict]) -> list[dict]:
    """Copies of detections whose ``category_id`` is a 0..79 label, mapped to COCO ids."""
    return [{**d, "category_id": COCO80_TO_91[int(d["category_id"])]} for d in detections]


def _quiet(fn: Any, *args: Any) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args)


def _coco(dataset: dict[str, Any]) -> Any:
    from pycocotools.coco import COCO

    coco = COCO()
    coco.dataset = copy.deepcopy(dataset)
    for ann in coco.dataset.get("annotations", []):
        ann.setdefault("iscrowd", 0)
        ann.setdefault("area", ann["bbox"][2] * ann["bbox"][3])
    _quiet(coco.createIndex)
    return coco


def _results(gt: Any, detections: list[dict]) -> Any:
    if detections:
        return _quiet(gt.loadRes, copy.deepcopy(detections))
    empty = {"images": gt.dataset["images"], "categories": gt.dataset["categories"]}
    return _coco({**empty, "annotations": []})


def evaluate(
    ground_truth: dict[str, Any],
    detections: list[dict],
    image_ids: list[int] | None = None,
) -> dict[str, float | None]:
    """The twelve COCOeval bbox statistics; ``None`` where undefined (no ground truth).

    ``detections`` are COCO result dicts (``image_id``, ``category_id``, ``bbox``, ``score``).
    ``image_ids`` restricts scoring to a subset; no detections at all scores 0 where there is
    ground truth.
    """
    from pycocotools.cocoeval import COCOeval

    gt = _coco(ground_truth)
    known = set(gt.getImgIds())
    ids = sorted(known if image_ids is None else set(image_ids))
    missing = set(ids) - known
    if missing:
        raise ValueError(f"image ids {sorted(missing)[:5]} are not in the ground truth")
    wanted = set(ids)
    dets = [d for d in detections if d["image_id"] in wanted]
    evaluator = COCOeval(gt, _results(gt, dets), "bbox")
    evaluator.params.imgIds = ids
    _quiet(evaluator.evaluate)
    _quiet(evaluator.accumulate)
    _quiet(evaluator.summarize)
    return {
        name: (None if value < 0 else float(value))
        for name, value in zip(STAT_NAMES, evaluator.stats, strict=True)
    }
