"""LMArena arena-catalog importer: the style-control-off boards as lmarena-text / lmarena-vision,
scatterplot metadata and prices, every drop reason, the IngestError lines, and (with ../shared)
the evidence for the view choice, exact counts and hand-checked values of the 2025-12 files."""

from __future__ import annotations

import csv
import json
import shutil
import statistics
from pathlib import Path

import pytest

from analytics.llm.ingest import lmarena, lmarena_catalog
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "lmarena-catalog"
SRC = lmarena_catalog.SOURCE


def _load(root: Path = FIX):
    drops = Drops()
    models, scores = lmarena_catalog.load(root, drops)
    return models, scores, drops


def test_benchmarks_are_curated_elo():
    benches = all_benchmarks()
    assert benches["lmarena-vision"].category == "multimodal"
    assert benches["lmarena-vision"].unit == benches["lmarena-text"].unit == "elo"


def test_scores_come_from_the_style_control_off_overall_boards():
    _, scores, _ = _load()
    assert [(s.model_name, s.benchmark_id, s.score) for s in scores] == [
        ("acme-ultra-20250101", "lmarena-text", 1300.5),
        ("acme-7b-instruct", "lmarena-text", 1210.0),
        ("acme-ultra-20250101", "lmarena-vision", 1250.25),
        ("acme-vl-7b", "lmarena-vision", 1100.0),
    ]
    text, vision = scores[0], scores[2]
    assert (text.source_kind, text.source_name, text.source_url, text.date, text.origin) == (
        "arena",
        lmarena.SOURCE_NAME,  # the older CSV's label: the newer file replaces its rows
        lmarena.LEADERBOARD_URL,
        "2025-12-11",
        SRC,
    )
    assert (vision.source_name, vision.source_url) == (
        "LMArena vision leaderboard",
        "https://lmarena.ai/leaderboard/vision",
    )
    assert text.date > lmarena.SNAPSHOT_DATE


def test_one_model_per_leaderboard_name_with_scatterplot_metadata():
    models, _, _ = _load()
    by_name = {m.name: m for m in models}
    assert list(by_name) == ["acme-ultra-20250101", "acme-7b-instruct", "acme-vl-7b"]
    ultra = by_name["acme-ultra-20250101"]
    assert (ultra.display_name, ultra.organisation, ultra.licence_raw) == (
        "Acme Ultra",
        "Acme",
        "Proprietary",
    )
    assert ultra.open_weights is False
    assert (ultra.usd_per_mtok_input, ultra.usd_per_mtok_output) == (2.5, 10.0)
    assert (ultra.price_source_url, ultra.price_date) == ("https://acme.ai/pricing", "2025-12-17")
    small = by_name["acme-7b-instruct"]
    assert small.open_weights is True and small.usd_per_mtok_input is None  # price_source "n/a"
    vl = by_name["acme-vl-7b"]
    assert vl.open_weights is False and vl.licence_raw == "Propretary"  # typo kept as published
    assert vl.usd_per_mtok_input is None and vl.price_source_url is None


def test_every_entry_is_a_score_or_a_counted_drop():
    _, scores, drops = _load()
    assert dict(drops.counts) == {
        (SRC, lmarena_catalog.STYLE_CONTROL): 6,
        (SRC, lmarena_catalog.IMAGE_ARENA): 3,
        (SRC, lmarena_catalog.CATEGORY): 2,
        (SRC, lmarena_catalog.NO_RATING): 1,
        (SRC, lmarena_catalog.NOT_ON_BOARD): 1,
        (SRC, lmarena_catalog.NO_PRICE): 1,
        (SRC, lmarena_catalog.NO_PRICE_URL): 1,
    }
    entries = sum(
        len(board)
        for path in FIX.glob("leaderboard-*.json")
        for board in json.loads(path.read_text()).values()
    )
    board_drops = sum(
        drops.counts[(SRC, r)]
        for r in (
            lmarena_catalog.STYLE_CONTROL,
            lmarena_catalog.IMAGE_ARENA,
            lmarena_catalog.CATEGORY,
            lmarena_catalog.NO_RATING,
        )
    )
    assert len(scores) + board_drops == entries


def _fixture_copy(tmp_path: Path) -> Path:
    root = tmp_path / "lmarena-catalog"
    shutil.copytree(FIX, root)
    return root


