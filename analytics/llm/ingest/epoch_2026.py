"""Importer for Epoch AI's 2026-04 Benchmarking Hub export (``epoch-benchmark-data-2026/``).

Files (shared/data/SOURCES.md, "Epoch AI Benchmarking Hub data, 2026-04 export"): one CSV per
benchmark, every one keyed by ``Model version``. Cells hold quoted multi-line text, so files are
read with a real CSV parser (``read_source_csv``), never line by line.

- **Epoch AI's own runs** (``RUN_FILES``: GPQA Diamond, MATH Level 5, OTIS Mock AIME, FrontierMath
  and its Tier 4, SWE-bench Verified, chess puzzles, SimpleQA Verified): ``independent``, source
  name "Epoch AI runs" (the name the 2025-12 importer ``epoch_stitching`` gives Epoch's runs), URL
  the row's ``Log viewer`` page, else Epoch's benchmarking hub. The score is ``mean_score`` (mean
  accuracy over the run's samples and epochs: the expected single-attempt score), not ``Best score
  (across scorers)`` (the maximum over several scorers of one run: a choice of the most favourable
  grader, a best-of selection; it differs from the mean in 6 rows, e.g. grok-3-beta GPQA 75.8 vs
  67.6). A model version run twice keeps its latest run (``Started at``).
- **Compiled files** (``*_external.csv`` and ``swe_bench_bash.csv``, which has no ``_external``
  suffix but is compiled from the swebench.com bash-only board): provenance per row from ``Source``
  / ``Source link`` with ``provenance.source_kind`` (a lab's own report is self-reported wherever
  it is hosted). A ``Source`` cell that is itself a URL is the row's link. A row whose ``Source``
  names a source without a link gets the link the same file gives most often for that exact
  ``Source`` name ("GSO Leaderboard" -> gso-bench.github.io/leaderboard.html); a row whose name is
  missing gets the name the same file gives most often for links on that host. Source name:
  ``"<Source> (via Epoch AI)"``, exactly as ``epoch_stitching`` builds it, so a row present in both
  exports keeps its (model, benchmark, source kind, source name) key. Files without a Source
  column (arc_agi_2, apex_agents, hle, gdpval, posttrainbench) come from that benchmark's own
  leaderboard (``Leaderboard``): ``independent``, with the leaderboard's URL.
- Benchmark ids and headline columns are those of ``epoch_stitching.EXTERNAL`` / ``RUN_TASKS``
  (imported, not copied); new benchmarks are in ``benchmarks/epoch_2026.csv``. Terminal-Bench rows
  are all Terminal-Bench 2.0 (``terminal-bench-2``, not the 1.0 ``terminal-bench``); METR rows of
  ``METR version`` "METR-Horizon-v1.1" are ``metr-time-horizon-1.1`` (another task suite).
- Units: this export stores fractions where the 2025-12 export stored percent strings, so
  fractions are x100 (a value outside 0-1 in a fraction column is an ``IngestError``: the export
  changed its unit). Already in the benchmark's unit: Aider (percent), OSWorld (percent), LiveBench
  (0-100), Lech Mazur writing (1-10), METR (minutes), WebDev Arena (Elo).

How each file is read (``FILE_SPECS``, ``RUN_FILES``, ``COMPOSITE_FILES``) is in
``epoch_2026_specs.py``.

Model versions: ``split_model_version`` cuts the effort / thinking-budget suffix (``_xhigh``,
``_high``, ``_medium``, ``_low``, ``_minimal``, ``_none``, ``_max``, ``_thinking``, ``_16K``, and
the parenthesised "(24K thinking)"): ``name`` is the part before it, ``variant`` the suffix lower
case; ``_unknown`` (Epoch could not tell the setting) gives variant None, i.e. an unqualified
claim. Underscores that are part of a name (``phi-1_5``, ``Qwen-1_8B``, ``open_llama_7b``,
``..._res448``) stay. "pre-release" stays in the name (``gpt-5.5-pre-release_xhigh`` -> name
``gpt-5.5-pre-release``, variant ``xhigh``), so a pre-release system never merges with the released
model. One ``ModelObs`` per (name, variant) seen in any file (the ECI file included): release date
and organisation as the files state them, display name and open weights from the ECI file's
``Display name`` and ``Model accessibility``.

Dropped and counted: rows without a Model version (systems Epoch could not identify) or without
a headline value; rows with neither Source nor Source link (provenance unknown: no page to cite,
although several such files look copied from the benchmark's leaderboard); composite indices
(``protocols.COMPOSITE``): the Epoch Capabilities Index file (fitted on the other benchmarks) and
the LiveBench global average while ``epoch_stitching.COMPOSITES`` names it; protocols other than
the headline (``protocols`` reasons): ``epoch_stitching.protocol_drop`` with the 2025-12 specs
(notes naming another protocol, e.g. fine-tuned models; SuperGLUE rows that are not few-shot;
OSWorld runs that are not the model's own agent at 50 steps), model versions or display names
that ``method_drop_reason`` flags ("Deep Think", "Heavy"), Video-MME systems "augmented by"
another pipeline, and per-file scaffold rules: Terminal-Bench agents other than its own
Terminus 2 harness, GSO scaffolds other than OpenHands, TheAgentCompany agents other than
OpenHands, GeoBench runs with tools, PostTrainBench rows of a model in another CLI than its
developer's native one (the benchmark's rule: Claude Code, Codex CLI, Gemini CLI, else OpenCode)
when the native row exists; older duplicate runs; CSV files of the folder no table here names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pandas as pd

from analytics.llm.ingest import protocols, provenance
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    parse_number,
    read_source_csv,
)
from analytics.llm.ingest.epoch_2026_specs import (
    COMPOSITE_FILES,
    FILE_SPECS,
    RUN_FILES,
    VERSION,
    FileSpec,
)
from analytics.llm.ingest.epoch_stitching import EPOCH_RUNS_URL, protocol_drop

SOURCE = "epoch-2026"
PUBLISHED = "the header of Epoch AI's 2026-04 export (shared/data/SOURCES.md)"
RUNS_SOURCE_NAME = "Epoch AI runs"
VIA = " (via Epoch AI)"
RUN_SCORE = "mean_score"
RUN_STARTED = "Started at"

NO_VERSION = "external row without a Model version (unidentified system)"
NO_PROVENANCE = "external row without a Source or Source link (provenance unknown)"
NO_LINK = "external row without a Source link"
OLDER_RUN = "older run of the same model and task (latest kept)"

# ---------------------------------------------------------------- model versions

_SUFFIX = re.compile(
    r"_(minimal|low|medium|high|xhigh|max|none|unknown|thinking|\d+k)$", re.IGNORECASE
)
_PAREN_BUDGET = re.compile(r"\s+\((\d+k) thinking\)$", re.IGNORECASE)
PRE_RELEASE = "pre-release"


@dataclass(frozen=True)
class ModelVersion:
    """An Epoch ``Model version`` cut into the model name and its effort / budget variant."""

    name: str
    variant: str | None
    suffix: str | None  # as printed: '_16K', '_unknown', '(24K thinking)'; None without one

    @property
    def pre_release(self) -> bool:
        return PRE_RELEASE in self.name.lower()


def split_model_version(text: str) -> ModelVersion:
    """'claude-opus-4-6_32K' -> ('claude-opus-4-6', '32k'); '_unknown' -> variant None."""
    text = text.strip()
    for pattern in (_SUFFIX, _PAREN_BUDGET):
        match = pattern.search(text)
        if match:
            variant = match.group(1).lower()
            return ModelVersion(
                text[: match.start()].strip(),
                None if variant == "unknown" else variant,
                match.group(0).strip(),
            )
    return ModelVersion(text, None, None)


# ---------------------------------------------------------------- provenance


def _host(url: str) -> str:
    return urlparse(url.strip()).netloc.lower().removeprefix("www.")


def _is_url(text: str | None) -> bool:
    return bool(text) and re.match(r"https?://\S+$", text or "") is not None


def _most_common(counter: Counter) -> str:
    return sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


@dataclass(frozen=True)
class SourceIndex:
    """What one file itself says about its sources: the usual link of each Source name, and the
    usual Source name of each link host."""

    link_by_name: dict[str, str]
    name_by_host: dict[str, str]

    @classmethod
    def of(cls, pairs: Iterable[tuple[str | None, str | None]]) -> SourceIndex:
        links: dict[str, Counter] = {}
        names: dict[str, Counter] = {}
        for name, link in pairs:
            if name and link and not _is_url(name):
                links.setdefault(name, Counter())[link] += 1
                names.setdefault(_host(link), Counter())[name] += 1
        return cls(
            {k: _most_common(v) for k, v in links.items()},
            {k: _most_common(v) for k, v in names.items()},
        )


def _link_column(frame: pd.DataFrame) -> str | None:
    return next((c for c in frame.columns if c.lower().startswith("source link")), None)


def _row_source(source: str | None, link: str | None, index: SourceIndex) -> tuple[str, str] | str:
    """(source name, link) of one compiled row, or the drop reason when it has none."""
    if _is_url(source):
        link, source = link or source, None
    if link is None and source is not None:
        link = index.link_by_name.get(source)
    if link is None or provenance.is_placeholder_url(link):
        return NO_LINK if source else NO_PROVENANCE
    name = (
        source or index.name_by_host.get(_host(link)) or provenance.publisher(link) or _host(link)
    )
    return name, link


# ---------------------------------------------------------------- scores


def _date(value: object) -> str | None:
    text = clean_text(value) or ""
    return text[:10] if re.match(r"\d{4}-\d{2}-\d{2}(\b|T)", text) else None


def _name_reason(version: str, display: str | None) -> str | None:
    """Protocol named in the model version or the source's display name ('Deep Think')."""
    return protocols.method_drop_reason(f"{re.sub(r'[-_]', ' ', version)} {display or ''}")


