"""Problem lines: every error a user sees is one line ``<where>: <what>; fix: <how>``.

``where`` names the file (and row or line when known), ``what`` says what is wrong and ``fix``
says what to do. This module is the one formatter; validators, importers, CLIs and upload pages
all call it.
"""

from __future__ import annotations

from pathlib import Path

from analytics.core import paths


def display_path(path: Path | str) -> str:
    """``path`` relative to the repository when inside it, else as given."""
    path = Path(path)
    try:
        return path.resolve().relative_to(paths.REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def line(where: str, what: str, fix: str) -> str:
    """One problem line: ``<where>: <what>; fix: <fix>``."""
    return f"{where}: {what}; fix: {fix}"


def at(path: Path | str, row: int | None, what: str, fix: str) -> str:
    """A problem line for a file, with ``:<row>`` appended when the row (or line) is known."""
    where = display_path(path) if row is None else f"{display_path(path)}:{row}"
    return line(where, what, fix)
