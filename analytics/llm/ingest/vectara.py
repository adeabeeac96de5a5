"""Importer for the Vectara hallucination leaderboard: ``vectara-hallucination/README.md``.

The table between ``<!-- LEADERBOARD_START -->`` and ``<!-- LEADERBOARD_END -->`` gives, per
model, the hallucination rate of its summaries of Vectara's held-out documents as judged by
Vectara's HHEM model. Imported: ``Hallucination Rate`` as ``vectara-hallucination-rate`` (percent,
lower is better). Not imported: ``Factual Consistency Rate`` (exactly 100 minus the hallucination
rate: the same measurement twice), ``Answer Rate`` (how often the model agreed to summarise, a
refusal rate, not a quality score) and ``Average Summary Length`` (a length, not a score).

Provenance ``independent``: Vectara calls every model itself and scores all of them with the same
judge. Date = the table's "Last updated on <Month D, YYYY>" line.

Names are kept as printed (``openai/gpt-5.4-2026-03-05``, effort and date included). The prefix
gives the organisation where its namespace is a known maker's
(``organisations.known_namespace``). ``hf_id`` is set only for the
names that are real Hugging Face repositories (``HF_REPOS``: open models whose repository was
confirmed in another public file, stored in the hub's own casing); provider API ids such as
``MiniMaxAI/minimax-m2p5`` or ``meta-llama/Llama-3.3-70B-Instruct-Turbo`` get none.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
)
from analytics.llm.ingest.organisations import known_namespace

SOURCE = "vectara"
SOURCE_NAME = "Vectara hallucination leaderboard"
LEADERBOARD_URL = "https://github.com/vectara/hallucination-leaderboard"
BENCHMARK_ID = "vectara-hallucination-rate"
START, END = "<!-- LEADERBOARD_START -->", "<!-- LEADERBOARD_END -->"
HEADER = (
    "Model",
    "Hallucination Rate",
    "Factual Consistency Rate",
    "Answer Rate",
    "Average Summary Length (Words)",
)

"""Name prefix (lower case) -> organisation; every prefix in the 2026-03-10 table is a vendor."""

# Lower-cased table name -> Hugging Face repository (hub casing). Each was checked against a
# huggingface.co link in llmfit, Artificial Analysis or LLM Stats (shared/data, 2026-08).
HF_REPOS = {
    name.lower(): name
    for name in (
        "microsoft/phi-4",
        "microsoft/Phi-4-mini-instruct",
        "Snowflake/snowflake-arctic-instruct",
        "google/gemma-3-4b-it",
        "google/gemma-3-12b-it",
        "google/gemma-3-27b-it",
        "Qwen/Qwen3-4B",
        "Qwen/Qwen3-8B",
        "Qwen/Qwen3-14B",
        "Qwen/Qwen3-32B",
        "Qwen/Qwen3-235B-A22B",
        "Qwen/Qwen3-Next-80B-A3B-Thinking",
        "Qwen/Qwen3.5-27B",
        "Qwen/Qwen3.5-35B-A3B",
        "Qwen/Qwen3.5-122B-A10B",
        "ibm-granite/granite-3.3-8b-instruct",
        "ibm-granite/granite-4.0-h-small",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3.1",
        "deepseek-ai/DeepSeek-V3.2",
        "deepseek-ai/DeepSeek-V3.2-Exp",
        "deepseek-ai/DeepSeek-R1",
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "zai-org/GLM-4.7-Flash",
        "zai-org/GLM-5",
        "moonshotai/Kimi-K2.5",
        "moonshotai/Kimi-K2-Instruct-0905",
        "openai/gpt-oss-120b",
    )
}

_UPDATED = re.compile(r"Last updated on\s+([A-Z][a-z]+ \d{1,2}, \d{4})")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_lines(path: Path) -> tuple[list[tuple[int, str]], str | None]:
    """(line number, text) of the table between the markers, and the ISO "last updated" date."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"{path}: unreadable ({exc}); restore the file from its source") from exc
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == START)
        end = next(i for i, line in enumerate(lines) if line.strip() == END and i > start)
    except StopIteration:
        raise IngestError(
            f"{path}: no {START} ... {END} block; expected the leaderboard README"
        ) from None
    block = [(i + 1, lines[i]) for i in range(start + 1, end)]
    date = None
    for _, line in block:
        match = _UPDATED.search(line)
        if match:
            try:
                date = datetime.strptime(match.group(1), "%B %d, %Y").date().isoformat()
            except ValueError:
                raise IngestError(
                    f"{path}: unreadable date {match.group(1)!r} in 'Last updated on'"
                ) from None
            break
    return [(n, line) for n, line in block if line.strip().startswith("|")], date


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """One model and one hallucination rate per table row; skipped rows are counted."""
    path = root / "README.md"
    if not path.is_file():
        raise IngestError(
            f"{path}: missing; point --shared at shared/data (vectara-hallucination/)"
        )
    rows, date = table_lines(path)
    if len(rows) < 2 or tuple(_cells(rows[0][1])) != HEADER:
        got = _cells(rows[0][1]) if rows else []
        line = rows[0][0] if rows else "?"
        raise IngestError(f"{path}:{line}: table header {got}; expected {list(HEADER)}")
    models, scores, seen = [], [], set()
    for lineno, line in rows[2:]:
        cells = _cells(line)
        if len(cells) != len(HEADER):
            raise IngestError(
                f"{path}:{lineno}: {len(cells)} cells; expected {len(HEADER)} ({list(HEADER)})"
            )
        name, rate = clean_text(cells[0]), parse_number(cells[1])
        if name is None or rate is None:
            drops.add(SOURCE, "row without model name or hallucination rate")
            continue
        if name in seen:
            drops.add(SOURCE, "model listed twice (first row kept)")
            continue
        seen.add(name)
        prefix = name.split("/", 1)[0].lower() if "/" in name else ""
        hf_id = HF_REPOS.get(name.lower())
        models.append(
            ModelObs(
                name=name,
                source=SOURCE,
                organisation=known_namespace(prefix),
                hf_id=hf_id,
                open_weights=True if hf_id else None,
                display_name=name,
            )
        )
        scores.append(
            ScoreObs(
                name, BENCHMARK_ID, rate, "independent", SOURCE_NAME, LEADERBOARD_URL, date, SOURCE
            )
        )
    return models, scores
