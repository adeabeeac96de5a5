"""Discovery lists, smallest rentable config and GPU name resolution (seed 002, "Discovery"):
``analytics.llm.catalog``, ``fit_view`` and ``finetune_view``, on the tiny calculator catalog
(``tests/fixtures/catalogs.py``, served by the ``tiny_store`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import db
from analytics.llm import catalog as cat
from analytics.llm import finetune_view, fit_view
from tests.fixtures.catalogs import TINY_GPUS, TINY_MODELS


@pytest.fixture()
def catalog(tiny_store: Path) -> cat.Catalog:
    """The tiny catalog, loaded through the store."""
    return cat.load_catalog(db.connect())


def test_load_catalog_reads_all_tables(catalog: cat.Catalog) -> None:
    assert len(catalog.models) == len(TINY_MODELS) and len(catalog.gpus) == len(TINY_GPUS)
    assert set(catalog.throughput["gpu_id"]) == {"h100-sxm", "rtx-4090"}


def test_rentable_configs_order_and_apple_never_recommended(catalog: cat.Catalog) -> None:
    configs = cat.rentable_configs(catalog.gpus)
    ids = {c.gpu_id for c in configs}
    assert "m2-ultra-192" not in ids and "l40s" not in ids  # Apple; no price
    hourly = [c.count * c.usd_per_hour for c in configs]
    assert hourly == sorted(hourly)
    assert (configs[0].gpu_id, configs[0].count) == ("rtx-4090", 1)
    # $0.40/h, $0.80/h, $1.50/h: two RTX 4090s are cheaper than one A100
    assert [(c.gpu_id, c.count) for c in configs[:3]] == [
        ("rtx-4090", 1),
        ("rtx-4090", 2),
        ("a100-80gb", 1),
    ]


def test_smallest_config_prefers_fewer_gpus_on_price_ties() -> None:
    gpus = pd.DataFrame(
        {
            "gpu_id": ["small", "big"],
            "name": ["Small", "Big"],
            "kind": ["consumer"] * 2,
            "memory_gb": [24.0, 48.0],
            "usd_per_hour": [1.0, 2.0],
            "bf16_tflops_dense": [100.0, 200.0],
        }
    )
    found = cat.smallest_config(cat.rentable_configs(gpus), lambda h: h.budget_gb >= 40)
    assert (found.gpu_id, found.count) == ("big", 1)  # $2/h either way: one GPU wins
    assert cat.config_label(found) == "1× Big ($2.00/h, thin price)"
    assert cat.smallest_config([], lambda h: True) is None


def test_inference_list_default_only_fits(catalog: cat.Catalog) -> None:
    target = cat.hardware(catalog.gpus, "rtx-4090", 1)
    table = fit_view.inference_list(catalog.models, target, catalog.gpus, context_tokens=8192)
    assert table["fits"].all() and (table["ratio"] <= 1.0).all()
    assert set(table["model_id"]) == {
        "llama-3.1-8b",
        "nc-model-7b",
        "qwen3-32b",
        "qwen3-32b-thinking",
    }
    assert "closed-chat" not in set(table["model_id"])  # no size data: no verdict


def test_inference_show_all_adds_wont_fit_with_config(catalog: cat.Catalog) -> None:
    target = cat.hardware(catalog.gpus, "rtx-4090", 1)
    table = fit_view.inference_list(catalog.models, target, catalog.gpus, show_all=True)
    rows = table.set_index("model_id")
    assert rows.loc["llama-3.1-405b", "status"] == "won't fit"
    # 405 x 0.5625 x 1.08 = 246.0 GB: 4x A100 80GB (320 GB, $6/h) is the cheapest that holds it
    assert rows.loc["llama-3.1-405b", "smallest_config"] == "4× A100 80GB ($6.00/h, thin price)"
    assert rows.loc["big-moe-secret", "smallest_config"] == "8× A100 80GB ($12.00/h, thin price)"
    assert pd.isna(rows.loc["llama-3.1-8b", "smallest_config"])
    assert list(table["fits"]) == sorted(table["fits"], reverse=True)  # fits first


def test_finetune_list(catalog: cat.Catalog) -> None:
    target = cat.hardware(catalog.gpus, "rtx-4090", 1)
    table = finetune_view.finetune_list(catalog.models, target, catalog.gpus, "sft", "auto")
    rows = table.set_index("model_id")
    assert "closed-chat" not in rows.index
    assert rows.loc["llama-3.1-8b", "method"] == "lora"  # 2 x 8.03 + 16 x 0.04 + 2 = 18.7 GB
    full = finetune_view.finetune_list(
        catalog.models, target, catalog.gpus, "sft", "auto", show_all=True
    ).set_index("model_id")
    # 1000B QLoRA: 550 + 80 + 50 = 680 GB -> 8x H100 (640 GB) is too small: no config
    assert full.loc["big-moe-secret", "smallest_config"].startswith("—")
    # 405B QLoRA SFT: 222.75 + 32.4 + 20.25 = 275.4 GB -> 4x A100 (320 GB, ratio 0.86)
    assert full.loc["llama-3.1-405b", "smallest_config"] == "4× A100 80GB ($6.00/h, thin price)"
    assert full.loc["llama-3.1-405b", "config_method"] == "qlora"


@pytest.mark.parametrize("show_all", [False, True])
def test_lists_over_no_model_are_empty_tables(catalog: cat.Catalog, show_all: bool) -> None:
    """Filters that leave no model give an empty table with its columns (an empty object
    column used as a mask once selected no column at all: KeyError 'fits')."""
    target = cat.hardware(catalog.gpus, "rtx-4090", 1)
    none = catalog.models.iloc[:0]
    fits = fit_view.inference_list(none, target, catalog.gpus, 8192, show_all)
    tunes = finetune_view.finetune_list(none, target, catalog.gpus, "sft", "auto", show_all)
    for table in (fits, tunes):
        assert table.empty and {"fits", "status", "ratio", "smallest_config"} <= set(table)


def test_apple_counts_as_one_device(catalog: cat.Catalog) -> None:
    apple = cat.hardware(catalog.gpus, "m2-ultra-192", count=4)
    assert apple.count == 1 and apple.budget_gb == 144 and apple.is_apple


def test_filters(catalog: cat.Catalog) -> None:
    out = cat.filter_models(catalog.models, ["research-only"])
    assert out["model_id"].tolist() == ["nc-model-7b"]
    small = cat.filter_models(catalog.models, params_range_b=(0, 10))
    assert set(small["model_id"]) == {"llama-3.1-8b", "nc-model-7b"}
    opened = cat.filter_models(catalog.models, open_weights_only=True)
    assert "closed-chat" not in set(opened["model_id"])


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("H100", "h100-sxm"),
        ("h100 80gb", "h100-sxm"),
        ("rtx_4090", "rtx-4090"),
        ("GeForce RTX 4090", "rtx-4090"),
        ("A100-80GB", "a100-80gb"),
    ],
)
def test_resolve_gpu(catalog: cat.Catalog, typed: str, expected: str) -> None:
    assert cat.resolve_gpu(catalog.gpus, typed) == expected


def test_resolve_unknown_gpu_lists_closest(catalog: cat.Catalog) -> None:
    with pytest.raises(LookupError, match="h100-sxm"):
        cat.resolve_gpu(catalog.gpus, "H1000")


def test_hardware_fit_view_puts_fitting_models_first_by_rating(catalog: cat.Catalog) -> None:
    ratings = pd.DataFrame(
        {"model_id": ["qwen3-32b", "nc-model-7b"], "rating": [1200.0, 900.0], "eligible": [1, 1]}
    )
    target = cat.hardware(catalog.gpus, "rtx-4090", 1)
    view = fit_view.hardware_fit_view(catalog, ratings, target, 8192, show_all=True)
    assert view["model_id"].tolist()[:2] == ["qwen3-32b", "nc-model-7b"]
    assert list(view["status"]) == sorted(view["status"])  # "fits" < "won't fit"
    assert view.set_index("model_id").loc["llama-3.1-8b", "measured_tokens_per_s"] == 127.7
    assert catalog.finetune_memory.empty  # the tiny catalog has no such table


def _with_70b(catalog: cat.Catalog) -> cat.Catalog:
    """The tiny catalog plus a dense 70B open-weight model (test data)."""
    row = catalog.models[catalog.models["model_id"] == "llama-3.1-8b"].assign(
        model_id="llama-70b", display_name="llama-70b", checkpoint_id="llama-70b",
        total_params_b=70.0, vram_q4_gb=None,
    )
    return dataclasses.replace(catalog, models=pd.concat([catalog.models, row]))


def test_wont_fit_plan_is_priced_on_a_config_that_fits(catalog: cat.Catalog) -> None:
    # 70B QLoRA: 0.55 x 70 + 16 x 0.35 + 3.5 = 47.6 GB; 1x RTX 4090 has 24 GB, 2x have 48
    target = cat.hardware(catalog.gpus, "rtx-4090")
    view = finetune_view.plan_view(_with_70b(catalog), "llama-70b", target, "sft", "qlora", 10_000)
    assert view.plan.verdict == "won't fit"
    assert (view.priced_on.gpu_id, view.priced_on.count) == ("rtx-4090", 2)
    assert view.priced_note == (
        "won't fit on 1× GeForce RTX 4090; priced on 2× GeForce RTX 4090, the smallest rentable"
        " config that fits (thin price: no better-supported config fits)"
    )
    hours = 6e9 * 70 * 30_720_000 / (165.2e12 * 0.35 * 3600)
    assert view.cost.gpu_hours == pytest.approx(hours)
    assert view.cost.wall_clock_hours == pytest.approx(hours / 2)
    assert view.cost.cost_usd == pytest.approx(hours * 0.40)


def test_fitting_plan_is_priced_on_the_chosen_hardware(catalog: cat.Catalog) -> None:
    target = cat.hardware(catalog.gpus, "h100-sxm", 2)
    view = finetune_view.plan_view(catalog, "llama-3.1-8b", target, "rl", "full", 10_000)
    assert view.priced_on == target and view.priced_note is None


def test_no_rentable_config_fits_gives_no_price(catalog: cat.Catalog) -> None:
    target = cat.hardware(catalog.gpus, "rtx-4090")
    view = finetune_view.plan_view(catalog, "llama-3.1-405b", target, "sft", "full", 1000)
    assert view.cost is None and view.priced_on is None
    assert view.priced_note.startswith("No price: the chosen 1× GeForce RTX 4090 cannot run")
    assert "no rentable config up to 8 GPUs" in view.cost_note


def _gpus(rows: list[tuple]) -> pd.DataFrame:
    cols = ["gpu_id", "name", "kind", "memory_gb", "usd_per_hour", "price_source_url"]
    return pd.DataFrame(rows, columns=cols).assign(bf16_tflops_dense=100.0)


VAST = "https://github.com/skypilot-org/skypilot-catalog/blob/x/catalogs/v8/vast/vms.csv"
LAMBDA = "https://github.com/skypilot-org/skypilot-catalog/blob/x/catalogs/v8/lambda/vms.csv"


def test_thin_prices_are_flagged_and_used_only_when_nothing_better_fits() -> None:
    gpus = _gpus(
        [
            ("cheap", "Cheap", "consumer", 24.0, 0.2, VAST),  # one provider catalog: thin
            ("solid", "Solid", "datacenter", 24.0, 1.0, f"{LAMBDA};{VAST}"),
            ("big", "Big", "consumer", 80.0, 0.5, VAST),
        ]
    )
    configs = cat.rentable_configs(gpus)
    found = cat.smallest_config(configs, lambda h: h.budget_gb >= 20)
    assert (found.gpu_id, found.count) == ("solid", 1)  # not the thin $0.20/h
    assert cat.config_label(found) == "1× Solid ($1.00/h)"
    assert cat.price_label(found) == (
        "$1.00/GPU-hour · 2 provider catalogs (lambda, vast) · date not recorded · "
        "offers not recorded"
    )
    # only thin configs are large enough: the cheapest of them, flagged
    big = cat.smallest_config(configs, lambda h: h.budget_gb >= 200)
    assert (big.gpu_id, big.count) == ("big", 4)
    assert cat.config_label(big) == "4× Big ($2.00/h, thin price)"
    assert "1 provider catalog (vast) · thin" in cat.price_label(big)


def test_default_apple_is_the_newest_base_chip() -> None:
    gpus = _gpus(
        [
            ("m1-8gb", "Apple M1 8GB", "apple", 5.3, None, None),
            ("m3-16gb", "Apple M3 16GB", "apple", 10.7, None, None),
            ("m4-max-128gb", "Apple M4 Max 128GB", "apple", 96.0, None, None),
        ]
    )
    assert cat.default_apple(gpus) == "m3-16gb"
    tiers = gpus[gpus["gpu_id"] == "m4-max-128gb"]  # no base chip: newest generation, smallest
    assert cat.default_apple(tiers) == "m4-max-128gb"
    assert cat.default_apple(gpus[gpus["kind"] == "x"]) is None


def test_default_model_rule(catalog: cat.Catalog) -> None:
    # tiny catalog: no instruct 7-9 B model; of the 7-9 B dense ones llama-3.1-8b has scores
    assert finetune_view.default_model(catalog.models, catalog.scores) == "llama-3.1-8b"
    named = catalog.models.assign(
        display_name=catalog.models["display_name"].replace("nc-model-7b", "NC 7B Instruct")
    )
    assert finetune_view.default_model(named, catalog.scores) == "nc-model-7b"


def test_model_choices_one_per_checkpoint_and_search(catalog: cat.Catalog) -> None:
    ratings = pd.DataFrame({"model_id": ["qwen3-32b-thinking"], "rating": [1111.0]})
    choices = finetune_view.model_choices(catalog.models, ratings)
    assert choices["checkpoint_id"].is_unique and "closed-chat" not in set(choices["model_id"])
    qwen = choices[choices["checkpoint_id"] == "qwen3-32b"].iloc[0]
    assert qwen["model_id"] == "qwen3-32b-thinking"
    assert qwen["label"] == (
        "qwen3-32b · 32.8B · Elo 1111 · variants: qwen3-32b, qwen3-32b-thinking"
    )
    found = finetune_view.search_choices(choices, "QWEN 32")
    assert found["model_id"].tolist() == ["qwen3-32b-thinking"]
    assert len(finetune_view.search_choices(choices, "")) == len(choices)


def test_measured_comparison_beside_the_formula(catalog: cat.Catalog) -> None:
    measured = pd.DataFrame(
        {
            "model": ["Llama 3.1 8B", "other"], "params_b": [8.03, 7.0],
            "method": ["lora", "lora"], "quantization": ["none", "none"],
            "microbatch_size": [1, 1], "gpu_id": ["a100-40gb"] * 2,
            "peak_memory_gb": [20.0, 10.0], "outcome": ["measured"] * 2,
            "source_url": ["https://example.org/litgpt"] * 2,
        }
    )
    tables = dataclasses.replace(catalog, finetune_memory=measured)
    rows = finetune_view.measured_comparison(tables, "llama-3.1-8b")
    assert len(rows) == 1
    formula = 2 * 8.03 + 16 * 0.005 * 8.03 + 2  # LoRA 8.03B
    assert rows.loc[0, "formula_gb"] == pytest.approx(formula)
    assert rows.loc[0, "ratio"] == pytest.approx(20.0 / formula)
    assert rows.loc[0, "source_url"] == "https://example.org/litgpt"
    assert finetune_view.measured_comparison(tables, "qwen3-32b").empty
