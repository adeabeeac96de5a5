"""LiveBench importer: category averages per release on tiny fixtures (the site's mean of present
tasks, repeats of a newer release folded and counted, the malformed row skipped, never aligned),
model metadata from model_links.json, the IngestError lines, and the real shared files."""

from __future__ import annotations

import csv
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from analytics.core import schema
from analytics.llm.ingest import livebench
from analytics.llm.ingest.benchmarks import SOURCE_BENCHMARKS_DIR
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "livebench"
LIVEBENCH_CSV = SOURCE_BENCHMARKS_DIR / "livebench.csv"


def _load(root: Path = FIX):
    drops = Drops()
    models, scores = livebench.load(root, drops)
    return models, scores, drops


def _by_key(scores):
    return {(s.model_name, s.benchmark_id): (round(s.score, 6), s.date) for s in scores}


@pytest.fixture()
def fix_copy(tmp_path: Path) -> Path:
    dst = tmp_path / "livebench"
    shutil.copytree(FIX, dst)
    return dst


def test_fixture_scores_are_category_means_per_release():
    _, scores, _ = _load()
    assert _by_key(scores) == {
        # current release (as of 2026-07-01): blank cells ignored, like the site
        ("gpt-5-high", "livebench-reasoning"): (50.0, "2026-07-01"),
        ("gpt-5-high", "livebench-coding"): (70.0, "2026-07-01"),
        ("gpt-5-high", "livebench-if"): (30.0, "2026-07-01"),
        ("claude-opus-4-7-high-effort", "livebench-reasoning"): (20.0, "2026-07-01"),
        ("claude-opus-4-7-high-effort", "livebench-coding"): (80.0, "2026-07-01"),
        ("claude-opus-4-7-high-effort", "livebench-if"): (50.0, "2026-07-01"),
        ("qwen3-32b-thinking", "livebench-coding"): (55.0, "2026-07-01"),
        ("qwen3-32b-thinking", "livebench-if"): (40.0, "2026-07-01"),
        ("mystery-model", "livebench-reasoning"): (10.0, "2026-07-01"),
        ("mystery-model", "livebench-coding"): (10.0, "2026-07-01"),
        ("mystery-model", "livebench-if"): (10.0, "2026-07-01"),
        # 2025-12-23: Reasoning repeats the current runs, so gpt-5-low joins the current id;
        # Coding has the same task but other numbers (own id); IF has other tasks (own id)
        ("gpt-5-low", "livebench-reasoning"): (35.0, "2026-01-02"),
        ("gpt-5-high", "livebench-coding-2025-12-23"): (70.0, "2026-01-02"),
        ("claude-opus-4-7-high-effort", "livebench-coding-2025-12-23"): (75.0, "2026-01-02"),
        ("gpt-5-low", "livebench-coding-2025-12-23"): (50.0, "2026-01-02"),
        ("gpt-5-high", "livebench-if-2025-12-23"): (20.0, "2026-01-02"),
        ("claude-opus-4-7-high-effort", "livebench-if-2025-12-23"): (35.0, "2026-01-02"),
        ("gpt-5-low", "livebench-if-2025-12-23"): (15.0, "2026-01-02"),
        # 2025-11-25: Reasoning has one task (own id); Coding and IF repeat 2025-12-23
        ("gpt-5-low", "livebench-reasoning-2025-11-25"): (40.0, "2025-12-24"),
        ("deepseek-v3.2-speciale", "livebench-reasoning-2025-11-25"): (70.0, "2025-12-24"),
        ("deepseek-v3.2-speciale", "livebench-coding-2025-12-23"): (60.0, "2025-12-24"),
        ("deepseek-v3.2-speciale", "livebench-if-2025-12-23"): (25.0, "2025-12-24"),
    }
    assert {(s.source_kind, s.source_name, s.source_url, s.origin) for s in scores} == {
        ("independent", "LiveBench", "https://livebench.ai/", "livebench")
    }


def test_fixture_drops_every_reason_counted():
    _, _, drops = _load()
    assert dict(drops.counts) == {
        ("livebench", livebench.MALFORMED): 1,
        ("livebench", livebench.DUPLICATE): 1,
        ("livebench", livebench.NO_TASKS): 1,
        ("livebench", livebench.REPEAT): 4,
    }


