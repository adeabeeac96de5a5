"""Importer for LLM Stats model files: ``llmstats/models/<org>/<model>/model.json``.

Provenance comes from each score's ``source_link`` through the source-kind rule; the file's
``is_self_reported`` flag is ignored (it is unreliable, per shared/data/SOURCES.md).
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest import protocols, provenance
from analytics.llm.ingest.benchmarks import (
    all_benchmarks,
    benchmark_for_name,
    from_fraction_or_percent,
)
from analytics.llm.ingest.common import (
    Drops,
    IngestError,
    ModelObs,
    ScoreObs,
    clean_text,
    read_source_json,
)
from analytics.llm.ingest.organisations import canonical_org

SOURCE = "llmstats"
CLOSED_LICENCES = {"proprietary"}


def read_model_file(path: Path) -> dict:
    """Parsed model.json, or IngestError naming the file."""
    data = read_source_json(path)
    if not isinstance(data, dict) or "name" not in data:
        raise IngestError(f"{path}: missing 'name'; expected an LLM Stats model object")
    return data


def model_obs(path: Path, data: dict) -> ModelObs:
    """Metadata one model.json states about its model (id = the folder name)."""
    licence = clean_text(data.get("license"))
    weights = clean_text(data.get("weights_link"))
    params = data.get("param_count")
    open_weights = True if weights else (
        None if licence is None else licence.lower() not in CLOSED_LICENCES
    )  # neither a weights link nor a licence says nothing: unknown, not closed
    return ModelObs(
        name=path.parent.name,
        source=SOURCE,
        organisation=canonical_org(path.parent.parent.name),
        release_date=clean_text(data.get("release_date")),
        total_params_b=float(params) / 1e9 if isinstance(params, int | float) and params else None,
        open_weights=open_weights,
        licence_raw=licence,
        hf_id=_hf_id(weights),
        display_name=clean_text(data.get("name")),
        context_length=data.get("input_context_size")
        if isinstance(data.get("input_context_size"), int)
        else None,
    )


def _hf_id(link: str | None) -> str | None:
    if link and "huggingface.co/" in link:
        parts = link.split("huggingface.co/", 1)[1].strip("/").split("/")
        return "/".join(parts[:2]) if len(parts) >= 2 else None
    return None


def score_obs(path: Path, data: dict, drops: Drops) -> list[ScoreObs]:
    """Scores of one model.json, converted to each benchmark's unit; skips are counted."""
    table = all_benchmarks()
    out: list[ScoreObs] = []
    for metric in data.get("qualitative_metrics") or []:
        bench_id = benchmark_for_name(str(metric.get("dataset_name", "")))
        url = clean_text(metric.get("source_link"))
        value = metric.get("score")
        if bench_id is None:
            drops.add(SOURCE, "dataset not in the curated benchmark table")
            continue
        if provenance.is_placeholder_url(url):
            drops.add(SOURCE, "placeholder or missing source_link (e.g. example.com)")
            continue
        if not isinstance(value, int | float):
            drops.add(SOURCE, "score is not a number")
            continue
        method = clean_text(metric.get("analysis_method"))
        reason = protocols.method_drop_reason(method)
        if reason:
            drops.add(SOURCE, reason)
            continue
        score, _ = from_fraction_or_percent(float(value), table[bench_id].unit)
        out.append(
            ScoreObs(
                model_name=path.parent.name,
                benchmark_id=bench_id,
                score=score,
                source_kind=provenance.source_kind(url),
                source_name=f"LLM Stats: {_host(url)}",
                source_url=url,
                date=clean_text(metric.get("date_recorded")),
                origin=SOURCE,
                method=method,
                variant=protocols.stated_variant(method),
            )
        )
    return out


def _host(url: str) -> str:
    return url.split("//", 1)[-1].split("/", 1)[0].removeprefix("www.")


def load(root: Path, drops: Drops) -> tuple[list[ModelObs], list[ScoreObs]]:
    """All models and scores under ``root/models``; IngestError if the folder is missing."""
    files = sorted((root / "models").glob("*/*/model.json"))
    if not files:
        raise IngestError(f"{root}/models: no */*/model.json files; point --shared at shared/data")
    models, scores = [], []
    for path in files:
        data = read_model_file(path)
        models.append(model_obs(path, data))
        scores.extend(score_obs(path, data, drops))
    return models, scores
