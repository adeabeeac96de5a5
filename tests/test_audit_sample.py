"""``audit sample``: a random sample of models re-read fact by fact from their makers' configs;
and a licence that names none ('other') never hides one a source names."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.llm.audit import sample
from analytics.llm.ingest import models_table
from analytics.llm.ingest.common import ModelObs


def _entry(name: str, **fields: object) -> dict:
    return {"name": name, "parameters_raw": 7_615_616_512, "architecture": "qwen2",
            "num_hidden_layers": 28, "num_key_value_heads": 4, "head_dim": 128,
            "license": "apache-2.0", **fields}


def _model(model_id: str, repo: str, **fields: object) -> dict:
    return {"model_id": model_id, "checkpoint_id": model_id, "variant": "default",
            "organisation": "Alibaba", "weights_repo": repo, "total_params_b": 7.616,
            "n_layers": 28, "n_kv_heads": 4, "head_dim": 128, "is_moe": "false",
            "open_weights": "true", "licence_raw": "apache-2.0", **fields}


def _outcomes(row: dict, entry: dict) -> dict[str, str]:
    return {c.fact: c.outcome for c in sample.check(row, entry)}


def test_every_stated_fact_is_compared_with_the_makers_config():
    found = _outcomes(_model("qwen2.5-7b", "Qwen/Qwen2.5-7B"), _entry("Qwen/Qwen2.5-7B"))
    assert found == {"parameters (B)": "right", "n_layers": "right", "n_kv_heads": "right",
                     "head_dim": "right", "open weights": "right", "licence class": "right"}


@pytest.mark.parametrize(("fields", "raw", "fact", "outcome"), [
    ({"total_params_b": 7.0}, 7_300_000_001, "parameters (B)", "rounded"),  # a whole number
    ({"total_params_b": 7.0}, 7_615_616_512, "parameters (B)", "wrong"),  # 8 % off
    ({"total_params_b": 7.3}, 7_615_616_512, "parameters (B)", "wrong"),
    ({"total_params_b": None}, 7_615_616_512, "parameters (B)", "unknown"),
    ({"n_kv_heads": 28}, 7_615_616_512, "n_kv_heads", "wrong"),
    ({"open_weights": "false"}, 7_615_616_512, "open weights", "wrong"),
    ({"open_weights": ""}, 7_615_616_512, "open weights", "unknown"),
    ({"licence_raw": "other"}, 7_615_616_512, "licence class", "wrong"),
])
def test_a_fact_the_config_contradicts_is_wrong(fields, raw, fact, outcome):
    entry = _entry("Qwen/Qwen2.5-7B", parameters_raw=raw)
    found = _outcomes(_model("qwen2.5-7b", "Qwen/Qwen2.5-7B", **fields), entry)
    assert found[fact] == outcome


def test_only_a_stated_expert_count_checks_the_moe_flag():
    row = _model("acme-moe", "Qwen/Acme-MoE", is_moe="true")
    assert "mixture of experts" not in _outcomes(row, _entry("Qwen/Acme-MoE"))
    assert _outcomes(row, _entry("Qwen/Acme-MoE", num_experts=64))["mixture of experts"] == "right"
    dense = _model("acme", "Qwen/Acme", is_moe="false")
    assert _outcomes(dense, _entry("Qwen/Acme", num_experts=8))["mixture of experts"] == "wrong"


def test_a_packed_or_rounded_count_checks_no_size():
    row = _model("qwen2.5-7b", "Qwen/Qwen2.5-7B-AWQ")
    assert "parameters (B)" not in _outcomes(row, _entry("Qwen/Qwen2.5-7B-AWQ"))
    rounded = _entry("Qwen/Qwen2.5-7B", parameters_raw=7_000_000_000)
    assert "parameters (B)" not in _outcomes(_model("x", "Qwen/Qwen2.5-7B"), rounded)


def test_the_sample_draws_only_makers_repositories_and_counts():
    hub = {"qwen/qwen2.5-7b": _entry("Qwen/Qwen2.5-7B"),
           "someone/qwen2.5-7b": _entry("someone/Qwen2.5-7B")}
    models = pd.DataFrame([
        _model("qwen2.5-7b", "Qwen/Qwen2.5-7B"),
        _model("qwen2.5-7b-thinking", "Qwen/Qwen2.5-7B") | {"checkpoint_id": "qwen2.5-7b",
                                                             "variant": "thinking"},
        _model("reupload", "someone/Qwen2.5-7B"),  # not the maker's namespace
        _model("gone", "Qwen/Missing"),
    ])
    assert [r["model_id"] for r in sample.checkable(models, hub)] == ["qwen2.5-7b"]
    checked = sample.sample(models, hub, 40, seed=1)
    assert len(checked) == 1
    assert sample.report(checked)[-1] == (
        "1 models, 6 facts: 6 right, 0 a rounded size, 0 wrong, 0 unknown in the catalog; "
        "0 models with a wrong fact")


def test_a_licence_that_names_none_never_hides_a_named_one():
    said = [ModelObs("q", "open-llm-leaderboard", licence_raw="other"),
            ModelObs("q", "llmfit", licence_raw="tongyi-qianwen-research")]
    assert models_table.first_value(said, "licence_raw") == "tongyi-qianwen-research"
    alone = [ModelObs("q", "open-llm-leaderboard", licence_raw="other")]
    assert models_table.first_value(alone, "licence_raw") == "other"  # nothing better stated
