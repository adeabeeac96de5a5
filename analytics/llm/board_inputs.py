"""The leaderboard's version-level tables besides its ratings, precomputed once per snapshot
version into ``data/derived/<version>/``, so a page's first render reads them instead of
computing them:

- ``lineage``: every model's predecessor (``lineage.predecessors``, seed 002 "Movers &
  lineage"), behind the movers page and each model's family;
- ``profiles``: every model's category capability profile (``profiles.category_profiles`` of the
  headline scores), behind the compare radar, the model page and the category view;
- from the served ratings (:data:`RATED`, derived after them): the ranked table, every score
  with its headline flags and the API facts, which every leaderboard page's first render would
  otherwise rebuild from the scores and three more tables (about a third of a CPU-second).

Stored as ``analytics.core.derived`` stores every such table (:data:`TABLES`, a
``derived.TableSet``): file names carry a short hash of the code computing them
(:data:`SOURCES`), so changed code never serves an old file. The
leaderboard (``leaderboard.build``) reads them through :func:`lineage_of` and
:func:`profiles_of`; ``python -m analytics derive`` writes them for the current snapshot (the
committed ones), and a test fails when they are missing for the current code.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from analytics.core import derived
from analytics.llm import lineage, profiles, ratings

SOURCES = (
    "analytics/core/db.py",
    "analytics/core/hashing.py",  # the snapshot check db.connect runs
    "analytics/core/problems.py",  # the elo package raises a Problem
    "analytics/core/schema.py",
    "analytics/llm/board_inputs.py",
    *ratings.ELO_SOURCES,  # the headline pick (elo.headline_scores)
    "analytics/llm/leaderboard.py",  # the models and benchmarks tables it reads
    "analytics/llm/lineage.py",
    "analytics/llm/profiles.py",
    "analytics/llm/ratings.py",
    *ratings.VIEW_SOURCES,  # which view of an evaluation is rated (ratings.load_scores)
)
"""Every module the tables' computation runs (a test checks this list against the imports of
this module, transitively, and for the leaderboard module that reads their inputs)."""
NAMES = ("lineage", "profiles")
TABLES = derived.TableSet(NAMES, SOURCES, "leaderboard")
RATED_SOURCES = (
    *SOURCES,
    "analytics/core/licences.py",  # each row's licence class
    "analytics/llm/api_facts.py",  # imported by the leaderboard module, as are the next ones
    "analytics/llm/catalog.py",
    "analytics/llm/fit.py",
    "analytics/llm/hardware.py",
    "analytics/llm/ingest/__init__.py",
    "analytics/llm/ingest/roofline.py",
)
"""Every module the leaderboard's own tables are computed with (a test checks this list against
the leaderboard module's imports, transitively)."""
RATED_NAMES = ("board", "flagged_scores", "api")
RATED = derived.TableSet(RATED_NAMES, RATED_SOURCES, "leaderboard table")
"""The tables computed from the served ratings (``derive`` writes them after the ratings; its
``--planner-only`` neither): ``board``, the ranked table (``Leaderboard.table``),
``flagged_scores``, every stored score with its headline flags (``Leaderboard.scores``), and
``api``, each model's API price, speed and index cost (``Leaderboard.api``)."""


def lineage_of(version: str, models: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``lineage.predecessors`` of ``version``'s models (``models()``, the models table in
    ``model_id`` order, is read only when not stored); no version: computed, not stored."""
    return _cached(version, "lineage", lambda: lineage.predecessors(models()))


def profiles_of(
    version: str, headline: Callable[[], pd.DataFrame], benchmarks: Callable[[], pd.DataFrame]
) -> pd.DataFrame:
    """``profiles.category_profiles`` of ``version`` (``headline()``: ``elo.headline_scores`` of
    its scores; ``benchmarks()``: its benchmarks table; both read only when not stored); no
    version: computed, not stored."""
    return _cached(
        version, "profiles", lambda: profiles.category_profiles(headline(), benchmarks())
    )


def rated_of(version: str, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """The stored table ``name`` of :data:`RATED_NAMES` for ``version``, else ``compute()``'s,
    stored; no version: computed, not stored."""
    return RATED.cached(version, name, compute)


def _cached(version: str, name: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    return TABLES.cached(version, name, compute)
