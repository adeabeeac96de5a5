"""torchvision detectors: real load + predict on randomly initialised weights (no download),
torchvision's own loading path for the published checkpoint, and refusals in one line.

Random weights only test code paths: such an adapter refuses ``weight_files`` (the harness
then fails the run), so no record, ranked or not, can come of it. scripts/test.sh installs
torch==2.14.1 + torchvision==0.29.1 (requirements-measure.txt), so nothing here is skipped there.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import io

import numpy as np
import pytest

try:
    import torch
    import torchvision.models.detection as detection
    from torchvision.ops.misc import FrozenBatchNorm2d
except Exception as exc:  # a torchvision built for another torch fails with RuntimeError
    pytest.skip(
        f"torchvision does not import here ({type(exc).__name__}: {exc}); "
        "fix: pip install -r requirements-measure.txt (torch==2.14.1 torchvision==0.29.1)",
        allow_module_level=True,
    )

from measure.adapters import (
    RANDOM_WEIGHTS_REASON,
    MissingPackageError,
    RandomWeightsError,
    registry,
    resolve,
)
from measure.adapters import torchvision_detectors as tv
from measure.adapters.base import check_detections

TORCHVISION = [n for n, cls in registry().items() if issubclass(cls, tv._TorchvisionDetector)]
SMALL = {"min_size": 64, "max_size": 96}  # the RCNN-style transform resizes to this
# Random weights, small and few: thresholds 0 so the untrained heads still yield detections
# through the whole post-processing path; few candidates so NMS stays cheap.
MODEL_KWARGS = {
    "fasterrcnn-resnet50-fpn": {
        **SMALL,
        "box_score_thresh": 0.0,
        "rpn_pre_nms_top_n_test": 50,
        "rpn_post_nms_top_n_test": 20,
        "box_detections_per_img": 20,
    },
    "retinanet-resnet50-fpn": {
        **SMALL,
        "score_thresh": 0.0,
        "topk_candidates": 20,
        "detections_per_img": 20,
    },
    "fcos-resnet50-fpn": {
        **SMALL,
        "score_thresh": 0.0,
        "topk_candidates": 20,
        "detections_per_img": 20,
    },
    "ssdlite320-mobilenet-v3-large": {"topk_candidates": 2, "detections_per_img": 20},
}
COCO_IDS = set(range(1, 91))


@pytest.fixture(autouse=True)
def one_thread():
    """One intra-op thread: steadier than two on a machine whose cores are shared."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _image(height: int = 60, width: int = 80) -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, size=(height, width, 3), dtype=np.uint8)


_RANDOM: dict[tuple[str, int], object] = {}


def _random(name: str, seed: int = 0):
    """The adapter on seeded random weights (``MODEL_KWARGS``), built once per session."""
    if (name, seed) not in _RANDOM:
        adapter = resolve(name)(random_init=True, model_kwargs=MODEL_KWARGS[name])
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            adapter.load("cpu", "fp32")
        _RANDOM[name, seed] = adapter
    return _RANDOM[name, seed]


def test_every_torchvision_adapter_is_covered():
    assert sorted(TORCHVISION) == sorted(MODEL_KWARGS)


@pytest.mark.parametrize("name", sorted(MODEL_KWARGS))
def test_random_weights_load_and_predict_well_formed_detections(name):
    adapter = _random(name)
    image = _image()
    dets = check_detections(adapter.predict(image), "noise.png")  # the harness's own check
    assert 0 < len(dets) <= 20
    for det in dets:
        x, y, w, h = det["bbox"]
        assert min(x, y, w, h) >= 0 and x + w <= 80 + 1e-3 and y + h <= 60 + 1e-3
        assert type(det["category_id"]) is int and det["category_id"] in COCO_IDS
    assert adapter.predict(image) == dets  # deterministic in eval mode
    with pytest.raises(RandomWeightsError, match=r"random weights \(code-path test\)") as err:
        adapter.weight_files()
    assert "\n" not in str(err.value) and RANDOM_WEIGHTS_REASON in str(err.value)


