"""Submission ZIPs of the ranked track: the typed form, strict validation and deterministic writing.

Layout of one ZIP (one per protocol, model and method)::

    manifest.json              {"protocol", "model", "method", "simulator_version", "seed"}
    runs/<dataset>/<condition>/checkpoints.csv   step, accuracy, loss, time_s, comm_bytes,
                                                 energy_j, peak_mem_bytes (costs cumulative)
    runs/<dataset>/<condition>/workload.csv      round, client, device, network, flops,
                                                 bytes_up, bytes_down, mem_bytes
    runs/<dataset>/<condition>/status.json       {"status": "oom" | "failed"} instead of the CSVs

A missing run folder is a missing result. Every problem found is one line naming the ZIP, the
member, the row and the fix; a ZIP with any problem is rejected whole.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

from analytics.core import problems as problem_text
from analytics.core import safejson, safezip
from analytics.fl import simulator
from analytics.fl.policy import Policy

PROTOCOLS = ("A", "B", "C")
CHECKPOINT_COLUMNS = (
    "step",
    "accuracy",
    "loss",
    "time_s",
    "comm_bytes",
    "energy_j",
    "peak_mem_bytes",
)
RUN_STATUSES = ("oom", "failed")
ZIP_USE = "fl-submission"  # its caps (16 MiB a member, 5,000 members): analytics.core.safezip
_CAPS = safezip.LIMITS[ZIP_USE]
_NAME = re.compile(r"^[A-Za-z0-9_.\- ]{1,80}$")
UNFORESEEN = "unforeseen error"  # marks the backstop's line (tests assert it never shows)
MAX_STEP = 2**53  # steps and rounds: integers exactly representable as floats
JSON_BYTES = 64 * 1024  # manifest.json and status.json: a few keys each
JSON_DEPTH = 4
"""What a corrupt compressed stream can raise past the shared reader (a bad deflate block)."""


@dataclass(frozen=True)
class Run:
    """One run: ``status`` is 'ok', 'oom' or 'failed'; checkpoints only when 'ok'."""

    status: str
    checkpoints: pd.DataFrame | None = None
    workload: pd.DataFrame | None = None


@dataclass(frozen=True)
class Submission:
    protocol: str
    model: str
    method: str
    simulator_version: str
    seed: int
    runs: dict[tuple[str, str], Run] = field(default_factory=dict)
    name: str = ""

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.protocol, self.model, self.method)


@dataclass
class Validation:
    submission: Submission | None
    problems: list[str]

    @property
    def ok(self) -> bool:
        return self.submission is not None and not self.problems


class _Problems(list):
    def add(self, where: str, message: str, fix: str) -> None:
        self.append(problem_text.line(where, message, fix))


Members = dict[str, bytes]
"""A ZIP read by ``safezip.read_members``: member name -> bytes (folders as b'')."""


def _read_text(members: Members, name: str) -> str:
    return members[name].decode("utf-8-sig")


def _clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for problem lines about untrusted values."""
    return _clip(repr(value), limit)


def _json(members: Members, name: str, where: str, problems: _Problems) -> object | None:
    """A small JSON member within the size and depth caps (None, problem added, when not)."""
    try:
        return safejson.loads(members[name], JSON_BYTES, JSON_DEPTH)
    except safejson.JsonLimitError as exc:
        problems.add(where, str(exc), "write a small flat JSON object")
        return None


def _manifest(members: Members, label: str, policy: Policy, problems: _Problems) -> dict | None:
    where = f"{label}: manifest.json"
    if "manifest.json" not in members:
        problems.add(where, "missing", "add manifest.json at the ZIP root")
        return None
    before = len(problems)
    raw = _json(members, "manifest.json", where, problems)
    if len(problems) > before:
        return None
    if not isinstance(raw, dict):
        problems.add(where, "not a JSON object", "write a JSON object")
        return None
    return _check_manifest(raw, where, policy, problems)


