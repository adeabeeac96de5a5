"""How each file of Epoch AI's 2026-04 export is read (the importer is ``epoch_2026``): the
compiled files' specs (``FILE_SPECS``: benchmark id, headline column, unit, date column, the
benchmark's own leaderboard for files without a Source column, per-file protocol hooks), the
composite indices that are not scores (``COMPOSITE_FILES``) and Epoch AI's own runs
(``RUN_FILES``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from analytics.llm.ingest import protocols
from analytics.llm.ingest.common import clean_text
from analytics.llm.ingest.epoch_stitching import COMPOSITES, EXTERNAL, RUN_TASKS, ExternalSpec

VERSION = "Model version"
"""The column every file of the export is keyed by."""

Hook = Callable[[pd.DataFrame], list[str | None]]
"""Per-row protocol drop reason (None: the headline protocol) of one whole file."""


@dataclass(frozen=True)
class Leaderboard:
    """The benchmark's own leaderboard, for files without a Source column."""

    name: str
    url: str


@dataclass(frozen=True)
class FileSpec:
    """How to read one compiled file. ``external`` is the 2025-12 importer's spec for the same
    benchmark (benchmark id, headline column, ``fraction`` flag, ``standard_agent`` and
    ``headline_name`` protocol rules, applied by ``epoch_stitching.protocol_drop``)."""

    external: ExternalSpec
    leaderboard: Leaderboard | None = None
    date_column: str | None = None
    headline: Hook | None = None
    required: tuple[str, ...] = ()
    tracks: tuple[str, dict[str, str]] | None = None  # (column, cell -> benchmark_id)

    @property
    def benchmark_id(self) -> str:
        return self.external.benchmark_id

    @property
    def column(self) -> str:
        return self.external.column

    @property
    def scale(self) -> float:
        """100: the column holds fractions 0-1 (-> %); 1: already in the benchmark's unit."""
        return 100.0 if self.external.fraction else 1.0


def _reuse(old_stem: str, fraction: bool = True, **kwargs) -> FileSpec:
    """The 2025-12 importer's spec for that benchmark; this export stores fractions (its 0-1
    values were percent strings in 2025-12) unless ``fraction=False``."""
    return FileSpec(replace(EXTERNAL[old_stem], fraction=fraction), **kwargs)


def _new(benchmark_id: str, column: str, fraction: bool = True, **kwargs) -> FileSpec:
    """A benchmark the 2025-12 export did not have (benchmarks/epoch_2026.csv)."""
    return FileSpec(ExternalSpec(benchmark_id, column, fraction=fraction), **kwargs)


def _keep_only(column: str, allowed: set[str | None]) -> Hook:
    def hook(frame: pd.DataFrame) -> list[str | None]:
        return [None if clean_text(v) in allowed else protocols.SCAFFOLD for v in frame[column]]

    return hook


def _agent_company(frame: pd.DataFrame) -> list[str | None]:
    """TheAgentCompany: 'OpenHands + <model>' (its baseline agent) or a bare model name."""
    out: list[str | None] = []
    for name in frame["Name"]:
        agent, plus, _ = (clean_text(name) or "").partition(" + ")
        out.append(None if not plus or agent == "OpenHands" else protocols.SCAFFOLD)
    return out


NATIVE_CLI = {
    "Anthropic": "Claude Code",
    "OpenAI": "Codex CLI",
    "Google DeepMind": "Gemini CLI",
    "Google": "Gemini CLI",
}
"""PostTrainBench's scaffold rule: each lab's own CLI; OpenCode for the others."""


def _posttrainbench(frame: pd.DataFrame) -> list[str | None]:
    """A model listed in several CLIs keeps the row of its native one (when there is one)."""
    rows = [
        (clean_text(v), clean_text(s), NATIVE_CLI.get(clean_text(o) or "", "OpenCode"))
        for v, s, o in zip(frame[VERSION], frame["Scaffold"], frame["Organization"], strict=True)
    ]
    has_native = {v for v, scaffold, native in rows if scaffold == native}
    return [
        protocols.SCAFFOLD if v in has_native and scaffold != native else None
        for v, scaffold, native in rows
    ]


ARC_PRIZE = Leaderboard("ARC Prize Leaderboard", "https://arcprize.org/leaderboard")
TERMINUS_2 = r"^Terminus 2$"
"""Terminal-Bench 2.0's own harness (the 2025-12 rule '^Terminus' would also admit KRAFTON's
third-party 'Terminus-KIRA')."""

