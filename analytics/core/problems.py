"""Problem lines: every error a user sees is one line ``<where>: <what>; fix: <how>``.

``where`` names the file (and row or line when known), ``what`` says what is wrong and ``fix``
says what to do. This module is the one formatter; validators, importers, CLIs and upload pages
all call it. It escapes every character that is not printable (control, bidi, zero-width, line
separators) in all three parts, so text taken from a user's file can neither break the line nor
reorder what a terminal shows; ``quote`` cuts echoed user text to a readable length.

``Problem`` is the one error type for problems a user can fix: it carries the three parts and its
``str()`` is the line; every project exception derives from it.
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


MAX_QUOTED = 80
"""Characters of user-typed text a problem line echoes (``quote``)."""


def escaped(text: str) -> str:
    """``text`` with every non-printable character (newline, tab, other control characters,
    bidi overrides and isolates, zero-width characters, line and paragraph separators) written
    as its Python escape (``\\n``, ``\\u202e``); printable text is returned as is."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def quote(text: object, limit: int = MAX_QUOTED) -> str:
    """``repr(text)`` for a problem line, cut to about ``limit`` characters with an ellipsis
    (a 100,000-character ``--model`` is echoed as its first characters, not in full)."""
    shown = repr(str(text))
    if len(shown) <= limit:
        return shown
    return f"{shown[: max(limit - 2, 1)]}…{shown[-1]} ({len(str(text)):,} characters)"


def line(where: str, what: str, fix: str) -> str:
    """One problem line: ``<where>: <what>; fix: <fix>``, non-printable characters escaped."""
    return f"{escaped(where)}: {escaped(what)}; fix: {escaped(fix)}"


def at(path: Path | str, row: int | None, what: str, fix: str) -> str:
    """A problem line for a file, with ``:<row>`` appended when the row (or line) is known."""
    where = display_path(path) if row is None else f"{display_path(path)}:{row}"
    return line(where, what, fix)


def text(where: str, what: str, fix: str = "") -> str:
    """:func:`line` where every part is given; without a ``fix`` the line ends after ``what``,
    without a ``where`` it starts with it."""
    if where and fix:
        return line(where, what, fix)
    shown = f"{escaped(where)}: {escaped(what)}" if where else escaped(what)
    return f"{shown}; fix: {escaped(fix)}" if fix else shown


FIX_MARK = "; fix: "


def fields(problem_line: str) -> tuple[str, str, str]:
    """``(where, what, fix)`` of a line written as :func:`line` writes it: ``fix`` after the last
    ``"; fix: "`` ("" without one), ``where`` before the first ``": "`` of the rest ("" without
    one), ``what`` between."""
    head, mark, fix = problem_line.rpartition(FIX_MARK)
    if not mark:
        head, fix = problem_line, ""
    where, colon, what = head.partition(": ")
    if not colon:
        where, what = "", head
    return where, what, fix


class Problem(Exception):
    """A problem the user can fix: ``where`` it is (file, row, name), ``what`` is wrong and the
    ``fix``; ``str()`` is its one problem line (:func:`text`).

    Every error class of the project derives from it (beside the builtin base callers catch,
    such as ``ValueError``), and each command line catches it once
    (``analytics.core.dispatch``), printing the line and exiting with :attr:`exit_status`.
    ``Problem(where, what, fix)`` formats the line; a single argument is a line already written
    (older raise sites, unpickling), kept as it is and read back into the fields (:func:`fields`).
    """

    exit_status = 1
    """What a command line exits with after printing this problem (2: a refused command line or
    input file, where the command has always said so)."""

    def __init__(self, where: str = "", what: str | None = None, fix: str = "") -> None:
        if what is None:
            shown = str(where)
            where, what, fix = fields(shown)
        else:
            shown = text(str(where), str(what), str(fix))
        self.where, self.what, self.fix = str(where), str(what), str(fix)
        super().__init__(shown)

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
