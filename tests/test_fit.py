"""Hardware fit (seed 002, "Hardware fit"): formula, thresholds at their boundaries, KV cache."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.core import paths
from analytics.llm import fit, fit_cli, throughput
from tests.fixtures.cli import run_main


def test_curated_q4_figure_beats_the_formula() -> None:
    assert fit.required_gb(params_b=70, vram_q4_gb=10.0) == pytest.approx(10.8)


def test_estimate_without_curated_figure() -> None:
    # 8B x 4.5/8 bytes x 1.08 = 4.86 GB
    assert fit.required_gb(params_b=8) == pytest.approx(4.86)
    assert fit.required_gb(params_b=None, vram_q4_gb=None) is None
    assert fit.required_gb(params_b=8, vram_q4_gb=float("nan")) == pytest.approx(4.86)


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [
        (0.0, "fits comfortably"),
        (0.8, "fits comfortably"),
        (0.800001, "fits (tight)"),
        (1.0, "fits (tight)"),
        (1.000001, "partial offload"),
        (1.3, "partial offload"),
        (1.300001, "won't run"),
        (50.0, "won't run"),
    ],
)
def test_verdict_thresholds_at_boundaries(ratio: float, expected: str) -> None:
    assert fit.verdict(ratio) == expected
    assert fit.fits(ratio) == (expected in ("fits comfortably", "fits (tight)"))


@pytest.mark.parametrize(
    ("budget_gb", "expected"),
    [(13.5, "fits comfortably"), (10.8, "fits (tight)"), (10.8 / 1.3, "partial offload")],
)
def test_end_to_end_boundaries(budget_gb: float, expected: str) -> None:
    # curated 10 GB -> 10.8 GB required; the budgets give ratios of exactly 0.8, 1.0 and 1.3
    result = fit.hardware_fit(params_b=None, budget=budget_gb, vram_q4_gb=10.0)
    assert result is not None and result.verdict == expected
    assert result.as_dict()["required_gb"] == pytest.approx(10.8)


def test_budget_is_count_times_memory() -> None:
    assert fit.budget_gb(80, 2) == 160
    with pytest.raises(ValueError):
        fit.budget_gb(80, 0)


def test_kv_cache_is_gqa_aware() -> None:
    # Llama-3-8B: 32 layers, 8 KV heads, head_dim 128; 8192 tokens x 2 bytes x (K, V)
    # = 2 * 32 * 8 * 128 * 8192 * 2 bytes = 1,073,741,824 bytes
    assert fit.kv_cache_gb(32, 8, 128, 8192) == pytest.approx(1.073741824)
    # counting 32 query heads instead would be 4x larger
    assert fit.kv_cache_gb(32, 32, 128, 8192) == pytest.approx(4 * 1.073741824)
    assert fit.kv_cache_gb(None, 8, 128, 8192) is None
    assert fit.kv_cache_gb(32, float("nan"), 128, 8192) is None


def _models() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["dense-8b", "moe-47b", "curated-70b", "unknown"],
            "total_params_b": [8.0, 46.7, 70.0, None],
            "active_params_b": [None, 12.9, None, None],
            "vram_q4_gb": [None, None, 40.0, None],
            "n_layers": [32, None, 80, None],
            "n_kv_heads": [8, None, 8, None],
            "head_dim": [128, None, 128, None],
        }
    )


def test_fit_table_uses_total_params_for_moe_and_adds_kv_beside() -> None:
    table = fit.fit_table(_models(), budget=24.0, context_tokens=8192).set_index("model_id")
    # MoE memory tracks total parameters: 46.7 x 0.5625 x 1.08, not the 12.9B active
    assert table.loc["moe-47b", "required_gb"] == pytest.approx(46.7 * 0.5625 * 1.08)
    assert table.loc["moe-47b", "verdict"] == "partial offload"  # 28.4 / 24 = 1.18
    assert table.loc["curated-70b", "required_gb"] == pytest.approx(43.2)
    assert table.loc["dense-8b", "verdict"] == "fits comfortably"
    assert table.loc["dense-8b", "kv_cache_gb"] == pytest.approx(1.073741824)
    assert table.loc["dense-8b", "q4_plus_kv_gb"] == pytest.approx(4.5 + 1.073741824)
    # the refinement never changes the seed verdict
    plain = fit.fit_table(_models(), budget=24.0).set_index("model_id")
    assert (plain["verdict"].fillna("") == table["verdict"].fillna("")).all()
    assert pd.isna(table.loc["moe-47b", "kv_cache_gb"])
    assert pd.isna(table.loc["unknown", "verdict"]) and not table.loc["unknown", "fits"]


def _throughput() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["llama-3-8b", "llama-3-8b", "llama-3-8b", "dense-8b"],
            "gpu_id": ["h100-sxm", "h100-sxm", "h100-sxm", "rtx-4090"],
            "gpu_count": [1, 1, 2, 1],
            "quant": ["Q4_K_M", "F16", "Q4_K_M", "Q4_K_M"],
            "phase": ["generation", "generation", "generation", "prompt"],
            "tokens_per_s": [140.0, 70.0, 150.0, 9000.0],
            "source_url": ["https://a", "https://b", "https://c", "https://d"],
        }
    )


def test_measured_throughput_only_for_exact_gpu_and_count() -> None:
    aliases = {"dense-8b": ["llama-3-8b"]}
    one = throughput.measured_throughput(_throughput(), "H100-SXM", 1, aliases)
    assert one.to_dict("records") == [
        {
            "model_id": "dense-8b",
            "tokens_per_s": 140.0,
            "quant": "Q4_K_M",
            "source_url": "https://a",
        }
    ]
    # no 4x row exists: nothing is interpolated
    assert throughput.measured_throughput(_throughput(), "h100-sxm", 4, aliases).empty
    # prompt-phase rows are not generation speed
    assert throughput.measured_throughput(_throughput(), "rtx-4090", 1, aliases).empty
    assert throughput.measured_throughput(pd.DataFrame(), "h100-sxm", 1).empty


@given(
    params=st.floats(0.1, 2000),
    extra=st.floats(0, 2000),
    budget=st.floats(1, 2000),
    more=st.floats(0, 2000),
)
def test_monotone_in_params_and_budget(
    params: float, extra: float, budget: float, more: float
) -> None:
    assert fit.required_gb(params) <= fit.required_gb(params + extra)
    order = {v: i for i, v in enumerate(fit.VERDICTS)}
    small = fit.hardware_fit(params, budget)
    large = fit.hardware_fit(params, budget + more)
    assert order[large.verdict] <= order[small.verdict]


# --- command line: python -m analytics fit ----------------------------------------------------


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """``python -m analytics fit ARGV`` in-process: (exit code, stdout, stderr)."""
    return run_main(capsys, fit_cli.main, "fit", *argv)


def test_cli_json_keys_and_values(capsys: pytest.CaptureFixture) -> None:
    rc, out, _ = _cli(capsys, "--params-b", "70", "--vram-q4-gb", "40", "--vram-gb", "48", "--json")
    assert rc == 0
    got = json.loads(out)
    assert {"required_gb", "budget_gb", "ratio", "verdict"} <= set(got)
    assert got["required_gb"] == pytest.approx(43.2)
    assert got["ratio"] == pytest.approx(0.9) and got["verdict"] == "fits (tight)"


def test_cli_gpu_name_and_count(tiny_store, capsys: pytest.CaptureFixture) -> None:
    rc, out, _ = _cli(capsys, "--params-b", "70", "--gpu", "rtx 4090", "--count", "2", "--json")
    assert rc == 0
    got = json.loads(out)
    assert got["budget_gb"] == 48 and got["verdict"] == "fits (tight)"  # 42.5 / 48
    rc, out, _ = _cli(capsys, "--params-b", "70", "--gpu", "RTX 4090")
    assert rc == 0 and out.strip().endswith("-> won't run")  # 42.5 / 24 = 1.77


def test_cli_unknown_gpu_lists_closest(tiny_store, capsys: pytest.CaptureFixture) -> None:
    rc, out, err = _cli(capsys, "--params-b", "7", "--gpu", "H1000")
    assert rc != 0 and not out
    assert len(err.strip().splitlines()) == 1
    assert "unknown GPU 'H1000'" in err and "h100-sxm" in err


@pytest.mark.parametrize(
    "argv",
    [
        ("--params-b", "-3", "--vram-gb", "24"),
        ("--params-b", "abc", "--vram-gb", "24"),
        ("--params-b", "7"),
        ("--params-b", "7", "--vram-gb", "24", "--gpu", "h100"),
        ("--params-b", "7", "--vram-gb", "24", "--count", "0"),
    ],
)
def test_cli_bad_input_is_one_line(capsys: pytest.CaptureFixture, argv: tuple[str, ...]) -> None:
    rc, out, err = _cli(capsys, *argv)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")


def test_cli_through_the_dispatcher(tiny_store) -> None:
    """A subprocess reads the tiny catalog through the MODELATLAS_* variables tiny_store set."""
    cmd = [sys.executable, "-m", "analytics", "fit", "--params-b", "8", "--gpu", "h100", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=paths.REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "fits comfortably"


# --- Q4 basis, context verdict, formula alternatives, measured speed by kind ---------


def test_q4_figure_counts_only_when_ground_truth() -> None:
    models = pd.DataFrame(
        {
            "model_id": ["file", "memory", "estimate", "none"],
            "total_params_b": [8.0, 8.0, 8.0, None],
            "vram_q4_gb": [5.0, 6.0, 7.0, None],
            "vram_q4_basis": ["published file size", "measured memory", "", None],
            "vram_q4_source_url": ["https://f", "https://m", None, None],
        }
    )
    table = fit.fit_table(models, budget=24.0).set_index("model_id")
    assert table.loc["file", "required_gb"] == pytest.approx(5.0 * 1.08)
    assert table.loc["file", "q4_basis"] == "published file size"
    assert table.loc["file", "q4_source_url"] == "https://f"
    assert table.loc["memory", "required_gb"] == pytest.approx(6.0 * 1.08)
    # a figure without a ground-truth basis is not used: the seed formula, labelled
    assert table.loc["estimate", "required_gb"] == pytest.approx(4.86)
    assert table.loc["estimate", "q4_basis"] == "formula (4.5 bits/param)"
    assert pd.isna(table.loc["none", "q4_basis"]) and pd.isna(table.loc["none", "verdict"])
    # a catalog from before the basis column keeps its curated figure (seed behaviour)
    old = fit.fit_table(models.drop(columns=["vram_q4_basis"]), 24.0).set_index("model_id")
    assert old.loc["estimate", "required_gb"] == pytest.approx(7.0 * 1.08)
    assert old.loc["estimate", "q4_basis"] == "curated (basis not recorded)"


def test_context_verdict_and_formula_alternatives_beside_the_seed_verdict() -> None:
    table = fit.fit_table(_models(), budget=6.0, context_tokens=8192).set_index("model_id")
    dense = table.loc["dense-8b"]
    assert dense["verdict"] == "fits (tight)"  # 4.86 / 6 = 0.81: the seed verdict
    assert dense["context_ratio"] == pytest.approx((4.5 + 1.073741824) / 6.0)
    assert dense["context_verdict"] == "fits (tight)"  # 5.57 / 6 = 0.93
    assert table.loc["moe-47b", "context_verdict"] == fit.KV_UNKNOWN
    assert fit.KV_UNKNOWN == "KV cache unknown: architecture not in sources"
    assert pd.isna(table.loc["unknown", "context_verdict"])  # nothing to add the cache to
    assert fit.fit_table(_models(), budget=6.0)["context_verdict"].isna().all()


def test_a_verdict_per_quantisation_and_the_best_that_fits_at_the_context() -> None:
    table = fit.fit_table(_models(), budget=24.0, context_tokens=8192).set_index("model_id")
    dense = table.loc["dense-8b"]
    kv = 1.073741824  # 2 x 32 layers x 8 KV heads x 128 x 8,192 tokens x 2 bytes
    # llama.cpp's bits per weight (Llama 3.1 8B table): Q5_K_M 5.7036, Q8_0 8.5008; FP16 16
    assert dense["q5_k_m_gb"] == pytest.approx(8.0 * 5.7036 / 8 + kv)
    assert dense["q8_0_gb"] == pytest.approx(8.0 * 8.5008 / 8 + kv)
    assert dense["fp16_gb"] == pytest.approx(16.0 + kv)  # 17.07 / 24 = 0.71
    assert dense["fp16_verdict"] == "fits comfortably"
    assert dense["fp16_basis"] == "formula (16.00 bits/param)"
    assert (dense["best_quant"], dense["best_quant_bits"]) == ("FP16", 16.0)
    # curated 70B: 40 GB is not a published file, so Q4_K_M is the formula too; nothing fits
    big = table.loc["curated-70b"]
    assert big["q4_k_m_basis"] == "formula (4.89 bits/param)"
    assert big["q4_k_m_verdict"] == "won't run"  # (42.8 + 2.7) / 24 = 1.9
    assert big["best_quant"] == fit.NONE_FITS and pd.isna(big["best_quant_bits"])
    # MoE: total parameters, never the active count; an unknown KV cache is said, not guessed
    moe = table.loc["moe-47b"]
    assert moe["fp16_weights_gb"] == pytest.approx(46.7 * 2)
    assert moe["q4_k_m_verdict"] == fit.KV_UNKNOWN and moe["best_quant"] == fit.KV_UNKNOWN
    assert pd.isna(moe["q4_k_m_gb"])
    assert pd.isna(table.loc["unknown", "best_quant"])  # no size at all: no quant row
    # without a context the seed's 1.08 stands in for the KV cache
    plain = fit.fit_table(_models(), budget=24.0).set_index("model_id")
    assert plain.loc["dense-8b", "q8_0_gb"] == pytest.approx(8.0 * 8.5008 / 8 * 1.08)


def test_a_published_q4_k_m_file_is_its_quant_size() -> None:
    models = pd.DataFrame({
        "model_id": ["l3-8b"], "total_params_b": [8.03], "vram_q4_gb": [4.92],
        "vram_q4_basis": ["published file size"], "vram_q4_source_url": ["https://readme"],
    })
    row = fit.fit_table(models, budget=24.0).iloc[0]
    assert row["q4_k_m_weights_gb"] == pytest.approx(4.92)
    assert row["q4_k_m_basis"] == "published file size"
    assert row["q8_0_basis"] == "formula (8.50 bits/param)"
    assert row["verdict"] == "fits comfortably"  # the seed's Q4 headline is unchanged


def test_a_context_above_the_models_maximum_is_refused() -> None:
    # Llama 2 7B: 32 layers, 32 KV heads (no GQA), head dim 128, built for 4,096 tokens
    models = pd.DataFrame({
        "model_id": ["llama-2-7b"], "total_params_b": [6.738], "vram_q4_gb": [4.57],
        "vram_q4_basis": ["measured memory"], "n_layers": [32], "n_kv_heads": [32],
        "head_dim": [128], "context_length": [4096],
    })
    long = fit.fit_table(models, budget=24.0, context_tokens=32768).iloc[0]
    assert long["verdict"] == "fits comfortably"  # the seed verdict is about weights only
    assert long["context_verdict"] == fit.ABOVE_MAX_CONTEXT
    assert long["max_context_tokens"] == 4096 and pd.isna(long["context_ratio"])
    assert {long[f"{p}_verdict"] for p in fit.QUANT_PREFIX.values()} == {fit.ABOVE_MAX_CONTEXT}
    assert long["best_quant"] == fit.ABOVE_MAX_CONTEXT and pd.isna(long["best_quant_bits"])
    ok = fit.fit_table(models, budget=24.0, context_tokens=4096).iloc[0]
    assert ok["context_verdict"] == "fits comfortably"
    assert ok["best_quant"] == "FP16"  # 13.5 GB + 2.1 GB of KV cache on 24 GB


def _release_models() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["l3-8b", "l3-8b-it", "l31-8b", "l31-8b-it", "noarch", "noarch-it"],
            "display_name": ["L3 8B", "L3 8B Instruct", "L3.1 8B", "L3.1 8B Instruct", "N",
                             "N Instruct"],
            "checkpoint_id": ["l3-8b", "l3-8b-it", "l31-8b", "l31-8b-it", "noarch", "noarch-it"],
            "aliases": ["Meta-Llama-3-8B", None, None, None, None, None],
            "arch_key": ["llama:8b", "llama:8b", "llama:8b", "llama:8b", None, None],
            "weights_release": ["meta/l3-8b", "meta/l3-8b", "meta/l31-8b", "meta/l31-8b",
                                "x/n", "x/n"],
        }
    )


def _speed_rows() -> pd.DataFrame:
    rows = [
        # model, gpu, count, quant, phase, tok/s, kind, scenario, system
        ("Meta-Llama-3-8B", "rtx-4090", 1, "F16", "generation", 55.0, "single-stream", "", ""),
        ("l3-8b", "rtx-4090", 1, "Q4_K_M", "generation", 130.0, "single-stream", "", ""),
        ("l3-8b", "rtx-4090", 1, "Q4_K_M", "prompt", 6000.0, "single-stream", "", ""),
        ("l3-8b", "rtx-4090", 2, "Q4_K_M", "generation", 125.0, "single-stream", "", ""),
        ("l31-8b-it", "h100-sxm", 8, "FP8", "generation", 60000.0, "server", "Server", "A"),
        ("l31-8b-it", "h100-sxm", 8, "FP8", "generation", 50000.0, "server", "Offline", "B"),
        ("l31-8b-it", "h100-sxm", 8, "FP8", "generation", 55000.0, "server", "Offline", "C"),
        ("l31-8b-it", "h100-sxm", 1, "Q4_K_M", "generation", 150.0, "single-stream", "", ""),
        ("noarch", "rtx-4090", 1, "Q4_0", "generation", 90.0, "single-stream", "", ""),
        ("not-in-catalog", "rtx-4090", 1, "Q4_0", "generation", 99.0, "single-stream", "", ""),
    ]
    cols = ["model_id", "gpu_id", "gpu_count", "quant", "phase", "tokens_per_s", "kind",
            "scenario", "system"]
    table = pd.DataFrame(rows, columns=cols)
    return table.assign(
        source_url="https://x", measured_on=table["model_id"] + " " + table["quant"],
        source_name="test",
    )


def test_measured_speed_applies_to_its_checkpoint_and_same_release_only() -> None:
    speeds = throughput.measured_speeds(_speed_rows(), _release_models(), "RTX-4090", 1)
    assert set(speeds.index) == {"l3-8b", "l3-8b-it", "noarch"}
    base = speeds.loc["l3-8b"]
    assert base["single_stream_tokens_per_s"] == 130.0  # Q4 first; never the prompt figure
    assert base["single_stream_applies"] == "measured"
    assert speeds.loc["l3-8b-it", "single_stream_applies"] == "measured on L3 8B"
    assert speeds.loc["l3-8b-it", "single_stream_measured_on"] == "l3-8b Q4_K_M"
    # no arch_key: the release alone does not carry a figure to the other checkpoint
    assert "noarch-it" not in speeds.index
    # same arch_key, other release (L3 vs L3.1): nothing
    assert "l31-8b" not in speeds.index
    assert speeds["server_tokens_per_s"].isna().all()
    two = throughput.measured_speeds(_speed_rows(), _release_models(), "rtx-4090", 2)
    assert two.loc["l3-8b", "single_stream_tokens_per_s"] == 125.0  # exactly 2x: its own row
    assert throughput.measured_speeds(_speed_rows(), _release_models(), "rtx-4090", 4).empty


def test_server_rows_keep_their_own_columns_and_scenario() -> None:
    speeds = throughput.measured_speeds(_speed_rows(), _release_models(), "h100-sxm", 8)
    own = speeds.loc["l31-8b-it"]
    # Offline first (SCENARIO_ORDER), then the highest figure of that scenario
    assert own["server_tokens_per_s"] == 55000.0
    assert (own["server_scenario"], own["server_system"]) == ("Offline", "C")
    assert pd.isna(own["single_stream_tokens_per_s"])  # the 1x llama.cpp row is for 1x only
    assert speeds.loc["l31-8b", "server_applies"] == "measured on L3.1 8B Instruct"
    one = throughput.measured_speeds(_speed_rows(), _release_models(), "h100-sxm", 1)
    assert one.loc["l31-8b-it", "single_stream_tokens_per_s"] == 150.0
    assert pd.isna(one.loc["l31-8b-it", "server_tokens_per_s"])


def test_throughput_without_kind_column() -> None:
    """A catalog from before throughput kinds were recorded: llama.cpp repository rows are
    single-stream, rows of any other source have no known kind and are never shown."""
    rows = _speed_rows().drop(columns=["kind", "scenario", "system", "measured_on"])
    rows["source_url"] = [
        "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/blob/x/README.md"
    ] * 4 + ["https://elsewhere"] * 6
    speeds = throughput.measured_speeds(rows, _release_models(), "rtx-4090", 1)
    assert speeds.loc["l3-8b", "single_stream_tokens_per_s"] == 130.0
    assert "noarch" not in speeds.index  # unknown kind
    assert throughput.measured_speeds(pd.DataFrame(), _release_models(), "rtx-4090", 1).empty


def test_an_attention_free_model_has_no_kv_cache_at_any_context():
    """0 KV heads (a Mamba or RWKV config): nothing grows with the context."""
    assert fit.kv_cache_gb(64, 0, 0, 131_072) == 0.0
    assert fit.kv_cache_gb(None, 0, 0, 8192) is None  # layers unknown: not a known model
    assert fit.kv_cache_gb(32, 8, 128, 8192) == pytest.approx(2 * 32 * 8 * 128 * 8192 * 2 / 1e9)
