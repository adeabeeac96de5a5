"""Validation of a submission bundle: layout, schema, hashes, registry, recomputation, flags.

``validate_bundle`` either raises ``BundleError`` (a ``code`` and one line naming the bundle, the
member or key, and the fix) or returns a ``Validated`` bundle with its review ``flags``. It only
reads: nothing is extracted to disk. Limits and flag rules: docs/community.md ("Validation").
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analytics.core import run_schema
from analytics.core.hashing import file_sha256, sha256_hex
from analytics.core.safezip import (
    DEFAULT_LIMITS,
    MIB,
    REBUILD,
    BundleError,
    Limits,
    check_size,
    fail,
    read_members,
)
from measure import protocol
from measure import record as rec
from measure.community import bundle, status
from measure.env import image_files

__all__ = [
    "DEFAULT_LIMITS",
    "MIB",
    "BundleError",
    "Flag",
    "Limits",
    "Validated",
    "check_size",
    "validate_bundle",
]
ID_CHARS = 12  # a bundle's ID: the first 12 hex digits of its record's content hash
CALL_FLOOR_MS = 0.1  # no detector's predict() with pre/post-processing and a sync is faster
IDENTICAL_SHARE_MAX = 0.10  # flag when one exact value is more than 10% of the timed calls
FAR_FROM_OURS_FACTOR = status.FAR_FROM_OURS_FACTOR


@dataclass(frozen=True)
class Flag:
    """An odd value kept for the reviewer: ``code`` and a one-line explanation."""

    code: str
    message: str


@dataclass(frozen=True)
class Validated:
    """A bundle that passed every check, with what the reviewer needs."""

    source: str
    record: dict[str, Any]
    submission: dict[str, Any]
    bundle_sha256: str
    content_sha256: str
    recomputed: dict[str, Any]
    flags: tuple[Flag, ...]
    our_run: dict[str, Any] | None
    data: bytes = field(repr=False)

    @property
    def bundle_id(self) -> str:
        """The inbox ID: the start of the record's content hash."""
        return self.content_sha256[:ID_CHARS]


# --- layout, manifest, JSON ------------------------------------------------------------------

_FIXED = (bundle.MANIFEST, bundle.SUBMISSION, bundle.RECORD, bundle.REQUIREMENTS, bundle.PIP_FREEZE)
KIB = 1024
SMALL_MEMBER_CAPS = {bundle.MANIFEST: 64 * KIB, bundle.SUBMISSION: 4 * KIB}
"""Members that are small by construction (16 members listed; one name and a time), checked
before their JSON is parsed."""
MANIFEST_KEYS = frozenset({"format", "format_version", "members"})
MANIFEST_MEMBER_KEYS = frozenset({"name", "sha256", "size_bytes"})
SUBMISSION_KEYS = frozenset({"format", "format_version", "github", "submitted_utc"})
"""The declared keys of the bundle's own JSON members; any other key is refused."""


def _check_small(members: dict[str, bytes], source: str) -> None:
    """The manifest and submission are within their caps (before any JSON is parsed)."""
    for name, cap in SMALL_MEMBER_CAPS.items():
        if len(members.get(name, b"")) > cap:
            what = f"{name} is {len(members[name])} bytes, over its {cap // KIB} KiB cap"
            raise fail("oversized-member", source, what, REBUILD, name)


def _check_keys(doc: dict[str, Any], allowed: frozenset[str], where: str, source: str) -> None:
    """Refuse a key that the bundle format does not declare."""
    unknown = sorted(k for k in doc if k not in allowed)
    if unknown:
        what = (
            f"{where} has unknown key {unknown[0][:40]!r} (allowed: {', '.join(sorted(allowed))})"
        )
        raise fail("schema", source, what, REBUILD)


def _check_layout(members: dict[str, bytes], source: str) -> str:
    """The fixed members plus exactly one adapter source; returns the adapter member's name."""
    unexpected = [n for n in members if n not in _FIXED and not bundle.ADAPTER_NAME.match(n)]
    if unexpected:
        raise fail(
            "unexpected-member",
            source,
            f"member {unexpected[0]!r} is not part of the "
            f"bundle format (expected {', '.join(_FIXED)}, adapter/<file>.py)",
            REBUILD,
        )
    adapters = [n for n in members if bundle.ADAPTER_NAME.match(n)]
    missing = [n for n in _FIXED if n not in members] + ([] if adapters else ["adapter/<file>.py"])
    if missing or len(adapters) > 1:
        what = f"member {missing[0]!r} is missing" if missing else "more than one adapter source"
        raise fail("missing-member", source, what, REBUILD)
    return adapters[0]


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def parse_json(member: str, data: bytes, source: str) -> Any:
    """A member's JSON (NaN and Infinity are refused)."""
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise fail("schema", source, f"{member} is not valid JSON ({exc})", REBUILD) from None


