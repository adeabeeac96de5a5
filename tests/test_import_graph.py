"""No import circles and no oversized modules in the app's code (analytics, measure, pages, ui).

The graph is read statically (``tests/fixtures/imports.py``): every ``import`` and ``from``
statement, function-local ones included (an import that reaches back from inside a function is
still a circle, only a later one), relative imports resolved. A package is its ``__init__.py``:
``from a import b`` is an edge to ``a`` (its ``__init__`` runs) and to ``a.b`` when that is a
module, and the imports of ``a/__init__.py`` are edges of ``a``. Any strongly connected component
of more than one module is a circle; the failure names it as a path ``a -> b -> a`` with the line
of each import.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from analytics.core import paths
from tests.fixtures.imports import imports_of, module_name, python_files

ROOT = paths.REPO_ROOT
FOLDERS = ("analytics", "measure", "pages", "ui")
MAX_LINES = 600
"""Longest module allowed (lines): past it, split the module along what it does."""

Graph = dict[str, dict[str, int]]  # module -> {imported project module: line of the import}


def import_graph(root: Path = ROOT) -> tuple[Graph, dict[str, Path]]:
    """(module -> the project modules it imports, with the line; module -> its file)."""
    files = {module_name(path, root): path for path in python_files(root, *FOLDERS)}
    graph: Graph = {name: {} for name in files}
    for name, path in files.items():
        for line, base, full in imports_of(path, root):
            for target in (base, full):
                if target in files and target != name:
                    graph[name].setdefault(target, line)
    return graph, files


def components(graph: Graph) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    member, members = None, []
                    while member != node:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                    found.append(sorted(members))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return sorted(found, key=lambda c: (-len(c), c))


def cycle_path(graph: Graph, members: list[str]) -> list[str]:
    """A shortest circle through the first member of one component: ``[a, b, ..., a]``."""
    start, inside = members[0], set(members)
    came_from: dict[str, str] = {}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        for target in sorted(graph[node]):
            if target == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if target in inside and target not in came_from:
                came_from[target] = node
                todo.append(target)
    return members  # unreachable for a real component


def circles(root: Path = ROOT) -> list[str]:
    """One line per import circle: ``a -> b (a.py:12) -> a (b.py:3)``."""
    graph, files = import_graph(root)
    lines = []
    for members in components(graph):
        if len(members) < 2:
            continue
        path = cycle_path(graph, members)
        hops = [
            f"{b} ({files[a].relative_to(root).as_posix()}:{graph[a][b]})"
            for a, b in zip(path, path[1:], strict=False)
        ]
        lines.append(f"{len(members)} modules: {' -> '.join([path[0], *hops])}")
    return lines


def oversized(root: Path = ROOT) -> list[str]:
    """``file: N lines`` for every module over :data:`MAX_LINES`."""
    found = []
    for path in python_files(root, *FOLDERS):
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > MAX_LINES:
            found.append(f"{path.relative_to(root).as_posix()}: {count} lines (> {MAX_LINES})")
    return found


def test_no_import_circles():
    assert circles() == []


def test_no_module_is_over_the_line_limit():
    assert oversized() == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for folder in FOLDERS:
        (root / folder).mkdir(exist_ok=True)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a function-local import that reaches back is a circle
            {
                "measure/__init__.py": "",
                "measure/a.py": "from measure import b\n",
                "measure/b.py": "def f():\n    from measure.a import x\n",
            },
            "2 modules: measure.a -> measure.b (measure/a.py:1) -> measure.a (measure/b.py:2)",
        ),
        (  # relative imports are resolved
            {
                "ui/__init__.py": "",
                "ui/a.py": "from .b import y\n",
                "ui/b.py": "from . import a\n",
            },
            "2 modules: ui.a -> ui.b (ui/a.py:1) -> ui.a (ui/b.py:1)",
        ),
        (  # a package's __init__ importing its module, which imports the package
            {
                "analytics/__init__.py": "",
                "analytics/p/__init__.py": "from analytics.p.m import run\n",
                "analytics/p/m.py": "from analytics.p import helpers\n",
                "analytics/p/helpers.py": "",
            },
            "2 modules: analytics.p -> analytics.p.m (analytics/p/__init__.py:1) -> analytics.p",
        ),
        (  # a chain is fine
            {
                "pages/__init__.py": "",
                "pages/a.py": "import pages.b\n",
                "pages/b.py": "from pages import c\n",
                "pages/c.py": "import json\n",
            },
            None,
        ),
    ],
)
def test_the_circle_checker_finds_each_kind(tmp_path, files, expected):
    found = circles(_tree(tmp_path, files))
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(expected), found


def test_the_size_checker_names_the_file(tmp_path):
    root = _tree(tmp_path, {"measure/big.py": "x = 1\n" * (MAX_LINES + 1), "measure/ok.py": ""})
    assert oversized(root) == [f"measure/big.py: {MAX_LINES + 1} lines (> {MAX_LINES})"]
