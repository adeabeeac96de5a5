"""Issue 14 on the fine-tune planner's side: honest prices (offers, providers, "thin"), the
config a won't-fit job is priced on, the default model and Apple profile rules, one row per
checkpoint in the model picker, and the formula-vs-measured note. Test data built here."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm import catalog as cat
from analytics.llm import finetune_view as fv
from analytics.llm.ingest import epoch_hardware, skypilot
from analytics.llm.ingest.common import Drops
from tests.fixtures import catalogs

SKY = Path(__file__).parent / "fixtures" / "ingest" / "sky"
REPO = "https://github.com/skypilot-org/skypilot-catalog/blob"
VAST = f"{REPO}/01b8cdda287814b30ff0acb49746cca19fbd4355/catalogs/v8/vast/vms.csv"
LAMBDA = f"{REPO}/0f4070387edc953d7004cff197940e1918a1d6aa/catalogs/v8/lambda/vms.csv"


def _gpus(rows: list[tuple]) -> pd.DataFrame:
    """gpus rows: gpu_id, name, kind, memory_gb, $/h, price_source_url, price_offers."""
    cols = ["gpu_id", "name", "kind", "memory_gb", "usd_per_hour", "price_source_url"]
    frame = pd.DataFrame([r[:6] for r in rows], columns=cols)
    return frame.assign(price_offers=[r[6] for r in rows], bf16_tflops_dense=100.0)


# --- the importer counts what backs each price --------------------------------------------------


def test_skypilot_counts_offers_and_providers() -> None:
    prices = skypilot.typical_prices(SKY, Drops())
    # h100-sxm: 2 lambda offers + 2 vast offers; h200: 1 offer (vast only)
    assert prices["h100-sxm"]["price_offers"] == 4 and prices["h100-sxm"]["price_providers"] == 2
    assert prices["h200"]["price_providers"] == 1
    cells = skypilot.price_columns(prices["h200"])
    assert set(cells) == set(skypilot.PRICE_COLUMNS) and cells["price_date"] is None
    assert skypilot.price_columns(None) == dict.fromkeys(skypilot.PRICE_COLUMNS)


# --- thin prices ---------------------------------------------------------------------------------


def test_a_single_offer_or_a_single_provider_is_thin() -> None:
    two = cat.Price(1.0, (LAMBDA, VAST), None, 5)
    assert not fv.is_thin(two)
    assert fv.is_thin(cat.Price(1.0, (LAMBDA, VAST), None, 1))  # one offer
    assert fv.is_thin(cat.Price(1.0, (VAST,), None, 13))  # one marketplace
    assert not fv.is_thin(cat.Price(1.0, (LAMBDA, VAST)))  # offers unknown: providers decide
    assert fv.is_thin(None)


def test_cheapest_config_skips_a_thin_price_when_a_supported_one_fits() -> None:
    gpus = _gpus(
        [
            ("cheap", "Cheap", "consumer", 24.0, 0.17, VAST, 1),  # the $0.17/h single offer
            ("solid", "Solid", "datacenter", 48.0, 0.60, f"{LAMBDA};{VAST}", 90),
            ("big", "Big", "consumer", 80.0, 0.50, VAST, 3),
        ]
    )
    configs = fv.rentable_configs(gpus)
    found = fv.cheapest_config(configs, lambda h: h.budget_gb >= 160)
    assert (found.gpu_id, found.count) == ("solid", 4)  # not 8x Cheap at $1.36/h
    assert fv.config_label(found) == "4× Solid ($2.40/h)"
    assert fv.price_label(found) == (
        "$0.60/GPU-hour · median of 90 offers from 2 providers (lambda, vast) · "
        "SkyPilot catalog @01b8cdd, @0f40703 · date not recorded"
    )
    huge = fv.cheapest_config(configs, lambda h: h.budget_gb >= 500)  # only a thin one is large
    assert (huge.gpu_id, huge.count) == ("big", 8)
    assert fv.config_label(huge).endswith(", thin price)")
    assert fv.price_label(huge).endswith("· thin")
    facts = fv.price_facts(huge)
    assert facts["price_offers"] == 3 and facts["price_providers"] == 1 and facts["price_thin"]


def test_wont_fit_is_priced_on_the_smallest_config_that_fits_and_says_so() -> None:
    gpus = _gpus(
        [
            ("rtx-4090", "RTX 4090", "consumer", 24.0, 0.40, VAST, 13),
            ("a100-80gb", "A100 80GB", "datacenter", 80.0, 1.49, f"{LAMBDA};{VAST}", 786),
        ]
    )
    target = fv.hardware(gpus, "rtx-4090")
    # 70B QLoRA: 0.55 x 70 + 16 x 0.35 + 3.5 = 47.6 GB -> 1x A100 80GB (ratio 0.60)
    priced = fv.pricing(target, fv.rentable_configs(gpus), 70.0, "sft", "qlora")
    assert (priced.hardware.gpu_id, priced.hardware.count) == ("a100-80gb", 1)
    assert priced.note == (
        "won't fit on 1× RTX 4090; priced on 1× A100 80GB, the smallest rentable config that fits"
    )
    fits = fv.pricing(target, fv.rentable_configs(gpus), 7.0, "sft", "qlora")
    assert fits.hardware == target and fits.note is None


def test_plan_view_names_the_priced_hardware(tmp_path) -> None:
    tables = _tiny_catalog(tmp_path)
    models = pd.concat([tables.models, _dense_70b(tables.models)])
    tables = catalogs_replace(tables, models=models)
    view = fv.plan_view(tables, "llama-70b", cat.hardware(tables.gpus, "rtx-4090"), "sft",
                        "qlora", 10_000)
    assert view.plan.verdict == "won't fit" and view.priced_on is not None
    assert view.priced_note.startswith("won't fit on 1× GeForce RTX 4090; priced on ")
    assert view.cost is not None and view.cost.cost_usd is not None


# --- defaults and the model picker ---------------------------------------------------------------


def test_default_apple_is_the_newest_max_chip_largest_memory() -> None:
    rows = [
        ("m1-8gb", "Apple M1 8GB", "apple", 5.3, None, None, None),
        ("m3-max-128gb", "Apple M3 Max 128GB", "apple", 96.0, None, None, None),
        ("m4-max-36gb", "Apple M4 Max 36GB", "apple", 24.0, None, None, None),
        ("m4-max-128gb", "Apple M4 Max 128GB", "apple", 96.0, None, None, None),
        ("m5-32gb", "Apple M5 32GB", "apple", 21.3, None, None, None),
    ]
    gpus = _gpus(rows)
    assert fv.default_apple(gpus) == "m4-max-128gb"
    no_max = _gpus([rows[0], rows[4]])  # without a Max chip: catalog.default_apple's pick
    assert fv.default_apple(no_max) == cat.default_apple(no_max) == "m5-32gb"
    assert fv.default_apple(gpus[gpus["kind"] == "x"]) is None


def test_default_model_is_the_best_rated_7_to_9b_checkpoint() -> None:
    models = pd.DataFrame(
        {
            "model_id": ["old-7b-chat", "new-8b", "new-8b-thinking", "big-70b", "closed-8b"],
            "display_name": ["Old 7B Chat", "New 8B", "New 8B (thinking)", "Big 70B", "Closed"],
            "checkpoint_id": ["old-7b-chat", "new-8b", "new-8b", "big-70b", "closed-8b"],
            "variant": ["default", "default", "thinking", "default", "default"],
            "total_params_b": [7.0, 8.0, 8.0, 70.0, 8.0],
            "is_moe": [False] * 5,
            "open_weights": [True, True, True, True, False],
            "release_date": ["2023-01-01", "2025-01-01", "2025-01-01", "2025-01-01", "2025-01-01"],
        }
    )
    ratings = pd.DataFrame(
        {"model_id": ["old-7b-chat", "new-8b-thinking", "big-70b", "closed-8b"],
         "rating": [1100.0, 1300.0, 1500.0, 1600.0]}
    )
    scores = pd.DataFrame({"model_id": ["old-7b-chat"] * 3, "benchmark_id": ["a", "b", "c"]})
    assert fv.default_model(models, scores, ratings) == "new-8b-thinking"
    assert fv.default_model(models, scores) == "old-7b-chat"  # no ratings: the older rule
    choices, default = fv.planner_models(models, scores, ratings)
    assert choices["checkpoint_id"].is_unique and "closed-8b" not in set(choices["model_id"])
    row = choices.set_index("model_id").loc[default]
    assert row["label"] == "New 8B · 8B · Elo 1300 · variants: New 8B, New 8B (thinking)"
    assert list(fv.search_choices(choices, "new 8b")["model_id"]) == ["new-8b-thinking"]


# --- formula vs measured -------------------------------------------------------------------------


def test_measured_note_gives_both_numbers_the_ratio_and_the_twin(tmp_path) -> None:
    tables = _tiny_catalog(tmp_path)
    base = tables.models[tables.models["model_id"] == "llama-3.1-8b"]
    twin = base.assign(model_id="llama-3.1-8b-instruct", display_name="Llama 3.1 8B Instruct",
                       checkpoint_id="llama-3.1-8b-instruct")
    models = pd.concat([base.assign(weights_release="l31-8b", arch_key="a8"),
                        twin.assign(weights_release="l31-8b", arch_key="a8"),
                        tables.models[tables.models["model_id"] != "llama-3.1-8b"]])
    measured = pd.DataFrame(
        {"model": ["llama-3.1-8b"], "params_b": [7.0], "method": ["lora"],
         "quantization": ["bnb.nf4"], "microbatch_size": [1], "gpu_id": ["a100-40gb"],
         "peak_memory_gb": [14.14], "outcome": ["measured"],
         "source_url": ["https://github.com/Lightning-AI/litgpt/blob/x/tutorials/resource-tables.md"]}
    )
    tables = catalogs_replace(tables, models=models, finetune_memory=measured)
    rows = fv.measured_comparison(tables, "llama-3.1-8b-instruct")
    assert len(rows) == 1 and rows.loc[0, "measured_on"] == "llama-3.1-8b"
    row = rows.iloc[0].to_dict()
    assert row["formula_gb"] == pytest.approx(0.55 * 7 + 16 * 0.035 + 2)  # 6.41 GB
    assert fv.measured_note(row) == (
        "QLoRA (bnb.nf4, micro-batch 1) on a100-40gb: LitGPT measured 14.14 GB, the seed "
        "formula gives 6.41 GB (measured / formula 2.21; the formula is 0.45× the measurement)"
    )
    other = models.assign(weights_release=None)  # no shared release: nothing applies
    assert fv.measured_comparison(
        catalogs_replace(tables, models=other), "llama-3.1-8b-instruct"
    ).empty


# --- Apple budgets in the curated table ----------------------------------------------------------


def test_curated_apple_rows_keep_the_budget_rule_and_cite_apple() -> None:
    apple = [r for r in epoch_hardware.read_curated() if r["kind"] == "apple"]
    chips = {r["name"].rsplit(" ", 1)[0] for r in apple}
    for gen in ("M1", "M2", "M3", "M4"):
        assert {f"Apple {gen}", f"Apple {gen} Pro", f"Apple {gen} Max"} <= chips
    assert {"Apple M1 Ultra", "Apple M2 Ultra", "Apple M3 Ultra"} <= chips
    assert "Apple M4 Ultra" not in chips  # Apple sold no M4 Ultra
    reported = (paths.REPO_ROOT / "data" / "SOURCES.md").read_text(encoding="utf-8")
    for row in apple:
        # Apple's own page, or a report of Apple's announcement that data/SOURCES.md names
        # (for a chip whose Apple page is not reachable here: M5 Pro and M5 Max)
        url = row["spec_source_url"]
        assert url.startswith(("https://support.apple.com/", "https://www.apple.com/newsroom/")) \
            or url in reported, url
        ram = float(row["unified_ram_gb"])
        assert row["name"].endswith(f" {ram:g}GB")
        budget, note = epoch_hardware.apple_budget_gb(ram)
        assert budget == round(ram * (2 / 3 if ram <= 36 else 0.75), 1) and "https://" in note


# --- helpers -------------------------------------------------------------------------------------


def _tiny_catalog(tmp_path) -> cat.Catalog:
    """The tiny calculator catalog's tables as frames (read from the CSVs it writes)."""
    folder = catalogs.make_catalog(tmp_path)
    frames = {}
    for name in cat.TABLES:
        path = folder / f"{name}.csv"
        frames[name] = pd.read_csv(path) if path.exists() else pd.DataFrame()
    return cat.Catalog(**frames)


