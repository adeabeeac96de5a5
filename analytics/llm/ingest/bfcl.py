"""Importer for the Berkeley Function-Calling Leaderboard v4 (``bfcl/``, gh-pages CSVs).

Files (shared/data/SOURCES.md, "Berkeley Function-Calling Leaderboard"): ``data_overall.csv``
(one row per leaderboard entry: ``Model``, ``Model Link``, ``Overall Acc``, ``Organization``,
``License`` ...), one file per category (``data_non_live.csv``, ``data_live.csv``,
``data_multi_turn.csv``, ``data_agentic.csv``, each with its ``<Category> Overall Acc``) and
``data_format_sensitivity.csv``. Accuracies are strings in percent ("77.47%"); "N/A" is a cell
the leaderboard does not publish.

Provenance: the Gorilla team (UC Berkeley) runs every model with its own harness -> source kind
``independent`` (gorilla.cs.berkeley.edu is in the provenance table), source name "Berkeley
Function-Calling Leaderboard", source URL the leaderboard page. The rows carry no date and the
CSVs have no "Last Updated" column: every score gets the date of the commit that last changed the
CSVs, 2025-12-16 (SOURCES.md; the page itself says "Last Updated: 2026-04-12").

Benchmarks (``benchmarks/bfcl.csv``): the four category accuracies, each its own benchmark:
``bfcl-v4-non-live`` (AST accuracy on the expert-written single-turn set), ``bfcl-v4-live``
(AST accuracy on user-contributed single-turn calls), ``bfcl-v4-multi-turn`` and
``bfcl-v4-agentic`` (mean of web search and memory). The overall accuracy is a weighted
composite of exactly these parts (10 % non-live, 10 % live, 30 % multi-turn, 40 % agentic, plus
10 % irrelevance detection; it reproduces ``Overall Acc`` to 0.01 for every row), so it is not
imported: one drop with ``protocols.COMPOSITE`` per imported entry. The parts are clean: each
category file's accuracy equals the overall file's column for every model, and they measure
different abilities (single-turn call syntax vs multi-turn state vs agentic tool use), which the
overall would blur into one number. Format sensitivity (spread of accuracy over 26 prompt
formats) is a robustness measure, not an accuracy: not imported, one drop per entry with values.
Relevance / irrelevance detection, cost and latency columns are not benchmark scores here.

One protocol per benchmark: the headline is native function calling (FC: the model's own
tool-calling API or chat template). Prompt mode (BFCL writes the function documents into the
system prompt and parses calls from plain text) measures how well a model follows that prompt
format - Claude-Opus-4-5-20251101 scores 77.47 % overall in FC and 33.47 % in Prompt mode - so
Prompt entries are a non-standard scaffold for this benchmark and are dropped with
``protocols.SCAFFOLD`` (one per entry), never mixed into the FC benchmarks nor kept as a second
set of ids (which would count BFCL twice for the 30 models listed in both modes). An entry is in
Prompt mode when its name says "(Prompt ...)" or when the format-sensitivity file has values
for it: BFCL measures format sensitivity only for Prompt-mode handlers (it varies the prompt
format), which also catches entries whose label does not say so - "ToolACE-2-8B (FC)" and
"Ministral-8B-Instruct-2410 (FC)" (``is_fc_model=False`` in BFCL's model_config.py) and the
unlabelled "CoALM-8B", "CoALM-70B" and "Mistral-Medium-2505". Unlabelled entries without
format-sensitivity values ("BitAgent-Bounty-8B", "Arch-Agent-32B") are FC handlers.

Model names: the entry name without its mode, so the FC entry of a model carries the model's own
name: "GPT-4.1-2025-04-14 (FC)" -> "GPT-4.1-2025-04-14"; a thinking word inside the mode is
kept as a variant: "GLM-4.6 (FC thinking)" -> "GLM-4.6 (thinking)" with ``variant`` "thinking";
a "-FC" that BFCL appends to the handler name is a mode marker too: "MiniCPM3-4B-FC (FC)" ->
"MiniCPM3-4B". Effort words that are part of the model name stay ("Grok-4-1-fast-reasoning").

Dropped and counted besides: an FC entry scoring 0.00 % in all four categories is a failed run
(the handler produced no valid call; its overall is the irrelevance share alone), e.g.
"Llama-3.1-Nemotron-Ultra-253B-v1 (FC)"; an "N/A" category cell; a model missing from a
category file. A file that is missing or lacks a column, a cell that is not a percentage, a row
without a model name and a model listed twice in one file raise IngestError naming the file.

Models: one ``ModelObs`` per imported entry: ``organisation`` (Organization), ``licence_raw``
(License as published, spellings vary), ``open_weights`` (licence not "Proprietary"), ``hf_id``
when ``Model Link`` is a Hugging Face model repository, ``display_name`` the name above.
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
    read_source_csv,
)

SOURCE = "bfcl"
SOURCE_URL = "https://gorilla.cs.berkeley.edu/leaderboard.html"
SOURCE_NAME = "Berkeley Function-Calling Leaderboard"
SNAPSHOT_DATE = "2025-12-16"  # last commit touching the CSVs on gh-pages (SOURCES.md)
OVERALL_FILE = "data_overall.csv"
OVERALL_COLUMNS = ("Model", "Model Link", "Overall Acc", "Organization", "License")
CATEGORIES: dict[str, tuple[str, str]] = {
    "bfcl-v4-non-live": ("data_non_live.csv", "Non-Live Overall Acc"),
    "bfcl-v4-live": ("data_live.csv", "Live Overall Acc"),
    "bfcl-v4-multi-turn": ("data_multi_turn.csv", "Multi Turn Overall Acc"),
    "bfcl-v4-agentic": ("data_agentic.csv", "Agentic Overall Acc"),
}
"""benchmark_id -> (category file, its headline accuracy column)."""
FORMAT_FILE = "data_format_sensitivity.csv"
FORMAT_COLUMN = "Format Sensitivity Max Delta"

PROMPT_MODE = protocols.SCAFFOLD
OVERALL = protocols.COMPOSITE
FORMAT_SENSITIVITY = "format sensitivity: a robustness measure, not an accuracy (not imported)"
FAILED_RUN = "failed run: 0% in every category (the handler produced no valid call)"
NOT_PUBLISHED = "category score not published (N/A)"

_MODE = re.compile(r"^(?P<base>.+?)\s*\((?P<mode>[^()]*)\)\s*$")
_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)\s*%?$")
_UNPUBLISHED = {"", "n/a"}
_HF_REPO = re.compile(r"^https?://huggingface\.co/([\w.-]+/[\w.-]+)/?$")


def split_mode(raw: str) -> tuple[str, str | None, str | None]:
    """(name without the mode, 'fc' / 'prompt' / None, modifier such as 'thinking' or None).

    'GPT-4o-2024-11-20 (FC)' -> ('GPT-4o-2024-11-20', 'fc', None);
    'DeepSeek-V3.2-Exp (Prompt + Thinking)' -> ('DeepSeek-V3.2-Exp', 'prompt', 'thinking');
    'BitAgent-Bounty-8B' -> ('BitAgent-Bounty-8B', None, None).
    """
    match = _MODE.match(raw)
    if not match:
        return raw, None, None
    words = re.findall(r"[A-Za-z0-9]+", match["mode"])
    if not words or words[0].lower() not in ("fc", "prompt"):
        return raw, None, None
    modifier = "-".join(w.lower() for w in words[1:]) or None
    return match["base"], words[0].lower(), modifier


def model_name(base: str, mode: str | None, modifier: str | None) -> str:
    """Catalog-facing name: the handler's '-FC' marker dropped, a modifier kept in brackets."""
    if mode == "fc":
        base = re.sub(r"-FC$", "", base)
    return f"{base} ({modifier})" if modifier else base


