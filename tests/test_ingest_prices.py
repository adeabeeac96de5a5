"""API price importers from two third-party copies (model-prices 0.0.5, genai-prices 0.2.5):
hand-made fixtures for each rule and drop reason, the IngestError lines, the fidelity comparison,
and (with ../shared) plausible counts plus the fidelity figures reported for the real files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from analytics.llm.ingest import genai_prices, model_prices, price_fidelity
from analytics.llm.ingest.common import Drops, IngestError, ModelObs

FIX = Path(__file__).parent / "fixtures" / "ingest"
MP_FIX = FIX / "model_prices"
GP_FIX = FIX / "genai_prices"


def _load(module, folder: Path) -> tuple[dict[str, ModelObs], Drops]:
    drops = Drops()
    models = module.load(folder, drops)
    names = [m.name for m in models]
    assert len(names) == len(set(names)), "one observation per model name"
    return {m.name: m for m in models}, drops


def _reasons(drops: Drops, source: str) -> dict[str, int]:
    return {reason: n for (src, reason), n in drops.counts.items() if src == source}


# --- model-prices ------------------------------------------------------------------------------


def test_model_prices_keeps_maker_rows_with_current_base_price():
    models, _ = _load(model_prices, MP_FIX)
    assert set(models) == {
        "gpt-5",
        "text-embedding-3-small",
        "claude-opus-4-1-20250805",
        "claude-sonnet-4-5",
        "gemini-2.5-pro",
        "amazon.nova-pro-v1:0",
        "laguna-m.1",
    }
    opus = models["claude-opus-4-1-20250805"]
    assert (opus.usd_per_mtok_input, opus.usd_per_mtok_output) == (15.0, 75.0)  # not batch
    assert opus.organisation == "Anthropic" and opus.source == "model-prices"
    assert opus.price_date == "2025-08-05"  # null start: the first record's valid_from
    gemini = models["gemini-2.5-pro"]
    assert (gemini.usd_per_mtok_input, gemini.usd_per_mtok_output) == (1.25, 10.0)  # <=200k tier
    assert models["laguna-m.1"].organisation == "Poolside"  # own "poolside/" prefix removed


def test_model_prices_price_change_later_one_applies_from_its_first_day():
    models, _ = _load(model_prices, MP_FIX)
    sonnet = models["claude-sonnet-4-5"]
    # 3/15, then 2/10 from 2026-05-01 (re-recorded 2026-06-02), 1/5 only from 2026-12-01
    assert (sonnet.usd_per_mtok_input, sonnet.usd_per_mtok_output) == (2.0, 10.0)
    assert sonnet.price_date == "2026-05-01"
    assert sonnet.price_source_url == "https://platform.claude.com/docs/en/about-claude/pricing"


def test_model_prices_counts_every_drop():
    models, drops = _load(model_prices, MP_FIX)
    assert models["text-embedding-3-small"].usd_per_mtok_output is None
    assert _reasons(drops, "model-prices") == {
        model_prices.RESELLER: 2,
        model_prices.RESOLD: 1,
        model_prices.FINE_TUNE: 1,
        model_prices.FREE: 1,
        model_prices.REPEAT: 1,
        model_prices.WITHDRAWN: 1,
        model_prices.NO_TIER: 1,
        model_prices.NO_URL: 1,
        model_prices.ZERO_PRICE: 1,
    }


def _broken_copy(tmp_path: Path, src: Path, name: str, edit) -> Path:
    folder = tmp_path / src.name
    shutil.copytree(src, folder)
    data = json.loads((folder / name).read_text(encoding="utf-8"))
    edit(data)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_model_prices_non_numeric_price_is_a_one_line_error_naming_the_file(tmp_path):
    def edit(data):
        data["prices"]["openai"]["gpt-5"]["standard"][0]["rates"]["input"] = "1.25 USD"

    folder = _broken_copy(tmp_path, MP_FIX, "snapshot.json", edit)
    with pytest.raises(IngestError) as err:
        model_prices.load(folder, Drops())
    message = str(err.value)
    assert "\n" not in message and str(folder / "snapshot.json") in message
    assert "prices.openai.gpt-5.standard[0].input" in message


def test_model_prices_unreadable_file_is_an_error(tmp_path):
    (tmp_path / "snapshot.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IngestError, match="snapshot.json"):
        model_prices.load(tmp_path, Drops())


# --- genai-prices ------------------------------------------------------------------------------


def test_genai_prices_keeps_maker_models_with_base_tier_and_provider_url():
    models, _ = _load(genai_prices, GP_FIX)
    assert set(models) == {
        "gpt-5",
        "text-embedding-3-small",
        "claude-opus-4-6",
        "claude-haiku-5-5",
        "gemini-2.5-pro",
        "deepseek-v4-pro",
        "GLM-5.2",
        "amazon.nova-2-lite-v1:0",
        "sonar",
    }
    haiku = models["claude-haiku-5-5"]
    assert (haiku.usd_per_mtok_input, haiku.usd_per_mtok_output) == (0.1, 0.5)  # base tier
    assert haiku.price_date is None  # an unconstrained price carries no date
    assert haiku.price_source_url == "https://www.anthropic.com/pricing#api"
    gemini = models["gemini-2.5-pro"]
    assert gemini.price_source_url == "https://ai.google.dev/gemini-api/docs/pricing"
    assert models["GLM-5.2"].usd_per_mtok_input == 1.4  # zai before zhipuai
    assert models["amazon.nova-2-lite-v1:0"].usd_per_mtok_input == 0.3  # the first profile
    assert models["text-embedding-3-small"].usd_per_mtok_output is None


def test_genai_prices_price_in_force_on_as_of_day():
    models, _ = _load(genai_prices, GP_FIX)
    opus = models["claude-opus-4-6"]  # tiered 5/25, 4/20 from 2026-03-13, 3/15 from 2026-11-30
    assert (opus.usd_per_mtok_input, opus.usd_per_mtok_output) == (4.0, 20.0)
    assert opus.price_date == "2026-03-13"
    seek = models["deepseek-v4-pro"]  # the daily peak window is skipped
    assert (seek.usd_per_mtok_input, seek.usd_per_mtok_output, seek.price_date) == (
        0.66,
        1.98,
        "2026-08-17",
    )


def test_genai_prices_counts_every_drop():
    _, drops = _load(genai_prices, GP_FIX)
    assert _reasons(drops, "genai-prices") == {
        genai_prices.RESELLER: 2,
        genai_prices.RESOLD: 3,
        genai_prices.REPEAT: 2,
        genai_prices.TIME_OF_DAY: 1,
        genai_prices.FINE_TUNE: 1,
        genai_prices.FREE: 1,
        genai_prices.NO_TOKEN_PRICE: 1,
        genai_prices.NO_URL: 1,
    }


def test_genai_prices_non_numeric_price_is_a_one_line_error_naming_the_file(tmp_path):
    def edit(data):
        data[0]["models"][1]["prices"]["output_mtok"]["base"] = "n/a"

    folder = _broken_copy(tmp_path, GP_FIX, "providers.json", edit)
    with pytest.raises(IngestError) as err:
        genai_prices.load(folder, Drops())
    message = str(err.value)
    assert "\n" not in message and str(folder / "providers.json") in message
    assert "anthropic.models[1].prices.output_mtok.base" in message


def test_genai_prices_wrong_shape_is_an_error(tmp_path):
    (tmp_path / "providers.json").write_text('{"providers": []}', encoding="utf-8")
    with pytest.raises(IngestError, match="list of Provider"):
        genai_prices.load(tmp_path, Drops())


# --- fidelity ----------------------------------------------------------------------------------


def _obs(name: str, usd_in: float, usd_out: float, day: str | None = None) -> ModelObs:
    return ModelObs(
        name=name,
        source="x",
        usd_per_mtok_input=usd_in,
        usd_per_mtok_output=usd_out,
        price_date=day,
    )


def test_compare_matches_lowercased_keys_without_prefix_and_uses_one_percent():
    copy = [
        _obs("GPT-5", 1.25, 10.0),
        _obs("anthropic/claude-x", 3.0, 15.1),  # within 1 %
        _obs("model-b", 1.0, 2.0, "2026-10-20"),  # output differs by half
        _obs("only-here", 1.0, 1.0),
    ]
    reference = [_obs("gpt-5", 1.25, 10.0), _obs("claude-x", 3.0, 15.0), _obs("model-b", 1.0, 4.0)]
    result = price_fidelity.compare(copy, reference)
    assert (result["shared"], result["agree"], result["agree_share"]) == (3, 2, 0.6667)
    assert result["largest"][0] == {
        "model": "model-b",
        "copy_usd_per_mtok": (1.0, 2.0),
        "litellm_usd_per_mtok": (1.0, 4.0),
        "rel_diff": 0.5,
    }
    assert result["dated_after"] == 1


# --- the real files (need ../shared) -----------------------------------------------------------

DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@pytest.fixture(scope="module")
def real(shared_data):
    if not (shared_data / "model-prices").exists() or not (shared_data / "genai-prices").exists():
        pytest.skip("../shared/data has no model-prices / genai-prices copies")
    out = {}
    for module in (model_prices, genai_prices):
        drops = Drops()
        out[module.SOURCE] = (module.load(shared_data / module.FOLDER, drops), drops)
    return out


@pytest.mark.shared
@pytest.mark.parametrize("source", ["model-prices", "genai-prices"])
def test_real_copies_have_plausible_maker_prices(real, source):
    models, drops = real[source]
    priced = [m for m in models if m.usd_per_mtok_input and m.usd_per_mtok_output]
    assert len(priced) >= 100
    assert {"OpenAI", "Anthropic", "Google", "DeepSeek", "xAI"} <= {m.organisation for m in models}
    for m in models:
        assert m.price_source_url.startswith(("https://", "http://")), m
        assert m.price_date is None or (DAY.match(m.price_date) and m.price_date <= "2026-11-30")
        assert all(p is None or 0 < p < 1000 for p in (m.usd_per_mtok_input, m.usd_per_mtok_output))
    assert drops.total > 0


@pytest.mark.shared
def test_real_counts_as_reported(real):
    mp_models, mp_drops = real["model-prices"]
    gp_models, gp_drops = real["genai-prices"]
    assert (len(mp_models), len(gp_models)) == (514, 364)
    assert all(m.price_date for m in mp_models)  # model-prices dates every price
    assert sum(m.price_date is not None for m in gp_models) == 20
    assert _reasons(mp_drops, "model-prices")[model_prices.RESOLD] == 21
    assert _reasons(gp_drops, "genai-prices")[genai_prices.RESELLER] == 1784
    by_name = {m.name: m for m in mp_models}
    gpt5 = by_name["gpt-5"]
    assert (gpt5.usd_per_mtok_input, gpt5.usd_per_mtok_output, gpt5.price_date) == (
        1.25,
        10.0,
        "2025-08-07",
    )


@pytest.mark.shared
def test_real_fidelity_figures_as_reported(shared_data, real):
    result = price_fidelity.fidelity(shared_data)
    mp, gp = result["model-prices"], result["genai-prices"]
    assert (mp["shared"], mp["agree"], mp["agree_share"]) == (222, 196, 0.8829)
    assert (gp["shared"], gp["agree"], gp["agree_share"]) == (152, 142, 0.9342)
    assert mp["largest"][0]["model"] == gp["largest"][0]["model"] == "grok-code-fast-1"
    text = price_fidelity.describe(result)
    assert "222" in text and "88%" in text and "93%" in text and "\n" not in text
