"""torchvision COCO detectors: Faster R-CNN, RetinaNet, FCOS and SSDlite (ResNet-50/MobileNet).

torchvision is imported inside ``load``: its wheel must match the installed torch build, so it is
not in requirements.txt (``scripts/test.sh`` installs the pinned pair, see docs/measure.md).

Loading is torchvision's own: the builder is called with its published ``COCO_V1`` weights, so
the model is exactly what ``fasterrcnn_resnet50_fpn(weights="COCO_V1")`` returns (frozen batch
norm, and eps 0 where the builder sets it for these weights). Only the reading of the file is
ours: the ``.pth`` comes from ``--weights FILE`` or torch hub's cache (downloaded there when
missing and online), its SHA-256 must start with the hex digits in the published file name
(torch hub's ``check_hash`` rule) and it is read with ``torch.load(weights_only=True)``. Any
other file is refused in one line, so only the published checkpoint can be measured.

Code-path tests build the same architecture on randomly initialised weights:
``Class(random_init=True, model_kwargs={...})`` (``weights=None, weights_backbone=None``). Such
an instance's ``weight_files`` raises ``RandomWeightsError``, so the harness fails a measurement
of it (error "random weights (code-path test)") and no listable record can come of it.

torchvision labels are already COCO category ids (1..90 with gaps), so no remapping is needed.
Author-reported numbers are the ``box_map`` torchvision publishes for each weight on COCO
val2017 (``_metrics['COCO-val2017']`` in the weights' meta).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, ClassVar
from unittest import mock

from measure.adapters import register
from measure.adapters.base import (
    Adapter,
    AdapterInfo,
    PaperScore,
    WeightsInfo,
    load_image,
    refuse_random_weights,
    require,
    torch_dtype,
    xyxy_to_coco,
)

INSTALL = (
    "pip install torch==2.14.1 torchvision==0.29.1 (the pair scripts/test.sh installs; "
    "any torchvision built for your torch works, see pytorch.org)"
)
_READ_ON = "2026-11-30"
_CODE = dict(
    code_repo="https://github.com/pytorch/vision",
    code_licence="BSD-3-Clause",  # LICENSE: "BSD 3-Clause License" (also in the wheel's dist-info)
    code_licence_url="https://github.com/pytorch/vision/blob/main/LICENSE",
    code_licence_read_on=_READ_ON,
)
# torchvision states no licence for its pre-trained weights: its README ("Pre-trained Model
# License") says they may carry terms derived from the training data (here COCO 2017) and that
# users must check them; the weights' doc pages name none either.
_WEIGHTS_LICENCE = "not stated"
_WEIGHTS_NOTE_URL = "https://github.com/pytorch/vision#pre-trained-model-license"
_DOWNLOAD = "https://download.pytorch.org/models/"
_HASH = re.compile(r"-([a-f0-9]+)\.")  # as torch.hub.HASH_REGEX: hex digits between "-" and "."


def expected_sha256_prefix(file_name: str) -> str:
    """The SHA-256 prefix a published torchvision file name carries ("" when it has none)."""
    match = _HASH.search(file_name)
    return match.group(1) if match else ""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_published(path: Path, url: str) -> None:
    """Refuse (one line) a file whose SHA-256 does not start as the published name says."""
    name = url.rsplit("/", 1)[-1]
    prefix = expected_sha256_prefix(name)
    digest = _sha256(path)
    if not digest.startswith(prefix):
        raise ValueError(
            f"weights {path}: SHA-256 starts {digest[:8]}, but torchvision's published {name} "
            f"starts {prefix}; fix: use the file from {url}"
        )


def _build_published(torch: Any, build: Any, published: Any, file: Path) -> Any:
    """``build(weights=published)``, torchvision's own path, with the state dict read from
    ``file`` by us (``weights_only=True``) instead of torch hub's unrestricted ``torch.load``."""
    state = torch.load(file, map_location="cpu", weights_only=True)
    with mock.patch.object(type(published), "get_state_dict", lambda _self, *a, **k: state):
        return build(weights=published)


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
    devices = ("cpu", "cuda")
    builder: ClassVar[str] = ""
    weights_enum: ClassVar[str] = ""

    def __init__(
        self,
        weights: str | None = None,
        *,
        random_init: bool = False,
        model_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(weights)
        if random_init and weights:
            raise ValueError(f"{self.name}: random_init and --weights {weights} exclude each other")
        if model_kwargs and not random_init:
            raise ValueError(
                f"{self.name}: model_kwargs are for random_init code-path tests only; "
                "fix: measured runs use the builder's defaults"
            )
        self.random_weights = bool(random_init)
        self._model_kwargs = dict(model_kwargs or {})
        self._file: Path | None = None

    def load(self, device: str, precision: str) -> None:
        torch = require("torch", "pip install -r requirements.txt")
        detection = require("torchvision.models.detection", INSTALL)
        build = getattr(detection, self.builder)
        if self.random_weights:
            model = build(weights=None, weights_backbone=None, **self._model_kwargs)
        else:
            published = getattr(detection, self.weights_enum).COCO_V1
            self._file = self._weights_file(torch, published.url)
            model = _build_published(torch, build, published, self._file)
        self._model = model.to(device).eval()
        self._torch, self._device = torch, device
        self._autocast = precision != "fp32" and device.startswith("cuda")
        self._dtype = torch_dtype(torch, precision)

    def _weights_file(self, torch: Any, url: str) -> Path:
        """``--weights FILE`` or torch hub's cached copy (downloaded when missing), checked."""
        name = url.rsplit("/", 1)[-1]
        if self.weights:
            path = Path(self.weights).expanduser()
            if not path.is_file():
                raise FileNotFoundError(
                    f"--weights {path}: no such file; fix: download {url} and give its path"
                )
        else:
            path = Path(torch.hub.get_dir()) / "checkpoints" / name
            if not path.is_file():
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    torch.hub.download_url_to_file(
                        url, str(path), expected_sha256_prefix(name), progress=False
                    )
                except Exception as exc:  # offline, proxy, disk: one line with the fix
                    why = (str(exc).splitlines() or [""])[0][:200]
                    raise FileNotFoundError(
                        f"{name} is not in torch hub's cache ({path.parent}) and could not be "
                        f"downloaded ({type(exc).__name__}: {why}); fix: download {url} there "
                        "or give --weights FILE"
                    ) from None
        _check_published(path, url)
        return path

    def predict(self, image: Any) -> list[dict]:
        torch = self._torch
        array = load_image(image)
        if not array.flags.writeable:  # PIL's arrays are read-only; torch wants to own a copy
            array = array.copy()
        with torch.inference_mode(), torch.autocast("cuda", self._dtype, enabled=self._autocast):
            tensor = torch.from_numpy(array).to(self._device).permute(2, 0, 1).float() / 255.0
            out = self._model([tensor])[0]
        return xyxy_to_coco(
            out["boxes"].float().cpu().numpy(),
            out["scores"].float().cpu().numpy(),
            out["labels"].cpu().numpy(),
        )

    def weight_files(self) -> list[Path]:
        refuse_random_weights(self)
        return [self._file] if self._file is not None else []


@register
class FasterRCNN(_TorchvisionDetector):
    name = "fasterrcnn-resnet50-fpn"
    builder = "fasterrcnn_resnet50_fpn"
    weights_enum = "FasterRCNN_ResNet50_FPN_Weights"
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
    weights_enum = "RetinaNet_ResNet50_FPN_Weights"
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
    weights_enum = "FCOS_ResNet50_FPN_Weights"
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
    weights_enum = "SSDLite320_MobileNet_V3_Large_Weights"
    info = _info(
        "SSDlite320 MobileNetV3-Large",
        "ssdlite320_mobilenet_v3_large_coco-a79551df.pth",
        21.3,
        "torchvision.models.detection.ssdlite320_mobilenet_v3_large",
        "320x320",
    )
