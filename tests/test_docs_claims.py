"""The docs describe the repo as it is: every repo path README.md and docs/*.md cite in backticks
(or link to) exists, every ``path : name`` they cite is defined there, and every
``python -m analytics <command>`` (and ``python -m measure <command>``) is a command the CLI lists,
with only flags that command's module knows.

A cited path "looks like a repo path" when its first segment is an entry of the repo root
(``analytics/llm/fit.py``, ``data/catalog/``); ``../shared/…``, ``/tmp/…``, ``~/…``, URLs and
relative shorthands (``fit.py``, ``fl/policy.json``) are not checked. A glob (``tests/test_*.py``)
must match at least one path; a placeholder (``data/derived/<version>/``) is a glob segment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import analytics.__main__ as analytics_cli
import measure.__main__ as measure_cli
from analytics.core import paths

ROOT = paths.REPO_ROOT
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_LEVEL = frozenset(p.name for p in ROOT.iterdir()) - {".git", ".venv", ".pytest_cache"}
CLIS = {"analytics": analytics_cli.COMMANDS, "measure": measure_cli.COMMANDS}

CREATED_AT_RUN_TIME = {
    ".streamlit/secrets.toml": "the maintainers' password hashes; git-ignored, never committed",
    "data/runs/fl_submissions/": "federated uploads (analytics/fl/store.py); git-ignored",
    "data/runs/community_results/": "accepted community runs (measure/community/inbox.py)",
    "data/derived/fl/<key>/local/": "FL cache entries of uploads (analytics/fl/cache.py); ignored",
}
"""Cited paths (and everything under them) that the app writes as it runs: absent from a clone."""

MOVING: dict[str, str] = {}
"""A module being turned into a package (old path -> new): a doc may cite either form until the
move lands. Empty: analytics/llm/elo.py became analytics/llm/elo/ in stop 35."""


@dataclass(frozen=True)
class Claim:
    doc: str
    line: int
    path: str
    names: tuple[str, ...] = ()  # ``path : name, name`` and ``path::test_name``

    def where(self) -> str:
        return f"{self.doc}:{self.line}"


FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)?)`")  # inline code, possibly wrapped onto a 2nd line
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def _blank_fences(text: str) -> str:
    """``text`` with fenced code blocks blanked (line numbers kept): inline spans only."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _repo_word(word: str) -> str | None:
    """``word`` as a repo path, or None when it does not look like one."""
    if "://" in word or word.startswith(("../", "/", "~")):
        return None
    core = word.rstrip(".,;:)]'\"").lstrip("[('\"")
    if "/" not in core or core.split("/", 1)[0] not in TOP_LEVEL:
        return None
    return core


def _span_claims(doc: str, line: int, span: str) -> list[Claim]:
    """The repo paths one inline code span cites."""
    span = " ".join(span.split())
    named = re.fullmatch(r"(\S+) : (.+)", span)
    if named and _repo_word(named.group(1)):
        names = tuple(re.sub(r"\(.*", "", n).strip() for n in named.group(2).split(","))
        return [Claim(doc, line, _repo_word(named.group(1)), names)]
    out = []
    for word in span.split():
        path, _, test = word.partition("::")
        repo = _repo_word(path)
        if repo:
            out.append(Claim(doc, line, repo, tuple(re.findall(r"^\w+", test))))
    return out


def doc_claims(doc: Path) -> list[Claim]:
    """Every repo path ``doc`` cites: in inline code, and as the target of a relative link."""
    name = doc.relative_to(ROOT).as_posix()
    text = _blank_fences(doc.read_text(encoding="utf-8"))
    claims = [
        c
        for m in SPAN.finditer(text)
        for c in _span_claims(name, _line(text, m.start()), m.group(1))
    ]
    for m in LINK.finditer(text):
        target = (doc.parent / m.group(1)).resolve()
        if "://" not in m.group(1) and target.is_relative_to(ROOT):
            claims.append(Claim(name, _line(text, m.start()), target.relative_to(ROOT).as_posix()))
    return claims


