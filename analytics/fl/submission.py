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
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

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


MAX_LINES_PER_FILE = 20
"""Problem lines listed per member: the rest are counted and summed up in one more line, so a
file of a million bad rows costs a counter, not a million lines (and a page that many
elements)."""
MAX_LINES = 200
"""Problem lines listed per ZIP, the per-file summaries aside (at most 2 x 200 + 1 in all)."""
_ROW_SUFFIX = re.compile(r"(?:/status\.json)? row \d+$")


class _Problems:
    """Problem lines of one ZIP, listed up to the caps above and counted past them."""

    def __init__(self) -> None:
        self._shown: list[str] = []
        self._per_file: dict[str, int] = {}
        self._hidden: dict[str, int] = {}
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def add(self, where: str, message: object, fix: str, file: str | None = None) -> None:
        """One problem; ``message`` may be a callable, formatted only when the line is shown."""
        file = file or _ROW_SUFFIX.sub("", where)
        self.count += 1
        seen = self._per_file[file] = self._per_file.get(file, 0) + 1
        if seen > MAX_LINES_PER_FILE or len(self._shown) >= MAX_LINES:
            self._hidden[file] = self._hidden.get(file, 0) + 1
            return
        what = message() if callable(message) else str(message)
        self._shown.append(problem_text.line(where, what, fix))

    def add_line(self, text: str) -> None:
        """A problem already written as a line (by the shared ZIP reader)."""
        self.count += 1
        if len(self._shown) >= MAX_LINES:
            self._hidden["(archive)"] = self._hidden.get("(archive)", 0) + 1
            return
        self._shown.append(text)

    def lines(self) -> list[str]:
        """The listed lines, then one line per listed file with more, then one for the rest."""
        out = list(self._shown)
        rest_files, rest = 0, 0
        for file, more in self._hidden.items():
            if self._per_file.get(file, 0) > more:  # some of its lines are listed
                out.append(problem_text.line(file, f"{more:,} more problems not listed", _MORE_FIX))
            else:
                rest_files, rest = rest_files + 1, rest + more
        if rest:
            where = f"{rest_files:,} more files" if rest_files > 1 else "one more file"
            out.append(problem_text.line(where, f"{rest:,} problems not listed", _MORE_FIX))
        return out


_MORE_FIX = (
    f"correct the lines listed (at most {MAX_LINES_PER_FILE} a file, {MAX_LINES} a ZIP) "
    "and validate again"
)