def parse_percent(cell: str, where: str) -> float | None:
    """'77.47%' -> 77.47; 'N/A' or blank -> None; anything else raises IngestError."""
    text = cell.strip()
    if text.lower() in _UNPUBLISHED:
        return None
    match = _PERCENT.match(text)
    if not match:
        raise IngestError(
            f"{where}: {cell!r} is not a percentage; expected e.g. '77.47%' or 'N/A' "
            "(restore the file from the leaderboard's gh-pages branch)"
        )
    return float(match.group(1))


def _read(path: Path, columns: tuple[str, ...]) -> dict[str, tuple[int, dict]]:
    """Model -> (line number, row) of one leaderboard CSV; IngestError for a bad file."""
    if not path.is_file():
        raise IngestError(f"{path}: file missing; copy it from the BFCL gh-pages branch")
    frame = read_source_csv(path, columns, f"BFCL v4 columns {list(columns)}")
    rows: dict[str, tuple[int, dict]] = {}
    for lineno, row in enumerate(frame.to_dict("records"), start=2):
        name = clean_text(row["Model"])
        if name is None:
            raise IngestError(f"{path}:{lineno}: row without a Model name; restore the file")
        if name in rows:
            raise IngestError(
                f"{path}:{lineno}: model {name!r} is listed twice (also line {rows[name][0]}); "
                "restore the file (each entry once)"
            )
        rows[name] = (lineno, row)
    return rows


