"""Importer for LiveBench (``livebench/``): per-task tables of three releases and the model list.

Files (shared/data/SOURCES.md, "LiveBench"): ``table_<release>.csv`` (``model`` then one column
per task, scores 0-100), ``categories_<release>.json`` (LiveBench category -> its tasks) for the
releases in ``RELEASES``, and ``model_links.json`` (the site's ``modelLinks`` object as JSON:
display name, organisation, ``openweight``, ``version``, ``variants[{rawName, displayName}]``).

Provenance: the LiveBench team runs every model itself -> source kind ``independent``, source
name "LiveBench", source URL ``https://livebench.ai/`` for every row (the site selects releases
in its own controls; no per-release address is documented, so one URL format is kept).

Scores: one benchmark per (release, category), the category average exactly as the site computes
it (``src/Table/Averaging.js``: mean of that category's tasks, missing cells ignored; a model with
none of them gets no score) in '%'. Current release (the newest in ``RELEASES``):
``livebench-<category>`` (``livebench-reasoning``, ``livebench-coding``,
``livebench-agentic-coding``, ``livebench-mathematics``, ``livebench-data-analysis``,
``livebench-language``, ``livebench-if``); older releases add the release date
(``livebench-mathematics-2025-12-23``). Task sets differ between releases (2026-01-08 added
``integrals_with_game`` and ``consecutive_events``; 2025-12-23 added ``logic_with_navigation``),
so averages over different task lists are never put under one id. But where a category's task list
did not change, the older table repeats the newer table's runs (every model in both has the same
average: Coding, Agentic Coding, Language, IF in both older releases, Reasoning in 2025-12-23,
Mathematics and Data Analysis of 2025-11-25 against 2025-12-23): such a category is the newer
release's benchmark, not a second one - its repeated rows are dropped and counted, and a model only
the older table lists gets its score under the newer id (same tasks; the identical averages show
the same runs), so one run is never counted twice. The check is made on the data at each import
(``benchmark_targets``).
The global average (mean of the category averages) is a composite of the category benchmarks
imported here: it is simply not produced (the tables carry no such column, so nothing is dropped
for it). The shared ``livebench`` benchmark (global average, via Epoch AI) is not fed here.

Schema categories (``CATEGORY_MAP``): Reasoning -> reasoning; Coding and Agentic Coding ->
coding (Agentic Coding's tasks are coding work in JavaScript, TypeScript and Python done by an
agent; agent-run coding benchmarks such as ``swe-bench-verified`` are ``coding`` too, and
``agentic`` holds tool-use and browsing); Mathematics -> math; Data Analysis -> reasoning
(tablejoin, tablereformat, consecutive_events: reasoning over structured data, answered in text;
there is no data-analysis category and no code is graded); Language -> writing (connections, plot
unscrambling, typo fixing: command of written language, not recall of facts, so not knowledge);
IF -> instruction-following.

Dates: a table is edited in place after its release as models are added, and rows carry no date
of their own, so every score gets its table's "as of" date: the date of the commit of the
snapshot file (SOURCES.md): 2026-07-01 for the current release, 2026-01-02 for 2025-12-23 and
2025-12-24 for 2025-11-25 (a release date would predate rows added later).

Models: one ``ModelObs`` per raw name in any table (``name`` = the raw name), joined with
``model_links.json`` on the base key or a ``variants[].rawName``. ``display_name`` is the base or
variant ``displayName`` (a trailing footnote ``*`` removed); ``organisation`` is normalised by
the organisations table (``organisations.maker_or_none``: one spelling per lab; "Stealth" and
"OpenRouter" mark anonymous models, so None); ``open_weights`` from ``openweight`` (absent ->
None, not False); ``release_date`` only when ``version`` is a full ``YYYY-MM-DD`` date -
LiveBench's version is the API snapshot date for API models, the best public date it gives;
``hf_id`` when the link is a Hugging Face model repo.
``variant``: for a raw name listed in a base entry's ``variants``, the part of the name that
differs from its base, ``-effort`` removed ("claude-opus-4-7-xhigh-effort" -> "xhigh", "gpt-5.4-
mini-low" -> "low"); a base whose own name carries the varying part ("claude-opus-4-7-high-effort",
siblings "-low-effort" ...) gets its own part ("high"). Names outside ``variants`` get none.

Dropped and counted: the malformed row of ``KNOWN_MALFORMED`` (nemotron-3-super-120b-a12b in
table_2026_01_08.csv has 21 fields instead of 24: three task scores are missing and which ones is
unknowable, so it is skipped, never aligned by position; its model metadata is still observed); a
category of which a model has none of the tasks (no average); a model listed twice in one table.
Any other short or long row, a non-numeric cell, a table whose columns differ from its category
map, or an unknown category raises IngestError.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
    read_source_json,
)
from analytics.llm.ingest.organisations import maker_or_none

SOURCE = "livebench"
SOURCE_NAME = "LiveBench"
SOURCE_URL = "https://livebench.ai/"
SOURCE_KIND = "independent"
RELEASES: dict[str, str] = {
    "2026-01-08": "2026-07-01",
    "2025-12-23": "2026-01-02",
    "2025-11-25": "2025-12-24",
}
"""Release (question set) -> "as of" date of its table: the snapshot file's commit date."""
CURRENT_RELEASE = max(RELEASES)