@pytest.mark.parametrize(
    ("filename", "text", "message"),
    [
        ("leaderboard-text.json", "{oops", "not valid JSON"),
        ("leaderboard-vision.json", '{"ocr": {}}', "with a 'full' board"),
        ("leaderboard-image.json", '{"full": {}, "x": [1]}', "category 'x' is not an object"),
        ("scatterplot-data.json", '{"a": 1}', "expected a JSON list of models"),
        ("scatterplot-data.json", '[{"name": "x"}]', "entry 0 has no model_api_name"),
    ],
)
def test_bad_file_is_one_line_naming_it(tmp_path, filename, text, message):
    root = _fixture_copy(tmp_path)
    (root / filename).write_text(text, encoding="utf-8")
    with pytest.raises(IngestError, match=message) as info:
        lmarena_catalog.load(root, Drops())
    assert filename in str(info.value) and "\n" not in str(info.value)


def test_missing_file_is_an_ingest_error(tmp_path):
    root = _fixture_copy(tmp_path)
    (root / "leaderboard-text-style-control.json").unlink()
    with pytest.raises(IngestError, match="leaderboard-text-style-control.json"):
        lmarena_catalog.load(root, Drops())


# --- the real files (need ../shared) ----------------------------------------------------------


@pytest.fixture(scope="module")
def real(shared_data):
    drops = Drops()
    models, scores = lmarena_catalog.load(shared_data / "lmarena-catalog", drops)
    return models, scores, drops


def _full(path: Path) -> dict[str, float]:
    board = json.loads(path.read_text(encoding="utf-8"))["full"]
    return {k.lower(): v["rating"] for k, v in board.items()}


@pytest.mark.shared
def test_real_plain_text_board_is_the_view_of_the_2025_08_csv(shared_data):
    with open(shared_data / "llm-leaderboard-csv/lmarena_text.csv", encoding="utf-8") as fh:
        old = {r["model"].lower(): float(r["arena_score"]) for r in csv.DictReader(fh)}
    plain = _full(shared_data / "lmarena-catalog/leaderboard-text.json")
    styled = _full(shared_data / "lmarena-catalog/leaderboard-text-style-control.json")
    common = [m for m in old if m in plain and m in styled]
    assert len(common) == 168
    gap_plain = statistics.mean(abs(plain[m] - old[m]) for m in common)
    gap_styled = statistics.mean(abs(styled[m] - old[m]) for m in common)
    assert gap_plain < 5 < 40 < gap_styled


@pytest.mark.shared
def test_real_counts(real):
    models, scores, drops = real
    per_bench = {}
    for s in scores:
        per_bench[s.benchmark_id] = per_bench.get(s.benchmark_id, 0) + 1
    assert per_bench == {"lmarena-text": 282, "lmarena-vision": 87}
    assert len(models) == 309
    assert {r: n for (_, r), n in drops.counts.items()} == {
        lmarena_catalog.STYLE_CONTROL: 7913,
        lmarena_catalog.CATEGORY: 7543,
        lmarena_catalog.IMAGE_ARENA: 76,
        lmarena_catalog.NOT_ON_BOARD: 14,
        lmarena_catalog.NO_PRICE: 3,
    }
    assert sum(m.organisation is not None for m in models) == 127
    assert sum(m.usd_per_mtok_input is not None for m in models) == 124


@pytest.mark.shared
def test_real_golden_values(real):
    models, scores, _ = real
    score = {(s.model_name, s.benchmark_id): s.score for s in scores}
    assert score[("gemini-3-pro", "lmarena-text")] == pytest.approx(1486.6027, abs=1e-4)
    assert score[("gemini-3-pro", "lmarena-vision")] == pytest.approx(1330.1329, abs=1e-4)
    assert score[("o1-preview", "lmarena-text")] == pytest.approx(1353.0, abs=0.1)
    # only the later style-control file has gemini-3-flash: it is not on lmarena-text
    assert ("gemini-3-flash", "lmarena-text") not in score
    opus = next(m for m in models if m.name == "claude-opus-4-5-20251101")
    assert (opus.display_name, opus.organisation, opus.open_weights) == (
        "Claude Opus 4.5",
        "Anthropic",
        False,
    )
    assert (opus.usd_per_mtok_input, opus.usd_per_mtok_output) == (5.0, 25.0)
    glm = next(m for m in models if m.name == "glm-4.6")
    assert (glm.licence_raw, glm.open_weights, glm.organisation) == ("MIT", True, "Z.ai")
    assert {s.date for s in scores} == {"2025-12-11"}
    assert {s.source_kind for s in scores} == {"arena"}
