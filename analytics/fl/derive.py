"""``python -m analytics fl-derive [--check]``: regenerate, or only check, the committed entries
of the FL cache (``analytics.fl.cache``): every reference ZIP's validation (the submissions and
each further seed's set) and the scores of each seed's set, in ``data/derived/fl/<key>/`` with a
``MANIFEST.json`` listing each entry's sha256."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from analytics.core import atomic, paths
from analytics.core.hashing import file_sha256
from analytics.fl import cache, store
from analytics.fl.policy import Policy, load_policy

MANIFEST = "MANIFEST.json"
REGENERATE = "python -m analytics fl-derive"


def derive(policy: Policy | None = None) -> Path:
    """Recompute the committed entries: every reference ZIP and the scores of the valid ones,
    into a fresh ``<key>/`` (older key folders are removed); returns the folder."""
    policy = policy or load_policy()
    folder_key = cache.key(policy)
    folder = cache.root() / folder_key
    if cache.root().is_dir():
        for old in cache.root().iterdir():
            if old.is_dir():
                shutil.rmtree(old)
    subs, _problems, ids = store.load_cached(store.reference_dir(), policy, folder_key, local=False)
    cache.scored(subs, ids, policy, folder_key, local=False)
    for seed_subs, seed_ids in store.load_seed_sets(policy, folder_key, local=False).values():
        cache.scored(seed_subs, seed_ids, policy, folder_key, local=False)
    files = {}
    for path in sorted(folder.glob("*.entry")):
        files[path.name] = file_sha256(path)
    manifest = {"key": folder_key, "format": cache.FORMAT, "regenerate": REGENERATE, "files": files}
    atomic.write_json(folder / MANIFEST, manifest)
    store.write_reference_list()  # the hashes the ranked page checks our references against
    return folder


def stale_reason(policy: Policy | None = None) -> str | None:
    """None when ``<key>/`` holds a verified entry for every reference ZIP and their scores
    (its manifest lists exactly those); otherwise one line saying what and how to fix."""
    policy = policy or load_policy()
    folder_key = cache.key(policy)
    folder = cache.root() / folder_key
    where = folder.relative_to(paths.DATA_DIR) if folder.is_relative_to(paths.DATA_DIR) else folder
    fix = f"fix: {REGENERATE}"
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{where}/{MANIFEST} is missing (other code, policy or profiles); {fix}"
    wanted = []
    for file in store.reference_zips():
        digest = file_sha256(file)
        wanted.append(f"zip-{cache.zip_id(file.name, digest)}")
    listed = manifest.get("files", {})
    for name in [f"{w}.entry" for w in wanted]:
        path = folder / name
        if name not in listed or not path.is_file():
            return f"{where}: no entry for a reference ZIP (added or changed); {fix}"
        if file_sha256(path) != listed[name]:
            return f"{where}/{name} does not match its manifest; {fix}"
    zips = {n for n in listed if n.startswith("zip-")}
    if zips != {f"{w}.entry" for w in wanted}:
        return f"{where}: entries of ZIPs no longer stored; {fix}"
    scores = [n for n in listed if n.startswith("scores-")]
    sets = 1 + sum(1 for f in store.seed_dirs().values() if any(f.glob("*.zip")))
    if len(scores) != sets or not all((folder / n).is_file() for n in scores):
        return f"{where}: a scores entry is missing ({len(scores)} of {sets} sets); {fix}"
    return None


def main(argv: list[str]) -> int:
    """``fl-derive [--check]``: regenerate the committed entries, or only check them (exit 1
    when stale)."""
    args = argv[1:]
    if any(a != "--check" for a in args):
        print(f"error: fl-derive takes only --check; fix: {REGENERATE} [--check]", file=sys.stderr)
        return 2
    try:
        if "--check" in args:
            reason = stale_reason()
            if reason:
                print(f"error: {reason}", file=sys.stderr)
                return 1
            print(f"{cache.root() / cache.key(load_policy())}: up to date")
            return 0
        print(derive())
    except OSError as exc:  # a PolicyError is printed by the dispatcher (exit status 2)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
