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


BOOTSTRAP_RESAMPLES = 200
"""Resamples of the images for an accuracy interval (a percentile bootstrap)."""
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_SEED = 0  # fixed: the same record always gets the same interval


def _resampled(evaluator: Any, draw: list[int]) -> tuple[float, float]:
    """(AP, AP50) of the images at positions ``draw`` (with repeats), from ``evaluator``'s
    per-image matches: COCOeval's own ``accumulate`` over the drawn images' entries, so a
    resample is scored exactly as a set holding those images would be; only the all-areas,
    most-detections setting AP and AP50 read is accumulated. -1 where undefined."""
    import numpy as np

    sample = copy.copy(evaluator)
    ids = [evaluator._paramsEval.imgIds[i] for i in draw]
    n_images = len(evaluator._paramsEval.imgIds)
    per_image = evaluator.evalImgs
    blocks = len(per_image) // n_images  # categories x area ranges, images innermost
    sample.evalImgs = [per_image[b * n_images + i] for b in range(blocks) for i in draw]
    sample._paramsEval = copy.copy(evaluator._paramsEval)
    sample._paramsEval.imgIds = ids
    sample.params = copy.copy(evaluator.params)
    sample.params.imgIds = ids
    sample.params.areaRng = evaluator.params.areaRng[:1]  # "all"
    sample.params.maxDets = evaluator.params.maxDets[-1:]  # 100
    _quiet(sample.accumulate)
    precision = sample.eval["precision"][:, :, :, 0, 0]  # iou x recall x category
    iou50 = precision[int(np.argmin(np.abs(sample.params.iouThrs - 0.5)))]

    def mean(values: Any) -> float:  # COCOeval.summarize's rule: -1 entries are undefined
        kept = values[values > -1]
        return float(np.mean(kept)) if kept.size else -1.0

    return mean(precision), mean(iou50)


def bootstrap_intervals(
    ground_truth: dict[str, Any],
    detections: list[dict],
    image_ids: list[int] | None = None,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, tuple[float, float] | None]:
    """Percentile bootstrap intervals over images of AP and AP50 (Efron & Tibshirani 1993,
    ch. 13): the images are drawn with replacement ``resamples`` times and each draw is scored
    by COCOeval as a set of those images; the interval holds the central ``level`` of the
    scores. A statistic undefined in a draw (no ground truth drawn) is left out of it; None
    when every draw leaves it undefined."""
    import numpy as np
    from pycocotools.cocoeval import COCOeval

    gt = _coco(ground_truth)
    ids = sorted(set(gt.getImgIds()) if image_ids is None else set(image_ids))
    wanted = set(ids)
    dets = [d for d in detections if d["image_id"] in wanted]
    evaluator = COCOeval(gt, _results(gt, dets), "bbox")
    evaluator.params.imgIds = ids
    _quiet(evaluator.evaluate)
    rng = np.random.default_rng(seed)
    scores = np.array(
        [_resampled(evaluator, list(rng.integers(0, len(ids), len(ids)))) for _ in range(resamples)]
    )
    tail = (1 - level) / 2 * 100
    out: dict[str, tuple[float, float] | None] = {}
    for column, name in enumerate(("ap", "ap50")):
        valid = scores[:, column][scores[:, column] >= 0]
        low, high = np.percentile(valid, [tail, 100 - tail]) if len(valid) else (None, None)
        out[name] = None if low is None else (float(low), float(high))
    return out