CATEGORY_MAP: dict[str, tuple[str, str]] = {
    "Reasoning": ("reasoning", "reasoning"),
    "Coding": ("coding", "coding"),
    "Agentic Coding": ("agentic-coding", "coding"),
    "Mathematics": ("mathematics", "math"),
    "Data Analysis": ("data-analysis", "reasoning"),
    "Language": ("language", "writing"),
    "IF": ("if", "instruction-following"),
}
"""LiveBench category -> (benchmark id slug, schema category); see the module docstring."""

KNOWN_MALFORMED: frozenset[tuple[str, str]] = frozenset(
    {("2026-01-08", "nemotron-3-super-120b-a12b")}
)
"""(release, model) rows SOURCES.md documents as malformed: skipped and counted."""

MALFORMED = "malformed row (wrong field count; scores cannot be aligned to tasks)"
NO_TASKS = "category with none of its tasks scored (no average)"
DUPLICATE = "model listed twice in one release table (first row kept)"
REPEAT = "older release repeats a newer release's run (same tasks, same average; newer kept)"
REPEAT_TOLERANCE = 1e-9

_FULL_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HF_REPO = re.compile(r"^https?://huggingface\.co/([\w.-]+)/([\w.-]+)/?$")
_HF_NOT_ORGS = {"spaces", "datasets", "collections", "blog", "docs", "papers"}


@dataclass(frozen=True)
class LinkEntry:
    """What model_links.json says about one raw name (base fields, name-level display name)."""

    display_name: str | None
    organisation: str | None
    open_weights: bool | None
    release_date: str | None
    hf_id: str | None
    variant: str | None


def benchmark_id(release: str, category: str) -> str:
    """``livebench-<slug>`` for the current release, ``livebench-<slug>-<release>`` otherwise."""
    slug = CATEGORY_MAP[category][0]
    return f"livebench-{slug}" if release == CURRENT_RELEASE else f"livebench-{slug}-{release}"


def _file_stem(release: str) -> str:
    return release.replace("-", "_")


def read_categories(path: Path) -> dict[str, list[str]]:
    """category -> tasks; IngestError for a wrong shape or a category not in CATEGORY_MAP."""
    data = read_source_json(path)
    if not isinstance(data, dict) or not data:
        raise IngestError(f"{path}: expected an object category -> list of task names")
    for category, tasks in data.items():
        if category not in CATEGORY_MAP:
            raise IngestError(
                f"{path}: category {category!r} is not in livebench.CATEGORY_MAP; add it there "
                "and to analytics/llm/ingest/benchmarks/livebench.csv"
            )
        if not isinstance(tasks, list) or not tasks or not all(isinstance(t, str) for t in tasks):
            raise IngestError(f"{path}: category {category!r} must list its task names")
    return data


