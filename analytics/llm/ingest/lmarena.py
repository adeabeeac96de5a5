"""Importer for the LMArena text leaderboard (``llm-leaderboard-csv/lmarena_text.csv``).

Human pairwise votes -> source kind ``arena``; a row's ``url`` that is a Hugging Face repository
is its weights link; one benchmark ``lmarena-text`` in Elo units
(higher is better). The rating is stored as published (``arena_score``).
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest.artificial_analysis import hf_id
from analytics.llm.ingest.common import (
    Drops,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
    read_source_csv,
)

SOURCE = "lmarena"
SOURCE_NAME = "LMArena text leaderboard"
LEADERBOARD_URL = "https://lmarena.ai/leaderboard/text"
SNAPSHOT_DATE = "2025-08-06"  # commit date of the csv/lmarena_text.csv snapshot (SOURCES.md)
REQUIRED = ("model", "arena_score", "organization", "license")


def load(path: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """One model and one Elo score per row; duplicate model names keep the first (higher) row."""
    frame = read_source_csv(path, REQUIRED, "the lmarena export header")
    models, scores, seen = [], [], set()
    for lineno, row in enumerate(frame.itertuples(index=False), start=2):
        name, score = clean_text(row.model), parse_number(row.arena_score)
        if name is None or score is None:
            drops.add(SOURCE, f"row without model or arena_score (line {lineno})")
            continue
        if name in seen:
            drops.add(SOURCE, "model listed twice (first, higher-ranked row kept)")
            continue
        seen.add(name)
        licence = clean_text(row.license)
        models.append(
            ModelObs(
                name=name,
                source=SOURCE,
                organisation=clean_text(row.organization),
                licence_raw=licence,
                open_weights=None if licence is None else not licence.lower().startswith("propr"),
                display_name=name,
                # the row's link: a weights repository for some open models ('MPT-30B-chat')
                hf_id=hf_id(clean_text(getattr(row, "url", None))),
            )
        )
        scores.append(
            ScoreObs(
                name,
                "lmarena-text",
                score,
                "arena",
                SOURCE_NAME,
                LEADERBOARD_URL,
                SNAPSHOT_DATE,
                SOURCE,
            )
        )
    return models, scores
