"""Importer for LMArena's arena-catalog export (``lmarena-catalog/``, 2025-12).

Human pairwise votes -> source kind ``arena``; ratings in Elo units (Bradley-Terry, higher is
better), stored as published (``rating``). Each leaderboard file is
``{category: {model_key: {rating, rating_q025, rating_q975}}}``; only the overall board
(``"full"``) is imported. The 95 % interval (``rating_q025`` / ``rating_q975``) has no column in
the score table and is not kept; the files carry no vote counts, ranks or organisations.

Which view is ``lmarena-text``: the 2025-08 CSV that ``lmarena.py`` reads (same benchmark id)
is the board with style control OFF. On the 168 models both files name, the plain
``leaderboard-text.json`` is within 4 Elo of the CSV on average (rank correlation 0.9995) while
``leaderboard-text-style-control.json`` is 46 Elo away (0.990). So:

- ``leaderboard-text.json``   -> ``lmarena-text``   (source_name "LMArena text leaderboard",
  the same label as ``lmarena.py``: the build keeps the row from the newer file, 2025-12-11 here
  against 2025-08-06 there),
- ``leaderboard-vision.json`` -> ``lmarena-vision`` (multimodal; style control off as well),
- both ``*-style-control.json`` files: not imported (one protocol per benchmark), every entry
  counted,
- ``leaderboard-image.json``: the text-to-image arena, not an LLM benchmark; every entry counted,
- category boards (coding, math, languages ...) of the two imported files: every entry counted.

Every (board, model) entry of the five files is therefore either a score or a counted drop.

Model metadata comes from ``scatterplot-data.json`` (141 entries keyed by ``model_api_name``, the
leaderboard key): display name, organisation and licence as published; ``open_weights`` is False
for a licence starting "propr" (also catches the typo "Propretary"), True for any other named
licence, unknown without one. Its token prices (USD per 1M tokens; strings or numbers, "" when
unknown) become ModelObs prices with the entry's own ``price_source`` page and the file's commit
date (2025-12-17) as ``price_date``; an entry without both prices or without an http(s)
``price_source`` keeps no price (counted). Scatterplot entries for models on neither imported
board (image models, style-control-only models) are counted and skipped.

The leaderboard files state no publish date; ``date`` is each file's commit date from
shared/data/SOURCES.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
    read_source_json,
)

SOURCE = "lmarena-catalog"
OVERALL = "full"


@dataclass(frozen=True)
class Board:
    """One imported leaderboard file: benchmark, labels and the file's commit date."""

    filename: str
    benchmark_id: str
    source_name: str
    url: str
    date: str


TEXT = Board(
    "leaderboard-text.json",
    "lmarena-text",
    "LMArena text leaderboard",  # same label as lmarena.py: the newer file replaces its rows
    "https://lmarena.ai/leaderboard/text",
    "2025-12-11",  # commit ea8297b5 of data/leaderboard-text.json (SOURCES.md)
)
VISION = Board(
    "leaderboard-vision.json",
    "lmarena-vision",
    "LMArena vision leaderboard",
    "https://lmarena.ai/leaderboard/vision",
    "2025-12-11",  # commit ea8297b5 of data/leaderboard-vision.json (SOURCES.md)
)
IMPORTED = (TEXT, VISION)

STYLE_CONTROL_FILES = (
    "leaderboard-text-style-control.json",
    "leaderboard-vision-style-control.json",
)
IMAGE_FILE = "leaderboard-image.json"
SCATTERPLOT_FILE = "scatterplot-data.json"
SCATTERPLOT_DATE = "2025-12-17"  # commit a7ae8627 of data/scatterplot-data.json (SOURCES.md)

STYLE_CONTROL = "style control on: the other view (lmarena-text/-vision keep style control off)"
IMAGE_ARENA = "text-to-image arena: not an LLM benchmark"
CATEGORY = "category sub-board (coding, math, languages ...): only the overall board is imported"
NO_RATING = "entry without a numeric rating"
NOT_ON_BOARD = "scatterplot entry for a model on neither imported board"
NO_PRICE = "scatterplot entry without both token prices (prices left empty)"
NO_PRICE_URL = "scatterplot price without an http(s) price_source (prices left empty)"

