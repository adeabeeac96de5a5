"""How much the reference results move with the seed: the spread beside the scored values.

Our reference set is made with several seeds (``runner.SEEDS``). The first seed's ZIPs are the
submissions and are scored exactly as seed 001 says; each further seed's set is scored the same
way on its own. Here every comparison value (and every method's protocol and final scores) is
set beside its mean, standard deviation and range over the seeds, and each gap between two
methods adjacent in a comparison is checked against that range: a gap no wider than the larger
range of the two methods lies inside the seed spread (a rerun with another seed could swap them).
"""

from __future__ import annotations

import pandas as pd

from analytics.fl import scoring
from analytics.fl.submission import PROTOCOLS

CELL = ["protocol", "model", "dataset", "condition", "metric"]
SPREAD_COLUMNS = [*CELL, "method", "reference", "submitted", "mean", "sd", "low", "high", "seeds"]
GAP_COLUMNS = [*CELL, "better", "worse", "gap", "spread", "known", "inside"]
SCORE_SPREAD_COLUMNS = ["method", "score", "submitted", "mean", "sd", "low", "high", "seeds"]


def _summary(values: pd.DataFrame, keys: list[str], primary: int) -> pd.DataFrame:
    """Per key: the primary seed's value, and mean, sd (n - 1), min and max over seeds."""
    stats = values.groupby(keys, sort=False, dropna=False)["value"].agg(
        mean="mean", sd="std", low="min", high="max", seeds="count"
    )
    first = values[values["seed"] == primary].set_index(keys)["value"].rename("submitted")
    out = stats.join(first, how="left").reset_index()
    return out


def metric_spread(comparisons: dict[int, pd.DataFrame], primary: int) -> pd.DataFrame:
    """One row per comparison and method: the submitted value and its spread over the seeds
    (values that are missing under a seed, such as an unreached target, are left out)."""
    frames = [c.assign(seed=s) for s, c in comparisons.items() if not c.empty]
    if not frames:
        return pd.DataFrame(columns=SPREAD_COLUMNS)
    values = pd.concat(frames, ignore_index=True)
    values["value"] = values["value"].astype("Float64").astype(float)
    out = _summary(values, [*CELL, "method", "reference"], primary)
    return out[SPREAD_COLUMNS]


def adjacent_gaps(spread: pd.DataFrame) -> pd.DataFrame:
    """Each pair of ranked methods next to each other in a comparison (by submitted value, best
    first): the gap and the larger seed range of the two; ``inside`` when gap <= that range.
    ``known`` is False when either value has a single seed (no spread to compare with)."""
    rows = []
    ranked = spread[~spread["reference"].astype(bool) & spread["submitted"].notna()]
    for cell, part in ranked.groupby(CELL, sort=False):
        protocol, metric = cell[0], cell[4]
        higher = protocol == "A" and scoring.A_METRICS.get(metric, False)  # else lower is better
        part = part.sort_values(["submitted", "method"], ascending=[not higher, True])
        items = list(part.itertuples(index=False))
        for a, b in zip(items, items[1:], strict=False):
            gap = abs(float(a.submitted) - float(b.submitted))
            width = max(float(a.high - a.low), float(b.high - b.low))
            known = min(int(a.seeds), int(b.seeds)) >= 2
            rows.append(dict(zip(CELL, cell, strict=True)) | {
                "better": a.method, "worse": b.method, "gap": gap, "spread": width,
                "known": known, "inside": known and gap <= width,
            })
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def gap_counts(gaps: pd.DataFrame) -> dict[str, int]:
    """Adjacent gaps with a known spread: how many, how many lie inside the seed spread, how many
    exceed it, how many are exact ties (ties count as inside); and how many have one seed only."""
    known = gaps[gaps["known"].astype(bool)] if not gaps.empty else gaps
    inside = int(known["inside"].astype(bool).sum()) if not known.empty else 0
    return {
        "gaps": len(known),
        "inside": inside,
        "exceed": len(known) - inside,
        "ties": int((known["gap"] == 0).sum()) if not known.empty else 0,
        "one_seed": len(gaps) - len(known),
    }


def score_spread(tables: dict[int, pd.DataFrame], primary: int) -> pd.DataFrame:
    """Per method and score (A, B, C, final): the submitted score and its spread over the seeds,
    each seed's set scored on its own under the same policy."""
    frames = []
    for seed, table in tables.items():
        long = table.melt(id_vars="method", value_vars=[*PROTOCOLS, "final"], var_name="score")
        frames.append(long.assign(seed=seed))
    if not frames:
        return pd.DataFrame(columns=SCORE_SPREAD_COLUMNS)
    values = pd.concat(frames, ignore_index=True)
    values["value"] = values["value"].astype(float)
    return _summary(values, ["method", "score"], primary)[SCORE_SPREAD_COLUMNS]
