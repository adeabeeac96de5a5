"""The one error type (``analytics.core.problems.Problem``): its fields, its line, that every
project exception derives from it, and that each command line catches it once
(``analytics.core.dispatch.run``)."""

from __future__ import annotations

import ast
import importlib
import pickle

import pytest

from analytics.core import dispatch, paths, problems
from analytics.core.problems import Problem
from tests.fixtures.imports import module_name, python_files

FOLDERS = ("analytics", "measure", "ui")
NOT_A_PROBLEM = {
    "analytics.core.inflate.Overflow": "internal: safezip turns it into a BundleError",
    "measure.run_jobs.Cancelled": "a signal (SIGTERM) that unwinds a cancelled run, not an error",
}
"""Exception classes that are not (yet) a Problem, and why."""


def _exception_classes() -> dict[str, type]:
    """Every exception class defined in analytics/, measure/ and ui/, by dotted name."""
    found = {}
    for path in python_files(paths.REPO_ROOT, *FOLDERS):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.bases]
        if not names or path.name == "__main__.py":
            continue
        module = importlib.import_module(module_name(path, paths.REPO_ROOT))
        for name in names:
            cls = getattr(module, name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found[f"{module.__name__}.{name}"] = cls
    return found


def test_every_project_exception_is_a_problem():
    classes = _exception_classes()
    assert len(classes) >= 20
    assert set(NOT_A_PROBLEM) <= set(classes), "an exemption names a class that is gone"
    outside = sorted(n for n, c in classes.items() if not issubclass(c, Problem))
    assert outside == sorted(NOT_A_PROBLEM)


def test_fields_make_the_line_and_a_written_line_gives_back_its_fields():
    problem = Problem("data/x.csv:3", "score 'n/a' is not a number", "write a number")
    assert str(problem) == "data/x.csv:3: score 'n/a' is not a number; fix: write a number"
    assert str(problem) == problems.line(problem.where, problem.what, problem.fix)
    again = Problem(str(problem))
    assert (again.where, again.what, again.fix) == (problem.where, problem.what, problem.fix)
    assert str(again) == str(problem)


@pytest.mark.parametrize(
    ("fields", "shown"),
    [
        (("", "nests 70 levels deep", ""), "nests 70 levels deep"),
        (("", "nobody is configured", "set one"), "nobody is configured; fix: set one"),
        (("a.json", "line 2: invalid JSON", ""), "a.json: line 2: invalid JSON"),
        (("evil\u202e.zip", "bad\nline", "x"), "evil\\u202e.zip: bad\\nline; fix: x"),
    ],
)
def test_a_missing_part_is_left_out_and_control_characters_are_escaped(fields, shown):
    assert str(Problem(*fields)) == shown
    assert problems.fields("a: b: c; fix: d; fix: e") == ("a", "b: c; fix: d", "e")


def test_a_problem_keeps_its_builtin_base_and_survives_pickling():
    from measure.community.auth import AuthError
    from measure.community.inbox import InboxError

    denied = AuthError("secrets.toml", "unreadable", "fix its TOML")
    assert isinstance(denied, PermissionError) and isinstance(denied, Problem)
    refused = InboxError("audit", "audit.jsonl", "line 3 was edited", "restore it")
    for problem in (denied, refused):
        back = pickle.loads(pickle.dumps(problem))
        assert type(back) is type(problem) and str(back) == str(problem)
        assert (back.where, back.what, back.fix) == (problem.where, problem.what, problem.fix)
    assert pickle.loads(pickle.dumps(refused)).code == "audit"


def test_the_dispatcher_prints_a_problem_once_with_its_exit_status(capsys):
    from analytics.fl.policy import PolicyError

    def main(argv: list[str]) -> int:
        raise PolicyError("policy.json", f"{argv[0]} is refused", "pass another")

    assert dispatch.run(main, ["fl-score"]) == PolicyError.exit_status == 2
    assert capsys.readouterr().err == "error: policy.json: fl-score is refused; fix: pass another\n"
    assert dispatch.run(lambda argv: (_ for _ in ()).throw(Problem("x", "y", "z")), []) == 1