def check_manifest(members: dict[str, bytes], source: str) -> dict[str, Any]:
    """The manifest lists every other member with its true SHA-256 and size."""
    manifest = parse_json(bundle.MANIFEST, members[bundle.MANIFEST], source)
    listed = manifest.get("members") if isinstance(manifest, dict) else None
    ok = isinstance(listed, list) and all(
        isinstance(m, dict)
        and isinstance(m.get("name"), str)
        and run_schema.is_hex64(m.get("sha256"))
        and run_schema.is_int(m.get("size_bytes"))
        for m in listed
    )
    if not ok or manifest.get("format") != bundle.FORMAT:
        raise fail(
            "schema",
            source,
            f"{bundle.MANIFEST} is not a {bundle.FORMAT} manifest "
            "(format, format_version, members[{name, sha256, size_bytes}])",
            REBUILD,
        )
    if manifest.get("format_version") != bundle.FORMAT_VERSION:
        raise fail(
            "schema",
            source,
            f"{bundle.MANIFEST}: format_version "
            f"{manifest.get('format_version')!r} is not {bundle.FORMAT_VERSION}",
            "use this version of the measuring tool",
        )
    _check_keys(manifest, MANIFEST_KEYS, bundle.MANIFEST, source)
    for item in listed:
        _check_keys(item, MANIFEST_MEMBER_KEYS, f"{bundle.MANIFEST} members[]", source)
    names = [m["name"] for m in listed]
    others = sorted(set(members) - {bundle.MANIFEST})
    if sorted(names) != others:
        extra = sorted(set(others) ^ set(names))
        raise fail(
            "hash",
            source,
            f"{bundle.MANIFEST} does not list exactly the bundle's "
            f"members (differs on {extra[0]!r})",
            REBUILD,
        )
    for item in listed:
        actual = sha256_hex(members[item["name"]])
        if actual != item["sha256"] or len(members[item["name"]]) != item["size_bytes"]:
            raise fail(
                "hash",
                source,
                f"{bundle.MANIFEST} gives {item['name']} sha256 "
                f"{item['sha256'][:12]}… but its bytes hash to {actual[:12]}…",
                REBUILD,
            )
    return manifest


def check_submission(members: dict[str, bytes], source: str) -> dict[str, Any]:
    """submission.json: the format and a valid GitHub user name."""
    sub = parse_json(bundle.SUBMISSION, members[bundle.SUBMISSION], source)
    if not isinstance(sub, dict) or sub.get("format") != bundle.FORMAT:
        raise fail(
            "schema", source, f"{bundle.SUBMISSION} is not a {bundle.FORMAT} submission", REBUILD
        )
    _check_keys(sub, SUBMISSION_KEYS, bundle.SUBMISSION, source)
    if not isinstance(sub.get("github"), str) or not bundle.GITHUB_NAME.match(sub["github"]):
        raise fail(
            "schema",
            source,
            f"{bundle.SUBMISSION}: github {sub.get('github')!r} is not a GitHub user name",
            "pass --github YOUR_NAME to measure submit",
        )
    if not isinstance(sub.get("submitted_utc"), str) or not run_schema.is_time(
        sub["submitted_utc"]
    ):
        raise fail(
            "schema",
            source,
            f"{bundle.SUBMISSION}: submitted_utc is not an ISO 8601 time with a zone",
            REBUILD,
        )
    return sub


# --- record schema ---------------------------------------------------------------------------


RECORD_FIELDS = run_schema.inbox_fields(run_schema.RECORD)
"""Every record field the inbox reads (``analytics.core.run_schema.RECORD``, ``inbox=True``)."""
RUN_FIELDS = run_schema.inbox_fields(run_schema.RUN)
INPUT_FILE_FIELDS = run_schema.inbox_fields(run_schema.INPUT_FILE)


