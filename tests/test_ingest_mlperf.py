"""MLPerf Inference import, Q4 ground truth and architecture identity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytics.core import paths
from analytics.llm.ingest import gpu_benchmarks, hardware_tables, litgpt, llmfit, mlperf
from analytics.llm.ingest.common import Drops
from tests.fixtures import committed

SHARED = paths.SHARED_DATA_DIR
URL = "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/Acme/results/sys"


def _row(**over) -> dict:
    """One result row in the shape of summary_results_v5.1.json."""
    row = {
        "ID": "5.1-0001", "Submitter": "Acme", "Availability": "available", "Category": "closed",
        "Suite": "datacenter", "System": "Acme 8x H200", "Platform": "8xH200",
        "UsedModel": "llama2-70b-99", "Model": "llama2-70b-99", "Scenario": "Offline",
        "Nodes": 1, "Accelerator": "NVIDIA H200-SXM-141GB", "a#": 8,
        "weight_data_types": "fp8", "Details": URL, "Performance_Result": 1000.0,
        "Performance_Units": "Tokens/s",
    }
    row.update(over)
    return row


def _load(tmp_path: Path, rows: list[dict], version: str = "v5.1") -> tuple[list[dict], Drops]:
    folder = tmp_path / "mlcommons-inference"
    folder.mkdir(exist_ok=True)
    (folder / mlperf.FILES[version]).write_text(json.dumps(rows), encoding="utf-8")
    drops = Drops()
    return mlperf.load(folder, drops), drops


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (_, reason), n in drops.counts.items()}


def test_closed_tokens_available_only(tmp_path):
    rows, drops = _load(tmp_path, [
        _row(),
        _row(Category="open", System="b"),
        _row(Performance_Units="Samples/s", System="c"),
        _row(Availability="preview", System="d"),
        _row(inferred=1, System="e"),
    ])
    assert [r["system"] for r in rows] == ["Acme 8x H200"]
    row = rows[0]
    assert (row["kind"], row["phase"], row["scenario"], row["quant"]) == (
        "server", "generation", "Offline", "FP8")
    assert row["hf_name"] == "meta-llama/Llama-2-70b-chat-hf"
    assert row["measured_on"] == "llama2-70b-99" and row["source_url"] == URL
    assert row["source_name"] == "MLPerf Inference v5.1" and row["gpu_count"] == 8
    assert drops.total == 4


def test_count_is_per_node_times_nodes_and_string_counts(tmp_path):
    rows, drops = _load(tmp_path, [
        _row(Accelerator="NVIDIA GB200", **{"a#": 4}, Nodes=18, System="nvl72"),
        _row(**{"a#": "8"}, System="string count"),
        _row(Accelerator="", **{"a#": ""}, System="cpu"),
        _row(**{"a#": 8, "Total Accelerators": 9}, System="inconsistent"),
    ], version="v6.0")
    got = {r["system"]: (r["gpu_id"], r["gpu_count"]) for r in rows}
    assert got == {"nvl72": ("gb200", 72), "string count": ("h200", 8)}
    reasons = _reasons(drops)
    assert reasons["CPU-only system (no accelerator)"] == 1
    assert reasons["accelerator count unknown or inconsistent (a# x Nodes)"] == 1


def test_mixed_and_unknown_accelerators_dropped_and_counted(tmp_path):
    rows, drops = _load(tmp_path, [
        _row(Accelerator="AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e "
             "(x16)", Nodes=6, System="mixed"),
        _row(Accelerator="Intel(R) Arc Pro(R) B60", System="arc"),
        _row(Accelerator="AMD Instinct MI355X 288GB HBM3e (x87)", Nodes=11, System="87"),
        _row(Accelerator="AMD Instinct MI355X 288GB HBM3e (x16)", Nodes=2, System="16"),
    ])
    assert [(r["system"], r["gpu_id"], r["gpu_count"]) for r in rows] == [("16", "mi355x", 16)]
    reasons = _reasons(drops)
    assert reasons["mixed-accelerator system (figure is not one GPU type's)"] == 1
    assert reasons["accelerator count in the name disagrees with a# x Nodes"] == 1
    assert any("Arc Pro" in r for r in reasons)


def test_model_mapping_and_accuracy_targets(tmp_path):
    rows, drops = _load(tmp_path, [
        _row(Model="llama2-70b-99", Performance_Result=1200.0),
        _row(Model="llama2-70b-99.9", Performance_Result=1100.0),
        _row(Model="llama3.1-8b", System="s2"),
        _row(Model="mixtral-8x7b", System="s3"),
        _row(Model="gpt-oss-120b", System="s4", weight_data_types="mxfp4"),
        _row(Model="stable-diffusion-xl", System="s5"),
    ])
    got = {r["measured_on"]: (r["hf_name"], r["tokens_per_s"], r["quant"]) for r in rows}
    assert got["llama2-70b-99.9"] == ("meta-llama/Llama-2-70b-chat-hf", 1100.0, "FP8")
    assert "llama2-70b-99" not in got  # the stricter target of one system is kept
    assert got["llama3.1-8b"][0] == "meta-llama/Llama-3.1-8B-Instruct"
    assert got["mixtral-8x7b"][0] == "mistralai/Mixtral-8x7B-Instruct-v0.1"
    assert got["gpt-oss-120b"][2] == "MXFP4"
    reasons = _reasons(drops)
    assert reasons["same system and scenario at both accuracy targets (-99.9 kept)"] == 1
    assert reasons["MLPerf model 'stable-diffusion-xl' has no reference checkpoint mapped"] == 1


def test_every_submitter_row_kept(tmp_path):
    rows, _ = _load(tmp_path, [_row(), _row(System="Other vendor", Performance_Result=900.0)])
    assert len(rows) == 2


def test_absent_folder_gives_no_rows(tmp_path):
    assert mlperf.load(tmp_path / "missing", Drops()) == []


def test_bad_file_names_file_and_row(tmp_path):
    folder = tmp_path / "mlcommons-inference"
    folder.mkdir()
    (folder / mlperf.FILES["v5.1"]).write_text(json.dumps([{"Model": "x"}]), encoding="utf-8")
    with pytest.raises(Exception, match=r"summary_results_v5.1.json: row 0: missing field"):
        mlperf.load(folder, Drops())


# --- Q4 ground truth and identity rules -------------------------------------------------------


def test_llmfit_estimate_is_not_ground_truth_and_arch_key():
    entry = {"name": "a/B", "architecture": "llama", "parameters_raw": 8030261248,
             "min_vram_gb": 4.1, "quantization": "Q4_K_M"}
    assert llmfit.model_obs(entry).vram_q4_gb is None
    assert llmfit.arch_key(entry) == "llama:8030261248"
    assert llmfit.arch_key({**entry, "parameters_raw": 40_000_000_000}) is None  # rounded
    assert llmfit.arch_key({**entry, "architecture": "unknown"}) is None


def test_weights_release_pairs_base_and_instruct_of_one_release_only():
    def release(cp: str, org: str = "Meta") -> str | None:
        return hardware_tables.weights_release({"checkpoint_id": cp, "organisation": org,
                                      "open_weights": True})

    assert release("llama-3-8b") == release("llama-3-8b-instruct") == "meta/llama-3-8b"
    assert release("llama-3-8b") != release("llama-3.1-8b")
    assert release("mixtral-8x7b-instruct-v0.1", "Mistral AI") == release(
        "mixtral-8x7b-v0.1", "Mistral AI")
    assert release("llama-2-70b-chat") == release("llama-2-70b")
    assert release("llama-3-8b-instruct-gradient-1048k") != release("llama-3-8b")
    assert release("llama-3-8b", "Someone") != release("llama-3-8b-instruct")


def _model(mid: str, release: str | None = None, **over) -> dict:
    row = {"model_id": mid, "checkpoint_id": mid, "organisation": "Meta", "open_weights": True,
           "n_layers": None, "n_kv_heads": None, "head_dim": None, "metadata_source_url": None}
    row.update(over)
    return row


def test_q4_basis_rules_and_identical_architectures_agree():
    rows = [_model("llama-3-8b"), _model("llama-3-8b-instruct"), _model("tune-8b"),
            _model("llama-2-70b"), _model("llama-2-70b-chat"), _model("other-7b")]
    arch = {"llama-3-8b": "llama:8", "tune-8b": "llama:8", "other-7b": "llama:7"}
    fs = (4.92, "published file size", "https://example.org/readme")
    q4 = {"llama-3-8b": fs, "tune-8b": (5.5, "measured memory", "https://example.org/m"),
          "llama-2-70b": (37.21, "measured memory", "https://example.org/litgpt")}
    hardware_tables.hardware_metadata(rows, arch, q4)
    by = {r["model_id"]: r for r in rows}
    # the instruct tune takes its release's key; the file size beats the measured memory
    assert by["llama-3-8b-instruct"]["arch_key"] == "llama:8"
    for mid in ("llama-3-8b", "llama-3-8b-instruct", "tune-8b"):
        assert (by[mid]["vram_q4_gb"], by[mid]["vram_q4_basis"]) == (4.92, "published file size")
    # unknown shapes: one release still shows one figure
    assert by["llama-2-70b-chat"]["vram_q4_gb"] == 37.21
    assert by["llama-2-70b-chat"]["vram_q4_basis"] == "measured memory"
    assert by["llama-2-70b-chat"]["arch_key"] is None
    # nothing known: empty basis, the seed formula applies
    assert by["other-7b"]["vram_q4_gb"] is None and by["other-7b"]["vram_q4_basis"] is None


def test_q4_sources_state_their_figures():
    readme = SHARED / "gpu-benchmarks-llm-inference/README.md"
    tables = SHARED / "litgpt/resource-tables.md"
    if not readme.is_file() or not tables.is_file():
        pytest.skip("shared/data not present")
    sizes = {r["model"]: r["size_gb"] for r in gpu_benchmarks.q4_file_sizes(readme, Drops())}
    assert sizes == {"llama-3-8b": 4.92, "llama-3-70b": 42.51}  # 4.58 / 39.59 GiB
    memory = {r["model"]: r for r in litgpt.inference_memory(tables, Drops())}
    assert memory["llama-2-7b"]["memory_gb"] == 4.57 and memory["llama-2-7b"]["quant"] == "bnb.nf4"
    assert memory["llama-2-70b"]["quant"] == "bnb.nf4-dq"  # the nf4 run failed


# --- the real files in ../shared/data (skipped without it) ---------------------------------------


def test_real_mlperf_files():
    folder = SHARED / "mlcommons-inference"
    if not folder.is_dir():
        pytest.skip("shared/data not present")
    drops = Drops()
    rows = mlperf.load(folder, drops)
    assert len(rows) > 300
    assert {r["kind"] for r in rows} == {"server"}
    assert {r["source_name"] for r in rows} == {"MLPerf Inference v5.1", "MLPerf Inference v6.0"}
    nvl72 = [r for r in rows if r["gpu_id"] == "gb200" and r["gpu_count"] == 72]
    assert nvl72, "GB200 NVL72 systems: a# 4 x 18 nodes"
    assert all(r["source_url"].startswith("https://github.com/mlcommons/") for r in rows)
    assert drops.total > 0


# --- the committed catalog -------------------------------------------------------------------

Q4_COLUMNS = ("arch_key", "weights_release", "vram_q4_gb", "vram_q4_basis", "vram_q4_source_url")
KIND_COLUMNS = ("kind", "scenario", "system", "source_name", "measured_on")


def test_real_catalog_identity_and_q4():
    models = {r["model_id"]: r for r in committed.catalog_rows("models", *Q4_COLUMNS)}
    base, instruct = models["llama-3-8b"], models["llama-3-8b-instruct"]
    assert base["arch_key"] and base["arch_key"] == instruct["arch_key"]
    assert base["weights_release"] == instruct["weights_release"]
    assert models["llama-3.1-8b"]["weights_release"] != base["weights_release"]
    assert base["vram_q4_basis"] == "published file size" and float(base["vram_q4_gb"]) == 4.92
    groups: dict[str, set[str]] = {}
    for row in models.values():
        if row["arch_key"]:
            groups.setdefault(row["arch_key"], set()).add(row["vram_q4_gb"])
    assert all(len(figures) == 1 for figures in groups.values())
    assert all(r["vram_q4_source_url"] for r in models.values() if r["vram_q4_gb"])
    assert {r["vram_q4_basis"] for r in models.values()} <= {"", *hardware_tables.Q4_BASES}


def test_real_catalog_throughput_kinds():
    rows = committed.catalog_rows("throughput", *KIND_COLUMNS)
    assert {r["kind"] for r in rows} == {
        "single-stream", "server", "community-single-stream", "benchmarker-single-stream",
        "vendor-aggregate"}
    for row in rows:
        if row["kind"] not in ("single-stream", "server"):
            continue  # the community and vendor kinds: tests/test_ingest_measured_speed.py
        if row["kind"] == "single-stream":
            assert row["scenario"] == "" and row["system"] == ""
        else:
            assert row["scenario"] and row["system"] and row["source_name"].startswith("MLPerf")
    llama2 = [r for r in rows if r["kind"] == "server" and r["model_id"] == "llama-2-70b-chat"]
    assert llama2 and all(r["measured_on"].startswith("llama2-70b-99") for r in llama2)
