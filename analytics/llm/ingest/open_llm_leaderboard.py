"""Importer for the Open LLM Leaderboard v2 table (``llm-leaderboard-csv/huggingface_v2.csv``).

Hugging Face ran every evaluation with one harness, so all rows are ``independent``. To keep the
catalog from being flooded with community merges we keep a documented subset:
official providers only (``features_is_official_provider``), not merged, not flagged, original
weights (no adapters), and one row per model name (the highest-average precision variant).
Scores are the raw metric values (fractions) converted to percent, not the leaderboard's
baseline-normalised columns.

The Hub upload date stands in for the release date. A row whose repository is gone has none
(the leaderboard writes its base model as 'Removed'); its submission day is then the date, with
``release_date_basis`` = :data:`SUBMITTED_BASIS`: a proxy (the weights existed by that day), shown
with its basis and never read as a release by lineage, movers or charts.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from analytics.llm.ingest.common import (
    Drops,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
    read_source_csv,
)
from analytics.llm.ingest.families import moe_by_architecture

SOURCE = "open-llm-leaderboard"
SOURCE_NAME = "Open LLM Leaderboard v2"
LEADERBOARD_URL = "https://huggingface.co/spaces/open-llm-leaderboard/open_llm_leaderboard"
DETAILS_URL = "https://huggingface.co/datasets/open-llm-leaderboard/{slug}-details"
SUBMITTED_BASIS = "submitted to the Open LLM Leaderboard"

# column prefix -> benchmark_id
BENCHMARKS = {
    "ifeval": "ifeval",
    "bbh": "openllm-bbh",
    "math": "openllm-math-lvl5",
    "gpqa": "openllm-gpqa",
    "musr": "openllm-musr",
    "mmlu_pro": "openllm-mmlu-pro",
}
REQUIRED = (
    "model_name",
    "model_weight_type",
    "model_average_score",
    "features_is_merged",
    "features_is_moe",
    "features_is_flagged",
    "features_is_official_provider",
    "metadata_upload_date",
    "metadata_hub_license",
    "metadata_params_billions",
    *(f"evaluations_{key}_value" for key in BENCHMARKS),
)


def read_table(path: Path) -> pd.DataFrame:
    """The leaderboard CSV as strings; IngestError naming the file and missing columns."""
    return read_source_csv(path, REQUIRED, "the v2 export header")


def _flag(value: str) -> bool:
    return str(value).strip().upper() == "TRUE"


def select_subset(frame: pd.DataFrame, drops: Drops) -> pd.DataFrame:
    """Official, unmerged, unflagged original-weight rows; one per model name (best average)."""
    keep = (
        frame["features_is_official_provider"].map(_flag)
        & ~frame["features_is_merged"].map(_flag)
        & ~frame["features_is_flagged"].map(_flag)
        & (frame["model_weight_type"] == "Original")
    )
    drops.add(
        SOURCE, "not in the subset (unofficial, merged, flagged or adapter)", int((~keep).sum())
    )
    subset = frame[keep].assign(_avg=frame["model_average_score"].map(parse_number))
    subset = subset.sort_values(["model_name", "_avg"], ascending=[True, False])
    dupes = subset["model_name"].duplicated()
    drops.add(SOURCE, "other precision of the same model (best average kept)", int(dupes.sum()))
    return subset[~dupes]


def model_obs(row: pd.Series) -> ModelObs:
    """Metadata of one leaderboard row (upload date, else the submission day as a proxy, stands
    in for the release date)."""
    params = parse_number(row["metadata_params_billions"])
    uploaded = clean_text(row["metadata_upload_date"])
    submitted = clean_text(row.get("metadata_submission_date"))
    return ModelObs(
        name=row["model_name"],
        source=SOURCE,
        organisation=row["model_name"].split("/", 1)[0],
        release_date=uploaded or submitted,
        release_date_basis=None if uploaded or not submitted else SUBMITTED_BASIS,
        total_params_b=params if params and params > 0 else None,
        # the flag is set by submitters (False on google/switch-base-8): True counts, False is
        # no evidence of a dense model
        is_moe=True if _flag(row["features_is_moe"]) or moe_by_architecture(
            row.get("model_architecture")) else None,
        open_weights=True,
        licence_raw=clean_text(row["metadata_hub_license"]),
        hf_id=row["model_name"],
    )


def score_obs(row: pd.Series, drops: Drops) -> list[ScoreObs]:
    """The six benchmark values of one row, fraction -> percent."""
    url = DETAILS_URL.format(slug=row["model_name"].replace("/", "__"))
    out = []
    for key, bench in BENCHMARKS.items():
        value = parse_number(row[f"evaluations_{key}_value"])
        if value is None:
            drops.add(SOURCE, f"missing {key} value")
            continue
        out.append(
            ScoreObs(
                row["model_name"],
                bench,
                value * 100,
                "independent",
                SOURCE_NAME,
                url,
                clean_text(row.get("metadata_submission_date")),
                SOURCE,
            )
        )
    return out


def load(path: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Models and scores of the documented subset."""
    subset = select_subset(read_table(path), drops)
    models, scores = [], []
    for _, row in subset.iterrows():
        models.append(model_obs(row))
        scores.extend(score_obs(row, drops))
    return models, scores
