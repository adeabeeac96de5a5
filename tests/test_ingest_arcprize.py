"""ARC Prize importer: the semi-private headline per dataset, the system and protocol drops and
the IngestError lines on tiny fixtures; exact counts and hand-checked values on the real files.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from analytics.llm.ingest import arcprize, protocols
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "arcprize"


def _load(root: Path = FIX) -> tuple[list, list, Drops]:
    drops = Drops()
    models, scores = arcprize.load(root, drops)
    return models, scores, drops


def _scores(scores: list) -> dict[tuple[str, str], float]:
    return {(s.model_name, s.benchmark_id): s.score for s in scores}


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "arcprize"
    shutil.copytree(FIX, root)
    return root


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)  # edits in place
    path.write_text(json.dumps(data), encoding="utf-8")


def _model(**fields) -> dict:
    base = {
        "id": "x",
        "displayName": "X",
        "modelReleaseDate": None,
        "providerId": "OpenAI",
        "modelType": "CoT",
        "modelGroup": None,
    }
    return {**base, **fields}


# --- rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dataset", "reason"),
    [
        ("v1_Semi_Private", None),
        ("v2_Semi_Private", None),
        ("v3_Semi_Private", None),
        ("v1_Public_Eval", arcprize.PUBLIC_SET),
        ("v3_Public_Demo", arcprize.PUBLIC_SET),
        ("v2_Private_Eval", arcprize.PRIVATE_SET),
        ("v9_Training", arcprize.OTHER_SET),
    ],
)
def test_dataset_drop_reason(dataset: str, reason: str | None) -> None:
    assert arcprize.dataset_drop_reason(dataset) == reason


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"providerId": "Human", "modelGroup": "Human", "modelType": None}, arcprize.HUMAN),
        ({"providerId": "ARC Prize 2025", "modelGroup": "Kaggle"}, arcprize.COMPETITION),
        ({"providerId": "ARC Prize 2024", "modelType": "Custom"}, arcprize.COMPETITION),
        ({"providerId": "bespoke", "modelType": ""}, protocols.FINE_TUNED),
        ({"providerId": "j_berman", "modelType": "Refinement"}, protocols.SCAFFOLD),
        ({"displayName": "Gemini 3 Deep Think (2/26)"}, protocols.PARALLEL),
        ({"displayName": "Grok 4 Heavy"}, protocols.PARALLEL),
        ({"id": "o3-preview-low", "modelType": "CoT + Synthesis"}, protocols.PARALLEL),
        ({"id": "o1-pro", "modelType": "CoT + Synthesis"}, protocols.PARALLEL),
        ({"id": "o3-pro-2025-06-10-high", "modelType": "CoT + Synthesis"}, None),
        ({"id": "gpt-5-pro-2025-10-06", "displayName": "GPT-5 Pro"}, None),
        ({"id": "o3-2025-04-16-high", "displayName": "o3 (High)"}, None),
        ({"id": "grok-4-0709", "displayName": "Grok 4 (Thinking)", "providerId": "xAI"}, None),
    ],
)
def test_system_drop_reason(fields: dict, reason: str | None) -> None:
    assert arcprize.system_drop_reason(_model(**fields)) == reason


@pytest.mark.parametrize(
    ("name", "clean"),
    [
        ("o3 (Preview, Low) ¹", "o3 (Preview, Low)"),
        ("Gemini-2.5-Pro-Exp-03-25 **", "Gemini-2.5-Pro-Exp-03-25"),
        ("o3 (Preview, High)*", "o3 (Preview, High)"),
        ("GPT-5.4 (xHigh)", "GPT-5.4 (xHigh)"),
    ],
)
def test_display_name_drops_footnote_marks(name: str, clean: str) -> None:
    assert arcprize.display_name(_model(displayName=name)) == clean


# --- the fixture ------------------------------------------------------------------------------


def test_fixture_scores_are_semi_private_fractions_in_percent() -> None:
    models, scores, _ = _load()
    assert _scores(scores) == {
        ("o3-pro-2025-06-10-high", "arc-agi"): 59.33,
        ("o3-2025-04-16-high", "arc-agi"): 60.83,
        ("o3-2025-04-16-high", "arc-agi-2"): 6.53,
        ("R1", "arc-agi"): 15.8,
        ("anthropic-opus-4-8-high", "arc-agi-3"): 1.52,
    }
    for score in scores:
        assert score.source_kind == "independent"
        assert (score.source_name, score.source_url) == (
            "ARC Prize",
            "https://arcprize.org/leaderboard",
        )
        assert score.origin == "arcprize"
        assert score.variant is None
    dates = {(s.model_name, s.benchmark_id): s.date for s in scores}
    assert dates[("R1", "arc-agi")] == "2026-06-04"  # leaderboard/v1.json generatedAt
    assert dates[("o3-2025-04-16-high", "arc-agi-2")] == "2026-06-03"  # v2.json
    assert dates[("anthropic-opus-4-8-high", "arc-agi-3")] is None  # no v3 board in the fixture
    assert [m.name for m in models] == [
        "o3-pro-2025-06-10-high",
        "o3-2025-04-16-high",
        "R1",
        "anthropic-opus-4-8-high",
        # no score imported, but a maker's system: its release day is evidence of identity
        "gemini-3-deep-think-preview",
        "o3-preview-low",
        "gemini-2-5-pro-preview-openrouter",
        "Grok 3",
    ]


def test_fixture_drop_ledger() -> None:
    _, _, drops = _load()
    assert drops.counts == Counter(
        {
            ("arcprize", arcprize.HUMAN): 1,
            ("arcprize", arcprize.PRIVATE_SET): 1,
            ("arcprize", arcprize.COMPETITION): 1,
            ("arcprize", protocols.FINE_TUNED): 1,  # TRM
            ("arcprize", protocols.SCAFFOLD): 1,  # Poetiq refinement
            ("arcprize", protocols.PARALLEL): 2,  # Deep Think, o3-preview
            ("arcprize", arcprize.PUBLIC_SET): 1,
            ("arcprize", arcprize.REPEATED): 1,
            ("arcprize", arcprize.HIDDEN): 1,
            ("arcprize", arcprize.OTHER_SET): 1,
            ("arcprize", arcprize.MODEL_REPEATED): 1,
        }
    )


def test_model_metadata() -> None:
    models, _, _ = _load()
    by_name = {m.name: m for m in models}
    o3 = by_name["o3-2025-04-16-high"]
    assert (o3.display_name, o3.organisation, o3.release_date) == (
        "o3 (High)",
        "OpenAI",
        "2025-04-16",
    )
    assert by_name["R1"].organisation == "Deepseek"
    assert by_name["R1"].display_name == "Deepseek R1"
    assert by_name["anthropic-opus-4-8-high"].release_date == "2026-06-01"
    assert all(m.source == "arcprize" and m.open_weights is None for m in models)
    # a maker's system without imported scores still states its release day (o3-preview:
    # the December 2024 announcement); a human, a competition entry, a task fine-tune or a
    # scaffold over another maker's model states none
    assert by_name["o3-preview-low"].release_date == "2024-12-20"
    assert "Grok 3" in by_name
    assert not {"trm-2025-10-07", "poetiq-arc-agi-gemini-3-d_v1"} & set(by_name)


def test_score_above_one_is_converted_not_clipped(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "evaluations.json", lambda d: d[12].update(score=1))  # R1 on ARC-AGI-1
    _, scores, _ = _load(root)
    assert _scores(scores)[("R1", "arc-agi")] == 100.0


# --- bad input --------------------------------------------------------------------------------


def test_missing_file_names_it(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "providers.json").unlink()
    with pytest.raises(IngestError, match=r"providers\.json: file missing"):
        _load(root)


def test_invalid_json_names_the_file(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "models.json").write_text("[{", encoding="utf-8")
    with pytest.raises(IngestError, match=r"models\.json: not valid JSON"):
        _load(root)


def test_not_a_list_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "evaluations.json").write_text('{"evaluations": []}', encoding="utf-8")
    with pytest.raises(IngestError, match=r"evaluations\.json: expected a JSON list"):
        _load(root)


def test_record_without_key_names_the_record(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "evaluations.json", lambda d: d[3].pop("score"))
    with pytest.raises(IngestError, match=r"evaluations\.json: record 3 lacks \['score'\]"):
        _load(root)


@pytest.mark.parametrize("value", ["0.5", None, True])
def test_score_of_wrong_type_is_an_error(tmp_path: Path, value: object) -> None:
    root = _copy(tmp_path)
    _edit(root / "evaluations.json", lambda d: d[12].update(score=value))
    with pytest.raises(
        IngestError, match=r"record 12 \(R1, v1_Semi_Private\): score .* not a number"
    ):
        _load(root)


def test_unknown_system_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "evaluations.json", lambda d: d[12].update(modelId="ghost"))
    with pytest.raises(IngestError, match=r"record 12 \(ghost, v1_Semi_Private\): system not in"):
        _load(root)


def test_unknown_dataset_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "evaluations.json", lambda d: d[12].update(datasetId="v4_Semi_Private"))
    with pytest.raises(IngestError, match=r"record 12 .*: dataset not in datasets\.json"):
        _load(root)


def test_unknown_provider_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "models.json", lambda d: d[9].update(providerId="Nobody"))  # R1
    with pytest.raises(IngestError, match=r"record 12 .*: provider 'Nobody' not in providers"):
        _load(root)


def test_bad_board_file_is_an_error(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root / "leaderboard" / "v2.json", lambda d: d.pop("generatedAt"))
    with pytest.raises(IngestError, match=r"leaderboard/v2\.json: expected \{generatedAt"):
        _load(root)


def test_benchmark_rows() -> None:
    table = all_benchmarks()
    for bench in arcprize.HEADLINE.values():
        assert table[bench].unit == "%"
        assert table[bench].category == "reasoning"
        assert (table[bench].lower_bound, table[bench].upper_bound) == (0, 100)


# --- the real files ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data: Path) -> tuple[list, list, Drops, float]:
    start = time.process_time()
    drops = Drops()
    models, scores = arcprize.load(shared_data / "arcprize", drops)
    return models, scores, drops, time.process_time() - start


def test_real_counts(real: tuple) -> None:
    models, scores, drops, seconds = real
    assert seconds < 5
    assert len(models) == 169  # 147 with scores, 22 dated systems whose results are set aside
    assert Counter(s.benchmark_id for s in scores) == {
        "arc-agi": 138,
        "arc-agi-2": 138,
        "arc-agi-3": 7,
    }
    assert drops.counts == Counter(
        {
            ("arcprize", arcprize.PUBLIC_SET): 269,
            ("arcprize", arcprize.HIDDEN): 7,
            ("arcprize", protocols.SCAFFOLD): 7,
            ("arcprize", protocols.PARALLEL): 6,
            ("arcprize", arcprize.COMPETITION): 5,
            ("arcprize", arcprize.HUMAN): 4,
            ("arcprize", protocols.FINE_TUNED): 4,
            ("arcprize", arcprize.MODEL_REPEATED): 3,
            ("arcprize", arcprize.PRIVATE_SET): 3,
            ("arcprize", arcprize.REPEATED): 1,
        }
    )
    # every one of the 589 records is imported or counted exactly once
    record_drops = drops.total - drops.counts[("arcprize", arcprize.MODEL_REPEATED)]
    assert len(scores) + record_drops == 589
    assert {s.date for s in scores} == {"2026-06-04"}


def test_real_golden_values(real: tuple) -> None:
    models, scores, _, _ = real
    got = _scores(scores)
    assert got[("o3-2025-04-16-high", "arc-agi")] == 60.83
    assert got[("o3-2025-04-16-high", "arc-agi-2")] == 6.53
    assert got[("gpt-5-5-2026-04-22-thinking-xhigh", "arc-agi-2")] == 85.0
    assert got[("grok-4-0709", "arc-agi-2")] == 15.975
    assert got[("o3-pro-2025-06-10-high", "arc-agi")] == 59.33  # released product: kept
    assert got[("anthropic-opus-4-8-high", "arc-agi-3")] == 1.52
    assert got[("gpt-5-2025-08-07-low", "arc-agi-2")] == 1.94  # listed twice, imported once
    dropped = {
        "gemini_3_deep_think_022026",
        "gemini-3-deep-think-preview",
        "o3-preview-low",
        "poetiq-arc-agi-gemini-3-d_v1",
        "johan_land_gpt_5_2_refine",
        "jeremy_sept_2025",
        "trm-2025-10-07",
        "NVARC_2025",
        "2025_human_panel",
        "gemini-2-5-pro-preview-openrouter",
    }
    assert not dropped & {s.model_name for s in scores}
    by_name = {m.name: m for m in models}
    opus = by_name["claude-opus-4-6-thinking-120K-high"]
    assert (opus.display_name, opus.organisation, opus.release_date) == (
        "Claude Opus 4.6 (120K, High)",
        "Anthropic",
        "2026-02-05",
    )
    assert by_name["kimi-k2.5"].organisation == "Moonshot AI"


def test_real_boards_agree_with_evaluations(shared_data: Path, real: tuple) -> None:
    """The site's boards (leaderboard/v*.json) list the same semi-private scores."""
    _, scores, _, _ = real
    got = _scores(scores)
    for version, bench in (("v1", "arc-agi"), ("v2", "arc-agi-2"), ("v3", "arc-agi-3")):
        board = json.loads(
            (shared_data / "arcprize" / "leaderboard" / f"{version}.json").read_text()
        )
        for row in board["evaluations"]:
            key = (row["modelId"], bench)
            if key in got:
                assert got[key] == pytest.approx(row["score"] * 100), key