def _check_manifest(raw: dict, where: str, policy: Policy, problems: _Problems) -> dict | None:
    before = len(problems)
    for key in ("protocol", "model", "method", "simulator_version", "seed"):
        if key not in raw:
            problems.add(where, f"missing key {key!r}", f"add {key!r}")
    if len(problems) > before:
        return None
    if not isinstance(raw["protocol"], str) or raw["protocol"] not in PROTOCOLS:
        problems.add(where, f"protocol {_short(raw['protocol'])}", "use 'A', 'B' or 'C'")
    if not isinstance(raw["model"], str) or raw["model"] not in policy.models:
        problems.add(
            where, f"model {_short(raw['model'])} not in the policy", f"use {policy.models}"
        )
    if not isinstance(raw["method"], str) or not _NAME.match(raw["method"]):
        problems.add(where, f"method {_short(raw['method'])}", "use 1-80 letters, digits, ' ._-'")
    if raw["simulator_version"] != simulator.SIMULATOR_VERSION:
        problems.add(
            where,
            f"simulator_version {_short(raw['simulator_version'])}",
            f"recompute costs with simulator {simulator.SIMULATOR_VERSION}",
        )
    if not isinstance(raw["seed"], int) or isinstance(raw["seed"], bool):
        problems.add(
            where, f"seed {_short(raw['seed'])} is not an integer", "give the integer seed"
        )
    if raw["method"] == "Centralized" and raw["protocol"] == "C":
        problems.add(where, "Centralized takes part in A/B only", "drop the Protocol C ZIP")
    return raw if len(problems) == before else None


def _whole(value: float | None) -> bool:
    """An integral step or round that int64 holds (None: already reported as not a number)."""
    return value is None or (value == int(value) and value < MAX_STEP)


def _parse_number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _read_csv(
    members: Members, name: str, columns: tuple[str, ...], where: str, problems: _Problems
) -> list[dict[str, str]] | None:
    try:
        text = _read_text(members, name)
        rows = list(csv.DictReader(io.StringIO(text), strict=True))
    except (UnicodeDecodeError, csv.Error) as exc:
        problems.add(where, f"not a readable CSV ({exc})", "write UTF-8 comma-separated text")
        return None
    header = list(rows[0].keys()) if rows else next(csv.reader(io.StringIO(text)), [])
    missing = [c for c in columns if c not in header]
    if missing:
        problems.add(where, f"missing columns {missing}", f"header must hold {list(columns)}")
        return None
    if not rows:
        problems.add(where, "no rows", "write at least one row")
        return None
    for i, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            problems.add(f"{where} row {i}", "wrong number of fields", "one value per column")
            return None
    return rows


def _checkpoints(rows: list[dict[str, str]], where: str, problems: _Problems) -> pd.DataFrame:
    before = len(problems)
    records = []
    for i, row in enumerate(rows, start=2):
        rec = {}
        for col in CHECKPOINT_COLUMNS:
            value = _parse_number(row[col])
            if value is None or value < 0:
                problems.add(
                    f"{where} row {i}", f"{col} {_short(row[col])}", "a finite number >= 0"
                )
            rec[col] = value
        if rec["accuracy"] is not None and rec["accuracy"] > 1:
            problems.add(
                f"{where} row {i}",
                f"accuracy {row['accuracy'].strip()[:40]}",
                "a fraction in [0, 1]",
            )
        if not _whole(rec["step"]):
            problems.add(f"{where} row {i}", f"step {_short(row['step'])}", "an integer step")
        records.append(rec)
    if len(problems) > before:
        return pd.DataFrame()
    frame = pd.DataFrame.from_records(records, columns=list(CHECKPOINT_COLUMNS))
    frame["step"] = frame["step"].astype(int)
    _monotone(frame, where, problems)
    return frame


def _monotone(frame: pd.DataFrame, where: str, problems: _Problems) -> None:
    steps = frame["step"].to_numpy()
    bad = np.flatnonzero(np.diff(steps) <= 0)
    if bad.size:
        problems.add(f"{where} row {bad[0] + 3}", "steps not strictly increasing", "sort by step")
        return
    for col in simulator.COST_COLUMNS:
        down = np.flatnonzero(np.diff(frame[col].to_numpy(dtype=float)) < 0)
        if down.size:
            problems.add(
                f"{where} row {down[0] + 3}", f"{col} decreases", "costs are cumulative, never down"
            )
            return


