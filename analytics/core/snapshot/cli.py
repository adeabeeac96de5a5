"""The snapshot command line: build, validate, list, check and prune.

Command line::

    python -m analytics snapshot build [--catalog DIR] [--snapshots DIR]
    python -m analytics snapshot validate [--catalog DIR]
    python -m analytics snapshot list [--snapshots DIR]
    python -m analytics snapshot check [VERSION ...] [--repair] [--catalog DIR] [--snapshots DIR]
    python -m analytics snapshot prune [--dry-run] [--catalog DIR] [--snapshots DIR]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import analytics.core.snapshot.generation as generation
import analytics.core.snapshot.prune as prune_mod
import analytics.core.snapshot.verify as verify
from analytics.core import derived, paths, schema
from analytics.core.problems import at, display_path
from analytics.core.snapshot.build import build
from analytics.core.snapshot.checks import CatalogError, validate
from analytics.core.snapshot.manifest import (
    MANIFEST,
    STALE_TEMP_S,
    DamagedSnapshot,
    catalog_version,
    list_snapshots,
    list_versions,
    stale_temp_dirs,
    try_manifest,
)
from analytics.core.snapshot.parse import one_line


def summary(version: str, counts: dict[str, int], categories: int) -> str:
    """One-line description of a snapshot, e.g. ``snapshot v…: 612 models, 74 benchmarks …``."""
    parts = [
        f"{counts.get('models', 0):,} models",
        f"{counts.get('benchmarks', 0):,} benchmarks ({categories:,} categories)",
        f"{counts.get('scores', 0):,} scores",
        f"{counts.get('gpus', 0):,} gpus",
        f"{counts.get('throughput', 0):,} throughput rows",
    ]
    extra = [f"{n} ({c:,} rows)" for n, c in sorted(counts.items()) if n not in schema.TABLES]
    line = f"snapshot {version}: " + ", ".join(parts)
    return line + (f"; extra tables: {', '.join(extra)}" if extra else "")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analytics snapshot", description="Validate the catalog; build snapshots."
    )
    sub = parser.add_subparsers(dest="action", required=True)
    for action, help_ in (
        ("build", "validate the catalog and write its versioned snapshot"),
        ("validate", "check the catalog and print every problem"),
        ("list", "list built snapshots"),
        ("check", "re-hash every snapshot file against its manifest"),
        ("prune", "remove snapshots not served, pinned or previous (and their derived data)"),
    ):
        cmd = sub.add_parser(action, help=help_)
        cmd.add_argument("--catalog", type=Path, default=None, help="catalog folder")
        cmd.add_argument("--snapshots", type=Path, default=None, help="snapshots folder")
        if action == "check":
            cmd.add_argument("versions", nargs="*", help="versions to check (default: all)")
            cmd.add_argument(
                "--repair", action="store_true", help="rebuild damaged versions from their catalog"
            )
        if action == "prune":
            cmd.add_argument("--dry-run", action="store_true", help="say what goes; remove nothing")
    return parser


def _report_problems(problems: list[str], tail: str) -> int:
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}; {tail}", file=sys.stderr)
    return 1


def _validate(catalog_dir: Path) -> int:
    problems = validate(catalog_dir)
    if problems:
        return _report_problems(problems, "the catalog is not valid")
    print(f"catalog {display_path(catalog_dir)} is valid (version {catalog_version(catalog_dir)})")
    return 0


def _prune(catalog_dir: Path, snapshots_dir: Path, dry_run: bool) -> int:
    decided = prune_mod.prune(snapshots_dir, catalog_dir=catalog_dir, dry_run=dry_run)
    for version, why in decided.keep.items():
        print(f"keep   {version}  {why}")
    verb = "would remove" if dry_run else "removed"
    for version in decided.remove:
        print(f"{verb} {version}  (rebuild: git log -- data/catalog, then snapshot build)")
    return 0


def _list(snapshots_dir: Path) -> int:
    for m in list_snapshots(snapshots_dir):
        print(f"{m['built_at']}  {summary(m['version'], m['tables'], m.get('categories', 0))}")
    return 0


def _build(catalog_dir: Path, snapshots_dir: Path) -> int:
    try:
        result = build(catalog_dir, snapshots_dir)
    except CatalogError as exc:
        return _report_problems(exc.problems, "nothing written")
    except DamagedSnapshot as exc:
        return _report_problems([str(exc)], "nothing written")
    print(summary(result.version, result.counts, result.categories))
    state = "written to" if result.created else "already built at (not rewritten)"
    print(f"{state} {display_path(result.path)}")
    return 0


_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""A version named on the command line: a folder name, never a path."""


