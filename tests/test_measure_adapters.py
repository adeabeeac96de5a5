"""Adapter registry metadata (every adapter), the MTCNN port, and the lazily-imported ones."""

from __future__ import annotations

import datetime as dt
import importlib
import importlib.util
import json
import subprocess
import sys
import types

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.core import paths
from measure.adapters import AdapterError, MissingPackageError, register, registry, resolve
from measure.adapters import mtcnn as mt
from measure.adapters.base import PRECISIONS, Adapter, load_image
from measure.coco import COCO80_TO_91, evaluate, load_ground_truth
from measure.tasks import load_tasks

REGISTRY = registry()
INPUTS = paths.REPO_ROOT / "data" / "catalog" / "vision" / "inputs" / "cc0"
HAS_FACENET = importlib.util.find_spec("facenet_pytorch") is not None
needs_facenet = pytest.mark.skipif(not HAS_FACENET, reason=f"facenet-pytorch absent: {mt.INSTALL}")


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread: torch 2.14.1's OpenMP threads slow down several-fold when the two
    cores are shared with other processes (the MTCNN test: about 3 s instead of 20 s)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


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


FRAMEWORK_ADAPTERS = [
    n for n in REGISTRY if {"torchvision", "transformers"} & set(REGISTRY[n].info.requires)
]


@pytest.mark.parametrize("name", FRAMEWORK_ADAPTERS)
def test_framework_adapter_without_its_package_says_what_to_install(name, monkeypatch):
    """The framework failing to import (absent, or a wheel built for another torch) is one
    line naming the install; the real load + predict runs in tests/test_measure_torchvision.py
    and the tiny DETR / RT-DETR tests below."""
    from measure.adapters import base

    package = "torchvision" if "torchvision" in REGISTRY[name].info.requires else "transformers"
    real = importlib.import_module

    def import_module(module, *args):
        if module.split(".")[0] == package:
            raise ImportError(f"No module named {package!r}")
        return real(module, *args)

    monkeypatch.setattr(base.importlib, "import_module", import_module)
    adapter = REGISTRY[name](weights=None)
    with pytest.raises(MissingPackageError) as err:
        adapter.load("cpu", "fp32")
    assert err.value.fix.startswith("pip install") and package in err.value.what
    assert "\n" not in str(err.value)


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


def _torchvision_imports() -> bool:
    try:
        import torchvision.ops  # noqa: F401
    except Exception:  # absent, or a wheel built for another torch (RuntimeError)
        return False
    return True


def _install_torchvision_shim(monkeypatch) -> None:
    """Just enough of torchvision for facenet-pytorch's own detect_face to import and run,
    where the real torchvision does not import (the app's torch 2.13.0 CPU install); with
    scripts/test.sh's torch 2.14.1 + torchvision 0.29.1 the package runs unmodified."""
    if _torchvision_imports():
        return

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


HAS_TRANSFORMERS = importlib.util.find_spec("transformers") is not None
needs_transformers = pytest.mark.skipif(
    not HAS_TRANSFORMERS, reason="transformers absent: pip install transformers (see requirements)"
)
TINY_QUERIES = 12


@pytest.fixture(scope="module")
def tiny_rtdetr_folder(tmp_path_factory):
    """A seeded, randomly initialised, very small RT-DETR saved as a local model folder."""
    from transformers import (
        RTDetrConfig,
        RTDetrForObjectDetection,
        RTDetrImageProcessorPil,
        RTDetrResNetConfig,
    )

    backbone = RTDetrResNetConfig(
        embedding_size=8,
        hidden_sizes=[8, 16, 32, 64],
        depths=[1, 1, 1, 1],
        layer_type="basic",
        out_indices=[2, 3, 4],
    )
    config = RTDetrConfig(
        backbone_config=backbone,
        encoder_in_channels=[16, 32, 64],
        encoder_hidden_dim=16,
        encoder_ffn_dim=32,
        encoder_attention_heads=2,
        d_model=16,
        decoder_in_channels=[16, 16, 16],
        decoder_ffn_dim=32,
        decoder_layers=1,
        decoder_attention_heads=2,
        num_queries=TINY_QUERIES,
        num_denoising=0,
        id2label={i: f"coco80_{i}" for i in range(80)},  # contiguous, like the hub checkpoint
    )
    folder = tmp_path_factory.mktemp("rtdetr_tiny")
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = RTDetrForObjectDetection(config)
        with torch.no_grad():  # widen every box so some spill past the edge: exercises clipping
            model.model.decoder.bbox_embed[-1].layers[-1].bias.copy_(torch.tensor([0, 0, 4, 4]))
        model.save_pretrained(folder)
    RTDetrImageProcessorPil(size={"height": 128, "width": 128}).save_pretrained(folder)
    return folder


