"""The vision run record's schema: one table of field specs for writer, checkers and readers.

``measure.record`` builds records with these keys and checks their presence, ``measure.verify``
recomputes the fields marked ``figure``, the community inbox (``measure.community.validate``)
checks the kind of every field marked ``inbox``, and ``docs/measure.md`` ("Run record") describes
them. It lives in ``analytics.core`` so both ``measure`` and ``analytics`` may import it.
A dotted ``path`` names a nested key (``protocol.runs``); ``RUN`` holds the keys of each
``runs[]`` entry and ``INPUT_FILE`` those of each ``inputs.files[]`` entry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from analytics.core.problems import Problem

RECORD_VERSION = 2
"""Version 2 adds ``runs_sha256`` and stores weights paths relative to a declared ``root``."""
SUPPORTED_VERSIONS = (1, 2)
"""Record versions this tool still reads and verifies."""
MAX_DEPTH = 16
"""Deepest nesting of lists and objects a record may have (a record itself needs 5)."""

SAFE_TEXT = re.compile(r"^[^\[\]<>`\\*_|\x00-\x1f]{1,200}$")
"""Text the pages show (GPU name, input size): no Markdown/HTML syntax, no control characters;
``_text`` also refuses every other non-printable character (bidi overrides and isolates,
zero-width characters, line separators), which could make a name display as another."""
SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]{0,199}$")
COMMIT = re.compile(r"^[0-9a-f]{7,64}$")


class RecordError(Problem, ValueError):
    """A run record that cannot be read or is malformed: where, what and the fix."""

    exit_status = 2  # `measure run` and `measure verify` have always exited 2 for a bad record


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite int or float that is not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def is_hex64(value: Any) -> bool:
    """A lower-case SHA-256 hex digest."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def is_time(value: Any) -> bool:
    """An ISO 8601 time with a zone."""
    try:
        return isinstance(value, str) and datetime.fromisoformat(value).tzinfo is not None
    except ValueError:
        return False


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(SAFE_TEXT.match(value)) and value.isprintable()


KINDS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "text": _text,
    "text|null": lambda v: v is None or _text(v),
    "id": lambda v: isinstance(v, str) and bool(SAFE_ID.match(v)),
    "commit|null": lambda v: v is None or (isinstance(v, str) and bool(COMMIT.match(v))),
    "str|null": lambda v: v is None or isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "bool|null": lambda v: v is None or isinstance(v, bool),
    "int": is_int,
    "number": is_number,
    "number|null": lambda v: v is None or is_number(v),
    "hex64": is_hex64,
    "time": is_time,
    "dict": lambda v: isinstance(v, dict),
    "dict|null": lambda v: v is None or isinstance(v, dict),
    "list": lambda v: isinstance(v, list),
    "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "list[number]": lambda v: isinstance(v, list) and all(is_number(x) for x in v),
    "list[int]": lambda v: isinstance(v, list) and all(is_int(x) for x in v),
}
"""Every field kind and the predicate a value of that kind satisfies."""


@dataclass(frozen=True)
class Field:
    """One record key: its kind, whether every record has it, its unit and what it holds.

    ``inbox``: the community inbox reads it and so checks its kind. ``figure``: derived from the
    raw observations, so ``measure verify`` recomputes and compares it.
    """

    path: str
    kind: str
    description: str
    unit: str = ""
    required: bool = True
    inbox: bool = False
    figure: bool = False

    @property
    def top_level(self) -> bool:
        """True for a key of the record itself (no dot in the path)."""
        return "." not in self.path


