"""torchvision COCO detectors: Faster R-CNN, RetinaNet, FCOS and SSDlite (ResNet-50/MobileNet).

torchvision is imported inside ``load``: its PyPI wheel must match the installed torch build, so
it is not in requirements.txt. Weights load from ``--weights FILE`` (the ``.pth`` that
torchvision publishes) or, when online, from torchvision's own download cache.

torchvision labels are already COCO category ids (1..90 with gaps), so no remapping is needed.
Author-reported numbers are the ``box_map`` torchvision publishes for each weight on COCO
val2017 (``_metrics['COCO-val2017']`` in the model builder).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from measure.adapters import register
from measure.adapters.base import (
    Adapter,
    AdapterInfo,
    PaperScore,
    WeightsInfo,
    load_image,
    require,
    torch_dtype,
    xyxy_to_coco,
)

INSTALL = "pip install torchvision==<the release matching your torch> (see pytorch.org)"
_READ_ON = "2026-11-30"
_CODE = dict(
    code_repo="https://github.com/pytorch/vision",
    code_licence="BSD-3-Clause",
    code_licence_url="https://github.com/pytorch/vision/blob/main/LICENSE",
    code_licence_read_on=_READ_ON,
)
# torchvision states no licence for its pre-trained weights: its README says they may carry
# terms derived from the training data (COCO) and that users must check them.
_WEIGHTS_LICENCE = "not stated"
_WEIGHTS_NOTE_URL = "https://github.com/pytorch/vision#pre-trained-model-license"
_DOWNLOAD = "https://download.pytorch.org/models/"


def _info(title: str, file: str, box_map: float, doc: str, size: str) -> AdapterInfo:
    return AdapterInfo(
        display_name=title,
        weights=(
            WeightsInfo(
                checkpoint=f"torchvision COCO_V1 ({file})",
                licence=_WEIGHTS_LICENCE,
                licence_url=_WEIGHTS_NOTE_URL,
                read_on=_READ_ON,
                source_url=_DOWNLOAD + file,
                file_name=file,
            ),
        ),
        default_input_size=size,
        paper=PaperScore(
            value=box_map,
            metric="box AP@[.5:.95]",
            benchmark="COCO val2017",
            url=f"https://pytorch.org/vision/stable/models/generated/{doc}.html",
            note="torchvision's published figure for these weights",
        ),
        requires=("torchvision",),
        **_CODE,
    )


class _TorchvisionDetector(Adapter):
    """Shared load/predict for torchvision detection builders."""

    task = "object-detection"
    precisions = ("fp16", "fp32")  # torchvision's detection reference scripts support AMP
    builder: ClassVar[str] = ""

    def load(self, device: str, precision: str) -> None:
        torch = require("torch", "pip install -r requirements.txt")
        detection = require("torchvision.models.detection", INSTALL)
        model = getattr(detection, self.builder)(weights=None, weights_backbone=None)
        self._file = self._weights_file(torch)
        model.load_state_dict(torch.load(self._file, map_location="cpu", weights_only=True))
        self._model = model.to(device).eval()
        self._torch, self._device = torch, device
        self._autocast = precision != "fp32" and device.startswith("cuda")
        self._dtype = torch_dtype(torch, precision)

    def _weights_file(self, torch: Any) -> Path:
        if self.weights:
            return Path(self.weights)
        file = self.info.weights[0].file_name
        hub = Path(torch.hub.get_dir()) / "checkpoints" / file
        if not hub.is_file():
            torch.hub.download_url_to_file(_DOWNLOAD + file, str(hub))
        return hub

    def predict(self, image: Any) -> list[dict]:
        torch = self._torch
        array = load_image(image)
        with torch.inference_mode(), torch.autocast("cuda", self._dtype, enabled=self._autocast):
            tensor = torch.from_numpy(array).to(self._device).permute(2, 0, 1).float() / 255.0
            out = self._model([tensor])[0]
        return xyxy_to_coco(
            out["boxes"].float().cpu().numpy(),
            out["scores"].float().cpu().numpy(),
            out["labels"].cpu().numpy(),
        )

    def weight_files(self) -> list[Path]:
        return [self._file]


@register
class FasterRCNN(_TorchvisionDetector):
    name = "fasterrcnn-resnet50-fpn"
    builder = "fasterrcnn_resnet50_fpn"
    info = _info(
        "Faster R-CNN ResNet-50 FPN",
        "fasterrcnn_resnet50_fpn_coco-258fb6c6.pth",
        37.0,
        "torchvision.models.detection.fasterrcnn_resnet50_fpn",
        "shorter side 800, longer side at most 1333",
    )


@register
class RetinaNet(_TorchvisionDetector):
    name = "retinanet-resnet50-fpn"
    builder = "retinanet_resnet50_fpn"
    info = _info(
        "RetinaNet ResNet-50 FPN",
        "retinanet_resnet50_fpn_coco-eeacb38b.pth",
        36.4,
        "torchvision.models.detection.retinanet_resnet50_fpn",
        "shorter side 800, longer side at most 1333",
    )


@register
class FCOS(_TorchvisionDetector):
    name = "fcos-resnet50-fpn"
    builder = "fcos_resnet50_fpn"
    info = _info(
        "FCOS ResNet-50 FPN",
        "fcos_resnet50_fpn_coco-99b0c9b7.pth",
        39.2,
        "torchvision.models.detection.fcos_resnet50_fpn",
        "shorter side 800, longer side at most 1333",
    )


@register
class SSDlite(_TorchvisionDetector):
    name = "ssdlite320-mobilenet-v3-large"
    builder = "ssdlite320_mobilenet_v3_large"
    info = _info(
        "SSDlite320 MobileNetV3-Large",
        "ssdlite320_mobilenet_v3_large_coco-a79551df.pth",
        21.3,
        "torchvision.models.detection.ssdlite320_mobilenet_v3_large",
        "320x320",
    )
