"""``python -m analytics derive [VERSION] [--check] [--planner-only]``: recompute (or, with
``--check``, only verify) a snapshot's derived files: its cached ratings (``ratings``), the
leaderboard's lineage and profiles (``board_inputs``) and the fine-tune planner's version-level
inputs (``planner_inputs``). ``--planner-only`` skips the ratings (seconds instead of minutes,
after an edit to planner, leaderboard or catalog code)."""

from __future__ import annotations

import sys

from analytics.core import db, derived
from analytics.llm import board_inputs, leaderboard, planner_inputs, ratings

FLAGS = ("--check", "--planner-only")


def main(argv: list[str]) -> int:
    """Exit 0 when done or up to date, 1 when stale (``--check``) or the snapshot is missing."""
    args = [a for a in argv[1:] if a not in FLAGS]
    if len(args) > 1 or any(a.startswith("--") for a in args):
        print(
            f"error: derive takes at most one VERSION and the flags {', '.join(FLAGS)}; fix: "
            f"{ratings.REGENERATE} [VERSION] [--check]",
            file=sys.stderr,
        )
        return 2
    planner_only = "--planner-only" in argv[1:]
    try:
        version = args[0] if args else db.ensure_snapshot()
        if "--check" in argv[1:]:
            return _check(version, planner_only)
        written = [] if planner_only else ratings.derive(version)
        written += leaderboard.derive_inputs(version)
        for path in [*written, *planner_inputs.derive(version)]:
            print(path)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _check(version: str, planner_only: bool) -> int:
    reason = planner_inputs.stale_reason(version) or board_inputs.stale_reason(version)
    if not planner_only:
        reason = ratings.stale_reason(version) or reason
    damaged = derived.damage_lines(ratings.derived_dir(version))  # every file, not the first
    if reason or damaged:
        for line in dict.fromkeys([*([reason] if reason else []), *damaged]):
            print(f"error: {line}", file=sys.stderr)
        return 1
    print(f"{ratings.derived_dir(version)}: up to date")
    return 0
