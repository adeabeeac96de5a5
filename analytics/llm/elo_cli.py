"""``python -m analytics elo SCORES.csv`` and ``python -m analytics elo-diff OLD NEW``.

``elo`` reads a long score table (columns model, benchmark, category, score; optional source,
date, higher_is_better, publisher) and writes the ratings as CSV: model, rating, rank, eligible,
n_benchmarks, n_categories, unrated_reason (with a publisher column also n_publishers,
publishers, provisional: a rank then needs two publishers), plus rating_low, rating_high,
rank_low, rank_high, rank_ub with ``--bootstrap N``. Models outside the main comparison graph
are left unrated, with one warning line on stderr. Bad input prints one line naming the file,
the line and the fix, exits 1 and writes nothing.

``elo-diff`` prints the rating and rank changes between two built snapshot versions as CSV.
"""

from __future__ import annotations

import argparse
import io
import math
import sys
import warnings
from pathlib import Path

import pandas as pd

from analytics.core import atomic, safefile
from analytics.core.problems import Problem
from analytics.core.schema import SOURCE_KINDS
from analytics.llm import elo

_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}
_HEADER_HELP = (
    "model,benchmark,category,score (optional: source,date,higher_is_better,publisher)"
)


class InputError(Problem, ValueError):
    """Bad user input: ``where`` (the file and line), ``what`` and ``fix``; one line."""


def main(argv: list[str]) -> int:
    """Dispatch ``elo`` / ``elo-diff``; returns the exit status."""
    command, rest = (argv[0], argv[1:]) if argv else ("elo", [])
    try:
        if command == "elo-diff":
            return _run_diff(rest)
        return _run_elo(rest)
    except (InputError, elo.ConvergenceError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1


def _run_elo(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m analytics elo", description=__doc__)
    parser.add_argument("scores", type=Path, help=f"CSV with columns {_HEADER_HELP}")
    parser.add_argument("--out", type=Path, help="write the CSV here (default: stdout)")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="bootstrap rounds")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    opts = parser.parse_args(args)
    if opts.bootstrap < 0:
        raise InputError(f"--bootstrap {opts.bootstrap} is negative; fix: pass 0 or more rounds")
    scores = read_scores(opts.scores)
    table = elo.rate(scores, bootstrap=opts.bootstrap, seed=opts.seed)
    _warn_set_apart(opts.scores, table)
    text = format_csv(table)
    if opts.out is None:
        sys.stdout.write(text)
    else:
        write_atomic(opts.out, text)
    return 0


def _warn_set_apart(path: Path, table: pd.DataFrame) -> None:
    """One stderr line when some models share no benchmark with the main comparison graph."""
    apart = elo.set_apart(table)
    if apart:
        print(
            f"warning: {path}: {apart} of {len(table)} models {elo.UNRATED_DISCONNECTED}, left "
            "unrated (see unrated_reason); fix: add scores on benchmarks the main group reports",
            file=sys.stderr,
        )


def _run_diff(args: list[str]) -> int:
    from analytics.llm import snapshot_diff

    parser = argparse.ArgumentParser(
        prog="python -m analytics elo-diff",
        description="Rating and rank changes between two built snapshot versions (CSV).",
    )
    parser.add_argument("old_version")
    parser.add_argument("new_version")
    parser.add_argument("--all", action="store_true", help="also list unchanged models")
    opts = parser.parse_args(args)
    changes = snapshot_diff.diff_versions(opts.old_version, opts.new_version)
    if not opts.all:
        changes = changes[changes["change"] != "unchanged"]
    sys.stdout.write(changes.to_csv(index=False))
    return 0


def read_scores(path: Path) -> pd.DataFrame:
    """Read and validate a score CSV; raises :class:`InputError` with a one-line message."""
    raw = _read_raw(path)
    missing = [c for c in elo.REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(missing)}; fix: the header must include "
            f"{_HEADER_HELP}"
        )
    if raw.empty:
        raise InputError(f"{path}: no score rows below the header; fix: add one row per score")
    columns = [c for c in elo.REQUIRED_COLUMNS + elo.OPTIONAL_COLUMNS if c in raw.columns]
    frame = raw[columns].copy()
    for column in elo.REQUIRED_COLUMNS[:3]:
        frame[column] = _non_empty(frame[column], column, path)
    frame["score"] = _numbers(frame["score"], path)
    if "publisher" in frame:  # counted for eligibility: a blank one would count as nobody
        frame["publisher"] = _non_empty(frame["publisher"], "publisher", path)
    if "source" in frame:
        frame["source"] = _sources(frame["source"], path)
    if "date" in frame:
        frame["date"] = _dates(frame["date"], path)
    if "higher_is_better" in frame:
        frame["higher_is_better"] = _booleans(frame["higher_is_better"], path)
    for column in ("category", "higher_is_better"):
        if column in frame:
            _one_value_per_benchmark(frame, column, path)
    return frame


