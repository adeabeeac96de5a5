"""AppTest runs of the fine-tune planner: a won't-fit job priced on the config that
fits (and saying so), prices with what backs them, dark-mode-safe verdict colours, the Apple
default, the model default and the formula-vs-measured note on the committed catalog."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures import committed
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import make_catalog
from tests.fixtures.store import StorePaths

PAGE = "llm/finetune_planner.py"


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """The tiny calculator catalog as the current catalog, with fresh Streamlit caches."""
    make_catalog(store_paths.root)
    store_paths.serve_catalog()
    fresh_caches()
    return store_paths.root


def test_wont_fit_names_the_config_it_is_priced_on(store: Path) -> None:
    # 405B QLoRA: 275.4 GB; 1x RTX 4090 cannot run it, 4x A100 80GB (320 GB) is the cheapest fit
    at = run_page(PAGE, model="llama-3.1-405b", gpu="rtx-4090", method="qlora")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Verdict"] == "won't fit" and metrics["Cost (rough)"] != "—"
    (warning,) = at.warning
    assert warning.value.startswith(
        "Won't fit on 1× GeForce RTX 4090; priced on 4× A100 80GB, the smallest rentable config "
        "that fits"
    )
    captions = " ".join(c.value for c in at.caption)
    assert "Price on 4× A100 80GB: $1.50/GPU-hour · median over 1 provider" in captions
    assert "date not recorded" in captions and "Thin price" in captions
    assert "LoRA and QLoRA change the memory" in captions


def test_log_samples_control_with_presets(store: Path) -> None:
    at = run_page(PAGE)
    assert not at.exception
    samples = at.select_slider(key="ft_samples")
    assert {"1,000", "10,000", "100,000", "1,000,000"} <= set(samples.options)
    assert samples.options[1] == "200"  # 100, 200, 500, ...: log steps, not a linear slider
    preset = at.selectbox(key="ft_preset")
    assert len(preset.options) == 4
    preset.select(preset.options[3]).run()
    assert at.select_slider(key="ft_samples").value == 1_000_000


def test_committed_catalog_defaults_and_measured_note(store_paths: StorePaths) -> None:
    committed.catalog_file("finetune_memory.csv")
    fresh_caches()
    at = run_page(PAGE, kind="Apple profile", model="llama-2-7b", method="qlora")
    assert not at.exception
    assert at.selectbox(key="ft_apple").value == "m5-max-128gb"  # newest Max chip, largest
    text = " ".join(m.value for m in at.markdown)
    # QLoRA 7B: 0.55 x 7 + 16 x 0.035 + 2 = 6.41 GB against LitGPT's 14.14 GB
    assert "measured **14.14 GB**, formula **6.41 GB**, ratio 2.21" in text
    assert "the formula is 0.45× the measurement" in text
    assert any("not the seed's FLOPs estimate" in c.value for c in at.caption)
    options = at.selectbox(key="ft_model").options
    assert len(options) == len(set(options))


def test_memory_chart_is_readable_on_a_phone_and_in_dark_mode(store: Path) -> None:
    """Issue 31: the memory chart keeps a plot area at 390 px (a minimum height, the legend
    under the plot, no model-name tick label taking the bar's width), names its unit in the
    axis title, and draws the capacity line in a colour visible on both themes (not black)."""
    import json

    from ui import format as fmt

    at = run_page(PAGE, model="llama-3.1-405b", gpu="rtx-4090", method="qlora")
    assert not at.exception
    (chart,) = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    layout = chart["layout"]
    assert layout["height"] >= fmt.MIN_CHART_HEIGHT_PX
    assert layout["xaxis"]["title"]["text"] == "Memory (GB)"
    assert layout["xaxis"]["tickformat"] == ",.0f"  # whole GB ticks, never "2,543.5"
    assert layout["legend"]["orientation"] == "h" and layout["yaxis"]["showticklabels"] is False
    (line,) = layout["shapes"]
    assert line["line"]["color"] == fmt.ACCENT and fmt.theme_safe(fmt.ACCENT) == fmt.ACCENT
    assert layout["xaxis"]["range"][1] >= line["x0"]  # the capacity line is in view
    labels = {m.label: m for m in at.metric}
    assert labels["Method"].value == "QLoRA"  # short enough for a quarter of the page


def _options(at) -> dict[str, dict]:
    """The planner's rentable-config table, by role."""
    (table,) = [t for t in at.dataframe if "role" in t.value]
    return {row["role"]: row for row in table.value.to_dict("records")}


def test_70b_qlora_on_a_4090_shows_smallest_cheapest_and_fastest(
    store_paths: StorePaths,
) -> None:
    """The committed catalog: the seed's smallest config (lowest $/h) costs more than the
    cheapest job, and the fastest one is named beside both, each with hours, cost and $/h."""
    committed.catalog_file("gpus.csv")
    fresh_caches()
    at = run_page(
        PAGE, model="llama-3.1-70b-instruct", gpu="rtx-4090", method="qlora", samples="10000"
    )
    assert not at.exception
    assert at.warning[0].value.startswith("Won't fit on 1× NVIDIA GeForce RTX 4090 24GB")
    options = _options(at)
    assert list(options) == ["smallest", "cheapest", "fastest"]
    smallest, cheapest, fastest = options["smallest"], options["cheapest"], options["fastest"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Cost (rough)"] == f"${smallest['cost_usd']:,.0f}"  # the seed's price stays
    assert cheapest["cost_usd"] < smallest["cost_usd"]
    assert fastest["wall_clock_hours"] <= min(smallest["wall_clock_hours"],
                                              cheapest["wall_clock_hours"])
    for row in options.values():
        assert row["gpu_hours"] > 0 and row["usd_per_gpu_hour"] > 0
        assert row["cost_usd"] == pytest.approx(row["gpu_hours"] * row["usd_per_gpu_hour"])
        assert row["price"].startswith("$") and "SkyPilot catalog @" in row["price"]
        assert row["price_date"] == "not recorded"  # SkyPilot's catalogs carry no date


def test_the_model_list_puts_the_best_rated_model_that_fits_first(store: Path) -> None:
    at = run_page(PAGE, gpu="h100-sxm", all="1")
    assert not at.exception
    assert at.selectbox(key="ft_order").value == "rating"
    table = [t for t in at.dataframe if "Best Elo (variants)" in t.value][0].value
    fits = table["Verdict"].map(lambda v: list(v)[0] != "won't fit")
    assert fits.is_monotonic_decreasing  # models that fit first
    rated = table.loc[fits, "Best Elo (variants)"].dropna()
    assert len(rated) >= 2 and rated.is_monotonic_decreasing
    at.selectbox(key="ft_order").select("quality").run()
    assert not at.exception and at.query_params["order"] == "quality"
