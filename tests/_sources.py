"""The ``analytics`` modules a module runs (its imports, transitively): what the code hash of a
derived table must cover (``planner_inputs.SOURCES``, ``board_inputs.SOURCES``)."""

from __future__ import annotations

import ast

from analytics.core import paths

STORAGE = {"analytics/core/atomic.py", "analytics/core/derived.py", "analytics/core/paths.py"}
"""How derived tables are stored, not what they hold: never part of a code hash."""


def _analytics_imports(rel: str) -> set[str]:
    """Repository paths of the ``analytics`` modules that ``rel`` imports (top level or not)."""
    tree = ast.parse((paths.REPO_ROOT / rel).read_text(encoding="utf-8"))
    names: set[str] = set()
    imported: set[str] = set()  # names imported as such: a package among them runs its __init__
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("analytics"):
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
            names |= imported | {node.module}
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names if a.name.startswith("analytics")}
            names |= imported
    found = {name.replace(".", "/") + ".py" for name in names}
    found |= {name.replace(".", "/") + "/__init__.py" for name in imported}
    return {path for path in found if (paths.REPO_ROOT / path).exists()}


def computation_modules(start: str) -> set[str]:
    """``start`` and every ``analytics`` module it imports, transitively, less :data:`STORAGE`
    (``analytics/core/db.py`` is followed no further: its imports build snapshots)."""
    todo = [start]
    seen: set[str] = set()
    while todo:
        rel = todo.pop()
        if rel not in seen:
            seen.add(rel)
            if rel != "analytics/core/db.py":
                todo.extend(_analytics_imports(rel))
    return seen - STORAGE
