"""Measured speeds on the GPUs people buy: importers, filters, roofline, medians."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.ingest import measured_speed as ms
from analytics.llm.ingest import roofline as rf
from analytics.llm.ingest.common import Drops, IngestError

FIXTURES = Path(__file__).parent / "fixtures" / "ingest" / "measured_speed"
SHARED = paths.SHARED_DATA_DIR
KEYS = {
    "model_name", "measured_on", "gpu_name", "gpu_count", "gpu_memory_gb", "apple_memory_gb",
    "quant", "engine", "context_tokens", "batch_size", "phase", "tokens_per_s", "kind",
    "source_name", "source_url", "date", "scenario", "system", "spec_decoding",
    "partial_offload", "source_params_b", "source_active_params_b",
}
BANDWIDTH = {"RTX 3090": 936.0, "RTX 4090": 1008.0, "RTX 5090": 1792.0, "H100": 3350.0}
"""Memory bandwidth (GB/s) of data/catalog/gpus.csv for the boards the tests check."""


def _load(loader, folder: str) -> tuple[list[dict], dict[str, int]]:
    drops = Drops()
    rows = loader(FIXTURES / folder, drops)
    return rows, {reason: n for (_, reason), n in drops.counts.items()}


def _by(rows: list[dict], measured_on: str, phase: str = "generation") -> list[dict]:
    return [r for r in rows if r["measured_on"] == measured_on and r["phase"] == phase]


# --- community runs (localmaxxing via llmfit) -----------------------------------------------


def test_localmaxxing_rows_and_drops():
    rows, drops = _load(ms.load_localmaxxing, "localmaxxing")
    assert all(set(r) == KEYS for r in rows)
    assert {r["kind"] for r in rows} == {ms.COMMUNITY}
    assert all(r["tokens_per_s"] > 0 and r["source_url"] == ms.LM_URL for r in rows)
    assert drops == {
        "same run listed under two GPU presets (kept once)": 1,
        "CPU-only run (no GPU)": 1,
        "no generation tokens/s": 1,
        "no prompt tokens/s": 5,
    }
    first = _by(rows, "unsloth/Llama-3.1-8B-Instruct-GGUF")
    assert len(first) == 1  # the duplicate preset copy is gone
    row = first[0]
    assert row["model_name"] == "meta-llama/Llama-3.1-8B-Instruct"  # GGUF re-upload -> base
    assert (row["gpu_name"], row["gpu_count"], row["gpu_memory_gb"], row["apple_memory_gb"]) == (
        "RTX 4090", 1, 24, None)
    assert (row["quant"], row["engine"], row["batch_size"], row["context_tokens"]) == (
        "Q4_K_M", "llama.cpp", 1, 4096)
    assert row["date"] == "2026-07-01" and row["source_params_b"] == 8
    assert [r["phase"] for r in rows if r["measured_on"] == row["measured_on"]] == [
        "generation", "prompt"]
    assert _by(rows, "meta-llama/Llama-3.1-8B-Instruct", "prompt")[0]["engine"] == "Ollama"


def test_localmaxxing_apple_row():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    (row,) = _by(rows, "mlx-community/Qwen3.6-35B-A3B-4bit")
    assert (row["gpu_name"], row["apple_memory_gb"], row["gpu_count"]) == ("M4 Max", 128, 1)
    assert ms.gpu_lookup_name(row) == "M4 Max 128GB"  # the alias in data/catalog/gpus.csv
    assert (row["quant"], row["engine"], row["model_name"]) == (
        "MLX-4bit", "MLX", "Qwen/Qwen3.6-35B-A3B")
    assert row["source_active_params_b"] == 3  # from 'A3B': the source says 36 active


def test_quantised_upload_reads_its_name_and_base_size():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    (row,) = _by(rows, "Lorbus/Qwen3.6-27B-int4-AutoRound")
    assert row["quant"] == "AutoRound-INT4"  # listed as fp16; the name says int4
    assert (row["model_name"], row["source_params_b"]) == ("Qwen/Qwen3.6-27B", 28)
    assert ms.single_stream_drop_reason(row) is None  # 28B x 0.52 bytes fits in 24 GB


def test_llama_cpp_logical_batch_is_one_stream():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    llama_b = [r for r in _by(rows, "meta-llama/Llama-3.1-8B-Instruct") if r["engine"] ==
               "llama.cpp"]
    assert {r["batch_size"] for r in llama_b} == {1}  # batchSize 2048 there is `-b`
    (vllm,) = [r for r in rows if r["batch_size"] == 8]
    assert vllm["engine"] == "vLLM"


def test_single_stream_drop_reasons():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    gen = {r["measured_on"] + "|" + r["gpu_name"]: r for r in rows if r["phase"] == "generation"}
    reason = {k: ms.single_stream_drop_reason(r) for k, r in gen.items()}
    spec = "speculative decoding or multi-token prediction (MTP) on"
    offload = "partial offload to the CPU (weights or KV cache outside the GPU)"
    assert reason["unsloth/Qwen3.6-27B-MTP-GGUF|RTX 4090"] == spec  # mtpEnabled flag
    assert reason["Qwen/Qwen3.6-27B|RTX 4090"] == spec  # only the command says --spec-type
    batch = "batch size other than 1 (not a single stream)"
    assert reason["Qwen/Qwen3.6-35B-A3B|RTX 5090"] == batch
    assert reason["Qwen/Qwen3.6-35B-A3B|RTX 3090"] == offload  # --n-cpu-moe
    assert reason["meta-llama/Llama-3.3-70B-Instruct|RTX 3090"] == offload  # 43 GB in 24 GB
    assert reason["unsloth/Llama-3.1-8B-Instruct-GGUF|RTX 4090"] is None
    assert reason["mlx-community/Qwen3.6-35B-A3B-4bit|M4 Max"] is None


def test_no_contributor_data_is_kept():
    raw = (FIXTURES / "localmaxxing" / ms.LM_FILE).read_text(encoding="utf-8")
    assert "alice_secret" in raw and "usr_r01" in raw
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    text = json.dumps(rows)
    assert "secret" not in text and "usr_" not in text and '"r01"' not in text
    assert "llama-bench" not in text  # command lines stay out


# --- benchmarker runs (geerlingguy) ---------------------------------------------------------


def test_geerlingguy_rows():
    rows, drops = _load(ms.load_geerlingguy, "geerlingguy")
    assert drops == {"CPU-only run (no GPU)": 1, "multi-machine cluster (not one GPU)": 1,
                     "Ollama tag not mapped to a checkpoint": 1}
    assert all(set(r) == KEYS and r["kind"] == ms.BENCHMARKER for r in rows)
    assert all(r["phase"] == "generation" and r["batch_size"] == 1 for r in rows)
    by_system = {r["system"]: r for r in rows}
    desktop = by_system["Intel 265K Custom PC (Nvidia RTX 4090)"]
    assert (desktop["model_name"], desktop["measured_on"], desktop["quant"]) == (
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "deepseek-r1:14b", "Q4_K_M")
    assert desktop["engine"] == "Ollama" and desktop["tokens_per_s"] == 92.49
    assert desktop["source_url"] == "https://github.com/geerlingguy/ai-benchmarks/issues/43"
    assert by_system["Pi CM5 - 16GB (Nvidia RTX 4090)"]["engine"] == "llama.cpp (Vulkan)"
    mac = by_system["M1 Max Mac Studio (10 core - 64GB)"]
    assert (mac["gpu_name"], mac["apple_memory_gb"], mac["source_url"]) == (
        "M1 Max", 64, ms.GG_URL)  # no per-row link: the README at its commit
    assert by_system["Mac Studio (M3 Ultra 512GB)"]["quant"] == "MXFP4"
    partial = by_system["Ryzen 9 7900X (Nvidia 4090)"]
    assert partial["partial_offload"] and ms.single_stream_drop_reason(partial) == (
        "partial offload to the CPU (weights or KV cache outside the GPU)")
    assert {r["date"] for r in rows} == {"2025-12-18"}


@pytest.mark.parametrize("system, expected", [
    ("Intel 265K Custom PC (Nvidia RTX 4090)", ("RTX 4090", None)),
    ("Intel 13900K (Nvidia 5090)", ("RTX 5090", None)),
    ("Ryzen 9 7950X (Nvidia 4070 Ti Super)", ("RTX 4070 Ti Super", None)),
    ("Ryzen 9 9950X (AMD 7900 XT)", ("RX 7900 XT", None)),
    ("Pi CM5 - 16GB (AMD AI Pro R9700)", ("Radeon AI Pro R9700", None)),
    ("System76 Thelio Astra (Nvidia A4000)", ("RTX A4000", None)),
    ("Dell Pro Max with GB10 (Nvidia Spark)", ("GB10 (DGX Spark)", None)),
    ("Pi 500+ - 16GB (Intel Arc B580)", ("Arc B580", None)),
    ("Mac Studio (M3 Ultra 512GB)", ("M3 Ultra", 512)),
    ("M1 Ultra (48 GPU Core) 64GB", ("M1 Ultra", 64)),
    ("M4 Mac mini (10 core - 32GB)", ("M4", 32)),
])
def test_parse_system(system, expected):
    name, memory, reason = ms.parse_system(system)
    assert (name, memory, reason) == (*expected, None)


# --- vendor aggregates (TensorRT-LLM) -------------------------------------------------------


def test_tensorrt_rows():
    rows, drops = _load(ms.load_tensorrt, "tensorrt")
    assert drops == {"model heading not mapped to a checkpoint": 1, "no throughput figure": 1}
    assert all(set(r) == KEYS and r["kind"] == ms.VENDOR for r in rows)
    by_gpu = {r["gpu_name"]: r for r in rows}
    h100 = by_gpu["H100"]
    assert (h100["model_name"], h100["measured_on"], h100["gpu_count"], h100["quant"]) == (
        "meta-llama/Llama-3.3-70B-Instruct", "nvidia/Llama-3.3-70B-Instruct-FP8", 2, "FP8")
    assert h100["tokens_per_s"] == 2209 and h100["engine"] == "TensorRT-LLM"
    assert h100["scenario"] == "offline max throughput, ISL 1000 / OSL 1000"
    assert h100["system"] == "2x H100 TP2" and h100["batch_size"] is None
    assert by_gpu["B200"]["quant"] == "MXFP4" and by_gpu["GB200"]["quant"] == "NVFP4"
    assert by_gpu["B200"]["measured_on"] == "openai/gpt-oss-120b"
    # never a single stream: no batch drop, never checked against the roofline
    assert ms.single_stream_drop_reason(h100) is None
    assert not rf.exceeds_roofline(h100, 3350, 70)


# --- bad and absent files -------------------------------------------------------------------


@pytest.mark.parametrize("loader, folder, name", [
    (ms.load_localmaxxing, "bad_json", ms.LM_FILE),
    (ms.load_geerlingguy, "bad_csv", ms.GG_FILE),
    (ms.load_tensorrt, "bad_csv", ms.TRT_FILE),
])
def test_unparsable_file_is_one_line_error(loader, folder, name):
    with pytest.raises(IngestError) as err:
        loader(FIXTURES / folder, Drops())
    message = str(err.value)
    assert "\n" not in message and name in message and "fix: restore the file" in message


def test_wrong_json_shape(tmp_path):
    path = tmp_path / ms.LM_FILE
    path.write_text(json.dumps({"presets": [1, 2]}), encoding="utf-8")
    with pytest.raises(IngestError, match="expected"):
        ms.load_localmaxxing(path, Drops())


def test_absent_files_give_nothing(tmp_path):
    for loader in (ms.load_localmaxxing, ms.load_geerlingguy, ms.load_tensorrt):
        assert loader(tmp_path / "missing", Drops()) == []


# --- roofline -------------------------------------------------------------------------------


def test_bytes_per_weight():
    assert rf.BYTES_PER_WEIGHT["Q4_K_M"] == pytest.approx(0.6118, abs=1e-4)
    assert rf.bytes_per_weight("Q8_0") == pytest.approx(1.0626, abs=1e-4)
    assert rf.bytes_per_weight("BF16") == 2.0 and rf.bytes_per_weight("FP8") == 1.0
    assert rf.bytes_per_weight("NVFP4") == 0.5625 and rf.bytes_per_weight("MLX-4bit") == 0.5625
    # variants read as their (smaller) base; unknown formats have no figure
    assert rf.bytes_per_weight("UD-Q4_K_XL") == rf.bytes_per_weight("Q4_K_M")
    assert rf.bytes_per_weight("Q8_K_XL") == rf.bytes_per_weight("Q8_0")
    assert rf.bytes_per_weight("Q2_K_XL") == rf.bytes_per_weight("Q2_K")
    assert rf.bytes_per_weight("MQ4") is None and rf.bytes_per_weight(None) is None
    # gpt-oss keeps MXFP4 experts in every GGUF
    assert rf.bytes_per_weight("Q8_0", "openai/gpt-oss-20b") == rf.bytes_per_weight("MXFP4")


@pytest.mark.parametrize("raw, engine, label", [
    ("Q4_K_M", "llama.cpp", "Q4_K_M"), ("q8_0", "llama.cpp", "Q8_0"),
    ("Unsloth-Dynamic-Q4_K_M", "llama.cpp", "UD-Q4_K_M"), ("F16", "llama.cpp", "FP16"),
    ("fp8", "vLLM", "FP8"), ("FP8 dynamic", "vLLM", "FP8"), ("gptq4", "vLLM", "GPTQ-INT4"),
    ("AWQ", "vLLM", "AWQ-INT4"), ("INT8_W8A16", "vLLM", "INT8"), ("int4", "vLLM", "INT4"),
    ("int4", "MLX", "MLX-4bit"), ("4bit", "MLX", "MLX-4bit"), ("MLX-8bit", "LM Studio",
                                                                 "MLX-8bit"),
    ("compressed-tensors (NVFP4+FP8)", "vLLM", "NVFP4"), ("MQ4", "hipfire", "MQ4"),
    ("", "vLLM", None),
])
def test_normalise_quant(raw, engine, label):
    assert rf.normalise_quant(raw, engine) == label


def test_roofline_numbers():
    # an RTX 4090 (1008 GB/s) and a dense 8B model at Q4_K_M: about 200 tokens/s at most
    assert rf.roofline_tokens_per_s(1008, 8, "Q4_K_M") == pytest.approx(206, abs=1)
    assert rf.roofline_tokens_per_s(1008, 8, "Q4_K_M", gpu_count=2) == pytest.approx(412, abs=2)
    # a mixture of experts reads its active parameters only
    assert rf.roofline_tokens_per_s(936, 3, "Q4_K_M") == pytest.approx(510, abs=1)
    assert rf.roofline_tokens_per_s(None, 8, "Q4_K_M") is None
    assert rf.roofline_tokens_per_s(1008, None, "Q4_K_M") is None
    assert rf.roofline_tokens_per_s(1008, 8, "MQ4") is None


def test_exceeds_roofline():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    (fast,) = [r for r in _by(rows, "unsloth/Qwen3.6-27B-MTP-GGUF") if r["gpu_name"] == "RTX 3090"]
    assert ms.single_stream_drop_reason(fast) is None  # no flag says so: only physics does
    assert rf.exceeds_roofline(fast, BANDWIDTH["RTX 3090"], 27)  # 521.5 > ~57 tok/s
    (normal,) = _by(rows, "unsloth/Llama-3.1-8B-Instruct-GGUF")
    assert not rf.exceeds_roofline(normal, BANDWIDTH["RTX 4090"], 8)
    ceiling = rf.roofline_tokens_per_s(1008, 8, "Q4_K_M")
    assert not rf.exceeds_roofline({**normal, "tokens_per_s": ceiling * 1.04}, 1008, 8)
    assert rf.exceeds_roofline({**normal, "tokens_per_s": ceiling * 1.06}, 1008, 8)
    assert not rf.exceeds_roofline({**normal, "phase": "prompt", "tokens_per_s": 5000}, 1008, 8)
    assert not rf.exceeds_roofline(normal, 1008, None)  # unknown size: not judged


# --- medians --------------------------------------------------------------------------------


def test_aggregate_medians_and_pass_through():
    community, _ = _load(ms.load_localmaxxing, "localmaxxing")
    vendor, _ = _load(ms.load_tensorrt, "tensorrt")
    kept = [r for r in community if ms.single_stream_drop_reason(r) is None]
    out = ms.aggregate(kept + vendor)
    llama = [r for r in out if r["model_id"] == "meta-llama/Llama-3.1-8B-Instruct"
             and r["phase"] == "generation" and r["engine"] == "llama.cpp"]
    assert len(llama) == 1
    row = llama[0]  # the GGUF re-upload and the original checkpoint pool together
    assert (row["n_runs"], row["tokens_per_s"], row["tokens_per_s_min"],
            row["tokens_per_s_max"]) == (3, 160.0, 150.0, 170.0)
    assert row["gpu_id"] == "RTX 4090" and row["date"] == "2026-07-05"
    assert row["measured_on"] == ("meta-llama/Llama-3.1-8B-Instruct; "
                                  "unsloth/Llama-3.1-8B-Instruct-GGUF")
    single = [r for r in out if r["gpu_id"] == "M4 Max 128GB"]
    assert [(r["n_runs"], r["tokens_per_s_min"], r["tokens_per_s_max"]) for r in single] == [
        (1, 109.0, 109.0)]
    passed = [r for r in out if r["kind"] == ms.VENDOR]
    assert len(passed) == len(vendor) and {r["n_runs"] for r in passed} == {1}
    assert all(r["tokens_per_s"] == r["tokens_per_s_min"] == r["tokens_per_s_max"] for r in passed)


def test_aggregate_key_functions():
    rows, _ = _load(ms.load_localmaxxing, "localmaxxing")
    gen = [r for r in rows if r["phase"] == "generation" and r["engine"] == "llama.cpp"
           and r["gpu_name"] == "RTX 4090"]
    out = ms.aggregate(gen, model_key=lambda r: "one-model", gpu_key=lambda r: "rtx-4090")
    assert {(r["model_id"], r["gpu_id"]) for r in out} == {("one-model", "rtx-4090")}
    assert sum(r["n_runs"] for r in out) == len(gen) and len(out) == 1


# --- the real files in ../shared/data -------------------------------------------------------

needs_shared = pytest.mark.skipif(
    not (SHARED / "measured-speed").is_dir(), reason="../shared/data/measured-speed is absent")


def _real(name: str) -> tuple[list[dict], dict[str, int]]:
    loader = {"localmaxxing": ms.load_localmaxxing, "geerlingguy": ms.load_geerlingguy,
              "tensorrt": ms.load_tensorrt}[name]
    drops = Drops()
    rows = loader(SHARED / ms.FOLDERS[name], drops)
    return rows, {reason: n for (_, reason), n in drops.counts.items()}


@pytest.mark.shared
@needs_shared
def test_real_counts_per_kind_and_reason():
    lm, lm_drops = _real("localmaxxing")
    gg, gg_drops = _real("geerlingguy")
    trt, trt_drops = _real("tensorrt")
    assert Counter(r["phase"] for r in lm) == {"generation": 1012, "prompt": 751}
    assert lm_drops == {"same run listed under two GPU presets (kept once)": 118,
                        "CPU-only run (no GPU)": 107, "no prompt tokens/s": 261,
                        ms.GGUF_ON_MLX: 1}  # a 'Q4_K_M' run labelled MLX (an M4 Pro)
    assert len(gg) == 79 and gg_drops == {"CPU-only run (no GPU)": 22,
                                          "multi-machine cluster (not one GPU)": 1}
    assert len(trt) == 150 and trt_drops == {}
    gen = [r for r in lm if r["phase"] == "generation"]
    assert Counter(ms.single_stream_drop_reason(r) for r in gen) == {
        None: 724,
        "speculative decoding or multi-token prediction (MTP) on": 162,
        "partial offload to the CPU (weights or KV cache outside the GPU)": 117,
        "batch size other than 1 (not a single stream)": 9,
    }
    assert Counter(ms.single_stream_drop_reason(r) for r in gg) == {
        None: 77, "partial offload to the CPU (weights or KV cache outside the GPU)": 2}
    assert {ms.single_stream_drop_reason(r) for r in trt} == {None}


@pytest.mark.shared
@needs_shared
def test_real_impossible_speeds_are_dropped():
    rows, _ = _real("localmaxxing")
    gen = [r for r in rows if r["phase"] == "generation"]

    def dropped(r: dict) -> bool:
        bandwidth = BANDWIDTH.get(r["gpu_name"])
        return bool(ms.single_stream_drop_reason(r)) or rf.exceeds_roofline(
            r, bandwidth, r["source_active_params_b"])

    # PROVENANCE's RTX 3090 user: a dense 27B at Q4_K_M reported at 100-522 tok/s
    mtp_3090 = [r for r in gen if r["measured_on"] == "unsloth/Qwen3.6-27B-MTP-GGUF"
                and r["gpu_name"] == "RTX 3090" and r["tokens_per_s"] > 100]
    assert len(mtp_3090) == 40 and max(r["tokens_per_s"] for r in mtp_3090) == 521.51
    assert all(dropped(r) for r in mtp_3090)
    # every 20B+ model reported at 1000 tok/s or more is dropped by a flag or by physics
    huge = [r for r in gen if r["tokens_per_s"] >= 1000 and (r["source_params_b"] or 0) >= 20]
    assert huge and all(dropped(r) for r in huge)
    # and an honest 4090 run stays
    assert any(r["gpu_name"] == "RTX 4090" and not dropped(r) for r in gen)


@pytest.mark.shared
@needs_shared
def test_real_rows_hold_no_contributor_data():
    path = SHARED / ms.FOLDERS["localmaxxing"] / ms.LM_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    runs = [r for p in data["presets"].values() for r in p["rows"] if r.get("user")]
    ids = {str(r["user"]["id"]) for r in runs} | {str(r["id"]) for r in runs}
    names = {str(r["user"]["username"]) for r in runs if r["user"].get("username")}
    rows, _ = _real("localmaxxing")
    values = {str(v) for r in rows for v in r.values()}
    assert ids and not any(i in v for i in ids for v in values)
    # a username may only show as the Hugging Face owner of a model the contributor published
    other = {str(v) for r in rows for k, v in r.items() if k not in ("model_name", "measured_on")}
    assert names and not any(n in v for n in names if len(n) > 3 for v in other)


@pytest.mark.shared
@needs_shared
def test_real_h100_pair_and_apple():
    trt, _ = _real("tensorrt")
    (llama,) = [r for r in trt if r["gpu_name"] == "H100" and r["gpu_count"] == 2
                and r["scenario"].endswith("ISL 1000 / OSL 1000")]
    assert llama["model_name"] == "meta-llama/Llama-3.3-70B-Instruct"
    assert llama["tokens_per_s"] == 2209 and llama["quant"] == "FP8"
    lm, _ = _real("localmaxxing")
    apple = Counter(ms.gpu_lookup_name(r) for r in lm if r["apple_memory_gb"])
    assert apple["M4 Max 128GB"] == 10 and apple["M1 Max 64GB"] == 46


def test_no_committed_single_stream_speed_exceeds_its_roofline():
    """Issue 29: every single-stream generation row of the committed table whose ceiling is
    known is under it (bandwidth x GPUs / bytes of active weights per token, +5 %)."""
    import csv

    catalog = Path(__file__).resolve().parents[1] / "data/catalog"
    with open(catalog / "gpus.csv", encoding="utf-8") as f:
        bandwidth = {r["gpu_id"]: float(r["mem_bandwidth_gbps"] or 0) for r in csv.DictReader(f)}
    with open(catalog / "models.csv", encoding="utf-8") as f:
        active = {}
        for r in csv.DictReader(f):
            active.setdefault(r["checkpoint_id"], float(r["active_params_b"] or 0))
            active.setdefault(r["model_id"], float(r["active_params_b"] or 0))
    checked = 0
    with open(catalog / "throughput.csv", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row["kind"] not in ("community-single-stream", "benchmarker-single-stream"):
                continue
            if row["phase"] != "generation":
                continue
            ceiling = rf.roofline_tokens_per_s(
                bandwidth.get(row["gpu_id"]), active.get(row["model_id"]), row["quant"],
                int(row["gpu_count"]), f"{row['model_id']} {row['measured_on']}")
            assert ceiling, f"{row['model_id']} on {row['gpu_id']}: no ceiling"
            assert float(row["tokens_per_s"]) <= ceiling * (1 + rf.TOLERANCE), row
            checked += 1
    assert checked >= 50


# --- llmfit 1.1.17: its users' shared runs and the newer localmaxxing scrape -----------------


def _submission(name: str, vram_gb: float, results: list[tuple], count: int = 1,
                unified: bool = False) -> dict:
    """One community_benchmarks.json submission: results are (provider, model label, avgTps)."""
    return {
        "hardware": {"hardwareName": name, "vramGb": vram_gb, "gpuCount": count,
                     "unifiedMemory": unified, "hwClass": "DISCRETE_GPU", "cpu": "x", "os": "x",
                     "ramGb": 64},
        "results": [{"provider": p, "model": m, "avgTps": t, "minTps": t, "maxTps": t,
                     "numRuns": 3, "avgTtftMs": 100, "avgOutputTokens": 300}
                    for p, m, t in results],
        "submittedAtUnix": 1787414658, "tool": {"name": "llmfit", "version": "1.1.10"},
    }


def test_llmfit_community_rows_engines_quants_and_drops(tmp_path: Path):
    submissions = [
        _submission("NVIDIA GeForce RTX 5070", 11.94, [
            ("llamacpp", "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", 70.0),
            ("ollama", "qwen3:8b", 60.0), ("ollama", "qwen3.5:9b-q8_0", 40.0),
            ("ollama", "gemma4:26b-mlx", 30.0), ("llamacpp", "model.gguf", 10.0)]),
        _submission("Apple M4 Pro", 24.0, [
            ("mlx", "mlx-community/Llama-3.1-8B-Instruct-4bit", 45.0),
            ("mlx", "someone/Llama-3.1-8B-Instruct-Q4_K_M", 44.0),
            ("vllm", "Qwen/Qwen3-8B", 50.0)], unified=True),
        _submission("NVIDIA GeForce RTX 3090", 48.0, [("vllm", "x/Qwen3-8B-AWQ", 90.0)], 2),
        _submission("Intel Raptor Lake-P [Iris Xe Graphics] (integrated)", 31.0,
                    [("ollama", "qwen3:8b", 5.0)], unified=True),
    ]
    (tmp_path / ms.LF_FILE).write_text(json.dumps(submissions))
    drops = Drops()
    rows = ms.load_llmfit_community(tmp_path, drops)
    got = {(r["gpu_name"], r["engine"], r["model_name"], r["quant"]) for r in rows}
    assert got == {
        ("RTX 5070", "llama.cpp", "Meta-Llama-3.1-8B-Instruct", "Q4_K_M"),
        ("RTX 5070", "Ollama", "qwen3-8b", ms.OLLAMA_DEFAULT_QUANT),
        ("RTX 5070", "Ollama", "qwen3.5-9b", "Q8_0"),
        ("M4 Pro", "MLX", "Llama-3.1-8B-Instruct", "MLX-4bit"),
        ("RTX 3090", "vLLM", "x/Qwen3-8B", "AWQ-INT4"),  # a Hugging Face id keeps its org
    }
    assert all(set(r) == KEYS and r["kind"] == ms.COMMUNITY for r in rows)
    apple = next(r for r in rows if r["engine"] == "MLX")
    assert (apple["apple_memory_gb"], apple["gpu_memory_gb"]) == (24.0, None)
    two = next(r for r in rows if r["engine"] == "vLLM")
    assert (two["gpu_count"], two["gpu_memory_gb"]) == (2, 24.0)  # vramGb sums the cards
    assert {r["date"] for r in rows} == {"2026-08-22"} and rows[0]["source_url"] == ms.LF_URL
    reasons = {reason: n for (_, reason), n in drops.counts.items()}
    assert reasons == {
        "Ollama MLX build: its quantisation is not stated": 1,
        "GGUF file name without a quantisation": 1,
        ms.GGUF_ON_MLX: 1,  # a GGUF quant labelled as run on MLX is refused, with its reason
        "no quantisation stated": 1,
        "integrated graphics sharing system memory (no GPU bandwidth)": 1,
    }
    assert len(rows) + drops.total == sum(len(s["results"]) for s in submissions)


def test_newer_scrape_reads_only_runs_the_older_copy_lacks(tmp_path: Path):
    older = FIXTURES / "localmaxxing"
    known = ms.run_ids(older)
    assert known and ms.run_ids(tmp_path) == frozenset()
    drops = Drops()
    rows = ms.load_localmaxxing(older, drops, known, ms.LM_NEWER_SOURCE, ms.LF_URL)
    assert rows == [] and drops.total == 0  # every run already read from the older copy
    some = frozenset(sorted(known)[:1])
    again = ms.load_localmaxxing(older, Drops(), some, ms.LM_NEWER_SOURCE, ms.LF_URL)
    assert again and {r["source_name"] for r in again} == {ms.LM_NEWER_SOURCE}


@pytest.mark.shared
@needs_shared
def test_real_llmfit_files_every_result_lands_or_is_counted():
    folder = SHARED / ms.FOLDERS["llmfit"]
    data = json.loads((folder / ms.LF_FILE).read_text())
    drops = Drops()
    rows = ms.load_llmfit_community(folder, drops)
    assert len(data) == 465 and len(rows) + drops.total == 920  # every result: a row or a reason
    assert not [r for r in rows if r["engine"] == "MLX" and rf.is_gguf_quant(r["quant"])]
    newer = ms.load_localmaxxing(folder, Drops(), ms.run_ids(SHARED / ms.FOLDERS["localmaxxing"]))
    assert 0 < len({r["measured_on"] + str(r["tokens_per_s"]) for r in newer}) <= 2 * 136


def test_new_hardware_has_sourced_memory_and_bandwidth():
    from analytics.llm.ingest import epoch_hardware

    curated = {r["gpu_id"]: r for r in epoch_hardware.read_curated()}
    makers = {"gb10": "https://www.nvidia.com/", "rtx-5070": "https://www.nvidia.com/",
              "rx-7900-xt": "https://www.amd.com/"}
    for gpu_id, site in makers.items():
        row = curated[gpu_id]
        assert float(row["memory_gb"]) > 0 and float(row["mem_bandwidth_gbps"]) > 0, gpu_id
        assert row["spec_source_url"].startswith(site), gpu_id
    # names the community files use resolve to them
    assert "GB10" in curated["gb10"]["aliases"].split(";")
    assert ms.llmfit_hardware({"hardwareName": "NVIDIA GB10", "vramGb": 121.6,
                               "unifiedMemory": True})[:3] == ("GB10", None, None)
    assert ms.llmfit_hardware({"hardwareName": "AMD Radeon RX 7900 XT", "vramGb": 19.98})[0] == (
        "RX 7900 XT")


def test_a_modified_card_and_offloaded_weights_are_refused():
    from analytics.llm.ingest import hardware_tables as ht

    # a 24 GB board reporting 48 GB per card is another board (modded), not an RTX 4090
    assert ht._modified_card({"gpu_memory_gb": 48.0}, 24.0)
    assert not ht._modified_card({"gpu_memory_gb": 23.99}, 24.0)
    assert not ht._modified_card({"gpu_memory_gb": None, "apple_memory_gb": 64}, 24.0)
    # 32B at Q4_K_M (19.6 GB) does not fit one 12 GB card; it fits two 24 GB ones
    row = {"quant": "Q4_K_M", "gpu_count": 1, "model_name": "qwen3-32b"}
    assert ht._weights_exceed(row, 32.0, 12.0)
    assert not ht._weights_exceed({**row, "gpu_count": 2}, 32.0, 24.0)


def test_a_refused_run_is_listed_with_what_it_was():
    drops = Drops()
    drops.add("localmaxxing", "CPU-only run (no GPU)", item="run 7: x/Model on CPU_ONLY",
              measurements=ms.PHASES)
    drops.add("open-llm-leaderboard", "merged")  # counted only
    assert drops.counts[("localmaxxing", "CPU-only run (no GPU)")] == 1  # one run
    assert drops.listed == [("localmaxxing", "CPU-only run (no GPU)",
                             "run 7: x/Model on CPU_ONLY", 2)]


def _run_ids(path: Path) -> set[str]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {str(r["id"]) for preset in document["presets"].values() for r in preset["rows"]}


@pytest.mark.skipif(not (SHARED / ms.FOLDERS["llmfit"] / ms.LF_FILE).is_file(),
                    reason="../shared/data/llmfit-1.1.17 is absent")
def test_every_measurement_of_the_three_community_files_lands_or_is_listed():
    """The committed catalog accounts for every measurement of the two localmaxxing scrapes
    (generation and prompt tokens/s of each run, the newer scrape's runs absent from the older)
    and of llmfit users' shared runs: the community throughput rows' runs plus the listed
    refusals (evidence/measured_refused.csv) are exactly what the files hold."""
    older = _run_ids(SHARED / ms.FOLDERS["localmaxxing"] / ms.LM_FILE)
    newer = _run_ids(SHARED / ms.FOLDERS["llmfit"] / ms.LM_FILE) - older
    shared_runs = json.loads((SHARED / ms.FOLDERS["llmfit"] / ms.LF_FILE).read_text("utf-8"))
    in_files = ms.PHASES * (len(older) + len(newer)) + sum(len(s["results"]) for s in shared_runs)
    throughput = pd.read_csv(paths.CATALOG_DIR / "throughput.csv")
    landed = int(throughput.loc[throughput["kind"] == "community-single-stream", "n_runs"].sum())
    refused = pd.read_csv(ms.REFUSED_CSV)
    community = refused[~refused["source"].str.startswith(("geerlingguy", "tensorrt"))]
    assert landed > 1000 and len(community) > 1000
    assert landed + int(community["measurements"].sum()) == in_files
    unresolved = community[community["reason"] == "model does not resolve to a catalog checkpoint"]
    assert len(unresolved) > 100 and unresolved["run"].str.contains(" on ").all()
