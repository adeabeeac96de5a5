"""Verified-vision summaries for pages and notebooks: rankings, one model, review marks.

Reads the measured-run views (``vision_runs``, ``vision_calls``, ``vision_memory``,
``vision_outputs``, ``vision_failures``) through ``analytics.core.db``. Adapter metadata comes in as
a ``catalog`` DataFrame (``measure.adapters.catalog.adapter_catalog()``, composed by ``ui.vision``):
this module never imports ``measure``. Rankings use only our own measured, standard-protocol,
non-discarded, listable runs, one device at a time (seed 000, "How we verify"). No streamlit.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from analytics.core import atomic, db, paths, problems, run_schema, run_unit, safejson
from analytics.core.licences import licence_verdict

NOT_LEGAL_ADVICE = (
    "The licence verdict is the stricter of the code and weights licences as we read them on the "
    "dates shown. It is a summary, not legal advice."
)


def runs_fingerprint(runs_dir: Path | None = None) -> str:
    """A short hash of the run files present (names, sizes, mtimes): a cache key for run data."""
    return run_unit.fingerprint(Path(runs_dir or paths.RUNS_DIR))


def damaged_runs(runs_dir: Path | None = None) -> tuple[str, ...]:
    """One line per stored run that is not served because its record, tables and run manifest
    disagree (cut short, truncated, edited): the pages skip it and name it."""
    return run_unit.units(Path(runs_dir or paths.RUNS_DIR)).damaged


def all_runs(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every stored measurement (ours), newest first (runs stored in the same instant by
    run_id, so the order never varies between calls); empty when none is stored."""
    if not db.has_table(con, "vision_runs"):
        return pd.DataFrame(columns=["run_id", "adapter", "task", "device_kind", "device_name"])
    columns = ", ".join(run_schema.VISION_RUNS_COLUMNS)  # declared names, never SELECT *
    return db.query(con, f"SELECT {columns} FROM vision_runs ORDER BY created_utc DESC, run_id")


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
             "paper_value", "paper_metric", "paper_benchmark", "paper_url")


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


def _with_evidence(runs: pd.DataFrame, evidence: pd.DataFrame | None) -> pd.DataFrame:
    """``runs`` with the evidence columns (``analytics.vision.evidence.COLUMNS``) of its runs."""
    cols = ["images", "objects", "ap_low", "ap_high", "ap50_low", "ap50_high", "sanity_only"]
    if evidence is None or evidence.empty:
        return runs.assign(**dict.fromkeys(cols, None))
    found = evidence.set_index("run_id")
    return runs.assign(**{c: runs["run_id"].map(found[c]) for c in cols})


def _evidence_columns(r: pd.DataFrame) -> dict[str, pd.Series]:
    from analytics.vision.evidence import evidence_text, interval_text

    return {
        "AP 95% interval (ours)": [
            interval_text(lo, hi) for lo, hi in zip(r["ap_low"], r["ap_high"], strict=True)
        ],
        "AP50 95% interval (ours)": [
            interval_text(lo, hi) for lo, hi in zip(r["ap50_low"], r["ap50_high"], strict=True)
        ],
        "Accuracy rests on": [
            evidence_text(i, o, s)
            for i, o, s in zip(r["images"], r["objects"], r["sanity_only"], strict=True)
        ],
    }


def ranking_table(board: Leaderboard, evidence: pd.DataFrame | None = None) -> pd.DataFrame:
    """The columns the leaderboard shows (human headers): our figures first, each accuracy with
    the images and objects it rests on and its bootstrap interval (``evidence``, from
    ``analytics.vision.evidence``), the authors' figure labelled."""
    if board.ranked.empty:
        return board.ranked
    r = _with_evidence(board.ranked, evidence)
    return pd.DataFrame(
        {
            "Rank": r["rank"],
            "Model": r["display_name"],
            "Median latency (ms, ours)": r["median_ms"].round(2),
            "p90 latency (ms, ours)": r["p90_ms"].round(2),
            "Memory peak (MiB, ours)": r["memory_peak_mib"].round(1),
            "Memory": r["memory_kind"].str.upper(),
            "AP (ours)": r["ap"].round(3),
            "AP50 (ours)": r["ap50"].round(3),
            **_evidence_columns(r),
            "Our accuracy set": r["accuracy_benchmark"],
            "Author-reported": r.apply(_paper_label, axis=1),
            "Precision": r["precision"],
            "Licence verdict": r["licence_verdict"],
            "Runs with fixes": r["runs_with_fixes"].map({True: "runs with fixes", False: ""}),
            "Power-limited": r["power_limited"],
            "Run ID": r["run_id"],
        }
    )