def _reference_rtdetr(folder, image: np.ndarray) -> list[tuple]:
    """Hugging Face's own pipeline on the same folder: (x1, y1, x2, y2, score, label80)."""
    from transformers import AutoImageProcessor, AutoModelForObjectDetection

    image = np.array(image)  # a writable copy, as the adapter gives the processor
    processor = AutoImageProcessor.from_pretrained(folder)
    model = AutoModelForObjectDetection.from_pretrained(folder).eval()
    with torch.inference_mode():
        outputs = model(**processor(images=image, return_tensors="pt"))
    result = processor.post_process_object_detection(
        outputs, threshold=0.0, target_sizes=[image.shape[:2]]
    )[0]
    columns = (result[k].tolist() for k in ("boxes", "scores", "labels"))
    return [(*box, score, label) for box, score, label in zip(*columns, strict=True)]


def _assert_detection_contract(dets: list[dict], height: int, width: int) -> None:
    assert isinstance(dets, list) and len(dets) == TINY_QUERIES  # threshold 0 keeps every query
    valid_ids = {COCO80_TO_91[i] for i in range(80)}
    for det in dets:
        assert set(det) == {"bbox", "score", "category_id"}
        x, y, w, h = det["bbox"]
        assert all(isinstance(v, float) for v in det["bbox"])
        assert 0 <= x and 0 <= y and w >= 0 and h >= 0
        assert x + w <= width + 1e-3 and y + h <= height + 1e-3
        assert isinstance(det["score"], float) and 0.0 <= det["score"] <= 1.0
        assert type(det["category_id"]) is int and det["category_id"] in valid_ids


@needs_transformers
def test_rtdetr_loads_a_local_folder_and_keeps_the_detection_contract(tiny_rtdetr_folder):
    adapter = resolve("rtdetr-r50vd")(weights=str(tiny_rtdetr_folder))
    adapter.load("cpu", "fp32")
    assert next(adapter._model.parameters()).dtype == torch.float32
    assert [f.name for f in adapter.weight_files()] == ["model.safetensors"]
    noise = np.random.default_rng(0).integers(0, 256, size=(97, 131, 3), dtype=np.uint8)
    cases = [(load_image(INPUTS / "chelsea.png"), INPUTS / "chelsea.png"), (noise, noise)]
    for image, source in cases:  # a CC0 photo by path, then an HxWx3 uint8 array
        dets = adapter.predict(source)
        height, width = image.shape[:2]
        _assert_detection_contract(dets, height, width)
        expected = _reference_rtdetr(tiny_rtdetr_folder, image)
        for det, (x1, y1, x2, y2, score, label) in zip(dets, expected, strict=True):
            assert det["score"] == pytest.approx(score, abs=1e-6)
            assert det["category_id"] == COCO80_TO_91[label]  # model labels 0..79 -> COCO ids
            x, y, w, h = det["bbox"]
            clipped = np.clip([x1, y1, x2, y2], 0, [width, height, width, height])
            np.testing.assert_allclose([x, y, x + w, y + h], clipped, atol=1e-3)