_AUGMENTED = re.compile(r"\baugmented (?:by|with)\b", re.IGNORECASE)


def _augmented(row: pd.Series, note_columns: list[str]) -> str | None:
    """A system built on the model ('... augmented by the AdaReTaKe system'): another scaffold."""
    text = " ".join(clean_text(row[c]) or "" for c in note_columns)
    return protocols.SCAFFOLD if _AUGMENTED.search(text) else None


def _value(path: Path, i: int, version: str, raw: object, spec: FileSpec) -> float | None:
    value = parse_number(raw)
    if value is not None and spec.scale == 100.0 and not 0.0 <= value <= 1.0:
        raise IngestError(
            f"{path}: record {i + 1} ({version})",
            f"{spec.column!r} = {raw!r} is not a fraction 0-1 (the export changed its unit)",
            "update FILE_SPECS in epoch_2026_specs.py",
        )
    return None if value is None else value * spec.scale


def external_scores(
    path: Path, frame: pd.DataFrame, spec: FileSpec, drops: Drops
) -> list[ScoreObs]:
    """Scores of one compiled file, in the benchmark's unit."""
    link_col = _link_column(frame)
    has_source = "Source" in frame.columns
    if not has_source and link_col is None and spec.leaderboard is None:
        raise IngestError(
            str(path), "no Source / Source link column", "name its leaderboard in FILE_SPECS"
        )
    sources = [clean_text(v) for v in frame["Source"]] if has_source else [None] * len(frame)
    links = [clean_text(v) for v in frame[link_col]] if link_col else [None] * len(frame)
    index = SourceIndex.of(zip(sources, links, strict=True))
    headline = spec.headline(frame) if spec.headline else [None] * len(frame)
    note_columns = [c for c in frame.columns if c.startswith("Notes")]
    out: list[ScoreObs] = []
    for i, (_, row) in enumerate(frame.iterrows()):
        text = clean_text(row[VERSION])
        if text is None:
            drops.add(SOURCE, NO_VERSION)
            continue
        value = _value(path, i, text, row[spec.column], spec)
        if value is None:
            drops.add(SOURCE, f"external row without a '{spec.column}' value")
            continue
        reason = (
            protocol_drop(spec.external, row)
            or _name_reason(text, clean_text(row.get("Name")))
            or _augmented(row, note_columns)
            or headline[i]
        )
        if reason:
            drops.add(SOURCE, reason)
            continue
        if has_source or link_col:
            found = _row_source(sources[i], links[i], index)
            if isinstance(found, str):
                drops.add(SOURCE, found)
                continue
            name, url = found
            kind = provenance.source_kind(url, name)
        else:
            name, url, kind = spec.leaderboard.name, spec.leaderboard.url, "independent"
        bench = spec.benchmark_id
        if spec.tracks:
            column, mapping = spec.tracks
            bench = mapping.get(clean_text(row[column]) or "", bench)
        version = split_model_version(text)
        out.append(
            ScoreObs(
                version.name,
                bench,
                value,
                kind,
                f"{name}{VIA}",
                url,
                _date(row[spec.date_column]) if spec.date_column else None,
                f"{SOURCE}:{path.name}",
                version.variant,
            )
        )
    return out


