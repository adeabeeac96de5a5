"""Importer for the ARC Prize leaderboard data (``arcprize/``, copied from arcprize.org).

Files (shared/data/SOURCES.md, "ARC Prize leaderboard"): ``evaluations.json`` (one record per
system and dataset: ``datasetId``, ``modelId``, ``score`` as a fraction, ``costPerTask`` or, for
ARC-AGI-3, the total ``cost``, ``display``), ``models.json`` (``id``, ``displayName``,
``modelReleaseDate``, ``providerId``, ``modelType``, ``modelGroup``), ``providers.json`` (id ->
``displayName``), ``datasets.json`` (id -> ``displayName``) and ``leaderboard/v1.json`` ...
``v3.json`` (the site's boards: the same records joined with model and provider names, and
``generatedAt``).

Provenance: ARC Prize runs the semi-private evaluation itself (its harness, its verified
results) -> source kind ``independent`` (arcprize.org is in the provenance table), source name
"ARC Prize", source URL the leaderboard page (every ``resultsUrl`` is empty). The records carry
no date: every score gets the ``generatedAt`` date of its dataset's board file (2026-06-04).

Benchmarks: the semi-private evaluation score per dataset version, in percent (fraction x 100):
``v1_Semi_Private`` -> ``arc-agi`` (the shared id: ARC-AGI-1 semi-private, which Epoch AI and
the labs also report as "ARC-AGI"), ``v2_Semi_Private`` -> ``arc-agi-2`` (ARC-AGI-2
semi-private; its row lives in ``benchmarks/epoch_2026.csv``, whose Epoch AI file carries the
same ARC Prize figures), ``v3_Semi_Private`` -> ``arc-agi-3`` (``benchmarks/arcprize.csv``).
The public evaluation sets are a different protocol (public tasks, so training-set
contamination is possible) and the private set is run only for competition entries: their
records are dropped and counted. Cost per task is not a benchmark
score and is not imported.

Systems (``models.json``): names are kept raw with their effort - ``ModelObs.name`` and
``ScoreObs.model_name`` are the ``modelId`` ("o3-2025-04-16-high", "claude-opus-4-6-thinking-
120K-low", "gpt-5-4-xhigh"), which carries the API snapshot date where ARC Prize records one;
``display_name`` is ``displayName`` ("o3 (High)") without footnote marks. models.json has no
structured effort field, so ``variant`` stays unset. Dropped, one count per record, in this order:

- human baselines (provider "Human": human panel, MTurkers, STEM graduates): not models;
- ARC Prize competition entries (model group "Kaggle"; providers "ARC Prize 2024/2025":
  ARChitects, Icecuber, NVARC): systems built for this one benchmark, not general models;
- "bespoke" models trained only on ARC tasks (HRM, TRM): ``protocols.FINE_TUNED``;
- refinement systems that third parties build on a base model (model type "Refinement":
  Poetiq, J. Berman, E. Pang, Johan Land): ``protocols.SCAFFOLD``;
- parallel test-time compute: a name the protocol rule flags ("Gemini 3 Deep Think") and model
  type "CoT + Synthesis" (many samples reconciled) unless the id is a dated API snapshot, which
  is the file's mark of a released product configuration: o3-pro-2025-06-10 (low / medium /
  high) is kept like the "Pro" products ARC Prize lists as plain CoT (GPT-5 Pro, GPT-5.x Pro),
  while the unreleased "o3-preview-low" is dropped: ``protocols.PARALLEL``;
- records the site hides (``display`` false): not published on the leaderboard;
- a record repeated for the same system and dataset (first kept).

Models: one ``ModelObs`` per system with an imported score: ``organisation`` (the provider's
display name), ``release_date`` (``modelReleaseDate``, date part, as the file states it: ARC
Prize's own field, not always the public release date), ``display_name``. An id listed twice in
models.json keeps its first entry (counted). A file that is missing or not valid JSON, a record
without its keys, a score that is not a number and a record naming an unknown system, dataset
or provider raise IngestError naming the file and the record.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest import protocols, provenance
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    read_source_json,
)

SOURCE = "arcprize"
SOURCE_URL = "https://arcprize.org/leaderboard"
SOURCE_NAME = "ARC Prize"
HEADLINE = {
    "v1_Semi_Private": "arc-agi",
    "v2_Semi_Private": "arc-agi-2",
    "v3_Semi_Private": "arc-agi-3",
}
"""ARC Prize dataset id -> benchmark_id of the semi-private (headline) evaluation."""

HUMAN = "not a model: human baseline"
COMPETITION = "not a general model: ARC Prize competition (Kaggle) entry"
DATED_SYSTEMS = (None, protocols.PARALLEL)
"""Systems whose release day is read although no score of theirs is: a maker's model (its results
set aside by dataset, e.g. only public-set runs) or a maker's system run with parallel test-time
compute (o3-preview, Deep Think). A human baseline, a competition entry, a task fine-tune or a
third party's scaffold over a model is no maker's model: its facts are not read."""
PUBLIC_SET = "public evaluation set: a different protocol (public tasks, contamination risk)"
PRIVATE_SET = "private evaluation set: run for competition entries only"
OTHER_SET = "dataset not imported"
HIDDEN = "hidden on the ARC Prize leaderboard (display false)"
REPEATED = "same system and dataset listed twice (first kept)"
MODEL_REPEATED = "models.json lists the id twice (first kept)"

EVALUATION_KEYS = ("datasetId", "modelId", "score", "display")
MODEL_KEYS = ("id", "displayName", "modelReleaseDate", "providerId", "modelType", "modelGroup")
_DATED_ID = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(T|$)")
_FOOTNOTE = re.compile(r"\s*[*¹²³⁴⁵]+$")


def _records(path: Path, keys: tuple[str, ...]) -> list[dict]:
    """A JSON list of objects, each with ``keys``; IngestError naming the file and record."""
    if not path.is_file():
        raise IngestError(f"{path}: file missing; copy it from the ARC Prize data folder")
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of records; restore the file")
    for index, item in enumerate(data):
        missing = [k for k in keys if not isinstance(item, dict) or k not in item]
        if missing:
            raise IngestError(f"{path}: record {index} lacks {missing}; expected keys {list(keys)}")
    return data


def _by_id(path: Path, keys: tuple[str, ...], drops: Drops | None = None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for item in _records(path, keys):
        if item["id"] in out:
            if drops is not None:
                drops.add(SOURCE, MODEL_REPEATED)
            continue
        out[item["id"]] = item
    return out


def board_dates(folder: Path) -> dict[str, str]:
    """Dataset id -> the ``generatedAt`` date (YYYY-MM-DD) of its leaderboard file."""
    dates: dict[str, str] = {}
    for path in sorted(folder.glob("*.json")):
        board = read_source_json(path)
        generated = (
            _ISO_DATE.match(str(board.get("generatedAt", ""))) if isinstance(board, dict) else None
        )
        datasets = board.get("datasets") if isinstance(board, dict) else None
        if generated is None or not isinstance(datasets, list):
            raise IngestError(
                f"{path}: expected {{generatedAt: ISO time, datasets: [...]}}; restore the file"
            )
        for dataset in datasets:
            dates[str(dataset.get("id"))] = generated.group(1)
    return dates


def dataset_drop_reason(dataset_id: str) -> str | None:
    """Why a dataset's records are not imported (None for a headline dataset)."""
    if dataset_id in HEADLINE:
        return None
    if "_Public_" in dataset_id:
        return PUBLIC_SET
    if "_Private_" in dataset_id:
        return PRIVATE_SET
    return OTHER_SET