def _expanded(path: str) -> list[str]:
    """``a/{b,c}.py`` as ``a/b.py``, ``a/c.py`` (one brace group at a time)."""
    braces = re.search(r"\{([^{}]*)\}", path)
    if not braces:
        return [path]
    head, tail = path[: braces.start()], path[braces.end() :]
    return [p for alt in braces.group(1).split(",") for p in _expanded(head + alt + tail)]


def _glob(pattern: str, folder: bool) -> list[Path]:
    """Repo paths one pattern names (a placeholder ``<x>`` or ``*`` matches within a segment)."""
    pattern = re.sub(r"<[^>]*>", "*", pattern).rstrip("/")
    if any(c in pattern for c in "*?["):
        found = list(ROOT.glob(pattern))
    else:
        found = [ROOT / pattern] if (ROOT / pattern).exists() else []
    return [p for p in found if p.is_dir()] if folder else found


def _matches(path: str) -> list[Path]:
    """Repo paths the cited ``path`` names; [] when any of its brace alternatives names none."""
    found = [_glob(p, path.endswith("/")) for p in _expanded(path)]
    return [] if not all(found) else [p for group in found for p in group]


def _run_time(path: str) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in CREATED_AT_RUN_TIME)


def _found(path: str) -> list[Path]:
    """The repo paths a cited path names (either form of a MOVING module); [] when none."""
    moved = [v for k, v in MOVING.items() if k == path] + [
        k for k, v in MOVING.items() if v == path
    ]
    return next((found for p in [path, *moved] if (found := _matches(p))), [])


def _defines(found: list[Path], name: str) -> bool:
    """Whether ``name`` is a function, class or module- or class-level name in the Python files
    ``found`` names (a folder: every module under it)."""
    files = [f for p in found for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p])]
    name = re.escape(name)
    pattern = re.compile(rf"^\s*(?:async\s+def|def|class)\s+{name}\b|^\s*{name}\s*[:=]", re.M)
    return any(pattern.search(f.read_text(encoding="utf-8")) for f in files if f.suffix == ".py")


def claim_problem(claim: Claim) -> str | None:
    """One problem line for a claim that does not hold, else None."""
    if _run_time(claim.path):
        return None
    found = _found(claim.path)
    if not found:
        return (
            f"{claim.where()}: `{claim.path}` is not in the repo; fix: cite the path as it is now"
        )
    missing = [n for n in claim.names if n and not _defines(found, n)]
    if missing:
        names = ", ".join(missing)
        return f"{claim.where()}: `{claim.path}` defines no {names}; fix: cite what it defines"
    return None


CLAIMS = [c for doc in DOCS for c in doc_claims(doc)]


def test_the_docs_cite_repo_paths() -> None:
    assert len(DOCS) > 5 and len(CLAIMS) > 200  # the extraction still finds the docs' paths
    assert {"analytics/llm/fit.py", "data/catalog/", "bench/pages.py"} <= {c.path for c in CLAIMS}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_repo_path_exists(doc: Path) -> None:
    name = doc.relative_to(ROOT).as_posix()
    problems = [p for c in CLAIMS if c.doc == name and (p := claim_problem(c))]
    assert problems == [], "\n".join(problems)


def test_every_run_time_path_is_still_cited() -> None:
    cited = {c.path for c in CLAIMS}
    stale = [p for p in CREATED_AT_RUN_TIME if not any(c == p or c.startswith(p) for c in cited)]
    assert stale == [], f"no doc cites {stale}; fix: drop them from CREATED_AT_RUN_TIME"


# --- commands -----------------------------------------------------------------------------

COMMAND = re.compile(r"python -m (analytics|measure) ([a-z][\w-]*)([^`\n]*)")


@dataclass(frozen=True)
class Use:
    """One ``python -m analytics|measure <command> [sub-command] [--flags]`` a doc cites."""

    line: int
    cli: str
    command: str
    words: tuple[str, ...]  # sub-commands: ``snapshot build``, ``inbox add|list``
    flags: tuple[str, ...]


