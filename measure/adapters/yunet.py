"""libfacedetection (Shiqi Yu's YuNet-family CNN) through the yuface 2023.5.1 wheel.

The CNN's weights are compiled into ``yuface/libfacedetection.so``; the adapter calls the wheel's
own ``yuface.detect`` on a BGR array (the orientation it documents). Its confidences are integers
0..100, reported here divided by 100.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from measure.adapters import register
from measure.adapters.base import Adapter, AdapterInfo, PaperScore, WeightsInfo, load_image, require
from measure.adapters.packaged import READ_ON, clipped_detections, package_file

INSTALL = "pip install yuface==2023.5.1"
LICENCE_URL = "https://github.com/ShiqiYu/libfacedetection/blob/master/LICENSE"
MIN_CONFIDENCE = 0.0  # keep every face the library returns (its own internal cut applies)


@register
class YuNetFaceDetector(Adapter):
    """libfacedetection's CNN face detector (YuNet family), weights built into the library."""

    name = "yunet-libfacedetection"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="YuNet / libfacedetection (yuface wheel)",
        code_repo="https://github.com/ShiqiYu/libfacedetection",
        code_licence="BSD-3-Clause",
        code_licence_url=LICENCE_URL,
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint="libfacedetection CNN compiled into yuface 2023.5.1",
                licence="BSD-3-Clause",
                licence_url=LICENCE_URL,
                read_on=READ_ON,
                source_url="https://pypi.org/project/yuface/2023.5.1/",
                file_name="libfacedetection.so",
            ),
        ),
        default_input_size="native resolution (the library warns above 960 px)",
        paper=PaperScore(
            value=None,
            metric="AP",
            benchmark="WIDER FACE val",
            url="https://doi.org/10.1007/s11633-023-1423-y",
            note="YuNet paper (Wu, Peng, Yu 2023); its WIDER FACE figures are for the ONNX "
            "YuNet release, not checked against this compiled build, so none is shown",
        ),
        requires=("yuface==2023.5.1",),
    )

    def load(self, device: str, precision: str) -> None:
        self._yuface = require("yuface", INSTALL)
        self._file = package_file("yuface", "libfacedetection.so", INSTALL)

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])
        confs, xywh, _landmarks = self._yuface.detect(bgr, conf=MIN_CONFIDENCE)
        boxes = np.asarray(xywh, dtype=np.float64).reshape(-1, 4)
        boxes[:, 2:] += boxes[:, :2]
        scores = np.asarray(confs, dtype=np.float64) / 100.0
        return clipped_detections(boxes, scores, rgb.shape[1], rgb.shape[0])

    def weight_files(self) -> list[Path]:
        return [self._file]
