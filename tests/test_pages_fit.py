"""AppTest runs of the hardware-fit and fine-tune planner pages on the tiny catalog."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analytics.core import paths
from analytics.llm import fit
from tests.fixtures import committed
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import (
    NV,
    TINY_CONTEXT_LENGTH,
    TINY_GPUS,
    TINY_MODELS,
    make_catalog,
    write_schema_table,
)
from tests.fixtures.store import StorePaths

# --- the fit catalog: the tiny calculator catalog plus the issue-14 columns (test data) ---------

LLAMA_CPP = "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference"
MLPERF = "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/X/results"
Q4_URL = "https://example.org/q4-file-sizes"
ARCH_8B = (32, 8, 128)
# the makers' stated maximum context (Llama 3: 8,192 tokens; Llama 3.1: 131,072)
CONTEXT_LENGTH = {**TINY_CONTEXT_LENGTH, "llama-3-8b": 8192, "llama-3-8b-instruct": 8192,
                  "llama-3.1-8b-instruct": 131072}
# id, name, params, Q4 GB, Q4 basis, (layers, kv heads, head dim), arch_key, weights_release
EXTRA_MODELS = [
    ("llama-3-8b", "Meta-Llama-3-8B", 8.03, 4.92, "published file size", ARCH_8B, "llama:8b",
     "meta/llama-3-8b"),
    ("llama-3-8b-instruct", "Llama 3 Instruct 8B", 8.03, 4.92, "published file size", ARCH_8B,
     "llama:8b", "meta/llama-3-8b"),
    ("llama-3.1-8b-instruct", "Llama 3.1 8B Instruct", 8.03, None, None, ARCH_8B, "llama:8b",
     "meta/llama-3.1-8b"),
    ("llama-2-70b-chat", "Llama 2 Chat 70B", 68.98, None, None, (80, 8, 128), "llama:70b-2",
     "meta/llama-2-70b"),
    ("llama-2-70b", "Llama-2-70b-hf", 68.98, None, None, (80, 8, 128), "llama:70b-2",
     "meta/llama-2-70b"),
    ("llama-3-70b", "Meta-Llama-3-70B", 70.55, None, None, (80, 8, 128), "llama:70b-3",
     "meta/llama-3-70b"),
]
# model, gpu, count, quant, phase, tok/s, kind, scenario, system, measured on
FIT_THROUGHPUT = [
    ("llama-3-8b", "rtx-4090", 1, "Q4_K_M", "generation", 127.7, "single-stream", "", "",
     "Llama 3 8B Q4_K_M"),
    ("llama-3-8b", "rtx-4090", 1, "F16", "generation", 54.3, "single-stream", "", "",
     "Llama 3 8B F16"),
    ("llama-3-8b", "rtx-4090", 1, "Q4_K_M", "prompt", 6000.0, "single-stream", "", "",
     "Llama 3 8B Q4_K_M"),
    ("llama-3-8b", "rtx-4090", 2, "Q4_K_M", "generation", 120.0, "single-stream", "", "",
     "Llama 3 8B Q4_K_M"),
    ("llama-3.1-8b", "h100-sxm", 1, "Q4_K_M", "generation", 140.0, "single-stream", "", "",
     "Llama 3.1 8B Q4_K_M"),
    ("llama-2-70b-chat", "h100-sxm", 8, "FP8", "generation", 30000.0, "server", "Offline",
     "SYS-A", "llama2-70b-99.9"),
    ("llama-2-70b-chat", "h100-sxm", 8, "FP8", "generation", 27000.0, "server", "Server",
     "SYS-A", "llama2-70b-99.9"),
    ("llama-2-70b-chat", "h100-sxm", 8, "FP8", "generation", 31000.0, "server", "Offline",
     "SYS-B", "llama2-70b-99"),
    ("llama-3.1-8b-instruct", "h100-sxm", 8, "FP8", "generation", 60000.0, "server", "Offline",
     "SYS-A", "llama3.1-8b-99"),
    ("llama-3.1-8b-instruct", "h100-sxm", 4, "FP8", "generation", 30000.0, "server", "Offline",
     "SYS-C", "llama3.1-8b-99"),
]
M4_MAX = ("m4-max-128gb", "Apple M4 Max 128GB", "Apple", "apple", 96, None, None, "M4 Max")


def _fit_models() -> list[dict]:
    rows = [
        dict(model_id=m, display_name=m, organisation="test", family=m.split("-")[0],
             total_params_b=p, active_params_b=a, is_moe=moe, open_weights=o, licence_raw=lic,
             vram_q4_gb=q, checkpoint_id=c, n_layers=nl, n_kv_heads=kv, head_dim=hd,
             variant="thinking" if m.endswith("-thinking") else "default",
             context_length=CONTEXT_LENGTH.get(m))
        for m, p, a, moe, o, lic, q, c, nl, kv, hd in TINY_MODELS
    ]
    for row in rows:  # tiny's 4.9 GB has no basis: not ground truth, the formula applies
        if row["model_id"] == "llama-3.1-8b":
            row.update(arch_key="llama:8b", weights_release="meta/llama-3.1-8b")
    rows += [
        dict(model_id=m, display_name=name, organisation="Meta", family="llama",
             total_params_b=p, is_moe=False, open_weights=True, licence_raw="llama3",
             vram_q4_gb=q, vram_q4_basis=basis, vram_q4_source_url=Q4_URL if q else None,
             checkpoint_id=m, n_layers=arch[0], n_kv_heads=arch[1], head_dim=arch[2],
             arch_key=ak, weights_release=wr, context_length=CONTEXT_LENGTH.get(m))
        for m, name, p, q, basis, arch, ak, wr in EXTRA_MODELS
    ]
    return rows


def _fit_throughput(rows: list[tuple] | None = None) -> list[dict]:
    return [
        dict(model_id=m, gpu_id=g, gpu_count=n, quant=q, phase=ph, tokens_per_s=t,
             source_url=LLAMA_CPP if kind == "single-stream" else MLPERF, kind=kind,
             scenario=sc, system=sy, measured_on=on,
             source_name="llama.cpp GPU-Benchmarks-on-LLM-Inference" if kind == "single-stream"
             else "MLPerf Inference v5.1")
        for m, g, n, q, ph, t, kind, sc, sy, on in (FIT_THROUGHPUT if rows is None else rows)
    ]


def _fit_gpus() -> list[dict]:
    return [
        dict(gpu_id=g, name=n, vendor=v, kind=k, memory_gb=m, bf16_tflops_dense=t,
             usd_per_hour=p, spec_source_url=NV, aliases=a,
             price_source_url="https://modelatlas.example.org/seed-002" if p else None)
        for g, n, v, k, m, t, p, a in [*TINY_GPUS, M4_MAX]
    ]


def _tiny_throughput() -> list[dict]:
    """The tiny catalog's two llama.cpp rows with the issue-14 columns filled in."""
    rows = [r for r in FIT_THROUGHPUT if r[0] == "llama-3.1-8b"]
    rows.append(("llama-3.1-8b", "rtx-4090", 1, "Q4_K_M", "generation", 127.7, "single-stream",
                 "", "", "Llama 3.1 8B Q4_K_M"))
    return _fit_throughput(rows)


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """The tiny calculator catalog (throughput with its kind) as the current catalog, with
    fresh Streamlit caches."""
    folder = make_catalog(store_paths.root)
    write_schema_table(folder, "throughput", _tiny_throughput())
    store_paths.serve_catalog()
    fresh_caches()
    return store_paths.root


