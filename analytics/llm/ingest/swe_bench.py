"""Importer for the SWE-bench leaderboards file: ``swe-bench/leaderboards.json``.

Only the **bash-only** board is imported, as ``swe-bench-verified-bash-only``: the SWE-bench team
runs every model on SWE-bench Verified (500 instances) with the same minimal scaffold
(mini-SWE-agent, a bash shell and a ReAct loop), so its ``resolved`` rates (percent) compare like
with like. Provenance ``independent`` (run by the SWE-bench team), date = the entry's ``date``.

Dropped and counted: every entry of the other boards (Verified with arbitrary agents, Test, Lite,
Multimodal: systems submitted by agent builders), one reason per board under
``protocols.SCAFFOLD``; a bash-only entry with more than one attempt (``System: Attempts - N``);
a bash-only entry run with mini-SWE-agent 2.x (tool calling; the board says 1.x and 2.x results
are not comparable).

Licence: the leaderboard data is CC BY-NC 4.0 (non-commercial use only, attribution required);
see data/SOURCES.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest import protocols, provenance
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    read_source_json,
)

SOURCE = "swe-bench"
SOURCE_NAME = "SWE-bench bash-only"
LEADERBOARD_URL = "https://www.swebench.com/bash-only.html"
BOARD = "bash-only"
BENCHMARK_ID = "swe-bench-verified-bash-only"

MULTI_ATTEMPT = f"{protocols.AGGREGATED}: bash-only entry with several attempts"
AGENT_V2 = f"{protocols.SCAFFOLD}: mini-SWE-agent 2.x (not comparable with 1.x)"
DUPLICATE = "model listed twice on the bash-only board (higher resolved kept)"

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EFFORT = re.compile(r"\b(minimal|low|medium|high|xhigh)\b(?: reasoning)?", re.IGNORECASE)


def board_drop_reason(board: str) -> str:
    """The drop reason for every entry of a board other than bash-only."""
    return f"{protocols.SCAFFOLD}: {board} leaderboard (submitted agent systems)"


def read_boards(path: Path) -> list[dict]:
    """The ``leaderboards`` list; IngestError naming the file when the shape is wrong."""
    data = read_source_json(path)
    boards = data.get("leaderboards") if isinstance(data, dict) else None
    if not isinstance(boards, list):
        raise IngestError(
            f"{path}: missing 'leaderboards' list; expected {{leaderboards: [{{name, results}}]}}"
        )
    for i, board in enumerate(boards):
        if (
            not isinstance(board, dict)
            or "name" not in board
            or not isinstance(board.get("results"), list)
        ):
            raise IngestError(f"{path}: leaderboards[{i}] lacks 'name' or a 'results' list")
    return boards


def tags_of(entry: dict) -> dict[str, str]:
    """``["Model: x", "Org: y"]`` -> ``{"Model": "x", "Org": "y"}`` (split on the first ': ')."""
    out: dict[str, str] = {}
    for tag in entry.get("tags") or []:
        key, sep, value = str(tag).partition(": ")
        if sep:
            out.setdefault(key.strip(), value.strip())
    return out


def variant_of(display: str) -> str | None:
    """Reasoning effort the board's entry name states, e.g. '(medium reasoning)' -> 'medium'."""
    match = _EFFORT.search(display)
    return match.group(1).lower() if match else None


def _attempts(tags: dict[str, str]) -> int | None:
    match = re.search(r"attempts\s*-\s*(\d+)", tags.get("System", ""), re.IGNORECASE)
    return int(match.group(1)) if match else None


def _agent_major(entry: dict) -> int | None:
    match = re.match(r"^v?(\d+)\.", str(entry.get("mini-swe-agent_version") or ""))
    return int(match.group(1)) if match else None


def parse_entry(path: Path, index: int, entry: dict) -> tuple[ModelObs, ScoreObs]:
    """One bash-only entry as a model and its score; IngestError on a malformed entry."""
    where = f"{path}: leaderboards[{BOARD}].results[{index}]"
    if not isinstance(entry, dict):
        raise IngestError(f"{where}: not an object; expected {{name, resolved, date, tags}}")
    display = clean_text(entry.get("name"))
    resolved = entry.get("resolved")
    if display is None:
        raise IngestError(f"{where}: missing 'name'; restore the file from its source")
    if isinstance(resolved, bool) or not isinstance(resolved, int | float):
        raise IngestError(f"{where} ({display}): 'resolved' is {resolved!r}; expected a percent")
    tags = tags_of(entry)
    name = tags.get("Model") or display
    date = clean_text(entry.get("date"))
    variant = variant_of(display)
    model = ModelObs(
        name=name,
        source=SOURCE,
        organisation=tags.get("Org"),
        # os_model true is a statement of open weights; false is not reliable (Llama 4 is false).
        open_weights=True if entry.get("os_model") is True else None,
        display_name=display,
        variant=variant,
    )
    score = ScoreObs(
        model_name=name,
        benchmark_id=BENCHMARK_ID,
        score=float(resolved),
        source_kind=provenance.source_kind(LEADERBOARD_URL, SOURCE_NAME),  # swebench.com
        source_name=SOURCE_NAME,
        source_url=LEADERBOARD_URL,
        date=date if date and _ISO.match(date) else None,
        origin=SOURCE,
        variant=variant,
    )
    return model, score


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Models and scores of the bash-only board; the other boards are counted as dropped."""
    path = root / "leaderboards.json"
    if not path.is_file():
        raise IngestError(f"{path}: missing; point --shared at shared/data (swe-bench/)")
    boards = read_boards(path)
    bash_only = [b for b in boards if b["name"] == BOARD]
    if not bash_only:
        names = [b["name"] for b in boards]
        raise IngestError(f"{path}: no {BOARD!r} leaderboard (boards: {names}); restore the file")
    for board in boards:
        if board["name"] != BOARD and board["results"]:
            drops.add(SOURCE, board_drop_reason(board["name"]), len(board["results"]))
    best: dict[tuple[str, str | None], tuple[ModelObs, ScoreObs]] = {}
    for index, entry in enumerate(bash_only[0]["results"]):
        model, score = parse_entry(path, index, entry)
        tags = tags_of(entry)
        attempts = _attempts(tags)
        if attempts is not None and attempts > 1:
            drops.add(SOURCE, MULTI_ATTEMPT)
            continue
        major = _agent_major(entry)
        if major is not None and major >= 2:
            drops.add(SOURCE, AGENT_V2)
            continue
        key = (score.model_name, score.variant)
        if key in best:
            drops.add(SOURCE, DUPLICATE)
            if best[key][1].score >= score.score:
                continue
        best[key] = (model, score)
    models = [m for m, _ in best.values()]
    scores = [s for _, s in best.values()]
    return models, scores
