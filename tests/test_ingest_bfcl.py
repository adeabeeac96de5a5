"""BFCL v4 importer: mode parsing, the FC-only protocol, the composite and failed-run drops and
the IngestError lines on tiny fixtures; exact counts and hand-checked values on the real files.
"""

from __future__ import annotations

import csv
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from analytics.llm.ingest import bfcl, protocols
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "bfcl"
BENCHES = ("bfcl-v4-non-live", "bfcl-v4-live", "bfcl-v4-multi-turn", "bfcl-v4-agentic")


def _load(root: Path = FIX) -> tuple[list, list, Drops]:
    drops = Drops()
    models, scores = bfcl.load(root, drops)
    return models, scores, drops


def _scores(scores: list) -> dict[tuple[str, str], float]:
    return {(s.model_name, s.benchmark_id): s.score for s in scores}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "bfcl"
    shutil.copytree(FIX, root)
    return root


def _rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("GPT-4o-2024-11-20 (FC)", ("GPT-4o-2024-11-20", "fc", None)),
        ("Gemini-3-Pro-Preview (Prompt)", ("Gemini-3-Pro-Preview", "prompt", None)),
        ("GLM-4.6 (FC thinking)", ("GLM-4.6", "fc", "thinking")),
        ("DeepSeek-V3.2-Exp (Prompt + Thinking)", ("DeepSeek-V3.2-Exp", "prompt", "thinking")),
        ("BitAgent-Bounty-8B", ("BitAgent-Bounty-8B", None, None)),
        ("Qwen/QwQ-32B (Novita)", ("Qwen/QwQ-32B (Novita)", None, None)),
        ("Amazon-Nova-Pro-v1:0 (FC)", ("Amazon-Nova-Pro-v1:0", "fc", None)),
    ],
)
def test_split_mode(raw: str, expected: tuple) -> None:
    assert bfcl.split_mode(raw) == expected


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("MiniCPM3-4B-FC", "fc", None), "MiniCPM3-4B"),
        (("xLAM-2-8b-fc-r", "fc", None), "xLAM-2-8b-fc-r"),
        (("GLM-4.6", "fc", "thinking"), "GLM-4.6 (thinking)"),
        (("Grok-4-1-fast-reasoning", "fc", None), "Grok-4-1-fast-reasoning"),
    ],
)
def test_model_name_drops_only_the_mode(args: tuple, name: str) -> None:
    assert bfcl.model_name(*args) == name


@pytest.mark.parametrize(
    ("cell", "value"),
    [("77.47%", 77.47), ("0.00%", 0.0), ("81.5", 81.5), ("N/A", None), ("", None)],
)
def test_parse_percent(cell: str, value: float | None) -> None:
    assert bfcl.parse_percent(cell, "x.csv:2") == value


@pytest.mark.parametrize("cell", ["abc", "-3%", "12,5%", "77.47%%"])
def test_parse_percent_rejects_other_text(cell: str) -> None:
    with pytest.raises(IngestError, match=r"^x\.csv:2: .* is not a percentage"):
        bfcl.parse_percent(cell, "x.csv:2")


# --- the fixture ------------------------------------------------------------------------------


def test_fixture_scores_are_fc_category_accuracies_in_percent() -> None:
    models, scores, _ = _load()
    got = _scores(scores)
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-non-live")] == 88.58
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-live")] == 79.79
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-multi-turn")] == 68.38
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-agentic")] == 79.13
    assert got[("Mistral-Medium-2505", "bfcl-v4-non-live")] == 67.44  # the FC row, not Prompt
    assert got[("MiniCPM3-4B", "bfcl-v4-agentic")] == 6.02
    assert sorted({s.model_name for s in scores}) == [
        "BitAgent-Bounty-8B",
        "Claude-Opus-4-5-20251101",
        "GLM-4.6 (thinking)",
        "Granite-4.0-350m",
        "Hammer2.1-0.5b",
        "MiniCPM3-4B",
        "Mistral-Medium-2505",
    ]
    assert len(scores) == 26
    assert [m.name for m in models] == [
        "Claude-Opus-4-5-20251101",
        "GLM-4.6 (thinking)",
        "BitAgent-Bounty-8B",
        "Mistral-Medium-2505",
        "MiniCPM3-4B",
        "Granite-4.0-350m",
        "Hammer2.1-0.5b",
    ]
    for score in scores:
        assert score.source_kind == "independent"
        assert score.source_name == "Berkeley Function-Calling Leaderboard"
        assert score.source_url == "https://gorilla.cs.berkeley.edu/leaderboard.html"
        assert score.date == "2025-12-16"
        assert score.origin == "bfcl"
        assert score.benchmark_id in BENCHES


def test_fixture_drop_ledger() -> None:
    _, _, drops = _load()
    assert drops.counts == Counter(
        {
            ("bfcl", protocols.COMPOSITE): 7,  # the overall of every imported entry
            ("bfcl", protocols.SCAFFOLD): 4,  # Prompt, Prompt + Thinking, unlabelled, mislabelled
            ("bfcl", bfcl.FORMAT_SENSITIVITY): 4,
            ("bfcl", bfcl.FAILED_RUN): 1,
            ("bfcl", bfcl.NOT_PUBLISHED): 1,
            ("bfcl", "model missing from data_non_live.csv"): 1,
        }
    )


