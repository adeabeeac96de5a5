"""Protocol A/B/C comparisons, metric points and protocol/final scores (seed 001).

- A: per (model, dataset), the best checkpoint (highest accuracy, then lower loss, lower time_s,
  earlier step); accuracy ranked higher-better, loss lower-better.
- B: per (model, dataset, target), the first checkpoint with accuracy >= target; time_s,
  comm_bytes, energy_j, peak_mem_bytes ranked lower-better; an unreached target is not valid.
- C: per (model, dataset, perturbation), |A-selected perturbed - A-selected nominal| of accuracy,
  time_s, comm_bytes, energy_j, peak_mem_bytes; smaller is better.

Each (model, dataset, metric[, target | perturbation]) is a comparison. Competition ranks among
valid non-reference methods (1, 1, 3); rank r earns max(0, 11 - r) points. Protocol score =
sum(n x points) / sum(n) over comparisons with n > 0 valid methods ("Protocol score");
final = (A + B + C) / 3 ("Final score"). Values equal to 12 significant digits count as equal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from analytics.fl.policy import NOMINAL, Policy
from analytics.fl.submission import PROTOCOLS, Run, Submission

A_METRICS = {"accuracy": True, "loss": False}  # metric -> higher is better
B_METRICS = {"time_s": False, "comm_bytes": False, "energy_j": False, "peak_mem_bytes": False}
C_METRICS = {m: False for m in ("accuracy", "time_s", "comm_bytes", "energy_j", "peak_mem_bytes")}
SYSTEM_COSTS = ("time_s", "comm_bytes", "energy_j", "peak_mem_bytes")
API_DECIMALS = 4
COMPARISON_COLUMNS = [
    "protocol",
    "model",
    "dataset",
    "condition",
    "metric",
    "method",
    "reference",
    "value",
    "valid",
    "n",
    "rank",
    "points",
]


@dataclass(frozen=True)
class Scores:
    """Everything the ranked page and the CLI show."""

    comparisons: pd.DataFrame  # one row per comparison and method (points breakdown)
    table: pd.DataFrame  # method, A, B, C, final, rank
    per_model: pd.DataFrame  # model, method, A, B, C, final
    references: pd.DataFrame  # reference methods' Protocol A checkpoints, never ranked


def best_checkpoint(checkpoints: pd.DataFrame) -> pd.Series:
    """Protocol A selection: highest accuracy, then lower loss, lower time_s, earlier step."""
    order = checkpoints.sort_values(
        ["accuracy", "loss", "time_s", "step"],
        ascending=[False, True, True, True],
        kind="mergesort",
    )
    return order.iloc[0]


def first_reaching(checkpoints: pd.DataFrame, target: float) -> pd.Series | None:
    """Protocol B: the lowest-step checkpoint with accuracy >= target, or None if unreached."""
    hits = checkpoints[checkpoints["accuracy"] >= target].sort_values("step", kind="mergesort")
    return None if hits.empty else hits.iloc[0]


def competition_ranks(values: list[float | None], higher_better: bool) -> list[int | None]:
    """Standard competition ranks (1, 1, 3) of the valid values; None stays unranked."""
    keys = [None if v is None else float(f"{v:.12g}") for v in values]
    valid = [k for k in keys if k is not None]
    ranks: list[int | None] = []
    for k in keys:
        if k is None:
            ranks.append(None)
        else:
            better = sum(1 for o in valid if (o > k if higher_better else o < k))
            ranks.append(1 + better)
    return ranks


def points_for(rank: int | None) -> int:
    """Rank 1 earns 10 points, rank 10 earns 1, later ranks and no rank earn 0."""
    return 0 if rank is None else max(0, 11 - rank)


def _ok(run: Run | None) -> pd.DataFrame | None:
    if run is None or run.status != "ok" or run.checkpoints is None or run.checkpoints.empty:
        return None
    return run.checkpoints


def _values_a(sub: Submission | None, dataset: str) -> dict[str, float | None]:
    ck = _ok(sub.runs.get((dataset, NOMINAL))) if sub else None
    best = best_checkpoint(ck) if ck is not None else None
    return {m: None if best is None else float(best[m]) for m in A_METRICS}


def _values_b(sub: Submission | None, dataset: str, target: float) -> dict[str, float | None]:
    ck = _ok(sub.runs.get((dataset, NOMINAL))) if sub else None
    hit = first_reaching(ck, target) if ck is not None else None
    return {m: None if hit is None else float(hit[m]) for m in B_METRICS}


def _values_c(sub: Submission | None, dataset: str, perturbation: str) -> dict[str, float | None]:
    nominal = _ok(sub.runs.get((dataset, NOMINAL))) if sub else None
    perturbed = _ok(sub.runs.get((dataset, perturbation))) if sub else None
    if nominal is None or perturbed is None:
        return dict.fromkeys(C_METRICS)
    base, pert = best_checkpoint(nominal), best_checkpoint(perturbed)
    return {m: abs(float(pert[m]) - float(base[m])) for m in C_METRICS}


def _cells(policy: Policy) -> Iterable[tuple[str, str, str, str, object]]:
    """(protocol, model, dataset, condition label, extractor arg) for every policy comparison."""
    for model in policy.models:
        for dataset in policy.datasets:
            yield "A", model, dataset, "", None
            for level in policy.targets[model][dataset]:
                yield "B", model, dataset, f"target {level:g}", level
            for pert in policy.perturbations:
                yield "C", model, dataset, pert, pert


def _extract(protocol: str, sub: Submission | None, dataset: str, arg) -> dict:
    if protocol == "A":
        return _values_a(sub, dataset)
    if protocol == "B":
        return _values_b(sub, dataset, arg)
    return _values_c(sub, dataset, arg)


def _metric_rows(cell: tuple, metric: str, higher: bool, values: dict, refs: set) -> list[dict]:
    protocol, model, dataset, condition = cell
    ranked = [m for m in values if m not in refs]
    ranks = competition_ranks([values[m] for m in ranked], higher)
    n = sum(r is not None for r in ranks)
    rows = []
    for method, rank in zip(ranked, ranks, strict=True):
        rows.append(
            dict(zip(COMPARISON_COLUMNS, cell, strict=False))
            | {"metric": metric, "method": method, "reference": False, "value": values[method]}
            | {"valid": rank is not None, "n": n, "rank": rank, "points": points_for(rank)}
        )
    for method in (m for m in values if m in refs):
        rows.append(
            dict(zip(COMPARISON_COLUMNS, cell, strict=False))
            | {"metric": metric, "method": method, "reference": True, "value": values[method]}
            | {"valid": values[method] is not None, "n": n, "rank": None, "points": 0}
        )
    return rows


def comparisons(submissions: list[Submission], policy: Policy) -> pd.DataFrame:
    """One row per policy comparison and method: value, validity, n, competition rank, points."""
    by_key = {s.key: s for s in submissions}
    refs = set(policy.reference_methods)
    competitors = sorted({s.method for s in submissions} - refs)
    rows: list[dict] = []
    for protocol, model, dataset, condition, arg in _cells(policy):
        present_refs = sorted(m for m in refs if (protocol, model, m) in by_key)
        per_method = {
            m: _extract(protocol, by_key.get((protocol, model, m)), dataset, arg)
            for m in competitors + present_refs
        }
        metrics = {"A": A_METRICS, "B": B_METRICS, "C": C_METRICS}[protocol]
        for metric, higher in metrics.items():
            values = {m: per_method[m][metric] for m in per_method}
            cell = (protocol, model, dataset, condition)
            rows += _metric_rows(cell, metric, higher, values, refs)
    frame = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    frame["rank"] = frame["rank"].astype("Int64")
    frame["value"] = frame["value"].astype("Float64")
    return frame


def protocol_scores(table: pd.DataFrame) -> pd.DataFrame:
    """Per method and protocol: sum(n x points) / sum(n) over comparisons with n > 0."""
    ranked = table[(~table["reference"]) & (table["n"] > 0)]
    if ranked.empty:
        return pd.DataFrame(columns=["method", *PROTOCOLS])
    weighted = ranked.assign(weighted=ranked["n"] * ranked["points"])
    num = weighted.pivot_table(
        index="method", columns="protocol", values="weighted", aggfunc="sum", fill_value=0
    )
    # the denominator is shared by every method: the sum of n over each protocol's comparisons
    comparisons_n = (
        ranked.drop_duplicates(["protocol", "model", "dataset", "condition", "metric"])
        .groupby("protocol")["n"]
        .sum()
    )
    scores = num.div(comparisons_n.reindex(num.columns), axis=1)
    scores = scores.reindex(columns=list(PROTOCOLS), fill_value=0.0).fillna(0.0)
    return scores.reset_index()


def _final_table(table: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    scores = protocol_scores(table).set_index("method") if not table.empty else None
    out = pd.DataFrame({"method": methods})
    for p in PROTOCOLS:
        out[p] = [
            float(scores.at[m, p]) if scores is not None and m in scores.index else 0.0
            for m in methods
        ]
    out["final"] = (out["A"] + out["B"] + out["C"]) / 3
    return out


def rank_methods(final: pd.DataFrame, scored: set[str]) -> pd.DataFrame:
    """Order by final at API precision, ties by method name; unscored methods get no rank."""
    out = final.assign(final_api=final["final"].round(API_DECIMALS))
    out = out.sort_values(["final_api", "method"], ascending=[False, True], kind="mergesort")
    ranks, next_rank = [], 1
    for method in out["method"]:
        if method in scored:
            ranks.append(next_rank)
            next_rank += 1
        else:
            ranks.append(None)
    out["rank"] = pd.array(ranks, dtype="Int64")
    out = out.drop(columns="final_api")
    return out.sort_values(["rank", "method"], na_position="last", kind="mergesort")


def references_table(submissions: list[Submission], policy: Policy) -> pd.DataFrame:
    """Reference methods' Protocol A checkpoints (historical accuracy references)."""
    rows = []
    for sub in submissions:
        if sub.method not in policy.reference_methods or sub.protocol != "A":
            continue
        for dataset in policy.datasets:
            ck = _ok(sub.runs.get((dataset, NOMINAL)))
            best = best_checkpoint(ck) if ck is not None else None
            values = {
                c: None if best is None else float(best[c]) for c in (*A_METRICS, *SYSTEM_COSTS)
            }
            rows.append({"method": sub.method, "model": sub.model, "dataset": dataset} | values)
    columns = ["method", "model", "dataset", *A_METRICS, *SYSTEM_COSTS]
    return pd.DataFrame(rows, columns=columns)