def _clip(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for problem lines about untrusted values."""
    return _clip(repr(value), limit)


def _json(archive: safezip.Archive, name: str, where: str, problems: _Problems) -> object | None:
    """A small JSON member within the size and depth caps (None, problem added, when not);
    an oversized one is refused from its declared size, never inflated."""
    try:
        size = archive.size(name)
        if size > JSON_BYTES:
            raise safejson.JsonLimitError(what=f"is {size} bytes, over the cap of {JSON_BYTES}")
        return safejson.loads(archive.read(name), JSON_BYTES, JSON_DEPTH)
    except safejson.JsonLimitError as exc:
        problems.add(where, str(exc), "write a small flat JSON object")
        return None


def _manifest(
    archive: safezip.Archive, label: str, policy: Policy, problems: _Problems
) -> dict | None:
    where = f"{label}: manifest.json"
    if "manifest.json" not in archive.names:
        problems.add(where, "missing", "add manifest.json at the ZIP root")
        return None
    before = len(problems)
    raw = _json(archive, "manifest.json", where, problems)
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


Rows = Iterator[tuple[int, list[str]]]
"""A CSV member's data rows, streamed: (row number, header = 1; the values of the columns
asked for, in that order)."""


def _csv_rows(
    archive: safezip.Archive,
    name: str,
    columns: tuple[str, ...],
    where: str,
    problems: _Problems,
) -> Rows:
    """The rows of a CSV member, read ``safezip.CHUNK`` bytes at a time (memory: one chunk and
    one row, whatever the member's size). Stops at the first row that cannot be read or has
    the wrong number of fields, with one problem; a bad header or no rows is one problem too."""
    text = io.TextIOWrapper(archive.open(name), encoding="utf-8-sig", newline="")
    count = 0
    try:
        reader = csv.reader(text, strict=True)
        header = next(reader, [])
        missing = [c for c in columns if c not in header]
        if missing:
            problems.add(where, f"missing columns {missing}", f"header must hold {list(columns)}")
            return
        picks = [header.index(c) for c in columns]
        for row in reader:
            if not row:
                continue  # a blank line (csv.DictReader skipped these too)
            count += 1
            if len(row) != len(header):
                what = "wrong number of fields"
                problems.add(f"{where} row {count + 1}", what, "one value per column", where)
                return
            yield count + 1, [row[i] for i in picks]
    except (UnicodeDecodeError, csv.Error) as exc:
        problems.add(where, f"not a readable CSV ({exc})", "write UTF-8 comma-separated text")
        return
    if not count:
        problems.add(where, "no rows", "write at least one row")


def _number_problem(col: str, text: str) -> Callable[[], str]:
    return lambda: f"{col} {_short(text)}"


def _checkpoints(rows: Rows, where: str, problems: _Problems) -> pd.DataFrame | None:
    """The checkpoints as a frame (None when any row has a problem: every row is still checked
    and counted; values are kept as float arrays only while none has)."""
    before = len(problems)
    kept = {col: array("d") for col in CHECKPOINT_COLUMNS}
    for i, values in rows:
        at, start = f"{where} row {i}", len(problems)
        numbers = [_parse_number(v) for v in values]
        for col, text, value in zip(CHECKPOINT_COLUMNS, values, numbers, strict=True):
            if value is None or value < 0:
                problems.add(at, _number_problem(col, text), "a finite number >= 0", where)
        step, accuracy = numbers[0], numbers[1]
        if accuracy is not None and accuracy > 1:
            what = f"accuracy {values[1].strip()[:40]}"
            problems.add(at, what, "a fraction in [0, 1]", where)
        if step is not None and not _whole(step):
            problems.add(at, _number_problem("step", values[0]), "an integer step", where)
        if len(problems) == start == before:
            for col, value in zip(CHECKPOINT_COLUMNS, numbers, strict=True):
                kept[col].append(value)
    if len(problems) > before:
        return None
    frame = pd.DataFrame({col: np.frombuffer(kept[col], dtype=float) for col in kept})
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


_WORKLOAD_LABELS = ("client", "device", "network")
_WORKLOAD_NUMBERS = tuple(c for c in simulator.WORKLOAD_COLUMNS if c not in _WORKLOAD_LABELS)


def _workload(rows: Rows, where: str, problems: _Problems) -> pd.DataFrame | None:
    """The workload as a frame (None when any row has a problem), like :func:`_checkpoints`;
    repeated labels (devices, networks, clients) are stored once."""
    before = len(problems)
    kept: dict[str, Any] = {
        col: [] if col in _WORKLOAD_LABELS else array("d") for col in simulator.WORKLOAD_COLUMNS
    }
    interned: dict[str, str] = {}
    for i, values in rows:
        at, start = f"{where} row {i}", len(problems)
        row = dict(zip(simulator.WORKLOAD_COLUMNS, values, strict=True))
        numbers = {col: _parse_number(row[col]) for col in _WORKLOAD_NUMBERS}
        for col, value in numbers.items():
            if value is None or value < 0:
                problems.add(at, _number_problem(col, row[col]), "a finite number >= 0", where)
        if not _whole(numbers["round"]):
            problems.add(at, _number_problem("round", row["round"]), "an integer round", where)
        if len(problems) == start == before:
            for col, value in numbers.items():
                kept[col].append(value)
            for col in _WORKLOAD_LABELS:
                kept[col].append(interned.setdefault(row[col], row[col]))
    if len(problems) > before:
        return None
    columns = {
        col: values if col in _WORKLOAD_LABELS else np.frombuffer(values, dtype=float)
        for col, values in kept.items()
    }
    return pd.DataFrame(columns, columns=list(simulator.WORKLOAD_COLUMNS))


def _run_members(names: list[str]) -> dict[tuple[str, str], set[str]]:
    folders: dict[tuple[str, str], set[str]] = {}
    for name in names:
        parts = PurePosixPath(name).parts
        if len(parts) == 4 and parts[0] == "runs" and not name.endswith("/"):
            folders.setdefault((parts[1], parts[2]), set()).add(parts[3])
    return folders


def _stray_members(names: list[str], label: str, problems: _Problems) -> None:
    for name in names:
        parts = PurePosixPath(name).parts
        is_dir = name.endswith("/") and parts[0] == "runs" and len(parts) <= 3
        is_file = len(parts) == 4 and parts[0] == "runs" and not name.endswith("/")
        if name != "manifest.json" and not is_dir and not is_file:
            problems.add(f"{label}: {name}", "unexpected member", "keep to the documented layout")


def _status_run(
    archive: safezip.Archive, prefix: str, files: set[str], where: str, problems: _Problems
) -> Run | None:
    if files & {"checkpoints.csv", "workload.csv"}:
        problems.add(where, "status.json beside checkpoints", "give either status.json or CSVs")
        return None
    before = len(problems)
    raw = _json(archive, prefix + "status.json", f"{where}/status.json", problems)
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
    archive: safezip.Archive, prefix: str, files: set[str], label: str, problems: _Problems
) -> Run | None:
    where = f"{label}: {prefix.rstrip('/')}"
    before = len(problems)
    unknown = files - {"checkpoints.csv", "workload.csv", "status.json"}
    for name in sorted(unknown):
        problems.add(f"{where}/{name}", "unexpected file", "keep checkpoints/workload/status")
    if "status.json" in files:
        return _status_run(archive, prefix, files, where, problems)
    for needed in ("checkpoints.csv", "workload.csv"):
        if needed not in files:
            problems.add(f"{where}/{needed}", "missing", "add it, or status.json if the run died")
    if len(problems) > before:
        return None
    ck_where, wl_where = f"{where}/checkpoints.csv", f"{where}/workload.csv"
    ck_rows = _csv_rows(archive, prefix + "checkpoints.csv", CHECKPOINT_COLUMNS, ck_where, problems)
    checkpoints = _checkpoints(ck_rows, ck_where, problems)
    wl_rows = _csv_rows(
        archive, prefix + "workload.csv", simulator.WORKLOAD_COLUMNS, wl_where, problems
    )
    workload = _workload(wl_rows, wl_where, problems)
    if len(problems) > before or checkpoints is None or workload is None:
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
    archive: safezip.Archive, manifest: dict, label: str, policy: Policy, problems: _Problems
) -> dict[tuple[str, str], Run]:
    runs: dict[tuple[str, str], Run] = {}
    allowed = policy.conditions(manifest["protocol"])
    for (dataset, condition), files in sorted(_run_members(archive.names).items()):
        where = f"{label}: runs/{dataset}/{condition}"
        if dataset not in policy.datasets:
            problems.add(where, f"dataset {dataset!r} not in the policy", f"use {policy.datasets}")
            continue
        if condition not in allowed:
            problems.add(where, f"condition {condition!r} not allowed", f"use one of {allowed}")
            continue
        run = _one_run(archive, f"runs/{dataset}/{condition}/", files, label, problems)
        if run is not None:
            runs[(dataset, condition)] = run
    return runs


def _one_line(exc: BaseException, limit: int = 160) -> str:
    """An exception's message on one line, at most ``limit`` characters."""
    return _clip(f"{type(exc).__name__}: {exc}", limit)


def _checked(data: bytes, label: str, policy: Policy) -> Validation:
    problems = _Problems()
    runs = None
    try:
        with safezip.Archive(data, label, ZIP_USE) as archive:
            runs = _checked_members(archive, label, policy, problems)
    except safezip.BundleError as exc:  # refused by the shared reader, before or while reading
        for err in safezip.each_problem(exc):
            problems.add_line(str(err))
    if problems or runs is None:
        return Validation(None, problems.lines())
    manifest, found = runs
    sub = Submission(
        manifest["protocol"],
        manifest["model"],
        manifest["method"],
        manifest["simulator_version"],
        int(manifest["seed"]),
        found,
        label,
    )
    return Validation(sub, [])


def _checked_members(
    archive: safezip.Archive, label: str, policy: Policy, problems: _Problems
) -> tuple[dict, dict[tuple[str, str], Run]] | None:
    _stray_members(archive.names, label, problems)
    manifest = _manifest(archive, label, policy, problems)
    if manifest is None or problems:
        return None
    runs = _runs(archive, manifest, label, policy, problems)
    return None if problems else (manifest, runs)


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