_F = Field
# fmt: off
RECORD: tuple[Field, ...] = (
    _F("record_version", "int", f"schema version of this document ({RECORD_VERSION})", inbox=True),
    _F("run_id", "id", "<adapter>-<device kind>-<UTC time>-<hash>, unique", inbox=True),
    _F("created_utc", "time", "ISO 8601 time the measurement finished", inbox=True),
    _F("status", "str", "'ok' or 'failed' (a run crashed, ran out of memory or failed to import)",
       inbox=True),
    _F("error", "str|null", "the first failing run's one-line error"),
    _F("tool", "dict", "the measuring tool's git state", inbox=True),
    _F("tool.git_commit", "commit|null", "git commit of the measuring tool", inbox=True),
    _F("tool.git_dirty", "bool|null", "uncommitted changes in the tool's working tree",
       required=False, inbox=True),
    _F("adapter", "dict", "spec, name, task, source_file, source_sha256, info (metadata)"),
    _F("adapter.spec", "str", "the --adapter argument (registry name or path.py:Class)"),
    _F("adapter.name", "str", "registry name of the adapter", inbox=True),
    _F("adapter.task", "str", "the adapter's task (data/catalog/vision/tasks.json)", inbox=True),
    _F("adapter.source_file", "str", "file defining the adapter class", inbox=True),
    _F("adapter.source_sha256", "hex64", "SHA-256 of that file", inbox=True),
    _F("adapter.info", "dict", "the adapter's declared metadata (AdapterInfo; null only for an "
       "adapter loaded from a file outside the registry)", inbox=True),
    _F("adapter.info.display_name", "text", "name the pages show", inbox=True),
    _F("adapter.info.default_input_size", "text", "input size the model runs at", inbox=True),
    _F("lock", "dict", "requirements_sha256, pip_freeze, pip_freeze_sha256"),
    _F("lock.requirements_sha256", "hex64", "SHA-256 of requirements.txt", inbox=True),
    _F("lock.pip_freeze", "list[str]", "every installed distribution", inbox=True),
    _F("lock.pip_freeze_sha256", "hex64", "SHA-256 of the pip freeze lines", inbox=True),
    _F("inputs", "dict", "dir, files[{name, sha256}] of the shared input set"),
    _F("inputs.dir", "str", "folder of the shared input set"),
    _F("inputs.files", "list", "one {name, sha256} per input file (INPUT_FILE)", inbox=True),
    _F("weights", "list", "{file, root, path, sha256} per weights file the adapter loaded "
       "(WEIGHTS_FILE)"),
    _F("environment", "dict", "device, device_kind, device_name, cpu/gpu facts, power_limited"),
    _F("environment.device", "str", "the --device argument (cpu, cuda, cuda:N)"),
    _F("environment.device_kind", "str", "'cpu' or 'gpu'", inbox=True),
    _F("environment.device_name", "text", "CPU model or GPU name", inbox=True),
    _F("environment.power_limit_w", "number|null", "enforced GPU power limit", unit="W",
       required=False, inbox=True),
    _F("environment.default_power_limit_w", "number|null", "the GPU's default power limit",
       unit="W", required=False, inbox=True),
    _F("environment.power_limited", "str", "'yes', 'no' or 'unknown'", required=False, inbox=True),
    _F("environment.driver_version", "text|null", "NVIDIA driver version", required=False,
       inbox=True),
    _F("protocol", "dict", "runs, warmup, calls, batch_size, precision, precision_reason, "
       "standard, nonstandard_reasons, task, score_threshold, timer, sync"),
    _F("protocol.runs", "int", "separate worker processes", inbox=True),
    _F("protocol.warmup", "int", "untimed calls per run", inbox=True),
    _F("protocol.calls", "int", "timed calls per run", inbox=True),
    _F("protocol.batch_size", "int", "images per predict() call"),
    _F("protocol.precision", "str", "fp16, bf16 or fp32", inbox=True),
    _F("protocol.precision_reason", "str", "why that precision"),
    _F("protocol.standard", "bool", "the default protocol was used", inbox=True),
    _F("protocol.task", "str", "task measured", inbox=True),
    _F("protocol.nonstandard_reasons", "list[str]", "how the protocol differed", inbox=True),
    _F("protocol.score_threshold", "number", "score above which an output is shown"),
    _F("protocol.timer", "str", "how calls are timed"),
    _F("protocol.sync", "str", "how the device is synchronised around a call"),
    _F("runs", "list", "one entry per run (RUN)", inbox=True),
    _F("accuracy", "dict|null", "benchmark, ground_truth, ground_truth_sha256, image_ids, "
       "detections, stats"),
    _F("outputs", "list", "detections on the shared inputs (input_index, bbox, score, "
       "category_id)"),
    _F("median_ms", "number|null", "median of all timed calls of all runs pooled", unit="ms",
       inbox=True, figure=True),
    _F("p90_ms", "number|null", "90th percentile (linear interpolation) of the same pool",
       unit="ms", inbox=True, figure=True),
    _F("run_medians_ms", "list[number]", "median of each run", unit="ms", figure=True),
    _F("run_spread", "number|null", "(max-min)/min of run_medians_ms", inbox=True, figure=True),
    _F("discarded", "bool", "spread over 10% or a disturbed run", inbox=True, figure=True),
    _F("discard_reason", "str", "why, '' when not discarded", inbox=True, figure=True),
    _F("memory_kind", "str", "'vram' (NVML, GPU) or 'ram' (process RSS, CPU)", inbox=True,
       figure=True),
    _F("sampler", "dict", "interval_median_ms, interval_max_ms, missed_deadlines, sampler_ok, "
       "per_run", inbox=True, figure=True),
    _F("runs_sha256", "hex64", "SHA-256 of the canonical JSON of runs[] (every call time and "
       "memory sample); record version 2 on", required=False, figure=True),
    _F("listable", "bool", "status ok and peak within 24 GiB", inbox=True, figure=True),
    _F("listable_reason", "str", "why not listable, '' when listable", figure=True),
    _F("vram_peak_mib", "number|null", "max over runs of (max sample - idle baseline); on GPU",
       unit="MiB", required=False, figure=True),
    _F("ram_peak_mib", "number|null", "max over runs of (max sample - idle baseline); on CPU",
       unit="MiB", required=False, figure=True),
)
# fmt: on
"""Every record key the tool writes, top-level ones followed by their nested keys."""

