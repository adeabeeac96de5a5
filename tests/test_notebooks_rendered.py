"""Every analyst notebook says what it answers, and its rendered copy in notebooks/rendered/
(scripts/render_notebooks.py) is of its current cells, with every chart it links present."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from analytics.core import db, paths

NOTEBOOKS = paths.REPO_ROOT / "notebooks"
RENDERED = NOTEBOOKS / "rendered"
NAMES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
FIX = "fix: .venv/bin/python scripts/render_notebooks.py {name} (needs requirements-notebooks.txt)"


def _script():
    path = paths.REPO_ROOT / "scripts" / "render_notebooks.py"
    spec = importlib.util.spec_from_file_location("render_notebooks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render = _script()


def test_there_are_notebooks() -> None:
    assert len(NAMES) >= 4, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_notebook_opens_with_the_question_it_answers(name: str) -> None:
    first = nbformat.read(NOTEBOOKS / name, as_version=4).cells[0]
    assert first.cell_type == "markdown", f"{name}: the first cell is not markdown"
    lines = first.source.split("\n")
    assert lines[0].startswith("# "), f"{name}: the first cell does not start with a title"
    question = next(line for line in lines[1:] if line.strip())
    assert re.fullmatch(r"\*\*Question:\*\* [^\n]+\?", question), (
        f"{name}: the paragraph under the title is not one '**Question:** ...?' sentence"
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_rendered_copy_is_of_the_current_cells(name: str) -> None:
    copy = RENDERED / f"{Path(name).stem}.md"
    assert copy.is_file(), f"{copy} is missing; " + FIX.format(name=name)
    found = render.HEADER.match(copy.read_text(encoding="utf-8").split("\n", 1)[0])
    assert found, f"{copy}: line 1 is not the render record; " + FIX.format(name=name)
    assert found["name"] == name
    digest = render.cells_digest(nbformat.read(NOTEBOOKS / name, as_version=4))
    assert found["digest"] == digest, (
        f"{copy} was rendered from older cells of {name}; " + FIX.format(name=name)
    )
    assert (paths.SNAPSHOTS_DIR / found["version"] / "MANIFEST.json").is_file(), (
        f"{copy} ran on snapshot {found['version']}, which is not committed"
    )
    served = db.current_version()  # the outputs shown are those of the data the app serves
    assert found["version"] == served, (
        f"{copy} ran on snapshot {found['version']}, the app serves {served}; "
        + FIX.format(name=name)
    )


def test_every_rendered_file_belongs_to_a_copy_and_every_link_resolves() -> None:
    linked = set()
    for copy in RENDERED.glob("*.md"):
        assert f"{copy.stem}.ipynb" in NAMES, f"{copy}: no notebook {copy.stem}.ipynb"
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", copy.read_text(encoding="utf-8")):
            assert (RENDERED / target).is_file(), f"{copy} links to missing {target}"
            linked.add(target)
    stray = {p.name for p in RENDERED.iterdir() if p.suffix != ".md"} - linked
    assert not stray, f"notebooks/rendered/ holds files no copy links: {sorted(stray)}"


def test_render_writes_text_tables_and_charts_in_cell_order() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# T\n\n**Question:** what?"),
        nbformat.v4.new_code_cell("print(1)\nfig"),
        nbformat.v4.new_raw_cell("left out"),
    ]
    nb.cells[1].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="1\n"),
        nbformat.v4.new_output("stream", name="stdout", text="2\n"),  # one print, two messages
        nbformat.v4.new_output(
            "execute_result",
            data={render.PLOTLY_MIME: {"data": []}, "text/html": "<div>js</div>"},
        ),
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/html": '<style scoped>\n\n.x {}\n</style>\n<table border="1"></table>',
                "text/plain": "   a\n0  1",
            },
        ),
        nbformat.v4.new_output("display_data", data={"text/plain": "Series"}),
    ]
    drawn: list[dict] = []
    body, images = render.render_markdown(nb, "t", lambda fig: drawn.append(fig) or b"PNG")
    assert body == (
        "# T\n\n**Question:** what?\n\n```python\nprint(1)\nfig\n```\n\n```text\n1\n2\n```\n\n"
        '![chart](t-1.png)\n\n<table border="1"></table>\n\n```text\nSeries\n```\n'
    )
    assert images == {"t-1.png": b"PNG"} and drawn == [{"data": []}]
    digest = render.cells_digest(nb)
    nb.cells[1].outputs = []  # outputs are not part of the digest; sources are
    assert render.cells_digest(nb) == digest
    nb.cells[1].source = "print(2)"
    assert render.cells_digest(nb) != digest
