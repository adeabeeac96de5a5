"""Artificial Analysis importer: newest-non-null selection across snapshots, unit conversion,
the GDPval-AA v1/v2 split, every drop reason, IngestError lines, and (with ../shared) the real
five snapshots with exact counts and hand-checked values."""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from analytics.llm.ingest import artificial_analysis as aa
from analytics.llm.ingest import protocols
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest" / "artificial_analysis"
SRC = aa.SOURCE


def _load(root: Path = FIX) -> tuple[dict, dict, Drops]:
    drops = Drops()
    models, scores = aa.load(root, drops)
    by_model = {m.name: m for m in models}
    by_score = {(s.model_name, s.benchmark_id): s for s in scores}
    assert len(by_score) == len(scores), "one score per model and benchmark"
    return by_model, by_score, drops


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (src, reason), n in drops.counts.items() if src == SRC}


# --- fixtures --------------------------------------------------------------------------------


def test_models_keyed_by_uuid_with_newest_name_and_metadata():
    models, _, _ = _load()
    assert set(models) == {"Model A v2 (high)", "Vanished B", "Gemini X Deep Think", "Model D"}
    a = models["Model A v2 (high)"]
    assert a.display_name == "Model A v2 (high)" and a.source == SRC and a.variant is None
    assert a.organisation == "Lab A" and a.release_date == "2026-05-20"
    assert (a.total_params_b, a.active_params_b, a.is_moe) == (10.0, 10.0, None)
    assert a.context_length == 256000 and a.open_weights is True and a.licence_raw == "MIT"
    assert a.hf_id == "org-a/Model-A"  # newest non-null: the 07-01 link is null
    assert a.metadata_source_url == "https://artificialanalysis.ai/models/model-a-0701"
    b = models["Vanished B"]
    assert b.hf_id is None and b.open_weights is False and b.licence_raw is None
    d = models["Model D"]
    assert d.release_date is None  # "TBA" is not a date
    assert (d.total_params_b, d.active_params_b, d.hf_id) == (30.0, 3.0, "lab-d/Model-D")


def test_prices_zero_is_unknown_and_falls_back_to_an_older_list_price():
    models, _, drops = _load()
    a = models["Model A v2 (high)"]
    assert (a.usd_per_mtok_input, a.usd_per_mtok_output) == (1.0, 2.0)
    assert a.price_date == "2026-06-01"
    assert a.price_source_url == "https://artificialanalysis.ai/models/model-a"
    b = models["Vanished B"]
    assert b.usd_per_mtok_input is None and b.price_date is None and b.price_source_url is None
    d = models["Model D"]
    assert (d.usd_per_mtok_input, d.usd_per_mtok_output, d.price_date) == (0.2, 0.8, "2026-07-01")
    reasons = _reasons(drops)
    assert reasons[aa.PRICE_ZERO_OLDER] == 1 and reasons[aa.PRICE_ZERO] == 1


def test_scores_take_the_newest_non_null_value_converted_to_percent():
    _, scores, _ = _load()
    assert set(scores) == {
        ("Model A v2 (high)", "gpqa"),
        ("Model A v2 (high)", "hle"),
        ("Model A v2 (high)", "critpt"),
        ("Model A v2 (high)", "gdpval-aa-v1"),
        ("Model A v2 (high)", "gdpval-aa-v2"),
        ("Model A v2 (high)", "aa-omniscience"),
        ("Model A v2 (high)", "aa-omniscience-accuracy"),
        ("Vanished B", "gpqa"),
        ("Model D", "aa-lcr"),
    }
    gpqa = scores[("Model A v2 (high)", "gpqa")]
    assert gpqa.score == pytest.approx(60.0) and gpqa.date == "2026-07-01"
    assert gpqa.source_url == "https://artificialanalysis.ai/models/model-a-0701"
    assert (gpqa.source_kind, gpqa.source_name, gpqa.origin) == (
        "independent",
        "Artificial Analysis",
        SRC,
    )
    hle = scores[("Model A v2 (high)", "hle")]  # null on 07-01: the 06-01 value stands
    assert hle.score == pytest.approx(10.0) and hle.date == "2026-06-01"
    assert hle.source_url == "https://artificialanalysis.ai/models/model-a"
    vanished = scores[("Vanished B", "gpqa")]  # absent on 07-01, deprecated: kept
    assert vanished.score == pytest.approx(40.0) and vanished.date == "2026-06-01"
    omni = scores[("Model A v2 (high)", "aa-omniscience")]
    assert omni.score == pytest.approx(-20.5)  # -100..100 scale, not scaled
    assert scores[("Model A v2 (high)", "aa-omniscience-accuracy")].score == pytest.approx(30.0)
    assert scores[("Model A v2 (high)", "critpt")].score == 0.0  # a run (token counts) scoring 0
    assert scores[("Model D", "aa-lcr")].score == 0.0  # no token counts at all: kept as published
    table = all_benchmarks()
    for score in scores.values():
        assert table[score.benchmark_id].in_bounds(score.score)


