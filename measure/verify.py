"""``python -m measure verify RECORD...``: recompute every figure, check every hash and fact.

Prints one line per check and exits 1 at the first failing check (naming it), 2 on an unreadable
or malformed record. A file the record names that is absent here (contributor's weights, say) is
"not checked" and fails unless ``--allow-missing`` is given (the output then says it was allowed).
Checks: the shape of the record (``record.validate``), every derived figure recomputed and
compared exactly (version 2 records also carry ``runs_sha256``, a hash of every raw call time and
memory sample), the lock (pip freeze hash, requirements.txt at the tool commit), the environment
against the device, the protocol fields against the protocol constants, the dates and the tool
commit, and the hashes of the adapter source, inputs, ground truth and weights.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from analytics.core import paths, problems, run_unit
from analytics.core.hashing import file_sha256, sha256_hex
from analytics.core.run_schema import RecordError
from measure import protocol
from measure import record as rec
from measure.env import git, resolve_path, resolve_weights

MAX_RECORD_BYTES = 64 * 2**20
"""Largest record file ``verify`` reads (a standard record is about 1 MiB)."""
FULL_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
CLOCK_SKEW = timedelta(minutes=5)


@dataclass(frozen=True)
class Check:
    """One verification: ``state`` is "ok", "mismatch" or "not checked" (a file absent here)."""

    name: str
    state: str
    detail: str = ""


def _hash_check(name: str, path: Path | None, expected: str, shown: str = "") -> Check:
    if path is None or not path.is_file():
        return Check(name, "not checked", f"{shown or path} not found here")
    actual = file_sha256(path)
    if actual != expected:
        return Check(
            name, "mismatch", f"{path}: sha256 {actual[:12]}… != recorded {expected[:12]}…"
        )
    return Check(name, "ok")


def _figure_checks(record: dict[str, Any], again: dict[str, Any]) -> Iterator[Check]:
    """Every derived figure against its recomputation, exactly."""
    if again["status"] != record.get("status"):
        yield Check("status", "mismatch", f"recomputed {again['status']!r}")
    for key in rec.figure_keys(record):
        if key not in record:
            yield Check(key, "mismatch", "missing from the record")
        elif not rec.same(record[key], again.get(key), exact=True):
            shown, want = str(record[key])[:80], str(again.get(key))[:80]
            yield Check(key, "mismatch", f"recorded {shown} != recomputed {want}")
        else:
            yield Check(key, "ok")


def _accuracy_checks(record: dict[str, Any]) -> Iterator[Check]:
    acc = record.get("accuracy")
    if not acc:
        return
    gt_path = resolve_path(acc["ground_truth"])
    check = _hash_check("accuracy ground truth", gt_path, acc["ground_truth_sha256"])
    yield check
    if check.state != "ok":
        return
    try:
        again = rec.recompute(record, json.loads(gt_path.read_text()))["accuracy_stats"]
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        yield Check("accuracy stats", "mismatch", f"cannot be recomputed ({exc})"[:200])
        return
    if rec.same(again, acc["stats"], exact=True):
        yield Check("accuracy stats", "ok")
    else:
        yield Check("accuracy stats", "mismatch", f"recomputed {again} != recorded {acc['stats']}")


def _lock_checks(record: dict[str, Any]) -> Iterator[Check]:
    """The pip freeze against its hash and the environment; requirements.txt at the commit."""
    lock, env = record["lock"], record["environment"]
    if sha256_hex("\n".join(lock["pip_freeze"])) != lock["pip_freeze_sha256"]:
        yield Check("lock pip freeze", "mismatch", "pip_freeze does not hash to pip_freeze_sha256")
    else:
        yield Check("lock pip freeze", "ok")
    torch = env.get("torch_version")
    if torch is not None and f"torch=={torch}" not in lock["pip_freeze"]:
        yield Check("lock torch", "mismatch", f"environment torch {torch} is not in pip_freeze")
    commit = record["tool"]["git_commit"]
    text = git("show", f"{commit}:requirements.txt", strip=False) if commit else None
    if text is None:
        yield Check("lock requirements", "not checked", f"tool commit {commit} not in this clone")
    elif sha256_hex(text) != lock["requirements_sha256"]:
        dirty = " (the tool's tree was dirty)" if record["tool"].get("git_dirty") else ""
        what = f"requirements.txt at {commit[:12]} hashes otherwise{dirty}"
        yield Check("lock requirements", "mismatch", what)
    else:
        yield Check("lock requirements", "ok")


def _environment_problem(record: dict[str, Any]) -> str:
    """Why the environment contradicts the device ("" when it does not)."""
    env = record["environment"]
    device, kind = env["device"], env["device_kind"]
    gpu = device.startswith("cuda")
    if kind != ("gpu" if gpu else "cpu"):
        return f"device {device!r} with device_kind {kind!r}"
    if f"-{kind}-" not in record["run_id"]:
        return f"run_id {record['run_id']!r} does not name device kind {kind!r}"
    if gpu and not (env.get("gpu_name") and env.get("driver_version")):
        return f"device {device!r} but no GPU name and driver version in the environment"
    expected_name = env.get("gpu_name") if gpu else env.get("cpu_model")
    if env["device_name"] != expected_name:
        return f"device_name {env['device_name']!r} is not the {kind} name {expected_name!r}"
    memory = "vram" if gpu else "ram"
    kinds = {r["memory"]["kind"] for r in record["runs"] if not r.get("error")}
    if kinds - {memory} or (kinds and record["memory_kind"] != memory):
        return f"memory kind {sorted(kinds)} on a {kind} device (expected {memory})"
    return ""


def _protocol_problem(record: dict[str, Any]) -> str:
    """Why the protocol fields contradict the protocol constants or the runs ("" when not)."""
    proto, device = record["protocol"], record["environment"]["device"]
    expected = protocol.record_constants(record["record_version"], device)
    for key, value in expected.items():
        if proto[key] != value:
            return f"protocol.{key} {str(proto[key])[:60]!r} is not {value!r}"
    counts = (proto["runs"], proto["warmup"], proto["calls"])
    standard_counts = (protocol.RUNS, protocol.WARMUP_CALLS, protocol.TIMED_CALLS)
    if proto["standard"] != (not proto["nonstandard_reasons"]):
        return "protocol.standard disagrees with nonstandard_reasons"
    if proto["standard"] and counts != standard_counts:
        return f"standard protocol with runs/warmup/calls {counts}"
    if proto["precision"] not in ("fp16", "bf16", "fp32") or (
        proto["standard"] and not device.startswith("cuda") and proto["precision"] != "fp32"
    ):
        return f"protocol.precision {proto['precision'][:20]!r} on {device} breaks the protocol"
    if proto["task"] != record["adapter"]["task"]:
        return f"protocol.task {proto['task']!r} is not the adapter's {record['adapter']['task']!r}"
    runs = record["runs"]
    if len(runs) > proto["runs"] or (record["status"] == "ok" and len(runs) != proto["runs"]):
        return f"{len(runs)} runs recorded, protocol.runs {proto['runs']}"
    for i, run in enumerate(r for r in runs if not r.get("error")):
        if (len(run["warmup_ms"]), len(run["calls_ms"])) != (proto["warmup"], proto["calls"]):
            return f"runs[{i}] has {len(run['calls_ms'])} calls, protocol.calls {proto['calls']}"
    return ""


def _date_problem(record: dict[str, Any]) -> str:
    """Why the dates or the tool commit are inconsistent ("" when they are not)."""
    created = datetime.fromisoformat(record["created_utc"])
    stamp = created.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    if f"-{stamp}-" not in record["run_id"]:
        return f"run_id {record['run_id']!r} does not carry created_utc {stamp}"
    if created > datetime.now(UTC) + CLOCK_SKEW:
        return f"created_utc {record['created_utc']} is in the future"
    commit = record["tool"]["git_commit"]
    if commit is not None and not FULL_COMMIT.match(commit):
        return f"tool.git_commit {commit!r} is not a full 40/64-hex commit"
    committed = git("show", "-s", "--format=%cI", commit) if commit else None
    if committed and datetime.fromisoformat(committed) > created + CLOCK_SKEW:
        return f"tool commit {commit[:12]} ({committed}) is newer than created_utc"
    return ""


def _consistency_checks(record: dict[str, Any]) -> Iterator[Check]:
    for name, why in (
        ("environment", _environment_problem(record)),
        ("protocol", _protocol_problem(record)),
        ("dates and tool commit", _date_problem(record)),
    ):
        yield Check(name, "mismatch" if why else "ok", why)


def _file_checks(record: dict[str, Any], weights_dir: Path | None) -> Iterator[Check]:
    adapter = record["adapter"]
    yield _hash_check(
        "adapter source", resolve_path(adapter["source_file"]), adapter["source_sha256"]
    )
    folder = resolve_path(record["inputs"]["dir"])
    for item in record["inputs"]["files"]:
        yield _hash_check(f"input {item['name']}", folder / item["name"], item["sha256"])
    for item in record["weights"]:
        path = weights_dir / item["file"] if weights_dir is not None else resolve_weights(item)
        shown = f"{item.get('root', '')}:{item['path']}".lstrip(":")
        yield _hash_check(f"weights {item['file']}", path, item["sha256"], shown)


def _calls_table_check(record: dict[str, Any], runs_dir: Path | None) -> Iterator[Check]:
    """The call times against the ``vision_calls`` table stored beside the record, if any (the
    only copy a version-1 record, which has no ``runs_sha256``, can be compared with)."""
    table = runs_dir / "vision_calls" / f"{record['run_id']}.parquet" if runs_dir else None
    if table is None or not table.is_file():
        return
    import pandas as pd

    try:
        stored = pd.read_parquet(table).sort_values(["run_index", "call_index"])
    except (OSError, ValueError, KeyError) as exc:
        yield Check("calls table", "mismatch", f"{table.name} unreadable ({exc})"[:200])
        return
    ours = [(i, ms) for i, run in enumerate(record["runs"]) for ms in run.get("calls_ms") or []]
    theirs = list(zip(stored["run_index"].tolist(), stored["latency_ms"].tolist(), strict=True))
    if ours != theirs:
        yield Check("calls table", "mismatch", f"call times differ from {table.name}")
    else:
        yield Check("calls table", "ok")


def _unit_check(record: dict[str, Any], runs_dir: Path | None) -> Iterator[Check]:
    """The run's record, tables and run manifest agree (``run_unit``), when the record is
    stored in a runs folder: a run cut short, or a table truncated or edited, fails."""
    if runs_dir is None or not (runs_dir / run_unit.RECORDS / f"{record['run_id']}.json").is_file():
        return
    problem = run_unit.run_problem(runs_dir, record["run_id"])
    yield Check("run files", "mismatch", problem) if problem else Check("run files", "ok")


def checks(
    record: dict[str, Any],
    weights_dir: Path | None = None,
    where: str = "record",
    runs_dir: Path | None = None,
) -> Iterator[Check]:
    """Every check of a record: figures, accuracy, consistency, then hashes. ``runs_dir``: the
    runs folder holding the record's tables (compared when present).

    Raises ``RecordError`` (one line) before the first check when the record is malformed."""
    rec.validate(record, where)
    yield from _figure_checks(record, rec.recompute(record))
    yield from _unit_check(record, runs_dir)
    yield from _calls_table_check(record, runs_dir)
    yield from _accuracy_checks(record)
    yield from _consistency_checks(record)
    yield from _lock_checks(record)
    yield from _file_checks(record, weights_dir)


def parse_record(data: bytes, where: str = "record") -> dict[str, Any]:
    """A record from JSON bytes (size, JSON and nesting bounded), or ``RecordError``."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(where, f"{len(data)} bytes, over {MAX_RECORD_BYTES}", rec.FIX)
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        what = f"not a readable JSON record ({type(exc).__name__}: {str(exc)[:80]})"
        raise RecordError(where, what.replace("\n", " "), rec.FIX) from None
    rec.validate(doc, where)
    return doc