def _stale_lines(snapshots_dir: Path) -> list[str]:
    """One problem line per temp folder a killed build left behind."""
    minutes = STALE_TEMP_S // 60
    what = f"temporary folder of an interrupted build (untouched for over {minutes} minutes)"
    fix = "delete it (`snapshot build` removes these too)"
    return [at(path, None, what, fix) for path in stale_temp_dirs(snapshots_dir)]


def _check_one(folder: Path, catalog_dir: Path, repair: bool) -> list[str]:
    """Problem lines of one snapshot (after ``repair``, of its rebuilt folder); prints its
    state."""
    if not _VERSION.match(folder.name) or not (folder / MANIFEST).is_file():
        fix = "run `python -m analytics snapshot list` for the built versions"
        return [at(folder, None, "no such snapshot", fix)]
    result = verify.check_snapshot(folder, catalog_dir, history=True)
    if not result.ok and repair:
        try:
            source = verify.repair(folder.name, folder.parent, catalog_dir, history=True)
        except (DamagedSnapshot, CatalogError, OSError) as exc:
            return [*result.damaged, one_line(str(exc).splitlines()[0])]
        print(f"{folder.name}: rebuilt from {source}")
        result = verify.check_snapshot(folder, catalog_dir, history=True)
    if result.ok and result.reference is None:
        print(
            f"{folder.name}: no hashes recorded and no catalog hashes to it; "
            "its Parquet files read and its JSON files match the catalog hashes"
        )
    elif result.ok:
        print(f"{folder.name}: intact (checked against {result.reference})")
    return list(result.damaged)


def _unreadable_manifests(snapshots_dir: Path) -> list[str]:
    """One problem line per snapshot folder whose MANIFEST.json is there but does not parse
    (``list_versions`` leaves such folders out, so they would be skipped silently)."""
    if not snapshots_dir.is_dir():
        return []
    out = []
    for folder in sorted(p for p in snapshots_dir.iterdir() if (p / MANIFEST).is_file()):
        if try_manifest(folder) is None:
            fix = f"`python -m analytics snapshot check --repair {folder.name}` or rebuild it"
            out.append(at(folder / MANIFEST, None, "does not parse as a JSON object", fix))
    return out


def _derived_lines(snapshots_dir: Path, version: str) -> list[str]:
    """Damage of the version's derived files (``data/derived/<version>``): content hashes."""
    return derived.damage_lines(snapshots_dir.parent / "derived" / version)


def _catalog_lines(catalog_dir: Path, snapshots_dir: Path) -> list[str]:
    """Problems of the current catalog: its generation list always (a hash each), and full
    validation when its version is not built (a built version validated when it was built)."""
    found = generation.problems(catalog_dir)
    if found or not catalog_dir.is_dir():
        return found
    if (snapshots_dir / catalog_version(catalog_dir) / MANIFEST).is_file():
        return []
    return validate(catalog_dir)


def _check(snapshots_dir: Path, catalog_dir: Path, versions: list[str], repair: bool) -> int:
    problems = _stale_lines(snapshots_dir)
    if not versions:
        problems += _catalog_lines(catalog_dir, snapshots_dir)
        problems += _unreadable_manifests(snapshots_dir)
    for version in versions or list_versions(snapshots_dir):
        problems += _check_one(snapshots_dir / version, catalog_dir, repair)
        problems += _derived_lines(snapshots_dir, version)
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m analytics snapshot build|validate|list|check|prune``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["snapshot"]:
        argv = argv[1:]
    args = _parser().parse_args(argv)
    catalog_dir = args.catalog or paths.CATALOG_DIR
    snapshots_dir = args.snapshots or paths.SNAPSHOTS_DIR
    if args.action == "validate":
        return _validate(catalog_dir)
    if args.action == "list":
        return _list(snapshots_dir)
    if args.action == "check":
        return _check(snapshots_dir, catalog_dir, args.versions, args.repair)
    if args.action == "prune":
        return _prune(catalog_dir, snapshots_dir, args.dry_run)
    return _build(catalog_dir, snapshots_dir)