def test_gdpval_versions_are_never_mixed():
    _, scores, _ = _load()
    v1 = scores[("Model A v2 (high)", "gdpval-aa-v1")]
    v2 = scores[("Model A v2 (high)", "gdpval-aa-v2")]
    assert (v1.score, v1.date) == (pytest.approx(30.0), "2026-06-01")
    assert (v2.score, v2.date) == (pytest.approx(25.0), "2026-07-01")
    assert aa.GDPVAL_V2_FROM == "2026-07-01"


def test_every_drop_reason_is_counted_once_per_model_and_value():
    _, _, drops = _load()
    assert _reasons(drops) == {
        protocols.COMPOSITE: 4,  # A: intelligence (07-01) and coding (06-01); D, Deep Think: 07-01
        protocols.ESTIMATED: 2,  # B: estimated intelligence index; A: scicode_is_estimated
        protocols.PARALLEL: 1,  # Deep Think's CritPt
        aa.ZERO_NOT_RUN: 1,  # A: aa_lcr 0 without 'lcr' token counts
        "score outside [0, 100] of aa-tau2-bench-telecom": 1,  # 1.2 -> 120 %
        aa.NOT_IMPORTED["aa_omniscience_non_hallucination"]: 1,
        "evaluation 'new_eval' not mapped to a benchmark": 1,
        aa.PRICE_ZERO_OLDER: 1,
        aa.PRICE_ZERO: 1,
    }


def test_benchmark_table_rows():
    table = all_benchmarks()
    for spec in aa.EVALUATIONS:
        assert spec.benchmark_id in table
    assert (table["aa-omniscience"].lower_bound, table["aa-omniscience"].upper_bound) == (-100, 100)
    for bench_id in ("gpqa", "hle", "mmmu-pro"):  # shared ids, not redefined
        assert table[bench_id].unit == "%"


# --- duplicate ids and shared names ----------------------------------------------------------


def _model(uuid: str, name: str, **evaluations) -> dict:
    return {
        "id": uuid,
        "name": name,
        "slug": name.lower().replace(" ", "-"),
        "evaluations": evaluations,
    }


def _write(root: Path, day: str, models: list) -> None:
    (root / day).mkdir(parents=True, exist_ok=True)
    (root / day / "llms.json").write_text(json.dumps({"meta": {}, "models": models}))


def test_duplicate_ids_and_reused_names(tmp_path):
    _write(tmp_path, "2026-01-01", [_model("u1", "Same", gpqa=0.1), _model("u2", "Other")])
    _write(
        tmp_path,
        "2026-02-01",
        [_model("u3", "Same", gpqa=0.3), _model("u2", "Other"), _model("u2", "Other")],
    )
    (tmp_path / "notes").mkdir()  # not a day folder: ignored
    (tmp_path / "notes" / "llms.json").write_text("not json")
    models, scores, drops = _load(tmp_path)
    assert set(models) == {"Same", "Other"}
    assert scores[("Same", "gpqa")].score == pytest.approx(30.0)  # u3, the one listed last
    assert _reasons(drops) == {aa.DUPLICATE_ID: 1, aa.NAME_SHARED: 1}


# --- bad input ---------------------------------------------------------------------------------


def _one_line_error(root: Path) -> str:
    with pytest.raises(IngestError) as err:
        aa.load(root, Drops())
    message = str(err.value)
    assert len(message.splitlines()) == 1
    return message


def test_no_snapshots_is_an_error(tmp_path):
    assert "no <YYYY-MM-DD>/llms.json snapshots" in _one_line_error(tmp_path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps({"meta": {}, "models": {}}), "expected an object with a 'models' list"),
        (json.dumps({"models": [{"name": "x"}]}), "models[0]: 'id' missing"),
        (json.dumps({"models": [_model("u", "X", gpqa="0.5")]}), "evaluations.gpqa = '0.5'"),
        (
            json.dumps({"models": [_model("u", "X", critpt=None, critpt_is_estimated="yes")]}),
            "evaluations.critpt_is_estimated is not true/false",
        ),
        (
            json.dumps(
                {"models": [{**_model("u", "X"), "pricing": {"price_1m_input_tokens": -1}}]}
            ),
            "pricing.price_1m_input_tokens = -1",
        ),
        (
            json.dumps({"models": [{**_model("u", "X"), "capabilities": []}]}),
            "'capabilities' is not an object",
        ),
    ],
)
def test_bad_files_raise_one_line_naming_the_file(tmp_path, content, expected):
    (tmp_path / "2026-03-01").mkdir()
    (tmp_path / "2026-03-01" / "llms.json").write_text(content)
    message = _one_line_error(tmp_path)
    assert expected in message and "2026-03-01/llms.json" in message