def system_drop_reason(model: dict) -> str | None:
    """Why a system is not a model scored the standard way (None for a headline system)."""
    provider = str(model["providerId"] or "")
    kind = str(model["modelType"] or "")
    if provider == "Human" or model["modelGroup"] == "Human":
        return HUMAN
    if model["modelGroup"] == "Kaggle" or provider.startswith("ARC Prize"):
        return COMPETITION
    if provider == "bespoke":
        return protocols.FINE_TUNED
    if kind == "Refinement":
        return protocols.SCAFFOLD
    described = protocols.method_drop_reason(f"{model['displayName']} {model.get('notes') or ''}")
    if described:
        return described
    if "Synthesis" in kind and not _DATED_ID.search(str(model["id"])):
        return protocols.PARALLEL
    return None


def display_name(model: dict) -> str | None:
    """``displayName`` without a trailing footnote mark ('o3 (Preview, Low) ¹' -> 'o3 (...)')."""
    text = clean_text(model["displayName"])
    return _FOOTNOTE.sub("", text) if text else None


def _model_obs(model: dict, providers: dict[str, dict]) -> ModelObs:
    released = _ISO_DATE.match(str(model["modelReleaseDate"] or ""))
    return ModelObs(
        name=str(model["id"]),
        source=SOURCE,
        organisation=clean_text(providers[model["providerId"]]["displayName"]),
        release_date=released.group(1) if released else None,
        display_name=display_name(model),
    )


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """Semi-private scores of the model entries; every other record is counted."""
    evaluations_path = root / "evaluations.json"
    evaluations = _records(evaluations_path, EVALUATION_KEYS)
    model_table = _by_id(root / "models.json", MODEL_KEYS, drops)
    providers = _by_id(root / "providers.json", ("id", "displayName"))
    datasets = _by_id(root / "datasets.json", ("id", "displayName"))
    dates = board_dates(root / "leaderboard")
    kind = provenance.source_kind(SOURCE_URL, SOURCE_NAME)
    models: dict[str, ModelObs] = {}
    scores: list[ScoreObs] = []
    seen: set[tuple[str, str]] = set()
    for index, record in enumerate(evaluations):
        where = f"{evaluations_path}: record {index} ({record['modelId']}, {record['datasetId']})"
        dataset_id, model_id, value = record["datasetId"], record["modelId"], record["score"]
        if dataset_id not in datasets:
            raise IngestError(f"{where}: dataset not in datasets.json; restore the files")
        if model_id not in model_table:
            raise IngestError(f"{where}: system not in models.json; restore the files")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise IngestError(f"{where}: score {value!r} is not a number; expected a fraction")
        model = model_table[model_id]
        reason = dataset_drop_reason(dataset_id) or system_drop_reason(model)
        if reason is None and record["display"] is not True:
            reason = HIDDEN
        if reason is None and (model_id, dataset_id) in seen:
            reason = REPEATED
        if reason:
            drops.add(SOURCE, reason)
            continue
        if model["providerId"] not in providers:
            raise IngestError(
                f"{where}: provider {model['providerId']!r} not in providers.json; restore it"
            )
        seen.add((model_id, dataset_id))
        models.setdefault(model_id, _model_obs(model, providers))
        scores.append(
            ScoreObs(
                model_name=str(model_id),
                benchmark_id=HEADLINE[dataset_id],
                score=round(float(value) * 100.0, 4),
                source_kind=kind,
                source_name=SOURCE_NAME,
                source_url=SOURCE_URL,
                date=dates.get(dataset_id),
                origin=SOURCE,
            )
        )
    for model_id, model in model_table.items():
        # a system whose scores are set aside (another protocol) still states its release day,
        # evidence that it is not the later model of its name (o3-preview, 2024-12-20)
        if model_id not in models and model["providerId"] in providers and (
                system_drop_reason(model) in DATED_SYSTEMS):
            models[model_id] = _model_obs(model, providers)
    return list(models.values()), scores
