"""Where submissions live, receiving an upload, what takes a rank, and the data version.

- our reference ZIPs: ``data/fl_reference/submissions/*.zip`` (committed; rebuilt by ``fl-run``)
- uploads: ``data/runs/fl_submissions/*.zip`` (written atomically, never edited), each
  ``unverified`` until a maintainer accepts or rejects it (``analytics.fl.review``); only our
  reference runs and accepted uploads are scored and ranked.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import atomic, paths
from analytics.core import problems as problem_text
from analytics.fl import cache, review
from analytics.fl import policy as policy_mod
from analytics.fl.policy import Policy
from analytics.fl.submission import Submission, Validation, validate_zip, zip_name

RECEIVED_STATUS = "received — unverified until a maintainer reviews it"


def reference_dir() -> Path:
    """Our committed reference submissions."""
    return paths.DATA_DIR / "fl_reference" / "submissions"


def uploads_dir() -> Path:
    """Uploads that passed validation (unverified, accepted or rejected)."""
    return review.uploads_dir()


def data_version(policy_file: Path | None = None) -> str:
    """Content hash of the policy, the simulator profiles, every stored ZIP and the review
    record (cache key)."""
    digest = hashlib.sha256()
    files = [
        policy_file or policy_mod.policy_path(),
        paths.CATALOG_DIR / "fl" / "simulator_profiles.json",
        review.log_path(),
    ]
    for folder in (reference_dir(), uploads_dir()):
        files += sorted(folder.glob("*.zip")) if folder.is_dir() else []
    for file in files:
        digest.update(str(file.name).encode())
        digest.update(file.read_bytes() if file.is_file() else b"<missing>")
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Upload:
    """One stored upload: its review state and, when it still validates, its submission."""

    state: review.State
    submission: Submission | None


@dataclass(frozen=True)
class Loaded:
    submissions: list[Submission]  # what is scored: our reference runs and accepted uploads
    problems: list[str]
    sources: dict[str, str]  # submission name -> 'reference' | 'accepted'
    uploads: list[Upload] = field(default_factory=list)  # every stored upload, any state
    ids: list[str | None] = field(default_factory=list)  # cache entry of each of submissions


def load_folder(folder: Path, policy: Policy) -> tuple[list[Submission], list[str]]:
    """Validate every ZIP in a folder; invalid ones and duplicates are reported and skipped.

    One bad ZIP never stops the rest: each failure is one line ``<zip>: <what>; fix: <how>``.
    Always validates in full (``fl-score``); the pages go through :func:`load_cached`.
    """
    subs, problems, _ids = _load(folder, lambda file: (validate_zip(file, policy), None))
    return subs, problems


def load_cached(
    folder: Path, policy: Policy, folder_key: str | None = None, *, local: bool = True
) -> tuple[list[Submission], list[str], list[str | None]]:
    """:func:`load_folder` through the on-disk cache of validations (``analytics.fl.cache``):
    the same submissions and lines, plus each submission's cache entry id (None: not cached)."""
    folder_key = folder_key or cache.key(policy)
    return _load(folder, lambda file: cache.validated(file, policy, folder_key, local=local))


def _load(
    folder: Path, check: Callable[[Path], tuple[Validation, str | None]]
) -> tuple[list[Submission], list[str], list[str | None]]:
    subs: list[Submission] = []
    problems: list[str] = []
    ids: list[str | None] = []
    seen: dict[tuple[str, str, str], str] = {}
    for file in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        result, entry_id = check(file)
        if not result.ok:
            problems += result.problems
            continue
        sub = result.submission
        if sub.key in seen:
            problems.append(
                f"{file.name}: duplicate of {seen[sub.key]} (protocol {sub.protocol}, "
                f"model {sub.model}, method {sub.method}); fix: submit one ZIP per protocol, "
                "model and method"
            )
            continue
        seen[sub.key] = file.name
        subs.append(sub)
        ids.append(entry_id)
    return subs, problems, ids


def _uploads(
    policy: Policy, reference_keys: set, folder_key: str
) -> tuple[list[Upload], list[str], dict[str, str | None]]:
    """Every stored upload with its state; ones clashing with our references are reported.
    Also each valid upload's cache entry id (by ZIP name)."""
    found, problems = review.states(uploads_dir())
    subs, upload_problems, sub_ids = load_cached(uploads_dir(), policy, folder_key)
    by_name = {s.name: s for s in subs}
    ids = {s.name: i for s, i in zip(subs, sub_ids, strict=True)}
    out = []
    for name, state in found.items():
        sub = by_name.get(name)
        if sub is not None and sub.key in reference_keys:
            upload_problems.append(
                f"{name}: same protocol/model/method as a reference run; skipped"
            )
            sub = None
        out.append(Upload(state, sub))
    return out, problems + upload_problems, ids


def load_all(policy: Policy) -> Loaded:
    """Our reference submissions plus accepted uploads (an upload never replaces ours);
    unverified and rejected uploads are listed in ``uploads``, never scored."""
    folder_key = cache.key(policy)
    ref, problems, ids = load_cached(reference_dir(), policy, folder_key)
    uploads, upload_problems, upload_ids = _uploads(policy, {s.key for s in ref}, folder_key)
    sources = {s.name: "reference" for s in ref}
    kept = list(ref)
    for upload in uploads:
        if upload.submission is not None and upload.state.status == review.ACCEPTED:
            kept.append(upload.submission)
            ids.append(upload_ids.get(upload.submission.name))
            sources[upload.submission.name] = review.ACCEPTED
    return Loaded(kept, problems + upload_problems, sources, uploads, ids)


def _taken(sub: Submission, policy: Policy) -> bool:
    """Whether a reference run or any stored upload already holds this protocol/model/method."""
    keys = {s.key for s in load_cached(reference_dir(), policy)[0]}
    keys |= {s.key for s in load_cached(uploads_dir(), policy)[0]}
    return sub.key in keys or (uploads_dir() / zip_name(sub)).exists()


def receive(data: bytes, upload_name: str, policy: Policy) -> tuple[str | None, list[str]]:
    """Validate an upload and store it atomically as unverified; returns (stored name, problems).

    It is scored only after a maintainer accepts it (``analytics.fl.review.decide``). The
    browser-given name is reduced to plain characters before it appears in any line.
    """
    upload_name = re.sub(r"[^A-Za-z0-9._-]", "_", upload_name)[:100] or "upload.zip"
    result = validate_zip(data, policy, name=upload_name)
    if not result.ok:
        return None, result.problems
    sub = result.submission
    if sub.method in policy.reference_methods:
        what = f"method {sub.method!r} is one of our reference methods"
        return None, [problem_text.line(upload_name, what, "name your own method")]
    if _taken(sub, policy):
        what = f"protocol {sub.protocol}, model {sub.model}, method {sub.method} is already stored"
        return None, [problem_text.line(upload_name, what, "use a new method name")]
    target = uploads_dir() / zip_name(sub)
    atomic.write_bytes(target, data)
    review.record_received(target.name, hashlib.sha256(data).hexdigest(), upload_name)
    return target.name, []

