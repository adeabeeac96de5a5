"""Page models of one benchmark (every model's headline score on it) and of a side-by-side
comparison of a few models on the benchmarks they share.

Pure pandas on a :class:`~analytics.llm.leaderboard.Leaderboard`: ``board.scores`` holds every
stored score with its ``is_headline`` flag (the pick of ``elo.headline_scores``), ``board.table``
the overall ratings and ranks. "Best" follows the benchmark's ``higher_is_better``.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pandas as pd

from analytics.core import db
from analytics.llm.leaderboard import Leaderboard

TIE = "tie"
OTHER_COLUMNS = (
    "model_id",
    "display_name",
    "score",
    "unit",
    "score_text",
    "provenance",
    "source_name",
    "source_url",
    "date",
)
HEADLINE_COLUMNS = ("position", *OTHER_COLUMNS, "overall_rank")
COMPARE_COLUMNS = ("benchmark", "benchmark_name", "category", "unit", "higher_is_better")
_TOLERANCE = 1e-9  # scores this close are equal (a tie), whatever float noise a source adds


@dataclass(frozen=True)
class BenchmarkTable:
    """One benchmark's scores: ``headline`` (one row per model, best first, HEADLINE_COLUMNS) and
    ``others`` (the same models' non-headline rows from other sources, OTHER_COLUMNS)."""

    headline: pd.DataFrame
    others: pd.DataFrame


@dataclass(frozen=True)
class CompareTable:
    """Shared benchmarks of a few models: ``table`` (COMPARE_COLUMNS, then per model
    :func:`score_column` and :func:`source_column`, then ``winner``: a model id or ``"tie"``) and
    ``wins`` (model_id, display_name, shared, wins, ties: per chosen model, in the given order)."""

    table: pd.DataFrame
    wins: pd.DataFrame
    model_ids: tuple[str, ...]


def score_column(model_id: str) -> str:
    """The compare table's column of one model's headline score."""
    return f"score:{model_id}"


def source_column(model_id: str) -> str:
    """The compare table's column naming the source of one model's headline score."""
    return f"source:{model_id}"


def benchmark_catalog(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """The benchmarks table (id, name, category, direction, bounds, unit), by category and name."""
    return db.query(
        con,
        "SELECT benchmark_id, name, category, higher_is_better, lower_bound, upper_bound, unit "
        "FROM benchmarks ORDER BY category, name, benchmark_id",
    )


def describe(benchmark: pd.Series) -> str:
    """One line about a benchmarks-table row: name, category, unit, bounds and direction."""
    bounds = " – ".join(_number(benchmark[k]) for k in ("lower_bound", "upper_bound"))
    better = "higher is better" if _higher(benchmark["higher_is_better"]) else "lower is better"
    unit = benchmark["unit"] if isinstance(benchmark["unit"], str) and benchmark["unit"] else "—"
    return (
        f"{benchmark['name']} · category {benchmark['category']} · unit {unit} · "
        f"bounds {bounds} · {better}"
    )


def benchmark_table(board: Leaderboard, benchmark_id: str) -> BenchmarkTable:
    """Every model's headline score on ``benchmark_id``, best first, with its source, provenance
    (the source kind, as the leaderboard's badges name it), date and overall rank; ties share a
    position. An id without scores gives two empty frames."""
    rows = board.scores[board.scores["benchmark"] == benchmark_id]
    rows = _with_model_facts(board, rows)
    head = rows[rows["is_headline"]]
    higher = _higher(head["higher_is_better"].iloc[0]) if not head.empty else True
    head = head.sort_values(
        ["score", "overall_rank", "display_name", "model_id"],
        ascending=[not higher, True, True, True], na_position="last", kind="mergesort",
    )
    key = head["score"] if higher else -head["score"]
    head = head.assign(position=key.rank(method="min", ascending=False).astype("Int64"))
    others = rows[~rows["is_headline"]].sort_values(
        ["display_name", "model_id", "date"], ascending=[True, True, False], kind="mergesort"
    )
    return BenchmarkTable(
        headline=head[list(HEADLINE_COLUMNS)].reset_index(drop=True),
        others=others[list(OTHER_COLUMNS)].reset_index(drop=True),
    )


def compare_table(board: Leaderboard, model_ids: list[str]) -> CompareTable:
    """One row per benchmark that at least two of ``model_ids`` have a headline score on: each
    model's score and source (empty where it has none), and the winner (best score by the
    benchmark's direction; ``"tie"`` when the best is shared). Rows by category and name."""
    ids = list(dict.fromkeys(model_ids))
    scores = board.scores
    head = scores[scores["is_headline"] & scores["model"].isin(ids)]
    counts = head.groupby("benchmark")["model"].nunique()
    head = head[head["benchmark"].isin(counts[counts >= 2].index)]
    facts = head.drop_duplicates("benchmark").set_index("benchmark")[list(COMPARE_COLUMNS[1:])]
    facts = facts.sort_values(["category", "benchmark_name"], kind="mergesort")
    values = head.pivot(index="benchmark", columns="model", values="score")
    values = values.reindex(index=facts.index, columns=ids)
    sources = head.assign(text=head["source_name"] + " (" + head["source"] + ")")
    sources = sources.pivot(index="benchmark", columns="model", values="text")
    sources = sources.reindex(index=facts.index, columns=ids)
    table = facts.reset_index()
    for m in ids:
        table[score_column(m)] = values[m].to_numpy(dtype=float)
        table[source_column(m)] = sources[m].to_numpy(dtype=object)
    table["winner"] = [
        _winner(values.loc[b], _higher(facts.loc[b, "higher_is_better"])) for b in facts.index
    ]
    shared = values.notna().sum()
    wins = table["winner"].value_counts()
    ties = pd.Series(
        {m: int(((table["winner"] == TIE) & _best_of(values, facts, m)).sum()) for m in ids},
        dtype=int,
    )
    names = _names(board)
    summary = pd.DataFrame(
        {
            "model_id": ids,
            "display_name": [names.get(m, m) for m in ids],
            "shared": [int(shared.get(m, 0)) for m in ids],
            "wins": [int(wins.get(m, 0)) for m in ids],
            "ties": [int(ties.get(m, 0)) for m in ids],
        }
    )
    return CompareTable(table=table, wins=summary, model_ids=tuple(ids))


def _winner(row: pd.Series, higher: bool) -> str:
    present = row.dropna().astype(float)
    if present.empty:
        return ""
    best = present.max() if higher else present.min()
    top = present[np.isclose(present, best, rtol=0.0, atol=_TOLERANCE)]
    return str(top.index[0]) if len(top) == 1 else TIE


def _best_of(values: pd.DataFrame, facts: pd.DataFrame, model_id: str) -> pd.Series:
    """Per row (positional): whether ``model_id`` has the best score (alone or tied)."""
    out = []
    for b in values.index:
        row = values.loc[b].dropna().astype(float)
        if model_id not in row.index:
            out.append(False)
            continue
        best = row.max() if _higher(facts.loc[b, "higher_is_better"]) else row.min()
        out.append(bool(np.isclose(row[model_id], best, rtol=0.0, atol=_TOLERANCE)))
    return pd.Series(out, dtype=bool)


def _with_model_facts(board: Leaderboard, rows: pd.DataFrame) -> pd.DataFrame:
    names = _names(board)
    rank = board.table.set_index("model_id")["rank"]
    out = rows.rename(columns={"model": "model_id", "source": "provenance"})
    return out.assign(
        display_name=[names.get(m, m) for m in out["model_id"]],
        overall_rank=pd.array(rank.reindex(out["model_id"]).to_numpy(), dtype="Int64"),
        score_text=[_with_unit(s, u) for s, u in zip(out["score"], out["unit"], strict=True)],
    )


def _names(board: Leaderboard) -> dict[str, str]:
    models = board.models
    names = models["display_name"].where(models["display_name"].notna(), models["model_id"])
    return dict(zip(models["model_id"], names.astype(str), strict=True))


def _with_unit(score: float, unit: object) -> str:
    text = _number(score)
    if not isinstance(unit, str) or not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def _number(value: object) -> str:
    return "—" if value is None or pd.isna(value) else f"{float(value):g}"


def _higher(value: object) -> bool:
    """Missing direction means higher is better (as ``profiles.between_bounds`` reads it)."""
    return True if value is None or pd.isna(value) else bool(value)
