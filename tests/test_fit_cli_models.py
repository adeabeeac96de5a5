"""``python -m analytics fit|finetune --model ID``: catalog figures, their sources, aliases,
unknown ids and ``priced_on`` (every open-weight checkpoint of the committed catalog:
tests/test_cli_catalog.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm import fit_cli
from tests.fixtures.cli import run_main
from tests.fixtures.store import StorePaths

MODELS = "catalog models.csv (snapshot v"


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, dict | None, str]:
    """(exit code, parsed JSON or None, stderr) of ``fit_cli.main(argv + --json)``."""
    rc, out, err = run_main(capsys, fit_cli.main, *argv, "--json")
    return rc, (json.loads(out) if rc == 0 else None), err


def test_fit_model_reads_catalog_figures(tiny_store, capsys: pytest.CaptureFixture) -> None:
    rc, got, _ = _run(
        capsys, "fit", "--model", "llama-3.1-8b", "--gpu", "4090", "--context", "8192"
    )
    assert rc == 0
    assert got["model_id"] == "llama-3.1-8b" and got["params_b"] == 8.03
    assert got["vram_q4_gb"] == 4.9 and got["required_gb"] == pytest.approx(4.9 * 1.08)
    assert got["verdict"] == "fits comfortably"
    assert got["kv_cache_gb"] == pytest.approx(1.073741824)  # 32 x 8 x 128 x 8,192 x 2 x 2
    assert got["q4_plus_kv_gb"] == pytest.approx(4.9 + 1.073741824)
    for key in ("params_b_source", "vram_q4_gb_source", "kv_cache_source"):
        assert got[key].startswith(MODELS)
    assert got["memory_gb_source"].startswith("catalog gpus.csv (snapshot v")


def test_fit_json_has_a_verdict_per_quant_and_the_best_that_fits(tiny_store, capsys) -> None:
    rc, got, _ = _run(
        capsys, "fit", "--model", "llama-3.1-8b", "--gpu", "4090", "--context", "8192"
    )
    assert rc == 0 and got["max_context_tokens"] == 131072
    assert got["context_verdict"] == "fits comfortably"
    quants = {q["quant"]: q for q in got["quants"]}
    assert list(quants) == ["Q4_K_M", "Q5_K_M", "Q8_0", "FP16"]
    fp16 = quants["FP16"]
    assert fp16["weights_gb"] == pytest.approx(8.03 * 2) and fp16["weights_basis"].startswith(
        "formula"
    )
    assert fp16["need_gb"] == pytest.approx(16.06 + 1.073741824) and fp16["verdict"] == (
        "fits comfortably"  # 17.1 / 24 = 0.71
    )
    assert got["best_quant"] == "FP16" and got["best_quant_bits"] == 16.0
    rc, got, _ = _run(
        capsys, "fit", "--model", "llama-3.1-8b", "--gpu", "4090", "--context", "262144"
    )
    assert rc == 0 and got["verdict"] == "fits comfortably"  # the seed verdict stays
    assert got["context_verdict"] == "refused: above the model's maximum context"
    assert {q["verdict"] for q in got["quants"]} == {got["context_verdict"]}
    assert got["best_quant"] == got["context_verdict"] and got["best_quant_bits"] is None


def test_fit_model_without_q4_estimates_from_params(tiny_store, capsys) -> None:
    rc, got, _ = _run(capsys, "fit", "--model", "Qwen3 32B", "--gpu", "h100")  # name spelling
    assert rc == 0 and got["model_id"] == "qwen3-32b"
    assert got["required_gb"] == pytest.approx(32.8 * 4.5 / 8 * 1.08)
    assert got["vram_q4_gb"] is None and got["vram_q4_gb_source"].startswith("none")


def test_params_b_still_works_and_names_its_source(tiny_store, capsys) -> None:
    rc, got, _ = _run(capsys, "fit", "--params-b", "8", "--gpu", "h100")
    assert rc == 0 and got["params_b_source"] == "command line" and "model_id" not in got


def test_unknown_model_names_the_closest_ids(tiny_store, capsys) -> None:
    rc, out, err = run_main(capsys, fit_cli.main, "fit", "--model", "lama-3.1-8", "--gpu", "h100")
    assert rc == 2 and not out and len(err.strip().splitlines()) == 1
    assert "unknown model 'lama-3.1-8'" in err and "llama-3.1-8b" in err and "fix:" in err


@pytest.mark.parametrize(
    ("argv", "what"),
    [
        (("finetune", "--model", "closed-chat", "--gpu", "h100"), "closed weights"),
        (("fit", "--model", "closed-chat", "--gpu", "h100"), "no parameter count"),
        (("fit", "--model", "qwen3-32b", "--vram-q4-gb", "9", "--gpu", "h100"), "--vram-q4-gb"),
        (("finetune", "--model", "qwen3-32b", "--active-params-b", "3", "--gpu", "h100"), "active"),
        (("fit", "--model", "qwen3-32b", "--params-b", "3", "--gpu", "h100"), "not allowed"),
    ],
)
def test_model_errors_are_one_line(tiny_store, capsys, argv: tuple[str, ...], what: str) -> None:
    rc, out, err = run_main(capsys, fit_cli.main, *argv)
    assert rc == 2 and not out and len(err.strip().splitlines()) == 1
    assert what in err and "fix:" in err


def test_finetune_model_bills_active_params(tiny_store, capsys) -> None:
    argv = ("finetune", "--model", "mixtral-8x7b", "--gpu", "h100", "--samples", "1000")
    rc, got, _ = _run(capsys, *argv)
    assert rc == 0 and got["params_b"] == 46.7 and got["compute_params_b"] == 12.9
    assert got["train_flops"] == pytest.approx(6e9 * 12.9 * 3_072_000)
    assert got["priced_on"] == "1× H100 SXM" and got["cost_usd"] is not None
    assert got["active_params_b_source"].startswith(MODELS)


def test_finetune_moe_without_active_count_has_no_cost(tiny_store, capsys) -> None:
    argv = ("finetune", "--model", "big-moe-secret", "--gpu", "h100", "--samples", "1000")
    rc, got, _ = _run(capsys, *argv)
    assert rc == 0 and got["compute_params_b"] is None and got["cost_usd"] is None
    assert "undisclosed" in got["note"]


def test_aliases_resolve_on_the_committed_catalog(store_paths: StorePaths, capsys) -> None:
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv")
    row = models[models["aliases"].notna() & models["open_weights"].fillna(False)].iloc[0]
    alias = str(row["aliases"]).split(";")[0]
    rc, got, _ = _run(capsys, "fit", "--model", alias, "--gpu", "h100")
    assert rc == 0 and got["model_id"] == row["model_id"]


def test_wont_fit_job_is_priced_on_a_config_that_fits(tiny_store, capsys) -> None:
    argv = ("--params-b", "70", "--method", "qlora", "--gpu", "RTX 4090", "--samples", "10000")
    rc, got, _ = _run(capsys, "finetune", *argv)
    assert rc == 0 and got["verdict"] == "won't fit" and got["hardware"] == "1× GeForce RTX 4090"
    assert got["priced_on"] == "2× GeForce RTX 4090"  # 47.6 GB on 48 GB
    assert got["priced_on_note"].startswith(
        "won't fit on 1× GeForce RTX 4090; priced on 2× GeForce RTX 4090, the smallest rentable "
        "config that fits"
    )
    hours = 6e9 * 70 * 30_720_000 / (165.2e12 * 0.35 * 3600)
    assert got["cost_usd"] == pytest.approx(hours * 0.40)
    assert got["usd_per_hour_source"].startswith("catalog gpus.csv (snapshot v")


def test_nothing_rentable_fits_gives_no_price(tiny_store, capsys) -> None:
    argv = ("--params-b", "405", "--method", "full", "--gpu", "4090", "--samples", "1000")
    rc, got, _ = _run(capsys, "finetune", *argv)
    assert rc == 0 and got["priced_on"] is None and got["cost_usd"] is None
    assert got["priced_on_note"].startswith("No price:")


def test_fit_and_its_quality_axis_do_not_import_the_elo_engine():
    """`analytics fit` needs one pandas function of the Elo package (the headline pick); the
    package resolves its names on first use, so scipy and the solver stay unimported."""
    code = (
        "import sys\n"
        "from analytics.llm import elo, fit_cli, finetune_view\n"
        "assert callable(elo.headline_scores)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'"
        " or m in ('analytics.llm.elo.battles', 'analytics.llm.elo.solver'))\n"
        "print(heavy)\n"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
