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

from analytics.core import atomic, gate, paths
from analytics.core import problems as problem_text
from analytics.core.hashing import file_sha256, sha256_hex
from analytics.fl import cache, review
from analytics.fl import policy as policy_mod
from analytics.fl.policy import Policy
from analytics.fl.submission import Submission, Validation, validate_zip, zip_name

RECEIVED_STATUS = "received — unverified until a maintainer reviews it"


def reference_dir() -> Path:
    """Our committed reference submissions."""
    return paths.DATA_DIR / "fl_reference" / "submissions"


def seed_dirs() -> dict[int, Path]:
    """Our reference set under each further seed (``data/fl_reference/seeds/<seed>/``): shown
    as the seed spread, never scored as submissions."""
    base = paths.DATA_DIR / "fl_reference" / "seeds"
    found = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
    return {int(p.name): p for p in found if p.name.isdigit()}


def reference_zips() -> list[Path]:
    """Every committed reference ZIP: the submissions and each further seed's set."""
    folders = [reference_dir(), *seed_dirs().values()]
    return [z for f in folders if f.is_dir() for z in sorted(f.glob("*.zip"))]


def uploads_dir() -> Path:
    """Uploads that passed validation (unverified, accepted or rejected)."""
    return review.uploads_dir()


REFERENCE_LIST = "SHA256SUMS"
"""``data/fl_reference/SHA256SUMS``: the sha256 of each reference ZIP (sha256sum's format),
written by ``fl-derive`` with the committed cache entries."""
_REFERENCE_FIX = (
    "restore it from git (`git checkout data/fl_reference`), or, after `fl-run`, "
    "run `python -m analytics fl-derive`"
)


def reference_list_path() -> Path:
    return reference_dir().parent / REFERENCE_LIST


def write_reference_list() -> Path:
    """List every reference ZIP with its sha256 (atomically); returns the list's path."""
    lines = [
        f"{file_sha256(f)}  {f.name}\n"
        for f in sorted(reference_dir().glob("*.zip"))
    ]
    atomic.write_text(reference_list_path(), "".join(lines))
    return reference_list_path()


def reference_damage() -> tuple[list[str], set[str]]:
    """(one line per reference ZIP that is missing, changed or not listed; the names of the
    stored ZIPs that must not be scored as ours)."""
    listing = reference_list_path()
    stored = {f.name: f for f in sorted(reference_dir().glob("*.zip"))}
    try:
        text = listing.read_text(encoding="utf-8") if listing.stat().st_size < 2**20 else ""
    except (OSError, UnicodeDecodeError):
        what = "the list of reference ZIPs and their hashes is missing or unreadable"
        return [problem_text.line(str(listing), what, _REFERENCE_FIX)], set(stored)
    listed = dict(reversed(line.split("  ", 1)) for line in text.splitlines() if "  " in line)
    lines, bad = [], set()
    for name, digest in sorted(listed.items()):
        if name not in stored:
            what = "missing: a reference result is not ranked"
            lines.append(problem_text.line(f"{reference_dir()}/{name}", what, _REFERENCE_FIX))
        elif file_sha256(stored[name]) != digest:
            what = f"damaged: its sha256 differs from {REFERENCE_LIST}; it is not ranked"
            lines.append(problem_text.line(str(stored[name]), what, _REFERENCE_FIX))
            bad.add(name)
    for name in sorted(set(stored) - set(listed)):
        what = f"not in {REFERENCE_LIST}: not one of our reference runs; it is not ranked"
        lines.append(problem_text.line(str(stored[name]), what, _REFERENCE_FIX))
        bad.add(name)
    return lines, bad


def data_version(policy_file: Path | None = None) -> str:
    """Content hash of the policy, the simulator profiles, every stored ZIP and the review
    record (cache key)."""
    digest = hashlib.sha256()
    files = [
        policy_file or policy_mod.policy_path(),
        paths.CATALOG_DIR / "fl" / "simulator_profiles.json",
        review.log_path(),
        reference_list_path(),
    ]
    files += reference_zips()
    files += sorted(uploads_dir().glob("*.zip")) if uploads_dir().is_dir() else []
    for file in files:
        name = file.relative_to(paths.DATA_DIR) if file.is_relative_to(paths.DATA_DIR) else file
        digest.update(str(name).encode())
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
    reference_damage: list[str] = field(default_factory=list)  # missing or changed references


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