def test_a_random_weights_run_through_the_worker_fails_and_is_never_listable(tmp_path):
    """The worker code every ``python -m measure run`` process runs: after the timed calls it
    asks for the weight files, the random-weights adapter refuses, so the run is an error and
    the record a failed, unlistable one."""
    from PIL import Image

    from measure import record, worker

    adapter_file = tmp_path / "random_ssd.py"
    adapter_file.write_text(
        "from measure.adapters.torchvision_detectors import SSDlite\n\n"
        "class RandomSSD(SSDlite):\n"
        "    def __init__(self, weights=None):\n"
        "        super().__init__(random_init=True,\n"
        "                         model_kwargs={'topk_candidates': 2, 'detections_per_img': 5})\n"
    )
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    Image.fromarray(_image(40, 40)).save(inputs / "noise.png")
    argv = ["--adapter", f"{adapter_file}:RandomSSD", "--device", "cpu", "--precision", "fp32",
            "--inputs", str(inputs), "--warmup", "0", "--calls", "1",
            "--out", str(tmp_path / "run.json")]
    channel = io.StringIO()
    with pytest.raises(RandomWeightsError) as err:
        worker.run_worker(worker._parser().parse_args(argv), channel)
    assert "@measure-progress 1 1" in channel.getvalue()  # it was timed, then refused
    error = f"{type(err.value).__name__}: {err.value}"  # what worker.main() stores
    figures = record.recompute({"runs": [{"error": error}]})
    assert figures["status"] == "failed" and figures["listable"] is False
    assert figures["listable_reason"] == RANDOM_WEIGHTS_REASON
    assert RANDOM_WEIGHTS_REASON in error


def test_published_checkpoint_loads_through_torchvisions_own_builder(tmp_path, monkeypatch):
    """A file in torch hub's cache under the published name: our load equals torchvision's
    ``retinanet_resnet50_fpn(weights=COCO_V1)`` (frozen batch norm with eps 0, same tensors)."""
    published = detection.RetinaNet_ResNet50_FPN_Weights.COCO_V1
    name = published.url.rsplit("/", 1)[-1]
    monkeypatch.setattr(torch.hub, "_hub_dir", str(tmp_path))
    (tmp_path / "checkpoints").mkdir()
    file = tmp_path / "checkpoints" / name
    # the random-init model's tensors: the state dict does not depend on MODEL_KWARGS
    torch.save(_random("retinanet-resnet50-fpn")._model.state_dict(), file)
    prefix = tv._sha256(file)[:8]
    monkeypatch.setattr(tv, "expected_sha256_prefix", lambda _: prefix)
    ours = resolve("retinanet-resnet50-fpn")()
    ours.load("cpu", "fp32")
    assert ours.weight_files() == [file]
    theirs = detection.retinanet_resnet50_fpn(weights=published).eval()  # reads the cache
    assert [type(m) for m in ours._model.modules()] == [type(m) for m in theirs.modules()]
    frozen = [m for m in ours._model.modules() if isinstance(m, FrozenBatchNorm2d)]
    assert frozen and all(m.eps == 0.0 for m in frozen)  # what the builder sets for COCO_V1
    mine, ref = ours._model.state_dict(), theirs.state_dict()
    assert mine.keys() == ref.keys()
    assert all(torch.equal(mine[k], ref[k]) for k in ref)


def test_local_weights_file_predicts_like_the_same_weights_built_at_random(tmp_path, monkeypatch):
    """``--weights FILE`` (the path measured runs take) on SSDlite: same detections as the
    random-init model whose state dict the file holds."""
    name = "ssdlite320-mobilenet-v3-large"
    rnd = _random(name, seed=2)
    file = tmp_path / "ssdlite.pth"
    torch.save(rnd._model.state_dict(), file)
    prefix = tv._sha256(file)[:8]
    monkeypatch.setattr(tv, "expected_sha256_prefix", lambda _: prefix)
    adapter = resolve(name)(weights=str(file))
    adapter.load("cpu", "fp32")
    adapter._model.topk_candidates, adapter._model.detections_per_img = 2, 20  # as rnd's
    image = _image()
    assert adapter.predict(image) == rnd.predict(image)
    assert adapter.weight_files() == [file] and adapter.random_weights is False
    assert adapter._model.transform.fixed_size == (320, 320)  # info.default_input_size