FILE_SPECS: dict[str, FileSpec] = {
    "adversarial_nli_external.csv": _reuse("anli"),
    "aider_polyglot_external.csv": _reuse(
        "aider_polyglot", fraction=False, date_column="Date of evaluation"
    ),
    "apex_agents_external.csv": _new(
        "apex-agents",
        "Pass@1 score",
        leaderboard=Leaderboard(
            "APEX-Agents Leaderboard", "https://www.mercor.com/apex/apex-agents-leaderboard/"
        ),
    ),
    "arc_agi_2_external.csv": _new("arc-agi-2", "Score", leaderboard=ARC_PRIZE),
    "arc_agi_external.csv": _reuse("arc_agi"),
    "arc_ai2_external.csv": _reuse("arc_ai2"),
    "balrog_external.csv": _reuse("balrog", date_column="Date added"),
    "bbh_external.csv": _reuse("bbh"),
    "bool_q_external.csv": _reuse("boolq"),
    "cad_eval_external.csv": _reuse("cadeval"),
    "common_sense_qa_2_external.csv": _reuse("csqa2"),
    "cybench_external.csv": _reuse("cybench"),
    "deepresearchbench_external.csv": _reuse("deepresearch"),
    "fictionlivebench_external.csv": _reuse("fictionlivebench"),
    "gdpval_external.csv": _new(
        "gdpval",
        "Win Rate (%)",
        leaderboard=Leaderboard(
            "GDPval Leaderboard", "https://evals.openai.com/gdpval/leaderboard"
        ),
    ),
    "geobench_external.csv": _reuse(
        "geobench", headline=_keep_only("Tools", {None, "None"}), required=("Tools",)
    ),
    "gsm8k_external.csv": _reuse("gsm8k"),
    "gso_external.csv": FileSpec(
        replace(EXTERNAL["gso_bench"], fraction=True, standard_agent=r"^OpenHands$"),
        date_column="Evaluation date",
        required=("Scaffold",),
    ),
    "hella_swag_external.csv": _reuse("hellaswag"),
    "hle_external.csv": _new(
        "hle",
        "Accuracy",
        leaderboard=Leaderboard(
            "Scale AI HLE Leaderboard", "https://scale.com/leaderboard/humanitys_last_exam"
        ),
    ),
    "lambada_external.csv": _reuse("lambada"),
    "lech_mazur_writing_external.csv": _reuse("lech_mazur_writing", fraction=False),
    "metr_time_horizons_external.csv": _reuse(
        "metr",
        fraction=False,
        required=("METR version",),
        tracks=("METR version", {"METR-Horizon-v1.1": "metr-time-horizon-1.1"}),
    ),
    "mmlu_external.csv": _reuse("mmlu"),
    "open_book_qa_external.csv": _reuse("openbookqa"),
    "os_world_external.csv": _reuse(
        "os_world", fraction=False, date_column="Date added", required=("Agent",)
    ),
    "piqa_external.csv": _reuse("piqa"),
    "posttrainbench_external.csv": _new(
        "posttrainbench",
        "Average (%)",
        leaderboard=Leaderboard("PostTrainBench Leaderboard", "https://posttrainbench.com/"),
        headline=_posttrainbench,
        required=("Scaffold", "Organization"),
    ),
    "science_qa_external.csv": _reuse("scienceqa"),
    "simplebench_external.csv": _reuse("simple_bench"),
    "superglue_external.csv": _reuse("superglue", required=("Name",)),
    "swe_bench_bash.csv": _new(
        "swe-bench-verified-bash-only", "% Resolved", date_column="Date run"
    ),
    "terminalbench_external.csv": FileSpec(
        replace(
            EXTERNAL["terminal_bench"],
            benchmark_id="terminal-bench-2",
            fraction=True,
            standard_agent=TERMINUS_2,
        ),
        date_column="Run date",
        required=("Agent",),
    ),
    "the_agent_company_external.csv": _reuse(
        "the_agent_company", date_column="Date", headline=_agent_company, required=("Name",)
    ),
    "trivia_qa_external.csv": _reuse("triviaqa"),
    "video_mme_external.csv": _reuse("videomme"),
    "vpct_external.csv": _reuse("vpct"),
    "webdev_arena_external.csv": _new(
        "webdev-arena", "Arena Score", fraction=False, date_column="Last updated"
    ),
    "weirdml_external.csv": _reuse("weirdml"),
    "wino_grande_external.csv": _reuse("winogrande"),
}
"""Compiled files: file name -> spec (the 2025-12 spec of the same benchmark where it has one)."""

COMPOSITE_FILES = {"epoch_capabilities_index.csv"}
"""Composite indices of benchmarks counted one by one (``protocols.COMPOSITE``): the Epoch
Capabilities Index (fitted on the other benchmarks), and LiveBench's global average while
``epoch_stitching.COMPOSITES`` names it (the LiveBench importer takes each category)."""
if "livebench" in COMPOSITES:
    COMPOSITE_FILES.add("live_bench_external.csv")
else:
    FILE_SPECS["live_bench_external.csv"] = _reuse("livebench", fraction=False)

RUN_FILES: dict[str, str] = {
    "chess_puzzles.csv": "chess-puzzles",
    "frontiermath.csv": RUN_TASKS["FrontierMath-2025-02-28-Private"],
    "frontiermath_tier_4.csv": RUN_TASKS["FrontierMath-Tier-4-2025-07-01-Private"],
    "gpqa_diamond.csv": RUN_TASKS["GPQA diamond"],
    "math_level_5.csv": RUN_TASKS["MATH level 5"],
    "otis_mock_aime_2024_2025.csv": RUN_TASKS["OTIS Mock AIME 2024-2025"],
    "simpleqa_verified.csv": "simpleqa-verified",
    "swe_bench_verified.csv": RUN_TASKS["SWE-Bench verified"],
}
"""Epoch AI's own runs: file name -> benchmark id (FrontierMath files are the private sets: their
scores equal the 2025-12 export's '-Private' runs, e.g. o3-2025-04-16_high 18.7)."""