def _check_fields(doc: Any, fields: tuple[run_schema.Field, ...], where: str, source: str) -> None:
    """Refuse the bundle at the first field that is missing or of the wrong kind."""
    problem = run_schema.first_problem(doc, fields)
    if problem is not None:
        raise fail(
            "schema",
            source,
            f"{where}{problem}",
            "regenerate the record with `python -m measure run`",
        )


def check_record_schema(record: Any, source: str) -> None:
    """Every field the inbox reads has the documented kind (analytics.core.run_schema)."""
    where = f"{bundle.RECORD}: "
    if not isinstance(record, dict):
        raise fail("schema", source, f"{bundle.RECORD} is not a JSON object", REBUILD)
    _check_fields(record, RECORD_FIELDS, where, source)
    if record["status"] != "ok":
        raise fail(
            "protocol",
            source,
            f"{where}the measurement failed "
            f"({record.get('error') or 'status ' + repr(record['status'])})",
            "submit a record whose runs all finished",
        )
    for index, run in enumerate(record["runs"]):
        if not isinstance(run, dict):
            raise fail("schema", source, f"{where}runs[{index}] is not an object", REBUILD)
    try:
        rec.validate(record)
    except ValueError as exc:
        raise fail(
            "schema",
            source,
            f"{where}{exc}".split("; fix")[0],
            "regenerate the record with `python -m measure run`",
        ) from None
    for index, run in enumerate(record["runs"]):
        _check_fields(run, RUN_FIELDS, f"{where}runs[{index}].", source)
    for index, item in enumerate(record["inputs"]["files"]):
        _check_fields(item, INPUT_FILE_FIELDS, f"{where}inputs.files[{index}].", source)


# --- registry, hashes, inputs, recomputation, protocol -----------------------------------------


def check_registry(record: dict[str, Any], source: str) -> type:
    """The adapter is registered and the task is its task and in the catalog."""
    from measure.adapters import registry
    from measure.tasks import load_tasks

    known = registry()
    name = record["adapter"]["name"]
    if name not in known:
        raise fail(
            "unknown-adapter",
            source,
            f"{bundle.RECORD}: adapter {name!r} is not in the registry (known: {', '.join(known)})",
            "measure a registered adapter; new adapters come in by pull request",
        )
    cls = known[name]
    tasks = load_tasks()
    for task in (record["adapter"]["task"], record["protocol"]["task"]):
        if task not in tasks or task != cls.task:
            raise fail(
                "unknown-task",
                source,
                f"{bundle.RECORD}: task {task!r} is not adapter "
                f"{name!r}'s registered task {cls.task!r} (catalog tasks: "
                f"{', '.join(tasks)})",
                "regenerate the record with this tool version",
            )
    return cls


def check_hashes(
    record: dict[str, Any], members: dict[str, bytes], adapter_member: str, source: str
) -> None:
    """The lock files and the adapter source in the bundle are the ones the record hashed."""
    lock, adapter = record["lock"], record["adapter"]
    expected_member = bundle.ADAPTER_PREFIX + Path(adapter["source_file"]).name
    checks = [
        (
            bundle.REQUIREMENTS,
            sha256_hex(members[bundle.REQUIREMENTS]),
            lock["requirements_sha256"],
        ),
        (
            bundle.PIP_FREEZE,
            sha256_hex(members[bundle.PIP_FREEZE]),
            lock["pip_freeze_sha256"],
        ),
        (
            "record lock.pip_freeze",
            sha256_hex(bundle.pip_freeze_text(record)),
            lock["pip_freeze_sha256"],
        ),
        (adapter_member, sha256_hex(members[adapter_member]), adapter["source_sha256"]),
    ]
    if adapter_member != expected_member:
        raise fail(
            "hash",
            source,
            f"the adapter source is {adapter_member!r} but the record "
            f"names {adapter['source_file']!r}",
            REBUILD,
        )
    for what, actual, recorded in checks:
        if actual != recorded:
            raise fail(
                "hash",
                source,
                f"{what} hashes to {actual[:12]}… but {bundle.RECORD} records {recorded[:12]}…",
                REBUILD,
            )


