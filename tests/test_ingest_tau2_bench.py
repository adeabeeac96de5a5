"""τ²-bench importer: tracks from the manifest, the protocol filters, provenance by submitter, and
(with ../shared) exact counts and hand-checked values of the real submissions."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from analytics.core.schema import CATEGORIES
from analytics.llm.ingest import tau2_bench as t
from analytics.llm.ingest.benchmarks import SOURCE_BENCHMARKS_DIR
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "tau2_bench"


def _own_benchmarks(name: str) -> dict[str, dict]:
    """This importer's benchmark table, read on its own (independent of the other tables)."""
    with open(SOURCE_BENCHMARKS_DIR / name, newline="", encoding="utf-8") as fh:
        rows = {row["benchmark_id"]: row for row in csv.DictReader(fh)}
    assert all(row["category"] in CATEGORIES for row in rows.values())
    return rows


def _load(root: Path = FIX) -> tuple[list, list, Drops]:
    drops = Drops()
    models, scores = t.load(root, drops)
    return models, scores, drops


def _by_key(scores):
    return {(s.model_name, s.variant, s.benchmark_id): s for s in scores}


def test_fixture_headline_scores_per_track():
    _, scores, _ = _load()
    got = {k: (s.score, s.source_kind, s.date) for k, s in _by_key(scores).items()}
    assert got == {
        ("Acme One", "thinking", "tau2-airline"): (80.5, "independent", "2026-03-01"),
        ("Acme One", "thinking", "tau2-retail"): (70.25, "independent", "2026-03-01"),
        ("Acme One", "thinking", "tau2-banking"): (30.0, "independent", "2026-03-01"),
        ("Acme One", "none", "tau2-airline"): (50.0, "independent", "2026-03-01"),
        ("Beta-Two", "high", "tau2-airline"): (60.0, "self-reported", "2026-04-01"),
        ("Qwen-X", None, "tau2-retail"): (66.0, "self-reported", "2026-04-02"),
        ("Acme Dup", None, "tau2-airline"): (45.0, "independent", "2026-05-01"),
        ("Old-Model", None, "tau2-legacy-retail"): (72.1, "independent", "2025-06-09"),
        ("Old-Model", None, "tau2-legacy-airline"): (64.2, "independent", "2025-06-09"),
        ("Delta Old", None, "tau2-legacy-retail"): (81.4, "self-reported", "2025-05-22"),
        ("voice-one", None, "tau2-voice-airline"): (40.0, "independent", "2026-03-03"),
        ("voice-one", None, "tau2-voice-retail"): (44.7, "independent", "2026-03-03"),
        ("voice-one", None, "tau2-voice-telecom"): (21.1, "independent", "2026-03-03"),
        ("Pine Voice", "thinking", "tau2-voice-airline"): (70.0, "independent", "2026-08-17"),
    }
    assert {(s.source_name, s.source_url, s.origin) for s in scores} == {
        ("τ²-bench leaderboard", "https://taubench.com/", "tau2-bench")
    }
    table = _own_benchmarks("tau2_bench.csv")
    assert all(table[s.benchmark_id]["unit"] == "%" for s in scores)
    assert {row["higher_is_better"] for row in table.values()} == {"true"}


def test_fixture_every_drop_reason_is_counted():
    _, _, drops = _load()
    assert {reason: n for (_, reason), n in drops.counts.items()} == {
        t.TEMPLATE: 1,
        t.NOT_LISTED: 1,
        t.NULL_DOMAIN: 2,
        t.SCAFFOLD_CUSTOM: 2,
        t.SCAFFOLD_RETRIEVAL: 1,
        t.SCAFFOLD_USER_SIM: 1,
        t.SCAFFOLD_PROMPTS: 1,
        t.SCAFFOLD_PIPELINE: 1,
        t.ORIGINAL_TAU: 2,
        t.VERSION: 1,
        t.NO_BANKING: 1,
        t.DUPLICATE: 1,
    }
    assert all(
        reason.startswith("protocol: non-standard scaffold")
        for reason in (
            t.SCAFFOLD_CUSTOM,
            t.SCAFFOLD_PROMPTS,
            t.SCAFFOLD_USER_SIM,
            t.SCAFFOLD_RETRIEVAL,
            t.SCAFFOLD_PIPELINE,
        )
    )


def test_fixture_models_state_what_the_submission_says():
    models, _, _ = _load()
    by = {(m.name, m.variant): m for m in models}
    assert len(models) == 9
    acme = by[("Acme One", "thinking")]
    assert (acme.organisation, acme.release_date, acme.display_name) == (
        "Acme",
        "2026-01-15",
        "Acme One",
    )
    assert by[("Acme One", "none")].release_date is None
    assert ("voice-bank", None) not in by  # no headline score, no model row


@pytest.mark.parametrize(
    ("submitter", "model_org", "notes", "kind"),
    [
        ("Sierra", "OpenAI", "", "independent"),
        ("OpenAI", "OpenAI", "", "self-reported"),
        ("Alibaba", "Qwen", "", "self-reported"),
        ("Z.ai", "Zhipu AI", "", "self-reported"),
        ("Pickle", "xAI", "", "independent"),
        ("Pine AI", "Pine AI", "Independently evaluated by Sierra.", "independent"),
    ],
)
def test_source_kind_rule(submitter, model_org, notes, kind):
    data = {
        "submitting_organization": submitter,
        "model_organization": model_org,
        "methodology": {"notes": notes},
    }
    assert t.source_kind(data) == kind


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "tau2-bench"
    shutil.copytree(FIX, root)
    return root


