"""Scores land on the checkpoint and setting that produced them: one dated well before its
checkpoint's stated release is refused (an earlier snapshot's or a preview's result repeated for
the later checkpoint); one whose method states another reasoning effort moves to that variant or
leaves; one run with tools its benchmark's protocol does not use leaves. Each is counted."""

from __future__ import annotations

import pandas as pd
import pytest

from analytics.core import paths
from analytics.llm.ingest import scores_table
from analytics.llm.ingest.common import Drops


def _score(model_id: str, date: str | None, origin: str = "llmstats") -> dict:
    return {"model_id": model_id, "benchmark_id": "gpqa", "date": date, "origin": origin}


def test_a_score_from_before_the_release_is_refused_and_counted():
    models = [
        {"model_id": "gemini-2.5-pro-2025-06-17", "release_date": "2025-06-17",
         "release_date_basis": None},
        {"model_id": "proxy-dated", "release_date": "2025-06-17",
         "release_date_basis": "first seen in LiteLLM"},
        {"model_id": "phi-4-reasoning", "release_date": "2025-04-30", "release_date_basis": None,
         "weights_repo": "microsoft/Phi-4-reasoning"},
    ]
    rows = [
        _score("gemini-2.5-pro-2025-06-17", "2025-03-26"),  # the March preview's number
        _score("gemini-2.5-pro-2025-06-17", "2025-05-20"),  # 28 days early: a report's month
        _score("gemini-2.5-pro-2025-06-17", "2025-06-17"),
        _score("gemini-2.5-pro-2025-06-17", None),  # undated: nothing to compare
        _score("proxy-dated", "2024-01-01"),  # a proxy day is no release
        _score("unknown-model", "2020-01-01"),
        {**_score("phi-4-reasoning", "2025-03-01"),  # the maker's own card of these weights
         "source_url": "https://huggingface.co/microsoft/Phi-4-reasoning"},
        {**_score("phi-4-reasoning", "2025-03-01"),  # another model's card
         "source_url": "https://huggingface.co/microsoft/Phi-4-reasoning-plus"},
        {**_score("gemini-2.5-pro-2025-06-17", "2024-03-13"), "moved": True},  # an override's
    ]
    drops = Drops()
    kept = scores_table.refuse_before_release(rows, models, drops)
    assert [r["date"] for r in kept] == ["2025-05-20", "2025-06-17", None, "2024-01-01",
                                         "2020-01-01", "2025-03-01", "2024-03-13"]
    assert kept[-2]["source_url"].endswith("/Phi-4-reasoning")
    assert drops.counts == {("llmstats", scores_table.BEFORE_RELEASE): 2}


def test_the_committed_catalog_holds_no_score_from_before_its_models_release():
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)
    scores = pd.read_csv(paths.CATALOG_DIR / "scores.csv", dtype=str, keep_default_na=False)
    stated = models[(models["release_date"] != "") & (models["release_date_basis"] == "")]
    release = pd.to_datetime(scores["model_id"].map(stated.set_index("model_id")["release_date"]))
    dated = pd.to_datetime(scores["date"].replace("", None))
    repo = scores["model_id"].map(models.set_index("model_id")["weights_repo"]).fillna("")
    own_card = scores["source_url"].str.lower().str.rstrip("/") == (
        "https://huggingface.co/" + repo.str.lower())
    moves = pd.read_csv(paths.CATALOG_DIR / "overrides.csv", dtype=str, keep_default_na=False)
    moves = moves[moves["action"] == "move-score"]
    moved = pd.Series(list(zip(scores["model_id"], scores["benchmark_id"], strict=True))).isin(
        set(zip(moves["target"], moves["benchmark_id"], strict=True)))
    early = ((release - dated).dt.days > scores_table.BEFORE_RELEASE_DAYS) & ~own_card & ~moved
    assert not early.any(), scores[early][["model_id", "benchmark_id", "date"]].head()


@pytest.mark.parametrize(("method", "effort"), [
    ("o3-mini high", "high"), ("accuracy (o4-mini-high)", "high"),
    ("accuracy (whole, o4-mini-high)", "high"), ("high reasoning effort", "high"),
    ("reasoning_effort=low", "low"), ("accuracy (no tools)", None), ("5-shot", None),
    ("Avg 5 runs, high variance", None),
])
def test_the_effort_a_method_states(method, effort):
    assert scores_table.stated_effort(method) == effort


def _model(model_id: str, checkpoint: str, variant: str) -> dict:
    return {"model_id": model_id, "checkpoint_id": checkpoint, "variant": variant}


def test_a_row_of_another_effort_moves_to_that_variant_and_tools_off_protocol_leave():
    models = [_model("o3-mini", "o3-mini", "default"), _model("o3-mini-high", "o3-mini", "high"),
              _model("o1", "o1", "default")]
    categories = {"math": "math", "aime-2025": "math", "browsecomp": "agentic"}

    def row(model_id: str, bench: str, method: str) -> dict:
        return {"model_id": model_id, "benchmark_id": bench, "method": method,
                "source_name": "LLM Stats: openai.com", "origin": "llmstats"}

    rows = [row("o3-mini", "math", "o3-mini high"),  # moves to the high variant
            row("o3-mini", "aime-2025", "o3-mini medium"),  # the default's own setting
            row("o1", "math", "o1 high"),  # no o1 high variant: leaves
            row("o3-mini", "aime-2025", "pass@1 (with python tool)"),  # tools off protocol
            row("o3-mini", "browsecomp", "accuracy (with python + browsing)")]  # its protocol
    drops = Drops()
    kept = scores_table.settle_settings(rows, models, categories, drops)
    assert [(r["model_id"], r["benchmark_id"]) for r in kept] == [
        ("o3-mini-high", "math"), ("o3-mini", "aime-2025"), ("o3-mini", "browsecomp")]
    assert drops.counts == {("llmstats", scores_table.MOVED_EFFORT): 1,
                            ("llmstats", scores_table.OTHER_EFFORT): 1,
                            ("llmstats", scores_table.WITH_TOOLS): 1}
