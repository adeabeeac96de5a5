"""What CONTRIBUTING.md promises holds: every command in its code blocks exists (scripts, modules,
CLI commands and the files they name), the committed screenshots are exactly the declared set and
the screenshot writer keeps a page's colours while shrinking the file, and no formatter marker
stands in code no formatter runs over."""

from __future__ import annotations

import importlib.util
import io
import random
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from PIL import Image

import analytics.__main__ as analytics_cli
import measure.__main__ as measure_cli
from analytics.core import paths
from analytics.core.snapshot import cli as snapshot_cli

ROOT = paths.REPO_ROOT
CLIS = {"analytics": analytics_cli.COMMANDS, "measure": measure_cli.COMMANDS}
PYTHONS = ("python", ".venv/bin/python", ".venv-test/bin/python")


def _screenshots_module():
    script = ROOT / "scripts" / "screenshots.py"
    spec = importlib.util.spec_from_file_location("screenshots", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def commands(text: str) -> list[str]:
    """Command lines of the ```bash blocks, trailing comments dropped."""
    out = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def problems_of(line: str, root: Path = ROOT) -> list[str]:
    """Why ``line`` would not run here: a missing script, module, CLI command or named file."""
    words = shlex.split(line)
    bad = []
    if words[0] == "bash":
        words = words[1:]
    elif words[0] in PYTHONS and words[1] == "-m":
        module, args = words[2], words[3:]
        if module in CLIS:
            if not args or args[0] not in CLIS[module]:
                bad.append(f"{line}: no command {args[:1]} in python -m {module}")
            elif module == "analytics" and args[0] == "snapshot":
                actions = snapshot_cli._parser()._subparsers._group_actions[0].choices
                if args[1] not in actions:
                    bad.append(f"{line}: no snapshot action {args[1]!r}")
        elif importlib.util.find_spec(module) is None:
            bad.append(f"{line}: no module {module}")
        words = args
    elif words[0] in PYTHONS:
        words = words[1:]
    elif words[0] not in ("duplicates",):
        bad.append(f"{line}: unknown program {words[0]}")
    for word in words:
        looks_like_path = "/" in word and not word.startswith("-") and "://" not in word
        if looks_like_path and not (root / word).exists():
            bad.append(f"{line}: {word} does not exist")
    return bad


def test_every_contributing_command_exists() -> None:
    found = commands((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert len(found) >= 8
    assert [p for line in found for p in problems_of(line)] == []


def test_the_command_check_catches_what_would_not_run() -> None:
    missing = "bash scripts/no_such.sh"
    assert problems_of(missing) == [f"{missing}: scripts/no_such.sh does not exist"]
    assert problems_of("python -m analytics no-such") != []
    assert problems_of("python -m analytics snapshot shrink") != []
    assert problems_of(".venv/bin/python -m no_such_module") != []
    assert problems_of(".venv/bin/python -m analytics snapshot prune") == []


def test_the_committed_screenshots_are_the_declared_set() -> None:
    shots = _screenshots_module()
    want = shots.declared_set(shots.existing_pages(None))
    have = sorted(p.name for p in (ROOT / "docs" / "screenshots").glob("*.png"))
    missing, extra = sorted(set(want) - set(have)), sorted(set(have) - set(want))
    assert (missing, extra) == ([], []), (
        "fix: python scripts/screenshots.py --pages PAGE --themes light dark [--phone] for a "
        "missing one; delete an extra one"
    )


def test_compressed_screenshots_keep_a_pages_colours_and_shrink() -> None:
    shots = _screenshots_module()
    image = Image.new("RGB", (300, 200), (250, 250, 250))
    noise = random.Random(0)  # anti-aliased text and chart edges: many rare colours
    for x in range(300):
        for y in range(40):
            image.putpixel((x, y), tuple(noise.randrange(256) for _ in range(3)))
    image.paste((0, 104, 201), (20, 60, 280, 120))
    raw = io.BytesIO()
    image.save(raw, format="PNG")
    packed = shots.compress_png(raw.getvalue())
    with Image.open(io.BytesIO(packed)) as back:
        assert back.mode == "P" and back.size == image.size
        rgb = back.convert("RGB")
    assert rgb.getpixel((100, 90)) == (0, 104, 201) and rgb.getpixel((5, 150)) == (250, 250, 250)
    assert len(packed) < len(raw.getvalue())


FORMATTER_MARKERS_KEPT = {
    "measure/adapters/catalog.py": "an adapter source: committed run records hold its hash",
    "measure/adapters/packaged.py": "an adapter source: committed run records hold its hash",
    "data/catalog/vision/inputs/text/make_text_set.py": "kept byte for byte beside its data",
    "analytics/core/run_schema.py": "its declared table is being rewritten; drop with that change",
}
"""Files that may keep a ``fmt:`` marker, and why (no formatter runs, so a marker does nothing)."""


def test_no_formatter_markers_where_no_formatter_runs() -> None:
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "*.py"], capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    marked = [
        name
        for name in tracked
        if (ROOT / name).is_file()
        and re.search(r"#\s*fmt:\s*(skip|off|on)\b", (ROOT / name).read_text(encoding="utf-8"))
    ]
    assert sorted(set(marked) - set(FORMATTER_MARKERS_KEPT)) == []
