"""SWE-bench importer: only the bash-only board (one scaffold for every model) is imported; the
other boards, multi-attempt and mini-SWE-agent 2.x entries are counted as dropped."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from analytics.core.schema import CATEGORIES
from analytics.llm.ingest import protocols
from analytics.llm.ingest import swe_bench as sb
from analytics.llm.ingest.benchmarks import SOURCE_BENCHMARKS_DIR
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "swe_bench"


def _own_benchmarks(name: str) -> dict[str, dict]:
    """This importer's benchmark table, read on its own (independent of the other tables)."""
    with open(SOURCE_BENCHMARKS_DIR / name, newline="", encoding="utf-8") as fh:
        rows = {row["benchmark_id"]: row for row in csv.DictReader(fh)}
    assert all(row["category"] in CATEGORIES for row in rows.values())
    return rows


def _load(root: Path = FIX):
    drops = Drops()
    models, scores = sb.load(root, drops)
    return models, scores, drops


def test_fixture_bash_only_scores():
    models, scores, _ = _load()
    assert [(s.model_name, s.variant, s.score, s.date) for s in scores] == [
        ("acme-coder-20251101", "medium", 74.4, "2025-11-24"),
        ("Open-Coder-32B", None, 55.4, "2025-08-02"),
        ("llama-x-instruct", None, 21.04, "2025-07-20"),
    ]
    assert {(s.benchmark_id, s.source_kind, s.source_url, s.origin) for s in scores} == {
        (
            "swe-bench-verified-bash-only",
            "independent",
            "https://www.swebench.com/bash-only.html",
            "swe-bench",
        )
    }
    by = {m.name: m for m in models}
    assert by["acme-coder-20251101"].display_name == "Acme Coder medium (20251101)"
    assert by["acme-coder-20251101"].organisation == "Acme"
    assert by["Open-Coder-32B"].open_weights is True
    assert by["llama-x-instruct"].open_weights is None  # os_model false is not a statement
    bench = _own_benchmarks("swe_bench.csv")["swe-bench-verified-bash-only"]
    assert (bench["category"], bench["unit"], bench["higher_is_better"]) == ("coding", "%", "true")


def test_fixture_drops_per_board_and_protocol():
    _, _, drops = _load()
    assert {reason: n for (_, reason), n in drops.counts.items()} == {
        sb.board_drop_reason("Verified"): 2,
        sb.board_drop_reason("Lite"): 1,
        sb.MULTI_ATTEMPT: 1,
        sb.AGENT_V2: 1,
        sb.DUPLICATE: 1,
    }
    assert sb.board_drop_reason("Lite").startswith(protocols.SCAFFOLD)
    assert sb.MULTI_ATTEMPT.startswith(protocols.AGGREGATED)


@pytest.mark.parametrize(
    ("display", "variant"),
    [
        ("GPT-5 (2025-08-07) (medium reasoning)", "medium"),
        ("Claude 4.5 Opus medium (20251101)", "medium"),
        ("Gemini 3 Pro Preview (2025-11-18)", None),
        ("GLM-4.6 (T=1)", None),
    ],
)
def test_variant_from_the_entry_name(display, variant):
    assert sb.variant_of(display) == variant


def _write(tmp_path: Path, change) -> Path:
    root = tmp_path / "swe-bench"
    shutil.copytree(FIX, root)
    path = root / "leaderboards.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return root


def test_non_numeric_resolved_names_the_entry(tmp_path):
    root = _write(tmp_path, lambda d: d["leaderboards"][0]["results"][1].update(resolved="55%"))
    with pytest.raises(IngestError, match=r"results\[1\] \(Open Coder 32B\): 'resolved' is '55%'"):
        _load(root)


def test_missing_bash_only_board(tmp_path):
    root = _write(tmp_path, lambda d: d["leaderboards"].pop(0))
    with pytest.raises(IngestError, match="no 'bash-only' leaderboard"):
        _load(root)


def test_wrong_shape_and_missing_file(tmp_path):
    root = _write(tmp_path, lambda d: d.pop("leaderboards"))
    with pytest.raises(IngestError, match="missing 'leaderboards' list"):
        _load(root)
    with pytest.raises(IngestError, match="leaderboards.json: missing"):
        _load(tmp_path / "nowhere")


# --- the real file (../shared) ------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data):
    return _load(shared_data / "swe-bench")


def test_real_counts(real):
    models, scores, drops = real
    assert (len(models), len(scores)) == (31, 31)
    assert {reason: n for (_, reason), n in drops.counts.items()} == {
        sb.board_drop_reason("Verified"): 162,
        sb.board_drop_reason("Lite"): 84,
        sb.board_drop_reason("Test"): 23,
        sb.board_drop_reason("Multimodal"): 22,
    }
    assert sum(s.variant == "medium" for s in scores) == 6


def test_real_golden_values(real):
    models, scores, _ = real
    by = {s.model_name: s for s in scores}
    # bash-only entries checked by hand in leaderboards.json
    assert (by["claude-opus-4-5-20251101"].score, by["claude-opus-4-5-20251101"].date) == (
        74.4,
        "2025-11-24",
    )
    assert by["gpt-4.1-20250414"].score == 39.58
    assert by["Qwen2.5-Coder-32B-Instruct"].score == 9.0
    assert by["devstral-small-2512"].date == "2025-12-09"
    meta = {m.name: m for m in models}
    assert meta["gemini-3-pro-preview"].organisation == "Google DeepMind"
    assert meta["gpt-oss-120b"].open_weights is True
