"""The fine-tune planner's version-level inputs, precomputed once per snapshot version into
``data/derived/<version>/``, so a page's first render does not redo per-version work.

Three tables depend on the snapshot alone, not on any choice a visitor makes:

- the model options, one per checkpoint, with the default model marked
  (``finetune_view.planner_models`` of the catalog's models, scores and unbootstrapped ratings);
- every model's quality-axis values (``quality.axis_values``);
- the catalog model each measured fine-tune memory row refers to
  (``finetune_view.measured_model_ids``: every model's names and aliases, matched).

Each file's name carries a short hash of the code that computes it (:data:`SOURCES`;
:data:`TABLES`, a ``derived.TableSet``), so a changed computation never serves an old file: it
finds no file under its new name, computes and stores one (atomically). ``python -m analytics
derive`` writes them for the current snapshot (the committed ones), and a test fails when they
are missing for the current code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from analytics.core import derived
from analytics.llm import catalog as cat
from analytics.llm import finetune_view, quality, ratings

SOURCES = (
    *cat.SOURCES,
    "analytics/llm/checkpoints.py",
    *ratings.ELO_SOURCES,
    "analytics/llm/finetune.py",
    "analytics/llm/finetune_view.py",
    "analytics/llm/planner_inputs.py",
    "analytics/llm/profiles.py",
    "analytics/llm/quality.py",
    "analytics/llm/ratings.py",
    *ratings.VIEW_SOURCES,  # which view of an evaluation is rated (ratings.load_scores)
)
"""Every module the tables' computation runs (a test checks this list against the imports of
``finetune_view`` and ``quality``, transitively)."""
NAMES = ("planner_models", "axis_values", "measured_models")
DEFAULT_COLUMN = "is_default"  # the model options' column marking the default model


TABLES = derived.TableSet(NAMES, SOURCES, "planner")


def _cached(version: str, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The stored table of ``name``, or ``compute()``'s, stored (``derived.cached_table``)."""
    return derived.cached_table(TABLES.path(version, name), compute)


def model_options(
    version: str, catalog: Callable[[], cat.Catalog], rated: Callable[[], pd.DataFrame]
) -> tuple[pd.DataFrame, str | None]:
    """``finetune_view.planner_models`` of ``version`` (the options, the default model id or
    None); ``catalog`` and ``rated`` (``ratings.of_version``) are read only when not stored."""

    def compute() -> pd.DataFrame:
        tables = catalog()
        choices, default = finetune_view.planner_models(tables.models, tables.scores, rated())
        return choices.assign(**{DEFAULT_COLUMN: choices["model_id"].eq(default)})

    table = _cached(version, "planner_models", compute)
    marked = table.loc[table[DEFAULT_COLUMN], "model_id"]
    choices = table.drop(columns=DEFAULT_COLUMN)
    return choices, (str(marked.iloc[0]) if not marked.empty else None)


def axis_values(version: str, catalog: Callable[[], cat.Catalog]) -> pd.DataFrame:
    """``quality.axis_values`` of ``version``'s scores (``catalog`` read only when not stored)."""

    def compute() -> pd.DataFrame:
        tables = catalog()
        return quality.axis_values(tables.scores, tables.benchmarks)

    return _cached(version, "axis_values", compute)


def measured_ids(version: str, catalog: Callable[[], cat.Catalog]) -> list[str | None]:
    """``finetune_view.measured_model_ids`` of ``version`` (``catalog`` read only when not
    stored), one entry per ``finetune_memory`` row, in order."""

    def compute() -> pd.DataFrame:
        ids = finetune_view.measured_model_ids(catalog())
        return pd.DataFrame({"model_id": pd.Series(ids, dtype=object)})

    ids = _cached(version, "measured_models", compute)["model_id"]
    return [None if pd.isna(i) else str(i) for i in ids]


def derive(version: str) -> list[Path]:
    """The tables of ``version`` for the current code (a missing or damaged one recomputed),
    then older files (other code hashes) removed: a reader always finds a file. Nothing is read
    when every table is current and intact."""
    def write() -> None:
        tables = cat.of_version(version)
        model_options(version, lambda: tables, lambda: ratings.of_version(version))
        axis_values(version, lambda: tables)
        measured_ids(version, lambda: tables)

    return TABLES.refresh(version, write)


