"""Rendered copies of the analyst notebooks, readable without running them.

    .venv/bin/python scripts/render_notebooks.py [NAME.ipynb ...]

Executes each notebook in ``notebooks/`` (all by default) top to bottom on the committed data,
in a kernel of this Python with the repository importable, and writes
``notebooks/rendered/<stem>.md``: the markdown cells as they are, each code cell's source, its
printed text and tables, and each plotly chart as ``notebooks/rendered/<stem>-<n>.png`` (drawn by
kaleido with Debian chromium: ``pip install -r requirements-notebooks.txt``). A notebook that
raises stops the run with its error and leaves its old copy untouched.

A copy's first line records the digest of the notebook's cells (type and source, not outputs)
and the snapshot version it ran on; ``tests/test_notebooks_rendered.py`` fails when a notebook's
cells changed and its copy was not rendered again. Nothing in a copy depends on the day it was
made, so rendering unchanged notebooks on unchanged data rewrites the same bytes.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO_ROOT / "notebooks"
RENDERED = NOTEBOOKS / "rendered"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
CHART_WIDTH_PX = 900  # PNG width of a chart; its height is the figure's own, else 500 px
CELL_TIMEOUT_S = 600
HEADER = re.compile(
    r"^<!-- rendered from (?P<name>\S+) cells (?P<digest>[0-9a-f]{16}) on (?P<version>\S+) -->$"
)
"""The first line of a rendered copy (:func:`header`)."""
STYLE = re.compile(r"<style[^>]*>.*?</style>\s*", re.S)
"""pandas' ``<style scoped>`` block before a table (its blank lines would end markdown's HTML)."""

ImageOf = Callable[[dict], bytes]
"""Draws one plotly figure (its JSON) as PNG bytes."""


def cells_digest(nb: dict) -> str:
    """16 hex digits of sha256 over the notebook's cell types and sources (outputs excluded)."""
    cells = [[c["cell_type"], _text(c["source"])] for c in nb["cells"]]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()[:16]


def header(name: str, digest: str, version: str) -> str:
    """First lines of a copy: the machine-read record (:data:`HEADER`), then a note for readers."""
    return (
        f"<!-- rendered from {name} cells {digest} on {version} -->\n"
        f"> Rendered copy of [`{name}`](../{name}), executed top to bottom on snapshot "
        f"`{version}` by `scripts/render_notebooks.py`. Open the notebook itself with "
        "`bash scripts/notebooks.sh`.\n\n"
    )


def _text(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def _fence(text: str, lang: str = "text") -> str:
    return f"```{lang}\n{text.rstrip()}\n```\n"


def render_output(out: dict, image_name: str, image_of: ImageOf) -> tuple[str, bytes | None]:
    """Markdown for one code-cell output, and the PNG bytes it links to as ``image_name``
    (None when it shows no image)."""
    kind = out.get("output_type")
    if kind == "stream":
        return _fence(_text(out.get("text", ""))), None
    if kind == "error":
        return _fence(f"{out.get('ename')}: {out.get('evalue')}"), None
    data = out.get("data", {})
    if PLOTLY_MIME in data:
        return f"![chart]({image_name})\n", image_of(data[PLOTLY_MIME])
    if "image/png" in data:
        return f"![image]({image_name})\n", base64.b64decode(_text(data["image/png"]))
    if "text/html" in data:  # a DataFrame: GitHub shows the table (and would print its CSS)
        return STYLE.sub("", _text(data["text/html"])).strip() + "\n", None
    if "text/plain" in data:
        return _fence(_text(data["text/plain"])), None
    return "", None


def merged_streams(outputs: list[dict]) -> list[dict]:
    """``outputs`` with each run of consecutive prints to one stream joined into one output (the
    kernel may split one cell's prints into several messages, depending on timing)."""
    merged: list[dict] = []
    for out in outputs:
        last = merged[-1] if merged else {}
        if (
            out.get("output_type") == "stream"
            and last.get("output_type") == "stream"
            and last.get("name") == out.get("name")
        ):
            merged[-1] = {**last, "text": _text(last["text"]) + _text(out.get("text", ""))}
        else:
            merged.append(out)
    return merged


def render_markdown(nb: dict, stem: str, image_of: ImageOf) -> tuple[str, dict[str, bytes]]:
    """An executed notebook as markdown (without :func:`header`), and its images by file name
    (``<stem>-<n>.png``, numbered from 1 in order of appearance)."""
    parts: list[str] = []
    images: dict[str, bytes] = {}
    for cell in nb["cells"]:
        source = _text(cell["source"]).rstrip()
        if cell["cell_type"] == "markdown":
            parts.append(source + "\n")
            continue
        if cell["cell_type"] != "code":
            continue
        parts.append(_fence(source, "python"))
        for out in merged_streams(cell.get("outputs", [])):
            name = f"{stem}-{len(images) + 1}.png"
            text, png = render_output(out, name, image_of)
            if png is not None:
                images[name] = png
            if text:
                parts.append(text)
    return "\n".join(parts), images


def plotly_png(figure: dict) -> bytes:
    """PNG of one plotly figure via kaleido (requirements-notebooks.txt)."""
    try:
        import plotly.io as pio
    except ImportError as exc:  # pragma: no cover - plotly is an app requirement
        raise SystemExit(f"error: {exc}; fix: pip install -r requirements.txt") from exc
    fig = pio.from_json(json.dumps(figure))
    height = fig.layout.height or 500
    return pio.to_image(fig, format="png", width=CHART_WIDTH_PX, height=height, scale=1)


def execute(path: Path) -> dict:
    """Run one notebook top to bottom with the repository as working folder; the executed
    notebook (nbclient raises ``CellExecutionError`` on the first failing cell)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    resources = {"metadata": {"path": str(REPO_ROOT)}}
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources=resources).execute()
    return nb


def render(path: Path, version: str, image_of: ImageOf = plotly_png) -> list[Path]:
    """Execute ``path`` and write its copy and images into :data:`RENDERED` (atomically; a
    stale image of the same notebook is removed). Returns the files written."""
    from analytics.core import atomic

    nb = execute(path)
    body, images = render_markdown(nb, path.stem, image_of)
    name = path.relative_to(NOTEBOOKS).as_posix()
    files = {
        RENDERED / f"{path.stem}.md": (header(name, cells_digest(nb), version) + body).encode()
    }
    files |= {RENDERED / image: png for image, png in images.items()}
    atomic.write_all(
        {target: (lambda t, b=data: t.write_bytes(b)) for target, data in files.items()}
    )
    for old in RENDERED.glob(f"{path.stem}-*.png"):
        if old not in files:
            old.unlink()
    return list(files)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    args = parser.parse_args(argv)
    paths_ = [NOTEBOOKS / n for n in args.names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    missing = [p.name for p in paths_ if not p.is_file()]
    if missing:
        print(f"error: no notebook {', '.join(missing)} in notebooks/", file=sys.stderr)
        return 1
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p
    )  # the kernel inherits this: the notebooks import analytics
    sys.path.insert(0, str(REPO_ROOT))
    from analytics.core import db

    version = db.serving_version(repair=False).version
    for path in paths_:
        written = render(path, version)
        size_kib = sum(p.stat().st_size for p in written) / 1024
        print(f"{path.relative_to(REPO_ROOT)} -> {len(written)} files, {size_kib:.0f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