MAX_CSV_BYTES = 256 * 2**20  # a score CSV far larger than any public source's


def _read_raw(path: Path) -> pd.DataFrame:
    """The CSV as text columns. A first data row longer than the header would silently become
    the index (shifting every column): extra fields are refused (index_col=False, warning =
    error)."""
    if not Path(path).exists():
        raise InputError(f"{path}: no such file; fix: check the path")
    try:  # regular files only, bounded: a FIFO or a device is one line, never a hang
        data = safefile.read_regular(Path(path), MAX_CSV_BYTES, "pass a regular CSV file")
    except safefile.FileRefused as exc:
        raise InputError(str(exc)) from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(
                io.BytesIO(data),
                dtype=str,
                keep_default_na=False,
                skipinitialspace=True,
                index_col=False,
            )
    except pd.errors.ParserWarning:
        raise InputError(
            f"{path}: malformed CSV (a row has more fields than the header); "
            "fix: quote fields with commas"
        ) from None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file; fix: check the path") from None
    except pd.errors.EmptyDataError:
        raise InputError(f"{path}: file is empty; fix: add the header {_HEADER_HELP}") from None
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or type(err).__name__
        raise InputError(
            f"{path}: cannot read ({reason}); fix: pass a readable UTF-8 CSV"
        ) from None
    except pd.errors.ParserError as err:
        detail = str(err).strip().splitlines()[-1]
        raise InputError(
            f"{path}: malformed CSV ({detail}); fix: quote fields with commas"
        ) from None


def _line(index: int) -> int:
    """CSV line number of a data row (the header is line 1)."""
    return int(index) + 2


def _non_empty(column: pd.Series, name: str, path: Path) -> pd.Series:
    values = column.str.strip()
    blank = values == ""
    if blank.any():
        row = blank.idxmax()
        raise InputError(f"{path} line {_line(row)}: empty {name}; fix: fill it in or drop the row")
    return values


def _numbers(column: pd.Series, path: Path) -> pd.Series:
    values = pd.to_numeric(column.str.strip(), errors="coerce")
    bad = values.isna() | ~values.map(lambda v: math.isfinite(v) if pd.notna(v) else False)
    if bad.any():
        row = bad.idxmax()
        raise InputError(
            f"{path} line {_line(row)}: score {column[row]!r} is not a finite number; "
            "fix: write a plain number such as 71.5"
        )
    return values.astype(float)


def _sources(column: pd.Series, path: Path) -> pd.Series:
    values = column.str.strip().str.lower()
    bad = ~values.isin(SOURCE_KINDS)
    if bad.any():
        row = bad.idxmax()
        raise InputError(
            f"{path} line {_line(row)}: source {column[row]!r} is unknown; "
            f"fix: use one of {', '.join(SOURCE_KINDS)}"
        )
    return values


def _dates(column: pd.Series, path: Path) -> pd.Series:
    values = column.str.strip()
    parsed = pd.to_datetime(values, format="%Y-%m-%d", errors="coerce")
    bad = parsed.isna() & (values != "")
    if bad.any():
        row = bad.idxmax()
        raise InputError(
            f"{path} line {_line(row)}: date {column[row]!r} is not a date; "
            "fix: write YYYY-MM-DD or leave it empty"
        )
    return parsed


def _booleans(column: pd.Series, path: Path) -> pd.Series:
    values = column.str.strip().str.lower()
    bad = ~values.isin(_TRUE | _FALSE)
    if bad.any():
        row = bad.idxmax()
        raise InputError(
            f"{path} line {_line(row)}: higher_is_better {column[row]!r} is not true/false; "
            "fix: write true or false"
        )
    return values.isin(_TRUE)


def _one_value_per_benchmark(frame: pd.DataFrame, column: str, path: Path) -> None:
    first = frame.groupby("benchmark")[column].transform("first")
    clash = frame[column] != first
    if clash.any():
        row = clash.idxmax()
        bench = frame.at[row, "benchmark"]
        raise InputError(
            f"{path} line {_line(row)}: benchmark {bench!r} has {column} "
            f"{frame.at[row, column]!r} here but {first[row]!r} earlier; "
            f"fix: give each benchmark one {column}"
        )


def format_csv(table: pd.DataFrame) -> str:
    """The ratings CSV: booleans as true/false, ranks empty for unrated models."""
    out = table.copy()
    out["eligible"] = out["eligible"].map({True: "true", False: "false"})
    return out.to_csv(index=False, float_format="%.1f")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically; the folder must already exist."""
    folder = path.resolve().parent
    if not folder.is_dir():
        raise InputError(f"{path}: folder {folder} does not exist; fix: create it first")
    atomic.write_text(path, text)