def _paper_label(row: pd.Series) -> str:
    if row["paper_value"] is None or pd.isna(row["paper_value"]):
        return ""  # no comparable figure from the authors: a blank cell
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


def accuracy_vs_paper(view: ModelView, evidence: pd.DataFrame | None = None) -> pd.DataFrame:
    """Our accuracy per run first, with the images and objects it rests on and its bootstrap
    intervals (``evidence``), the authors' figure beside it (when they report one), labelled."""
    if view.runs.empty:
        return pd.DataFrame()
    rows = _with_evidence(view.runs[view.runs["ap"].notna()], evidence)
    extra = _evidence_columns(rows)
    out = pd.DataFrame(
        {
            "run_id": rows["run_id"],
            "source": "ours (measured)",
            "benchmark": rows["accuracy_benchmark"],
            "AP": rows["ap"].round(3),
            "AP 95% interval": extra["AP 95% interval (ours)"],
            "AP50": rows["ap50"].round(3),
            "AP50 95% interval": extra["AP50 95% interval (ours)"],
            "evidence": extra["Accuracy rests on"],
            "precision": rows["precision"],
        }
    )
    meta = view.meta
    if meta is not None and not pd.isna(meta["paper_value"]):
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


MISS_INDEX = -1
"""``output_index`` of a review mark recording a missed object (``analytics.vision.review``)."""


