"""Where submissions live, atomic writes, publishing an upload, and the data version for caches.

- our reference ZIPs: ``data/fl_reference/submissions/*.zip`` (committed; rebuilt by ``fl-run``)
- published uploads: ``data/runs/fl_submissions/*.zip`` (written atomically, never edited)
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from analytics.core import atomic, paths
from analytics.fl import policy as policy_mod
from analytics.fl.policy import Policy
from analytics.fl.submission import Submission, validate_zip, zip_name

PUBLISHED_STATUS = "completed / published"


def reference_dir() -> Path:
    """Our committed reference submissions."""
    return paths.DATA_DIR / "fl_reference" / "submissions"


def published_dir() -> Path:
    """Uploads that passed validation."""
    return paths.RUNS_DIR / "fl_submissions"


def data_version(policy_file: Path | None = None) -> str:
    """Content hash of the policy, the simulator profiles and every stored ZIP (cache key)."""
    digest = hashlib.sha256()
    files = [
        policy_file or policy_mod.policy_path(),
        paths.CATALOG_DIR / "fl" / "simulator_profiles.json",
    ]
    for folder in (reference_dir(), published_dir()):
        files += sorted(folder.glob("*.zip")) if folder.is_dir() else []
    for file in files:
        digest.update(str(file.name).encode())
        digest.update(file.read_bytes() if file.exists() else b"<missing>")
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Loaded:
    submissions: list[Submission]
    problems: list[str]
    sources: dict[str, str]  # submission name -> 'reference' | 'published'


def load_folder(folder: Path, policy: Policy) -> tuple[list[Submission], list[str]]:
    """Validate every ZIP in a folder; invalid ones and duplicates are reported and skipped."""
    subs: list[Submission] = []
    problems: list[str] = []
    seen: dict[tuple[str, str, str], str] = {}
    for file in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        result = validate_zip(file, policy)
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
    return subs, problems


def load_all(policy: Policy) -> Loaded:
    """Our reference submissions plus published uploads (a published one never replaces ours)."""
    ref, problems = load_folder(reference_dir(), policy)
    pub, pub_problems = load_folder(published_dir(), policy)
    keys = {s.key for s in ref}
    sources = {s.name: "reference" for s in ref}
    kept = list(ref)
    for sub in pub:
        if sub.key in keys:
            pub_problems.append(
                f"{sub.name}: same protocol/model/method as a reference run; skipped"
            )
            continue
        kept.append(sub)
        sources[sub.name] = "published"
    return Loaded(kept, problems + pub_problems, sources)


def publish(data: bytes, upload_name: str, policy: Policy) -> tuple[str | None, list[str]]:
    """Validate an upload and store it atomically; returns (stored name, problems)."""
    result = validate_zip(data, policy, name=upload_name)
    if not result.ok:
        return None, result.problems
    sub = result.submission
    target = published_dir() / zip_name(sub)
    taken = {s.key for s in load_all(policy).submissions}
    if target.exists() or sub.key in taken:
        return None, [
            f"{upload_name}: protocol {sub.protocol}, model {sub.model}, method {sub.method} is "
            "already published; fix: use a new method name"
        ]
    atomic.write_bytes(target, data)
    return target.name, []


def summary_json(sub: Submission) -> str:
    """One-line description of a submission for logs and pages."""
    return json.dumps(
        {
            "protocol": sub.protocol,
            "model": sub.model,
            "method": sub.method,
            "seed": sub.seed,
            "simulator_version": sub.simulator_version,
            "runs": len(sub.runs),
        }
    )