def test_published_metadata_matches_torchvisions_own():
    for name in TORCHVISION:
        cls = registry()[name]
        published = getattr(detection, cls.weights_enum).COCO_V1
        weights = cls.info.weights[0]
        assert weights.source_url == published.url
        assert weights.file_name == published.url.rsplit("/", 1)[-1]
        assert len(tv.expected_sha256_prefix(weights.file_name)) == 8
        assert cls.info.paper.value == published.meta["_metrics"]["COCO-val2017"]["box_map"]
        assert cls.info.paper.url.endswith(f"{cls.builder}.html")
        assert cls.info.code_licence == "BSD-3-Clause" and cls.info.weights[0].licence
    license_file = next(
        p for p in importlib.metadata.distribution("torchvision").files if p.name == "LICENSE"
    )
    assert license_file.read_text().startswith("BSD 3-Clause License")


def test_default_input_size_is_what_the_builder_uses():
    for cls_name in ("FasterRCNN", "RetinaNet", "FCOS"):
        params = inspect.signature(getattr(detection, cls_name)).parameters
        assert (params["min_size"].default, params["max_size"].default) == (800, 1333)
    for name in TORCHVISION:
        expected = (
            "320x320"
            if name.startswith("ssdlite")
            else ("shorter side 800, longer side at most 1333")
        )
        assert registry()[name].info.default_input_size == expected


def test_foreign_weights_file_is_refused_in_one_line_before_it_is_read(tmp_path):
    file = tmp_path / "not_published.pth"
    file.write_bytes(b"\x80\x04 not a checkpoint")  # never unpickled: the hash check comes first
    adapter = resolve("fcos-resnet50-fpn")(weights=str(file))
    with pytest.raises(ValueError, match="but torchvision's published fcos_resnet50") as err:
        adapter.load("cpu", "fp32")
    assert "\n" not in str(err.value) and "fix: use the file from https://" in str(err.value)


def test_missing_weights_offline_is_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setattr(torch.hub, "_hub_dir", str(tmp_path))

    def offline(*_a, **_k):
        raise OSError("[Errno -3] Temporary failure in name resolution\nsecond line")

    monkeypatch.setattr(torch.hub, "download_url_to_file", offline)
    with pytest.raises(FileNotFoundError, match="could not be downloaded") as err:
        resolve("retinanet-resnet50-fpn")().load("cpu", "fp32")
    assert "\n" not in str(err.value) and "fix: download https://" in str(err.value)
    with pytest.raises(FileNotFoundError, match="no such file; fix: download") as err:
        resolve("retinanet-resnet50-fpn")(weights=str(tmp_path / "absent.pth")).load("cpu", "fp32")


def test_random_init_options_are_refused_where_they_would_change_a_measured_run():
    with pytest.raises(ValueError, match="model_kwargs are for random_init code-path tests only"):
        resolve("fcos-resnet50-fpn")(model_kwargs={"min_size": 64})
    with pytest.raises(ValueError, match="exclude each other"):
        resolve("fcos-resnet50-fpn")(weights="w.pth", random_init=True)


def test_torchvision_that_does_not_import_is_one_line_with_the_install(monkeypatch):
    from measure.adapters import base

    real = importlib.import_module

    def import_module(name, *args):
        if name.startswith("torchvision"):
            raise RuntimeError("operator torchvision::nms does not exist\nmore")
        return real(name, *args)

    monkeypatch.setattr(base.importlib, "import_module", import_module)
    with pytest.raises(MissingPackageError, match="fix: pip install torch==2.14.1") as err:
        resolve("fasterrcnn-resnet50-fpn")().load("cpu", "fp32")
    assert "\n" not in str(err.value) and "RuntimeError" in str(err.value)
