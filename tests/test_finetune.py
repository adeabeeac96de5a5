"""Fine-tune fit and cost (seed 002, "Fine-tuning fit & cost"): anchors, thresholds, invariants."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.llm import finetune as ft
from analytics.llm import fit_cli
from tests.fixtures.cli import run_main


@pytest.mark.parametrize(
    ("params_b", "method", "recipe", "expected_gb"),
    [
        (33, "qlora", "sft", 22.8),  # fits a 24 GB card
        (65, "qlora", "sft", 44.2),  # fits a 48 GB card
        (7, "full", "sft", 114.0),
        (7, "qlora", "rl", 8.4),
        (7, "full", "rl", 130.0),  # 2x H100
    ],
)
def test_seed_anchors(params_b: float, method: str, recipe: str, expected_gb: float) -> None:
    assert round(ft.required_gb(params_b, method, recipe), 1) == expected_gb


def test_anchor_cards_and_full_grpo_on_two_h100() -> None:
    assert ft.plan(33, "sft", 24, "qlora").verdict == "fits (tight)"  # 22.8 / 24 = 0.95
    assert ft.plan(65, "sft", 48, "qlora").verdict == "fits (tight)"  # 44.2 / 48 = 0.92
    two_h100 = ft.capacity_gb(80, 2)
    grpo = ft.plan(7, "rl", two_h100, "full")
    assert grpo.required_gb == pytest.approx(130.0)
    assert grpo.ratio == pytest.approx(0.8125)
    assert grpo.verdict == "fits (tight)"
    assert ft.plan(7, "rl", 80, "full").verdict == "won't fit"


def test_parts_are_named_and_sum_exactly() -> None:
    parts = ft.memory_parts(7, "full", "rl")
    assert parts == {
        "weights (bf16)": 14.0,
        "gradients (bf16)": 14.0,
        "optimizer (AdamW fp32)": 84.0,
        "activations": 2.0,
        "reference model (bf16)": 14.0,
        "rollout / KV buffers": 2.0,
    }
    for method in ft.METHODS:
        for recipe in ft.RECIPES:
            plan = ft.plan(13, recipe, 100, method)
            assert plan.required_gb == sum(plan.parts.values())


def test_reference_model_only_for_full_fine_tunes() -> None:
    assert ft.memory_parts(7, "lora", "dpo") == ft.memory_parts(7, "lora", "sft")
    assert "reference model (bf16)" in ft.memory_parts(7, "full", "dpo")
    assert ft.required_gb(7, "full", "dpo") - ft.required_gb(7, "full", "sft") == 14.0


def test_activation_and_rollout_floors() -> None:
    assert ft.memory_parts(10, "lora")["activations"] == 2.0  # 0.05 x 10 < 2
    assert ft.memory_parts(100, "lora")["activations"] == 5.0
    assert ft.memory_parts(100, "qlora", "rl")["rollout / KV buffers"] == 10.0


@pytest.mark.parametrize(
    ("capacity_gb", "expected"),
    [(114 / 0.8, "fits"), (114.0, "fits (tight)"), (113.9, "won't fit")],
)
def test_verdict_boundaries_end_to_end(capacity_gb: float, expected: str) -> None:
    assert ft.plan(7, "sft", capacity_gb, "full").verdict == expected


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [(0.8, "fits"), (0.800001, "fits (tight)"), (1.0, "fits (tight)"), (1.000001, "won't fit")],
)
def test_verdict_thresholds(ratio: float, expected: str) -> None:
    assert ft.verdict(ratio) == expected


def test_auto_picks_highest_fidelity_that_fits() -> None:
    assert ft.plan(7, "sft", 160, "auto").method == "full"  # 114 GB fits 2x80
    assert ft.plan(7, "sft", 24, "auto").method == "lora"  # 16.56 GB
    assert ft.plan(33, "sft", 24, "auto").method == "qlora"  # 22.8 GB
    none = ft.plan(70, "sft", 24, "auto")
    assert none.method == "qlora" and none.verdict == "won't fit"


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match="method"):
        ft.memory_parts(7, "prefix-tuning")
    with pytest.raises(ValueError, match="recipe"):
        ft.memory_parts(7, "full", "ppo")
    with pytest.raises(ValueError, match="positive"):
        ft.memory_parts(0, "full")


def test_cost_golden() -> None:
    # 10k samples x 1024 x 3 = 30,720,000 tokens; 6e9 x 7 x 30.72e6 = 1.29024e18 FLOPs;
    # at 1000 TFLOPS x 0.35 x 3600 s = 1.26e18 FLOPs per GPU-hour -> 1.024 GPU-hours
    est = ft.cost_estimate(7, 10_000, "sft", bf16_tflops=1000, count=2, usd_per_hour=2.5)
    assert est.tokens == 30_720_000
    assert est.train_flops == pytest.approx(1.29024e18)
    assert est.gpu_hours == pytest.approx(1.024)
    assert est.wall_clock_hours == pytest.approx(0.512)
    assert est.cost_usd == pytest.approx(2.56)
    rl = ft.cost_estimate(7, 10_000, "rl", bf16_tflops=1000, count=1, usd_per_hour=2.5)
    assert rl.gpu_hours == pytest.approx(8 * 1.024)
    dpo = ft.cost_estimate(7, 10_000, "dpo", bf16_tflops=1000)
    assert dpo.gpu_hours == pytest.approx(2.5 * 1.024) and dpo.cost_usd is None


def test_gpu_hours_are_count_independent() -> None:
    one = ft.cost_estimate(7, 5000, "sft", 989, count=1, usd_per_hour=2.5)
    eight = ft.cost_estimate(7, 5000, "sft", 989, count=8, usd_per_hour=2.5)
    assert one.gpu_hours == eight.gpu_hours and one.cost_usd == eight.cost_usd
    assert eight.wall_clock_hours == pytest.approx(one.wall_clock_hours / 8)


def test_moe_bills_active_params_and_undisclosed_is_none() -> None:
    assert ft.compute_params_b(46.7, 12.9, is_moe=True) == 12.9
    assert ft.compute_params_b(46.7, None, is_moe=True) is None
    assert ft.compute_params_b(8.0, None, is_moe=False) == 8.0
    assert ft.cost_estimate(None, 1000, "sft", 989, usd_per_hour=2.5) is None
    assert ft.cost_estimate(7, 1000, "sft", None) is None


def test_closed_models_are_not_offered() -> None:
    models = pd.DataFrame(
        {
            "model_id": ["open", "closed", "open-unknown-size"],
            "open_weights": [True, False, True],
            "total_params_b": [7.0, 200.0, None],
        }
    )
    assert ft.finetunable(models)["model_id"].tolist() == ["open"]


@given(
    p=st.floats(0.1, 3000),
    extra=st.floats(0, 3000),
    method=st.sampled_from(ft.METHODS),
    recipe=st.sampled_from(ft.RECIPES),
)
def test_required_monotone_in_params(p: float, extra: float, method: str, recipe: str) -> None:
    assert ft.required_gb(p, method, recipe) <= ft.required_gb(p + extra, method, recipe)


@given(p=st.floats(0.1, 3000), method=st.sampled_from(ft.METHODS))
def test_required_monotone_in_recipe(p: float, method: str) -> None:
    sft, dpo, rl = (ft.required_gb(p, method, r) for r in ("sft", "dpo", "rl"))
    assert sft <= dpo <= rl


@given(
    p=st.floats(0.1, 3000),
    cap=st.floats(1, 5000),
    more=st.floats(0, 5000),
    method=st.sampled_from((*ft.METHODS, "auto")),
    recipe=st.sampled_from(ft.RECIPES),
)
def test_verdict_monotone_in_capacity(
    p: float, cap: float, more: float, method: str, recipe: str
) -> None:
    order = {v: i for i, v in enumerate(ft.FINETUNE_VERDICTS)}
    small = ft.plan(p, recipe, cap, method)
    large = ft.plan(p, recipe, cap + more, method)
    if method == "auto":  # more memory never loses the fit nor lowers the fidelity picked
        assert large.fits >= small.fits
        assert ft.METHODS.index(large.method) <= ft.METHODS.index(small.method)
    else:
        assert order[large.verdict] <= order[small.verdict]


# --- command line: python -m analytics finetune -----------------------------------------------


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """``python -m analytics finetune ARGV`` in-process: (exit code, stdout, stderr)."""
    return run_main(capsys, fit_cli.main, "finetune", *argv)


def test_cli_full_grpo_anchor_on_two_h100(tiny_store, capsys: pytest.CaptureFixture) -> None:
    argv = ("--params-b", "7", "--method", "full", "--recipe", "rl", "--gpu", "H100", "--count")
    rc, out, _ = _cli(capsys, *argv, "2", "--samples", "10000", "--json")
    assert rc == 0
    got = json.loads(out)
    assert got["method"] == "full" and got["verdict"] == "fits (tight)"
    assert got["required_gb"] == pytest.approx(130.0) and got["capacity_gb"] == 160
    assert sum(got["parts"].values()) == got["required_gb"]
    assert got["ratio"] == pytest.approx(0.8125)
    assert got["tokens"] == 30_720_000
    # 6e9 x 7 x 30.72e6 x 8 = 1.032192e19 FLOPs / (989.4e12 x 0.35 x 3600) = 8.28 GPU-hours
    assert got["train_flops"] == pytest.approx(1.032192e19)
    assert got["gpu_hours"] == pytest.approx(1.032192e19 / (989.4e12 * 0.35 * 3600))
    assert got["wall_clock_hours"] == pytest.approx(got["gpu_hours"] / 2)
    assert got["cost_usd"] == pytest.approx(got["gpu_hours"] * 2.5)


def test_cli_auto_and_explicit_hardware(capsys: pytest.CaptureFixture) -> None:
    rc, out, _ = _cli(capsys, "--params-b", "33", "--recipe", "sft", "--vram-gb", "24", "--json")
    assert rc == 0
    got = json.loads(out)
    assert got["method"] == "qlora" and round(got["required_gb"], 1) == 22.8
    assert "tokens" not in got
    rc, out, _ = _cli(
        capsys, "--params-b", "46.7", "--active-params-b", "12.9", "--method", "qlora",
        "--vram-gb", "80", "--bf16-tflops", "1000", "--usd-per-hour", "2", "--samples", "1000",
        "--json",
    )
    got = json.loads(out)
    assert got["train_flops"] == pytest.approx(6e9 * 12.9 * 3_072_000)  # active params only


def test_cli_human_output(capsys: pytest.CaptureFixture) -> None:
    rc, out, _ = _cli(capsys, "--params-b", "7", "--method", "full", "--vram-gb", "80")
    assert rc == 0
    assert "needs 114.0 GB of 80.0 GB" in out and "won't fit" in out
    assert "optimizer (AdamW fp32)" in out


def test_cli_apple_has_fit_but_no_cost(tiny_store, capsys: pytest.CaptureFixture) -> None:
    rc, out, _ = _cli(capsys, "--params-b", "7", "--gpu", "M2 Ultra", "--samples", "1000", "--json")
    assert rc == 0
    got = json.loads(out)
    assert got["verdict"] == "fits" and got["capacity_gb"] == 144
    assert got["cost_usd"] is None and got["gpu_hours"] is None


@pytest.mark.parametrize(
    "argv",
    [
        ("--params-b", "7", "--vram-gb", "80", "--samples", "1000"),  # no TFLOPS for the cost
        ("--params-b", "7", "--method", "dora", "--vram-gb", "80"),
        ("--params-b", "7", "--recipe", "ppo", "--vram-gb", "80"),
        ("--params-b", "0", "--vram-gb", "80"),
    ],
)
def test_cli_bad_input_is_one_line(capsys: pytest.CaptureFixture, argv: tuple[str, ...]) -> None:
    rc, out, err = _cli(capsys, *argv)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")


def test_cli_unknown_gpu(tiny_store, capsys: pytest.CaptureFixture) -> None:
    rc, _, err = _cli(capsys, "--params-b", "7", "--gpu", "A1000")
    assert rc == 2 and "closest known" in err and "a100-80gb" in err


def test_compare_measured_keeps_formula_and_measurement_apart() -> None:
    measured = pd.DataFrame(
        {
            "model": ["llama-2-7b", "llama-2-7b", "llama-2-7b", "falcon-40b"],
            "params_b": [7.0, 7.0, 7.0, 40.0],
            "method": ["lora", "lora", "adapter", "lora"],
            "quantization": ["none", "bnb.nf4", "none", "none"],
            "microbatch_size": [1, 1, 1, 1],
            "gpu_id": ["a100-40gb"] * 4,
            "peak_memory_gb": [21.3, 14.14, 19.98, None],
            "outcome": ["measured", "measured", "measured", "oom"],
        }
    )
    out = ft.compare_measured(measured)
    assert out["formula_method"].tolist() == ["lora", "qlora", "lora"]
    # LoRA 7B: 14 + 16 x 0.035 + 2 = 16.56 GB; QLoRA 7B: 3.85 + 0.56 + 2 = 6.41 GB
    assert out["formula_gb"].tolist() == pytest.approx([16.56, 6.41, 80 + 16 * 0.2 + 2])
    assert out["measured_gb"].tolist()[:2] == [21.3, 14.14] and pd.isna(out["measured_gb"][2])