@pytest.fixture()
def fit_store(store_paths: StorePaths) -> Path:
    """The tiny calculator catalog with the issue-14 models / throughput columns, more Llama
    checkpoints and an M4 Max profile, as the current catalog, with fresh Streamlit caches."""
    folder = make_catalog(store_paths.root)
    write_schema_table(folder, "models", _fit_models())
    write_schema_table(folder, "throughput", _fit_throughput())
    write_schema_table(folder, "gpus", _fit_gpus())
    store_paths.serve_catalog()
    fresh_caches()
    return store_paths.root


CONTEXT = "Verdict at 8,192 tokens"


def _frame(at: AppTest):
    """The page's model list, verdict badges as their text (['fits'] -> 'fits'): its only table,
    or on the planner the one after the rentable-config table."""
    lists = [e for e in at.dataframe if "role" not in e.value]
    (element,) = lists  # one model list per page
    return element.value.map(_badge_text)


def _badge_text(value: object) -> object:
    """A badge cell (a one-item list or array) as its text; other cells unchanged."""
    if isinstance(value, str) or not hasattr(value, "__len__") or len(value) != 1:
        return value
    return value[0]


@pytest.mark.parametrize(
    ("page", "columns"),
    [("llm/hardware_fit.py", ["Verdict", CONTEXT]), ("llm/finetune_planner.py", ["Verdict"])],
)
def test_verdicts_are_coloured_badges(fit_store: Path, page: str, columns) -> None:
    """Each verdict cell is a one-item list drawn by a read-only multiselect column whose
    options are every verdict, each with a translucent colour (the text keeps the theme's
    colour: readable in the light and dark theme; no pandas Styler)."""
    at = run_page(page, gpu="rtx-4090", all="1")
    assert not at.exception
    (element,) = [e for e in at.dataframe if "role" not in e.value]  # the model list
    config = json.loads(element.proto.columns)
    for column in columns:
        cells = element.value[column].dropna()
        assert len(cells) and all(len(c) == 1 for c in cells), column
        conf = config[column]
        assert conf["type_config"]["type"] == "multiselect" and conf["disabled"] is True
        options = conf["type_config"]["options"]
        assert {c[0] for c in cells} <= {o["value"] for o in options}
        assert all(o["color"].endswith(("66", "40")) for o in options)  # translucent
        assert {o["value"] for o in options} >= set(fit.VERDICTS) or page.endswith("planner.py")


