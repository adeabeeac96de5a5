"""Community result status (seed 000, "Community results") and the tables pages show.

A result is **Reproduced** once a second contributor (a different GitHub name, compared
case-insensitively) has an accepted result for the same adapter, GPU, input size and precision
whose median agrees within 10%: ``|m1 - m2| / min(m1, m2) <= 0.10``, boundary included (with a
1e-9 relative allowance for float rounding). Until then it is **Unverified**. Community numbers
are stored apart (``community_results``) and never enter our charts or rankings.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import paths
from measure.community import audit, inbox_store
from measure.community.inbox_store import RESULTS_TABLE

REPRODUCE_TOLERANCE = 0.10  # seed 000: "agrees within 10%, the spread our protocol allows"
FAR_FROM_OURS_FACTOR = 1.5  # review flag: median over 1.5x ours, or under 1/1.5 of it
REPRODUCED, UNVERIFIED = "Reproduced", "Unverified"
GROUP = ("adapter", "gpu", "input_size", "precision")
"""What must match for two results to confirm each other."""

RESULT_COLUMNS: dict[str, str] = {
    "result_id": "string",
    "run_id": "string",
    "provenance": "string",
    "github": "string",
    "measured_utc": "string",
    "submitted_utc": "string",
    "accepted_utc": "string",
    "accepted_by": "string",
    "adapter": "string",
    "display_name": "string",
    "task": "string",
    "gpu": "string",
    "driver_version": "string",
    "precision": "string",
    "input_size": "string",
    "median_ms": "float64",
    "p90_ms": "float64",
    "run_spread": "float64",
    "memory_peak_mib": "float64",
    "power_limit_w": "float64",
    "default_power_limit_w": "float64",
    "power_limited": "string",
    "flags": "string",
    "our_median_ms": "float64",
    "tool_commit": "string",
    "adapter_sha256": "string",
    "content_sha256": "string",
}
"""Columns of one ``community_results/<id>.parquet`` row (docs/community.md)."""


def agree(a: float, b: float, tolerance: float = REPRODUCE_TOLERANCE) -> bool:
    """Whether two medians agree within ``tolerance`` (boundary inclusive)."""
    if not (a > 0 and b > 0):
        return False
    diff, allowed = abs(a - b), tolerance * min(a, b)
    return diff <= allowed or math.isclose(diff, allowed, rel_tol=1e-9)


def power_limited(environment: dict[str, Any]) -> bool | None:
    """True when the enforced power limit is below the default one; None when unknown.

    The two limits in watts decide when both are recorded (equal is not limited); otherwise the
    record's own 'yes'/'no' from NVML.
    """
    limit, default = environment.get("power_limit_w"), environment.get("default_power_limit_w")
    if isinstance(limit, int | float) and isinstance(default, int | float):
        return bool(limit < default)
    return {"yes": True, "no": False}.get(str(environment.get("power_limited")))


def with_status(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` plus ``status`` (Reproduced/Unverified) and ``reproduced_by`` (GitHub names)."""
    out = results.copy()
    statuses, confirmers = [], []
    for _, row in out.iterrows():
        same = out
        for key in GROUP:
            same = same[same[key] == row[key]]
        others = same[same["github"].str.lower() != str(row["github"]).lower()]
        names = sorted(
            {
                str(o["github"])
                for _, o in others.iterrows()
                if agree(float(row["median_ms"]), float(o["median_ms"]))
            }
        )
        statuses.append(REPRODUCED if names else UNVERIFIED)
        confirmers.append(", ".join(names))
    out["status"] = pd.Series(statuses, index=out.index, dtype="string")
    out["reproduced_by"] = pd.Series(confirmers, index=out.index, dtype="string")
    return out


def empty_results() -> pd.DataFrame:
    """A results frame with every column and no rows."""
    return pd.DataFrame({k: pd.Series(dtype=t) for k, t in RESULT_COLUMNS.items()})


def _read_folder(folder: Path) -> list[pd.DataFrame]:
    return [pd.read_parquet(f) for f in sorted(folder.glob("*.parquet"))] if folder.is_dir() else []


def load_results(runs_dir: Path | None = None, inbox_root: Path | None = None) -> pd.DataFrame:
    """Every published community result: a file in ``runs_dir/community_results/`` counts only
    when the inbox state says accepted and the audit log has its accept line
    (``inbox_store.published``). Raises InboxError when the state or audit log is damaged."""
    files = inbox_store.published(inbox_root, runs_dir)
    frames = [pd.read_parquet(path) for _, path in sorted(files.items())]
    if not frames:
        return empty_results()
    frame = pd.concat(frames, ignore_index=True)
    return frame.astype({k: t for k, t in RESULT_COLUMNS.items() if k in frame.columns})


def results_fingerprint(runs_dir: Path | None = None, inbox_root: Path | None = None) -> str:
    """Names and modification times of the result files, the inbox state and the audit log with
    its head and anchor (a cache key that changes on every accept, reject or repair)."""
    root = inbox_store.inbox_dir(inbox_root)
    folder = Path(runs_dir or paths.RUNS_DIR) / RESULTS_TABLE
    files = sorted(folder.glob("*.parquet")) if folder.is_dir() else []
    log = root / audit.AUDIT_FILE
    files += [root / inbox_store.STATE_FILE, log, audit.head_path(log), audit.anchor_path(log)]
    return "|".join(f"{f}:{f.stat().st_mtime_ns}:{f.stat().st_size}" for f in files if f.exists())