def test_malformed_row_is_never_aligned_by_position():
    models, scores, _ = _load()
    assert not [s for s in scores if s.model_name == "nemotron-3-super-120b-a12b"]
    nemotron = next(m for m in models if m.name == "nemotron-3-super-120b-a12b")
    assert nemotron.hf_id == "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B"
    assert nemotron.open_weights is True


def test_fixture_models_and_link_metadata():
    models, scores, _ = _load()
    by_name = {m.name: m for m in models}
    assert list(by_name) == [
        "gpt-5-high",
        "claude-opus-4-7-high-effort",
        "nemotron-3-super-120b-a12b",
        "qwen3-32b-thinking",
        "mystery-model",
        "gpt-5-low",
        "deepseek-v3.2-speciale",
    ]
    gpt = by_name["gpt-5-high"]
    assert (gpt.display_name, gpt.organisation, gpt.variant) == ("GPT-5 High", "OpenAI", "high")
    assert (gpt.release_date, gpt.open_weights) == ("2025-08-07", None)
    claude = by_name["claude-opus-4-7-high-effort"]
    assert claude.display_name == "Claude 4.7 Opus Thinking High Effort"  # footnote '*' removed
    assert claude.variant == "high"  # a base whose own name carries the varying part
    qwen = by_name["qwen3-32b-thinking"]
    assert (qwen.release_date, qwen.hf_id, qwen.variant) == (None, None, None)  # '2024-08'
    speciale = by_name["deepseek-v3.2-speciale"]
    assert (speciale.open_weights, speciale.release_date) == (False, None)  # version '001'
    mystery = by_name["mystery-model"]
    assert (mystery.display_name, mystery.organisation) == (None, None)
    assert livebench.unlinked_names(FIX) == ["mystery-model"]
    assert {s.variant for s in scores if s.model_name == "gpt-5-low"} == {"low"}


def test_link_entries_normalise_organisation_variant_and_dates():
    links = livebench.read_links(FIX / "model_links.json")
    assert links["claude-opus-4-7-xhigh-effort"].variant == "xhigh"
    assert links["gpt-5"].variant is None
    assert links["devstral-2512"].organisation == "Mistral AI"
    assert links["devstral-2512"].release_date is None  # 2025-02-30 is no date
    assert links["sonoma-sky-alpha"].organisation is None  # "Stealth": lab unknown


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_unknown_short_row_raises(fix_copy):
    _replace(fix_copy / "table_2025_12_23.csv", "gpt-5-low,50.0,10.0,30.0,20.0,40.0", "gpt-5-low,5")
    with pytest.raises(IngestError, match=r"table_2025_12_23\.csv:4: 'gpt-5-low' has 2 fields"):
        _load(fix_copy)


def test_non_numeric_cell_raises(fix_copy):
    _replace(fix_copy / "table_2026_01_08.csv", "gpt-5-high,70.0", "gpt-5-high,seventy")
    with pytest.raises(IngestError, match=r"table_2026_01_08\.csv:2: .*'seventy' is not a number"):
        _load(fix_copy)


def test_columns_must_match_the_category_map(fix_copy):
    _replace(fix_copy / "categories_2025_11_25.json", '"zebra_puzzle"', '"zebra"')
    with pytest.raises(IngestError, match=r"table_2025_11_25\.csv: task columns"):
        _load(fix_copy)


def test_unknown_category_raises(fix_copy):
    _replace(fix_copy / "categories_2026_01_08.json", '"IF"', '"Vision"')
    with pytest.raises(IngestError, match=r"category 'Vision' is not in livebench.CATEGORY_MAP"):
        _load(fix_copy)


def test_unknown_release_file_raises(fix_copy):
    shutil.copy(fix_copy / "table_2026_01_08.csv", fix_copy / "table_2026_02_01.csv")
    with pytest.raises(IngestError, match=r"table_2026_02_01\.csv: release not in"):
        _load(fix_copy)


def test_missing_folder_and_bad_links_raise(tmp_path, fix_copy):
    with pytest.raises(IngestError, match="LiveBench folder is missing"):
        _load(tmp_path / "absent")
    _replace(fix_copy / "model_links.json", '"openweight": false', '"openweight": "no"')
    with pytest.raises(IngestError, match="'deepseek-v3.2-speciale': 'openweight' must be"):
        _load(fix_copy)


def test_raw_name_listed_twice_in_links_raises(fix_copy):
    _replace(fix_copy / "model_links.json", '"rawName": "gpt-5-low"', '"rawName": "devstral-2512"')
    with pytest.raises(IngestError, match="raw name 'devstral-2512' is listed twice"):
        _load(fix_copy)