def outputs_for_review(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """Detections above the task threshold on the shared inputs, with any failure marks; a
    missed object (a mark with ``output_index`` = :data:`MISS_INDEX`) is a row without a box."""
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
    out["reviewer"] = ""
    out["reviewed_utc"] = ""
    if not marks.empty:
        kept = [c for c in REVIEW_MARK_COLUMNS if c in marks.columns]
        out = out.drop(columns=kept[1:]).merge(marks[kept], on="output_index", how="left")
        misses = marks[marks["output_index"] == MISS_INDEX]
        if not misses.empty:  # a missed object has no output row: shown as its own row
            keep = [c for c in ("input_name", *kept) if c in misses.columns]
            out = pd.concat([out, misses[keep]], ignore_index=True)
        out["failure"] = out["failure"].fillna(False).astype(bool)
        for col in ("note", "reviewer", "reviewed_utc"):
            out[col] = out[col].fillna("").astype(str) if col in out else ""
    return out


REVIEW_MARK_COLUMNS = ("output_index", "failure", "note", "reviewer", "reviewed_utc")
"""The columns of a stored review joined beside each output (``vision_failures``)."""


def failure_marks(con: duckdb.DuckDBPyConnection, run_id: str) -> pd.DataFrame:
    """The stored hand review of one run's outputs (empty when not reviewed)."""
    if not db.has_table(con, "vision_failures"):
        return pd.DataFrame()
    return db.query(con, "SELECT * FROM vision_failures WHERE run_id = ?", [run_id])


def review_frame(run_id: str, marks: pd.DataFrame, reviewer: str) -> pd.DataFrame:
    """The stored form of a maintainer's review of one run's outputs, stamped now."""
    needed = {"output_index", "input_name", "failure"}
    if not needed <= set(marks.columns):
        raise ValueError(f"review marks lack columns {sorted(needed - set(marks.columns))}")
    frame = marks[["output_index", "input_name", "failure"]].copy()
    frame["note"] = marks["note"] if "note" in marks else ""
    frame.insert(0, "run_id", run_id)
    frame["reviewer"] = reviewer
    frame["reviewed_utc"] = datetime.now(UTC).isoformat(timespec="seconds")
    return frame


def save_failure_marks(
    run_id: str,
    marks: pd.DataFrame,
    reviewer: str,
    runs_dir: Path | None = None,
    before_write: Callable[[pd.DataFrame], object] | None = None,
) -> Path:
    """Store a maintainer's review of one run's outputs (replaces that run's previous review);
    ``before_write`` gets the stored form first (the committed review trail's entry)."""
    frame = review_frame(run_id, marks, reviewer)
    if before_write is not None:
        before_write(frame)
    path = Path(runs_dir or paths.RUNS_DIR) / "vision_failures" / f"{run_id}.parquet"
    atomic.write_parquet(path, frame)
    return path


# --- human labels ---------------------------------------------------------------------------

COLUMN_LABELS: dict[str, str] = {
    "adapter": "Adapter",
    "display_name": "Model",
    "run_id": "Run ID",
    "run_index": "Run",
    "created_utc": "Measured (UTC)",
    "status": "Status",
    "device_kind": "Device kind",
    "device_name": "Device",
    "precision": "Precision",
    "median_ms": "Median latency (ms)",
    "p90_ms": "p90 latency (ms)",
    "run_spread": "Spread of run medians (fraction)",
    "memory_kind": "Memory kind",
    "memory_peak_mib": "Memory peak above idle (MiB)",
    "sampler_interval_median_ms": "Memory sampling interval, median (ms)",
    "sampler_ok": "Sampler kept pace",
    "why_not_ranked": "Why not ranked",
    "input_name": "Input image",
    "output_index": "Output #",
    "x": "Box x (px)",
    "y": "Box y (px)",
    "w": "Box width (px)",
    "h": "Box height (px)",
    "score": "Score",
    "category_id": "COCO category",
    "failure": "Failure (hand-marked)",
    "note": "Reviewer's note",
    "reviewer": "Reviewed by",
    "reviewed_utc": "Reviewed (UTC)",
    "latency_ms": "Latency per predict() call (ms)",
    "t_s": "Time since start (s)",
    "used_mib": "Memory (MiB)",
}
"""Raw column name -> the header a page shows (units in brackets); pages never show raw names."""


def labelled(frame: pd.DataFrame, columns: Iterable[str]) -> pd.DataFrame:
    """``frame[columns]`` with human headers (``COLUMN_LABELS``); an empty frame keeps the
    headers, so a table always has a header row."""
    columns = list(columns)
    out = frame.reindex(columns=columns) if frame.empty else frame[columns]
    return out.rename(columns=COLUMN_LABELS)


def raw_name(label: str) -> str:
    """The raw column behind a human header (the header itself when it is not one of ours)."""
    return {v: k for k, v in COLUMN_LABELS.items()}.get(label, label)


EXCLUDED_COLUMNS = ("adapter", "created_utc", "median_ms", "why_not_ranked", "run_id")


def excluded_table(board: Leaderboard) -> pd.DataFrame:
    """The runs left out of a ranking and why, with human headers (empty: headers only)."""
    return labelled(board.excluded, EXCLUDED_COLUMNS)


MODEL_RUN_COLUMNS = (
    "run_id", "created_utc", "device_kind", "device_name", "precision", "median_ms", "p90_ms",
    "run_spread", "memory_kind", "memory_peak_mib", "sampler_interval_median_ms", "sampler_ok",
    "why_not_ranked",
)


def model_runs_table(view: ModelView) -> pd.DataFrame:
    """One adapter's runs with human headers (memory kind as RAM/VRAM)."""
    runs = view.runs
    if not runs.empty:
        runs = runs.assign(memory_kind=runs["memory_kind"].str.upper())
    return labelled(runs, MODEL_RUN_COLUMNS)


ACCURACY_COLUMNS = ["run_id", "source", "benchmark", "AP", "AP 95% interval", "AP50",
                    "AP50 95% interval", "evidence", "precision"]


def accuracy_table(view: ModelView, evidence: pd.DataFrame | None = None) -> pd.DataFrame:
    """``accuracy_vs_paper`` with human headers."""
    acc = accuracy_vs_paper(view, evidence)
    if acc.empty:
        acc = pd.DataFrame(columns=ACCURACY_COLUMNS)
    return acc.rename(
        columns={"run_id": "Run ID", "source": "Source", "benchmark": "Benchmark",
                 "precision": "Precision", "evidence": "Rests on"}
    )


def licence_table(catalog: pd.DataFrame, task: str) -> pd.DataFrame:
    """The licences of one task's models with human headers; ``Code licence text`` and
    ``Weights model card`` hold the URLs we read them at (seed 000, section 06)."""
    rows = catalog[catalog["task"] == task]
    code_on, weights_on = rows["code_licence_read_on"], rows["weights_licence_read_on"]
    read_on = code_on.where(code_on == weights_on, "code " + code_on + ", weights " + weights_on)
    return pd.DataFrame(
        {
            "Model": rows["display_name"],
            "Code licence": rows["code_licence"],
            "Code licence text": rows["code_licence_url"],
            "Weights licence": rows["weights_licence"],
            "Weights model card": rows["weights_licence_url"],
            "Read on": read_on,
            "Verdict": rows["licence_verdict"],
        }
    ).reset_index(drop=True)


OUTPUT_COLUMNS = ("output_index", "input_name", "x", "y", "w", "h", "score", "failure", "note",
                  "reviewer", "reviewed_utc")
"""The columns of the hand-review table, in order; the last four are the stored marks."""


def review_table(outputs: pd.DataFrame) -> pd.DataFrame:
    """One run's outputs with their failure marks beside them, human headers."""
    return labelled(outputs, OUTPUT_COLUMNS)


def review_state(outputs: pd.DataFrame) -> str:
    """'not reviewed yet', or who reviewed the run and when (one line)."""
    who = outputs.get("reviewer", pd.Series(dtype=str))
    reviewed = outputs[who.fillna("").astype(str) != ""] if len(outputs) else outputs
    if reviewed.empty:
        return "not reviewed yet"
    names = ", ".join(sorted(set(reviewed["reviewer"])))
    when = max(reviewed["reviewed_utc"].astype(str))
    index = outputs["output_index"] if "output_index" in outputs else pd.Series(0, outputs.index)
    missed = index == MISS_INDEX
    dets = outputs[~missed]
    failures = int(dets["failure"].astype(bool).sum())
    marked = f"{failures} of {len(dets)} detections marked failures"
    if missed.any():
        marked += f", {int(missed.sum())} missed object{'s' if missed.sum() > 1 else ''}"
    return f"reviewed by {names} on {when[:10]}: {marked}"


# --- Pareto front (accuracy vs latency) ----------------------------------------------------

STANDARD_BENCHMARKS = ("COCO val2017",)
"""Full standard benchmarks (seed 000, section 05); any other accuracy set is our own."""


def pareto_front(latency_ms: pd.Series, accuracy: pd.Series) -> pd.Series:
    """True for models no other model dominates: none is at least as fast and at least as
    accurate, and strictly better in one of the two. Identical points are both on the front;
    a model with a missing latency or accuracy is never on it. Aligned with ``latency_ms``."""
    x = pd.to_numeric(latency_ms, errors="coerce").astype(float).to_numpy()
    y = pd.to_numeric(accuracy, errors="coerce").astype(float).reindex(latency_ms.index).to_numpy()
    valid = ~(np.isnan(x) | np.isnan(y))
    on = valid.copy()
    for i in np.flatnonzero(valid):
        others = valid & (x <= x[i]) & (y >= y[i]) & ((x < x[i]) | (y > y[i]))
        on[i] = not others.any()
    return pd.Series(on, index=latency_ms.index)


def accuracy_set_label(benchmarks: Iterable[str]) -> str:
    """What the accuracy axis is measured on: our own set unless a standard benchmark."""
    names = sorted({b for b in benchmarks if b})
    if names and all(n in STANDARD_BENCHMARKS for n in names):
        return f"AP on {', '.join(names)} (ours, standard benchmark)"
    return "AP on our set, not a standard benchmark"


def pareto_points(board: Leaderboard) -> pd.DataFrame:
    """The ranked models with an AP on our accuracy set: latency, AP, the front flag and a
    hover line (model, median and p90 ms, AP, AP50, memory peak with its kind, licence)."""
    cols = ["model", "median_ms", "p90_ms", "ap", "ap50", "on_front", "hover"]
    r = board.ranked
    if r.empty or "ap" not in r:
        return pd.DataFrame(columns=cols)
    r = r[r["ap"].notna() & r["median_ms"].notna()]
    if r.empty:
        return pd.DataFrame(columns=cols)
    kind = r["memory_kind"].fillna("").str.upper()
    peak = r["memory_peak_mib"].map(lambda v: "n/a" if pd.isna(v) else f"{v:.1f} MiB")
    ap50 = r["ap50"].map(lambda v: "n/a" if pd.isna(v) else f"{v:.3f}")
    hover = (
        "<b>" + r["display_name"].astype(str) + "</b><br>"
        + "median " + r["median_ms"].map("{:.1f}".format) + " ms, p90 "
        + r["p90_ms"].map("{:.1f}".format) + " ms<br>"
        + "AP " + r["ap"].map("{:.3f}".format) + ", AP50 " + ap50 + "<br>"
        + "memory peak " + peak + " (" + kind + ")<br>"
        + "licence: " + r["licence_verdict"].astype(str)
    )
    return pd.DataFrame(
        {
            "model": r["display_name"],
            "median_ms": r["median_ms"],
            "p90_ms": r["p90_ms"],
            "ap": r["ap"],
            "ap50": r["ap50"],
            "on_front": pareto_front(r["median_ms"], r["ap"]),
            "hover": hover,
            "benchmark": r["accuracy_benchmark"],
        }
    ).reset_index(drop=True)


# --- memory baseline ------------------------------------------------------------------------

RECORD_MAX_BYTES = 256 * 2**20
"""Largest run record read back for its memory baselines (our own records are a few MiB)."""


def memory_baselines(run_id: str, runs_dir: Path | None = None) -> pd.DataFrame:
    """Per run of one measurement: the idle baseline taken before loading, the highest sample
    and the reported peak (highest sample minus baseline; seed 000, section 04), from the stored
    record ``records/<run_id>.json`` (the Parquet tables do not carry the baseline).

    Empty when no record is stored; ``ValueError`` (one problem line) when it is unreadable.
    """
    cols = ["run_index", "kind", "baseline_mib", "highest_mib", "above_baseline_mib"]
    path = Path(runs_dir or paths.RUNS_DIR) / "records" / f"{run_id}.json"
    if not path.is_file():
        return pd.DataFrame(columns=cols)
    fix = "re-run the measurement; records are written by python -m measure run"
    try:
        record = safejson.loads(path.read_bytes(), RECORD_MAX_BYTES, run_schema.MAX_DEPTH)
        rows = []
        for index, run in enumerate(record.get("runs") or []):
            memory = run.get("memory") or {}
            used = memory.get("used_mib") or []
            if not used:
                continue
            base = float(memory["baseline_mib"])
            top = float(max(used))
            rows.append((index, memory.get("kind", ""), base, top, top - base))
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:  # JsonLimitError too
        what = f"memory baseline unreadable ({exc})"
        raise ValueError(problems.at(path, None, what, fix)) from None
    return pd.DataFrame(rows, columns=cols)


# --- measuring extras -----------------------------------------------------------------------


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def missing_extras(
    requires: Iterable[str],
    install_lines: Iterable[str],
    installed: Callable[[str], bool] | None = None,
) -> list[tuple[str, str]]:
    """(requirement, pip command) for each of an adapter's ``requires`` entries
    ("name==version", optionally "(--no-deps)") whose distribution is not installed. The command
    is the adapter's own install line naming that distribution, else one built from the entry.
    Checks installed distributions without importing them (torch-heavy packages stay out);
    ``installed`` replaces that check (tests)."""
    installed = installed or _installed
    lines = list(install_lines)
    out = []
    for spec in requires:
        pinned = spec.split()[0]
        name = pinned.split("==")[0]
        if installed(name):
            continue
        own = [line for line in lines if name in line.split() or f" {name}==" in f" {line}"]
        built = f"pip install {'--no-deps ' if '--no-deps' in spec else ''}{pinned}"
        out.append((spec, own[0] if own else built))
    return out