def _use(text: str, m: re.Match) -> Use:
    """The command a ``COMMAND`` match cites, with the sub-commands and flags on the same line
    or code span."""
    rest = m.group(3).replace("\\|", "|")
    first = (rest.split() or [""])[0]
    words = first.split("|") if re.fullmatch(r"[a-z][a-z|-]*", first) else []
    flags = re.findall(r"(?<![\w-])--[a-z][\w-]*", rest)
    return Use(_line(text, m.start()), m.group(1), m.group(2), tuple(words), tuple(flags))


def command_uses(doc: Path) -> list[Use]:
    """Every command ``doc`` cites, code blocks included."""
    text = doc.read_text(encoding="utf-8")
    return [_use(text, m) for m in COMMAND.finditer(text)]


def _module_source(cli: str, command: str) -> str:
    """The source of the module that runs ``command`` (read, not imported)."""
    module = ROOT / CLIS[cli][command][0].replace(".", "/")
    path = (
        module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
    )
    return path.read_text(encoding="utf-8")


def use_problem(doc: str, use: Use) -> str | None:
    """One problem line when the command, a sub-command or a flag is not the CLI's, else None."""
    cited = f"{doc}:{use.line}: `python -m {use.cli} {use.command}`"
    if use.command not in CLIS[use.cli]:
        listed = ", ".join(CLIS[use.cli])
        return f"{cited} is not a command; fix: one of {listed} ({use.cli}/__main__.py)"
    source, module = _module_source(use.cli, use.command), CLIS[use.cli][use.command][0]
    unknown = [w for w in (*use.words, *use.flags) if w != "--help" and f'"{w}"' not in source]
    if unknown:
        return f"{cited} has no {', '.join(unknown)}; fix: cite it as {module} defines it"
    return None


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_command_and_flag_exists(doc: Path) -> None:
    name = doc.relative_to(ROOT).as_posix()
    problems = [p for use in command_uses(doc) if (p := use_problem(name, use))]
    assert problems == [], "\n".join(problems)


# --- the checker itself -----------------------------------------------------------------


def test_the_checker_catches_a_wrong_path_and_ignores_non_repo_paths() -> None:
    def problems(span: str) -> list[str]:
        return [p for c in _span_claims("x.md", 1, span) if (p := claim_problem(c))]

    assert problems("analytics/llm/fitt.py") and problems("data/catalogue/")
    assert problems("analytics/llm/fit.py : no_such_function")
    assert problems("tests/test_nothing_*.py") and problems("data/catalog/models.csv/")
    assert problems("tests/test_docs_claims.py::test_nothing_here")
    assert problems("measure/adapters/{yunet,yunett}.py")
    assert problems("analytics/llm/elo.py")  # the module became a package: cite it as it is
    for fine in ("analytics/llm/fit.py", "data/catalog/", "tests/test_docs_*.py",
                 "data/derived/<version>/", "analytics/llm/fit.py : hardware_fit",
                 "../shared/data/x.csv", "/tmp/x/y.py", "https://example.org/a/b.py",
                 "fl/policy.json", "fit.py", "analytics/llm/elo/",
                 "measure/adapters/{yunet,ppocr}.py",
                 "tests/test_docs_claims.py::test_the_docs_cite_repo_paths"):
        assert problems(fine) == [], fine


def test_the_checker_catches_a_wrong_command_sub_command_or_flag() -> None:
    def problems(text: str) -> list[str]:
        return [p for m in COMMAND.finditer(text) if (p := use_problem("x.md", _use(text, m)))]

    assert problems("`python -m analytics derivee`")
    assert problems("`python -m analytics snapshot bild`")
    assert problems("`python -m analytics derive --planner`")
    assert problems("`python -m measure inbox add\\|lists`")
    for fine in ("`python -m analytics derive [VERSION] [--check] [--planner-only]`",
                 "`python -m analytics snapshot build --catalog DIR`", "`python -m analytics`",
                 "`python -m measure inbox add\\|list`",
                 "`python -m analytics elo SCORES.csv`"):
        assert problems(fine) == [], fine
