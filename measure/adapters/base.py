"""The adapter protocol: one small class per model, implementable in one file.

An adapter turns one image into COCO-style detections. One ``predict`` call is the whole
user-visible cost: preprocessing, the forward pass and postprocessing (seed 000, section 03).
Heavy packages (torch, torchvision, transformers) are imported inside ``load`` so that the
registry and its metadata can be read on any machine.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from analytics.core.problems import Problem

PRECISIONS = ("fp16", "bf16", "fp32")
"""Precision names in protocol preference order (seed 000, section 03)."""


RANDOM_WEIGHTS_REASON = "random weights (code-path test)"
"""Why a run on randomly initialised weights is never a result (no record, never listed)."""


class MissingPackageError(Problem, RuntimeError):
    """An adapter needs a package that is not installed; ``fix`` says how to install it."""

    exit_status = 2  # `measure run` has always exited 2 for it


class RandomWeightsError(Problem, RuntimeError):
    """A randomly initialised adapter was asked for its weight files: it only tests code paths."""


class AdapterError(Problem, ValueError):
    """An adapter class the harness cannot run (registration, ``--adapter``): ``where`` names
    the class or the ``--adapter`` value, ``what`` is missing, ``fix`` what to write."""

    exit_status = 2  # a refused command line (`measure run --adapter ...`)


@dataclass(frozen=True)
class WeightsInfo:
    """One checkpoint and its licence, as read from its model card on ``read_on``."""

    checkpoint: str
    licence: str
    licence_url: str
    read_on: str
    source_url: str
    file_name: str = ""


@dataclass(frozen=True)
class PaperScore:
    """The authors' own number for this checkpoint, shown beside ours and labelled.

    ``value`` is None where the authors publish no single figure (only curves, say).
    """

    value: float | None
    metric: str
    benchmark: str
    url: str
    note: str = ""


@dataclass(frozen=True)
class AdapterInfo:
    """Metadata every registered adapter declares (seed 000, sections 01 and 06)."""

    display_name: str
    code_repo: str
    code_licence: str
    code_licence_url: str
    code_licence_read_on: str
    weights: tuple[WeightsInfo, ...]
    default_input_size: str
    paper: PaperScore | None
    runs_with_fixes: bool = False
    patch_url: str = ""
    requires: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        """Plain-JSON form, embedded in every run record."""
        return asdict(self)


class Adapter:
    """Base class of every adapter. Subclasses set the class attributes and two methods."""

    name: ClassVar[str] = ""
    task: ClassVar[str] = ""
    precisions: ClassVar[tuple[str, ...]] = ("fp32",)
    devices: ClassVar[tuple[str, ...]] = ("cpu",)
    """Where the adapter's runtime can run: ("cpu",) or ("cpu", "cuda"). The GPU check
    (``measure gpu-check``) measures every adapter that lists "cuda"."""
    info: ClassVar[AdapterInfo | None] = None
    random_weights: bool = False
    """True for an instance built with randomly initialised weights (tests only, e.g. the
    torchvision detectors' ``random_init=True``): ``weight_files`` then raises, so the
    harness, which hashes every weights file into the record, fails such a run."""

    def __init__(self, weights: str | None = None) -> None:
        self.weights = weights

    def load(self, device: str, precision: str) -> None:
        """Load the model onto ``device`` ("cpu", "cuda", "cuda:N") at ``precision``."""
        raise NotImplementedError

    def predict(self, image: str | Path | np.ndarray) -> list[dict]:
        """Detections for one image: dicts with ``bbox`` [x, y, w, h], ``score``, ``category_id``.

        ``bbox`` is in the original image's pixels; ``category_id`` is a COCO id.
        """
        raise NotImplementedError

    def weight_files(self) -> list[Path]:
        """Files holding the loaded weights (hashed into the run record); call after ``load``."""
        return []


class BadOutputError(Problem, ValueError):
    """An adapter returned a malformed detection: ``where`` the image, ``what`` the detection
    index and its problem, ``fix`` the format ``predict`` must return."""


def check_detections(detections: Any, image: str) -> list[dict]:
    """``detections`` as ``predict`` must return them, or ``BadOutputError`` (one line naming the
    image, the detection index and what is wrong)."""
    from analytics.core import run_schema

    fix = "predict() must return [{'bbox': [x, y, w, h], 'score': 0..1, 'category_id': int >= 0}]"
    if not isinstance(detections, list):
        what = f"predict() returned {type(detections).__name__}, not a list"
        raise BadOutputError(f"image {image}", what, fix)
    for index, det in enumerate(detections):
        problem = run_schema.detection_problem(det)
        if problem is not None:
            raise BadOutputError(f"image {image}", f"detection {index} {problem}", fix)
    return detections


def refuse_random_weights(adapter: Any) -> None:
    """Raise ``RandomWeightsError`` (one line) when ``adapter`` runs on random weights.

    Adapters call it first in ``weight_files``: the worker asks for the weight files after
    the timed calls, so a measurement of random weights ends as a failed run whose error
    names ``RANDOM_WEIGHTS_REASON``; a failed run is never listable (``measure/record.py``).
    """
    if getattr(adapter, "random_weights", False):
        raise RandomWeightsError(
            getattr(adapter, "name", type(adapter).__name__),
            f"{RANDOM_WEIGHTS_REASON}: randomly initialised weights are never measured or listed",
            "load the published checkpoint (--weights FILE)",
        )


def require(module: str, install: str) -> Any:
    """Import ``module`` or raise a one-line error that names the install command."""
    try:
        return importlib.import_module(module)
    except (ImportError, OSError, RuntimeError, AttributeError) as exc:
        # Not only ImportError: a torchvision wheel built for another torch fails at import
        # with RuntimeError ("operator torchvision::nms does not exist") or a missing symbol.
        why = (str(exc).splitlines() or [""])[0][:200]
        what = f"package {module!r} is not importable ({type(exc).__name__}: {why})"
        raise MissingPackageError(what=what, fix=install) from None


def load_image(image: str | Path | np.ndarray) -> np.ndarray:
    """An HxWx3 uint8 RGB array from a path or an array (grey and RGBA are converted)."""
    if isinstance(image, np.ndarray):
        array = image
    else:
        from PIL import Image

        with Image.open(image) as im:
            return np.asarray(im.convert("RGB"), dtype=np.uint8)
    if array.ndim == 2:
        array = np.stack([array] * 3, axis=-1)
    if array.ndim != 3 or array.shape[2] not in (3, 4) or array.dtype != np.uint8:
        raise ValueError(f"image must be HxWx3 uint8, got shape {array.shape} {array.dtype}")
    return np.ascontiguousarray(array[:, :, :3])


def torch_dtype(torch: Any, precision: str) -> Any:
    """The torch dtype for a protocol precision name."""
    return {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[precision]


def xyxy_to_coco(boxes: np.ndarray, scores: np.ndarray, labels: np.ndarray) -> list[dict]:
    """COCO result dicts from corner boxes, scores and category ids (one row per detection)."""
    out = []
    rows = zip(boxes.tolist(), scores.tolist(), labels.tolist(), strict=True)
    for (x1, y1, x2, y2), score, label in rows:
        out.append(
            {
                "bbox": [x1, y1, x2 - x1, y2 - y1],
                "score": float(score),
                "category_id": int(label),
            }
        )
    return out