def check_inputs(record: dict[str, Any], source: str) -> None:
    """The record ran on the task's shared input set (same names, same SHA-256)."""
    from measure.tasks import get_task

    task = get_task(record["adapter"]["task"])
    ours = [{"name": f.name, "sha256": file_sha256(f)} for f in image_files(task.inputs)]
    theirs = [{"name": f["name"], "sha256": f["sha256"]} for f in record["inputs"]["files"]]
    if theirs != ours:
        raise fail(
            "inputs",
            source,
            f"{bundle.RECORD}: inputs.files are not task "
            f"{task.name!r}'s shared input set ({len(theirs)} files vs {len(ours)})",
            "measure with the default --inputs (the task's shared set)",
        )


def check_recompute(record: dict[str, Any], source: str) -> dict[str, Any]:
    """The record's figures, recomputed from its own timed calls and memory samples."""
    try:
        again = rec.recompute(record)
    except (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError) as exc:
        raise fail(
            "recompute",
            source,
            f"{bundle.RECORD}: its figures cannot be recomputed ({type(exc).__name__}: {exc})",
            REBUILD,
        ) from None
    keys = ["status", *rec.figure_keys(record)]
    for key in keys:
        if key not in record or not rec.same(record[key], again.get(key)):
            raise fail(
                "recompute",
                source,
                f"{bundle.RECORD}: {key} = "
                f"{str(record.get(key))[:60]} does not recompute from its own timed "
                f"calls (recomputed {str(again.get(key))[:60]})",
                REBUILD,
            )
    return again


def check_protocol(record: dict[str, Any], cls: type, source: str) -> None:
    """A comparable measurement: GPU, standard protocol, not discarded (seed 000, section 03)."""
    proto, env = record["protocol"], record["environment"]
    chosen, _ = protocol.choose_precision(cls.precisions, "cuda")
    counts = (proto["runs"], proto["warmup"], proto["calls"])
    expected = (protocol.RUNS, protocol.WARMUP_CALLS, protocol.TIMED_CALLS)
    problems = [
        (
            env["device_kind"] != "gpu",
            f"it ran on {env['device_kind']}, and community results are NVIDIA GPU measurements",
            "run with --device cuda",
        ),
        (
            not proto["standard"] or counts != expected or proto["precision"] != chosen,
            f"the protocol is non-standard ({'; '.join(proto['nonstandard_reasons']) or counts}, "
            f"precision {proto['precision']})",
            "run with the protocol defaults",
        ),
        (
            len(record["runs"]) != protocol.RUNS
            or any(
                len(r["calls_ms"]) != protocol.TIMED_CALLS
                or len(r["warmup_ms"]) != protocol.WARMUP_CALLS
                for r in record["runs"]
            ),
            "its runs do not hold 3 x (10 warm-up + 100 timed) calls",
            REBUILD,
        ),
        (
            record["discarded"],
            f"the protocol discards it ({record['discard_reason']})",
            "re-run on an otherwise idle machine",
        ),
    ]
    for failed, what, fix in problems:
        if failed:
            raise fail("protocol", source, f"{bundle.RECORD}: {what}", fix)


# --- flags (kept for the reviewer) -----------------------------------------------------------


def call_time_flags(runs: list[dict[str, Any]]) -> list[Flag]:
    """Implausible timed calls: impossible (<= 0 ms), under the floor, zero variance in a run,
    or one exact value repeated in more than 10% of the calls (a real timer jitters)."""
    pooled = [c for run in runs for c in run["calls_ms"]]
    flags = []
    impossible = sum(1 for c in pooled if c <= 0)
    if impossible:
        flags.append(
            Flag(
                "impossible-calls",
                f"{impossible} of {len(pooled)} timed calls take <= 0 ms, which no call can",
            )
        )
    elif min(pooled) < CALL_FLOOR_MS:
        flags.append(
            Flag(
                "below-floor",
                f"the fastest timed call, {min(pooled):.4f} ms, is under "
                f"the {CALL_FLOOR_MS} ms floor of any detector's predict()",
            )
        )
    for index, run in enumerate(runs):
        if len(set(run["calls_ms"])) == 1:
            flags.append(
                Flag(
                    "zero-variance",
                    f"run {index + 1}: all {len(run['calls_ms'])} "
                    f"timed calls are exactly {run['calls_ms'][0]} ms",
                )
            )
    value, count = Counter(pooled).most_common(1)[0]
    if count / len(pooled) > IDENTICAL_SHARE_MAX:
        flags.append(
            Flag(
                "identical-values",
                f"{count} of {len(pooled)} timed calls "
                f"({count / len(pooled):.0%}) are exactly {value} ms (flag above "
                f"{IDENTICAL_SHARE_MAX:.0%})",
            )
        )
    return flags