def _workload(rows: list[dict[str, str]], where: str, problems: _Problems) -> pd.DataFrame:
    before = len(problems)
    numeric = ("round", "flops", "bytes_up", "bytes_down", "mem_bytes")
    records = []
    for i, row in enumerate(rows, start=2):
        rec = {k: row[k] for k in ("client", "device", "network")}
        for col in numeric:
            value = _parse_number(row[col])
            if value is None or value < 0:
                problems.add(
                    f"{where} row {i}", f"{col} {_short(row[col])}", "a finite number >= 0"
                )
            rec[col] = value
        if not _whole(rec["round"]):
            problems.add(f"{where} row {i}", f"round {_short(row['round'])}", "an integer round")
        records.append(rec)
    if len(problems) > before:
        return pd.DataFrame()
    return pd.DataFrame.from_records(records, columns=list(simulator.WORKLOAD_COLUMNS))


def _run_members(members: Members) -> dict[tuple[str, str], set[str]]:
    folders: dict[tuple[str, str], set[str]] = {}
    for name in members:
        parts = PurePosixPath(name).parts
        if len(parts) == 4 and parts[0] == "runs" and not name.endswith("/"):
            folders.setdefault((parts[1], parts[2]), set()).add(parts[3])
    return folders


def _stray_members(members: Members, label: str, problems: _Problems) -> None:
    for name in members:
        parts = PurePosixPath(name).parts
        is_dir = name.endswith("/") and parts[0] == "runs" and len(parts) <= 3
        is_file = len(parts) == 4 and parts[0] == "runs" and not name.endswith("/")
        if name != "manifest.json" and not is_dir and not is_file:
            problems.add(f"{label}: {name}", "unexpected member", "keep to the documented layout")


def _status_run(
    members: Members, prefix: str, files: set[str], where: str, problems: _Problems
) -> Run | None:
    if files & {"checkpoints.csv", "workload.csv"}:
        problems.add(where, "status.json beside checkpoints", "give either status.json or CSVs")
        return None
    before = len(problems)
    raw = _json(members, prefix + "status.json", f"{where}/status.json", problems)
    if len(problems) > before:
        return None
    status = raw.get("status") if isinstance(raw, dict) else None
    if not isinstance(status, str) or status not in RUN_STATUSES:
        problems.add(
            f"{where}/status.json", f"status {_short(status)}", f"use one of {RUN_STATUSES}"
        )
        return None
    return Run(status)


def _one_run(
    members: Members, prefix: str, files: set[str], label: str, problems: _Problems
) -> Run | None:
    where = f"{label}: {prefix.rstrip('/')}"
    unknown = files - {"checkpoints.csv", "workload.csv", "status.json"}
    for name in sorted(unknown):
        problems.add(f"{where}/{name}", "unexpected file", "keep checkpoints/workload/status")
    if "status.json" in files:
        return _status_run(members, prefix, files, where, problems)
    for needed in ("checkpoints.csv", "workload.csv"):
        if needed not in files:
            problems.add(f"{where}/{needed}", "missing", "add it, or status.json if the run died")
    if problems:
        return None
    ck_where, wl_where = f"{where}/checkpoints.csv", f"{where}/workload.csv"
    ck_rows = _read_csv(members, prefix + "checkpoints.csv", CHECKPOINT_COLUMNS, ck_where, problems)
    wl_rows = _read_csv(
        members, prefix + "workload.csv", simulator.WORKLOAD_COLUMNS, wl_where, problems
    )
    if ck_rows is None or wl_rows is None:
        return None
    checkpoints = _checkpoints(ck_rows, ck_where, problems)
    workload = _workload(wl_rows, wl_where, problems)
    if problems:
        return None
    return _recomputed(checkpoints, workload, ck_where, problems)


def _recomputed(
    checkpoints: pd.DataFrame, workload: pd.DataFrame, where: str, problems: _Problems
) -> Run | None:
    try:
        wrong = simulator.mismatches(checkpoints, workload)
    except ValueError as exc:
        what, _, fix = str(exc).partition("; fix: ")
        where = where.replace("checkpoints.csv", "workload.csv")
        problems.add(where, _clip(what, 200), _clip(fix, 200) or "see docs/fl.md")
        return None
    for line in wrong[:3]:
        problems.add(f"{where} {line}", "cost does not recompute", "run the common simulator")
    return None if wrong else Run("ok", checkpoints, workload)


