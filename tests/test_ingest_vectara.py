"""Vectara hallucination leaderboard importer: the README table, the hallucination rate as a
lower-is-better percent, hf_id only for real Hugging Face repositories."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from analytics.core.schema import CATEGORIES
from analytics.llm.ingest import vectara as v
from analytics.llm.ingest.benchmarks import SOURCE_BENCHMARKS_DIR
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "vectara"


def _own_benchmarks(name: str) -> dict[str, dict]:
    """This importer's benchmark table, read on its own (independent of the other tables)."""
    with open(SOURCE_BENCHMARKS_DIR / name, newline="", encoding="utf-8") as fh:
        rows = {row["benchmark_id"]: row for row in csv.DictReader(fh)}
    assert all(row["category"] in CATEGORIES for row in rows.values())
    return rows


def _load(root: Path = FIX):
    drops = Drops()
    models, scores = v.load(root, drops)
    return models, scores, drops


def test_fixture_rates_date_and_provenance():
    _, scores, drops = _load()
    assert [(s.model_name, s.score) for s in scores] == [
        ("openai/gpt-5.4-2026-03-05", 7.0),
        ("qwen/qwen3-8b", 4.8),
        ("MiniMaxAI/minimax-m2p5", 9.1),
        ("someone/unknown-model", 12.25),
    ]
    assert {(s.benchmark_id, s.source_kind, s.date, s.source_url, s.origin) for s in scores} == {
        (
            "vectara-hallucination-rate",
            "independent",
            "2026-03-10",
            "https://github.com/vectara/hallucination-leaderboard",
            "vectara",
        )
    }
    assert {reason: n for (_, reason), n in drops.counts.items()} == {
        "model listed twice (first row kept)": 1,
        "row without model name or hallucination rate": 1,
    }


def test_fixture_organisation_and_hf_id():
    models, _, _ = _load()
    by = {m.name: m for m in models}
    assert (by["qwen/qwen3-8b"].organisation, by["qwen/qwen3-8b"].hf_id) == (
        "Alibaba",
        "Qwen/Qwen3-8B",
    )
    assert by["qwen/qwen3-8b"].open_weights is True
    assert (
        by["openai/gpt-5.4-2026-03-05"].organisation,
        by["openai/gpt-5.4-2026-03-05"].hf_id,
    ) == (
        "OpenAI",
        None,
    )
    assert by["openai/gpt-5.4-2026-03-05"].open_weights is None
    assert by["MiniMaxAI/minimax-m2p5"].hf_id is None  # provider API id, not a repository
    assert by["someone/unknown-model"].organisation is None


def test_benchmark_is_lower_is_better_percent():
    bench = _own_benchmarks("vectara.csv")["vectara-hallucination-rate"]
    assert (bench["unit"], bench["higher_is_better"], bench["category"]) == (
        "%",
        "false",
        "knowledge",
    )


def _readme(tmp_path: Path, text: str) -> Path:
    (tmp_path / "README.md").write_text(text, encoding="utf-8")
    return tmp_path


def test_missing_markers(tmp_path):
    root = _readme(tmp_path, "# nothing here\n|Model|x|\n")
    with pytest.raises(IngestError, match="no <!-- LEADERBOARD_START -->"):
        _load(root)


def test_wrong_header_names_the_line(tmp_path):
    text = (FIX / "README.md").read_text(encoding="utf-8").replace("|Answer Rate|", "|Refusals|")
    with pytest.raises(IngestError, match=r"README.md:8: table header"):
        _load(_readme(tmp_path, text))


def test_short_row_names_the_line(tmp_path):
    text = (FIX / "README.md").read_text(encoding="utf-8").replace("|83.1|\n|Mini", "|\n|Mini", 1)
    with pytest.raises(IngestError, match=r"README.md:11: 4 cells; expected 5"):
        _load(_readme(tmp_path, text))


def test_missing_date_is_none_and_missing_file(tmp_path):
    text = (
        (FIX / "README.md")
        .read_text(encoding="utf-8")
        .replace("Last updated on March 10, 2026", "")
    )
    _, scores, _ = _load(_readme(tmp_path, text))
    assert {s.date for s in scores} == {None}
    with pytest.raises(IngestError, match="README.md: missing"):
        _load(tmp_path / "nowhere")


# --- the real file (../shared) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data):
    return _load(shared_data / "vectara-hallucination")


def test_real_counts(real):
    models, scores, drops = real
    assert (len(models), len(scores), drops.total) == (96, 96, 0)
    assert {s.date for s in scores} == {"2026-03-10"}
    assert sum(m.hf_id is not None for m in models) == 28
    assert all(m.organisation is not None for m in models)


def test_real_golden_values(real):
    models, scores, _ = real
    by = {s.model_name: s.score for s in scores}
    assert by["antgroup/finix_s1_32b"] == 1.8
    assert by["openai/gpt-5.4-2026-03-05"] == 7.0
    assert by["mistralai/ministral-3-3b-2512"] == 24.2
    assert by["anthropic/claude-opus-4-6"] == 12.2
    meta = {m.name: m for m in models}
    assert meta["deepseek-ai/DeepSeek-R1"].hf_id == "deepseek-ai/DeepSeek-R1"
    assert meta["zai-org/glm-4p7"].hf_id is None
    assert meta["zai-org/glm-4p7"].organisation == "Zhipu AI"
