"""MTCNN face detector (Zhang et al. 2016) with the real weights shipped in facenet-pytorch 2.6.0.

facenet-pytorch's own detector imports torchvision (for ``batched_nms``), which cannot be
installed beside our torch, and its package ``__init__`` imports that detector. So this adapter
rebuilds the three networks (same layer names, so the package's state dicts load unchanged),
reads ``facenet_pytorch/data/{pnet,rnet,onet}.pt`` without importing the package, and runs the
same three-stage cascade with our own NMS in plain torch ops. The changes are listed in
docs/patches/mtcnn-facenet-pytorch.md ("runs with fixes").

Install: ``pip install --no-deps facenet-pytorch==2.6.0`` (its metadata pins torch<2.3, numpy<2
and torchvision, none of which this adapter needs).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from measure.adapters import register
from measure.adapters.base import (
    Adapter,
    AdapterInfo,
    MissingPackageError,
    PaperScore,
    WeightsInfo,
    load_image,
    require,
    torch_dtype,
)

INSTALL = "pip install --no-deps facenet-pytorch==2.6.0"
MIN_FACE_PX = 20  # facenet-pytorch default minimum face size
STAGE_THRESHOLDS = (0.6, 0.7, 0.7)  # facenet-pytorch defaults for P-, R-, O-net
PYRAMID_FACTOR = 0.709  # facenet-pytorch default scale step


def weights_dir() -> Path:
    """Folder holding pnet.pt, rnet.pt and onet.pt inside the installed facenet-pytorch."""
    spec = importlib.util.find_spec("facenet_pytorch")
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError(f"package 'facenet_pytorch' is not installed; fix: {INSTALL}")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def build_networks(torch: Any) -> tuple[Any, Any, Any]:
    """P-, R- and O-net with the layer names of facenet-pytorch's modules (weights not loaded)."""
    nn = torch.nn

    def conv_block(cin: int, cout: int, k: int, prefix: str, idx: int) -> list[tuple[str, Any]]:
        return [(f"conv{idx}", nn.Conv2d(cin, cout, k)), (f"prelu{idx}", nn.PReLU(cout))]

    class PNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, mod in conv_block(3, 10, 3, "p", 1):
                self.add_module(name, mod)
            self.pool1 = nn.MaxPool2d(2, 2, ceil_mode=True)
            for name, mod in conv_block(10, 16, 3, "p", 2) + conv_block(16, 32, 3, "p", 3):
                self.add_module(name, mod)
            self.conv4_1 = nn.Conv2d(32, 2, 1)
            self.conv4_2 = nn.Conv2d(32, 4, 1)

        def forward(self, x: Any) -> tuple[Any, Any]:
            x = self.pool1(self.prelu1(self.conv1(x)))
            x = self.prelu3(self.conv3(self.prelu2(self.conv2(x))))
            return self.conv4_2(x), torch.softmax(self.conv4_1(x), dim=1)

    class RNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, mod in conv_block(3, 28, 3, "r", 1):
                self.add_module(name, mod)
            self.pool1 = nn.MaxPool2d(3, 2, ceil_mode=True)
            for name, mod in conv_block(28, 48, 3, "r", 2):
                self.add_module(name, mod)
            self.pool2 = nn.MaxPool2d(3, 2, ceil_mode=True)
            for name, mod in conv_block(48, 64, 2, "r", 3):
                self.add_module(name, mod)
            self.dense4, self.prelu4 = nn.Linear(576, 128), nn.PReLU(128)
            self.dense5_1, self.dense5_2 = nn.Linear(128, 2), nn.Linear(128, 4)

        def forward(self, x: Any) -> tuple[Any, Any]:
            x = self.pool1(self.prelu1(self.conv1(x)))
            x = self.pool2(self.prelu2(self.conv2(x)))
            x = self.prelu3(self.conv3(x)).permute(0, 3, 2, 1).contiguous()
            x = self.prelu4(self.dense4(x.view(x.shape[0], -1)))
            return self.dense5_2(x), torch.softmax(self.dense5_1(x), dim=1)

    class ONet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, mod in conv_block(3, 32, 3, "o", 1):
                self.add_module(name, mod)
            self.pool1 = nn.MaxPool2d(3, 2, ceil_mode=True)
            for name, mod in conv_block(32, 64, 3, "o", 2):
                self.add_module(name, mod)
            self.pool2 = nn.MaxPool2d(3, 2, ceil_mode=True)
            for name, mod in conv_block(64, 64, 3, "o", 3):
                self.add_module(name, mod)
            self.pool3 = nn.MaxPool2d(2, 2, ceil_mode=True)
            for name, mod in conv_block(64, 128, 2, "o", 4):
                self.add_module(name, mod)
            self.dense5, self.prelu5 = nn.Linear(1152, 256), nn.PReLU(256)
            self.dense6_1, self.dense6_2 = nn.Linear(256, 2), nn.Linear(256, 4)
            self.dense6_3 = nn.Linear(256, 10)

        def forward(self, x: Any) -> tuple[Any, Any, Any]:
            x = self.pool1(self.prelu1(self.conv1(x)))
            x = self.pool2(self.prelu2(self.conv2(x)))
            x = self.pool3(self.prelu3(self.conv3(x)))
            x = self.prelu4(self.conv4(x)).permute(0, 3, 2, 1).contiguous()
            x = self.prelu5(self.dense5(x.view(x.shape[0], -1)))
            probs = torch.softmax(self.dense6_1(x), dim=1)
            return self.dense6_2(x), self.dense6_3(x), probs

    return PNet(), RNet(), ONet()


