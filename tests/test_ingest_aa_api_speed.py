"""Artificial Analysis API speed: the llmval copy (2026-10-03) and AA's own August file, their
merge, the new-model list, the fidelity check and its refusals; with ../shared the real files and
the figures reported for them."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from analytics.llm.ingest import aa_api_speed as speed
from analytics.llm.ingest import aa_fidelity as fid
from analytics.llm.ingest import protocols
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "aa_api_speed"
AA = FIX / "artificial-analysis"
OCT = AA / speed.COPY_DIR
AUG = AA / speed.FIRST_PARTY_DIR
COLUMNS = {
    "model_name",
    "name",
    "output_tokens_per_s",
    "ttft_s",
    "measured_on",
    "source_name",
    "source_url",
}


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (src, reason), n in drops.counts.items() if src == speed.SOURCE}


def _by_slug(rows: list[dict]) -> dict[str, dict]:
    out = {row["model_name"]: row for row in rows}
    assert len(out) == len(rows), "one row per slug"
    return out


# --- fixtures --------------------------------------------------------------------------------


def test_october_rows_and_drops():
    drops = Drops()
    rows = _by_slug(speed.load(OCT, drops))
    assert set(rows) == {"model-a", "model-c", "model-new"}
    a = rows["model-a"]
    assert set(a) == COLUMNS
    assert a == {
        "model_name": "model-a",
        "name": "Model A (High)",
        "output_tokens_per_s": 100.0,
        "ttft_s": 1.5,
        "measured_on": "2026-10-03",
        "source_name": "Artificial Analysis (API, as served)",
        "source_url": "https://artificialanalysis.ai/models/model-a",
    }
    assert rows["model-c"]["ttft_s"] is None  # ttft 0 = not measured; the speed is kept
    assert _reasons(drops) == {
        speed.NOT_MEASURED: 2,  # model-b, model-d: tps 0
        speed.DUPLICATE_SLUG: 1,  # the second model-a
        protocols.COMPOSITE: 7,  # every non-null intel / coding value
    }


def test_first_party_rows_and_drops():
    drops = Drops()
    rows = _by_slug(speed.load_first_party(AUG, drops))
    assert set(rows) == {"model-a", "model-b", "model-c", "model-old"}
    assert rows["model-b"]["output_tokens_per_s"] == 50.0 and rows["model-b"]["ttft_s"] == 1.0
    assert {r["measured_on"] for r in rows.values()} == {"2026-08-22"}
    assert rows["model-old"]["source_url"] == "https://artificialanalysis.ai/models/model-old"
    assert _reasons(drops) == {speed.NOT_MEASURED: 1, speed.NO_SLUG: 1}


def test_merge_october_wins_and_august_fills_in():
    october = speed.load(OCT, Drops())
    august = speed.load_first_party(AUG, Drops())
    merged = speed.merge(october, august)
    assert [r["model_name"] for r in merged] == sorted(r["model_name"] for r in merged)
    rows = _by_slug(merged)
    assert {s: r["measured_on"] for s, r in rows.items()} == {
        "model-a": "2026-10-03",
        "model-b": "2026-08-22",  # listed but unmeasured in October
        "model-c": "2026-10-03",
        "model-new": "2026-10-03",
        "model-old": "2026-08-22",  # absent from the October copy
    }
    assert rows["model-a"]["output_tokens_per_s"] == 100.0  # not August's 80
    assert rows["model-c"]["ttft_s"] is None  # October's row wins whole, not field by field


def test_new_models():
    assert speed.new_models(OCT, AUG) == ["model-new"]


def test_measured_on_falls_back_to_the_folder_day(tmp_path: Path):
    data = json.loads((OCT / speed.COPY_FILE).read_text())
    del data["updated_at"]
    folder = tmp_path / "2026-10-04-copy"
    folder.mkdir()
    (folder / speed.COPY_FILE).write_text(json.dumps(data))
    assert {r["measured_on"] for r in speed.load(folder, Drops())} == {"2026-10-04"}
    undated = tmp_path / "copy"
    undated.mkdir()
    (undated / speed.COPY_FILE).write_text(json.dumps(data))
    with pytest.raises(IngestError, match="no date"):
        speed.load(undated, Drops())


def test_string_tps_is_one_line_error_naming_the_file():
    with pytest.raises(IngestError) as err:
        speed.load(AA / "bad-tps", Drops())
    message = str(err.value)
    assert "\n" not in message
    assert str(AA / "bad-tps" / speed.COPY_FILE) in message
    assert "models[1] (model-s): tps = 'fast' is not a number" in message


@pytest.mark.parametrize(
    ("models", "expected"),
    [
        ({"models": {}}, "expected an object with a 'models' list"),
        ({"models": [{"name": "X", "tps": 1}]}, "models[0]: 'slug' missing"),
        ({"models": [{"name": "X", "slug": "a b", "tps": 1}]}, "slug 'a b' malformed"),
        ({"models": [{"name": "X", "slug": "x", "tps": -3}]}, "tps = -3 is negative"),
        ({"models": [{"name": "X", "slug": "x", "tps": 3, "ttft": True}]}, "ttft = True"),
    ],
)
def test_malformed_copies_are_refused(tmp_path: Path, models: dict, expected: str):
    folder = tmp_path / "2026-10-03-llmval"
    folder.mkdir()
    (folder / speed.COPY_FILE).write_text(json.dumps(models))
    with pytest.raises(IngestError, match="benchmarks.json") as err:
        speed.load(folder, Drops())
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_fidelity_on_the_fixture():
    result = fid.fidelity(FIX)
    assert (result["october_models"], result["august_models"]) == (5, 5)
    assert (result["shared"], result["new_models"], result["join_share"]) == (4, 1, 0.8)
    sp = result["speed"]
    assert sp["n"] == 2 and sp["median_ratio"] == pytest.approx(1.625)
    assert sp["within_25pct_share"] == 0.5  # 100/80 = 1.25 is inside, 200/100 is not
    assert [w["slug"] for w in sp["largest"]] == ["model-c", "model-a"]
    assert result["ttft"]["n"] == 1 and result["ttft"]["median_ratio"] == pytest.approx(0.75)
    ix = result["index"]
    assert ix["n"] == 4 and ix["spearman"] == pytest.approx(1.0)
    assert ix["slope"] == pytest.approx(23 / 30) and ix["intercept"] == pytest.approx(-5.0)
    assert result["names"] == {"n": 4, "match_share": 0.5, "match_share_ignoring_case": 0.75}
    fid.check(result)
    text = fid.describe(result)
    assert "5 models; 4 (80%)" in text and "ranks models alike" in text


def test_refused_when_the_index_order_disagrees():
    result = fid.fidelity(FIX, october_dir="refused-order")
    assert result["index"]["spearman"] == pytest.approx(-1.0)
    assert "does NOT rank models" in fid.describe(result)
    with pytest.raises(IngestError, match=r"refused .* rank correlation .* is -1\.000") as err:
        fid.check(result)
    assert "\n" not in str(err.value)


def test_refused_when_too_few_slugs_join():
    result = fid.fidelity(FIX, october_dir="refused-join")
    assert result["index"]["spearman"] == pytest.approx(1.0)
    with pytest.raises(IngestError, match=r"only 3 of 7 slugs \(43%\)"):
        fid.check(result)


def test_refused_when_nothing_can_be_ranked(tmp_path: Path):
    root = tmp_path / "artificial-analysis"
    shutil.copytree(AUG, root / speed.FIRST_PARTY_DIR)
    (root / speed.COPY_DIR).mkdir()
    data = {"updated_at": "2026-10-03", "models": [{"name": "A", "slug": "model-a", "tps": 1}]}
    (root / speed.COPY_DIR / speed.COPY_FILE).write_text(json.dumps(data))
    result = fid.fidelity(tmp_path)
    assert result["index"]["spearman"] is None
    with pytest.raises(IngestError, match="undefined over 0 slugs"):
        fid.check(result)


# --- the real files (../shared/data) ---------------------------------------------------------


@pytest.fixture(scope="module")
def real(request):
    shared = request.getfixturevalue("shared_data")
    root = shared / "artificial-analysis"
    oct_drops, aug_drops = Drops(), Drops()
    october = speed.load(root / speed.COPY_DIR, oct_drops)
    august = speed.load_first_party(root / speed.FIRST_PARTY_DIR, aug_drops)
    return shared, october, oct_drops, august, aug_drops


@pytest.mark.shared
def test_real_rows_and_drops(real):
    _, october, oct_drops, august, aug_drops = real
    assert len(october) == 162 and len(august) == 318
    assert _reasons(oct_drops) == {speed.NOT_MEASURED: 527, protocols.COMPOSITE: 938}
    assert _reasons(aug_drops) == {speed.NOT_MEASURED: 298}
    merged = speed.merge(october, august)
    assert len(merged) == 380  # 162 October + 218 August-only measurements
    assert Counter(r["measured_on"] for r in merged) == {"2026-10-03": 162, "2026-08-22": 218}
    assert all(r["output_tokens_per_s"] > 0 for r in merged)
    assert all(r["ttft_s"] is None or r["ttft_s"] > 0 for r in merged)
    opus = _by_slug(october)["claude-opus-5-5"]
    assert (opus["output_tokens_per_s"], opus["ttft_s"]) == (97.574, 588.957)
    assert opus["source_url"] == "https://artificialanalysis.ai/models/claude-opus-5-5"


@pytest.mark.shared
def test_real_new_models(real):
    shared = real[0]
    root = shared / "artificial-analysis"
    new = speed.new_models(root / speed.COPY_DIR, root / speed.FIRST_PARTY_DIR)
    assert len(new) == 75 and "claude-opus-5-5" in new


@pytest.mark.shared
def test_real_fidelity(real):
    result = fid.fidelity(real[0])
    assert (result["october_models"], result["august_models"], result["shared"]) == (689, 616, 614)
    sp, tt, ix = result["speed"], result["ttft"], result["index"]
    assert sp["n"] == 100 and sp["median_ratio"] == pytest.approx(0.9993, abs=1e-4)
    assert sp["within_25pct_share"] == 0.68
    assert sp["largest"][0] == {
        "slug": "qwen3-5-4b",
        "october": 16.011,
        "august": 52.347,
        "ratio": 0.306,
    }
    assert tt["n"] == 100 and tt["median_ratio"] == pytest.approx(0.6115, abs=1e-4)
    assert tt["within_25pct_share"] == 0.27
    assert ix["n"] == 601 and ix["spearman"] == pytest.approx(0.9923, abs=1e-4)
    assert ix["slope"] == pytest.approx(0.6237, abs=1e-4)
    assert ix["intercept"] == pytest.approx(1.713, abs=1e-3)
    assert ix["mean_abs_diff"] == pytest.approx(6.92, abs=0.01)
    assert result["names"]["match_share"] == pytest.approx(484 / 614)
    fid.check(result)
