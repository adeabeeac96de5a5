"""Which built snapshots the repository keeps, and the removal of the others.

Kept, each with its reason:

- the served snapshot: the version the current catalog hashes to;
- every version the tests or the notebooks pin (a version-shaped word, ``v`` + 10 hex digits,
  in a file under :data:`PIN_ROOTS`): they read that exact data;
- the previous snapshot (the newest built before the served one): the leaderboard's "changes
  between snapshots" compares the two.

Everything else goes, its derived folder (``data/derived/<version>/``) with it. Nothing is lost:
a snapshot is a pure function of a catalog in git, so ``git log -- data/catalog`` finds the
commit whose catalog hashes to a removed version, and ``snapshot build --catalog`` of that
checkout (or ``snapshot check --repair``, which searches git itself) writes it again.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from analytics.core import paths
from analytics.core.snapshot.manifest import catalog_version, list_versions

PIN_ROOTS = ("tests", "notebooks")
"""Folders (from the repository root) whose files pin a snapshot by naming its version."""
PIN_SUFFIXES = (".py", ".ipynb", ".md", ".json", ".txt")
VERSION_WORD = re.compile(r"\bv[0-9a-f]{10}\b")


@dataclass
class Plan:
    """What :func:`plan` decided: kept versions with why, and the versions to remove."""

    keep: dict[str, str] = field(default_factory=dict)
    remove: list[str] = field(default_factory=list)


def pinned_versions(repo: Path = paths.REPO_ROOT, roots: tuple[str, ...] = PIN_ROOTS) -> dict:
    """version -> the first file (repository-relative) under ``roots`` that names it."""
    found: dict[str, str] = {}
    for root in roots:
        for path in sorted((repo / root).rglob("*")):
            if path.suffix not in PIN_SUFFIXES or not path.is_file():
                continue
            for version in VERSION_WORD.findall(path.read_text(encoding="utf-8", errors="ignore")):
                found.setdefault(version, path.relative_to(repo).as_posix())
    return found


def plan(snapshots_dir: Path, served: str, pinned: dict[str, str]) -> Plan:
    """Which versions of ``snapshots_dir`` to keep (served, pinned, previous) and remove."""
    built = list_versions(snapshots_dir)  # oldest build first
    out = Plan()
    if served in built:
        out.keep[served] = "served (the current catalog's version)"
        older = built[: built.index(served)]
        if older:
            out.keep.setdefault(older[-1], "previous (the snapshot diff's old side)")
    for version in built:
        if version in pinned:
            out.keep.setdefault(version, f"pinned by {pinned[version]}")
    out.remove = [v for v in built if v not in out.keep]
    return out


def prune(
    snapshots_dir: Path | None = None,
    derived_dir: Path | None = None,
    catalog_dir: Path | None = None,
    *,
    dry_run: bool = False,
    repo: Path = paths.REPO_ROOT,
    served: str | None = None,
) -> Plan:
    """Remove every snapshot :func:`plan` does not keep, with its derived folder (unless
    ``dry_run``); returns the plan. ``served`` defaults to the catalog's version."""
    snapshots_dir = snapshots_dir or paths.SNAPSHOTS_DIR
    derived_dir = derived_dir or snapshots_dir.parent / "derived"
    served = served or catalog_version(catalog_dir or paths.CATALOG_DIR)
    decided = plan(snapshots_dir, served, pinned_versions(repo))
    if not dry_run:
        for version in decided.remove:
            shutil.rmtree(snapshots_dir / version)
            shutil.rmtree(derived_dir / version, ignore_errors=True)
    return decided
