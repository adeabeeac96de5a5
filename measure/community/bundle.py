"""The submission bundle: one ZIP with the run record, the lock files, the adapter source and a
manifest of SHA-256 hashes (``python -m measure submit``).

Members (docs/community.md, "Bundle format")::

    MANIFEST.json          format, format_version, members [{name, sha256, size_bytes}]
    submission.json        format, format_version, github, submitted_utc
    record.json            the run record: every timed call, the hashes, the environment
    lock/requirements.txt  the pinned requirements the record's lock hash names
    lock/pip-freeze.txt    the installed distributions, one per line, as hashed in the record
    adapter/<file>.py      the adapter source the record's adapter hash names

The ZIP is deterministic (sorted names, fixed timestamps), so the same inputs give the same bytes.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from analytics.core import paths
from analytics.core.hashing import sha256_hex
from analytics.core.problems import Problem
from measure.community import audit
from measure.env import resolve_path

FORMAT = "modelatlas-community-bundle"
FORMAT_VERSION = 1
MANIFEST = "MANIFEST.json"
SUBMISSION = "submission.json"
RECORD = "record.json"
REQUIREMENTS = "lock/requirements.txt"
PIP_FREEZE = "lock/pip-freeze.txt"
ADAPTER_PREFIX = "adapter/"
ADAPTER_NAME = re.compile(r"^adapter/[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.py$")
GITHUB_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$")
"""GitHub's rule: 1-39 letters, digits or single inner hyphens."""
SAME_CHECKOUT = "submit from the checkout that made the record"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed member timestamps (the ZIP epoch) for stable bytes


class SubmitError(Problem, ValueError):
    """The record cannot be packaged: ``where`` the file, ``what`` is wrong, ``fix``."""


def content_sha256(record: dict[str, Any]) -> str:
    """The record's content hash: SHA-256 of its canonical JSON (sorted keys, no spaces).

    Two bundles carrying the same record are duplicates however they were zipped or who sent them.
    """
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return sha256_hex(text)


def pip_freeze_text(record: dict[str, Any]) -> str:
    """The lock's installed distributions as the text its ``pip_freeze_sha256`` hashes."""
    return "\n".join(record["lock"]["pip_freeze"])


def _read_matching(path: Path, expected: str | None, what: str, source: Path) -> bytes:
    if not path.is_file():
        raise SubmitError(str(source), f"{what} {path} not found", SAME_CHECKOUT)
    data = path.read_bytes()
    if expected is not None and sha256_hex(data) != expected:
        changed = (
            f"{what} {path} changed since the run (sha256 {sha256_hex(data)[:12]}… "
            f"!= recorded {expected[:12]}…)"
        )
        raise SubmitError(str(source), changed, SAME_CHECKOUT)
    return data


def members_for(
    record: dict[str, Any], github: str, source: Path, submitted_utc: str | None = None
) -> dict[str, bytes]:
    """Every member but the manifest, read from this checkout and checked against the record."""
    if not GITHUB_NAME.match(github or ""):
        raise SubmitError("--github", f"{github!r} is not a GitHub user name", "give yours")
    lock, adapter = record["lock"], record["adapter"]
    requirements = paths.REPO_ROOT / (lock.get("requirements_file") or "requirements.txt")
    adapter_file = resolve_path(adapter["source_file"])
    adapter_member = ADAPTER_PREFIX + adapter_file.name
    if not ADAPTER_NAME.match(adapter_member):
        what = f"adapter file name {adapter_file.name!r} is not plain"
        raise SubmitError(str(source), what, "rename it to letters, digits, '_', '.' or '-'")
    submission = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "github": github,
        "submitted_utc": submitted_utc or audit.utc_now(),
    }
    return {
        SUBMISSION: _json_bytes(submission),
        RECORD: _json_bytes(record),
        REQUIREMENTS: _read_matching(
            requirements, lock.get("requirements_sha256"), "lock file", source
        ),
        PIP_FREEZE: pip_freeze_text(record).encode(),
        adapter_member: _read_matching(adapter_file, adapter["source_sha256"], "adapter", source),
    }


def _json_bytes(payload: Any) -> bytes:
    return (json.dumps(payload, indent=1, allow_nan=False) + "\n").encode()


def manifest_for(members: dict[str, bytes]) -> dict[str, Any]:
    """The manifest: SHA-256 and size of every member."""
    listed = [
        {"name": name, "sha256": sha256_hex(data), "size_bytes": len(data)}
        for name, data in sorted(members.items())
    ]
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "members": listed}


def zip_bytes(members: dict[str, bytes]) -> bytes:
    """A deterministic ZIP of ``members`` plus their manifest."""
    everything = {**members, MANIFEST: _json_bytes(manifest_for(members))}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(everything):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16  # a regular file, rw-r--r--
            archive.writestr(info, everything[name])
    return buffer.getvalue()


def build(record_path: Path, github: str, submitted_utc: str | None = None) -> bytes:
    """The bundle bytes for a stored run record (raises SubmitError with a one-line reason)."""
    from measure.record import validate as validate_record
    from measure.verify import load_record

    try:
        record = load_record(Path(record_path))
        validate_record(record)
    except ValueError as exc:  # a RecordError: what is wrong with the record, and the fix
        what, fix = (exc.what, exc.fix) if isinstance(exc, Problem) else (str(exc), "")
        raise SubmitError(str(record_path), what, fix) from None
    return zip_bytes(members_for(record, github, Path(record_path), submitted_utc))
