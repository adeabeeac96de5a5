"""``python -m analytics derive [VERSION] [--check] [--planner-only] [--force]``: bring up to
date (or, with ``--check``, only verify) a snapshot's derived files: its cached ratings
(``ratings``), the snapshot changes and freshness computed from them (``diff_inputs``), the
leaderboard's lineage and profiles and, from the ratings, its ranked table and flagged scores
(``board_inputs``), the calculators' command-line inputs with every hardware's measured speeds
(``fit_inputs``) and the fine-tune planner's version-level inputs (``planner_inputs``). A
file written by the current code whose recorded hash verifies is kept, so a derive with nothing
changed costs about what ``--check`` costs; ``--force`` recomputes the ratings anyway.
``--planner-only`` skips the ratings (and the snapshot changes, computed from them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analytics.core import db, derived, problems
from analytics.llm import (
    board_inputs,
    diff_inputs,
    elo,
    fit_inputs,
    leaderboard,
    planner_inputs,
    ratings,
)

PROG = ratings.REGENERATE  # "python -m analytics derive"
USAGE = f"{PROG} [VERSION] [--check] [--planner-only] [--force]"


class _UsageError(problems.Problem):
    """A bad command line, as one problem line (exit status 2)."""

    exit_status = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one problem line instead of argparse's usage block
        raise _UsageError(problems.line(PROG, message, f"{USAGE} (see --help)"))


def _parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description="Recompute, or with --check only verify, a snapshot's derived files: its "
        "cached ratings, the snapshot changes and freshness the leaderboard opens on, the "
        "leaderboard's lineage and profiles, and the fine-tune planner's inputs. Exit 0 when "
        "done or up to date, 1 when stale (--check) or the snapshot is missing, 2 for a bad "
        "command line.",
    )
    parser.add_argument(
        "version",
        nargs="?",
        metavar="VERSION",
        help="snapshot version (a folder of data/snapshots); default: the current catalog's "
        "snapshot, built if missing",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="only verify: print one line per stale or damaged file and exit 1, write nothing",
    )
    parser.add_argument(
        "--planner-only",
        action="store_true",
        help="skip the ratings: only the leaderboard and planner inputs (seconds, not minutes)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="recompute the ratings even where the stored ones are current and intact",
    )
    return parser


def main(argv: list[str]) -> int:
    """Exit 0 when done or up to date, 1 when stale (``--check``) or the snapshot is missing,
    2 for a bad command line (``argv[0]`` is the command name, ``derive``)."""
    try:
        args = _parser().parse_args(argv[1:])
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        version = args.version or db.ensure_snapshot()
        if args.check:
            return _check(version, args.planner_only)
        written = [] if args.planner_only else ratings.derive(version, force=args.force)
        written += [] if args.planner_only else diff_inputs.derive(version)  # reads the ratings
        written += board_inputs_of(version)
        written += [] if args.planner_only else board_table_of(version)  # from the ratings
        written += fit_inputs.derive(version)
        for path in [*written, *planner_inputs.derive(version)]:
            print(path)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def board_inputs_of(version: str) -> list[Path]:
    """``board_inputs``' tables of a built snapshot ``version`` for the current code (a missing
    or damaged one recomputed; older ones removed after; the ratings are neither read nor
    computed): the leaderboard's first render reads them. Nothing is opened when every table is
    current and intact."""
    def write() -> None:
        con = db.connect(version)
        try:
            board_inputs.lineage_of(version, lambda: leaderboard.board_models(con))
            board_inputs.profiles_of(
                version, lambda: elo.rated_scores(ratings.load_scores(con)),
                lambda: leaderboard.benchmarks_table(con),
            )
        finally:
            con.close()

    return board_inputs.TABLES.refresh(version, write)


def board_table_of(version: str) -> list[Path]:
    """``board_inputs.RATED``'s tables of ``version`` for the current code, from its served
    ratings (read, or computed and stored when missing); older ones removed after. Nothing is
    opened when both are current and intact."""
    def write() -> None:
        con = db.connect(version, runs=False)
        try:
            leaderboard.build(con, version)
        finally:
            con.close()

    return board_inputs.RATED.refresh(version, write)


def _check(version: str, planner_only: bool) -> int:
    sets = (planner_inputs.TABLES, board_inputs.TABLES, fit_inputs.FILES)
    reason = next(filter(None, (tables.stale_reason(version) for tables in sets)), None)
    if not planner_only:
        reason = (ratings.stale_reason(version) or diff_inputs.stale_reason(version)
                  or board_inputs.RATED.stale_reason(version) or reason)
    damaged = derived.damage_lines(derived.folder(version))  # every file, not the first
    if reason or damaged:
        for line in dict.fromkeys([*([reason] if reason else []), *damaged]):
            print(f"error: {line}", file=sys.stderr)
        return 1
    print(f"{derived.folder(version)}: up to date")
    return 0