def test_fixture_copy_with_a_bad_value_names_the_model(tmp_path):
    root = tmp_path / "aa"
    shutil.copytree(FIX, root)
    path = root / "2026-07-01" / "llms.json"
    data = json.loads(path.read_text())
    data["models"][0]["evaluations"]["gpqa"] = [0.6]
    path.write_text(json.dumps(data))
    message = _one_line_error(root)
    assert "aaaaaaaa-0000-0000-0000-000000000001 (Model A v2 (high))" in message


# --- the real snapshots ------------------------------------------------------------------------

REAL_SCORES = {
    "aa-apex-agents": 29,
    "aa-lcr": 445,
    "aa-omniscience": 487,
    "aa-omniscience-accuracy": 487,
    "aa-tau2-bench-telecom": 417,
    "aa-terminal-bench-hard": 429,
    "critpt": 488,
    "gdpval-aa-v1": 356,
    "gdpval-aa-v2": 209,
    "gpqa": 584,
    "hle": 577,
    "ifbench": 450,
    "mmmu-pro": 243,
    "scicode-subproblem": 575,
}
REAL_DROPS = {
    protocols.COMPOSITE: 1109,
    aa.NOT_IMPORTED["aa_omniscience_non_hallucination"]: 487,
    protocols.ESTIMATED: 434,
    aa.ZERO_NOT_RUN: 91,
    aa.PRICE_ZERO: 26,
    aa.PRICE_ZERO_OLDER: 4,
    protocols.PARALLEL: 2,
}


@pytest.fixture(scope="module")
def real(request):
    shared = request.getfixturevalue("shared_data")
    start = time.process_time()
    result = _load(shared / "artificial-analysis")
    return (*result, time.process_time() - start)


def test_real_counts(real):
    models, scores, drops, seconds = real
    assert len(models) == 616  # distinct uuids over the five days
    assert Counter(bench for _, bench in scores) == REAL_SCORES
    assert _reasons(drops) == REAL_DROPS
    assert max(m.release_date for m in models.values() if m.release_date) == "2026-08-20"
    assert seconds < 3.0


def test_real_golden_values(real):
    models, scores, _, _ = real
    gpt5 = scores[("GPT-5 (high)", "gpqa")]  # 0.853535353535353 in 2026-08-22
    assert gpt5.score == pytest.approx(85.3535353535)
    assert (
        gpt5.date == "2026-08-22"
        and gpt5.source_url == "https://artificialanalysis.ai/models/gpt-5"
    )
    v1 = scores[("GPT-5 (high)", "gdpval-aa-v1")]  # 0.396866071497965 in 2026-06-01
    v2 = scores[("GPT-5 (high)", "gdpval-aa-v2")]  # 0.29143 in 2026-08-22
    assert (v1.score, v1.date) == (pytest.approx(39.6866071), "2026-06-01")
    assert (v2.score, v2.date) == (pytest.approx(29.143), "2026-08-22")
    omni = scores[("GLM-4.5V (Non-reasoning)", "aa-omniscience")]
    assert omni.score == pytest.approx(-55.5833333)
    assert not any(name == "Gemini 3 Deep Think" for name, _ in scores)
    gemma = models["Gemma 3 27B Instruct"]  # 0 on 2026-08-22, 0.1095 / 0.25 on 2026-07-01
    assert (gemma.usd_per_mtok_input, gemma.usd_per_mtok_output) == (0.1095, 0.25)
    assert gemma.price_date == "2026-07-01"
    glm = models["GLM-4.5V (Non-reasoning)"]
    assert (glm.organisation, glm.hf_id, glm.total_params_b, glm.active_params_b) == (
        "Z AI",
        "zai-org/GLM-4.5V",
        108.0,
        12.0,
    )
    assert (glm.context_length, glm.licence_raw, glm.open_weights) == (64000, "MIT", True)
    assert "gpt-oss-120b (high)" in models and "gpt-oss-120B (high)" not in models  # newest name