def our_runs(runs_dir: Path | None = None) -> pd.DataFrame:
    """Our own usable measurements (``vision_runs``): ok, not discarded, standard protocol."""
    frames = _read_folder(Path(runs_dir or paths.RUNS_DIR) / "vision_runs")
    if not frames:
        return pd.DataFrame()
    runs = pd.concat(frames, ignore_index=True)
    keep = (runs["status"] == "ok") & ~runs["discarded"].astype(bool)
    return runs[keep & runs["protocol_standard"].astype(bool)]


def our_run_on(
    adapter: str, gpu: str, precision: str, runs_dir: Path | None = None
) -> dict[str, Any] | None:
    """Our latest usable measurement of ``adapter`` on the GPU named ``gpu`` at ``precision``."""
    runs = our_runs(runs_dir)
    if runs.empty:
        return None
    match = runs[
        (runs["adapter"] == adapter)
        & (runs["device_name"] == gpu)
        & (runs["precision"] == precision)
    ]
    if match.empty:
        return None
    return match.sort_values("created_utc").iloc[-1].to_dict()


def display_name(adapter: str) -> str:
    """The adapter's display name from our registry (never the contributor's copy)."""
    from measure.adapters import registry

    cls = registry().get(adapter)
    return cls.info.display_name if cls is not None and cls.info else adapter


def result_row(
    record: dict[str, Any],
    github: str,
    submitted_utc: str,
    *,
    result_id: str,
    content_sha256: str,
    flags: list[str],
    our_median_ms: float | None,
    accepted_by: str,
    accepted_utc: str,
) -> pd.DataFrame:
    """The one ``community_results`` row of an accepted bundle."""
    env, proto, info = record["environment"], record["protocol"], record["adapter"]["info"]
    limited = power_limited(env)
    row = {
        "result_id": result_id,
        "run_id": record["run_id"],
        "provenance": "community",
        "github": github,
        "measured_utc": record["created_utc"],
        "submitted_utc": submitted_utc,
        "accepted_utc": accepted_utc,
        "accepted_by": accepted_by,
        "adapter": record["adapter"]["name"],
        "display_name": display_name(record["adapter"]["name"]),
        "task": record["adapter"]["task"],
        "gpu": env["device_name"],
        "driver_version": env.get("driver_version"),
        "precision": proto["precision"],
        "input_size": info["default_input_size"],
        "median_ms": record["median_ms"],
        "p90_ms": record["p90_ms"],
        "run_spread": record["run_spread"],
        "memory_peak_mib": record.get("vram_peak_mib"),
        "power_limit_w": env.get("power_limit_w"),
        "default_power_limit_w": env.get("default_power_limit_w"),
        "power_limited": {True: "yes", False: "no", None: "unknown"}[limited],
        "flags": "; ".join(flags),
        "our_median_ms": our_median_ms,
        "tool_commit": record["tool"].get("git_commit"),
        "adapter_sha256": record["adapter"]["source_sha256"],
        "content_sha256": content_sha256,
    }
    return pd.DataFrame([row]).astype(RESULT_COLUMNS)


def community_table(
    adapter: str, runs_dir: Path | None = None, inbox_root: Path | None = None
) -> pd.DataFrame:
    """The model page's "Community results": one row per published result, newest first."""
    results = load_results(runs_dir, inbox_root)
    results = with_status(results)[results["adapter"] == adapter]
    results = results.sort_values(["measured_utc", "result_id"], ascending=False)
    return pd.DataFrame(
        {
            "GPU": results["gpu"],
            "contributor": results["github"],
            "profile": "https://github.com/" + results["github"],
            "date": results["measured_utc"].str.slice(0, 10),
            "precision": results["precision"],
            "input size": results["input_size"],
            "median latency (ms)": results["median_ms"],
            "p90 latency (ms)": results["p90_ms"],
            "status": results["status"],
            "reproduced by": results["reproduced_by"],
            "power": results["power_limited"].map({"yes": "power-limited"}).fillna(""),
        }
    ).reset_index(drop=True)


def comparison_table(
    record: dict[str, Any], recomputed: dict[str, Any], our_run: dict[str, Any] | None
) -> pd.DataFrame:
    """Side by side for the reviewer: recorded, recomputed from the calls, ours on that GPU."""
    ours = our_run or {}
    rows = [
        ("median_ms", record["median_ms"], recomputed.get("median_ms"), ours.get("median_ms")),
        ("p90_ms", record["p90_ms"], recomputed.get("p90_ms"), ours.get("p90_ms")),
        ("run_spread", record["run_spread"], recomputed.get("run_spread"), ours.get("run_spread")),
        (
            "vram_peak_mib",
            record.get("vram_peak_mib"),
            recomputed.get("vram_peak_mib"),
            ours.get("memory_peak_mib"),
        ),
    ]
    frame = pd.DataFrame(rows, columns=["figure", "submitted", "recomputed", "ours"])
    return frame.astype({"submitted": "float64", "recomputed": "float64", "ours": "float64"})