def run_scores(path: Path, frame: pd.DataFrame, benchmark_id: str, drops: Drops) -> list[ScoreObs]:
    """Epoch AI's own runs of one benchmark: latest run per model version, fraction -> percent."""
    latest: dict[tuple[str, str | None], ScoreObs] = {}
    ordered = frame.assign(_started=frame[RUN_STARTED].map(lambda v: clean_text(v) or ""))
    for i, row in ordered.sort_values("_started", kind="stable").iterrows():
        text = clean_text(row[VERSION])
        if text is None:
            drops.add(SOURCE, "run without a Model version")
            continue
        value = parse_number(row[RUN_SCORE])
        if value is None:
            drops.add(SOURCE, f"run without a {RUN_SCORE}")
            continue
        if not 0.0 <= value <= 1.0:
            raise IngestError(
                f"{path}: record {i + 1} ({text})",
                f"{RUN_SCORE} = {row[RUN_SCORE]!r} is not a fraction 0-1 (the export changed "
                "its unit)",
                "update RUN_FILES in epoch_2026_specs.py",
            )
        reason = _name_reason(text, None)
        if reason:
            drops.add(SOURCE, reason)
            continue
        version = split_model_version(text)
        key = (version.name, version.variant)
        if key in latest:
            drops.add(SOURCE, OLDER_RUN)
        latest[key] = ScoreObs(
            version.name,
            benchmark_id,
            value * 100,
            "independent",
            RUNS_SOURCE_NAME,
            clean_text(row.get("Log viewer")) or EPOCH_RUNS_URL,
            _date(row[RUN_STARTED]),
            f"{SOURCE}:{path.name}",
            version.variant,
        )
    return list(latest.values())


