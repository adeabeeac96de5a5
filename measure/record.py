"""The run record: one JSON document per measurement, its schema and its recomputation.

A record holds the raw observations (every timed call, every memory sample, every detection)
and the figures derived from them. ``recompute(record)`` derives the figures again from the
observations alone; ``build`` uses it, so stored figures and recomputed ones cannot drift, and
``python -m measure verify`` compares them. Documented in docs/measure.md ("Run record").
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from measure import protocol

RECORD_VERSION = 1

SCHEMA: dict[str, str] = {
    "record_version": "int: schema version of this document (RECORD_VERSION)",
    "run_id": "str: <adapter>-<device kind>-<UTC time>-<hash>, unique",
    "created_utc": "str: ISO 8601 time the measurement finished",
    "status": "str: 'ok' or 'failed' (a run crashed, ran out of memory or failed to import)",
    "error": "str|null: the first failing run's one-line error",
    "tool": "obj: git_commit, git_dirty of the measuring tool",
    "adapter": "obj: spec, name, task, source_file, source_sha256, info (metadata)",
    "lock": "obj: requirements_sha256, pip_freeze, pip_freeze_sha256",
    "inputs": "obj: dir, files[{name, sha256}] of the shared input set",
    "weights": "list: {file, path, sha256} per weights file the adapter loaded",
    "environment": "obj: device, device_kind, device_name, cpu/gpu facts, power_limited",
    "protocol": "obj: runs, warmup, calls, batch_size, precision, precision_reason, standard, "
    "nonstandard_reasons, task, score_threshold, timer, sync",
    "runs": "list: per run: calls_ms, warmup_ms, input_index, load_s, disturbance, memory "
    "(kind, baseline_mib, t_s, used_mib, phase), error",
    "accuracy": "obj|null: benchmark, ground_truth, ground_truth_sha256, image_ids, "
    "detections, stats",
    "outputs": "list: detections on the shared inputs (input_index, bbox, score, category_id)",
    "median_ms": "float: median of all timed calls of all runs pooled",
    "p90_ms": "float: 90th percentile (linear interpolation) of the same pool",
    "run_medians_ms": "list: median of each run",
    "run_spread": "float: (max-min)/min of run_medians_ms",
    "discarded": "bool: spread over 10% or a disturbed run",
    "discard_reason": "str: why, '' when not discarded",
    "memory_kind": "str: 'vram' (NVML, GPU) or 'ram' (process RSS, CPU)",
    "vram_peak_mib | ram_peak_mib": "float: max over runs of (max sample - idle baseline)",
    "sampler": "obj: interval_median_ms, interval_max_ms, missed_deadlines, sampler_ok",
    "listable": "bool: status ok and peak within 24 GiB",
    "listable_reason": "str: why not listable, '' when listable",
}
"""Every top-level key and what it holds (the record's documented schema)."""

_FIGURES = (
    "median_ms",
    "p90_ms",
    "run_medians_ms",
    "run_spread",
    "discarded",
    "discard_reason",
    "memory_kind",
    "sampler",
    "listable",
    "listable_reason",
)


def peak_key(kind: str) -> str:
    """``vram_peak_mib`` for GPU memory, ``ram_peak_mib`` for process RAM."""
    return "vram_peak_mib" if kind == "vram" else "ram_peak_mib"


def _run_peak_mib(memory: dict[str, Any]) -> float | None:
    used = memory.get("used_mib") or []
    return max(used) - memory["baseline_mib"] if used else None


def _memory_figures(runs: list[dict]) -> dict[str, Any]:
    memories = [r["memory"] for r in runs if r.get("memory")]
    kind = memories[0]["kind"] if memories else "ram"
    peaks = [p for p in (_run_peak_mib(m) for m in memories) if p is not None]
    stats = [protocol.sampler_stats(m.get("t_s") or []) for m in memories]
    medians = [s["interval_median_ms"] for s in stats if s["interval_median_ms"] is not None]
    maxima = [s["interval_max_ms"] for s in stats if s["interval_max_ms"] is not None]
    sampler = {
        "interval_median_ms": max(medians) if medians else None,
        "interval_max_ms": max(maxima) if maxima else None,
        "missed_deadlines": sum(s["missed_deadlines"] for s in stats),
        "sampler_ok": bool(stats) and all(s["sampler_ok"] for s in stats),
        "per_run": stats,
    }
    return {"memory_kind": kind, peak_key(kind): max(peaks) if peaks else None, "sampler": sampler}


def _listable(status: str, peak_mib: float | None) -> tuple[bool, str]:
    if status != "ok":
        return False, "the measurement failed"
    if peak_mib is not None and peak_mib > protocol.LISTABLE_PEAK_MIB:
        return False, f"memory peak {peak_mib:.0f} MiB exceeds 24 GiB"
    return True, ""


def recompute(record: dict[str, Any], ground_truth: dict | None = None) -> dict[str, Any]:
    """Every derived figure, from the record's raw observations alone.

    With ``ground_truth`` (the COCO JSON the record names) the accuracy statistics are
    recomputed too, under ``accuracy_stats``.
    """
    runs = record.get("runs") or []
    ok_runs = [r for r in runs if not r.get("error")]
    status = "ok" if runs and len(ok_runs) == len(runs) else "failed"
    out: dict[str, Any] = {"status": status}
    out.update(_memory_figures(ok_runs))
    if status == "ok":
        summary = protocol.summarise([r["calls_ms"] for r in ok_runs])
        reason = protocol.discard_reason(summary, ok_runs)
        out.update(
            median_ms=summary.median_ms,
            p90_ms=summary.p90_ms,
            run_medians_ms=list(summary.run_medians_ms),
            run_spread=summary.run_spread,
            discarded=bool(reason),
            discard_reason=reason,
        )
    else:
        out.update(median_ms=None, p90_ms=None, run_medians_ms=[], run_spread=None)
        out.update(discarded=True, discard_reason="the measurement failed")
    out["listable"], out["listable_reason"] = _listable(status, out[peak_key(out["memory_kind"])])
    if ground_truth is not None and record.get("accuracy"):
        from measure.coco import evaluate

        acc = record["accuracy"]
        out["accuracy_stats"] = evaluate(ground_truth, acc["detections"], acc.get("image_ids"))
    return out


def build(observed: dict[str, Any]) -> dict[str, Any]:
    """A complete record from the runner's observations plus the recomputed figures."""
    record = {"record_version": RECORD_VERSION, **observed}
    figures = recompute(record)
    record["status"] = figures.pop("status")
    record.update(figures)
    return record


def figure_keys(record: dict[str, Any]) -> list[str]:
    """The derived figures a record carries (the ones ``verify`` recomputes)."""
    return [*_FIGURES, peak_key(record.get("memory_kind", "ram"))]


def validate(record: dict[str, Any]) -> None:
    """Raise ValueError naming the first missing or malformed key."""
    needed = ["record_version", "run_id", "runs", "protocol", "adapter", "inputs"]
    needed += ["median_ms", "p90_ms", "discarded", "discard_reason"]
    for key in needed:
        if key not in record:
            raise ValueError(f"record lacks {key!r}; fix: regenerate it with python -m measure run")
    if record["record_version"] != RECORD_VERSION:
        raise ValueError(
            f"record_version {record['record_version']} is not {RECORD_VERSION}; "
            "fix: use the tool version that wrote it"
        )
    for i, run in enumerate(record["runs"]):
        if not run.get("error") and not isinstance(run.get("calls_ms"), list):
            raise ValueError(f"runs[{i}] lacks calls_ms; fix: regenerate the record")


def same(a: Any, b: Any) -> bool:
    """Figure equality with float tolerance 1e-9 (relative) for numbers, lists and dicts."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def run_row(record: dict[str, Any]) -> dict[str, Any]:
    """The one ``vision_runs`` row of a record (headline figures plus labels)."""
    info = record["adapter"].get("info") or {}
    paper = info.get("paper") or {}
    weights = info.get("weights") or [{}]
    env, proto = record["environment"], record["protocol"]
    stats = (record.get("accuracy") or {}).get("stats") or {}
    kind = record.get("memory_kind", "ram")
    return {
        "run_id": record["run_id"],
        "record_version": record["record_version"],
        "created_utc": record["created_utc"],
        "status": record["status"],
        "error": record.get("error") or "",
        "adapter": record["adapter"]["name"],
        "display_name": info.get("display_name") or record["adapter"]["name"],
        "task": record["adapter"]["task"],
        "device": env["device"],
        "device_kind": env["device_kind"],
        "device_name": env.get("device_name") or "",
        "precision": proto["precision"],
        "protocol_standard": bool(proto["standard"]),
        "runs": proto["runs"],
        "warmup": proto["warmup"],
        "calls": proto["calls"],
        "median_ms": record["median_ms"],
        "p90_ms": record["p90_ms"],
        "run_spread": record["run_spread"],
        "discarded": bool(record["discarded"]),
        "discard_reason": record["discard_reason"],
        "memory_kind": kind,
        "memory_peak_mib": record.get(peak_key(kind)),
        "sampler_interval_median_ms": record["sampler"]["interval_median_ms"],
        "sampler_interval_max_ms": record["sampler"]["interval_max_ms"],
        "sampler_ok": bool(record["sampler"]["sampler_ok"]),
        "listable": bool(record["listable"]),
        "listable_reason": record["listable_reason"],
        "power_limited": env.get("power_limited", "unknown"),
        "accuracy_benchmark": (record.get("accuracy") or {}).get("benchmark") or "",
        "ap": stats.get("ap"),
        "ap50": stats.get("ap50"),
        "paper_value": paper.get("value"),
        "paper_metric": paper.get("metric") or "",
        "paper_benchmark": paper.get("benchmark") or "",
        "paper_url": paper.get("url") or "",
        "code_licence": info.get("code_licence") or "",
        "weights_licence": weights[0].get("licence") or "",
        "runs_with_fixes": bool(info.get("runs_with_fixes")),
        "patch_url": info.get("patch_url") or "",
        "git_commit": record["tool"].get("git_commit") or "",
        "adapter_sha256": record["adapter"]["source_sha256"],
    }


def to_tables(record: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """The record as the four Parquet tables DuckDB reads (see ``measure.store``)."""
    run_id = record["run_id"]
    calls, memory = [], []
    for r_index, run in enumerate(record["runs"]):
        for c_index, (ms, inp) in enumerate(
            zip(run.get("calls_ms") or [], run.get("input_index") or [], strict=True)
        ):
            calls.append((run_id, r_index, c_index, inp, ms))
        mem = run.get("memory") or {}
        for t, used, phase in zip(
            mem.get("t_s", []), mem.get("used_mib", []), mem.get("phase", []), strict=True
        ):
            memory.append((run_id, r_index, t, used, phase, mem["kind"]))
    names = [f["name"] for f in record["inputs"]["files"]]
    threshold = record["protocol"]["score_threshold"]
    outputs = [
        (
            run_id,
            d["input_index"],
            names[d["input_index"]],
            i,
            *d["bbox"],
            d["score"],
            d["category_id"],
            d["score"] >= threshold,
        )
        for i, d in enumerate(record.get("outputs") or [])
    ]
    return {
        "vision_runs": pd.DataFrame([run_row(record)]),
        "vision_calls": pd.DataFrame(
            calls, columns=["run_id", "run_index", "call_index", "input_index", "latency_ms"]
        ),
        "vision_memory": pd.DataFrame(
            memory, columns=["run_id", "run_index", "t_s", "used_mib", "phase", "kind"]
        ),
        "vision_outputs": pd.DataFrame(
            outputs,
            columns=[
                "run_id",
                "input_index",
                "input_name",
                "output_index",
                "x",
                "y",
                "w",
                "h",
                "score",
                "category_id",
                "above_threshold",
            ],
        ),
    }
