"""Discovery lists, smallest rentable config and GPU name resolution (seed 002, "Discovery"):
``analytics.llm.catalog``, ``fit_view`` and ``finetune_view``, on the tiny calculator catalog
(``tests/fixtures/catalogs.py``, served by the ``tiny_store`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

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
    assert cat.config_label(found) == "1× Big ($2.00/h)"
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
    assert rows.loc["llama-3.1-405b", "smallest_config"] == "4× A100 80GB ($6.00/h)"
    assert rows.loc["big-moe-secret", "smallest_config"] == "8× A100 80GB ($12.00/h)"
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
    assert full.loc["llama-3.1-405b", "smallest_config"] == "4× A100 80GB ($6.00/h)"
    assert full.loc["llama-3.1-405b", "config_method"] == "qlora"


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
