"""Transformer detectors through Hugging Face ``transformers``: DETR and RT-DETR (ResNet-50).

``transformers`` is imported inside ``load``. ``--weights DIR`` points at a local copy of the
model repository (config, preprocessor config, safetensors); without it the hub id is used,
which needs a network connection the first time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

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
from measure.coco import COCO80_TO_91

INSTALL = "pip install transformers timm"
_READ_ON = "2026-11-30"


class _HFDetector(Adapter):
    """Shared load/predict for ``AutoModelForObjectDetection`` checkpoints."""

    task = "object-detection"
    devices = ("cpu", "cuda")  # the model and its inputs move with .to(device)
    hub_id: ClassVar[str] = ""
    contiguous_labels: ClassVar[bool] = False  # True: labels 0..79, remap to COCO ids

    def load(self, device: str, precision: str) -> None:
        torch = require("torch", "pip install -r requirements.txt")
        transformers = require("transformers", INSTALL)
        source = self._local_folder() or self.hub_id
        self._processor = transformers.AutoImageProcessor.from_pretrained(source)
        model = transformers.AutoModelForObjectDetection.from_pretrained(
            source, dtype=torch_dtype(torch, precision)
        )
        self._model = model.to(device).eval()
        self._torch, self._device = torch, device
        self._dtype = torch_dtype(torch, precision)
        self._source = self._local_folder()

    def _local_folder(self) -> Path | None:
        """The ``--weights`` folder, or None for the hub id; a bad path is one clear error."""
        if not self.weights:
            return None
        folder = Path(self.weights).expanduser()
        if not (folder / "config.json").is_file():
            raise FileNotFoundError(
                f"--weights {folder}: no config.json there; fix: download {self.hub_id} "
                "(config.json, preprocessor_config.json, model.safetensors) into that folder"
            )
        return folder

    def predict(self, image: Any) -> list[dict]:
        torch = self._torch
        array = load_image(image)
        if not array.flags.writeable:  # PIL's arrays are read-only; the processor wraps it
            array = array.copy()
        inputs = self._processor(images=array, return_tensors="pt").to(self._device)
        inputs["pixel_values"] = inputs["pixel_values"].to(self._dtype)
        with torch.inference_mode():
            outputs = self._model(**inputs)
        sizes = torch.tensor([array.shape[:2]], device=self._device)
        result = self._processor.post_process_object_detection(
            outputs, threshold=0.0, target_sizes=sizes
        )[0]
        labels = result["labels"].cpu().numpy()
        if self.contiguous_labels:
            labels = np.array([COCO80_TO_91[int(i)] for i in labels], dtype=np.int64)
        height, width = array.shape[:2]  # the processor leaves boxes unclipped
        boxes = result["boxes"].float().cpu().numpy().clip(0, [width, height, width, height])
        return xyxy_to_coco(boxes, result["scores"].float().cpu().numpy(), labels)

    def weight_files(self) -> list[Path]:
        if self._source is None:
            return []
        return sorted(self._source.glob("*.safetensors")) + sorted(self._source.glob("*.bin"))


def _info(
    title: str, hub_id: str, repo: str, ap: float, paper: str, note: str, requires: tuple[str, ...]
) -> AdapterInfo:
    # code_repo is the authors' repository (seed 000, section 06); the code that runs is its
    # port in huggingface/transformers (and timm for DETR's backbone), Apache-2.0 as well.
    return AdapterInfo(
        display_name=title,
        code_repo=repo,
        code_licence="Apache-2.0",
        code_licence_url=f"{repo}/blob/main/LICENSE",
        code_licence_read_on=_READ_ON,
        weights=(
            WeightsInfo(
                checkpoint=hub_id,
                licence="Apache-2.0",
                licence_url=f"https://huggingface.co/{hub_id}",
                read_on=_READ_ON,
                source_url=f"https://huggingface.co/{hub_id}",
            ),
        ),
        default_input_size="processor default: shorter side 800, longer at most 1333"
        if "detr-resnet" in hub_id
        else "640x640",
        paper=PaperScore(
            value=ap, metric="box AP@[.5:.95]", benchmark="COCO val2017", url=paper, note=note
        ),
        requires=requires,
    )


@register
class DETR(_HFDetector):
    name = "detr-resnet50"
    precisions = ("fp32",)  # the official DETR code evaluates in fp32 only
    hub_id = "facebook/detr-resnet-50"
    info = _info(
        "DETR ResNet-50",
        hub_id,
        "https://github.com/facebookresearch/detr",
        42.0,
        "https://arxiv.org/abs/2005.12872",
        "Carion et al. 2020, Table 1 (DETR, R50)",
        ("transformers", "timm"),  # the checkpoint's config: use_timm_backbone, timm resnet50
    )


@register
class RTDETR(_HFDetector):
    name = "rtdetr-r50vd"
    precisions = ("fp16", "fp32")  # the official RT-DETR code runs with AMP
    hub_id = "PekingU/rtdetr_r50vd"
    contiguous_labels = True
    info = _info(
        "RT-DETR R50vd",
        hub_id,
        "https://github.com/lyuwenyu/RT-DETR",
        53.1,
        "https://arxiv.org/abs/2304.08069",
        "Zhao et al. 2024 (DETRs Beat YOLOs), RT-DETR-R50",
        ("transformers",),  # its ResNet-vd backbone is transformers' own
    )
