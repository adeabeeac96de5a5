"""PP-OCRv6 small text detector (DBNet) through RapidOCR 3.10.0 and onnxruntime.

The ONNX file ``rapidocr/models/PP-OCRv6_det_small.onnx`` ships in the rapidocr wheel (Apache-2.0,
see its ``MODEL_LICENSES.md``). The adapter runs RapidOCR's own pipeline with detection only
(``use_cls=False, use_rec=False``: resizing, DB post-processing, mapping back to the original
image) and turns each text quadrilateral into its axis-aligned box, category 1 ("text").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from measure.adapters import register
from measure.adapters.base import Adapter, AdapterInfo, PaperScore, WeightsInfo, load_image, require
from measure.adapters.packaged import READ_ON, clipped_detections, package_file

INSTALL = "pip install rapidocr==3.10.0 onnxruntime==1.32.0"
MODEL_FILE = "models/PP-OCRv6_det_small.onnx"
PARAMS = {
    "Global.use_cls": False,
    "Global.use_rec": False,
    "Global.log_level": "critical",
}


def quads_to_xyxy(quads: np.ndarray) -> np.ndarray:
    """Axis-aligned corner boxes enclosing each 4-point polygon (rows of 4 x 2 points)."""
    quads = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    return np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)


@register
class PPOCRTextDetector(Adapter):
    """PP-OCRv6 small DBNet text detector (RapidOCR's ONNX conversion)."""

    name = "ppocrv6-det-small"
    task = "text-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="PP-OCRv6 small text detector (RapidOCR, onnxruntime)",
        code_repo="https://github.com/RapidAI/RapidOCR",
        code_licence="Apache-2.0",
        code_licence_url="https://github.com/RapidAI/RapidOCR/blob/main/LICENSE",
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="PP-OCRv6_det_small.onnx (rapidocr 3.10.0)",
                licence="Apache-2.0",
                licence_url="https://huggingface.co/PaddlePaddle/PP-OCRv6_small_det_onnx",
                read_on=READ_ON,
                source_url="https://pypi.org/project/rapidocr/3.10.0/",
                file_name="PP-OCRv6_det_small.onnx",
            ),
        ),
        default_input_size="shorter side resized to 736 px (RapidOCR detector side limit, min)",
        paper=PaperScore(
            value=None,
            metric="Hmean",
            benchmark="PaddleOCR internal detection set",
            url="https://github.com/PaddlePaddle/PaddleOCR/blob/main/docs/version3.x/model_list.md",
            note="PaddleOCR's figures are on its own evaluation set, not a public benchmark",
        ),
        requires=("rapidocr==3.10.0", "onnxruntime==1.32.0"),
    )

    def load(self, device: str, precision: str) -> None:
        rapidocr = require("rapidocr", INSTALL)
        require("onnxruntime", INSTALL)
        self._file = package_file("rapidocr", MODEL_FILE, INSTALL)
        self._engine = rapidocr.RapidOCR(params=dict(PARAMS))

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])
        out = self._engine(bgr, use_det=True, use_cls=False, use_rec=False)
        if out.boxes is None or len(out.boxes) == 0:
            return []
        boxes = quads_to_xyxy(out.boxes)
        scores = np.asarray(out.scores, dtype=np.float64)
        return clipped_detections(boxes, scores, rgb.shape[1], rgb.shape[0])

    def weight_files(self) -> list[Path]:
        return [self._file]