def load_seed_sets(
    policy: Policy, folder_key: str | None = None, *, local: bool = True
) -> dict[int, tuple[list[Submission], list[str | None]]]:
    """Each further seed's reference set, validated through the cache: seed -> (subs, ids).
    A ZIP that does not validate is left out here (its line shows when the set is derived)."""
    out = {}
    for seed, folder in seed_dirs().items():
        subs, _problems, ids = load_cached(folder, policy, folder_key, local=local)
        out[seed] = (subs, ids)
    return out


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
    damage, bad = reference_damage()
    kept_ref = [(s, i) for s, i in zip(ref, ids, strict=True) if s.name not in bad]
    ref, ids = [s for s, _ in kept_ref], [i for _, i in kept_ref]
    uploads, upload_problems, upload_ids = _uploads(policy, {s.key for s in ref}, folder_key)
    sources = {s.name: "reference" for s in ref}
    kept = list(ref)
    for upload in uploads:
        if upload.submission is not None and upload.state.status == review.ACCEPTED:
            kept.append(upload.submission)
            ids.append(upload_ids.get(upload.submission.name))
            sources[upload.submission.name] = review.ACCEPTED
    return Loaded(kept, problems + upload_problems, sources, uploads, ids, damage)


UPLOADS = gate.Gate("an FL upload")
"""Anonymous uploads: two validated at once, ten per client in ten minutes."""


def _folded(method: str) -> str:
    """A method name as names are compared: case-folded, spaces, '_', '-' and '.' dropped
    ('fedavg', 'Fed Avg' and 'FedAvg' are one name; so are 'Local Only' and 'local-only')."""
    return re.sub(r"[\s_.-]+", "", method).casefold()


def _reserved(policy: Policy) -> set[str]:
    """Method names an upload may not take: the policy's reference methods and every method of
    our reference runs (their cached validations; a fixed set), in folded form."""
    ours = {s.method for s in load_cached(reference_dir(), policy)[0]}
    return {_folded(m) for m in (*policy.reference_methods, *ours)}


def _taken(sub: Submission) -> bool:
    """Whether a stored upload already holds this protocol/model/method (method compared
    folded). An upload is stored under its canonical name (``zip_name``), so the file names
    answer for every stored upload: no stored ZIP is read to check a new one."""
    wanted = _folded(zip_name(sub))
    folder = uploads_dir()
    return folder.is_dir() and any(_folded(p.name) == wanted for p in folder.glob("*.zip"))


def receive(
    data: bytes, upload_name: str, policy: Policy, client: str | None = None
) -> tuple[str | None, list[str]]:
    """Validate an upload and store it atomically as unverified; returns (stored name, problems).

    It is scored only after a maintainer accepts it (``analytics.fl.review.decide``). The
    browser-given name is reduced to plain characters before it appears in any line. At most
    ``UPLOADS.at_once`` are checked at a time and, for a ``client`` (a page's visitor),
    ``UPLOADS.per_client`` in its window (``analytics.core.gate``); of two uploads of one
    protocol/model/method at once, the second to be written is refused, never stored over
    the first.
    """
    upload_name = re.sub(r"[^A-Za-z0-9._-]", "_", upload_name)[:100] or "upload.zip"
    try:
        with UPLOADS.admit(client):
            return _receive(data, upload_name, policy)
    except gate.Busy as exc:
        return None, [problem_text.line(upload_name, exc.what, exc.fix)]


def _already(upload_name: str, sub: Submission) -> list[str]:
    what = f"protocol {sub.protocol}, model {sub.model}, method {sub.method} is already stored"
    return [problem_text.line(upload_name, what, "use a new method name")]


def _receive(data: bytes, upload_name: str, policy: Policy) -> tuple[str | None, list[str]]:
    result = validate_zip(data, policy, name=upload_name)
    if not result.ok:
        return None, result.problems
    sub = result.submission
    if _folded(sub.method) in _reserved(policy):
        what = f"method {sub.method!r} is the name of one of our reference methods"
        return None, [problem_text.line(upload_name, what, "name your own method")]
    if _taken(sub):
        return None, _already(upload_name, sub)
    target = uploads_dir() / zip_name(sub)
    try:
        atomic.create_bytes(target, data)
    except FileExistsError:  # another upload of the same key was stored since the check
        return None, _already(upload_name, sub)
    review.record_received(target.name, sha256_hex(data), upload_name)
    return target.name, []