def _edit(root: Path, folder: str, change) -> None:
    path = root / "submissions" / folder / "submission.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_missing_key_names_the_file(tmp_path):
    root = _copy(tmp_path)
    _edit(root, "beta-two_beta_2026-04-01", lambda d: d.pop("results"))
    with pytest.raises(
        IngestError, match=r"beta-two_beta_2026-04-01/submission.json: missing key 'results'"
    ):
        _load(root)


def test_non_numeric_pass_1_names_file_and_domain(tmp_path):
    root = _copy(tmp_path)
    _edit(root, "beta-two_beta_2026-04-01", lambda d: d["results"]["airline"].update(pass_1="60%"))
    with pytest.raises(IngestError, match=r"results.airline.pass_1 is '60%'; expected a number"):
        _load(root)


def test_unknown_domain_is_an_error(tmp_path):
    root = _copy(tmp_path)
    _edit(root, "beta-two_beta_2026-04-01", lambda d: d["results"].update(mock={"pass_1": 1}))
    with pytest.raises(IngestError, match="unknown domain 'mock'"):
        _load(root)


def test_bad_json_and_missing_manifest(tmp_path):
    root = _copy(tmp_path)
    (root / "submissions" / "beta-two_beta_2026-04-01" / "submission.json").write_text("{", "utf-8")
    with pytest.raises(IngestError, match="not valid JSON"):
        _load(root)
    root = _copy(tmp_path / "b")
    (root / "submissions" / "manifest.json").unlink()
    with pytest.raises(IngestError, match=r"manifest.json: missing"):
        _load(root)


def test_empty_folder_is_one_line(tmp_path):
    with pytest.raises(IngestError, match="no \\*/submission.json files"):
        _load(tmp_path)


# --- the real submissions (../shared) ---------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data):
    return _load(shared_data / "tau2-bench")


def test_real_counts(real):
    models, scores, drops = real
    assert len(models) == 48
    assert len(scores) == 107
    per_bench: dict[str, int] = {}
    for s in scores:
        per_bench[s.benchmark_id] = per_bench.get(s.benchmark_id, 0) + 1
    assert per_bench == {
        "tau2-airline": 8,
        "tau2-retail": 8,
        "tau2-telecom": 8,
        "tau2-banking": 21,
        "tau2-legacy-airline": 9,
        "tau2-legacy-retail": 9,
        "tau2-legacy-telecom": 8,
        "tau2-voice-airline": 12,
        "tau2-voice-retail": 12,
        "tau2-voice-telecom": 12,
    }
    assert sum(s.source_kind == "self-reported" for s in scores) == 11
    assert {reason: n for (_, reason), n in drops.counts.items()} == {
        t.NULL_DOMAIN: 58,
        t.SCAFFOLD_CUSTOM: 17,
        t.ORIGINAL_TAU: 6,
        t.SCAFFOLD_RETRIEVAL: 6,
        t.SCAFFOLD_PROMPTS: 6,
        t.NOT_LISTED: 3,
        t.SCAFFOLD_USER_SIM: 3,
        t.SCAFFOLD_PIPELINE: 3,
        t.TEMPLATE: 2,
    }


def test_real_golden_values(real):
    _, scores, _ = real
    by = _by_key(scores)
    # gpt-5-2_sierra_2026-02-26: airline pass_1 83.0, banking 32.22 with alltools, effort high.
    assert by[("GPT-5.2", "high", "tau2-airline")].score == 83.0
    assert by[("GPT-5.2", "high", "tau2-banking")].score == 32.22
    # gpt-5-2-none: banking used qwen_embeddings retrieval -> dropped; airline kept.
    assert by[("GPT-5.2", "none", "tau2-airline")].score == 52.5
    assert ("GPT-5.2", "none", "tau2-banking") not in by
    # qwen3-8-max_sierra_2026-08-04: banking 55.154639175257735.
    assert by[("Qwen 3.8 Max", "xhigh", "tau2-banking")].score == pytest.approx(55.1546392)
    # Qwen3-Max filed by "Alibaba" for model org "Qwen": the vendor itself -> self-reported.
    assert by[("Qwen3-Max", None, "tau2-legacy-retail")].source_kind == "self-reported"
    # o4-mini from the τ²-bench paper (Sierra) -> independent legacy run.
    assert by[("o4-mini", None, "tau2-legacy-telecom")].score == 50.2
    assert by[("o4-mini", None, "tau2-legacy-telecom")].source_kind == "independent"
    # voice board, gpt-realtime-2 standard xhigh run (folder 2026-06-29).
    assert by[("gpt-realtime-2", "xhigh", "tau2-voice-airline")].score == pytest.approx(58.0)
    names = {s.model_name for s in scores}
    assert not names & {
        "Distyl ButtonAgent",
        "RAFT-30B-A3B",
        "Nemotron-Orchestrator-8B",
        "Cascaded baseline",
        "Claude Opus 4",
        "Example-Model-v2.0",
        "Qwen3-Max-Thinking-Preview",
        "DeepSeek-V3.2",
        "Gemini 3.0 Pro",
    }
