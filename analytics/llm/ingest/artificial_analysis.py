"""Importer for Artificial Analysis leaderboard snapshots: ``artificial-analysis/<day>/llms.json``.

Each snapshot is ``{"meta": {...}, "models": [...]}`` (the page payload of
artificialanalysis.ai/leaderboards/models, one file per day; shared/data/SOURCES.md). Artificial
Analysis runs every evaluation itself, so every score is ``independent``, published by
"Artificial Analysis" with the model's page ``https://artificialanalysis.ai/models/<slug>`` (the
slug of the snapshot the value comes from) as its link and that snapshot's day as its date.

Models are keyed by AA's ``id`` (a uuid, stable across days; names and slugs are not: the name of
a model is its newest one). For every model and evaluation the value comes from the NEWEST
snapshot where it is non-null, so a model missing from later days keeps its last values; drop
rules are applied to that one value. Fractions (0-1) become percent; ``aa_omniscience`` is
published on its own -100..100 scale and kept as is.

Benchmarks: ``gpqa`` (GPQA Diamond, 198 questions), ``hle`` (AA runs the 2,158 text-only
questions), ``mmmu-pro`` are the shared ids; the rest are in ``benchmarks/artificial_analysis.csv``:
SciCode is scored per sub-problem (288), so it is ``scicode-subproblem``, not the paper's
main-problem rate; ``tau2_bench`` is AA's run of tau2-bench Telecom (114 tasks) and
``terminal_bench_hard`` AA's 44-task hard subset of Terminal-Bench, hence ``aa-*`` ids, likewise
AA's own APEX-Agents run. GDPval-AA is an Elo clamped to 0-1 as (Elo - 500) / 2000; AA re-rated
it as GDPval-AA v2 (Intelligence Index v4.1, announced 2026-06-16, first seen in the 2026-07-01
snapshot; Elo re-baselined to human performance = 1000), so values from snapshots before
2026-07-01 go to ``gdpval-aa-v1`` and later ones to ``gdpval-aa-v2``: the two are never mixed.

Dropped, each counted once per model and value:
- the Intelligence, Coding and Agentic indices (``protocols.COMPOSITE``): weighted averages of the
  evaluations imported one by one; ``protocols.ESTIMATED`` instead when the index's
  ``*_is_estimated`` flag is true. No index value is imported, so none is compared across the
  Intelligence Index rescale between 2026-06-01 and 2026-07-01. Any other evaluation whose
  ``<key>_is_estimated`` flag is true is dropped as ``protocols.ESTIMATED`` too (no such flag exists
  in the 2026 files).
- scores of models whose name says parallel test-time compute (``Gemini 3 Deep Think``:
  ``protocols.method_drop_reason``).
- a 0 that AA set without running the evaluation: the model has token counts for other
  evaluations but none for this one (e.g. AA-LCR for models whose context window is under the
  ~100k-token documents, tau2-bench for models without tool calling). A 0 with token counts is a
  real result and kept (CritPt, Terminal-Bench Hard); so is a 0 for a model without any token
  counts (nothing to tell them apart).
- ``aa_omniscience_non_hallucination`` (a component of the AA-Omniscience Index, which is
  imported) and any evaluation key this module does not know.

Model metadata (newest non-null per field): name and display name = AA's ``name`` (efforts stay in
it: "GPT-5 (high)", "Claude Opus 4.6 (Adaptive Reasoning, Max Effort)"; AA has no separate effort
field, so ``variant`` stays None), organisation = ``creator.name``, release date, total / active
parameters (billions), open weights, licence name, ``hf_id`` from a huggingface.co weights link,
context window. ``is_moe`` is left unknown: active < total also holds for dense models with
per-layer embeddings (Gemma 3n). Prices (USD per 1M input / output tokens) come from the newest
snapshot with a positive pair, dated that day; a price of 0 is a free or promotional endpoint
(AA gives it no price class, and the same model flips between 0 and a paid price across days), so
it is read as unknown, not as free, and counted. Deprecated models keep their scores: a historical
result is still a result. Speeds and per-domain breakdowns are not imported.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from analytics.llm.ingest import protocols
from analytics.llm.ingest.benchmarks import all_benchmarks
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    read_source_json,
)

SOURCE = "artificial-analysis"
SOURCE_NAME = "Artificial Analysis"
SITE = "https://artificialanalysis.ai"
LEADERBOARD_URL = f"{SITE}/leaderboards/models"
FILE_NAME = "llms.json"
GDPVAL_V2_FROM = "2026-07-01"
"""First snapshot of GDPval-AA v2 (AA Intelligence Index v4.1, announced 2026-06-16)."""


@dataclass(frozen=True)
class Evaluation:
    """One ``evaluations`` key imported as one benchmark (optionally only from some days)."""

    key: str
    benchmark_id: str
    scale: float
    token_key: str | None
    since: str | None = None
    until: str | None = None

    def covers(self, day: str) -> bool:
        return (self.since is None or day >= self.since) and (
            self.until is None or day < self.until
        )


EVALUATIONS = (
    Evaluation("gpqa", "gpqa", 100.0, "gpqa"),
    Evaluation("hle", "hle", 100.0, "hle"),
    Evaluation("scicode", "scicode-subproblem", 100.0, "scicode"),
    Evaluation("ifbench", "ifbench", 100.0, "ifbench"),
    Evaluation("aa_lcr", "aa-lcr", 100.0, "lcr"),
    Evaluation("tau2_bench", "aa-tau2-bench-telecom", 100.0, "tau2"),
    Evaluation("terminal_bench_hard", "aa-terminal-bench-hard", 100.0, "terminalbenchHard"),
    Evaluation("critpt", "critpt", 100.0, "critpt"),
    Evaluation("mmmu_pro", "mmmu-pro", 100.0, "mmmuPro"),
    Evaluation("apex_agents", "aa-apex-agents", 100.0, None),
    Evaluation("gdpval_aa_normalized", "gdpval-aa-v1", 100.0, "gdpval", until=GDPVAL_V2_FROM),
    Evaluation("gdpval_aa_normalized", "gdpval-aa-v2", 100.0, "gdpval", since=GDPVAL_V2_FROM),
    Evaluation("aa_omniscience_accuracy", "aa-omniscience-accuracy", 100.0, "omniscience"),
    Evaluation("aa_omniscience", "aa-omniscience", 1.0, "omniscience"),
)
INDICES = (
    "artificial_analysis_intelligence_index",
    "artificial_analysis_coding_index",
    "artificial_analysis_agentic_index",
)
NOT_IMPORTED = {
    "aa_omniscience_non_hallucination": (
        "aa_omniscience_non_hallucination: a component of the AA-Omniscience Index (imported)"
    ),
}
ZERO_NOT_RUN = "0 set without a run (no token counts for that evaluation, e.g. context too short)"
PRICE_ZERO = "price 0 (free or promotional endpoint): price left unknown"
PRICE_ZERO_OLDER = "newest price 0 (free or promotional endpoint): older list price kept"
NAME_SHARED = "name shared with a more recently listed model (uuid): this model dropped"
DUPLICATE_ID = "model id listed twice in one snapshot (first kept)"
KNOWN_KEYS = {e.key for e in EVALUATIONS} | set(INDICES) | set(NOT_IMPORTED)

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_HF = re.compile(r"^https?://(?:www\.)?huggingface\.co/([^/\s]+)/([^/\s?#]+)")
_SECTIONS = ("evaluations", "pricing", "capabilities", "open_weights", "creator", "breakdowns")

Record = tuple[str, dict]
"""(snapshot day, one model object of that day)."""


def snapshot_files(root: Path) -> list[tuple[str, Path]]:
    """(day, path) of every ``<YYYY-MM-DD>/llms.json`` under ``root``, oldest first."""
    found = sorted(
        (p.parent.name, p) for p in root.glob(f"*/{FILE_NAME}") if _DAY.match(p.parent.name)
    )
    if not found:
        raise IngestError(
            f"{root}: no <YYYY-MM-DD>/{FILE_NAME} snapshots; point --shared at shared/data"
        )
    return found


def read_snapshot(path: Path) -> list[dict]:
    """The ``models`` list of one snapshot, type-checked; IngestError naming file, model and key."""
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise IngestError(
            f"{path}: expected an object with a 'models' list; restore the file from its source"
        )
    for index, model in enumerate(data["models"]):
        _check_model(path, index, model)
    return data["models"]


def _check_model(path: Path, index: int, model: object) -> None:
    where = f"{path}: models[{index}]"
    if not isinstance(model, dict):
        raise IngestError(f"{where}: not an object; restore the file from its source")
    for key in ("id", "name"):
        if not isinstance(model.get(key), str) or not model[key].strip():
            raise IngestError(f"{where}: '{key}' missing or not a string; restore the file")
    where = f"{path}: model {model['id']} ({model['name']})"
    for section in _SECTIONS:
        if model.get(section) is not None and not isinstance(model[section], dict):
            raise IngestError(f"{where}: '{section}' is not an object; restore the file")
    for key, value in (model.get("evaluations") or {}).items():
        if key.endswith("_is_estimated"):
            if value is not None and not isinstance(value, bool):
                raise IngestError(f"{where}: evaluations.{key} is not true/false; restore the file")
        elif not _is_number_or_null(value):
            raise IngestError(
                f"{where}: evaluations.{key} = {value!r} is not a number or null; restore the file"
            )
    for section, keys in (
        ("pricing", ("price_1m_input_tokens", "price_1m_output_tokens")),
        ("capabilities", ("context_window_tokens", "total_parameters", "active_parameters")),
    ):
        for key in keys:
            value = (model.get(section) or {}).get(key)
            if not _is_number_or_null(value) or (value is not None and value < 0):
                raise IngestError(
                    f"{where}: {section}.{key} = {value!r} is not a non-negative number or null; "
                    "restore the file"
                )


def _is_number_or_null(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def model_histories(root: Path, drops: Drops) -> dict[str, list[Record]]:
    """uuid -> that model's records, oldest snapshot first (each file parsed once)."""
    histories: dict[str, list[Record]] = {}
    for day, path in snapshot_files(root):
        seen: set[str] = set()
        for model in read_snapshot(path):
            if model["id"] in seen:
                drops.add(SOURCE, DUPLICATE_ID)
                continue
            seen.add(model["id"])
            histories.setdefault(model["id"], []).append((day, model))
    return histories


