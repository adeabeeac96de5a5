"""One row per checkpoint (analytics/llm/checkpoints.py): variants collapsed, best rating beside."""

from __future__ import annotations

import time

import pandas as pd

from analytics.llm import checkpoints
from tests.fixtures import committed


def _models() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model_id": ["sonnet", "sonnet-8k", "sonnet-thinking", "fable-high", "fable-max",
                         "solo", "no-ck"],
            "display_name": ["Sonnet X", "Sonnet X (8k thinking)", "Sonnet X (Reasoning)",
                             "Fable 5 Thinking High Effort", "Fable 5", "Solo 7B", None],
            "checkpoint_id": ["sonnet", "sonnet", "sonnet", "fable", "fable", "solo", None],
            "variant": ["default", "8k", "thinking", "high", "max", "default", "default"],
            "total_params_b": [None, None, None, 30.0, None, 7.0, 3.0],
            "vram_q4_gb": [None, 20.0, None, None, None, 4.1, None],
            "vram_q4_basis": [None, "published file size", None, None, None, "measured memory",
                              None],
            "n_layers": [None, None, 40, None, None, 32, None],
            "n_kv_heads": [None, None, 8, None, None, 8, None],
            "head_dim": [None, None, 128, None, None, 128, None],
        }
    )


RATINGS = pd.DataFrame(
    {"model_id": ["sonnet-8k", "sonnet-thinking", "solo"], "rating": [1200.0, 1250.0, 1000.0]}
)


def test_one_row_per_checkpoint_with_best_rating_and_variants() -> None:
    out = checkpoints.one_row_per_checkpoint(_models(), RATINGS)
    assert out["checkpoint_id"].tolist() == ["sonnet", "fable", "solo", "no-ck"]  # first seen
    rows = out.set_index("checkpoint_id")
    sonnet = rows.loc["sonnet"]
    assert sonnet["display_name"] == "Sonnet X" == sonnet["checkpoint_name"]
    assert sonnet["variants"] == "Sonnet X, Sonnet X (8k thinking), Sonnet X (Reasoning)"
    assert sonnet["n_variants"] == 3
    assert sonnet["best_model_id"] == "sonnet-thinking" == sonnet["model_id"]
    assert sonnet["best_rating"] == 1250.0 == sonnet["rating"]
    # no default variant: the shortest name; nothing rated: NaN, the id is still a catalog model
    fable = rows.loc["fable"]
    assert fable["display_name"] == "Fable 5" and pd.isna(fable["best_rating"])
    assert fable["best_model_id"] == "fable-high"
    assert fable["total_params_b"] == 30.0  # filled from the variant that has it
    assert rows.loc["no-ck", "display_name"] == "no-ck"  # no name, no checkpoint: its own id


def test_linked_fields_travel_together() -> None:
    rows = checkpoints.one_row_per_checkpoint(_models(), None).set_index("checkpoint_id")
    sonnet = rows.loc["sonnet"]
    assert sonnet["vram_q4_gb"] == 20.0 and sonnet["vram_q4_basis"] == "published file size"
    assert (sonnet["n_layers"], sonnet["n_kv_heads"], sonnet["head_dim"]) == (40, 8, 128)
    assert rows["best_rating"].isna().all()


def test_empty_and_without_optional_columns() -> None:
    empty = checkpoints.one_row_per_checkpoint(_models().iloc[:0], RATINGS)
    assert empty.empty and {"variants", "best_rating", "best_model_id"} <= set(empty.columns)
    bare = pd.DataFrame({"model_id": ["a", "b"]})
    out = checkpoints.one_row_per_checkpoint(bare, pd.DataFrame())
    assert out["checkpoint_id"].tolist() == ["a", "b"] and out["variants"].tolist() == ["a", "b"]


def test_committed_catalog_collapses_fast() -> None:
    models = pd.read_csv(committed.catalog_file("models.csv", "model_id", "checkpoint_id"))
    started = time.process_time()
    out = checkpoints.one_row_per_checkpoint(models, None)
    assert time.process_time() - started < 3  # CPU seconds, not wall clock
    assert out["checkpoint_id"].is_unique
    assert len(out) == models["checkpoint_id"].nunique()


def test_best_ratings_is_the_collapsed_rows_best_rating() -> None:
    """The fine-tune list's best-Elo column and the collapsed rows agree checkpoint by
    checkpoint (one rule, not two that can drift)."""
    rows = checkpoints.one_row_per_checkpoint(_models(), RATINGS).set_index("checkpoint_id")
    best = checkpoints.best_ratings(_models(), RATINGS).set_index("checkpoint_id")["rating"]
    pd.testing.assert_series_equal(
        best.sort_index(), rows["best_rating"].sort_index(), check_names=False
    )
    assert checkpoints.best_ratings(_models(), None)["rating"].isna().all()
