"""Step 1 of the Elo pipeline: one headline score per model x benchmark (seed 002, "Provenance";
docs/elo.md section 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analytics.core.schema import SOURCE_KINDS

REQUIRED_COLUMNS = ("model", "benchmark", "category", "score")
OPTIONAL_COLUMNS = ("source", "date", "higher_is_better", "publisher")


def headline_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per model x benchmark: the best source by precedence, then the newest date.

    Precedence is ``schema.SOURCE_KINDS`` (independent > arena > admin-run > curated >
    self-reported, seed 002 "Provenance"). Remaining ties go to the source name, then the higher
    score, so the pick never depends on row order. One stable sort of integer keys (missing
    values last in every key), then the first row of each model x benchmark.
    """
    require_columns(scores, REQUIRED_COLUMNS)
    keys = [_ascending_codes(scores["model"]), _ascending_codes(scores["benchmark"])]
    keys.append(_source_rank(scores).to_numpy())
    if "date" in scores:
        date = pd.to_datetime(scores["date"]).to_numpy()
        stamp = date.view(np.int64)  # in the array's own unit: the order is all that counts
        keys.append(np.where(np.isnat(date), np.iinfo(np.int64).max, -stamp))  # newest first
    if "source_name" in scores:
        keys.append(_ascending_codes(scores["source_name"]))
    score = pd.to_numeric(scores["score"]).to_numpy(dtype=float)
    keys.append(np.where(np.isnan(score), np.inf, -score))  # higher first, none last
    order = np.lexsort(keys[::-1])  # stable; the first key sorts first
    model, bench = keys[0][order], keys[1][order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (model[1:] != model[:-1]) | (bench[1:] != bench[:-1])
    return scores.iloc[order[first]].reset_index(drop=True)


def require_columns(frame: pd.DataFrame, columns: tuple[str, ...]) -> None:
    """Raise ``ValueError`` naming the ``columns`` that ``frame`` lacks."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"missing column(s): {', '.join(missing)}")


def _ascending_codes(values: pd.Series) -> np.ndarray:
    """Integer codes in the sort order of ``values`` (missing values last)."""
    codes, uniques = pd.factorize(values, sort=True)
    return np.where(codes < 0, len(uniques), codes)


def _source_rank(frame: pd.DataFrame) -> pd.Series:
    """Each row's place of its source kind in ``SOURCE_KINDS`` (0 = highest precedence)."""
    if "source" not in frame:
        return pd.Series(0, index=frame.index)
    codes, kinds = pd.factorize(frame["source"])  # one lookup per distinct kind, not per row
    order = {kind: i for i, kind in enumerate(SOURCE_KINDS)}
    unknown = sorted(str(k) for k in kinds if k not in order)
    if unknown or (codes < 0).any():
        bad = unknown[0] if unknown else "(empty)"
        raise ValueError(f"source {bad!r} is not one of: {', '.join(SOURCE_KINDS)}")
    return pd.Series(np.array([order[k] for k in kinds], dtype=int)[codes], index=frame.index)