@needs_transformers
def test_rtdetr_missing_weights_folder_is_one_line_error(tmp_path):
    adapter = resolve("rtdetr-r50vd")(weights=str(tmp_path / "not_downloaded"))
    with pytest.raises(FileNotFoundError, match="no config.json there; fix: download") as err:
        adapter.load("cpu", "fp32")
    assert "\n" not in str(err.value) and "not_downloaded" in str(err.value)


DETR_LABELS = 91  # the hub checkpoint's classes are COCO ids 0..90 (gaps named "N/A")


@pytest.fixture(scope="module", params=["transformers-resnet", "timm-resnet18"])
def tiny_detr_folder(request, tmp_path_factory):
    """A seeded, randomly initialised, very small DETR saved as a local model folder, like a
    download of facebook/detr-resnet-50: with a transformers ResNet backbone, and with a timm
    one (what that checkpoint's config names: ``use_timm_backbone``, timm's resnet50)."""
    from transformers import DetrConfig, DetrForObjectDetection, DetrImageProcessor, ResNetConfig

    if request.param.startswith("timm"):
        if importlib.util.find_spec("timm") is None:
            pytest.skip("timm absent: pip install -r requirements-measure.txt (timm==1.0.29)")
        backbone = {"use_timm_backbone": True, "backbone": "resnet18"}
    else:
        backbone = {
            "backbone_config": ResNetConfig(
                embedding_size=8,
                hidden_sizes=[8, 16, 32, 64],
                depths=[1, 1, 1, 1],
                layer_type="basic",
                out_features=["stage4"],
            )
        }
    config = DetrConfig(
        **backbone,
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        num_queries=TINY_QUERIES,
        id2label={i: f"coco_{i}" for i in range(DETR_LABELS)},
    )
    folder = tmp_path_factory.mktemp(f"detr_tiny_{request.param}")
    with torch.random.fork_rng():
        torch.manual_seed(0)
        DetrForObjectDetection(config).save_pretrained(folder)
    DetrImageProcessor(size={"shortest_edge": 64, "longest_edge": 96}).save_pretrained(folder)
    return folder


@needs_transformers
def test_detr_loads_a_local_folder_and_matches_hugging_faces_pipeline(tiny_detr_folder):
    adapter = resolve("detr-resnet50")(weights=str(tiny_detr_folder))
    adapter.load("cpu", "fp32")
    assert [f.name for f in adapter.weight_files()] == ["model.safetensors"]
    image = np.random.default_rng(1).integers(0, 256, size=(61, 83, 3), dtype=np.uint8)
    dets = adapter.predict(image)
    assert len(dets) == TINY_QUERIES  # threshold 0 keeps every query
    expected = _reference_rtdetr(tiny_detr_folder, image)  # the same generic HF pipeline
    for det, (x1, y1, x2, y2, score, label) in zip(dets, expected, strict=True):
        assert set(det) == {"bbox", "score", "category_id"}
        assert det["score"] == pytest.approx(score, abs=1e-6) and 0.0 <= det["score"] <= 1.0
        assert type(det["category_id"]) is int and det["category_id"] == label  # COCO ids as is
        x, y, w, h = det["bbox"]
        clipped = np.clip([x1, y1, x2, y2], 0, [83, 61, 83, 61])
        np.testing.assert_allclose([x, y, x + w, y + h], clipped, atol=1e-3)


# --- external adapters through `python -m measure run --adapter FILE.py:Class` -------------

EXTERNAL = '''
class Duck:
    """The documented protocol, no base class, no __init__, no weight_files, no info."""
    name = "duck"
    task = "face-detection"
    precisions = ("fp32",)

    def load(self, device, precision):
        self.box = [180.0, 72.0, 90.0, 105.0]

    def predict(self, image):
        return [{"bbox": list(self.box), "score": 0.9, "category_id": 1}]


class NoPredict:
    name = "no-predict"
    task = "face-detection"
    precisions = ("fp32",)

    def load(self, device, precision):
        pass


class NeedsConfig(Duck):
    def __init__(self, config):
        self.config = config
'''


