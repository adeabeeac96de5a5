"""AppTest runs of the hardware-fit and fine-tune planner pages on the tiny catalog."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import paths
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import TINY_MODELS
from tests.fixtures.store import StorePaths


@pytest.fixture()
def store(tiny_store: Path) -> Path:
    """The tiny calculator catalog as the current one, with fresh Streamlit caches."""
    fresh_caches()
    return tiny_store


def _frame(at: AppTest):
    (element,) = at.dataframe  # each page shows exactly one table
    return element.value


def test_hardware_fit_page_renders(store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090")
    assert not at.exception
    assert at.title[0].value == "What fits my hardware"
    table = _frame(at)
    # qwen3-32b and qwen3-32b-thinking share one checkpoint: one row, both names listed
    assert set(table["Model"]) == {"llama-3.1-8b", "nc-model-7b", "qwen3-32b-thinking"}
    qwen = table.set_index("Model").loc["qwen3-32b-thinking", "Variants (one checkpoint)"]
    assert qwen == "qwen3-32b, qwen3-32b-thinking"
    row = table.set_index("Model").loc["llama-3.1-8b"]
    assert row["Verdict"] == "fits comfortably"
    assert row["Measured tok/s"] == pytest.approx(127.7)  # the measured RTX 4090 row
    assert row["KV cache GB"] == pytest.approx(1.073741824)  # 8,192-token default
    assert row["Best Elo (variants)"] > 0
    assert "Smallest rentable config" not in table
    assert at.query_params["gpu"] == "rtx-4090"


def test_hardware_fit_show_all_and_count(store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="h100-sxm", count="2", all="1")
    assert not at.exception
    table = _frame(at).set_index("Model")
    assert (
        table.loc["llama-3.1-405b", "Smallest rentable config"]
        == "4× A100 80GB ($6.00/h, thin price)"
    )
    assert table.loc["llama-3.1-405b", "Budget GB"] == 160
    # no measured row exists for 2x H100: nothing is interpolated from the 1x row
    assert table["Measured tok/s"].isna().all()


def test_hardware_fit_apple_profile(store: Path) -> None:
    at = run_page("llm/hardware_fit.py", kind="Apple profile")
    assert not at.exception
    table = _frame(at).set_index("Model")
    assert (table["Budget GB"] == 144).all()
    assert "mixtral-8x7b" in table.index


def test_finetune_planner_renders(store: Path) -> None:
    at = run_page(
        "llm/finetune_planner.py", model="llama-3.1-8b", gpu="h100-sxm", count="2",
        method="full", recipe="rl", samples="10000",
    )  # fmt: skip
    assert not at.exception
    assert at.title[0].value == "Fine-tune planner"
    metrics = {m.label: m.value for m in at.metric}
    # 8.03B full GRPO: 16 x 8.03 + 2 + 2 x 8.03 + 2 = 148.5 GB on 160 GB
    assert metrics["Verdict"] == "fits (tight)"
    assert metrics["Required"] == "148.5 GB"
    # 6e9 x 8.03 x 30.72e6 tokens x 8 / (989.4e12 x 0.35 x 3600) = 9.5 GPU-hours
    assert metrics["GPU-hours (rough)"] == "9.5"
    assert metrics["Wall-clock (rough)"] == "4.7 h"
    assert metrics["Cost (rough)"] == "$24"
    assert len(at.get("plotly_chart")) == 1
    listed = _frame(at)
    assert "closed-chat" not in set(listed["Model"])
    assert listed["Model"].tolist().count("qwen3-32b") == 0  # collapsed into its variant


def test_finetune_planner_apple_has_no_cost(store: Path) -> None:
    at = run_page("llm/finetune_planner.py", kind="Apple profile", model="mixtral-8x7b")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Cost (rough)"] == "—" and metrics["GPU-hours (rough)"] == "—"
    assert any("Apple silicon" in i.value for i in at.info)


def test_finetune_show_all_lists_configs(store: Path) -> None:
    at = run_page("llm/finetune_planner.py", gpu="rtx-4090", all="1")
    assert not at.exception
    listed = _frame(at).set_index("Model")
    assert listed.loc["llama-3.1-405b", "Verdict"] == "won't fit"
    assert (
        listed.loc["llama-3.1-405b", "Smallest rentable config"]
        == "4× A100 80GB ($6.00/h, thin price)"
    )


@pytest.mark.parametrize("page", ["llm/hardware_fit.py", "llm/finetune_planner.py"])
def test_pages_on_the_committed_catalog(page: str, store_paths: StorePaths) -> None:
    if not (paths.CATALOG_DIR / "gpus.csv").exists():
        pytest.skip("data/catalog has no gpus.csv yet")
    # store_paths: snapshots and runs in tmp_path, so this never writes the repo
    fresh_caches()
    at = run_page(page, all="1")
    assert not at.exception and not at.error
    table = _frame(at)
    assert len(table) > 50
    assert set(table["Verdict"].dropna()) <= {
        "fits comfortably", "fits (tight)", "partial offload", "won't run", "fits", "won't fit",
    }  # fmt: skip


CHECKPOINT = {m[0]: m[7] for m in TINY_MODELS}  # model_id (= display name) -> checkpoint_id


@pytest.mark.parametrize("page", ["llm/hardware_fit.py", "llm/finetune_planner.py"])
def test_no_page_shows_two_rows_for_one_checkpoint(store: Path, page: str) -> None:
    at = run_page(page, gpu="h100-sxm", all="1")
    assert not at.exception
    table = _frame(at)
    checkpoints = [CHECKPOINT[m] for m in table["Model"]]
    assert len(checkpoints) == len(set(checkpoints)) and "qwen3-32b" in checkpoints
    if page.endswith("finetune_planner.py"):  # the model picker too: one option per checkpoint
        options = at.selectbox(key="ft_model").options
        assert sum("qwen3-32b" in o for o in options) == 1


def test_wont_fit_plan_is_priced_on_a_config_that_fits(store: Path) -> None:
    # 405B QLoRA: 275.4 GB; 1x RTX 4090 cannot run it, 4x A100 80GB (320 GB) is the cheapest fit
    at = run_page("llm/finetune_planner.py", model="llama-3.1-405b", gpu="rtx-4090", method="qlora")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Verdict"] == "won't fit" and metrics["Cost (rough)"] != "—"
    (warning,) = at.warning
    assert warning.value == (
        "Priced on 4× A100 80GB: the chosen 1× GeForce RTX 4090 cannot run this job"
    )
    assert any("Price on 4× A100 80GB: $1.50/GPU-hour" in c.value for c in at.caption)
    assert any("LoRA and QLoRA change the memory" in c.value for c in at.caption)


def test_planner_defaults_search_and_log_samples(store: Path) -> None:
    at = run_page("llm/finetune_planner.py")
    assert not at.exception
    assert at.selectbox(key="ft_model").value == "llama-3.1-8b"  # the 7-9 B rule's pick
    samples = at.select_slider(key="ft_samples")
    assert samples.value == 10_000 and {"1,000", "100,000", "1,000,000"} <= set(samples.options)
    at.text_input(key="ft_search").input("qwen").run()
    assert not at.exception
    options = at.selectbox(key="ft_model").options
    assert options and all("qwen" in o.casefold() for o in options)


def test_planner_shows_formula_vs_measured(store_paths: StorePaths) -> None:
    if not (paths.CATALOG_DIR / "finetune_memory.csv").exists():
        pytest.skip("data/catalog has no finetune_memory.csv")
    fresh_caches()
    at = run_page("llm/finetune_planner.py", model="llama-2-7b")
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "Formula vs measured" in text and "measured **21.30 GB**" in text
    assert "formula **16.56 GB**, ratio 1.29" in text and "litgpt" in text.casefold()


@pytest.mark.parametrize("page", ["llm/hardware_fit.py", "llm/finetune_planner.py"])
def test_calculator_pages_say_how_fresh_their_data_is(store: Path, page: str) -> None:
    at = run_page(page)
    assert not at.exception
    assert any(c.value.startswith("Data through ") for c in at.caption)
