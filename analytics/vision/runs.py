"""Verified-vision summaries for pages and notebooks: rankings, one model, review marks.

Reads the measured-run views (``vision_runs``, ``vision_calls``, ``vision_memory``,
``vision_outputs``, ``vision_failures``) through ``analytics.core.db``. Adapter metadata comes in as
a ``catalog`` DataFrame (``measure.adapters.catalog.adapter_catalog()``, composed by ``ui.vision``):
this module never imports ``measure``. Rankings use only our own measured, standard-protocol,
non-discarded, listable runs, and only one device at a time (seed 000, "How we verify").
Never imports streamlit.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd

from analytics.core import atomic, db, paths
from analytics.core.licences import licence_verdict

NOT_LEGAL_ADVICE = (
    "The licence verdict is the stricter of the code and weights licences as we read them on the "
    "dates shown. It is a summary, not legal advice."
)


def runs_fingerprint(runs_dir: Path | None = None) -> str:
    """A short hash of the run files present (names and sizes): a cache key for run data."""
    folder = Path(runs_dir or paths.RUNS_DIR)
    parts = (
        sorted(
            f"{p.relative_to(folder)}:{p.stat().st_size}:{p.stat().st_mtime_ns}"
            for p in folder.glob("vision_*/*.parquet")
        )
        if folder.is_dir()
        else []
    )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def all_runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every stored measurement (ours), newest first; empty when none is stored."""
    if not db.has_table(con, "vision_runs"):
        return pd.DataFrame(columns=["run_id", "adapter", "task", "device_kind", "device_name"])
    return db.query(con, "SELECT * FROM vision_runs ORDER BY created_utc DESC")


def exclusion_reason(row: pd.Series) -> str:
    """Why a stored run is not ranked ('' when it is rankable)."""
    if row["status"] != "ok":
        return f"failed: {row['error']}"
    if row["discarded"]:
        return f"discarded: {row['discard_reason']}"
    if not row["protocol_standard"]:
        return "non-standard protocol (test or partial run)"
    if not row["listable"]:
        return f"not listable: {row['listable_reason']}"
    return ""