def test_prompt_mode_is_read_from_the_label_or_from_format_sensitivity() -> None:
    _, scores, _ = _load()
    names = {s.model_name for s in scores}
    assert "ToolACE-2-8B" not in names  # labelled (FC) but has format-sensitivity values
    assert "DeepSeek-V3.2-Exp (thinking)" not in names  # (Prompt + Thinking)
    assert "BitAgent-Bounty-8B" in names  # unlabelled, no format-sensitivity values: FC
    opus = [s for s in scores if s.model_name == "Claude-Opus-4-5-20251101"]
    assert {s.score for s in opus} == {88.58, 79.79, 68.38, 79.13}  # never the Prompt row


def test_thinking_modifier_becomes_the_variant() -> None:
    models, scores, _ = _load()
    glm = next(m for m in models if m.name.startswith("GLM"))
    assert glm.variant == "thinking"
    assert {s.variant for s in scores if s.model_name == glm.name} == {"thinking"}
    assert {s.variant for s in scores if s.model_name != glm.name} == {None}


def test_failed_run_and_unpublished_cells_are_not_scores() -> None:
    _, scores, _ = _load()
    got = _scores(scores)
    assert not any(name.startswith("Llama-3.1-Nemotron") for name, _ in got)
    assert ("Granite-4.0-350m", "bfcl-v4-live") not in got  # N/A
    assert ("Hammer2.1-0.5b", "bfcl-v4-non-live") not in got  # absent from the category file
    assert got[("Hammer2.1-0.5b", "bfcl-v4-live")] == 54.63


def test_model_metadata() -> None:
    models, _, _ = _load()
    by_name = {m.name: m for m in models}
    opus = by_name["Claude-Opus-4-5-20251101"]
    assert (opus.organisation, opus.licence_raw, opus.open_weights, opus.hf_id) == (
        "Anthropic",
        "Proprietary",
        False,
        None,
    )
    glm = by_name["GLM-4.6 (thinking)"]
    assert (glm.organisation, glm.licence_raw, glm.open_weights, glm.hf_id) == (
        "Zhipu AI",
        "MIT",
        True,
        "zai-org/GLM-4.6",
    )
    assert by_name["MiniCPM3-4B"].hf_id == "openbmb/MiniCPM3-4B"
    assert all(m.source == "bfcl" and m.display_name == m.name for m in models)
    assert all(m.release_date is None for m in models)