def load_record(path: Path) -> dict[str, Any]:
    """A record from disk, or ``RecordError`` (one line naming the file)."""
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise RecordError(str(path), f"not readable ({exc.strerror})", "check the path") from None
    return parse_record(data, str(path))


def _report(check: Check, allow_missing: bool, source: Path) -> bool:
    """Print one check's line; True when it fails the record."""
    missing = check.state == "not checked"
    failing = check.state == "mismatch" or (missing and not allow_missing)
    detail = check.detail + (" (allowed by --allow-missing)" if missing and allow_missing else "")
    line = f"{check.state:<11} {check.name}" + (f": {detail}" if detail else "")
    print(line, file=sys.stderr if failing else sys.stdout)
    if failing:
        fix = "pass --allow-missing or --weights-dir" if missing else "the record was altered"
        what = f"{check.name} {check.state}: {check.detail}"
        print(f"error: {problems.line(str(source), what, fix)}", file=sys.stderr)
    return failing


def verify_file(path: Path, weights_dir: Path | None, allow_missing: bool) -> int:
    """0 when every check of one record file passes, 1 at the first failure, 2 if malformed."""
    try:
        record = load_record(path)
        for check in checks(record, weights_dir, str(path), Path(path).parent.parent):
            if _report(check, allow_missing, path):
                return 1
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"verified {path}")
    return 0