# ---------------------------------------------------------------- models

_OPEN = {
    "Open weights (unrestricted)": True,
    "Open weights (restricted use)": True,
    "Open weights (non-commercial)": True,
    "API access": False,
    "Hosted access (no API)": False,
    "Unreleased": False,
}
"""ECI ``Model accessibility`` -> open weights."""


def model_observations(frames: Iterable[pd.DataFrame]) -> list[ModelObs]:
    """One ModelObs per (name, variant): the first value any file states for each field."""
    found: dict[tuple[str, str | None], dict] = {}
    for frame in frames:
        for _, row in frame.iterrows():
            text = clean_text(row[VERSION])
            if text is None:
                continue
            version = split_model_version(text)
            fields = found.setdefault((version.name, version.variant), {})
            for attr, value in (
                ("release_date", _date(row.get("Release date"))),
                ("organisation", clean_text(row.get("Organization"))),
                ("display_name", clean_text(row.get("Display name"))),
                ("open_weights", _OPEN.get(clean_text(row.get("Model accessibility")) or "")),
            ):
                if fields.get(attr) is None and value is not None:
                    fields[attr] = value
    return [
        ModelObs(name=name, source=SOURCE, variant=variant, **fields)
        for (name, variant), fields in found.items()
    ]


# ---------------------------------------------------------------- load


def read_file(path: Path) -> pd.DataFrame:
    """One export file with the columns its table needs (IngestError naming the file)."""
    if path.name in RUN_FILES:
        required: tuple[str, ...] = (VERSION, RUN_SCORE, RUN_STARTED)
    elif path.name in FILE_SPECS:
        spec = FILE_SPECS[path.name]
        required = (VERSION, spec.column, *spec.required)
        if spec.date_column:
            required += (spec.date_column,)
    else:
        required = (VERSION,)
    return read_source_csv(path, required, PUBLISHED)


def file_scores(path: Path, frame: pd.DataFrame, drops: Drops) -> list[ScoreObs]:
    """Scores of one file of the export, by its name."""
    if path.name in RUN_FILES:
        return run_scores(path, frame, RUN_FILES[path.name], drops)
    if path.name in FILE_SPECS:
        return external_scores(path, frame, FILE_SPECS[path.name], drops)
    if path.name in COMPOSITE_FILES:
        drops.add(SOURCE, protocols.COMPOSITE, len(frame))
    else:
        drops.add(SOURCE, f"file {path.name} has no curated spec", len(frame))
    return []


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Models and scores of every CSV file at the top of ``root`` (additional_eci_data/ holds
    Epoch's ECI fit parameters, no scores, and is not read)."""
    if not root.is_dir():
        raise IngestError(str(root), "folder missing", "point --shared at shared/data")
    expected = [*RUN_FILES, *FILE_SPECS, *COMPOSITE_FILES]
    missing = [name for name in expected if not (root / name).is_file()]
    if missing:
        fix = "restore the export (shared/data/SOURCES.md)"
        raise IngestError(str(root), f"missing {', '.join(missing)}", fix)
    frames: list[pd.DataFrame] = []
    scores: list[ScoreObs] = []
    for path in sorted(root.glob("*.csv")):
        frame = read_file(path)
        frames.append(frame)
        scores.extend(file_scores(path, frame, drops))
    return model_observations(frames), scores
