"""The run record: one JSON document per measurement, its schema and its recomputation.

A record holds the raw observations (every timed call, every memory sample, every detection)
and the figures derived from them. ``recompute(record)`` derives the figures again from the
observations alone; ``build`` uses it, so stored figures and recomputed ones cannot drift, and
``python -m measure verify`` compares them. Documented in docs/measure.md ("Run record").
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from analytics.core import run_schema
from measure import protocol
from measure.adapters.base import RANDOM_WEIGHTS_REASON

RECORD_VERSION = run_schema.RECORD_VERSION
SCHEMA = run_schema.RECORD
"""Every key a record holds, with its kind, unit and meaning (``analytics.core.run_schema``)."""
peak_key = run_schema.peak_key


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


def _listable(status: str, peak_mib: float | None, runs: list[dict]) -> tuple[bool, str]:
    if any(RANDOM_WEIGHTS_REASON in (r.get("error") or "") for r in runs):
        return False, RANDOM_WEIGHTS_REASON  # a code-path test, never a result
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
    out["listable"], out["listable_reason"] = _listable(
        status, out[peak_key(out["memory_kind"])], runs
    )
    if record.get("record_version", RECORD_VERSION) >= 2:
        out["runs_sha256"] = runs_sha256(runs)
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
    version = record.get("record_version")
    version = version if run_schema.is_int(version) else RECORD_VERSION
    return run_schema.figure_keys(record.get("memory_kind", "ram"), version)


def runs_sha256(runs: list[dict]) -> str:
    """SHA-256 of the canonical JSON of ``runs`` (every call time, memory sample and error)."""
    text = json.dumps(runs, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


FIX = "regenerate it with python -m measure run"


def _bad(where: str, what: str) -> run_schema.RecordError:
    return run_schema.RecordError(where, what, FIX)


def _check(doc: Any, fields: tuple, where: str, prefix: str = "") -> None:
    problem = run_schema.first_problem(doc, fields)
    if problem is not None:
        raise _bad(where, prefix + problem)


def _record_fields(record: dict[str, Any]) -> tuple:
    """The schema fields to check: ``adapter.info.*`` only when info is not null."""
    info = run_schema.lookup(record, "adapter.info")
    skip = "adapter.info" if info is None else "\0"
    return tuple(f for f in SCHEMA if not f.path.startswith(skip))


def _check_run(run: Any, where: str, prefix: str) -> None:
    if not isinstance(run, dict):
        raise _bad(where, f"{prefix} is {type(run).__name__}, not an object")
    if run.get("error"):
        _check(run, (run_schema.get_field("error", run_schema.RUN),), where, f"{prefix}.")
        return
    _check(run, run_schema.RUN, where, f"{prefix}.")
    if len(run["calls_ms"]) != len(run["input_index"]):
        raise _bad(where, f"{prefix}: calls_ms and input_index differ in length")
    memory = run["memory"]
    if not len(memory["t_s"]) == len(memory["used_mib"]) == len(memory["phase"]):
        raise _bad(where, f"{prefix}.memory: t_s, used_mib and phase differ in length")


def _check_detections(items: Any, where: str, name: str, keys: tuple[str, ...]) -> None:
    if not isinstance(items, list):
        raise _bad(where, f"{name} is {type(items).__name__}, not a list")
    for i, det in enumerate(items):
        problem = run_schema.detection_problem(det)
        if problem is None and not all(run_schema.is_int(det.get(k)) for k in keys):
            problem = f"lacks an integer {' or '.join(keys)}"
        if problem is not None:
            raise _bad(where, f"{name}[{i}] {problem}")


def _check_lists(record: dict[str, Any], where: str) -> None:
    """Every entry of runs, inputs.files, weights, outputs and accuracy has its shape."""
    for i, run in enumerate(record["runs"]):
        _check_run(run, where, f"runs[{i}]")
    for i, item in enumerate(record["inputs"]["files"]):
        _check(item, run_schema.INPUT_FILE, where, f"inputs.files[{i}].")
        if Path(item["name"]).name != item["name"] or item["name"] in ("", ".", ".."):
            raise _bad(where, f"inputs.files[{i}].name {item['name'][:60]!r} is not a file name")
    for i, item in enumerate(record["weights"]):
        _check(item, run_schema.WEIGHTS_FILE, where, f"weights[{i}].")
        if Path(item["file"]).name != item["file"] or item["file"] in ("", ".", ".."):
            raise _bad(where, f"weights[{i}].file {item['file'][:60]!r} is not a file name")
    _check_detections(record["outputs"], where, "outputs", ("input_index",))
    for d in record["outputs"]:
        if not 0 <= d["input_index"] < len(record["inputs"]["files"]):
            raise _bad(where, f"outputs input_index {d['input_index']} names no input file")
    if record["accuracy"] is not None:
        _check_accuracy(record["accuracy"], where)


def _check_accuracy(acc: dict[str, Any], where: str) -> None:
    for key, ok in (
        ("ground_truth", isinstance(acc.get("ground_truth"), str)),
        ("ground_truth_sha256", run_schema.is_hex64(acc.get("ground_truth_sha256"))),
        ("image_ids", run_schema.KINDS["list[int]"](acc.get("image_ids"))),
        ("stats", isinstance(acc.get("stats"), dict)),
    ):
        if not ok:
            raise _bad(where, f"accuracy.{key} is missing or malformed")
    _check_detections(acc.get("detections"), where, "accuracy.detections", ("image_id",))


def validate(record: Any, where: str = "record") -> None:
    """Raise ``RecordError`` (one line naming ``where``) at the first malformed part of a record:
    nesting depth, version, every schema field's kind, every runs/inputs/weights/outputs entry."""
    if not isinstance(record, dict):
        raise _bad(where, f"a record is a JSON object, got {type(record).__name__}")
    deep = run_schema.depth_problem(record)
    if deep:
        raise _bad(where, deep)
    for key in run_schema.top_level_keys():
        if key not in record:
            raise _bad(where, f"record lacks {key!r}")
    version = record["record_version"]
    if not run_schema.is_int(version) or version not in run_schema.SUPPORTED_VERSIONS:
        raise run_schema.RecordError(
            where,
            f"record_version {str(version)[:20]} is not one of {run_schema.SUPPORTED_VERSIONS}",
            "use the tool version that wrote it",
        )
    _check(record, _record_fields(record), where)
    _check_lists(record, where)


def same(a: Any, b: Any, exact: bool = False) -> bool:
    """Figure equality for numbers, lists and dicts: exact with ``exact``, else with float
    tolerance 1e-9 (relative)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        if exact:
            return a == b or (math.isnan(a) and math.isnan(b))
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y, exact) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], exact) for k in a)
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
        "vision_runs": pd.DataFrame(
            [run_schema.vision_runs_row(run_row(record), record["run_id"])],
            columns=list(run_schema.VISION_RUNS_COLUMNS),
        ),
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