def _hf_id(link: str | None) -> str | None:
    match = _HF_REPO.match(link or "")
    return match.group(1) if match else None


def _model_obs(name: str, row: dict, variant: str | None) -> ModelObs:
    licence = clean_text(row["License"])
    return ModelObs(
        name=name,
        source=SOURCE,
        organisation=clean_text(row["Organization"]),
        licence_raw=licence,
        open_weights=None if licence is None else licence.lower() != "proprietary",
        hf_id=_hf_id(clean_text(row["Model Link"])),
        display_name=name,
        variant=variant,
    )


MISSING_TOLERATED = 2
MISSING_SHARE = 0.05
"""A category board may lack this many of the overall board's entries (or this share): more
is a truncated file, refused."""


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """FC-mode category accuracies of every entry; Prompt entries and the overall are counted."""
    overall = _read(root / OVERALL_FILE, OVERALL_COLUMNS)
    categories = {
        bench: (root / file, column, _read(root / file, ("Model", column)))
        for bench, (file, column) in CATEGORIES.items()
    }
    formats = _read(root / FORMAT_FILE, ("Model", FORMAT_COLUMN))
    boards = [(path, rows) for path, _, rows in categories.values()]
    for path, rows in [*boards, (root / FORMAT_FILE, formats)]:
        # a board lists the overall board's entries; one or two may lack a run (counted below),
        # many missing means a file cut short (BFCL 272 -> 152 scores imported silently)
        if len(overall) - len(rows) > max(MISSING_TOLERATED, MISSING_SHARE * len(overall)):
            raise IngestError(
                f"{path}: {len(rows)} entries, but {OVERALL_FILE} lists {len(overall)}: the file "
                "is cut short or from another day; restore both from the BFCL gh-pages branch"
            )
    with_format = {
        name
        for name, (lineno, row) in formats.items()
        if parse_percent(row[FORMAT_COLUMN], f"{root / FORMAT_FILE}:{lineno}") is not None
    }
    if with_format:
        drops.add(SOURCE, FORMAT_SENSITIVITY, len(with_format))
    kind = provenance.source_kind(SOURCE_URL, SOURCE_NAME)
    models: list[ModelObs] = []
    scores: list[ScoreObs] = []
    seen: set[str] = set()
    for raw, (_, row) in overall.items():
        base, mode, modifier = split_mode(raw)
        if mode == "prompt" or raw in with_format:
            drops.add(SOURCE, PROMPT_MODE)
            continue
        name = model_name(base, "fc", modifier)
        values: dict[str, float] = {}
        for bench, (path, column, table) in categories.items():
            if raw not in table:
                drops.add(SOURCE, f"model missing from {path.name}")
                continue
            lineno, cat_row = table[raw]
            value = parse_percent(cat_row[column], f"{path}:{lineno} ({column})")
            if value is None:
                drops.add(SOURCE, NOT_PUBLISHED)
                continue
            values[bench] = value
        if len(values) == len(CATEGORIES) and not any(values.values()):
            drops.add(SOURCE, FAILED_RUN)
            continue
        if name in seen:
            drops.add(SOURCE, "same model listed twice once the mode is removed (first kept)")
            continue
        seen.add(name)
        drops.add(SOURCE, OVERALL)
        models.append(_model_obs(name, row, modifier))
        scores.extend(
            ScoreObs(
                model_name=name,
                benchmark_id=bench,
                score=value,
                source_kind=kind,
                source_name=SOURCE_NAME,
                source_url=SOURCE_URL,
                date=SNAPSHOT_DATE,
                origin=SOURCE,
                variant=modifier,
            )
            for bench, value in values.items()
        )
    return models, scores