def _runs(
    members: Members, manifest: dict, label: str, policy: Policy, problems: _Problems
) -> dict[tuple[str, str], Run]:
    runs: dict[tuple[str, str], Run] = {}
    allowed = policy.conditions(manifest["protocol"])
    for (dataset, condition), files in sorted(_run_members(members).items()):
        where = f"{label}: runs/{dataset}/{condition}"
        if dataset not in policy.datasets:
            problems.add(where, f"dataset {dataset!r} not in the policy", f"use {policy.datasets}")
            continue
        if condition not in allowed:
            problems.add(where, f"condition {condition!r} not allowed", f"use one of {allowed}")
            continue
        local = _Problems()
        run = _one_run(members, f"runs/{dataset}/{condition}/", files, label, local)
        problems.extend(local)
        if run is not None:
            runs[(dataset, condition)] = run
    return runs


def _zip_problem(label: str, err: safezip.BundleError) -> str:
    """One refusal of the shared ZIP reader, worded as the reader words it for every track."""
    return str(err)


def _members(data: bytes, label: str, problems: _Problems) -> Members | None:
    """The ZIP's members through the shared safe reader; None (problems added) when refused."""
    try:
        return safezip.read_members(data, label, ZIP_USE)
    except safezip.BundleError as exc:
        problems.extend(_zip_problem(label, err) for err in safezip.each_problem(exc))
    return None


def _one_line(exc: BaseException, limit: int = 160) -> str:
    """An exception's message on one line, at most ``limit`` characters."""
    return _clip(f"{type(exc).__name__}: {exc}", limit)


def _checked(data: bytes, label: str, policy: Policy) -> Validation:
    problems = _Problems()
    members = _members(data, label, problems)
    if members is None:
        return Validation(None, problems)
    _stray_members(members, label, problems)
    manifest = _manifest(members, label, policy, problems)
    if manifest is None or problems:
        return Validation(None, problems)
    runs = _runs(members, manifest, label, policy, problems)
    if problems:
        return Validation(None, problems)
    sub = Submission(
        manifest["protocol"],
        manifest["model"],
        manifest["method"],
        manifest["simulator_version"],
        int(manifest["seed"]),
        runs,
        label,
    )
    return Validation(sub, [])


def validate_zip(source: Path | bytes, policy: Policy, name: str | None = None) -> Validation:
    """Check a submission ZIP against the policy and the simulator; never half-accepts.

    Never raises for a bad ZIP: any failure, even one no check foresaw, is one problem line.
    """
    label = name or (source.name if isinstance(source, Path) else "upload.zip")
    try:
        data = source.read_bytes() if isinstance(source, Path) else bytes(source)
    except OSError as exc:
        what = f"unreadable ({exc.strerror or _one_line(exc)})"
        return Validation(None, [problem_text.line(label, what, "store a readable .zip file")])
    try:
        return _checked(data, label, policy)
    except Exception as exc:  # the backstop: one line, never a traceback
        what = f"could not be validated ({UNFORESEEN}: {_one_line(exc)})"
        return Validation(None, [problem_text.line(label, what, _CAPS.rebuild)])


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def frame_to_csv(frame: pd.DataFrame) -> bytes:
    """Deterministic CSV text: header, then values with Python's round-trip float repr."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(list(frame.columns))
    for row in frame.itertuples(index=False):
        writer.writerow([_fmt(v.item() if hasattr(v, "item") else v) for v in row])
    return out.getvalue().encode("utf-8")


def zip_bytes(files: dict[str, bytes]) -> bytes:
    """A ZIP with sorted members, fixed timestamps and modes: same input, same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name], compresslevel=9)
    return buffer.getvalue()


def submission_files(sub: Submission) -> dict[str, bytes]:
    """The member files of a submission (manifest plus one folder per run)."""
    manifest = {
        "protocol": sub.protocol,
        "model": sub.model,
        "method": sub.method,
        "simulator_version": sub.simulator_version,
        "seed": sub.seed,
    }
    files = {"manifest.json": (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()}
    for (dataset, condition), run in sorted(sub.runs.items()):
        prefix = f"runs/{dataset}/{condition}/"
        if run.status != "ok":
            files[prefix + "status.json"] = (json.dumps({"status": run.status}) + "\n").encode()
            continue
        files[prefix + "checkpoints.csv"] = frame_to_csv(run.checkpoints)
        files[prefix + "workload.csv"] = frame_to_csv(run.workload)
    return files


def zip_name(sub: Submission) -> str:
    """Canonical file name: <protocol>_<model>_<method>.zip with spaces as '-'."""
    return f"{sub.protocol}_{sub.model}_{sub.method.replace(' ', '-')}.zip"