def devices(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Device labels with at least one stored run, GPUs first ("gpu: NAME" / "cpu: NAME")."""
    runs = all_runs(con)
    if runs.empty:
        return []
    labels = (runs["device_kind"] + ": " + runs["device_name"]).drop_duplicates()
    return sorted(labels, key=lambda s: (not s.startswith("gpu"), s))


@dataclass(frozen=True)
class Leaderboard:
    """A ranking on one task and one device, plus the runs left out and why."""

    task: str
    device: str
    ranked: pd.DataFrame
    excluded: pd.DataFrame


def leaderboard(
    con: duckdb.DuckDBPyConnection, catalog: pd.DataFrame, task: str, device: str
) -> Leaderboard:
    """Rank adapters by our median latency on one device (latest rankable run per adapter);
    ``catalog`` is the adapter catalog (one row per registered adapter)."""
    runs = all_runs(con)
    if not runs.empty:
        runs = runs[
            (runs["task"] == task) & (runs["device_kind"] + ": " + runs["device_name"] == device)
        ]
    if runs.empty:
        return Leaderboard(task, device, pd.DataFrame(), pd.DataFrame())
    runs = runs.assign(why_not_ranked=runs.apply(exclusion_reason, axis=1))
    rankable = runs[runs["why_not_ranked"] == ""].sort_values("created_utc", ascending=False)
    latest = rankable.drop_duplicates("adapter").sort_values("median_ms").reset_index(drop=True)
    ranked = with_current_metadata(latest, catalog)
    ranked.insert(0, "rank", range(1, len(ranked) + 1))
    excluded = runs[runs["why_not_ranked"] != ""][
        ["adapter", "created_utc", "median_ms", "why_not_ranked", "run_id"]
    ]
    return Leaderboard(task, device, ranked, excluded.reset_index(drop=True))


_METADATA = ("display_name", "code_licence", "weights_licence", "runs_with_fixes", "patch_url",
             "paper_value", "paper_metric", "paper_benchmark", "paper_url")  # fmt: skip


def with_current_metadata(runs: pd.DataFrame, catalog: pd.DataFrame) -> pd.DataFrame:
    """Runs with licences, paper figure and fixes from the catalog where the adapter is still
    registered (the record's own copy otherwise), plus the licence verdict."""
    catalog = catalog.set_index("adapter")
    out = runs.copy()
    known = out["adapter"].isin(catalog.index)
    for col in _METADATA:
        current = out.loc[known, "adapter"].map(catalog[col])
        out[col] = out[col].astype(object)
        out.loc[known, col] = current.astype(object)
    out["licence_verdict"] = [
        licence_verdict(c, w)
        for c, w in zip(out["code_licence"], out["weights_licence"], strict=True)
    ]
    return out


def ranking_table(board: Leaderboard) -> pd.DataFrame:
    """The columns the leaderboard shows: our figures first, the authors' figure labelled."""
    if board.ranked.empty:
        return board.ranked
    r = board.ranked
    return pd.DataFrame(
        {
            "rank": r["rank"],
            "model": r["display_name"],
            "median latency (ms, ours)": r["median_ms"].round(2),
            "p90 latency (ms, ours)": r["p90_ms"].round(2),
            "memory peak (MiB, ours)": r["memory_peak_mib"].round(1),
            "memory": r["memory_kind"].str.upper(),
            "AP (ours)": r["ap"].round(3),
            "AP50 (ours)": r["ap50"].round(3),
            "our benchmark": r["accuracy_benchmark"],
            "author-reported": r.apply(_paper_label, axis=1),
            "precision": r["precision"],
            "licence verdict": r["licence_verdict"],
            "runs with fixes": r["runs_with_fixes"].map({True: "runs with fixes", False: ""}),
            "power-limited": r["power_limited"],
            "run_id": r["run_id"],
        }
    )


def _paper_label(row: pd.Series) -> str:
    if row["paper_value"] is None or pd.isna(row["paper_value"]):
        return f"none comparable ({row['paper_benchmark']})"
    return f"{row['paper_value']} {row['paper_metric']} on {row['paper_benchmark']} (authors)"


@dataclass(frozen=True)
class ModelView:
    """Everything the model page shows for one adapter."""

    adapter: str
    meta: pd.Series | None
    runs: pd.DataFrame
    calls: pd.DataFrame
    memory: pd.DataFrame


def model_view(
    con: duckdb.DuckDBPyConnection,
    catalog: pd.DataFrame,
    adapter: str,
    run_id: str | None = None,
) -> ModelView:
    """Runs of one adapter (with why each is not ranked), and the timed calls and memory trace
    of ``run_id`` (default: the latest run); ``meta`` is its ``catalog`` row."""
    found = catalog[catalog["adapter"] == adapter]
    meta = found.iloc[0] if len(found) else None
    runs = all_runs(con)
    runs = runs[runs["adapter"] == adapter] if not runs.empty else runs
    if runs.empty:
        return ModelView(adapter, meta, runs, pd.DataFrame(), pd.DataFrame())
    runs = runs.assign(why_not_ranked=runs.apply(exclusion_reason, axis=1))
    if run_id not in set(runs["run_id"]):
        run_id = runs.iloc[0]["run_id"]
    sql = "SELECT * FROM {} WHERE run_id = ? ORDER BY run_index, {}"
    calls = db.query(con, sql.format("vision_calls", "call_index"), [run_id])
    memory = db.query(con, sql.format("vision_memory", "t_s"), [run_id])
    return ModelView(adapter, meta, runs, calls, memory)


def accuracy_vs_paper(view: ModelView) -> pd.DataFrame:
    """Our accuracy per run first, the authors' figure beside it, each labelled."""
    if view.runs.empty:
        return pd.DataFrame()
    rows = view.runs[view.runs["ap"].notna()]
    out = pd.DataFrame(
        {
            "run_id": rows["run_id"],
            "source": "ours (measured)",
            "benchmark": rows["accuracy_benchmark"],
            "AP": rows["ap"].round(3),
            "AP50": rows["ap50"].round(3),
            "precision": rows["precision"],
        }
    )
    meta = view.meta
    if meta is not None:
        paper = pd.DataFrame(
            [
                {
                    "run_id": "",
                    "source": f"author-reported ({meta['paper_url']})",
                    "benchmark": meta["paper_benchmark"],
                    "AP": meta["paper_value"],
                    "AP50": None,
                    "precision": "",
                }
            ]
        )
        out = pd.concat([out, paper], ignore_index=True)
    return out


def outputs_for_review(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Detections above the task threshold on the shared inputs, with any failure marks."""
    if not db.has_table(con, "vision_outputs"):
        return pd.DataFrame()
    out = db.query(
        con,
        "SELECT * FROM vision_outputs WHERE run_id = ? AND above_threshold ORDER BY output_index",
        [run_id],
    )
    marks = failure_marks(con, run_id)
    out["failure"] = False
    out["note"] = ""
    if not marks.empty:
        out = out.drop(columns=["failure", "note"]).merge(
            marks[["output_index", "failure", "note"]], on="output_index", how="left"
        )
        out["failure"] = out["failure"].fillna(False).astype(bool)
        out["note"] = out["note"].fillna("")
    return out


def failure_marks(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """The stored hand review of one run's outputs (empty when not reviewed)."""
    if not db.has_table(con, "vision_failures"):
        return pd.DataFrame()
    return db.query(con, "SELECT * FROM vision_failures WHERE run_id = ?", [run_id])


def save_failure_marks(
    run_id: str, marks: pd.DataFrame, reviewer: str, runs_dir: Path | None = None
) -> Path:
    """Store a maintainer's review of one run's outputs (replaces that run's previous review)."""
    needed = {"output_index", "input_name", "failure"}
    if not needed <= set(marks.columns):
        raise ValueError(f"review marks lack columns {sorted(needed - set(marks.columns))}")
    frame = marks[["output_index", "input_name", "failure"]].copy()
    frame["note"] = marks["note"] if "note" in marks else ""
    frame.insert(0, "run_id", run_id)
    frame["reviewer"] = reviewer
    frame["reviewed_utc"] = datetime.now(UTC).isoformat(timespec="seconds")
    path = Path(runs_dir or paths.RUNS_DIR) / "vision_failures" / f"{run_id}.parquet"
    atomic.write_parquet(path, frame)
    return path