def test_same_name_after_removing_the_mode_keeps_the_first(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    for file, row in [
        ("data_overall.csv", "13,9.00%,Hammer2.1-0.5b-FC (FC),,1,1%,1%,1%,1%,1%,1%,N/A,X,MIT\n"),
        ("data_non_live.csv", "12,Hammer2.1-0.5b-FC (FC),1.00%,1.00%,1.00%\n"),
        ("data_live.csv", "13,Hammer2.1-0.5b-FC (FC),1.00%,1.00%\n"),
        ("data_multi_turn.csv", "13,Hammer2.1-0.5b-FC (FC),1.00%,1.00%\n"),
        ("data_agentic.csv", "13,Hammer2.1-0.5b-FC (FC),1.00%,1.00%,1.00%\n"),
        ("data_format_sensitivity.csv", "13,Hammer2.1-0.5b-FC (FC),N/A,N/A\n"),
    ]:
        with open(root / file, "a", encoding="utf-8") as fh:
            fh.write(row)
    _, scores, drops = _load(root)
    assert _scores(scores)[("Hammer2.1-0.5b", "bfcl-v4-live")] == 54.63
    key = ("bfcl", "same model listed twice once the mode is removed (first kept)")
    assert drops.counts[key] == 1


# --- bad input --------------------------------------------------------------------------------


def test_missing_file_names_it(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "data_agentic.csv").unlink()
    with pytest.raises(IngestError, match=r"data_agentic\.csv: file missing"):
        _load(root)


def test_missing_column_names_file_and_column(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _rewrite(root / "data_live.csv", "Live Overall Acc", "Live Acc")
    with pytest.raises(IngestError, match=r"data_live\.csv: missing column\(s\) \['Live Overall"):
        _load(root)


def test_bad_cell_names_file_line_and_column(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _rewrite(root / "data_multi_turn.csv", "68.38%", "sixty%")
    with pytest.raises(
        IngestError, match=r"data_multi_turn\.csv:2 \(Multi Turn Overall Acc\): 'sixty%' is not"
    ):
        _load(root)


def test_bad_format_sensitivity_cell_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _rewrite(root / "data_format_sensitivity.csv", "81.5", "high")
    with pytest.raises(IngestError, match=r"data_format_sensitivity\.csv:2: 'high'"):
        _load(root)


def test_model_listed_twice_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _rewrite(root / "data_live.csv", "GLM-4.6 (FC thinking)", "Claude-Opus-4-5-20251101 (FC)")
    with pytest.raises(
        IngestError, match=r"data_live\.csv:3: model .* listed twice \(also line 2\)"
    ):
        _load(root)


def test_row_without_model_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _rewrite(root / "data_overall.csv", "GLM-4.6 (FC thinking)", "")
    with pytest.raises(IngestError, match=r"data_overall\.csv:3: row without a Model name"):
        _load(root)


def test_benchmark_rows() -> None:
    table = all_benchmarks()
    for bench in BENCHES:
        assert table[bench].unit == "%"
        assert table[bench].category == "agentic"
        assert (table[bench].lower_bound, table[bench].upper_bound) == (0, 100)
    assert set(bfcl.CATEGORIES) == set(BENCHES)


# --- the real files ---------------------------------------------------------------------------

PROMPT_ONLY = {
    "Bielik-11B-v2.3-Instruct",
    "CoALM-70B",
    "CoALM-8B",
    "Gemma-3-12b-it",
    "Gemma-3-1b-it",
    "Gemma-3-27b-it",
    "Gemma-3-4b-it",
    "Llama-3.1-8B-Instruct",
    "Ministral-8B-Instruct-2410",
    "Phi-4",
    "RZN-T",
    "ToolACE-2-8B",
}


@pytest.fixture(scope="module")
def real(shared_data: Path) -> tuple[list, list, Drops, float]:
    start = time.process_time()
    drops = Drops()
    models, scores = bfcl.load(shared_data / "bfcl", drops)
    return models, scores, drops, time.process_time() - start


def test_real_counts(real: tuple) -> None:
    models, scores, drops, seconds = real
    assert seconds < 5
    assert len(models) == 68
    assert Counter(s.benchmark_id for s in scores) == {bench: 68 for bench in BENCHES}
    assert drops.counts == Counter(
        {
            ("bfcl", protocols.COMPOSITE): 68,
            ("bfcl", protocols.SCAFFOLD): 40,
            ("bfcl", bfcl.FORMAT_SENSITIVITY): 40,
            ("bfcl", bfcl.FAILED_RUN): 1,
        }
    )
    assert {s.source_kind for s in scores} == {"independent"}


def test_real_golden_values(real: tuple) -> None:
    models, scores, _, _ = real
    got = _scores(scores)
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-non-live")] == 88.58
    assert got[("Claude-Opus-4-5-20251101", "bfcl-v4-agentic")] == 79.13
    assert got[("xLAM-2-70b-fc-r", "bfcl-v4-multi-turn")] == 77.38
    assert got[("Gemini-3-Pro-Preview", "bfcl-v4-live")] == 81.72  # FC; Prompt row is 83.12
    assert got[("GLM-4.6 (thinking)", "bfcl-v4-multi-turn")] == 68.0
    assert got[("BitAgent-Bounty-8B", "bfcl-v4-live")] == 93.12
    assert got[("MiniCPM3-4B", "bfcl-v4-non-live")] == 81.75
    assert got[("Mistral-Medium-2505", "bfcl-v4-non-live")] == 67.44
    names = {m.name for m in models}
    assert not names & PROMPT_ONLY
    assert "Llama-3.1-Nemotron-Ultra-253B-v1" not in names
    kimi = next(m for m in models if m.name == "Moonshotai-Kimi-K2-Instruct")
    assert (kimi.organisation, kimi.licence_raw, kimi.hf_id) == (
        "MoonshotAI",
        "modified-mit",
        "moonshotai/Kimi-K2-Instruct",
    )


def test_real_prompt_only_models_are_the_ones_lost(shared_data: Path) -> None:
    """The cost of the FC-only rule: models BFCL lists in Prompt mode only get no score."""
    with open(shared_data / "bfcl" / "data_overall.csv", encoding="utf-8-sig") as fh:
        names = [row["Model"] for row in csv.DictReader(fh)]
    assert len(names) == 109
    kept = {m.name.split(" (")[0].lower() for m in bfcl.load(shared_data / "bfcl", Drops())[0]}
    listed = {bfcl.model_name(bfcl.split_mode(n)[0], "fc", None) for n in names}
    lost = {name for name in listed if name.lower() not in kept}
    assert lost == PROMPT_ONLY | {"Llama-3.1-Nemotron-Ultra-253B-v1"}


def test_real_overall_is_the_weighted_composite_of_the_parts(shared_data: Path) -> None:
    """Why the overall is dropped: 10 % non-live + 10 % live + 30 % multi-turn + 40 % agentic +
    10 % irrelevance detection reproduces every row's Overall Acc."""
    pct = lambda cell: float(cell.rstrip("%"))  # noqa: E731
    with open(shared_data / "bfcl" / "data_overall.csv", encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        agentic = (pct(row["Web Search Acc"]) + pct(row["Memory Acc"])) / 2
        composite = (
            0.1 * pct(row["Non-Live AST Acc"])
            + 0.1 * pct(row["Live Acc"])
            + 0.3 * pct(row["Multi Turn Acc"])
            + 0.4 * agentic
            + 0.1 * pct(row["Irrelevance Detection"])
        )
        assert composite == pytest.approx(pct(row["Overall Acc"]), abs=0.011), row["Model"]
