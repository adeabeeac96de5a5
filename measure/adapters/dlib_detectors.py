"""dlib face detectors: the HOG + linear SVM detector built into dlib, and the MMOD CNN.

dlib comes from the dlib-bin 20.0.1.post1 wheel (prebuilt, no compiler needed); the MMOD weights
``mmod_human_face_detector.dat`` from face_recognition_models 0.3.0, found without importing it.
Both detectors report a margin (SVM / max-margin score, unbounded), not a probability; the
adapters report ``sigmoid(margin)`` so scores lie in [0, 1] with the ranking, and so the AP,
unchanged (docs/patches/packaged-detectors.md). Upsampling once is dlib's and face_recognition's
default (faces from about 40 px).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from measure.adapters import register
from measure.adapters.base import Adapter, AdapterInfo, PaperScore, WeightsInfo, load_image, require
from measure.adapters.packaged import READ_ON, clipped_detections, package_file, sigmoid

DLIB_INSTALL = "pip install dlib-bin==20.0.1.post1"
MODELS_INSTALL = "pip install face_recognition_models==0.3.0"
DLIB_REPO = "https://github.com/davisking/dlib"
DLIB_LICENCE_URL = "https://github.com/davisking/dlib/blob/master/LICENSE.txt"
UPSAMPLE = 1


def _rows(rects: list, margins: list) -> tuple[np.ndarray, np.ndarray]:
    """Corner boxes (dlib rectangles are inclusive) and margins as arrays."""
    boxes = [[r.left(), r.top(), r.right() + 1, r.bottom() + 1] for r in rects]
    return np.asarray(boxes, dtype=np.float64).reshape(-1, 4), np.asarray(margins, float)


@register
class DlibHogFaceDetector(Adapter):
    """dlib's ``get_frontal_face_detector`` (HOG, 5 poses), scores = sigmoid(SVM margin)."""

    name = "dlib-hog"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="dlib HOG frontal face detector",
        code_repo=DLIB_REPO,
        code_licence="BSL-1.0",
        code_licence_url=DLIB_LICENCE_URL,
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="frontal_face_detector built into dlib 20.0.1 (dlib-bin wheel)",
                licence="BSL-1.0",
                licence_url=DLIB_LICENCE_URL,
                read_on=READ_ON,
                source_url="https://pypi.org/project/dlib-bin/20.0.1.post1/",
                file_name="",
            ),
        ),
        default_input_size="native resolution, upsampled once",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="FDDB",
            url="https://arxiv.org/abs/1502.00046",
            note="King 2015 (MMOD) compares HOG detectors on FDDB with ROC curves only",
        ),
        requires=("dlib-bin==20.0.1.post1",),
    )

    def load(self, device: str, precision: str) -> None:
        dlib = require("dlib", DLIB_INSTALL)
        self._detector = dlib.get_frontal_face_detector()

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        rects, margins, _poses = self._detector.run(rgb, UPSAMPLE, 0.0)
        boxes, margins = _rows(list(rects), list(margins))
        return clipped_detections(boxes, sigmoid(margins), rgb.shape[1], rgb.shape[0])


@register
class DlibMmodFaceDetector(Adapter):
    """dlib's MMOD CNN face detector, scores = sigmoid(detection confidence)."""

    name = "dlib-mmod-cnn"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="dlib MMOD CNN face detector",
        code_repo=DLIB_REPO,
        code_licence="BSL-1.0",
        code_licence_url=DLIB_LICENCE_URL,
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="mmod_human_face_detector.dat (face_recognition_models 0.3.0)",
                licence="CC0-1.0",
                licence_url="https://github.com/ageitgey/face_recognition_models/blob/master/LICENSE",
                read_on=READ_ON,
                source_url="https://github.com/davisking/dlib-models",
                file_name="mmod_human_face_detector.dat",
            ),
        ),
        default_input_size="native resolution, upsampled once",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="FDDB",
            url="https://arxiv.org/abs/1502.00046",
            note="King 2015 gives FDDB ROC curves, no single figure for this CNN checkpoint",
        ),
        requires=("dlib-bin==20.0.1.post1", "face_recognition_models==0.3.0"),
    )

    def load(self, device: str, precision: str) -> None:
        dlib = require("dlib", DLIB_INSTALL)
        self._file = (
            Path(self.weights)
            if self.weights
            else package_file(
                "face_recognition_models", "models/mmod_human_face_detector.dat", MODELS_INSTALL
            )
        )
        self._detector = dlib.cnn_face_detection_model_v1(str(self._file))

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        found = list(self._detector(rgb, UPSAMPLE))
        boxes, margins = _rows([d.rect for d in found], [d.confidence for d in found])
        return clipped_detections(boxes, sigmoid(margins), rgb.shape[1], rgb.shape[0])

    def weight_files(self) -> list[Path]:
        return [self._file]
