"""Help for the hand review of a run's outputs (seed 000: "We look at every output and mark the
failures by hand").

The reviewer looks at every output on an overlay sheet (``scripts/review_sheet.py``). To make that
quicker, :func:`proposed_marks` matches each detection above the task threshold against our
hand-made ground truth and proposes a mark with a reason; the reviewer checks each proposal by eye
and may change it before it is stored. A missed ground-truth object has no output row, so it gets
a mark of its own with ``output_index`` = :data:`MISS_INDEX`.
Never imports streamlit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analytics.vision.runs import MISS_INDEX

IOU_MATCH = 0.5  # the COCO AP50 match rule: a detection counts when IoU >= 0.5

MARK_COLUMNS = ("output_index", "input_name", "failure", "note")


def iou_xywh(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two [x, y, width, height] boxes (0 when either is empty)."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    ih = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def ground_truth(gt_path: Path) -> dict[str, list[list[float]]]:
    """file name -> ground-truth boxes [x, y, w, h] from a COCO-format file."""
    coco = json.loads(Path(gt_path).read_text(encoding="utf-8"))
    names = {img["id"]: img["file_name"] for img in coco["images"]}
    boxes: dict[str, list[list[float]]] = {name: [] for name in names.values()}
    for ann in coco["annotations"]:
        boxes[names[ann["image_id"]]].append([float(v) for v in ann["bbox"]])
    return boxes


def _fmt(box: list[float]) -> str:
    return "[" + ", ".join(f"{v:.0f}" for v in box) + "]"


def proposed_marks(outputs: pd.DataFrame, truth: dict[str, list[list[float]]]) -> pd.DataFrame:
    """One proposed mark per detection above threshold, plus one per missed ground-truth box.

    Detections are matched greedily, highest score first, to the unmatched ground-truth box of the
    same image with the highest IoU >= :data:`IOU_MATCH` (COCO's rule). A detection that matches
    nothing is a false positive; a ground-truth box nothing matched is a miss.
    """
    above = outputs["above_threshold"] if "above_threshold" in outputs else True
    shown, below = outputs[above], outputs[~above] if "above_threshold" in outputs else outputs[:0]
    rows: list[dict] = []
    for name, boxes in truth.items():
        dets = shown[shown["input_name"] == name].sort_values(
            ["score", "output_index"], ascending=[False, True]
        )
        free = list(range(len(boxes)))
        for det in dets.itertuples():
            box = (det.x, det.y, det.w, det.h)
            scored = [(iou_xywh(box, boxes[k]), k) for k in free]
            best_iou, best = max(scored, default=(0.0, -1))
            if best_iou >= IOU_MATCH:
                free.remove(best)
                note = f"matches ground-truth box {_fmt(boxes[best])} (IoU {best_iou:.2f})"
                rows.append(_mark(det.output_index, name, False, note))
            else:
                note = (
                    f"false positive: no ground-truth box with IoU >= {IOU_MATCH}"
                    f" (best {best_iou:.2f}, score {det.score:.2f})"
                )
                rows.append(_mark(det.output_index, name, True, note))
        for k in free:
            note = f"missed: ground-truth box {_fmt(boxes[k])} has no detection above threshold"
            rows.append(_mark(MISS_INDEX, name, True, note + _below(below, name, boxes[k])))
    return pd.DataFrame(rows, columns=list(MARK_COLUMNS))


def _below(below: pd.DataFrame, name: str, box: list[float]) -> str:
    """', found below threshold at score S' when a below-threshold detection matches the box."""
    here = below[below["input_name"] == name]
    hits = [
        det.score for det in here.itertuples()
        if iou_xywh((det.x, det.y, det.w, det.h), tuple(box)) >= IOU_MATCH
    ]
    return f" (found below threshold at score {max(hits):.2f})" if hits else ""


def _mark(index: int, name: str, failure: bool, note: str) -> dict:
    return {"output_index": int(index), "input_name": name, "failure": failure, "note": note}
