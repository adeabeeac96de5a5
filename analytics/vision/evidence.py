"""What each vision accuracy rests on: the images and objects it was scored on and a bootstrap
interval over images. A set with fewer than ``MIN_OBJECTS`` objects gives a sanity check (does
the model find the few faces at all?), not an accuracy to rank or plot: pages show it as such,
never as a chart axis or a Pareto front.

The interval itself is computed by the reference scorer's wrapper (``measure.coco``), which this
module never imports: the page's loader passes it in as ``intervals``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import paths, problems, run_schema, safejson
from analytics.core.hashing import sha256_hex

MIN_OBJECTS = 20
"""Fewest ground-truth objects for an accuracy to be an axis; below it, a sanity check."""
GT_MAX_BYTES = 512 * 2**20  # COCO val2017's instances file is about 450 MiB
RECORD_MAX_BYTES = 256 * 2**20
COLUMNS = ["run_id", "images", "objects", "ap_low", "ap_high", "ap50_low", "ap50_high",
           "sanity_only", "note"]

Intervals = Callable[[dict, list, list], dict]
"""``(ground truth, detections, image ids) -> {"ap": (low, high) | None, "ap50": ...}``."""


def _json(path: Path, limit: int) -> Any:
    return safejson.loads(path.read_bytes(), limit, run_schema.MAX_DEPTH)


def read_accuracy(run_id: str, runs_dir: Path | None = None) -> tuple[dict, dict | None]:
    """The record's accuracy block and its ground truth (None when the file is not here, e.g.
    COCO val2017). ValueError (one problem line) when the record is unreadable or the ground
    truth differs from the file the run was scored on."""
    path = Path(runs_dir or paths.RUNS_DIR) / "records" / f"{run_id}.json"
    fix = "re-run the measurement; records are written by python -m measure run"
    try:
        accuracy = _json(path, RECORD_MAX_BYTES).get("accuracy") or {}
    except (OSError, ValueError, AttributeError) as exc:
        raise ValueError(problems.at(path, None, f"unreadable ({exc})", fix)) from None
    gt_path = paths.REPO_ROOT / str(accuracy.get("ground_truth") or "")
    if not accuracy.get("ground_truth") or not gt_path.is_file():
        return accuracy, None
    data = gt_path.read_bytes()
    if sha256_hex(data) != accuracy.get("ground_truth_sha256"):
        what = f"differs from the ground truth {run_id} was scored on (SHA-256)"
        raise ValueError(problems.at(gt_path, None, what, "re-run the measurement"))
    return accuracy, safejson.loads(data, GT_MAX_BYTES, run_schema.MAX_DEPTH)


def object_count(ground_truth: dict, image_ids: list[int]) -> int:
    """Ground-truth objects (not crowd regions) on ``image_ids``."""
    wanted = set(image_ids)
    return sum(
        1
        for ann in ground_truth.get("annotations", [])
        if ann.get("image_id") in wanted and not ann.get("iscrowd", 0)
    )


def run_evidence(run_id: str, intervals: Intervals, runs_dir: Path | None = None) -> dict:
    """One row of ``COLUMNS`` for one run (counts and intervals; a note when they are unknown)."""
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row["run_id"] = run_id
    try:
        accuracy, gt = read_accuracy(run_id, runs_dir)
    except ValueError as exc:
        return {**row, "note": str(exc)}
    ids = list(accuracy.get("image_ids") or [])
    row["images"] = len(ids) if accuracy else None
    if gt is None:
        row["note"] = "ground truth not in this checkout: no object count or interval"
        return row
    row["objects"] = object_count(gt, ids)
    row["sanity_only"] = row["objects"] < MIN_OBJECTS
    found = intervals(gt, list(accuracy.get("detections") or []), ids)
    for name in ("ap", "ap50"):
        if found.get(name):
            row[f"{name}_low"], row[f"{name}_high"] = found[name]
    return row


def evidence_table(
    run_ids: list[str], intervals: Intervals, runs_dir: Path | None = None
) -> pd.DataFrame:
    """``COLUMNS`` for each run with an accuracy, indexed by nothing (one row per run id)."""
    rows = [run_evidence(r, intervals, runs_dir) for r in dict.fromkeys(run_ids)]
    return pd.DataFrame(rows, columns=COLUMNS)


def interval_text(low: object, high: object) -> str:
    """'0.500–0.800', blank when unknown."""
    if low is None or high is None or pd.isna(low) or pd.isna(high):
        return ""
    return f"{float(low):.3f}–{float(high):.3f}"


def evidence_text(images: object, objects: object, sanity_only: object) -> str:
    """'5 images, 2 objects (sanity check: under 20 objects)'; blank when unknown."""
    if images is None or pd.isna(images):
        return ""
    text = f"{int(images)} image{'s' if int(images) != 1 else ''}"
    if objects is not None and not pd.isna(objects):
        text += f", {int(objects)} object{'s' if int(objects) != 1 else ''}"
    if bool(sanity_only) and sanity_only is not None and not pd.isna(sanity_only):
        text += f" (sanity check: under {MIN_OBJECTS} objects)"
    return text


def sanity_only(evidence: pd.DataFrame) -> bool:
    """Whether these runs' accuracy is only a sanity check, never an axis: some run's set has
    fewer than ``MIN_OBJECTS`` objects (a set whose ground truth is not here, e.g. COCO
    val2017, is not counted)."""
    objects = pd.to_numeric(evidence.get("objects", pd.Series(dtype=float)), errors="coerce")
    return bool((objects.dropna() < MIN_OBJECTS).any())