def catalogs_replace(tables: cat.Catalog, **frames: pd.DataFrame) -> cat.Catalog:
    return dataclasses.replace(tables, **frames)


def _dense_70b(models: pd.DataFrame) -> pd.DataFrame:
    row = models[models["model_id"] == "llama-3.1-8b"]
    return row.assign(model_id="llama-70b", display_name="llama-70b", checkpoint_id="llama-70b",
                      total_params_b=70.0, vram_q4_gb=None)


def _options_gpus() -> pd.DataFrame:
    """Three well-priced GPUs: slow and cheap per hour, fast and dear, and a thin-priced one
    that would be cheapest of all."""
    frame = _gpus([
        ("slow-48", "Slow 48GB", "datacenter", 48, 0.5, f"{LAMBDA};{VAST}", 100),
        ("fast-80", "Fast 80GB", "datacenter", 80, 3.0, f"{LAMBDA};{VAST}", 100),
        ("thin-80", "Thin 80GB", "datacenter", 80, 0.1, VAST, 1),
    ])
    return frame.assign(bf16_tflops_dense=[100.0, 1000.0, 1000.0])


def test_smallest_cheapest_and_fastest_configs_that_fit() -> None:
    configs = fv.rentable_configs(_options_gpus())
    # 70B QLoRA: 0.55 x 70 + 16 x 0.35 + 3.5 = 47.6 GB; 10,000 samples: 30.72M tokens
    options = fv.config_options(configs, 70.0, 70.0, "sft", "qlora", 10_000)
    by_role = {o.role: o for o in options}
    assert list(by_role) == [fv.SMALLEST, fv.CHEAPEST, fv.FASTEST]
    # smallest: the lowest $/h that fits (the seed's suggestion): 1x Slow (47.6 / 48 GB)
    assert by_role[fv.SMALLEST].hardware.label == "1× Slow 48GB"
    hours_slow = 6e9 * 70 * 30_720_000 / (100e12 * 0.35 * 3600)  # 102.4 GPU-hours
    assert by_role[fv.SMALLEST].cost.cost_usd == pytest.approx(hours_slow * 0.5)  # $51.2
    # cheapest job: 1x Fast (10.24 GPU-hours x $3 = $30.7); the thin $0.10 price is never used
    # while a well-supported config fits; fewest GPUs on the cost tie
    cheapest = by_role[fv.CHEAPEST]
    assert cheapest.hardware.label == "1× Fast 80GB"
    assert cheapest.cost.cost_usd == pytest.approx(hours_slow / 10 * 3.0)
    # fastest: 8x Fast, same cost, an eighth of the wall-clock
    fastest = by_role[fv.FASTEST]
    assert fastest.hardware.label == "8× Fast 80GB"
    assert fastest.cost.wall_clock_hours == pytest.approx(cheapest.cost.wall_clock_hours / 8)
    table = fv.options_table(options)
    assert table["role"].tolist() == ["smallest", "cheapest", "fastest"]
    assert table[["gpu_hours", "cost_usd", "usd_per_gpu_hour"]].dtypes.eq("float64").all()
    assert table["price_date"].isna().all()  # the source records no date: none is invented
    # unknown compute (an MoE without its active count) or nothing that fits: no options
    assert fv.config_options(configs, 70.0, None, "sft", "qlora", 10_000) == ()
    assert fv.config_options(configs, 5000.0, 5000.0, "sft", "qlora", 10_000) == ()


def test_the_list_orders_by_best_rating_with_the_quality_order_available() -> None:
    table = pd.DataFrame({
        "model_id": ["a", "b", "c", "d"], "fits": [True, True, True, False],
        "rating": [1200.0, None, 1500.0, 2000.0],
    })
    assert fv.ordered(table, fv.BY_RATING)["model_id"].tolist() == ["c", "a", "b", "d"]
    assert fv.ordered(table, fv.BY_QUALITY)["model_id"].tolist() == ["a", "b", "c", "d"]
    with pytest.raises(ValueError, match="fix:"):
        fv.ordered(table, "size")