def check_runs(runs_dir: Path, clean: bool) -> int:
    """``measure check``: one line per run that is not whole and per stale temp file; 1 if any.
    ``clean`` removes the stale temp files (regular files only) and says so."""
    found = list(run_unit.units(runs_dir).damaged)
    if clean:
        for path in run_unit.remove_stale_temps(runs_dir):
            print(f"removed {problems.display_path(path)} (temp file of an interrupted write)")
    hours = run_unit.STALE_TEMP_S // 3600
    what = f"temp file of an interrupted write (older than {hours} hours)"
    for path in run_unit.stale_temps(runs_dir):
        found.append(problems.line(problems.display_path(path), what, "pass --clean to remove it"))
    for line in found:
        print(line, file=sys.stderr)
    whole = len(run_unit.units(runs_dir).intact)
    print(f"{whole} runs whole, {len(found)} problems in {problems.display_path(runs_dir)}")
    return 1 if found else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        parser = argparse.ArgumentParser(prog="python -m measure check")
        parser.add_argument("--runs", type=Path, default=None, help="runs folder (data/runs)")
        parser.add_argument("--clean", action="store_true", help="remove stale temp files")
        args = parser.parse_args(argv[1:])
        return check_runs(args.runs or paths.RUNS_DIR, args.clean)
    parser = argparse.ArgumentParser(prog="python -m measure verify")
    parser.add_argument("record", type=Path, nargs="+")
    parser.add_argument("--weights-dir", type=Path, help="where to find the weights files")
    parser.add_argument(
        "--allow-missing", action="store_true", help="report absent files, do not fail on them"
    )
    parser.add_argument("--strict", action="store_true", help=argparse.SUPPRESS)  # the default
    args = parser.parse_args(argv[1:])
    codes = [verify_file(p, args.weights_dir, args.allow_missing) for p in args.record]
    return max(codes)
