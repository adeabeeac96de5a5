"""A score dated well before its checkpoint's stated release is refused and counted: it is an
earlier snapshot's or a preview's result repeated for the later checkpoint."""

from __future__ import annotations

import pandas as pd

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
    ]
    rows = [
        _score("gemini-2.5-pro-2025-06-17", "2025-03-26"),  # the March preview's number
        _score("gemini-2.5-pro-2025-06-17", "2025-05-20"),  # 28 days early: a report's month
        _score("gemini-2.5-pro-2025-06-17", "2025-06-17"),
        _score("gemini-2.5-pro-2025-06-17", None),  # undated: nothing to compare
        _score("proxy-dated", "2024-01-01"),  # a proxy day is no release
        _score("unknown-model", "2020-01-01"),
    ]
    drops = Drops()
    kept = scores_table.refuse_before_release(rows, models, drops)
    assert [r["date"] for r in kept] == ["2025-05-20", "2025-06-17", None, "2024-01-01",
                                         "2020-01-01"]
    assert drops.counts == {("llmstats", scores_table.BEFORE_RELEASE): 1}


def test_the_committed_catalog_holds_no_score_from_before_its_models_release():
    models = pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)
    scores = pd.read_csv(paths.CATALOG_DIR / "scores.csv", dtype=str, keep_default_na=False)
    stated = models[(models["release_date"] != "") & (models["release_date_basis"] == "")]
    release = pd.to_datetime(scores["model_id"].map(stated.set_index("model_id")["release_date"]))
    dated = pd.to_datetime(scores["date"].replace("", None))
    early = (release - dated).dt.days > scores_table.BEFORE_RELEASE_DAYS
    assert not early.any(), scores[early][["model_id", "benchmark_id", "date"]].head()
