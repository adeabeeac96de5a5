"""The snapshot command line: build, validate and list.

Command line::

    python -m analytics snapshot build [--catalog DIR] [--snapshots DIR]
    python -m analytics snapshot validate [--catalog DIR]
    python -m analytics snapshot list [--snapshots DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analytics.core import paths, schema
from analytics.core.problems import display_path
from analytics.core.snapshot.build import build
from analytics.core.snapshot.checks import CatalogError, validate
from analytics.core.snapshot.manifest import catalog_version, list_snapshots


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
    ):
        cmd = sub.add_parser(action, help=help_)
        cmd.add_argument("--catalog", type=Path, default=None, help="catalog folder")
        cmd.add_argument("--snapshots", type=Path, default=None, help="snapshots folder")
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


def _list(snapshots_dir: Path) -> int:
    for m in list_snapshots(snapshots_dir):
        print(f"{m['built_at']}  {summary(m['version'], m['tables'], m.get('categories', 0))}")
    return 0


def _build(catalog_dir: Path, snapshots_dir: Path) -> int:
    try:
        result = build(catalog_dir, snapshots_dir)
    except CatalogError as exc:
        return _report_problems(exc.problems, "nothing written")
    print(summary(result.version, result.counts, result.categories))
    state = "written to" if result.created else "already built at (not rewritten)"
    print(f"{state} {display_path(result.path)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m analytics snapshot build|validate|list``; returns the exit status."""
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
    return _build(catalog_dir, snapshots_dir)