RUN: tuple[Field, ...] = (
    _F("calls_ms", "list[number]", "every timed call", unit="ms", inbox=True),
    _F("warmup_ms", "list[number]", "every warm-up call", unit="ms", inbox=True),
    _F("input_index", "list[int]", "input file of each timed call", inbox=True),
    _F("load_s", "number", "time to load the model", unit="s"),
    _F("disturbance", "dict", "other GPU processes, throttle reasons", inbox=True),
    _F(
        "disturbance.gpu_other_processes",
        "list[int]",
        "GPU processes other than ours seen",
        required=False,
    ),
    _F(
        "disturbance.throttle_reasons", "list[str]", "NVML clock-event reasons seen", required=False
    ),
    _F(
        "disturbance.other_cpu_percent",
        "number|null",
        "other processes' share of all CPU time",
        unit="%",
        required=False,
    ),
    _F("memory", "dict", "the memory samples of this run", inbox=True),
    _F("memory.kind", "str", "'vram' or 'ram'", inbox=True),
    _F("memory.baseline_mib", "number", "idle baseline", unit="MiB", inbox=True),
    _F("memory.t_s", "list[number]", "sample times since sampler start", unit="s", inbox=True),
    _F("memory.used_mib", "list[number]", "memory used at each sample", unit="MiB", inbox=True),
    _F("memory.phase", "list[str]", "load, warmup or timed at each sample", inbox=True),
    _F("error", "str|null", "this run's one-line error", required=False, inbox=True),
)
"""The keys of each ``runs[]`` entry."""

INPUT_FILE: tuple[Field, ...] = (
    _F("name", "str", "file name in inputs.dir", inbox=True),
    _F("sha256", "hex64", "SHA-256 of the file", inbox=True),
)
"""The keys of each ``inputs.files[]`` entry."""

WEIGHTS_FILE: tuple[Field, ...] = (
    _F("file", "str", "file name"),
    _F(
        "root",
        "str",
        "what ``path`` is relative to: repo, site-packages, torch-hub, hf-cache or "
        "external (only the file name kept); absent in version 1 (absolute path)",
        required=False,
    ),
    _F("path", "str", "path under ``root``"),
    _F("sha256", "hex64", "SHA-256 of the file"),
)
"""The keys of each ``weights[]`` entry."""

DETECTION: tuple[Field, ...] = (
    _F("bbox", "list", "[x, y, w, h] in the original image's pixels, w and h >= 0", unit="px"),
    _F("score", "number", "confidence in [0, 1]"),
    _F("category_id", "int", "a non-negative (COCO) category id"),
)
"""The keys every detection an adapter returns holds (``detection_problem`` checks values)."""


def get_field(path: str, fields: tuple[Field, ...] = RECORD) -> Field:
    """The spec of one dotted path (KeyError when the schema lacks it)."""
    for spec in fields:
        if spec.path == path:
            return spec
    raise KeyError(path)


def peak_key(kind: str) -> str:
    """``vram_peak_mib`` for GPU memory, ``ram_peak_mib`` for process RAM."""
    return "vram_peak_mib" if kind == "vram" else "ram_peak_mib"


def figure_keys(memory_kind: str, version: int = RECORD_VERSION) -> list[str]:
    """The derived figures a record of this memory kind and version carries (verify recomputes
    each)."""
    always = [f.path for f in RECORD if f.figure and f.required]
    hashed = ["runs_sha256"] if version >= 2 else []
    return [*always, *hashed, peak_key(memory_kind)]


def top_level_keys(required_only: bool = True) -> list[str]:
    """The record's own keys (by default only those every record has)."""
    return [f.path for f in RECORD if f.top_level and (f.required or not required_only)]


