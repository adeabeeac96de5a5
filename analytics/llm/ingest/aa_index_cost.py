"""What it cost Artificial Analysis to run its Intelligence Index on a model: rows for the
``api_index_cost`` table.

An API's list price per million tokens says nothing of how many tokens a model spends: a
high-effort variant may spend many times the tokens of its sibling at the same price. AA states,
per model variant, what running every evaluation of its Intelligence Index cost it in USD,
``pricing.intelligence_index_cost_total`` of its own leaderboard payload
``artificial-analysis/<day>/llms.json`` (also split into ``_input``, ``_output``, ``_reasoning``
and ``_answer``; only the total is imported). The newest such file is read (2026-08-22 in the
shared data); the llmval copy of 2026-10-03 (``aa_api_speed``) has no cost field, so no figure
is newer. Older files are not read either: a cost is that of the index as AA composed it and
priced it on that day, and both move (Intelligence Index v4.1 first appears in the 2026-07-01
file, ``artificial_analysis``; of the 64 models both the July and the August file cost, 40
differ by over 1 %), so a figure is shown only with the day of the one file it comes from.

A row: ``model_name`` = AA's slug, ``name`` = AA's display name (both for the resolver),
``index_cost_usd`` (> 0), ``measured_on`` = the file's fetch day (``meta.fetched_at``, else the
folder's day), ``source_name`` :data:`SOURCE_NAME`, ``source_url`` = AA's model page (built as
the AA importer builds it). Dropped and counted: a null cost (:data:`NOT_PUBLISHED`), a cost of
0 (:data:`COST_ZERO`: AA lists those models at a price of 0, a free or promotional endpoint, so
the 0 is no measured cost; read as unknown, as the AA importer reads a price of 0), a model
without a usable slug, a repeated slug. A cost that is not a non-negative number makes the file
unusable (IngestError naming the file and the model).
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest.aa_api_speed import _number, first_party_rows
from analytics.llm.ingest.common import Drops

SOURCE = "artificial-analysis-index-cost"
SOURCE_NAME = "Artificial Analysis (cost to run its Intelligence Index)"
COST_KEY = "intelligence_index_cost_total"
NOT_PUBLISHED = "no cost to run the Intelligence Index published"
COST_ZERO = "index cost 0 (listed at a price of 0, a free or promotional endpoint): left unknown"


def _cost_figures(path: Path, model: dict) -> dict | str:
    """The row's figures, or why the model has none."""
    pricing = model.get("pricing") or {}  # a non-object section was refused when the file was read
    where = f"model {model['id']} ({model['name']})"
    cost_usd = _number(path, where, f"pricing.{COST_KEY}", pricing.get(COST_KEY))
    if cost_usd is None:
        return NOT_PUBLISHED
    if cost_usd == 0:
        return COST_ZERO
    return {"index_cost_usd": cost_usd, "source_name": SOURCE_NAME}


def load(folder: Path, drops: Drops) -> list[dict]:
    """One row per model of AA's ``llms.json`` in ``folder`` with a cost to run its
    Intelligence Index, in file order; every model without one is counted."""
    return first_party_rows(folder, drops, SOURCE, _cost_figures)
