"""The layering rules of docs/architecture.md, enforced by parsing every import with ``ast``.

analytics.core   imports no other project package (the base layer)
analytics.llm    analytics.core only (never measure, fl, vision)
analytics.fl     analytics.core only
analytics.vision analytics.core only (run data comes through the store, not measure)
measure          analytics.core only (the open measuring tool stays light)
ui, pages        anything above; nothing in analytics or measure imports them
streamlit        only ui/, pages/ and app.py
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analytics.core import paths
from tests.fixtures.imports import imports_of, module_name, python_files

ROOT = paths.REPO_ROOT
PROJECT = ("analytics", "measure", "ui", "pages", "tests")

ALLOWED: dict[str, tuple[str, ...]] = {
    "analytics.core": ("analytics.core",),
    "analytics.llm": ("analytics.core", "analytics.llm"),
    "analytics.fl": ("analytics.core", "analytics.fl"),
    "analytics.vision": ("analytics.core", "analytics.vision"),
    "analytics": ("analytics",),  # analytics/__main__.py: the command table
    "measure": ("analytics.core", "measure"),
}
"""Layer (by module prefix, most specific first) -> project packages it may import."""

STREAMLIT_FREE = ("analytics", "measure")


def layer_of(module: str) -> str | None:
    for layer in sorted(ALLOWED, key=len, reverse=True):
        if within(module, (layer,)):
            return layer
    return None


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def violations(root: Path = ROOT) -> list[str]:
    """One line per import that breaks the layer table, ``file:line: layer imports module``."""
    bad = []
    for path in python_files(root, "analytics", "measure"):
        layer = layer_of(module_name(path, root))
        if layer is None:
            continue
        for line, base, full in imports_of(path, root):
            if base.split(".")[0] not in PROJECT:
                continue
            if not (within(base, ALLOWED[layer]) or within(full, ALLOWED[layer])):
                bad.append(f"{path.relative_to(root)}:{line}: {layer} imports {full}")
    return sorted(set(bad))


def test_layers_import_only_what_they_may():
    assert violations() == []


def test_analytics_and_measure_never_import_streamlit():
    bad = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in python_files(ROOT, *STREAMLIT_FREE)
        for line, base, _ in imports_of(path, ROOT)
        if base.split(".")[0] == "streamlit"
    ]
    assert bad == []


def test_tests_never_import_other_test_modules():
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {full}"
        for path in python_files(ROOT, "tests")
        for line, base, full in imports_of(path, ROOT)
        if within(full, ("tests",)) and full.split(".")[1].startswith(("test_", "conftest"))
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("folder", "source", "expected"),
    [
        ("analytics/core", "from measure import store\n", "analytics.core imports measure.store"),
        (
            "analytics/core",
            "import analytics.llm.elo\n",
            "analytics.core imports analytics.llm.elo",
        ),
        ("analytics/core", "from analytics import llm\n", "analytics.core imports analytics.llm"),
        ("analytics/llm", "from measure.adapters import registry\n", "analytics.llm imports"),
        ("analytics/vision", "from ..llm import elo\n", "analytics.vision imports analytics.llm"),
        ("measure", "from analytics.fl import board\n", "measure imports analytics.fl.board"),
        ("measure", "from ui import data\n", "measure imports ui.data"),
        ("analytics/llm", "from analytics.core import db\nimport numpy\n", None),
        ("measure", "from analytics import core\n", None),
    ],
)
def test_the_rule_checker_catches_each_kind_of_violation(tmp_path, folder, source, expected):
    for package in ("analytics", "analytics/core", "analytics/llm", "analytics/vision", "measure"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
    (tmp_path / folder / "x.py").write_text(source)
    found = violations(tmp_path)
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1 and expected in found[0], found


def test_architecture_doc_names_functions_that_exist():
    """Every ``file.py : function`` that docs/architecture.md points a newcomer to is real."""
    doc = (ROOT / "docs" / "architecture.md").read_text()
    pointers = re.findall(r"`([\w/]+\.py) : (\w+)`", doc)
    assert len(pointers) >= 10
    missing = []
    for file, name in pointers:
        source = (ROOT / file).read_text() if (ROOT / file).is_file() else ""
        if not re.search(rf"^(def|class) {name}\b|^{name}\b", source, re.M):
            missing.append(f"{file} : {name}")
    assert missing == []