def score(submissions: list[Submission], policy: Policy) -> Scores:
    """Score validated submissions under a policy."""
    table = comparisons(submissions, policy)
    competitors = sorted({s.method for s in submissions} - set(policy.reference_methods))
    ranked_rows = table[~table["reference"]]
    scored = set(ranked_rows.loc[ranked_rows["valid"], "method"])
    overall = rank_methods(_final_table(table, competitors), scored)
    per_model = []
    for model in policy.models:
        part = _final_table(table[table["model"] == model], competitors)
        per_model.append(part.assign(model=model))
    per_model_df = (
        pd.concat(per_model, ignore_index=True)[["model", "method", *PROTOCOLS, "final"]]
        if per_model
        else pd.DataFrame(columns=["model", "method", *PROTOCOLS, "final"])
    )
    return Scores(
        table, overall.reset_index(drop=True), per_model_df, references_table(submissions, policy)
    )


def to_api(scores: Scores) -> dict:
    """JSON-ready scores at API precision (four decimals)."""

    def r(x: float) -> float:
        return round(float(x), API_DECIMALS)

    methods = []
    for row in scores.table.itertuples(index=False):
        per_model = scores.per_model[scores.per_model["method"] == row.method]
        methods.append(
            {
                "method": row.method,
                **{p: r(getattr(row, p)) for p in PROTOCOLS},
                "final": r(row.final),
                "rank": None if pd.isna(row.rank) else int(row.rank),
                "per_model": {
                    m.model: {p: r(getattr(m, p)) for p in (*PROTOCOLS, "final")}
                    for m in per_model.itertuples(index=False)
                },
            }
        )
    return {"methods": methods}
