"""Catalog-wide figures for the home page: sizes, provenance mix and coverage per category."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd

from analytics.core import db, schema
from analytics.core.labels import plural
from analytics.core.snapshot import manifest as snapshot_manifest


@dataclass(frozen=True)
class Overview:
    """What the catalog snapshot holds, computed from its DuckDB views."""

    models: int
    open_weight_models: int
    benchmarks: int
    categories: int
    scores: int
    sources: int
    gpus: int
    throughput_rows: int
    provenance: pd.DataFrame
    """source_kind, score_rows, share: one row per kind in headline precedence (seed 002)."""
    by_category: pd.DataFrame
    """category, benchmarks, score_rows, models: sorted by score_rows, largest first."""
    source_table: pd.DataFrame
    """The snapshot's sources table (name, url, licence, scores, models, as_of, newest_release)."""
    freshness: Freshness
    copies: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Third-party copies of newer data (:data:`COPY_COLUMNS`, newest data first); no rows when
    the snapshot has no ``copies`` table."""


@dataclass(frozen=True)
class Freshness:
    """How far the snapshot's data reaches: the newest release date of a scored model and the
    newest date on any source's scores (None when unknown)."""

    data_through: str | None
    sources_as_of: str | None

    def line(self) -> str:
        """'Data through 2026-08-20; sources as of 2026-08-22.' (every LLM page shows it)."""
        through = self.data_through or "an unknown date"
        as_of = self.sources_as_of or "an unknown date"
        return f"Data through {through} (newest model release); sources as of {as_of}."


def freshness(con: duckdb.DuckDBPyConnection) -> Freshness:
    """Freshness of one snapshot, from its models and sources tables."""
    through = as_of = None
    if db.has_table(con, "models") and db.has_table(con, "scores"):
        proxy = db.has_column(con, "models", "release_date_basis")
        real = " AND coalesce(m.release_date_basis, '') = ''" if proxy else ""
        sql = f"""SELECT max(m.release_date) AS d FROM models m
                  WHERE m.model_id IN (SELECT model_id FROM scores){real}"""
        through = db.query(con, sql)["d"].iloc[0]  # a first-seen day is no release
    if db.has_table(con, "sources"):
        as_of = db.query(con, "SELECT max(as_of) AS d FROM sources")["d"].iloc[0]
    return Freshness(_iso(through), _iso(as_of))


def _iso(value: object) -> str | None:
    if value is None or pd.isna(value):
        return None
    return pd.Timestamp(value).date().isoformat()


def source_table(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every source of the snapshot, newest first (empty frame when the table is absent)."""
    columns = ["name", "url", "licence", "scores", "models", "as_of", "newest_release"]
    if not db.has_table(con, "sources"):
        return pd.DataFrame(columns=columns)
    return db.query(
        con, f"SELECT {', '.join(columns)} FROM sources ORDER BY as_of DESC NULLS LAST, name"
    )


COPY_COLUMNS = ("copy_id", "publisher", "used_for", "data_date", "package", "agreement",
                "shared", "fidelity", "compared_with", "licence")


def copies(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every third-party copy of newer data the snapshot imports (table ``copies``: who
    published the data, what it is used for, the day it is of, the package it came from and
    how well it agrees with a first-party file), newest data first; no rows when an older
    snapshot has no such table."""
    rows = db.select_present(con, "copies", list(COPY_COLUMNS))
    if rows.empty:
        return rows
    rows = rows.assign(data_date=pd.to_datetime(rows["data_date"], errors="coerce"))
    return rows.sort_values(["data_date", "publisher", "copy_id"], ascending=[False, True, True],
                            na_position="last").reset_index(drop=True)


def _count(con: duckdb.DuckDBPyConnection, table: str, expr: str = "count(*)") -> int:
    if not db.has_table(con, table):
        return 0
    return int(db.query(con, f"SELECT {expr} AS n FROM {table}")["n"].iloc[0] or 0)


def provenance_mix(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Score rows per source kind, every kind listed in precedence order (zeros kept)."""
    counts: dict[str, int] = {}
    if db.has_table(con, "scores"):
        found = db.query(con, "SELECT source_kind, count(*) AS n FROM scores GROUP BY 1")
        counts = {str(k): int(n) for k, n in zip(found["source_kind"], found["n"], strict=True)}
    total = sum(counts.values())
    rows = [(kind, counts.get(kind, 0)) for kind in schema.SOURCE_KINDS]
    frame = pd.DataFrame(rows, columns=["source_kind", "score_rows"])
    frame["share"] = frame["score_rows"] / total if total else 0.0
    return frame


def coverage_by_category(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Benchmarks, score rows and distinct models per benchmark category."""
    columns = ["category", "benchmarks", "score_rows", "models"]
    if not (db.has_table(con, "benchmarks") and db.has_table(con, "scores")):
        return pd.DataFrame(columns=columns)
    sql = """
        SELECT b.category,
               count(DISTINCT b.benchmark_id) AS benchmarks,
               count(s.model_id) AS score_rows,
               count(DISTINCT s.model_id) AS models
        FROM benchmarks b LEFT JOIN scores s USING (benchmark_id)
        GROUP BY b.category
        ORDER BY score_rows DESC, b.category
    """
    frame = db.query(con, sql)
    return frame[columns].astype({c: "int64" for c in columns[1:]})


def catalog_overview(con: duckdb.DuckDBPyConnection) -> Overview:
    """Sizes of every catalog table plus the provenance mix and per-category coverage."""
    return Overview(
        models=_count(con, "models"),
        open_weight_models=_count(con, "models", "count(*) FILTER (WHERE open_weights)"),
        benchmarks=_count(con, "benchmarks"),
        categories=_count(con, "benchmarks", "count(DISTINCT category)"),
        scores=_count(con, "scores"),
        sources=_count(con, "scores", "count(DISTINCT source_name)"),
        gpus=_count(con, "gpus"),
        throughput_rows=_count(con, "throughput"),
        provenance=provenance_mix(con),
        by_category=coverage_by_category(con),
        source_table=source_table(con),
        freshness=freshness(con),
        copies=copies(con),
    )


def snapshot_labels(
    snapshots_dir: Path, data_through: Callable[[str], str | None]
) -> dict[str, str]:
    """version -> a snapshot picker's option for every built snapshot, oldest build first: the
    version with its build date, newest data date (``data_through(version)``, None when
    unknown or unreadable) and counts ('v1a2b3c4d5e · built 2026-08-22 · data through
    2026-08-20 · 312 models, 4,512 scores'); parts a snapshot does not record are left out."""
    out = {}
    for folder, found in snapshot_manifest.built_snapshots(snapshots_dir):
        parts = [folder.name, f"built {snapshot_manifest.built_at(folder, found)[:10]}"]
        try:
            through = data_through(folder.name)
        except Exception:  # an unreadable old snapshot still gets a label
            through = None
        if through:
            parts.append(f"data through {through}")
        counts = found.get("tables") if isinstance(found.get("tables"), dict) else {}
        shown = [plural(int(counts[t]), t[:-1]) for t in ("models", "scores") if t in counts]
        if shown:
            parts.append(", ".join(shown))
        out[folder.name] = " · ".join(parts)
    return out
