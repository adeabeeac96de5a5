"""Issue 29: the model page lists every measured GPU speed of the model with its kind named,
the hardware-fit page shows one figure of each kind with its label, a single community run says
1 run."""

from __future__ import annotations

import pandas as pd

from analytics.core import db
from analytics.llm import catalog, throughput
from tests.fixtures.apptest import fresh_caches, run_page, shown_labels
from tests.fixtures.store import StorePaths


def _tables() -> catalog.Catalog:
    return catalog.of_version(db.serving_version().version)


def test_model_speeds_name_every_kind_and_keep_the_runs():
    tables = _tables()
    rows = throughput.model_speeds(tables.throughput, tables.models, "qwen3.6-27b")
    assert not rows.empty
    assert set(rows["kind"]) <= set(throughput.KIND_LABELS.values())
    community = rows[rows["kind"] == throughput.KIND_LABELS[throughput.COMMUNITY]]
    assert not community.empty
    assert (community["n_runs"] >= 1).all()
    assert (community["tokens_per_s_min"] <= community["tokens_per_s_max"]).all()
    single = community[community["n_runs"] == 1]
    assert (single["tokens_per_s_min"] == single["tokens_per_s"]).all()


def test_each_kind_has_a_figure_somewhere_in_the_committed_catalog():
    tables = _tables()
    kinds = set(throughput.throughput_kinds(tables.throughput))
    assert set(throughput.THROUGHPUT_KINDS) <= kinds


# Hardware-fit page on the committed catalog: one pinned figure of each new kind with its label
# (llama.cpp single-stream and MLPerf server are pinned in test_pages_fit.py).
COMMUNITY_COL = "Community single-stream tok/s (median)"
BENCH_COL = "Benchmarker single-stream tok/s"
VENDOR_COL = "Vendor tok/s per GPU (aggregate)"


def _fit_table(**query: str) -> pd.DataFrame:
    at = run_page("llm/hardware_fit.py", all="1", **query)
    assert not at.exception and not at.error
    (element,) = at.dataframe
    return element.value.set_index("Checkpoint id")


def test_fit_page_pins_one_figure_of_each_kind_with_its_label(store_paths: StorePaths) -> None:
    fresh_caches()
    rtx = _fit_table(gpu="rtx-4090", count="1")
    # community: one run of Qwen3.6 27B at Q4_K_M under llama.cpp (localmaxxing, 2026-04-30)
    row = rtx.loc["qwen3.6-27b"]
    assert row[COMMUNITY_COL] == 46.64 and row["Community runs"] == 1
    assert row["Community slowest run tok/s"] == row["Community fastest run tok/s"] == 46.64
    assert (row["Community quant"], row["Community engine"]) == ("Q4_K_M", "llama.cpp")
    assert row["Community: applies as"] == "measured"
    # benchmarker: Geerling's Ollama eval rate of gpt-oss 20b, and on the base checkpoint of
    # Llama 3.2 3B labelled with the instruct checkpoint it ran on
    assert rtx.loc["gpt-oss-20b", BENCH_COL] == 279.65
    assert rtx.loc["gpt-oss-20b", "Benchmarker engine"] == "Ollama"
    assert rtx.loc["llama-3.2-3b", "Benchmarker: applies as"] == "measured on Llama 3.2 3B Instruct"
    assert VENDOR_COL not in rtx.columns  # NVIDIA publishes no RTX 4090 figure: no column
    fresh_caches()
    h100 = _fit_table(gpu="h100-sxm", count="2")
    row = h100.loc["llama-3.3-70b-instruct"]
    assert row[VENDOR_COL] == 2209.0  # TensorRT-LLM, FP8, 2x H100 TP2
    assert (row["Vendor weights"], row["Vendor engine"]) == ("FP8", "TensorRT-LLM")
    assert row["Vendor workload"].startswith("offline max throughput")
    assert COMMUNITY_COL not in h100.columns and BENCH_COL not in h100.columns


def test_fit_page_community_median_of_many_runs_shows_its_spread(store_paths: StorePaths) -> None:
    fresh_caches()
    row = _fit_table(gpu="rtx-3090", count="1").loc["gpt-oss-20b"]
    assert row[COMMUNITY_COL] == 170.91 and row["Community runs"] == 9
    assert (row["Community slowest run tok/s"], row["Community fastest run tok/s"]) == (
        108.38, 180.42,
    )


def test_fit_page_measured_only_toggle_and_sort_by_speed(store_paths: StorePaths) -> None:
    fresh_caches()
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090", count="1", measured="1", sort="community")
    assert not at.exception and not at.error
    (element,) = at.dataframe
    table = element.value
    kinds = [COMMUNITY_COL, BENCH_COL, "Single-stream decode tok/s", VENDOR_COL,
             "Server tok/s (MLPerf)"]
    speeds = [c for c in kinds if c in table.columns]  # a speed kind with no value is left out
    assert COMMUNITY_COL in speeds and table[speeds].notna().any().all()
    assert len(table) >= 10 and table[speeds].notna().any(axis=1).all()
    community = table[COMMUNITY_COL].dropna()
    assert list(community) == sorted(community, reverse=True)
    assert table.index[: len(community)].tolist() == community.index.tolist()  # measured first
    headers = shown_labels(element)  # the sorted column is on screen: right after the verdict
    assert headers[headers.index("Verdict") + 1] == COMMUNITY_COL
    assert at.toggle(key="hf_measured").value is True
    assert at.selectbox(key="hf_sort").value == "community single-stream"
    assert any(
        "have a measured speed on" in c.value and c.value.startswith(f"{len(table)} of")
        for c in at.caption
    )
    assert (at.query_params["measured"], at.query_params["sort"]) == ("1", "community")
    # off: every fitting row again, the count unchanged
    at.toggle(key="hf_measured").set_value(False).run()
    assert len(at.dataframe[0].value) > len(table)