def read_table(path: Path, tasks: set[str]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (line, fields) rows of one release table (blank lines skipped)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            lines = [(reader.line_num, row) for row in reader if row]
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise IngestError(
            f"{path}: unreadable CSV ({exc}); restore the file from its source"
        ) from exc
    if not lines or lines[0][1][0].strip() != "model":
        raise IngestError(f"{path}: first column must be 'model'; expected the LiveBench header")
    header = [h.strip() for h in lines[0][1]]
    columns = set(header[1:])
    if columns != tasks or len(columns) != len(header) - 1:
        raise IngestError(
            f"{path}: task columns {sorted(columns ^ tasks)} differ from its categories file "
            "(or repeat); use the table and categories_*.json of one snapshot"
        )
    return header, lines[1:]


def _hf_id(url: str | None) -> str | None:
    match = _HF_REPO.match(url or "")
    if not match or match.group(1).lower() in _HF_NOT_ORGS:
        return None
    return f"{match.group(1)}/{match.group(2)}"


def _release_date(version: object) -> str | None:
    text = clean_text(version)
    if text is None or not _FULL_DATE.match(text):
        return None
    try:
        date.fromisoformat(text)
    except ValueError:
        return None
    return text


def _variant_parts(base: str, raw: str) -> tuple[str, str]:
    """(base tail, variant tail) after the longest common prefix ending in '-'."""
    prefix = os.path.commonprefix([base + "-", raw + "-"])
    prefix = prefix[: prefix.rfind("-") + 1]
    return base[len(prefix) :], raw[len(prefix) :]


def _norm_variant(tail: str) -> str | None:
    text = tail.strip("-").lower().removesuffix("-effort")
    return text or None


def _display(value: object) -> str | None:
    text = clean_text(value)
    if text is None:
        return None
    return text.rstrip("*").rstrip() or None


def read_links(path: Path) -> dict[str, LinkEntry]:
    """Raw name -> LinkEntry for every base entry and every variant of model_links.json."""
    data = read_source_json(path)
    if not isinstance(data, dict):
        raise IngestError(f"{path}: expected an object raw model name -> entry")
    out: dict[str, LinkEntry] = {}
    for base, entry in data.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("organization"), str):
            raise IngestError(f"{path}: entry {base!r} lacks a string 'organization'")
        weights = entry.get("openweight")
        if weights is not None and not isinstance(weights, bool):
            raise IngestError(f"{path}: entry {base!r}: 'openweight' must be true or false")
        variants = entry.get("variants") or []
        if not isinstance(variants, list) or not all(
            isinstance(v, dict) and isinstance(v.get("rawName"), str) for v in variants
        ):
            raise IngestError(f"{path}: entry {base!r}: 'variants' must list {{rawName, ...}}")
        org = clean_text(entry["organization"])
        fields = {
            "organisation": maker_or_none(org),
            "open_weights": weights,
            "release_date": _release_date(entry.get("version")),
            "hf_id": _hf_id(clean_text(entry.get("url"))),
        }
        parts = [_variant_parts(base, v["rawName"]) for v in variants]
        base_variant = _norm_variant(parts[0][0]) if parts else None
        names = [(base, _display(entry.get("displayName")), base_variant)]
        names += [
            (v["rawName"], _display(v.get("displayName")), _norm_variant(tail))
            for v, (_, tail) in zip(variants, parts, strict=True)
        ]
        for raw, display, variant in names:
            if raw in out:
                raise IngestError(f"{path}: raw name {raw!r} is listed twice; keep one entry")
            out[raw] = LinkEntry(display_name=display, variant=variant, **fields)
    return out


def model_obs(name: str, link: LinkEntry | None) -> ModelObs:
    """What LiveBench states about one raw name (only the name when it has no link entry)."""
    if link is None:
        return ModelObs(name=name, source=SOURCE)
    return ModelObs(
        name=name,
        source=SOURCE,
        organisation=link.organisation,
        release_date=link.release_date,
        open_weights=link.open_weights,
        hf_id=link.hf_id,
        display_name=link.display_name,
        variant=link.variant,
    )


@dataclass
class Release:
    """One release table: task lists per category and each model's category averages."""

    release: str
    categories: dict[str, list[str]]
    names: list[str]
    averages: dict[str, dict[str, float]]