def inbox_fields(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    """The fields of a table the community inbox checks."""
    return tuple(f for f in fields if f.inbox)


MISSING = object()
"""What ``lookup`` returns for an absent key."""


def lookup(doc: Any, path: str) -> Any:
    """The value at a dotted path, or ``MISSING`` when any part is absent."""
    for part in path.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return MISSING
        doc = doc[part]
    return doc


def first_problem(doc: Any, fields: tuple[Field, ...]) -> str | None:
    """'<path> should be <kind>, got …' for the first field of ``fields`` that ``doc`` lacks
    (when required) or holds with the wrong kind; None when every field is fine."""
    for spec in fields:
        value = lookup(doc, spec.path)
        if value is MISSING and not spec.required:
            continue
        if value is MISSING or not KINDS[spec.kind](value):
            got = "missing" if value is MISSING else f"{type(value).__name__} {str(value)[:40]!r}"
            return f"{spec.path} should be {spec.kind}, got {got}"
    return None


def depth_problem(doc: Any, limit: int = MAX_DEPTH) -> str | None:
    """'nested deeper than N levels' when lists/objects nest past ``limit`` (iterative)."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                return f"nested deeper than {limit} levels"
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))
    return None


def detection_problem(det: Any) -> str | None:
    """What is wrong with one detection (bbox, score, category_id), or None when it is fine."""
    if not isinstance(det, dict):
        return f"is {type(det).__name__}, not an object with bbox, score, category_id"
    for key in ("bbox", "score", "category_id"):
        if key not in det:
            return f"lacks {key!r}"
    bbox, score, category = det["bbox"], det["score"], det["category_id"]
    if not (isinstance(bbox, list | tuple) and len(bbox) == 4 and all(map(is_number, bbox))):
        return f"bbox {str(bbox)[:60]!r} is not 4 finite numbers [x, y, w, h]"
    if bbox[2] < 0 or bbox[3] < 0:
        return f"bbox {list(bbox)!r} has a negative width or height"
    if not is_number(score) or not 0.0 <= score <= 1.0:
        return f"score {str(score)[:40]!r} is not a finite number in [0, 1]"
    if not is_int(category) or category < 0:
        return f"category_id {str(category)[:40]!r} is not a non-negative integer"
    return None


# --- the vision_runs table: one row per stored run, its columns declared ----------------------

VISION_RUNS: tuple[tuple[str, str], ...] = (
    ("run_id", "str"),
    ("record_version", "int"),
    ("created_utc", "str"),
    ("status", "str"),
    ("error", "str"),
    ("adapter", "str"),
    ("display_name", "str"),
    ("task", "str"),
    ("device", "str"),
    ("device_kind", "str"),
    ("device_name", "str"),
    ("precision", "str"),
    ("protocol_standard", "bool"),
    ("runs", "int"),
    ("warmup", "int"),
    ("calls", "int"),
    ("median_ms", "float|null"),
    ("p90_ms", "float|null"),
    ("run_spread", "float|null"),
    ("discarded", "bool"),
    ("discard_reason", "str"),
    ("memory_kind", "str"),
    ("memory_peak_mib", "float|null"),
    ("sampler_interval_median_ms", "float|null"),
    ("sampler_interval_max_ms", "float|null"),
    ("sampler_ok", "bool"),
    ("listable", "bool"),
    ("listable_reason", "str"),
    ("power_limited", "str|bool"),
    ("accuracy_benchmark", "str"),
    ("ap", "float|null"),
    ("ap50", "float|null"),
    ("paper_value", "float|null"),
    ("paper_metric", "str"),
    ("paper_benchmark", "str"),
    ("paper_url", "str"),
    ("code_licence", "str"),
    ("weights_licence", "str"),
    ("runs_with_fixes", "bool"),
    ("patch_url", "str"),
    ("git_commit", "str"),
    ("adapter_sha256", "str"),
)
"""Every column of ``vision_runs`` and its type, in the order written: ``measure.record`` writes
a row through ``vision_runs_row`` and ``analytics.vision.runs`` reads these columns by name
(never ``SELECT *``), so a column is added here or nowhere."""
VISION_RUNS_COLUMNS = tuple(name for name, _ in VISION_RUNS)
_CELL_KINDS: dict[str, Callable[[Any], bool]] = {
    "str": lambda v: isinstance(v, str),
    "int": is_int,
    "bool": lambda v: isinstance(v, bool),
    "float": is_number,
    "float|null": lambda v: v is None or is_number(v),
    "str|bool": lambda v: isinstance(v, str | bool),
}


def vision_runs_row(row: dict[str, Any], where: str) -> dict[str, Any]:
    """``row`` in the declared column order, after checking it holds exactly the declared
    columns with values of their types (``RecordError`` naming the first that does not)."""
    extra = [k for k in row if k not in VISION_RUNS_COLUMNS]
    missing = [k for k in VISION_RUNS_COLUMNS if k not in row]
    fix = "declare the column in analytics/core/run_schema.py : VISION_RUNS"
    if extra or missing:
        what = f"vision_runs row: undeclared {extra} / missing {missing}"
        raise RecordError(where, what, fix)
    for name, kind in VISION_RUNS:
        if not _CELL_KINDS[kind](row[name]):
            raise RecordError(where, f"vision_runs {name} is not {kind}: {row[name]!r}"[:200], fix)
    return {name: row[name] for name in VISION_RUNS_COLUMNS}