def test_hardware_fit_page_renders(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090")
    assert not at.exception
    assert at.title[0].value == "What fits my hardware"
    table = _frame(at)
    assert table["Model"].is_unique
    # essentials first: readable at 1,400 px without scrolling sideways; the verdict at the
    # chosen context and the best quant that fits there right after the verdict; only the speed
    # kinds measured for this hardware (llama.cpp here) get columns
    assert list(table.columns[:8]) == [
        "Model", "Verdict", "Verdict at 8,192 tokens", "Best quant that fits at 8,192 tokens",
        "Best Elo (variants)", "Single-stream decode tok/s", "Required GB", "Q4 basis",
    ]
    assert not any(c.startswith(("Server", "MLPerf", "Community", "Vendor", "Benchmarker"))
                   for c in table.columns)
    assert "Required GB" in table.columns
    rows = table.set_index("Model")
    # qwen3-32b and qwen3-32b-thinking share one checkpoint: one row named for the checkpoint
    assert rows.loc["qwen3-32b", "Variants (one checkpoint)"] == "qwen3-32b, qwen3-32b-thinking"
    assert "qwen3-32b-thinking" not in rows.index
    row = rows.loc["llama-3.1-8b"]
    assert row["Verdict"] == "fits comfortably"
    assert row["Q4 basis"] == "formula (4.5 bits/param)"  # 4.9 GB without a basis: not used
    assert row["Required GB"] == pytest.approx(8.03 * 4.5 / 8 * 1.08)
    assert row["KV cache GB at 8,192 tokens"] == pytest.approx(1.073741824)
    assert row["Best Elo (variants)"] > 0
    # same architecture, another release: llama-3-8b's measured row never applies
    assert pd.isna(row["Single-stream decode tok/s"])
    assert "Smallest rentable config" not in table
    assert at.query_params["gpu"] == "rtx-4090"


def test_rtx_4090_single_stream_rows_own_and_same_release(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090")
    assert not at.exception
    rows = _frame(at).set_index("Model")
    base = rows.loc["Meta-Llama-3-8B"]
    # the Q4 row (the verdict's quantisation), not the F16 row nor the prompt-phase figure
    assert base["Single-stream decode tok/s"] == 127.7 and base["Single-stream quant"] == "Q4_K_M"
    assert base["Single-stream: applies as"] == "measured"
    assert base["Single-stream: source ran"] == "Llama 3 8B Q4_K_M"
    assert base["Single-stream source"] == LLAMA_CPP
    assert base["Q4 basis"] == "published file size" and base["Q4 source"] == Q4_URL
    assert base["Required GB"] == pytest.approx(4.92 * 1.08)
    instruct = rows.loc["Llama 3 Instruct 8B"]
    assert instruct["Single-stream decode tok/s"] == 127.7
    assert instruct["Single-stream: applies as"] == "measured on Meta-Llama-3-8B"
    assert "Server tok/s (MLPerf)" not in rows  # no MLPerf row for one RTX 4090: no column
    # the second verdict, beside the seed one: 4.92 + 1.07 GB KV cache on 24 GB
    assert base[CONTEXT] == "fits comfortably"
    assert base["Q4 weights + KV GB at 8,192 tokens"] == pytest.approx(4.92 + 1.073741824)
    assert rows.loc["nc-model-7b", CONTEXT] == "KV cache unknown: architecture not in sources"
    # a verdict per quantisation at the context: the published Q4_K_M file, else llama.cpp's
    # bits per weight (Q8_0 8.5008, FP16 16) x params / 8, plus the same KV cache
    assert base["Q4_K_M size basis"] == "published file size"
    assert base["Q4_K_M GB at 8,192 tokens (weights + KV)"] == pytest.approx(4.92 + 1.073741824)
    assert base["Q8_0 size basis"] == "formula (8.50 bits/param)"
    assert base["Q8_0 GB at 8,192 tokens (weights + KV)"] == pytest.approx(
        8.03 * 8.5008 / 8 + 1.073741824
    )
    assert base["FP16 at 8,192 tokens"] == "fits comfortably"  # 17.1 / 24 = 0.71
    assert base["Best quant that fits at 8,192 tokens"] == "FP16"
    assert base["Best quant bits/weight"] == 16.0


def test_context_verdict_beside_never_replacing(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090", ctx="131072", all="1")
    assert not at.exception
    row = _frame(at).set_index("Model").loc["Llama 3.1 8B Instruct"]
    # 131,072 tokens: 4.52 + 17.18 GB = 21.7 GB on 24 GB -> tight; the seed verdict is unchanged
    assert row["Verdict"] == "fits comfortably"
    assert row["Verdict at 131,072 tokens"] == "fits (tight)"


def test_best_quant_column_sorts_as_a_number_and_refuses_above_max_context(
    fit_store: Path,
) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090", ctx="131072", all="1")
    assert not at.exception
    table = _frame(at)
    bits = table["Best quant bits/weight"]
    assert pd.api.types.is_float_dtype(bits) and bits.notna().any() and bits.isna().any()
    rows = table.set_index("Model")
    # Llama 3 8B reads at most 8,192 tokens: refused at 131,072, whatever the memory says
    llama3 = rows.loc["Meta-Llama-3-8B"]
    assert llama3["Model's max context (tokens)"] == 8192
    assert llama3["Verdict"] == "fits comfortably"  # the seed verdict stays the headline
    assert llama3["Verdict at 131,072 tokens"] == fit.ABOVE_MAX_CONTEXT
    assert llama3["Best quant that fits at 131,072 tokens"] == fit.ABOVE_MAX_CONTEXT
    assert llama3["FP16 at 131,072 tokens"] == fit.ABOVE_MAX_CONTEXT
    # Llama 3.1 8B (131,072 allowed): 17.2 GB of KV cache leaves room for Q5_K_M at most
    # (5.7 + 17.2 = 22.9 GB; Q8_0: 8.5 + 17.2 = 25.7 GB > 24)
    llama31 = rows.loc["Llama 3.1 8B Instruct"]
    assert llama31["Best quant that fits at 131,072 tokens"] == "Q5_K_M"
    assert llama31["Best quant bits/weight"] == pytest.approx(5.7036)
    assert llama31["Q8_0 at 131,072 tokens"] == "partial offload"
    assert rows.loc["nc-model-7b", "Best quant that fits at 131,072 tokens"] == fit.KV_UNKNOWN


def test_h100_x8_server_rows_from_mlperf(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="h100-sxm", count="8", all="1")
    assert not at.exception
    rows = _frame(at).set_index("Model")
    chat = rows.loc["Llama 2 Chat 70B"]
    # Offline first (the scenario order), the best system: 31,000 tok/s of SYS-B
    assert chat["Server tok/s (MLPerf)"] == 31000.0
    assert (chat["MLPerf scenario"], chat["MLPerf system"]) == ("Offline", "SYS-B")
    assert chat["Server: applies as"] == "measured"
    assert chat["Server: source ran"] == "llama2-70b-99" and chat["Server source"] == MLPERF
    base = rows.loc["Llama-2-70b-hf"]
    assert base["Server tok/s (MLPerf)"] == 31000.0
    assert base["Server: applies as"] == "measured on Llama 2 Chat 70B"
    assert pd.isna(rows.loc["Meta-Llama-3-70B", "Server tok/s (MLPerf)"])  # other release
    # the 4x row never applies to 8x; the 8x row applies to the base of the same release
    assert rows.loc["Llama 3.1 8B Instruct", "Server tok/s (MLPerf)"] == 60000.0
    assert rows.loc["llama-3.1-8b", "Server tok/s (MLPerf)"] == 60000.0
    assert "Single-stream decode tok/s" not in rows  # kinds never share a column


def test_hardware_fit_show_all_and_count(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", gpu="h100-sxm", count="2", all="1")
    assert not at.exception
    table = _frame(at).set_index("Model")
    assert (
        table.loc["llama-3.1-405b", "Smallest rentable config"]
        == "4× A100 80GB ($6.00/h, thin price)"
    )
    assert table.loc["llama-3.1-405b", "Budget GB"] == 160
    # no measured row exists for 2x H100: nothing is interpolated from the 1x or 8x rows
    assert not [c for c in table.columns if "tok/s" in c]
    assert any("no measured throughput" in i.value for i in at.info)


def test_hardware_fit_apple_profile(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", kind="Apple profile", gpu="m2-ultra-192")
    assert not at.exception
    table = _frame(at).set_index("Model")
    assert (table["Budget GB"] == 144).all()
    assert "mixtral-8x7b" in table.index


def test_m4_max_without_measured_rows_says_so(fit_store: Path) -> None:
    at = run_page("llm/hardware_fit.py", kind="Apple profile", gpu="m4-max-128gb")
    assert not at.exception
    assert any("no measured throughput for 1× Apple M4 Max 128GB" in i.value for i in at.info)
    table = _frame(at)
    assert not [c for c in table.columns if "tok/s" in c]  # no kind measured: no speed column


def test_finetune_planner_renders(store: Path) -> None:
    at = run_page(
        "llm/finetune_planner.py", model="llama-3.1-8b", gpu="h100-sxm", count="2",
        method="full", recipe="rl", samples="10000",
    )
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
    # one row for the qwen3-32b checkpoint, whichever of its names the list shows
    assert sum(CHECKPOINT.get(m) == "qwen3-32b" for m in listed["Model"]) <= 1


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


@pytest.mark.parametrize("page", ["llm/finetune_planner.py"])
def test_pages_on_the_committed_catalog(page: str, store_paths: StorePaths) -> None:
    committed.catalog_file("gpus.csv")
    # store_paths: snapshots and runs in tmp_path, so this never writes the repo
    fresh_caches()
    at = run_page(page, all="1")
    assert not at.exception and not at.error
    table = _frame(at)
    assert len(table) > 50
    assert set(table["Verdict"].dropna()) <= {
        "fits comfortably", "fits (tight)", "partial offload", "won't run", "fits", "won't fit",
    }


SINGLE, SERVER = "Single-stream decode tok/s", "Server tok/s (MLPerf)"
REAL_HARDWARE = [
    # (page query, kind shown, column): RTX 4090 (llama.cpp), 8x H100 and 8x H200 (MLPerf), M4 Max
    ({"gpu": "rtx-4090"}, "single-stream", SINGLE),
    ({"gpu": "h100-sxm", "count": "8"}, "server", SERVER),
    ({"gpu": "h200", "count": "8"}, "server", SERVER),
    ({"kind": "Apple profile", "gpu": "m4-max-128gb"}, "single-stream", SINGLE),
]


def _measured_checkpoints(query: dict, kind: str) -> set[str]:
    """Checkpoints of the committed catalog's models that have a measured generation row of
    ``kind`` on exactly this GPU and count (read from the CSVs, not through the app)."""
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv")
    rows = pd.read_csv(paths.CATALOG_DIR / "throughput.csv")
    rows = rows[
        (rows["gpu_id"] == query["gpu"])
        & (rows["gpu_count"] == int(query.get("count", 1)))
        & (rows["phase"] == "generation")
        & (rows["kind"] == kind)
    ]
    own = dict(zip(models["model_id"], models["checkpoint_id"], strict=True))
    return {own[m] for m in rows["model_id"] if m in own}


def test_hardware_fit_on_the_committed_catalog(store_paths: StorePaths) -> None:
    """RTX 4090, 8x H100, 8x H200 and M4 Max on the real catalog: every checkpoint with a
    measured row of the hardware's kind shows a speed in that kind's column; one row per
    checkpoint; verdicts are the seed's."""
    committed.catalog_file("throughput.csv", "kind", "scenario", "measured_on")
    gpus = set(pd.read_csv(committed.catalog_file("gpus.csv"))["gpu_id"])
    assert {q["gpu"] for q, *_ in REAL_HARDWARE} <= gpus
    fresh_caches()  # store_paths: snapshots and runs in tmp_path, never the repo
    shown = {}
    for query, kind, column in REAL_HARDWARE:
        at = run_page("llm/hardware_fit.py", all="1", **query)
        assert not at.exception and not at.error
        table = _frame(at).set_index("Checkpoint id")
        assert table.index.is_unique and len(table) > 50
        assert set(table["Verdict"].dropna()) <= {
            "fits comfortably", "fits (tight)", "partial offload", "won't run",
        }
        expected = _measured_checkpoints(query, kind) & set(table.index)
        if expected:  # a kind without rows here has no column at all
            assert table.loc[sorted(expected), column].notna().all()
        else:
            assert column not in table
        speeds = [c for c in table.columns if "tok/s" in c]
        if all(table[c].isna().all() for c in speeds):
            assert any("no measured throughput" in i.value for i in at.info)
        shown[query["gpu"]] = table
    ssd = shown["rtx-4090"]
    # pinned: llama.cpp's LLaMA 3 8B Q4_K_M on one RTX 4090; the instruct checkpoint of the
    # same release shows it labelled
    assert ssd.loc["llama-3-8b", SINGLE] == 130.58
    assert ssd.loc["llama-3-8b", "Single-stream: applies as"] == "measured"
    assert ssd.loc["llama-3-8b-instruct", SINGLE] == 130.58
    assert ssd.loc["llama-3-8b-instruct", "Single-stream: applies as"] == (
        "measured on Meta-Llama-3-8B"
    )
    assert pd.isna(ssd.loc["llama-3.1-8b", SINGLE])  # same architecture, another release
    assert SERVER not in ssd  # no MLPerf row for one RTX 4090: the column is not shown
    # pinned: MLPerf Llama 2 70B on 8x H200, its scenario beside it
    chat = shown["h200"].loc["llama-2-70b-chat"]
    assert chat[SERVER] > 0 and chat["MLPerf scenario"] == "Offline"
    assert chat["Server: source ran"].startswith("llama2-70b")


CHECKPOINT = {
    **{m[0]: m[7] for m in TINY_MODELS},  # model_id (= display name) -> checkpoint_id
    **{name: m for m, name, *_ in EXTRA_MODELS},  # display name -> checkpoint_id (= model_id)
}


@pytest.mark.parametrize("page", ["llm/hardware_fit.py", "llm/finetune_planner.py"])
def test_no_page_shows_two_rows_for_one_checkpoint(fit_store: Path, page: str) -> None:
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
    (warning,) = at.warning  # names the chosen hardware and the config it is priced on
    text = warning.value.casefold()
    assert "1× geforce rtx 4090" in text and "priced on 4× a100 80gb" in text
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
    committed.catalog_file("finetune_memory.csv")
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


def test_filters_that_leave_no_checkpoint_say_so(fit_store: Path) -> None:
    """A size range that holds no checkpoint (a link can carry one) is one line, never a
    traceback; the same filters through the view give an empty table with every column."""
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090", count="1", size="0-0.001")
    assert not at.exception and not at.error
    assert any("No checkpoint with a known size matches these filters" in i.value
               for i in at.info)
    assert not at.dataframe


@pytest.mark.parametrize(("size", "says"), [
    ("0.5-100000", "reaches outside"), ("5000-6000", "lies outside"), ("a-b", "not a range")])
def test_a_size_range_outside_the_catalog_says_what_it_shows(
    fit_store: Path, size: str, says: str
) -> None:
    at = run_page("llm/hardware_fit.py", gpu="rtx-4090", count="1", size=size)
    assert not at.exception and not at.error
    notices = [i.value for i in at.info if f"size={size}" in i.value]
    assert len(notices) == 1 and says in notices[0], [i.value for i in at.info]
    assert at.dataframe  # the table is shown (clamped or full range)
