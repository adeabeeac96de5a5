"""Importer for Epoch AI's benchmark-stitching data (``epoch-benchmark-stitching/data``).

- ``external_benchmark_<name>.csv``: one file per benchmark; each row's Source / Source link
  decides its provenance through the source-kind rule.
- ``benchmarks_runs.csv``: runs Epoch AI performed itself -> ``independent``.
- ``model_versions.csv``: release dates and model families.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

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

SOURCE = "epoch"
EPOCH_RUNS_URL = "https://epoch.ai/data/ai-benchmarking-dashboard"
PUBLISHED = "the published header"
RUN_COLUMNS = ("task", "model", "Best score (across scorers)", "Status", "started_at")
VERSION_COLUMNS = ("id", "Model", "Version release date", "Hugging Face developer id")


@dataclass(frozen=True)
class ExternalSpec:
    """How to read one external_benchmark file: which column is the headline score."""

    benchmark_id: str
    column: str
    fraction: bool = False  # True when the column holds 0-1 values (converted to %)
    standard_agent: str | None = None
    """Agent leaderboards: regex the Agent/Scaffold cell must match (the benchmark's own
    harness); rows run in any other scaffold are dropped (protocols.SCAFFOLD)."""
    headline_name: str | None = None
    """Regex the Name cell must match for the headline protocol (others: fine-tuned)."""


OSWORLD_STANDARD = r"^(?!.*\bw/)(?!.*\((?!50 )\d+ steps\))"
"""OSWorld: the model's own agent (no 'X w/ model' framework) at the 50-step budget (or none
stated); 15- and 100-step runs are other protocols."""

# file stem (after 'external_benchmark_') -> spec; the unit is the benchmark's (benchmarks.csv).
EXTERNAL: dict[str, ExternalSpec] = {
    "aider_polyglot": ExternalSpec("aider-polyglot", "Percent correct"),
    "anli": ExternalSpec("anli", "Score"),
    "arc_agi": ExternalSpec("arc-agi", "Score"),
    "arc_ai2": ExternalSpec("arc-c", "Challenge score"),
    "balrog": ExternalSpec("balrog", "Average progress"),
    "bbh": ExternalSpec("bbh", "Average"),
    "boolq": ExternalSpec("boolq", "Score"),
    "cadeval": ExternalSpec("cadeval", "Overall pass (%)"),
    "csqa2": ExternalSpec("csqa2", "Score"),
    "cybench": ExternalSpec("cybench", "Unguided % Solved"),
    "deepresearch": ExternalSpec("deepresearch-bench", "Average score"),
    "factorio_learning_environment": ExternalSpec("factorio-lab", "Lab Success %"),
    "fictionlivebench": ExternalSpec("fiction-livebench", "32k token score"),
    "geobench": ExternalSpec("geobench", "ACW Country %"),
    "gsm8k": ExternalSpec("gsm8k", "EM"),
    "gso_bench": ExternalSpec("gso-bench", "Score OPT@1"),
    "hellaswag": ExternalSpec("hellaswag", "Overall accuracy"),
    "lambada": ExternalSpec("lambada", "Score"),
    "lech_mazur_writing": ExternalSpec("lech-mazur-writing", "Mean score"),
    "mcbench": ExternalSpec("mcbench", "ELO"),
    "metr": ExternalSpec("metr-time-horizon", "Time horizon"),
    "mmlu": ExternalSpec("mmlu", "EM"),
    "openbookqa": ExternalSpec("openbookqa", "Accuracy"),
    "os_world": ExternalSpec("osworld", "Score", standard_agent=OSWORLD_STANDARD),
    "osuniverse": ExternalSpec("osuniverse", "Weighted Score", standard_agent=r"^AgentDesk"),
    "piqa": ExternalSpec("piqa", "Score"),
    "scienceqa": ExternalSpec("scienceqa", "Score"),
    "simple_bench": ExternalSpec("simplebench", "Score (AVG@5)"),
    "superglue": ExternalSpec("superglue", "Score", headline_name=r"(?i)shot"),
    "terminal_bench": ExternalSpec("terminal-bench", "Accuracy mean", standard_agent=r"^Terminus"),
    "the_agent_company": ExternalSpec("the-agent-company", "% Resolved"),
    "triviaqa": ExternalSpec("triviaqa", "EM"),
    "videomme": ExternalSpec("video-mme", "Overall (no subtitles)"),
    "vpct": ExternalSpec("vpct", "Correct"),
    "weirdml": ExternalSpec("weirdml", "Accuracy"),
    "winogrande": ExternalSpec("winogrande", "Accuracy"),
}

COMPOSITES = {"livebench"}
"""Files holding a composite of benchmarks imported one by one elsewhere (LiveBench's global
average: the LiveBench importer takes each category from LiveBench itself)."""


def _row_count(path: Path) -> int:
    return len(read_source_csv(path, (), PUBLISHED))


# benchmarks_runs.csv task -> benchmark_id (scores there are fractions 0-1).
RUN_TASKS: dict[str, str] = {
    "GPQA diamond": "gpqa",
    "MATH level 5": "math-level-5",
    "OTIS Mock AIME 2024-2025": "otis-mock-aime",
    "FrontierMath-2025-02-28-Private": "frontiermath",
    "FrontierMath-2025-02-28-Public": "frontiermath-public",
    "FrontierMath-Tier-4-2025-07-01-Private": "frontiermath-tier4",
    "FrontierMath-Tier-4-2025-07-01-Public": "frontiermath-tier4-public",
    "SWE-Bench verified": "swe-bench-verified",
}


def _link_column(frame: pd.DataFrame) -> str | None:
    return next((c for c in frame.columns if c.startswith("Source link")), None)


def external_scores(path: Path, spec: ExternalSpec, drops: Drops) -> list[ScoreObs]:
    """Scores of one external_benchmark file (values in percent, or the benchmark's own unit)."""
    frame = read_source_csv(path, ("Model version", spec.column), PUBLISHED)
    link_col = _link_column(frame)
    out: list[ScoreObs] = []
    for _, row in frame.iterrows():
        model = clean_text(row["Model version"])
        value = parse_number(row[spec.column])
        url = clean_text(row.get(link_col)) if link_col else None
        name = clean_text(row.get("Source")) or provenance.publisher(url) or "unnamed source"
        reason = protocol_drop(spec, row)
        if reason:
            drops.add(SOURCE, reason)
        elif model is None:
            drops.add(SOURCE, "external row without a Model version (unidentified system)")
        elif value is None:
            drops.add(SOURCE, f"external row without a '{spec.column}' value")
        elif provenance.is_placeholder_url(url):
            drops.add(SOURCE, "external row without a Source link")
        else:
            score = value * 100 if spec.fraction else value
            out.append(
                ScoreObs(
                    model,
                    spec.benchmark_id,
                    score,
                    provenance.source_kind(url, name),
                    f"{name} (via Epoch AI)",
                    url,
                    None,
                    f"{SOURCE}:{path.name}",
                    method=_shots(row.get("Shots")),
                )
            )
    return out


def _shots(value: object) -> str | None:
    """An external file's ``Shots`` cell as a method ('5' -> '5-shot'; empty -> None)."""
    number = parse_number(value)
    return None if number is None else f"{int(number)}-shot"


def protocol_drop(spec: ExternalSpec, row: pd.Series) -> str | None:
    """Why one external row is not the benchmark's headline protocol (None: it is)."""
    notes = " ".join(str(row.get(c) or "") for c in row.index if str(c).startswith("Notes"))
    reason = protocols.method_drop_reason(notes)
    if reason:
        return reason
    agent = clean_text(row.get("Agent")) or clean_text(row.get("Scaffold"))
    if spec.standard_agent and not re.search(spec.standard_agent, agent or ""):
        return protocols.SCAFFOLD
    if spec.headline_name and not re.search(spec.headline_name, clean_text(row.get("Name")) or ""):
        return protocols.FINE_TUNED
    return None


def _run_date(text: str) -> str | None:
    try:
        return datetime.strptime(text.strip(), "%d %B %Y %I:%M%p").date().isoformat()
    except ValueError:
        return None


def run_scores(path: Path, drops: Drops) -> list[ScoreObs]:
    """Epoch AI's own runs: latest successful run per (model, task), fraction -> percent."""
    frame = read_source_csv(path, RUN_COLUMNS, PUBLISHED)
    frame = frame.assign(date=frame["started_at"].map(_run_date))
    latest: dict[tuple[str, str], ScoreObs] = {}
    for _, row in frame.sort_values("date", na_position="first").iterrows():
        bench = RUN_TASKS.get(row["task"])
        value = parse_number(row["Best score (across scorers)"])
        if bench is None:
            drops.add(SOURCE, f"run task {row['task']!r} not in the curated table")
        elif row["Status"] != "Success" or value is None:
            drops.add(SOURCE, "run not successful or without a score")
        else:
            url = clean_text(row.get("log viewer")) or clean_text(row.get("job")) or EPOCH_RUNS_URL
            obs = ScoreObs(
                row["model"],
                bench,
                value * 100,
                "independent",
                "Epoch AI runs",
                url,
                row["date"],
                f"{SOURCE}:runs",
            )
            if (row["model"], bench) in latest:
                drops.add(SOURCE, "older run of the same model and task (latest kept)")
            latest[(row["model"], bench)] = obs
    return list(latest.values())


_HF_LINK = re.compile(r"huggingface\.co/([^/\s]+/[^/\s?#]+)")


def version_models(path: Path) -> list[ModelObs]:
    """Release date, display family and Hugging Face id of each Epoch model version."""
    frame = read_source_csv(path, VERSION_COLUMNS, PUBLISHED)
    out = []
    for _, row in frame.iterrows():
        version = clean_text(row["id"])
        if version is None:
            continue
        link = _HF_LINK.search(row.get("Link", "") or "")
        developer = clean_text(row["Hugging Face developer id"])
        out.append(
            ModelObs(
                name=version,
                source=SOURCE,
                release_date=_iso(row["Version release date"]),
                display_name=clean_text(row.get("Unique display name")),
                hf_id=link.group(1) if link else None,
                open_weights=True if developer else None,
                organisation=None,
            )
        )
    return out


def _iso(text: str) -> str | None:
    text = (text or "").strip()
    return text if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else None


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Models (from model_versions.csv) and scores (external files + Epoch runs)."""
    data = root / "data"
    if not data.is_dir():
        raise IngestError(f"{data}: folder missing; point --shared at shared/data")
    scores: list[ScoreObs] = []
    for path in sorted(data.glob("external_benchmark_*.csv")):
        stem = path.stem.removeprefix("external_benchmark_")
        if stem in COMPOSITES:
            drops.add(SOURCE, protocols.COMPOSITE, _row_count(path))
            continue
        spec = EXTERNAL.get(stem)
        if spec is None:
            drops.add(SOURCE, f"file {path.name} has no curated spec")
            continue
        scores.extend(external_scores(path, spec, drops))
    scores.extend(run_scores(data / "benchmarks_runs.csv", drops))
    return version_models(data / "model_versions.csv"), scores
