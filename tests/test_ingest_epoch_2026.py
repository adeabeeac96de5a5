"""Epoch AI 2026-04 export importer: hand-made fixtures, then the real files in ../shared."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from analytics.llm.ingest import epoch_2026 as e26
from analytics.llm.ingest import epoch_stitching, protocols
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "epoch_2026"
S = e26.SOURCE


def _scores(name: str, folder: Path = FIX) -> tuple[list, Drops]:
    drops = Drops()
    path = folder / name
    return e26.file_scores(path, e26.read_file(path), drops), drops


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (source, reason), n in drops.counts.items() if source == S}


@pytest.mark.parametrize(
    ("text", "name", "variant", "suffix"),
    [
        ("claude-opus-4-6_32K", "claude-opus-4-6", "32k", "_32K"),
        ("gpt-5.2-2025-12-11_xhigh", "gpt-5.2-2025-12-11", "xhigh", "_xhigh"),
        ("gpt-5.1-2025-11-13_none", "gpt-5.1-2025-11-13", "none", "_none"),
        ("o3-2025-04-16_unknown", "o3-2025-04-16", None, "_unknown"),
        ("gpt-5.5-pro-pre-release_high", "gpt-5.5-pro-pre-release", "high", "_high"),
        ("DeepSeek-V3.2-Exp_thinking", "DeepSeek-V3.2-Exp", "thinking", "_thinking"),
        (
            "gemini-2.5-flash-preview-04-17 (24K thinking)",
            "gemini-2.5-flash-preview-04-17",
            "24k",
            "(24K thinking)",
        ),
        ("phi-1_5", "phi-1_5", None, None),
        ("Qwen-1_8B", "Qwen-1_8B", None, None),
        ("open_llama_7b", "open_llama_7b", None, None),
        ("VideoChat-Flash-Qwen2-7B_res448", "VideoChat-Flash-Qwen2-7B_res448", None, None),
        ("Llama-2-70b-hf ", "Llama-2-70b-hf", None, None),
    ],
)
def test_split_model_version(text, name, variant, suffix):
    version = e26.split_model_version(text)
    assert (version.name, version.variant, version.suffix) == (name, variant, suffix)
    assert version.pre_release == ("pre-release" in name)


def test_runs_use_mean_score_latest_run_and_keep_pre_release_apart():
    rows, drops = _scores("gpqa_diamond.csv")
    by = {(r.model_name, r.variant): r for r in rows}
    assert set(by) == {
        ("gpt-5.5-pre-release", "xhigh"),
        ("grok-3-beta", None),
        ("claude-opus-4-6", "32k"),
    }
    pre = by[("gpt-5.5-pre-release", "xhigh")]
    assert pre.score == pytest.approx(94.0) and pre.benchmark_id == "gpqa"
    assert (pre.source_kind, pre.source_name) == ("independent", "Epoch AI runs")
    assert pre.source_url == "https://logs.epoch.ai/inspect-viewer/a/viewer.html"
    assert pre.date == "2026-04-24" and pre.origin == f"{S}:gpqa_diamond.csv"
    grok = by[("grok-3-beta", None)]
    assert grok.score == pytest.approx(67.58)  # mean_score, not the best scorer's 75.76
    assert grok.source_url == epoch_stitching.EPOCH_RUNS_URL  # no log viewer
    opus = by[("claude-opus-4-6", "32k")]
    assert opus.score == pytest.approx(75.0) and opus.date == "2026-02-18"
    assert _reasons(drops) == {
        e26.OLDER_RUN: 1,
        protocols.PARALLEL: 1,
        "run without a mean_score": 1,
    }


def test_external_units_provenance_and_drops():
    rows, drops = _scores("mmlu_external.csv")
    by = {r.model_name: r for r in rows}
    assert set(by) == {
        "amazon.nova-pro-v1:0",
        "Llama-2-70b-hf",
        "claude-3-opus-20240229",
        "gpt-4-0613",
    }
    nova = by["amazon.nova-pro-v1:0"]
    assert nova.score == pytest.approx(82.0) and nova.benchmark_id == "mmlu"
    assert nova.source_kind == "independent"
    assert nova.source_name == "Stanford CRFM Leaderboard (via Epoch AI)"
    llama = by["Llama-2-70b-hf"]
    assert (llama.source_kind, llama.score) == ("self-reported", pytest.approx(68.9))
    assert llama.source_name == "Llama 2: Open Foundation and Fine-Tuned Chat Models (via Epoch AI)"
    # a Source name without a link takes the link the file gives that name
    opus = by["claude-3-opus-20240229"]
    assert opus.variant is None and opus.source_url == nova.source_url
    # a URL in the Source column is the link; the name is the file's name for that host
    gpt4 = by["gpt-4-0613"]
    assert gpt4.source_url == nova.source_url and gpt4.source_name == nova.source_name
    assert _reasons(drops) == {
        e26.NO_VERSION: 1,
        e26.NO_PROVENANCE: 1,
        protocols.FINE_TUNED: 1,
    }


def test_terminal_bench_2_keeps_terminus_2_only():
    rows, drops = _scores("terminalbench_external.csv")
    assert [(r.model_name, r.variant, r.benchmark_id) for r in rows] == [
        ("gpt-5.1-2025-11-13", "medium", "terminal-bench-2")
    ]
    assert rows[0].score == pytest.approx(47.6) and rows[0].date == "2025-11-16"
    assert rows[0].source_url == "https://www.tbench.ai/leaderboard/terminal-bench/2.0"
    assert _reasons(drops) == {protocols.SCAFFOLD: 2, e26.NO_PROVENANCE: 1}


def test_leaderboard_files_are_independent_with_the_leaderboard_url():
    rows, drops = _scores("hle_external.csv")
    assert {(r.model_name, r.variant) for r in rows} == {
        ("gemini-3.1-pro-preview", None),
        ("claude-opus-4-5-20251101", None),  # _unknown -> no variant
    }
    assert all(r.source_kind == "independent" for r in rows)
    assert {r.source_url for r in rows} == {"https://scale.com/leaderboard/humanitys_last_exam"}
    assert {r.source_name for r in rows} == {"Scale AI HLE Leaderboard (via Epoch AI)"}
    assert max(r.score for r in rows) == pytest.approx(46.44)
    assert not drops.counts


def test_posttrainbench_keeps_the_native_cli_row():
    rows, drops = _scores("posttrainbench_external.csv")
    scores = {r.model_name: r.score for r in rows}
    assert scores == {
        "claude-opus-4-5-20251101": pytest.approx(17.14),  # Claude Code, not OpenCode
        "gemini-3.1-pro-preview": pytest.approx(21.59),  # its only row
    }
    assert _reasons(drops) == {protocols.SCAFFOLD: 1}


def test_osworld_reuses_the_50_step_rule():
    rows, drops = _scores("os_world_external.csv")
    assert [(r.model_name, r.score) for r in rows] == [
        ("claude-sonnet-4-5-20250929", pytest.approx(58.1))  # percent, as published
    ]
    assert _reasons(drops) == {protocols.SCAFFOLD: 1, e26.NO_VERSION: 1}


def test_metr_versions_are_separate_benchmarks():
    rows, drops = _scores("metr_time_horizons_external.csv")
    by = {r.model_name: r for r in rows}
    assert by["gpt-5-2025-08-07"].benchmark_id == "metr-time-horizon"
    assert by["gpt-5-2025-08-07"].score == pytest.approx(137.318539)  # minutes
    v11 = by["gpt-5.4-2026-03-05"]
    assert (v11.benchmark_id, v11.variant) == ("metr-time-horizon-1.1", "xhigh")
    assert v11.source_name == "METR - Measuring AI Ability to Complete Long Tasks (via Epoch AI)"
    assert _reasons(drops) == {e26.NO_PROVENANCE: 1}


def test_video_mme_augmented_systems_are_another_scaffold():
    rows, drops = _scores("video_mme_external.csv")
    assert [(r.model_name, r.source_name) for r in rows] == [
        ("gemini-1.5-pro-001", "Video-MME Leaderboard (via Epoch AI)")
    ]
    assert _reasons(drops) == {protocols.SCAFFOLD: 1}


def test_composite_index_dropped_but_its_metadata_kept():
    path = FIX / "epoch_capabilities_index.csv"
    frame = e26.read_file(path)
    drops = Drops()
    assert e26.file_scores(path, frame, drops) == []
    assert _reasons(drops) == {protocols.COMPOSITE: 2}
    models = {(m.name, m.variant): m for m in e26.model_observations([frame])}
    pre = models[("gpt-5.5-pre-release", "xhigh")]
    assert (pre.display_name, pre.open_weights, pre.release_date, pre.organisation) == (
        "GPT-5.5 (xhigh)",
        False,
        "2026-04-23",
        "OpenAI",
    )
    assert models[("gemma-4-31b-it", None)].open_weights is True


def test_model_observations_merge_files_per_name_and_variant():
    frames = [e26.read_file(FIX / n) for n in ("gpqa_diamond.csv", "epoch_capabilities_index.csv")]
    models = {(m.name, m.variant): m for m in e26.model_observations(frames)}
    assert len(models) == 6  # 5 in gpqa_diamond.csv, gemma only in the ECI file
    assert models[("gpt-5.5-pre-release", "xhigh")].display_name == "GPT-5.5 (xhigh)"
    assert models[("grok-3-beta", None)].release_date == "2025-02-17"
    assert models[("grok-3-beta", None)].display_name is None
    assert all(m.source == S for m in models.values())


def test_fraction_column_out_of_range_is_an_error():
    with pytest.raises(IngestError) as caught:
        _scores("mmlu_external.csv", FIX / "bad")
    assert caught.value.where.endswith("mmlu_external.csv: record 1 (gpt-4-0613)")
    assert "is not a fraction 0-1" in caught.value.what
    assert caught.value.fix == "update FILE_SPECS in epoch_2026_specs.py"


def test_missing_column_and_folder_and_file_are_errors(tmp_path):
    with pytest.raises(IngestError) as caught:
        e26.read_file(FIX / "bad" / "gpqa_diamond.csv")
    assert caught.value.where == str(FIX / "bad" / "gpqa_diamond.csv")
    assert caught.value.what.startswith("missing column(s) ['mean_score']")
    with pytest.raises(IngestError) as caught:
        e26.load(tmp_path / "absent", Drops())
    assert (caught.value.where, caught.value.what) == (str(tmp_path / "absent"), "folder missing")
    shutil.copy(FIX / "hle_external.csv", tmp_path)
    with pytest.raises(IngestError) as caught:
        e26.load(tmp_path, Drops())
    assert caught.value.where == str(tmp_path) and "gpqa_diamond.csv" in caught.value.what
    assert "restore the export" in caught.value.fix


def test_every_benchmark_id_is_curated():
    curated = all_benchmarks()
    ids = {s.benchmark_id for s in e26.FILE_SPECS.values()} | set(e26.RUN_FILES.values())
    ids |= {bid for s in e26.FILE_SPECS.values() if s.tracks for bid in s.tracks[1].values()}
    assert ids <= set(curated)


# ---------------------------------------------------------------- real files


@pytest.fixture()
def loaded(shared_data):
    drops = Drops()
    models, scores = e26.load(shared_data / "epoch-benchmark-data-2026", drops)
    return models, scores, drops


def test_real_export_counts(loaded):
    models, scores, drops = loaded
    assert len(models) == 598
    assert len(scores) == 3070
    per = Counter(s.benchmark_id for s in scores)
    assert per["gpqa"] == 160 and per["frontiermath"] == 91 and per["arc-agi-2"] == 126
    assert per["terminal-bench-2"] == 21 and per["hle"] == 47 and per["webdev-arena"] == 33
    assert Counter(s.source_kind for s in scores) == {
        "independent": 1770,
        "self-reported": 1267,
        "arena": 33,
    }
    assert _reasons(drops) == {
        protocols.COMPOSITE: 672,
        e26.NO_VERSION: 411,
        protocols.SCAFFOLD: 152,
        e26.NO_PROVENANCE: 111,
        protocols.FINE_TUNED: 9,
        "external row without a '32k token score' value": 7,
        protocols.PARALLEL: 6,
        e26.OLDER_RUN: 2,
        protocols.AGGREGATED: 1,
    }


def test_real_export_golden_values(loaded):
    _, scores, _ = loaded
    by = {(s.model_name, s.variant, s.benchmark_id, s.source_name): s for s in scores}
    # gpqa_diamond.csv row 3: claude-opus-4-7_xhigh mean_score 0.9015151515151515
    gpqa = by[("claude-opus-4-7", "xhigh", "gpqa", "Epoch AI runs")]
    assert gpqa.score == pytest.approx(90.1515, abs=1e-3) and gpqa.date == "2026-04-17"
    # frontiermath.csv: o3-2025-04-16_high 0.18685121107266436 (the 2025-12 private run: 0.187)
    fm = by[("o3-2025-04-16", "high", "frontiermath", "Epoch AI runs")]
    assert fm.score == pytest.approx(18.685, abs=1e-3)
    # pre-release GPT-5.5 stays apart from GPT-5.5
    assert ("gpt-5.5-pre-release", "xhigh", "gpqa", "Epoch AI runs") in by
    # swe_bench_verified.csv: gpt-5.1-2025-11-13_high run twice; 2026-02-18 (0.6798) is kept
    swe = by[("gpt-5.1-2025-11-13", "high", "swe-bench-verified", "Epoch AI runs")]
    assert swe.score == pytest.approx(67.975, abs=1e-3)
    # arc_agi_external.csv row 1: gemini-3.1-pro-preview Score 0.98 (fraction -> %)
    lb = "ARC Prize Leaderboard (via Epoch AI)"
    assert by[("gemini-3.1-pro-preview", None, "arc-agi", lb)].score == pytest.approx(98.0)
    hle = by[("gemini-3.1-pro-preview", None, "hle", "Scale AI HLE Leaderboard (via Epoch AI)")]
    assert hle.score == pytest.approx(46.44) and hle.source_kind == "independent"
    tb = by[
        (
            "gpt-5.1-2025-11-13",
            "medium",
            "terminal-bench-2",
            "Terminal-Bench v2 Leaderboard (via Epoch AI)",
        )
    ]
    assert tb.score == pytest.approx(47.6)
    web = [s for s in scores if s.benchmark_id == "webdev-arena"]
    assert all(s.source_kind == "arena" for s in web) and max(s.score for s in web) > 1500


def test_real_export_source_names_match_the_2025_12_importer(shared_data):
    """A row in both exports keeps its source name (the build lets the newer export win)."""
    old_drops, new_drops = Drops(), Drops()
    _, old = epoch_stitching.load(shared_data / "epoch-benchmark-stitching", old_drops)
    _, new = e26.load(shared_data / "epoch-benchmark-data-2026", new_drops)
    old_keys = {(s.model_name, s.benchmark_id, s.source_kind, s.source_name) for s in old}
    new_keys = set()
    for s in new:
        raw = s.model_name if s.variant is None else f"{s.model_name}_{s.variant}"
        new_keys.add((raw.lower(), s.benchmark_id, s.source_kind, s.source_name))
    old_lower = {(m.lower(), *rest) for m, *rest in old_keys}
    assert len(old_lower & new_keys) >= 1000
    assert ("o3-2025-04-16_high", "gpqa", "independent", "Epoch AI runs") in old_lower & new_keys