def nms(torch: Any, boxes: Any, scores: Any, iou_max: float, mode: str = "union") -> Any:
    """Greedy non-maximum suppression in torch ops; indices kept, best score first.

    ``mode="union"``: intersection over union with continuous areas (as torchvision's
    ``nms``, used by facenet-pytorch in stages 1-2). ``mode="min"``: intersection over the
    smaller box with inclusive ``+1`` pixel areas (facenet-pytorch's stage-3 numpy NMS).
    A box is dropped when its overlap with a kept box exceeds ``iou_max``.
    """
    if boxes.numel() == 0:
        return torch.empty(0, dtype=torch.long, device=boxes.device)
    x1, y1, x2, y2 = boxes.unbind(1)
    one = 1 if mode == "min" else 0
    area = (x2 - x1 + one) * (y2 - y1 + one)
    order = torch.argsort(scores, descending=True, stable=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        w = (torch.minimum(x2[i], x2[rest]) - torch.maximum(x1[i], x1[rest]) + one).clamp(min=0)
        h = (torch.minimum(y2[i], y2[rest]) - torch.maximum(y1[i], y1[rest]) + one).clamp(min=0)
        inter = w * h
        if mode == "min":
            overlap = inter / torch.minimum(area[i], area[rest])
        else:
            overlap = inter / (area[i] + area[rest] - inter)
        order = rest[overlap <= iou_max]
    return torch.stack(keep)


class _Cascade:
    """The three-stage MTCNN cascade on one image (ported from facenet-pytorch 2.6.0)."""

    def __init__(self, torch: Any, nets: tuple[Any, Any, Any], device: str, dtype: Any) -> None:
        self.torch, self.device, self.dtype = torch, device, dtype
        self.pnet, self.rnet, self.onet = nets

    def _resample(self, img: Any, size: tuple[int, int]) -> Any:
        return self.torch.nn.functional.interpolate(img, size=size, mode="area")

    def _scales(self, h: int, w: int) -> list[float]:
        m = 12.0 / MIN_FACE_PX
        min_side, scale, scales = min(h, w) * m, m, []
        while min_side >= 12:
            scales.append(scale)
            scale *= PYRAMID_FACTOR
            min_side *= PYRAMID_FACTOR
        return scales

    def _proposals(self, img: Any) -> Any:
        torch = self.torch
        h, w = img.shape[2:4]
        found = []
        for scale in self._scales(h, w):
            data = self._resample(img, (int(h * scale + 1), int(w * scale + 1)))
            reg, probs = self.pnet((data - 127.5) * 0.0078125)
            boxes = _grid_boxes(torch, reg[0], probs[0, 1], scale, STAGE_THRESHOLDS[0])
            found.append(boxes[nms(torch, boxes[:, :4], boxes[:, 4], 0.5)])
        boxes = torch.cat(found) if found else torch.zeros(0, 9, device=img.device)
        boxes = boxes[nms(torch, boxes[:, :4], boxes[:, 4], 0.7)]
        width, height = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        refined = torch.stack(
            [
                boxes[:, 0] + boxes[:, 5] * width,
                boxes[:, 1] + boxes[:, 6] * height,
                boxes[:, 2] + boxes[:, 7] * width,
                boxes[:, 3] + boxes[:, 8] * height,
                boxes[:, 4],
            ],
            dim=1,
        )
        return _square(refined)

    def _crops(self, img: Any, boxes: Any, size: int) -> tuple[Any, Any]:
        """Normalised square crops of the boxes with a non-empty window, and those boxes."""
        h, w = img.shape[2:4]
        y, ey, x, ex = _clip(boxes, w, h)
        valid = [k for k in range(len(y)) if ey[k] > y[k] - 1 and ex[k] > x[k] - 1]
        if not valid:
            return None, boxes[:0]
        crops = [
            self._resample(img[:, :, y[k] - 1 : ey[k], x[k] - 1 : ex[k]], (size, size))
            for k in valid
        ]
        return (self.torch.cat(crops) - 127.5) * 0.0078125, boxes[valid]

    def _refine(self, img: Any, boxes: Any) -> Any:
        torch = self.torch
        crops, boxes = self._crops(img, boxes, 24)
        if not len(boxes):
            return boxes
        reg, probs = self.rnet(crops)
        passed = probs[:, 1] > STAGE_THRESHOLDS[1]
        boxes = torch.cat([boxes[passed, :4], probs[passed, 1:2]], dim=1)
        reg = reg[passed]
        keep = nms(torch, boxes[:, :4], boxes[:, 4], 0.7)
        return _square(_regress(torch, boxes[keep], reg[keep]))

    def _output(self, img: Any, boxes: Any) -> Any:
        torch = self.torch
        crops, boxes = self._crops(img, boxes, 48)
        if not len(boxes):
            return boxes
        reg, _landmarks, probs = self.onet(crops)
        passed = probs[:, 1] > STAGE_THRESHOLDS[2]
        boxes = torch.cat([boxes[passed, :4], probs[passed, 1:2]], dim=1)
        boxes = _regress(torch, boxes, reg[passed])
        return boxes[nms(torch, boxes[:, :4], boxes[:, 4], 0.7, mode="min")]

    def detect(self, image: np.ndarray) -> np.ndarray:
        """Rows of x1, y1, x2, y2, score in original pixels."""
        torch = self.torch
        with torch.inference_mode():
            img = torch.tensor(image, device=self.device).permute(2, 0, 1)[None]
            img = img.to(self.dtype)
            boxes = self._proposals(img)
            if len(boxes):
                boxes = self._refine(img, boxes)
            if len(boxes):
                boxes = self._output(img, boxes)
            return boxes.float().cpu().numpy()


def _grid_boxes(torch: Any, reg: Any, prob: Any, scale: float, threshold: float) -> Any:
    """P-net cells over threshold as boxes in image pixels, with score and regression."""
    stride, cell = 2, 12
    mask = prob >= threshold
    cells = mask.nonzero()
    score = prob[mask]
    offsets = reg[:, mask].permute(1, 0)
    yx = cells.to(reg.dtype).flip(1)
    q1 = ((stride * yx + 1) / scale).floor()
    q2 = ((stride * yx + cell) / scale).floor()
    return torch.cat([q1, q2, score[:, None], offsets], dim=1)


def _regress(torch: Any, boxes: Any, reg: Any) -> Any:
    w = boxes[:, 2] - boxes[:, 0] + 1
    h = boxes[:, 3] - boxes[:, 1] + 1
    moved = torch.stack(
        [
            boxes[:, 0] + reg[:, 0] * w,
            boxes[:, 1] + reg[:, 1] * h,
            boxes[:, 2] + reg[:, 2] * w,
            boxes[:, 3] + reg[:, 3] * h,
        ],
        dim=1,
    )
    return torch.cat([moved, boxes[:, 4:]], dim=1)


def _square(boxes: Any) -> Any:
    h = boxes[:, 3] - boxes[:, 1]
    w = boxes[:, 2] - boxes[:, 0]
    side = w.maximum(h)
    out = boxes.clone()
    out[:, 0] = boxes[:, 0] + w * 0.5 - side * 0.5
    out[:, 1] = boxes[:, 1] + h * 0.5 - side * 0.5
    out[:, 2] = out[:, 0] + side
    out[:, 3] = out[:, 1] + side
    return out


def _clip(boxes: Any, w: int, h: int) -> tuple[np.ndarray, ...]:
    """1-based inclusive crop windows, clipped to the image (facenet-pytorch's ``pad``)."""
    b = boxes[:, :4].trunc().int().cpu().numpy()
    x, y, ex, ey = (np.array(b[:, i]) for i in range(4))
    x[x < 1], y[y < 1] = 1, 1
    ex[ex > w], ey[ey > h] = w, h
    return y, ey, x, ex


@register
class MTCNNFaceDetector(Adapter):
    """MTCNN (P/R/O cascade) with facenet-pytorch's converted weights."""

    name = "mtcnn-facenet"
    task = "face-detection"
    precisions = ("fp32",)
    info = AdapterInfo(
        display_name="MTCNN (facenet-pytorch weights)",
        code_repo="https://github.com/timesler/facenet-pytorch",
        code_licence="MIT",
        code_licence_url="https://github.com/timesler/facenet-pytorch/blob/master/LICENSE.md",
        code_licence_read_on="2026-11-30",
        weights=(
            WeightsInfo(
                checkpoint="facenet-pytorch 2.6.0 data/pnet.pt, rnet.pt, onet.pt",
                licence="MIT",
                licence_url="https://github.com/timesler/facenet-pytorch/blob/master/LICENSE.md",
                read_on="2026-11-30",
                source_url="https://pypi.org/project/facenet-pytorch/2.6.0/",
                file_name="pnet.pt;rnet.pt;onet.pt",
            ),
        ),
        default_input_size="native resolution, pyramid from 20 px faces (factor 0.709)",
        paper=PaperScore(
            value=None,
            metric="",
            benchmark="FDDB / WIDER FACE",
            url="https://arxiv.org/abs/1604.02878",
            note="the paper gives ROC/PR curves on FDDB and WIDER FACE, not on our input set",
        ),
        runs_with_fixes=True,
        patch_url="docs/patches/mtcnn-facenet-pytorch.md",
        requires=("facenet-pytorch==2.6.0 (--no-deps)",),
    )

    def load(self, device: str, precision: str) -> None:
        torch = require("torch", "pip install -r requirements.txt")
        folder = Path(self.weights) if self.weights else weights_dir()
        nets = build_networks(torch)
        self._files = [folder / f"{n}.pt" for n in ("pnet", "rnet", "onet")]
        dtype = torch_dtype(torch, precision)
        for net, file in zip(nets, self._files, strict=True):
            if not file.is_file():
                raise MissingPackageError(f"{file}: MTCNN weights missing; fix: {INSTALL}")
            net.load_state_dict(torch.load(file, map_location="cpu", weights_only=True))
            net.to(device=device, dtype=dtype).eval()
        self._cascade = _Cascade(torch, nets, device, dtype)

    def predict(self, image: Any) -> list[dict]:
        rows = self._cascade.detect(load_image(image))
        return [
            {
                "bbox": [float(x1), float(y1), float(x2 - x1), float(y2 - y1)],
                "score": float(s),
                "category_id": 1,
            }
            for x1, y1, x2, y2, s in rows.tolist()
        ]

    def weight_files(self) -> list[Path]:
        return list(self._files)