_URL = re.compile(r"^https?://\S+$")


def read_board(path: Path) -> dict[str, dict]:
    """``{category: {model_key: entry}}`` with an overall board; IngestError naming the file."""
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get(OVERALL), dict):
        raise IngestError(
            f"{path}: expected {{category: {{model: {{rating, ...}}}}}} with a {OVERALL!r} "
            "board; restore the file from lmarena/arena-catalog"
        )
    for category, board in data.items():
        if not isinstance(board, dict):
            raise IngestError(
                f"{path}: category {category!r} is not an object of models; restore the file "
                "from lmarena/arena-catalog"
            )
    return data


def _entries(data: dict[str, dict]) -> int:
    return sum(len(board) for board in data.values())


def read_scatterplot(path: Path) -> dict[str, dict]:
    """Scatterplot entries by ``model_api_name``; IngestError naming the file and the entry."""
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of models; restore the file")
    out: dict[str, dict] = {}
    for index, entry in enumerate(data):
        key = clean_text(entry.get("model_api_name")) if isinstance(entry, dict) else None
        if key is None:
            raise IngestError(
                f"{path}: entry {index} has no model_api_name; restore the file from "
                "lmarena/arena-catalog"
            )
        out.setdefault(key, entry)
    return out


def _rating(entry: object) -> float | None:
    if not isinstance(entry, dict) or isinstance(entry.get("rating"), bool):
        return None
    return parse_number(entry.get("rating"))


def _open_weights(licence: str | None) -> bool | None:
    return None if licence is None else not licence.lower().startswith("propr")


def _price(value: object) -> float | None:
    price = parse_number(value)
    return price if price is not None and price >= 0 else None


def model_obs(name: str, meta: dict | None, drops: Drops) -> ModelObs:
    """What the scatterplot states about one leaderboard model (nothing when it has no entry)."""
    meta = meta or {}
    licence = clean_text(meta.get("license"))
    obs = ModelObs(
        name=name,
        source=SOURCE,
        organisation=clean_text(meta.get("organization")),
        licence_raw=licence,
        open_weights=_open_weights(licence),
        display_name=clean_text(meta.get("name")) or name,
    )
    if not meta:
        return obs
    price_in, price_out = (
        _price(meta.get("input_token_price")),
        _price(meta.get("output_token_price")),
    )
    url = clean_text(meta.get("price_source"))
    if price_in is None or price_out is None:
        drops.add(SOURCE, NO_PRICE)
    elif url is None or not _URL.match(url):
        drops.add(SOURCE, NO_PRICE_URL)
    else:
        obs.usd_per_mtok_input = price_in
        obs.usd_per_mtok_output = price_out
        obs.price_source_url = url
        obs.price_date = SCATTERPLOT_DATE
    return obs


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Scores of the style-control-off text and vision boards; one ModelObs per model."""
    boards = {b.filename: read_board(root / b.filename) for b in IMPORTED}
    for filename in STYLE_CONTROL_FILES:
        drops.add(SOURCE, STYLE_CONTROL, _entries(read_board(root / filename)))
    drops.add(SOURCE, IMAGE_ARENA, _entries(read_board(root / IMAGE_FILE)))
    meta = read_scatterplot(root / SCATTERPLOT_FILE)

    scores: list[ScoreObs] = []
    names: dict[str, None] = {}
    for board in IMPORTED:
        data = boards[board.filename]
        drops.add(SOURCE, CATEGORY, _entries(data) - len(data[OVERALL]))
        for name, entry in data[OVERALL].items():
            score = _rating(entry)
            if score is None:
                drops.add(SOURCE, NO_RATING)
                continue
            names.setdefault(name)
            scores.append(
                ScoreObs(
                    name,
                    board.benchmark_id,
                    score,
                    "arena",
                    board.source_name,
                    board.url,
                    board.date,
                    SOURCE,
                )
            )
    for key in meta:
        if key not in names:
            drops.add(SOURCE, NOT_ON_BOARD)
    models = [model_obs(name, meta.get(name), drops) for name in names]
    return models, scores
