"""Release dates from two third-party copies: models.dev maker rows (``models_dev``, stated days)
and LiteLLM first-seen days (``litellm_first_seen``, a proxy) from the llmledger snapshot; every
drop reason on hand-made fixtures, the one-line IngestErrors, the fidelity check against a tiny
catalog, and (with ../shared) counts and figures of the real copies."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from analytics.llm.ingest import date_fidelity, litellm_first_seen, models_dev
from analytics.llm.ingest.common import Drops, IngestError

FIX = Path(__file__).parent / "fixtures" / "ingest"
MD_FIX = FIX / "models_dev"
FS_FIX = FIX / "litellm_first_seen" / "snapshot.json.gz"


def _reasons(drops: Drops, source: str) -> dict[str, int]:
    assert {src for src, _ in drops.counts} <= {source}
    return {reason: n for (_, reason), n in drops.counts.items()}


def _by_name(models):
    names = [m.name for m in models]
    assert len(names) == len(set(names)), "one observation per model name"
    return {m.name: m for m in models}


# --- models.dev --------------------------------------------------------------------------------


def test_models_dev_keeps_maker_rows_with_full_days():
    drops = Drops()
    models = models_dev.load(MD_FIX, drops)
    assert [m.name for m in models] == [
        "claude-opus-5",
        "mistral-large-2411",
        "gemini-3.8-flash",
        "gemini-2.5-flash-tts",
    ]
    got = _by_name(models)
    claude = got["claude-opus-5"]
    assert (claude.source, claude.organisation, claude.release_date) == (
        "models-dev",
        "Anthropic",
        "2026-07-24",
    )
    assert claude.release_date_basis is None
    assert (claude.context_length, claude.open_weights) == (1000000, False)
    assert claude.metadata_source_url == (
        "https://github.com/anomalyco/models.dev/blob/dev/providers/anthropic/models/"
        "claude-opus-5.toml"
    )
    assert got["mistral-large-2411"].open_weights is True
    # the Gemini API row wins over Vertex AI's, whatever the file order
    assert got["gemini-3.8-flash"].release_date == "2026-09-02"
    assert "/google/models/" in got["gemini-3.8-flash"].metadata_source_url
    # a Vertex-only Google model is kept; a context window of 0 is unknown
    tts = got["gemini-2.5-flash-tts"]
    assert (tts.organisation, tts.context_length) == ("Google", None)


def test_models_dev_every_drop_is_counted_once():
    drops = Drops()
    models = models_dev.load(MD_FIX, drops)
    assert _reasons(drops, "models-dev") == {
        models_dev.RESELLER: 2,
        models_dev.RESOLD: 1,
        models_dev.MONTH_ONLY: 1,
        models_dev.NEW_YEAR: 1,
        models_dev.SECOND_CHANNEL: 1,
        models_dev.too_new("2026-09-16"): 1,
        models_dev.TOO_OLD: 1,
        models_dev.NO_DATE: 1,
        models_dev.PLAN: 1,
    }
    assert models_dev.RESELLER == "reseller row (release dates from the maker's rows only)"
    assert len(models) + drops.total == 14


def _registry(tmp_path: Path, models: object, updated_at: object = "2026-09-16") -> Path:
    doc = {"schema_version": 1, "updated_at": updated_at, "models": models}
    (tmp_path / models_dev.FILENAME).write_text(json.dumps(doc))
    return tmp_path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "expected an object with a 'models' object"),
    ],
)
def test_models_dev_bad_file_is_one_line_naming_it(tmp_path, content, message):
    (tmp_path / models_dev.FILENAME).write_text(content)
    with pytest.raises(IngestError, match=message) as info:
        models_dev.load(tmp_path, Drops())
    assert str(tmp_path / models_dev.FILENAME) in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("models", "updated_at", "message"),
    [
        ({"openai/gpt-9": {"provider": "openai", "release_date": "soon"}}, "2026-09-16", "soon"),
        (
            {"openai/gpt-9": {"provider": "openai", "release_date": "2026-02-30"}},
            "2026-09-16",
            "2026-02-30",
        ),
        ({"openai/gpt-9": {"provider": "azure"}}, "2026-09-16", "provider prefixes its key"),
        ({"openai/gpt-9": ["not", "a", "row"]}, "2026-09-16", "provider prefixes its key"),
        ({}, "September", "updated_at"),
    ],
)
def test_models_dev_bad_row_names_the_file_and_key(tmp_path, models, updated_at, message):
    folder = _registry(tmp_path, models, updated_at)
    with pytest.raises(IngestError, match=message) as info:
        models_dev.load(folder, Drops())
    text = str(info.value)
    assert text.startswith(str(folder / models_dev.FILENAME)) and "\n" not in text
    if models:
        assert "'openai/gpt-9'" in text


def test_models_dev_maker_table_is_explicit():
    providers = [p for p, _, _ in models_dev.MAKERS]
    assert len(providers) == len(set(providers))
    for maker in ("anthropic", "openai", "google", "mistral", "deepseek", "xai", "alibaba"):
        assert maker in providers
    for host in ("openrouter", "amazon-bedrock", "azure", "togetherai", "fireworks-ai", "nvidia"):
        assert host not in providers
    assert not models_dev.PLANS & set(providers)


# --- LiteLLM first seen -------------------------------------------------------------------------


def test_first_seen_keeps_first_party_keys_with_the_proxy_basis():
    drops = Drops()
    models = litellm_first_seen.load(FS_FIX, drops)
    assert [m.name for m in models] == ["gpt-3.5-turbo-instruct", "claude-opus-5", "gemini-4-argon"]
    got = _by_name(models)
    assert {m.source for m in models} == {"litellm-first-seen"}
    assert {m.release_date_basis for m in models} == {"first seen in LiteLLM"}
    assert got["gpt-3.5-turbo-instruct"].release_date == "2023-09-18"
    assert got["claude-opus-5"].organisation == "Anthropic"
    # two Google keys: the earliest first-seen day and its commit
    argon = got["gemini-4-argon"]
    assert (argon.organisation, argon.release_date) == ("Google", "2026-10-13")
    assert argon.metadata_source_url == "https://github.com/BerriAI/litellm/commit/deadbeef0001"


def test_first_seen_every_drop_is_counted_once():
    drops = Drops()
    models = litellm_first_seen.load(FS_FIX, drops)
    assert _reasons(drops, "litellm-first-seen") == {
        # the key in place when the history starts, and one added on that first day
        litellm_first_seen.history_start_reason("2023-09-06"): 2,
        litellm_first_seen.RESELLER: 2,
        litellm_first_seen.SECOND_KEY: 1,
        litellm_first_seen.FINE_TUNE: 1,
        litellm_first_seen.mode_reason("image_generation"): 1,
        litellm_first_seen.RESOLD: 1,
        litellm_first_seen.NO_MODE: 1,
        litellm_first_seen.NO_DAY: 1,
    }
    assert len(models) + drops.total == 13


def _snapshot(tmp_path: Path, doc: object, raw: bytes | None = None) -> Path:
    path = tmp_path / "snapshot.json.gz"
    path.write_bytes(gzip.compress(raw if raw is not None else json.dumps(doc).encode()))
    return path


def _entry(**fields) -> dict:
    return {"key": "gpt-9", "host": "openai", "mode": "chat", "added": "2026-01-02", **fields}


def test_first_seen_without_events_takes_the_earliest_added_as_the_first_day(tmp_path):
    doc = {"models": [_entry(key="gpt-8", added="2024-01-01"), _entry(added="2026-01-02")]}
    drops = Drops()
    models = litellm_first_seen.load(_snapshot(tmp_path, doc), drops)
    assert [(m.name, m.release_date, m.metadata_source_url) for m in models] == [
        ("gpt-9", "2026-01-02", None)
    ]
    assert _reasons(drops, "litellm-first-seen") == {
        litellm_first_seen.history_start_reason("2024-01-01"): 1
    }


@pytest.mark.parametrize(
    ("doc", "raw", "message"),
    [
        (None, b"{broken", "not valid JSON"),
        ({"ratings": {}}, None, "expected an object with a 'models' list"),
        ({"models": [], "events": []}, None, "'events' must be an object"),
        ({"models": ["gpt-9"]}, None, "not an object with a key"),
        ({"models": [_entry(added="2026-1-2")]}, None, "'gpt-9' has added='2026-1-2'"),
    ],
)
def test_first_seen_bad_file_is_one_line_naming_it(tmp_path, doc, raw, message):
    path = _snapshot(tmp_path, doc, raw)
    with pytest.raises(IngestError, match=message) as info:
        litellm_first_seen.load(path, Drops())
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_first_seen_not_gzip_names_the_file(tmp_path):
    path = tmp_path / "snapshot.json.gz"
    path.write_text('{"models": []}')
    with pytest.raises(IngestError, match="not a gzip file") as info:
        litellm_first_seen.load(path, Drops())
    assert str(path) in str(info.value)


# --- fidelity on the fixtures -------------------------------------------------------------------

CATALOG = """model_id,display_name,release_date,aliases
claude-opus-5,Claude Opus 5,2026-07-24,anthropic/claude-opus-5;Claude Opus 5
mistral-large-2411,Mistral Large 2411,2024-11-18,
gemini-3.8-flash,Gemini 3.8 Flash,2026-08-30,gemini-3-8-flash
gemini-4-argon,Gemini 4 Argon,2026-10-09,
gpt-3.5-turbo-instruct-0914,GPT-3.5 Turbo Instruct,2023-09-19,GPT-3.5-Turbo-Instruct
gemini-2.5-flash-tts,Gemini 2.5 Flash TTS,,
"""


@pytest.fixture
def tiny_shared(tmp_path) -> tuple[Path, Path]:
    shared = tmp_path / "shared"
    md = shared / date_fidelity.MODELS_DEV_DIR
    md.mkdir(parents=True)
    shutil.copy(MD_FIX / models_dev.FILENAME, md)
    (shared / date_fidelity.LEDGER_FILE).parent.mkdir(parents=True)
    shutil.copy(FS_FIX, shared / date_fidelity.LEDGER_FILE)
    catalog = tmp_path / "models.csv"
    catalog.write_text(CATALOG)
    return shared, catalog


def test_fidelity_on_fixtures(tiny_shared):
    result = date_fidelity.fidelity(*tiny_shared)
    assert result["catalog_dated"] == 5
    md, fs = result["models_dev"], result["litellm_first_seen"]
    assert (md["kept"], md["shared"], md["ambiguous"]) == (4, 3, 0)
    assert (md["share_equal"], md["share_within_7d"], md["median_days"]) == (0.667, 1.0, 0)
    assert [(r["name"], r["days"]) for r in md["largest"]][0] == ("gemini-3.8-flash", 3)
    # the lowercased alias matches; one first-seen day precedes the catalog's release
    assert (fs["kept"], fs["shared"], fs["median_lag_days"]) == (3, 3, 0)
    assert (fs["share_before_release"], fs["share_same_day"], fs["share_within_7d"]) == (
        0.333,
        0.333,
        0.667,
    )
    text = date_fidelity.describe(result)
    assert "66.7%" in text and "33.3%" in text and "\n" not in text


def test_fidelity_leaves_out_names_reaching_two_release_dates(tiny_shared):
    shared, catalog = tiny_shared
    catalog.write_text(
        CATALOG + "claude-opus-5-preview,Claude Opus 5 preview,2026-06-01,claude-opus-5\n"
    )
    md = date_fidelity.fidelity(shared, catalog)["models_dev"]
    assert (md["shared"], md["ambiguous"]) == (2, 1)


# --- the real copies (need ../shared) -----------------------------------------------------------


@pytest.fixture(scope="module")
def real_models_dev(shared_data):
    drops = Drops()
    return models_dev.load(shared_data / date_fidelity.MODELS_DEV_DIR, drops), drops


@pytest.fixture(scope="module")
def real_first_seen(shared_data):
    drops = Drops()
    return litellm_first_seen.load(shared_data / date_fidelity.LEDGER_FILE, drops), drops


@pytest.mark.shared
def test_real_models_dev_counts_and_dates(real_models_dev):
    models, drops = real_models_dev
    assert len(models) == 218
    assert _reasons(drops, "models-dev") == {
        models_dev.RESELLER: 1976,
        models_dev.RESOLD: 59,
        models_dev.MONTH_ONLY: 31,
        models_dev.PLAN: 23,
        models_dev.NEW_YEAR: 5,
    }
    assert len(models) + drops.total == 2312
    days = sorted(m.release_date for m in models)
    assert days[-1] >= "2026-09-01" and days[-1] <= "2026-09-16"
    assert days[0] >= "2015-01-01"
    got = _by_name(models)
    assert got["claude-opus-5"].release_date == "2026-07-24"
    assert got["gpt-4o-2024-08-06"].release_date == "2024-08-06"
    assert not [m.name for m in models if "/" in m.name]


@pytest.mark.shared
def test_real_first_seen_counts_and_dates(real_first_seen):
    models, drops = real_first_seen
    assert len(models) == 430
    reasons = _reasons(drops, "litellm-first-seen")
    assert reasons[litellm_first_seen.history_start_reason("2023-09-06")] == 5
    assert reasons[litellm_first_seen.RESELLER] == 2534
    assert reasons[litellm_first_seen.SECOND_KEY] == 120
    assert len(models) + drops.total == 4243
    assert any(m.release_date >= "2026-10-01" for m in models)
    assert max(m.release_date for m in models) <= "2026-10-21"
    assert _by_name(models)["gpt-3.5-turbo-instruct"].release_date == "2023-09-18"
    assert all(m.metadata_source_url for m in models)
    assert not [m.name for m in models if "/" in m.name or m.name.startswith("ft:")]


@pytest.mark.shared
def test_real_fidelity_figures(shared_data):
    # bounds, not exact figures: the catalog is rebuilt and its dates move
    result = date_fidelity.fidelity(shared_data)
    md, fs = result["models_dev"], result["litellm_first_seen"]
    assert md["shared"] >= 50 and 0.55 <= md["share_equal"] <= 0.85
    assert 0.7 <= md["share_within_7d"] <= 0.95
    assert fs["shared"] >= 100 and 0 <= fs["median_lag_days"] <= 10
    assert fs["share_before_release"] <= 0.05
    assert md["kept"] == 218 and fs["kept"] == 430