def power_flag(environment: dict[str, Any]) -> list[Flag]:
    """'power-limited' when the enforced power limit is below the GPU's default (seed 000)."""
    if not status.power_limited(environment):
        return []
    limit, default = environment.get("power_limit_w"), environment.get("default_power_limit_w")
    detail = f"{limit} W, below its default {default} W" if limit is not None else "below default"
    return [Flag("power-limited", f"the GPU ran power-limited at {detail}, so it is slower")]


def ours_flag(record: dict[str, Any], our_run: dict[str, Any] | None) -> list[Flag]:
    """'far-from-ours' when the median differs from ours on the same GPU by more than 1.5x."""
    ours = (our_run or {}).get("median_ms")
    theirs = record["median_ms"]
    if not ours or not theirs or ours <= 0 or theirs <= 0:
        return []
    factor = max(ours, theirs) / min(ours, theirs)
    if factor <= FAR_FROM_OURS_FACTOR:
        return []
    return [
        Flag(
            "far-from-ours",
            f"median {theirs:.3f} ms is {factor:.2f}x our {ours:.3f} ms on "
            f"the same GPU and precision (flag above {FAR_FROM_OURS_FACTOR}x)",
        )
    ]


def provenance_flags(record: dict[str, Any], cls: type) -> list[Flag]:
    """An adapter source that differs from ours, or a tool run from a dirty working tree."""
    from measure.adapters import source_file

    flags = []
    if file_sha256(source_file(cls)) != record["adapter"]["source_sha256"]:
        flags.append(
            Flag(
                "adapter-differs",
                "the adapter source differs from this server's "
                "(another tool version or a local edit; compare adapter/ in the bundle)",
            )
        )
    if record["tool"].get("git_dirty"):
        flags.append(
            Flag(
                "tool-dirty", "the measuring tool ran from a working tree with uncommitted changes"
            )
        )
    return flags


def validate_bundle(
    data: bytes,
    source: str,
    limits: Limits = DEFAULT_LIMITS,
    runs_dir: Path | None = None,
    compare_ours: bool = True,
) -> Validated:
    """Every check in order; raises BundleError at the first failure, else returns the bundle.

    ``compare_ours`` looks up our measurement on the same GPU under ``runs_dir``
    (default ``paths.RUNS_DIR``) for the far-from-ours flag. Content no check foresaw (a
    TypeError deep in a record) is still refused with one ``schema`` line, never a traceback.
    """
    try:
        return _validate(data, source, limits, runs_dir, compare_ours)
    except BundleError:
        raise
    except (TypeError, KeyError, IndexError, AttributeError, ValueError, OverflowError) as exc:
        what = f"its content is malformed ({type(exc).__name__}: {str(exc)[:80]})"
        raise fail("schema", source, what, REBUILD) from None
    except RecursionError:
        raise fail("schema", source, "its JSON nests too deeply", REBUILD) from None


def _validate(
    data: bytes, source: str, limits: Limits, runs_dir: Path | None, compare_ours: bool
) -> Validated:
    members = read_members(data, source, limits)
    adapter_member = _check_layout(members, source)
    _check_small(members, source)
    check_manifest(members, source)
    submission = check_submission(members, source)
    record = parse_json(bundle.RECORD, members[bundle.RECORD], source)
    check_record_schema(record, source)
    cls = check_registry(record, source)
    check_hashes(record, members, adapter_member, source)
    check_inputs(record, source)
    recomputed = check_recompute(record, source)
    check_protocol(record, cls, source)
    env, proto = record["environment"], record["protocol"]
    our_run = None
    if compare_ours:
        our_run = status.our_run_on(
            record["adapter"]["name"], env["device_name"], proto["precision"], runs_dir
        )
    flags = [
        *call_time_flags(record["runs"]),
        *power_flag(env),
        *ours_flag(record, our_run),
        *provenance_flags(record, cls),
    ]
    return Validated(
        source=source,
        record=record,
        submission=submission,
        bundle_sha256=sha256_hex(data),
        content_sha256=bundle.content_sha256(record),
        recomputed=recomputed,
        flags=tuple(flags),
        our_run=our_run,
        data=data,
    )