def read_release(root: Path, release: str, drops: Drops) -> Release:
    """Category averages (the site's rule: mean of the tasks present) of one release table."""
    stem = _file_stem(release)
    categories = read_categories(root / f"categories_{stem}.json")
    path = root / f"table_{stem}.csv"
    header, rows = read_table(path, {t for tasks in categories.values() for t in tasks})
    out = Release(release, categories, [], {})
    for lineno, fields in rows:
        name = clean_text(fields[0])
        if name is None:
            raise IngestError(f"{path}:{lineno}: row without a model name; restore the file")
        if name in out.names:
            drops.add(SOURCE, DUPLICATE)
            continue
        out.names.append(name)
        if len(fields) != len(header):
            if (release, name) not in KNOWN_MALFORMED:
                raise IngestError(
                    f"{path}:{lineno}: {name!r} has {len(fields)} fields, header has "
                    f"{len(header)}; check the row against the source and list it in "
                    "livebench.KNOWN_MALFORMED to skip it"
                )
            drops.add(SOURCE, MALFORMED)
            continue
        values = {}
        for task, cell in zip(header[1:], fields[1:], strict=True):
            value = parse_number(cell)
            if value is None and clean_text(cell) not in (None, "nan", "NaN"):
                raise IngestError(
                    f"{path}:{lineno}: {name!r} {task}={cell!r} is not a number; "
                    "restore the file from its source"
                )
            values[task] = value
        out.averages[name] = {}
        for category, tasks in categories.items():
            present = [values[t] for t in tasks if values[t] is not None]
            if not present:
                drops.add(SOURCE, NO_TASKS)
                continue
            out.averages[name][category] = sum(present) / len(present)
    return out


def _same_runs(old: Release, new: Release, category: str) -> bool:
    """True when ``old`` repeats ``new`` for a category: same task list and, for every model in
    both tables, the same average (the older table carries the newer table's runs)."""
    if sorted(old.categories.get(category, [])) != sorted(new.categories.get(category, [])):
        return False
    shared = [n for n in old.averages if n in new.averages and category in old.averages[n]]
    return bool(shared) and all(
        category in new.averages[n]
        and abs(old.averages[n][category] - new.averages[n][category]) <= REPEAT_TOLERANCE
        for n in shared
    )


def benchmark_targets(releases: list[Release]) -> dict[tuple[str, str], str]:
    """(release, category) -> benchmark id; ``releases`` newest first. A category that repeats
    the next newer release's runs shares that release's benchmark id."""
    targets: dict[tuple[str, str], str] = {}
    for i, rel in enumerate(releases):
        newer = releases[i - 1] if i else None
        for category in rel.categories:
            if newer is not None and _same_runs(rel, newer, category):
                targets[rel.release, category] = targets[newer.release, category]
            else:
                targets[rel.release, category] = benchmark_id(rel.release, category)
    return targets


def score_obs(releases: list[Release], links: dict[str, LinkEntry], drops: Drops) -> list[ScoreObs]:
    """One score per model and benchmark id, newest release first; repeats counted."""
    targets = benchmark_targets(releases)
    emitted: set[tuple[str, str]] = set()
    scores: list[ScoreObs] = []
    for rel in releases:
        for name, averages in rel.averages.items():
            link = links.get(name)
            for category, score in averages.items():
                bench = targets[rel.release, category]
                if (name, bench) in emitted:
                    drops.add(SOURCE, REPEAT)
                    continue
                emitted.add((name, bench))
                scores.append(
                    ScoreObs(
                        model_name=name,
                        benchmark_id=bench,
                        score=score,
                        source_kind=SOURCE_KIND,
                        source_name=SOURCE_NAME,
                        source_url=SOURCE_URL,
                        date=RELEASES[rel.release],
                        origin=SOURCE,
                        variant=link.variant if link else None,
                    )
                )
    return scores


def _check_files(root: Path) -> None:
    if not root.is_dir():
        raise IngestError(f"{root}: LiveBench folder is missing; point --shared at shared/data")
    known = {f"table_{_file_stem(r)}.csv" for r in RELEASES}
    for path in sorted(root.glob("table_*.csv")):
        if path.name not in known:
            raise IngestError(
                f"{path}: release not in livebench.RELEASES; add it with its as-of date "
                "(the newest release is the current one)"
            )


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Every raw name of the three release tables as a ModelObs, and every category average."""
    _check_files(root)
    links = read_links(root / "model_links.json")
    releases = [read_release(root, r, drops) for r in sorted(RELEASES, reverse=True)]
    names = dict.fromkeys(n for rel in releases for n in rel.names)
    models = [model_obs(name, links.get(name)) for name in names]
    return models, score_obs(releases, links, drops)


def unlinked_names(root: Path) -> list[str]:
    """Raw table names without a model_links.json entry (base or variant), in table order."""
    links = read_links(root / "model_links.json")
    models, _ = load(root, Drops())
    return [m.name for m in models if m.name not in links]
