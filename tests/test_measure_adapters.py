"""Adapter registry metadata (every adapter), the MTCNN port, and the lazily-imported ones."""

from __future__ import annotations

import datetime as dt
import importlib.util
import sys
import types

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics import paths
from measure.adapters import MissingPackageError, registry, resolve
from measure.adapters import mtcnn as mt
from measure.adapters.base import PRECISIONS, load_image
from measure.coco import evaluate, load_ground_truth
from measure.tasks import load_tasks

REGISTRY = registry()
INPUTS = paths.REPO_ROOT / "data" / "catalog" / "vision" / "inputs" / "cc0"
HAS_FACENET = importlib.util.find_spec("facenet_pytorch") is not None
needs_facenet = pytest.mark.skipif(not HAS_FACENET, reason=f"facenet-pytorch absent: {mt.INSTALL}")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_registered_adapter_declares_complete_metadata(name):
    cls = REGISTRY[name]
    info = cls.info
    assert info is not None and cls.name == name
    assert cls.task in load_tasks()
    assert cls.precisions and set(cls.precisions) <= set(PRECISIONS)
    assert info.code_repo.startswith("https://") and info.code_licence
    assert info.code_licence_url.startswith("https://")
    dt.date.fromisoformat(info.code_licence_read_on)
    assert info.weights, "every checkpoint states its weights licence"
    for weights in info.weights:
        assert weights.licence and weights.licence_url.startswith("https://")
        dt.date.fromisoformat(weights.read_on)
    assert info.default_input_size
    assert info.paper is not None and info.paper.url.startswith("https://")
    if info.runs_with_fixes:
        assert (paths.REPO_ROOT / info.patch_url).is_file()


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in REGISTRY
        if "torchvision" in REGISTRY[n].info.requires or "transformers" in REGISTRY[n].info.requires
    ],
)
def test_optional_framework_adapters_load_or_say_what_to_install(name):
    package = "torchvision" if "torchvision" in REGISTRY[name].info.requires else "transformers"
    if importlib.util.find_spec(package) is not None:
        pytest.skip(f"{package} is installed; real-weights test needs the checkpoint files")
    with pytest.raises(MissingPackageError, match="fix: pip install") as err:
        REGISTRY[name]().load("cpu", "fp32")
    assert "\n" not in str(err.value)
    pytest.skip(f"{package} is not installed here: {err.value}")


def _nms_reference(boxes: np.ndarray, scores: np.ndarray, thr: float, plus_one: int) -> list[int]:
    order, keep = list(np.argsort(-scores, kind="stable")), []
    while order:
        i = order.pop(0)
        keep.append(int(i))
        survivors = []
        for j in order:
            xx = min(boxes[i, 2], boxes[j, 2]) - max(boxes[i, 0], boxes[j, 0]) + plus_one
            yy = min(boxes[i, 3], boxes[j, 3]) - max(boxes[i, 1], boxes[j, 1]) + plus_one
            inter = max(0.0, xx) * max(0.0, yy)
            area = [
                (b[2] - b[0] + plus_one) * (b[3] - b[1] + plus_one) for b in (boxes[i], boxes[j])
            ]
            denom = min(area) if plus_one else area[0] + area[1] - inter
            if inter / denom <= thr:
                survivors.append(j)
        order = survivors
    return keep


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 50),
            st.integers(0, 50),
            st.integers(1, 40),
            st.integers(1, 40),
            st.floats(0.01, 1.0),
        ),
        min_size=0,
        max_size=25,
    ),
    st.sampled_from([0.3, 0.5, 0.7]),
    st.sampled_from(["union", "min"]),
)
def test_nms_matches_a_plain_reference(rows, thr, mode):
    boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in rows], dtype=np.float32)
    boxes = boxes.reshape(-1, 4)
    scores = np.array([s for *_, s in rows], dtype=np.float32)
    kept = mt.nms(torch, torch.from_numpy(boxes), torch.from_numpy(scores), thr, mode).tolist()
    assert kept == _nms_reference(boxes, scores, thr, 1 if mode == "min" else 0)


def _install_torchvision_shim(monkeypatch) -> None:
    """Just enough of torchvision for facenet-pytorch's own detect_face to import and run."""

    def batched_nms(boxes, scores, idxs, thr):
        if boxes.numel() == 0:
            return torch.empty(0, dtype=torch.long)
        offsets = idxs.to(boxes) * (boxes.max() + 1)
        return mt.nms(torch, boxes + offsets[:, None], scores, thr)

    modules = {
        name: types.ModuleType(name)
        for name in (
            "torchvision",
            "torchvision.ops",
            "torchvision.ops.boxes",
            "torchvision.transforms",
            "torchvision.transforms.functional",
        )
    }
    modules["torchvision.ops.boxes"].batched_nms = batched_nms
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)


@needs_facenet
def test_mtcnn_port_matches_facenet_pytorch_pipeline(monkeypatch):
    _install_torchvision_shim(monkeypatch)
    from facenet_pytorch.models.mtcnn import ONet, PNet, RNet
    from facenet_pytorch.models.utils.detect_face import detect_face

    theirs = [PNet().eval(), RNet().eval(), ONet().eval()]
    ours = resolve("mtcnn-facenet")()
    ours.load("cpu", "fp32")
    for name in ("astronaut.png", "camera.png", "coffee.png"):
        image = load_image(INPUTS / name)
        with torch.no_grad():
            boxes, _ = detect_face(image, 20, *theirs, [0.6, 0.7, 0.7], 0.709, "cpu")
        expected = np.asarray(boxes[0], dtype=np.float64).reshape(-1, 5)
        got = np.array(
            [
                [
                    *d["bbox"][:2],
                    d["bbox"][0] + d["bbox"][2],
                    d["bbox"][1] + d["bbox"][3],
                    d["score"],
                ]
                for d in ours.predict(image)
            ]
        ).reshape(-1, 5)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


@needs_facenet
def test_mtcnn_finds_the_hand_labelled_faces():
    adapter = resolve("mtcnn-facenet")()
    adapter.load("cpu", "fp32")
    gt = load_ground_truth(INPUTS / "faces_gt.json")
    dets = []
    for image in gt["images"]:
        for det in adapter.predict(INPUTS / image["file_name"]):
            dets.append({**det, "image_id": image["id"]})
    assert {d["image_id"] for d in dets} == {1, 2}  # faces only where there are faces
    assert evaluate(gt, dets)["ap50"] == pytest.approx(1.0)
    assert adapter.weight_files()[0].name == "pnet.pt"


def test_mtcnn_without_package_says_how_to_install(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(MissingPackageError, match="pip install --no-deps facenet-pytorch==2.6.0"):
        mt.weights_dir()
