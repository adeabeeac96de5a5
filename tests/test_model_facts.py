"""Model facts from evidence: open weights and the MoE flag are true, false or unknown (never a
name's guess, never false for want of evidence); layers, KV heads and experts come from the
makers' configs in llmfit 1.1.17's Hugging Face table; a placeholder day is never a release
date; the metadata audit re-checks each fact against its evidence."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from analytics.core import labels, paths
from analytics.core.snapshot import validate
from analytics.llm import charts, leaderboard
from analytics.llm.audit import metadata as am
from analytics.llm.ingest import llmfit, llmstats, metergraph, models_table, open_llm_leaderboard
from analytics.llm.ingest.common import Drops, ModelObs
from analytics.llm.ingest.dated import PLACEHOLDER_DAYS, refused_release_day
from analytics.llm.ingest.families import params_from_name

FIX = Path(__file__).parent / "fixtures" / "ingest"
HUB_TABLE = paths.SHARED_DATA_DIR / llmfit.CONFIGS_FILE


def _row(model_id: str, observations: list[ModelObs], aliases: str = "") -> dict:
    row = models_table.stated_row(model_id, observations, aliases, model_id, "default")
    return models_table.finish_row(row)


def _config(name: str, **fields: object) -> dict:
    return {"name": name, "parameters_raw": 7_241_000_000, "architecture": "llama",
            "num_hidden_layers": 32, "num_key_value_heads": 8, "head_dim": 128, **fields}


# --- open weights: evidence, never a name ------------------------------------------------------


def test_a_makers_repository_opens_the_weights_whatever_the_name_says():
    repo = ModelObs(name="acme/Acme-Max", source=llmfit.SOURCE, hf_id="acme/Acme-Max")
    row = _row("acme-max", [repo])  # a '-max' name was read as closed
    assert (row["open_weights"], row["weights_repo"]) == (True, "acme/Acme-Max")
    stated_closed = ModelObs(name="acme-max", source="artificial-analysis", open_weights=False)
    assert _row("acme-max", [stated_closed, repo])["open_weights"] is True  # the repo exists


def test_no_evidence_leaves_open_weights_and_moe_unknown_not_false():
    row = _row("claude-opus-9", [ModelObs(name="claude-opus-9", source="artificial-analysis")])
    assert row["open_weights"] is None and row["is_moe"] is None
    assert row["weights_repo"] is None
    closed = ModelObs(name="claude-opus-9", source="artificial-analysis", open_weights=False)
    assert _row("claude-opus-9", [closed])["open_weights"] is False  # a statement is kept


def test_a_re_upload_is_no_evidence_of_open_weights_and_yields_to_the_makers_config():
    reupload = ModelObs(name="someone/Acme-7B", source=llmfit.SOURCE, hf_id="someone/Acme-7B",
                        n_layers=30, n_kv_heads=4, head_dim=64)
    maker = ModelObs(name="acme/Acme-7B", source=llmfit.SOURCE, hf_id="acme/Acme-7B",
                     n_layers=32, n_kv_heads=8, head_dim=128)
    org = ModelObs(name="acme-7b", source="llmstats", organisation="acme")
    row = _row("acme-7b", [org, reupload])
    assert row["open_weights"] is None and row["n_layers"] == 30  # a fine-tuner's upload
    row = _row("acme-7b", [org, reupload, maker])
    assert (row["n_layers"], row["n_kv_heads"], row["weights_repo"]) == (32, 8, "acme/Acme-7B")


def test_llmstats_without_a_licence_or_weights_link_says_nothing_about_openness(tmp_path):
    path = tmp_path / "models" / "acme" / "acme-x" / "model.json"
    path.parent.mkdir(parents=True)
    data = {"name": "Acme X", "license": None, "weights_link": None}
    assert llmstats.model_obs(path, data).open_weights is None
    assert llmstats.model_obs(path, {**data, "license": "Proprietary"}).open_weights is False
    assert llmstats.model_obs(path, {**data, "license": "MIT"}).open_weights is True


# --- the Hub config table ----------------------------------------------------------------------


def test_experts_in_a_config_mark_a_mixture_and_dense_needs_a_read_config():
    entries = [
        _config("d/Deep-Coder-V2", architecture="deepseek_v2", num_experts=160,
                active_parameters=21_000_000_000, parameters_raw=236_000_000_000),
        _config("d/Deep-Coder-V2-Base", architecture="deepseek_v2"),  # experts left out
        _config("j/Jamba-3B", architecture="jamba_small", num_experts=1, is_moe=True),
        _config("m/Dense-7B"),
        _config("m/Unread-7B", num_hidden_layers=None),
    ]
    types = llmfit.expert_architectures(entries)
    moe = {e["name"]: llmfit.config_obs(e, types) for e in entries}
    assert moe["d/Deep-Coder-V2"].is_moe is True
    assert moe["d/Deep-Coder-V2"].active_params_b == pytest.approx(21.0)
    assert moe["d/Deep-Coder-V2-Base"].is_moe is None  # its type has experts elsewhere
    assert moe["j/Jamba-3B"].is_moe is False  # one expert is a dense network
    assert moe["m/Dense-7B"].is_moe is False
    assert moe["m/Unread-7B"].is_moe is None


def test_configs_give_shapes_but_no_context_release_day_or_packed_count():
    drops = Drops()
    found = {o.name: o for o in llmfit.load_configs(FIX / "llmfit_configs.json", drops)}
    maker = found["acme/Acme-7B-Instruct"]
    assert (maker.n_layers, maker.n_kv_heads, maker.head_dim) == (32, 8, 128)  # 4096 / 32
    assert maker.context_length is None and maker.release_date is None  # 4096 fallback, 2022-03-02
    assert maker.total_params_b == pytest.approx(7.241)
    gptq = found["someone/Acme-7B-Instruct-GPTQ"]
    assert gptq.total_params_b is None and gptq.n_layers == 32  # packed tensors
    assert drops.counts[("llmfit 1.1.17", "parameter count of a quantised upload (packed "
                         "tensors)")] == 1
    assert found["acme/Acme-MoE-8x1B"].is_moe is True
    assert found["acme/Acme-MoE-8x1B-Base"].is_moe is None


@pytest.mark.parametrize("name", ["Qwen/Qwen3-30B-A3B-FP8", "x/Llama-3-8B-GGUF",
                                  "ibm-granite/granite-4.2-30b-mxfp4", "x/Model-7B-4bit",
                                  "x/Model-7B-AWQ", "x/Mistral-7B-exl2-6.0bpw"])
def test_a_quantised_upload_is_recognised_by_its_name(name):
    assert llmfit.quantised({"name": name, "format": "gguf"})


def test_a_release_shares_its_shapes_only_when_every_maker_config_agrees():
    qwen = [("Qwen/Qwen3-30B-A3B-Instruct-2507", (48, 4, 128)),
            ("Qwen/Qwen3-30B-A3B-Thinking-2507", (48, 4, 128)),
            ("Qwen/Qwen3-8B", (36, 8, 128)), ("Qwen/Qwen3-8B-Base", (36, 8, 128)),
            ("Qwen/Qwen3-8B-Chat", (40, 8, 128)), ("Alibaba-NLP/Qwen3-30B-A3B-Fork", (1, 1, 1))]
    by_maker = {}
    for repo, shapes in qwen:
        maker = "alibaba" if repo.startswith("Qwen/") else "alibabanlp"
        by_maker.setdefault(maker, []).append((*llmfit.shape_words(repo), shapes, repo))
    rows = [{"model_id": m, "checkpoint_id": m, "organisation": "Alibaba", "n_layers": None,
             "n_kv_heads": None, "head_dim": None, "metadata_source_url": None}
            for m in ("qwen3-30b-a3b-2507", "qwen3-8b", "qwen3-30b-a3b-2504")]
    assert llmfit.fill_shapes(rows, by_maker) == 1
    assert (rows[0]["n_layers"], rows[0]["n_kv_heads"], rows[0]["head_dim"]) == (48, 4, 128)
    assert rows[0]["metadata_source_url"] == llmfit.CONFIGS_URL
    assert rows[1]["n_layers"] is None  # two shapes under one name: ambiguous
    assert rows[2]["n_layers"] is None  # another date is another release


# --- release days ------------------------------------------------------------------------------


def test_a_placeholder_day_is_no_release_whoever_states_it():
    hub_day = next(iter(PLACEHOLDER_DAYS))
    observations = [ModelObs(name="acme-7b", source="epoch-2026", release_date=hub_day),
                    ModelObs(name="acme-7b", source="models-dev", release_date="2023-05-04")]
    assert _row("acme-7b", observations)["release_date"] == "2023-05-04"
    assert _row("acme-7b", observations[:1])["release_date"] is None


def test_a_date_in_the_name_bounds_the_release():
    observations = [ModelObs(name="acme-large-2411", source="llmstats", release_date="2024-07-24"),
                    ModelObs(name="acme-large-2411", source="epoch", release_date="2024-11-18")]
    assert _row("acme-large-2411", observations)["release_date"] == "2024-11-18"
    assert refused_release_day("2024-10-31", "acme-large-2411")
    assert not refused_release_day("2024-11-01", "acme-large-2411")
    assert not refused_release_day("2024-01-01", "acme-large")


@pytest.mark.parametrize("slug", ["acme-large-2411", "acme-0528", "acme-v3-250528",
                                  "acme-2024-08-06", "acme-1210"])
def test_no_size_is_read_from_a_date_like_tag(slug):
    assert params_from_name(slug) == (None, None)


# --- display and filters -----------------------------------------------------------------------


def test_unknown_is_shown_as_unknown_and_filtered_as_neither():
    table = pd.DataFrame({"model_id": ["o", "c", "u"],
                          "open_weights": pd.array([True, False, None], dtype="boolean"),
                          "is_moe": pd.array([None, True, False], dtype="boolean")})
    shown = labels.shown_flags(table)
    assert shown["open_weights"].tolist() == ["yes", "no", "unknown"]
    assert shown["is_moe"].tolist() == ["unknown", "yes", "no"]
    assert charts._base(table.assign(display_name=None))["weights"].tolist() == [
        charts.OPEN, charts.CLOSED, charts.UNKNOWN]
    empty = pd.DataFrame()
    board = leaderboard.Leaderboard("v", table, pd.DataFrame({"is_headline": []}, dtype=bool),
                                    empty, empty, empty, ())

    def kept(value: object) -> list[str]:
        flt = leaderboard.LeaderboardFilter(open_weights=value)
        return leaderboard.filter_table(board, flt)["model_id"].tolist()

    assert (kept(True), kept(False), kept(leaderboard.WEIGHTS_UNKNOWN)) == (["o"], ["c"], ["u"])


def test_the_catalog_schema_keeps_unknown_flags_empty(tmp_path):
    from analytics.core import schema

    flags = {c.name: c for c in schema.TABLES["models"] if c.name in labels.TRI_STATE}
    assert flags and not any(c.required for c in flags.values())
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    for path in paths.CATALOG_DIR.glob("*.csv"):
        (catalog / path.name).write_bytes(path.read_bytes())
    models = list(csv.DictReader(open(catalog / "models.csv", encoding="utf-8")))
    models[0]["open_weights"], models[0]["is_moe"] = "", ""
    with open(catalog / "models.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(models[0]))
        writer.writeheader()
        writer.writerows(models)
    assert validate(catalog) == []
    models[0]["open_weights"] = "maybe"
    with open(catalog / "models.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(models[0]))
        writer.writeheader()
        writer.writerows(models)
    assert any("open_weights" in p for p in validate(catalog))


# --- the metadata audit's evidence checks ------------------------------------------------------


def _hub(*configs: tuple[str, int, int | None, int | None]) -> dict[str, am.HubConfig]:
    return {repo.lower(): am.HubConfig(repo, experts, layers, kv)
            for repo, experts, layers, kv in configs}


def _audit_models(rows: list[dict]) -> pd.DataFrame:
    columns = ["model_id", "checkpoint_id", "organisation", "release_date", "open_weights",
               "is_moe", "n_layers", "n_kv_heads", "weights_repo", "aliases"]
    return pd.DataFrame([{c: r.get(c, "") for c in columns} for r in rows]).astype(str)


def test_the_audit_names_the_evidence_a_flag_or_date_contradicts():
    models = _audit_models([
        {"model_id": "step-3", "organisation": "StepFun", "is_moe": "false",
         "open_weights": "false", "aliases": "stepfun-ai/step3", "release_date": "2022-03-02"},
        {"model_id": "acme-large-2411", "organisation": "Acme", "release_date": "2024-07-24"},
        {"model_id": "fine", "organisation": "Acme", "is_moe": "", "open_weights": "",
         "aliases": "stepfun-ai/step3", "release_date": "2024-01-01"},
    ])
    hub = _hub(("stepfun-ai/step3", 48, 61, 64))
    lines = [f.line() for f in am.evidence_findings(models, pd.DataFrame({"model_id": []}), hub)]
    assert lines == [
        "step-3: release date 2022-03-02 is not a release: placeholder day 2022-03-02: the day "
        "the Hugging Face Hub moved every repository to git, not a release  UNRESOLVED",
        "step-3: marked dense, but the config of stepfun-ai/step3 has 48 experts  UNRESOLVED",
        "step-3: marked closed, but its maker publishes https://huggingface.co/stepfun-ai/step3"
        "  UNRESOLVED",
        "acme-large-2411: release date 2024-07-24 is not a release: 2024-07-24 is before "
        "2024-11, the date the name writes  UNRESOLVED",
    ]  # unknown is never a contradiction ('fine')
    missing = am.evidence_findings(models.iloc[2:], pd.DataFrame({"model_id": []}), None)
    assert [f.subject for f in missing] == [llmfit.CONFIGS_FILE] and not missing[0].resolved


def test_the_audit_lists_busy_open_models_without_shapes_with_the_reason():
    models = _audit_models([
        {"model_id": "stated", "organisation": "Acme", "open_weights": "true",
         "weights_repo": "acme/Stated"},
        {"model_id": "silent", "organisation": "Acme", "open_weights": "true",
         "weights_repo": "acme/Silent"},
        {"model_id": "unlisted", "organisation": "Acme", "open_weights": "true"},
        {"model_id": "shaped", "organisation": "Acme", "open_weights": "true",
         "n_layers": "32", "n_kv_heads": "8"},
        {"model_id": "quiet", "organisation": "Acme", "open_weights": "true"},
    ])
    scores = pd.DataFrame({"model_id": ["stated", "silent", "unlisted", "shaped"] * 5})
    hub = _hub(("acme/Stated", 0, 32, 8), ("acme/Silent", 0, None, None))
    found = {f.subject: f for f in am.evidence_findings(models, scores, hub)}
    assert set(found) == {"stated", "silent", "unlisted"}  # 'quiet' has too few scores
    assert not found["stated"].resolved and "32 layers and 8 KV heads" in found["stated"].what
    assert found["silent"].resolution == (
        "no public source states it: the Hub table's config of acme/Silent has none")
    assert found["unlisted"].resolved and "no repository of it" in found["unlisted"].resolution


@pytest.mark.skipif(not HUB_TABLE.is_file(), reason="needs ../shared/data/llmfit-1.1.17")
def test_the_hub_table_reads_the_makers_configs():
    hub = am.hub_configs(HUB_TABLE)
    assert len(hub) > 16_000
    coder = hub["deepseek-ai/deepseek-coder-v2-instruct"]
    assert coder.experts == 160 and (coder.n_layers, coder.n_kv_heads) == (60, 128)
    assert json.loads(HUB_TABLE.read_text(encoding="utf-8"))[0]["name"].lower() in hub


# --- metergraph: a release day only from the maker's own page ------------------------------------


def test_metergraph_keeps_a_day_only_when_its_link_is_on_the_makers_domain(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(
        "version: '2026-10-19'\n"
        "models:\n"
        "- canonical_id: openai/gpt-9-sol\n"
        "  display_name: GPT-9 Sol\n"
        "  publisher: openai\n"
        "  released: '2026-09-22'  # https://community.openai.com/t/announcing-gpt-9/1\n"
        "  routes:\n"
        "  - key: default:openai/gpt-9-sol\n"
        "    display_name: GPT-9 Sol (direct)\n"
        "- canonical_id: openai/gpt-9-luna\n"
        "  display_name: GPT-9 Luna\n"
        "  publisher: openai\n"
        "  released: '2026-07-09'  # https://x.com/OpenAI/status/1\n",
        encoding="utf-8",
    )
    drops = Drops()
    found = metergraph.load(path, drops)
    assert [(o.name, o.release_date) for o in found] == [
        ("GPT-9 Sol", "2026-09-22"), ("gpt-9-sol", "2026-09-22")]
    assert found[0].metadata_source_url == "https://community.openai.com/t/announcing-gpt-9/1"
    assert drops.counts[(metergraph.SOURCE, metergraph.NOT_THE_MAKER)] == 1
    assert metergraph.makers_domain("https://ai.google.dev/gemma/docs", "google")
    assert not metergraph.makers_domain("https://en.wikipedia.org/wiki/Gemini", "google")
    assert not metergraph.makers_domain("https://notopenai.com/x", "openai")


def test_one_arch_key_is_one_set_of_shapes_from_the_hub_table(tmp_path):
    path = tmp_path / "hf_models.json"
    path.write_text(json.dumps([
        _config("a/Acme-7B", parameters_raw=7_241_748_480),
        _config("b/Acme-7B-Tune", parameters_raw=7_241_748_480),
        _config("c/Odd-7B", parameters_raw=7_000_000_001),
        _config("d/Odd-7B-Other", parameters_raw=7_000_000_001, num_hidden_layers=30),
    ]), encoding="utf-8")
    by_key = llmfit.arch_shapes(path)
    assert by_key == {"llama:7241748480": (32, 8, 128)}  # the disagreeing key gives none
    rows = [{"arch_key": "llama:7241748480", "n_layers": None, "n_kv_heads": None,
             "head_dim": None, "metadata_source_url": "x"},
            {"arch_key": "llama:7000000001", "n_layers": None, "n_kv_heads": None,
             "head_dim": None, "metadata_source_url": None}]
    assert llmfit.fill_from_arch(rows, by_key) == 1
    assert (rows[0]["n_layers"], rows[0]["metadata_source_url"]) == (
        32, f"x;{llmfit.CONFIGS_URL}")
    assert rows[1]["n_layers"] is None


def test_the_leaderboards_moe_flag_counts_only_when_it_says_yes_or_the_class_has_experts():
    row = {"model_name": "google/switch-base-8", "metadata_params_billions": "0.62",
           "features_is_moe": "FALSE", "metadata_hub_license": "apache-2.0",
           "metadata_upload_date": "2022-10-24",
           "model_architecture": "SwitchTransformersForConditionalGeneration"}
    assert open_llm_leaderboard.model_obs(pd.Series(row)).is_moe is True
    dense = {**row, "model_architecture": "LlamaForCausalLM"}
    assert open_llm_leaderboard.model_obs(pd.Series(dense)).is_moe is None  # no evidence
    flagged = {**dense, "features_is_moe": "TRUE"}
    assert open_llm_leaderboard.model_obs(pd.Series(flagged)).is_moe is True
