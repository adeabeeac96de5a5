"""The prepared GPU check (scripts/gpu_check.sh, ``python -m measure gpu-check``), CPU side.

On a machine without an NVIDIA GPU both entry points stop at once with one line; the check's
parts run against the fake NVML module the rest of the harness is tested with.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from measure import gpu_check, nvml
from tests.fixtures.measure import fake_nvml

ROOT = Path(__file__).resolve().parent.parent


def _has_gpu() -> bool:
    return (
        shutil.which("nvidia-smi") is not None
        and subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0
    )


@pytest.fixture()
def gpu(tmp_path, monkeypatch):
    monkeypatch.setenv(fake_nvml.SHARE_ENV, str(tmp_path / "fake_nvml.json"))
    fake_nvml.reset()
    handle, why = nvml.open_gpu("cuda:0", fake_nvml)
    assert why == ""
    return handle


def test_script_without_a_gpu_stops_at_once_with_one_line(tmp_path):
    # A PATH without nvidia-smi stands for a machine without the driver.
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("bash", "dirname", "env"):
        os.symlink(shutil.which(tool), bare / tool)
    out = tmp_path / "out"
    done = subprocess.run(
        ["bash", str(ROOT / "scripts/gpu_check.sh")],
        capture_output=True,
        text=True,
        env={"PATH": str(bare), "OUT": str(out)},
        timeout=60,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "no NVIDIA GPU" in lines[0] and "fix:" in lines[0]
    assert not out.exists()  # nothing written before the check decided


@pytest.mark.skipif(_has_gpu(), reason="this machine has an NVIDIA GPU")
def test_command_without_a_gpu_is_one_refusal(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "measure", "gpu-check", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "no NVIDIA GPU" in done.stderr or "sees no CUDA" in done.stderr
    assert not (tmp_path / "o").exists()


def test_preflight_names_what_is_missing():
    fake_nvml.reset(fail_init=True)
    with pytest.raises(gpu_check.NoGpu) as caught:
        gpu_check.preflight("cuda", fake_nvml)
    assert caught.value.where == "gpu-check" and "NVML unavailable" in caught.value.what
    assert caught.value.exit_status == 2


def test_cuda_adapters_are_the_ones_whose_runtime_can_use_cuda():
    names = [name for name, _ in gpu_check.cuda_adapters()]
    assert "mtcnn-facenet" in names and "fasterrcnn-resnet50-fpn" in names
    # Packaged CPU runtimes (TFLite, OpenCV, dlib, ONNX Runtime's CPU build) are never listed.
    assert not {
        "blazeface-short",
        "haar-frontalface",
        "res10-ssd-opencv",
        "yunet-libfacedetection",
    } & set(names)


def test_sampler_alone_reports_its_achieved_interval(gpu):
    fake_nvml.update(used_mib=512.0)
    result = gpu_check.sampler_alone(gpu, seconds=0.5)
    assert result["samples"] > 5
    assert result["interval_median_ms"] > 0
    assert result["meets_target"] == (result["interval_median_ms"] <= 10.0)
    assert result["used_mib_idle"] == pytest.approx(512.0)


def test_facts_carry_power_limit_and_throttle_reasons(gpu):
    fake_nvml.update(enforced_mw=300000, default_mw=450000, throttle=0x4)
    facts = gpu_check.gpu_facts(gpu)
    assert facts["power_limit_w"] == 300 and facts["power_limited"] == "yes"
    assert facts["throttle_reasons"]


def test_each_adapter_is_a_row_and_its_record_is_verified(tmp_path, monkeypatch):
    monkeypatch.setattr(gpu_check, "cuda_adapters", lambda: [("a", "fp16,fp32"), ("b", "fp32")])
    calls = []

    def fake_call(cmd, limit_s):
        calls.append(cmd[3])
        if cmd[3] == "run" and cmd[5] == "a":  # 'a' measures and writes a record; 'b' fails
            (tmp_path / "records").mkdir(exist_ok=True)
            (tmp_path / "records" / "a-run.json").write_text("{}")
            return 0, "record written"
        return (0, "verified") if cmd[3] == "verify" else (2, "weights missing; fix: ...")

    monkeypatch.setattr(gpu_check, "_call", fake_call)
    rows = gpu_check.measure_adapters(tmp_path, None, 10.0)
    assert [r["adapter"] for r in rows] == ["a", "b"]
    assert rows[0]["records"] == ["a-run.json"] and rows[0]["verify_exit"] == 0
    assert rows[1]["exit"] == 2 and "verify_exit" not in rows[1]
    assert calls == ["run", "verify", "run"]
    json.dumps(rows)  # the report is plain JSON