def _section(model: dict, name: str) -> dict:
    return model.get(name) or {}


def _newest(records: list[Record], get) -> object:
    """The newest non-null value ``get(model)`` takes across the records."""
    for _, model in reversed(records):
        value = get(model)
        if value is not None:
            return value
    return None


def _page_url(model: dict) -> str:
    slug = model.get("slug")
    if isinstance(slug, str) and _SLUG.match(slug):
        return f"{SITE}/models/{slug}"
    return LEADERBOARD_URL


def hf_id(url: str | None) -> str | None:
    """``org/repo`` of a huggingface.co model link; None for other hosts (e.g. GitHub)."""
    match = _HF.match(url or "")
    return f"{match.group(1)}/{match.group(2)}" if match else None


def _iso_day(value: object) -> str | None:
    text = clean_text(value)
    return text if text and _DAY.match(text) else None


def _billions(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def model_obs(records: list[Record], drops: Drops) -> ModelObs:
    """What AA states about one model: newest non-null value per field; prices as documented."""
    day, latest = records[-1]
    name = latest["name"].strip()
    context = _newest(records, lambda m: _section(m, "capabilities").get("context_window_tokens"))
    obs = ModelObs(
        name=name,
        source=SOURCE,
        display_name=name,
        organisation=clean_text(_newest(records, lambda m: _section(m, "creator").get("name"))),
        release_date=_newest(records, lambda m: _iso_day(m.get("release_date"))),
        total_params_b=_newest(
            records, lambda m: _billions(_section(m, "capabilities").get("total_parameters"))
        ),
        active_params_b=_newest(
            records, lambda m: _billions(_section(m, "capabilities").get("active_parameters"))
        ),
        open_weights=_newest(
            records,
            lambda m: (
                v
                if isinstance(v := _section(m, "open_weights").get("is_open_weights"), bool)
                else None
            ),
        ),
        licence_raw=_newest(
            records, lambda m: clean_text(_section(m, "open_weights").get("license_name"))
        ),
        hf_id=_newest(records, lambda m: hf_id(_section(m, "open_weights").get("huggingface_url"))),
        context_length=int(context) if context else None,
        metadata_source_url=_page_url(latest),
    )
    _set_price(obs, records, drops)
    return obs


def _set_price(obs: ModelObs, records: list[Record], drops: Drops) -> None:
    saw_zero = False
    for day, model in reversed(records):
        pricing = _section(model, "pricing")
        price_in = pricing.get("price_1m_input_tokens")
        price_out = pricing.get("price_1m_output_tokens")
        if price_in is None and price_out is None:
            continue
        if price_in and price_out:
            obs.usd_per_mtok_input, obs.usd_per_mtok_output = float(price_in), float(price_out)
            obs.price_source_url, obs.price_date = _page_url(model), day
            if saw_zero:
                drops.add(SOURCE, PRICE_ZERO_OLDER)
            return
        saw_zero = True
    if saw_zero:
        drops.add(SOURCE, PRICE_ZERO)


def _flagged(evaluations: dict, key: str) -> bool:
    return evaluations.get(f"{key}_is_estimated") is True


def _not_run(model: dict, token_key: str | None) -> bool:
    """True when AA lists token counts for this model but none for the evaluation."""
    tokens = _section(model, "breakdowns").get("eval_token_counts")
    return bool(token_key) and isinstance(tokens, dict) and bool(tokens) and token_key not in tokens


def score_obs(name: str, records: list[Record], drops: Drops) -> list[ScoreObs]:
    """One score per imported evaluation (its newest non-null value); every skip is counted."""
    table = all_benchmarks()
    parallel = protocols.method_drop_reason(name)
    out: list[ScoreObs] = []
    for spec in EVALUATIONS:
        found = next(
            (
                (day, model)
                for day, model in reversed(records)
                if spec.covers(day) and _section(model, "evaluations").get(spec.key) is not None
            ),
            None,
        )
        if found is None:
            continue
        day, model = found
        evaluations = model["evaluations"]
        value = float(evaluations[spec.key])
        bench = table[spec.benchmark_id]
        score = value * spec.scale
        if _flagged(evaluations, spec.key):
            drops.add(SOURCE, protocols.ESTIMATED)
        elif parallel:
            drops.add(SOURCE, parallel)
        elif value == 0 and _not_run(model, spec.token_key):
            drops.add(SOURCE, ZERO_NOT_RUN)
        elif not bench.in_bounds(score):
            bounds = f"[{bench.lower_bound:g}, {bench.upper_bound:g}]"
            drops.add(SOURCE, f"score outside {bounds} of {bench.benchmark_id}")
        else:
            out.append(
                ScoreObs(
                    model_name=name,
                    benchmark_id=spec.benchmark_id,
                    score=round(score, 6),
                    source_kind="independent",
                    source_name=SOURCE_NAME,
                    source_url=_page_url(model),
                    date=day,
                    origin=SOURCE,
                )
            )
    _count_unimported(records, drops)
    return out


def _count_unimported(records: list[Record], drops: Drops) -> None:
    """Indices, known-but-skipped and unknown evaluation keys: one drop per model and key."""
    keys = {
        key
        for _, model in records
        for key, value in _section(model, "evaluations").items()
        if value is not None and not key.endswith("_is_estimated")
    }
    for key in sorted(keys):
        if key in INDICES:
            newest = next(
                _section(m, "evaluations")
                for _, m in reversed(records)
                if _section(m, "evaluations").get(key) is not None
            )
            flagged = _flagged(newest, key)
            drops.add(SOURCE, protocols.ESTIMATED if flagged else protocols.COMPOSITE)
        elif key in NOT_IMPORTED:
            drops.add(SOURCE, NOT_IMPORTED[key])
        elif key not in KNOWN_KEYS:
            drops.add(SOURCE, f"evaluation {key!r} not mapped to a benchmark")


def _keep_one_per_name(histories: dict[str, list[Record]], drops: Drops) -> list[list[Record]]:
    """Histories whose newest name is unique; on a clash the most recently listed model wins."""
    by_name: dict[str, list[Record]] = {}
    for records in histories.values():
        name = records[-1][1]["name"].strip()
        kept = by_name.get(name)
        if kept is None or records[-1][0] > kept[-1][0]:
            by_name[name] = records
        if kept is not None:
            drops.add(SOURCE, NAME_SHARED)
    return list(by_name.values())


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Every model (by uuid) and its scores across all snapshots under ``root``."""
    models: list[ModelObs] = []
    scores: list[ScoreObs] = []
    for records in _keep_one_per_name(model_histories(root, drops), drops):
        obs = model_obs(records, drops)
        models.append(obs)
        scores.extend(score_obs(obs.name, records, drops))
    return models, scores
