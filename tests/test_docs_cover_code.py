"""The docs name what the code has, checked from the code so they cannot drift:

- ``docs/architecture.md`` names every module of ``ui/``, ``analytics/core/`` (and its
  ``snapshot/``), each track and ``measure/`` (a subpackage by its folder);
- the README's command table lists every command of ``python -m analytics`` and
  ``python -m measure`` (``test_docs_claims.py`` checks the other way: every cited command exists);
- ``docs/data.md``'s column tables list every column ``analytics/core/schema.py`` declares;
- every column label a page or loader configures is the one ``analytics/core/labels.py`` gives
  (what CSV downloads and notebooks show), so one column reads the same everywhere.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import analytics.__main__ as analytics_cli
import measure.__main__ as measure_cli
from analytics.core import labels, paths, schema

ROOT = paths.REPO_ROOT
MAPPED = (
    "ui",
    "analytics/core",
    "analytics/core/snapshot",
    "analytics/llm",
    "analytics/fl",
    "analytics/vision",
    "measure",
)
"""Folders whose every module (and every subpackage, as ``folder/``) the module map names."""


def unnamed_modules(doc: str, root: Path = ROOT) -> list[str]:
    """Modules and subpackages of :data:`MAPPED` that ``doc`` never names in backticks."""
    named = set(re.findall(r"`([\w/.]+)`", doc))
    missing = []
    for folder in MAPPED:
        for path in sorted((root / folder).iterdir()):
            rel = path.relative_to(root).as_posix()
            if path.suffix == ".py" and path.name != "__init__.py" and rel not in named:
                missing.append(rel)
            elif (path / "__init__.py").is_file() and f"{rel}/" not in named:
                if rel not in [f.rstrip("/") for f in MAPPED]:
                    missing.append(f"{rel}/")
    return missing


def test_architecture_names_every_module() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert unnamed_modules(doc) == [], "add a line per module to docs/architecture.md's module map"


def test_the_module_check_catches_a_new_module(tmp_path: Path) -> None:
    for folder in MAPPED:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    (tmp_path / "ui" / "widgets.py").write_text("")
    (tmp_path / "analytics" / "fl" / "extra").mkdir()
    (tmp_path / "analytics" / "fl" / "extra" / "__init__.py").write_text("")
    assert sorted(unnamed_modules("`ui/other.py`", tmp_path)) == [
        "analytics/fl/extra/",
        "ui/widgets.py",
    ]
    assert unnamed_modules("`ui/widgets.py` `analytics/fl/extra/`", tmp_path) == []


def readme_commands(text: str) -> dict[str, set[str]]:
    """Commands the README's 'Command line' table lists, per program: the word after
    ``python -m PROGRAM`` and every ``/ `word`` alternative that is itself a command."""
    table = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    found: dict[str, set[str]] = {"analytics": set(), "measure": set()}
    known = {"analytics": analytics_cli.COMMANDS, "measure": measure_cli.COMMANDS}
    for row in table.splitlines():
        first = re.match(r"\| `python -m (analytics|measure) ([\w-]+)", row)
        if not first:
            continue
        program = first.group(1)
        found[program].add(first.group(2))
        cell = row.split("|")[1]
        found[program] |= {w for w in re.findall(r"/ `([\w-]+)", cell) if w in known[program]}
    return found


def test_readme_lists_every_command() -> None:
    listed = readme_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert listed["analytics"] == set(analytics_cli.COMMANDS)
    assert listed["measure"] == set(measure_cli.COMMANDS)


def documented_columns(text: str, table: str) -> set[str]:
    """Column names ``docs/data.md`` gives under ``### <table>.csv``: the first cell of each row of
    its column table, and the comma-separated list in backticks that opens a section without
    one."""
    section = re.split(rf"^### {re.escape(table)}\.csv.*$", text, maxsplit=1, flags=re.M)[1]
    section = section.split("\n### ", 1)[0].split("\n## ", 1)[0]
    names: set[str] = set()
    for row in section.splitlines():
        cells = row.split("|")
        first = cells[1].strip() if len(cells) > 2 else "column"
        if first != "column" and not set(first) <= set("- "):
            names |= {n.strip().strip("`") for n in first.split(",")}
    listed = re.match(r"\s*`([\w, \n]+)`", section)
    if listed:
        names |= {n.strip() for n in listed.group(1).split(",")}
    return names


def test_data_doc_lists_every_schema_column() -> None:
    text = (ROOT / "docs" / "data.md").read_text(encoding="utf-8")
    for table in ("models", "benchmarks", "scores", "gpus", "throughput"):
        declared = {column.name for column in schema.TABLES[table]}
        assert declared <= documented_columns(text, table), (table, declared)


def configured_labels(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(where, column, label) of every ``{"column": <...>Column("Label", ...)}`` entry in
    ``pages/`` and ``ui/``."""
    out = []
    for path in sorted([*(root / "pages").rglob("*.py"), *(root / "ui").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if not (isinstance(key, ast.Constant) and isinstance(value, ast.Call)):
                    continue
                func = ast.unparse(value.func)
                first = value.args[0] if value.args else None
                if ("Column" in func or "_column" in func) and isinstance(first, ast.Constant):
                    where = f"{path.relative_to(root).as_posix()}:{value.lineno}"
                    out.append((where, str(key.value), str(first.value)))
    return out


CONTEXT_LABELS = {
    ("pages/llm/leaderboard.py", "rank"): "a category's board: its rank is the category rank",
    ("pages/llm/leaderboard.py", "rating"): "a category's board: its Elo is the category Elo",
    ("pages/llm/compare.py", "rank"): "beside category profiles: the rank is the overall one",
    ("pages/llm/model.py", "tokens_per_s"): "a narrow column beside the slowest/fastest runs",
}
"""(file, column) -> why that table labels a column otherwise than :data:`labels.LABELS`."""


def label_drift(found: list[tuple[str, str, str]]) -> list[str]:
    bad = []
    for where, column, label in found:
        if label == column or (where.split(":")[0], column) in CONTEXT_LABELS:
            continue  # the vision tables name their columns by their labels
        if labels.LABELS.get(column) != label:
            wanted = labels.LABELS.get(column)
            bad.append(f"{where}: {column!r} shown as {label!r}, LABELS has {wanted!r}")
    return bad


def test_every_page_label_is_the_label_table() -> None:
    found = configured_labels()
    assert len(found) > 50
    assert label_drift(found) == [], "use labels.LABELS' text, or add the column there"


def test_the_label_check_catches_a_drifted_label() -> None:
    drifted = [("pages/x.py:1", "rating_interval", "Elo (95% interval)")]
    assert label_drift(drifted) == [
        "pages/x.py:1: 'rating_interval' shown as 'Elo (95% interval)', LABELS has "
        "'Elo 95% interval'"
    ]