def test_current_release_is_the_newest():
    assert livebench.CURRENT_RELEASE == "2026-01-08"
    assert livebench.benchmark_id("2026-01-08", "Agentic Coding") == "livebench-agentic-coding"
    assert livebench.benchmark_id("2025-12-23", "IF") == "livebench-if-2025-12-23"


# --- the real shared files -------------------------------------------------------------------


def test_real_files_counts_and_drops(shared_data):
    models, scores, drops = _load(shared_data / "livebench")
    assert len(models) == 129
    assert livebench.unlinked_names(shared_data / "livebench") == []
    assert Counter(s.benchmark_id for s in scores) == {
        "livebench-reasoning": 127,
        "livebench-coding": 128,
        "livebench-agentic-coding": 128,
        "livebench-mathematics": 126,
        "livebench-data-analysis": 126,
        "livebench-language": 128,
        "livebench-if": 128,
        "livebench-mathematics-2025-12-23": 66,
        "livebench-data-analysis-2025-12-23": 66,
        "livebench-reasoning-2025-11-25": 65,
    }
    assert dict(drops.counts) == {
        ("livebench", livebench.REPEAT): 704,
        ("livebench", livebench.MALFORMED): 1,
    }
    assert len({(s.model_name, s.benchmark_id) for s in scores}) == len(scores)


def test_real_files_golden_values(shared_data):
    models, scores, _ = _load(shared_data / "livebench")
    got = _by_key(scores)
    # claude-4-1-opus-20250805-base, table_2026_01_08.csv line 3, checked by hand:
    # theory_of_mind 48.077, zebra_puzzle 11.5, spatial 62.0, logic_with_navigation 42.0
    assert got["claude-4-1-opus-20250805-base", "livebench-reasoning"] == (40.89425, "2026-07-01")
    # AMPS_Hard 89.0, integrals_with_game 10.0, math_comp 65.686, olympiad 86.619
    assert got["claude-4-1-opus-20250805-base", "livebench-mathematics"] == (62.82625, "2026-07-01")
    # javascript 45.0, typescript 40.0, python 75.0
    assert got["claude-4-1-opus-20250805-base", "livebench-agentic-coding"][0] == 53.333333
    # only in the older tables: its 2025-12-23 Coding run is the current id's, dated as of then
    assert got["gpt-5.1-codex-max-xhigh", "livebench-coding"][1] == "2026-01-02"
    assert not [s for s in scores if s.model_name == "nemotron-3-super-120b-a12b"]
    by_name = {m.name: m for m in models}
    assert by_name["nemotron-3-super-120b-a12b"].open_weights is True
    assert by_name["claude-opus-4-8-xhigh-effort"].variant == "xhigh"
    assert by_name["claude-opus-4-8-low-effort"].variant == "low"
    assert by_name["gpt-5.4-high"].display_name == "GPT-5.4 Thinking High Effort"
    assert by_name["gemini-3.1-pro-preview-high"].display_name == "Gemini 3.1 Pro Preview High"
    assert by_name["devstral-2512"].organisation == "Mistral AI"
    assert by_name["glm-5"].organisation == "Zhipu AI"
    assert by_name["elephant-alpha"].organisation is None
    assert by_name["kimi-k2.5-thinking"].open_weights is True
    assert by_name["grok-4.3"].open_weights is None
    assert Counter(m.variant for m in models) == {
        None: 77,
        "high": 19,
        "low": 12,
        "medium": 10,
        "xhigh": 9,
        "minimal": 2,
    }


def test_real_scores_pass_the_catalog_checks(shared_data):
    _, scores, _ = _load(shared_data / "livebench")
    with open(LIVEBENCH_CSV, newline="", encoding="utf-8") as fh:
        benches = {row["benchmark_id"]: row for row in csv.DictReader(fh)}
    assert {s.benchmark_id for s in scores} <= set(benches)  # every id curated (older-release
    # ids whose task lists match the current release are kept for a future release that differs)
    assert {row["unit"] for row in benches.values()} == {"%"}
    assert all(0 <= s.score <= 100 for s in scores)
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", s.date) for s in scores)
    categories = {row["category"] for row in benches.values()}
    assert categories == {"reasoning", "coding", "math", "writing", "instruction-following"}
    assert categories <= set(schema.CATEGORIES)