def _measure_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "measure", "run", *args, "--no-progress"],
        cwd=paths.REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_duck_typed_external_adapter_runs_end_to_end_through_the_cli(tmp_path):
    source = tmp_path / "duck.py"
    source.write_text(EXTERNAL)
    out = tmp_path / "runs"
    done = _measure_cli(
        "--adapter", f"{source}:Duck", "--runs", "1", "--warmup", "0", "--calls", "2",
        "--out", str(out),
    )
    assert done.returncode == 0, done.stderr
    (record_file,) = (out / "records").glob("*.json")
    record = json.loads(record_file.read_text())
    assert record["status"] == "ok" and record["error"] is None
    assert record["adapter"]["name"] == "duck" and record["adapter"]["info"] is None
    assert record["weights"] == [] and len(record["runs"][0]["calls_ms"]) == 2
    assert record["outputs"] and record["outputs"][0]["bbox"] == [180.0, 72.0, 90.0, 105.0]
    assert record["protocol"]["standard"] is False  # 1/0/2 calls: shown, never ranked


@pytest.mark.parametrize(
    ("cls_name", "fragment"),
    [("NoPredict", "lacks 'predict'"), ("NeedsConfig", "__init__ requires config")],
)
def test_external_class_off_the_protocol_is_one_line_naming_what_is_missing(
    tmp_path, cls_name, fragment
):
    source = tmp_path / "duck.py"
    source.write_text(EXTERNAL)
    done = _measure_cli("--adapter", f"{source}:{cls_name}", "--out", str(tmp_path / "runs"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0] and "docs/measure.md" in lines[0]
    assert "TypeError" not in lines[0]
    assert {p.name for p in (tmp_path / "runs").iterdir()} == {"jobs"}  # no record or table


def test_registering_a_class_that_keeps_the_base_predict_is_refused_naming_class_and_method():
    """A class that does not define predict() is refused when it registers, not mid-measurement
    (Adapter.predict raises NotImplementedError)."""

    class LoadsOnly(Adapter):
        name = "loads-only-test"
        task = "face-detection"

        def load(self, device, precision):
            pass

    with pytest.raises(AdapterError) as caught:
        register(LoadsOnly)
    assert caught.value.where == f"adapter class {__name__}.{LoadsOnly.__qualname__}"
    assert caught.value.what.startswith("does not define predict ")
    assert "load" not in caught.value.what and "predict(self, image)" in caught.value.fix
    assert "loads-only-test" not in registry()
    with pytest.raises(AdapterError) as caught:
        register(type("Bare", (Adapter,), {"name": "bare-test", "task": "face-detection"}))
    assert caught.value.what.startswith("does not define load, predict ")


def test_an_external_subclass_keeping_the_base_predict_is_refused_before_it_runs(tmp_path):
    source = tmp_path / "half.py"
    source.write_text(
        "from measure.adapters import Adapter\n\n\nclass Half(Adapter):\n"
        "    name = 'half'\n    task = 'face-detection'\n\n"
        "    def load(self, device, precision):\n        pass\n"
    )
    with pytest.raises(AdapterError) as caught:
        resolve(f"{source}:Half")
    assert caught.value.where == f"--adapter {source}:Half"
    assert caught.value.what.startswith("class Half does not define predict ")
    assert "docs/measure.md" in caught.value.fix and caught.value.exit_status == 2


@needs_transformers
def test_hub_adapters_declare_the_processors_default_input_size():
    from transformers import DetrImageProcessor, RTDetrImageProcessor

    assert DetrImageProcessor().size == {"shortest_edge": 800, "longest_edge": 1333}
    assert (
        "shorter side 800, longer at most 1333" in REGISTRY["detr-resnet50"].info.default_input_size
    )
    assert RTDetrImageProcessor().size == {"height": 640, "width": 640}
    assert REGISTRY["rtdetr-r50vd"].info.default_input_size == "640x640"
    assert REGISTRY["rtdetr-r50vd"].info.requires == ("transformers",)  # no timm backbone
    assert "timm" in REGISTRY["detr-resnet50"].info.requires
