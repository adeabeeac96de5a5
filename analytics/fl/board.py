"""Typed data for the FL pages and the notebook: the scored board, run index and run curves."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analytics.fl import scoring, store
from analytics.fl.policy import Policy, load_policy
from analytics.fl.submission import PROTOCOLS, Submission

CURVE_METRICS = ("accuracy", "loss", "time_s", "comm_bytes", "energy_j", "peak_mem_bytes")
RUN_INDEX_COLUMNS = ["protocol", "model", "method", "dataset", "condition", "status", "source"]


@dataclass(frozen=True)
class Board:
    """Everything the ranked page shows, computed once per data version."""

    version: str
    policy: Policy
    scores: scoring.Scores
    problems: list[str]
    sources: dict[str, str]
    submissions: list[Submission]

    @property
    def methods(self) -> list[str]:
        return self.scores.table["method"].tolist()


def data_version() -> str:
    """Cache key of the FL inputs: policy, simulator profiles, reference and published ZIPs."""
    return store.data_version()


def load_board() -> Board:
    """Validate every stored submission and score them under our policy."""
    policy = load_policy()
    loaded = store.load_all(policy)
    result = scoring.score(loaded.submissions, policy)
    return Board(
        data_version(), policy, result, loaded.problems, loaded.sources, loaded.submissions
    )


def leaderboard(board: Board, model: str | None = None) -> pd.DataFrame:
    """Rank, method, A, B, C, final at API precision (overall, or one model's scores)."""
    table = board.scores.table
    if model is None:
        out = table[["rank", "method", *PROTOCOLS, "final"]]
    else:
        per = board.scores.per_model[board.scores.per_model["model"] == model]
        per = per.assign(final_api=per["final"].round(scoring.API_DECIMALS))
        per = per.sort_values(["final_api", "method"], ascending=[False, True], kind="mergesort")
        out = per[["method", *PROTOCOLS, "final"]]
    cols = [*PROTOCOLS, "final"]
    return out.assign(**{c: out[c].astype(float).round(scoring.API_DECIMALS) for c in cols})


def breakdown(board: Board, method: str, protocol: str | None = None) -> pd.DataFrame:
    """Points per comparison for one method: value, n, rank, points (protocol optional)."""
    comp = board.scores.comparisons
    rows = comp[comp["method"] == method]
    if protocol:
        rows = rows[rows["protocol"] == protocol]
    cols = ["protocol", "model", "dataset", "condition", "metric", "value", "n", "rank", "points"]
    return rows[cols].reset_index(drop=True)


def run_index(board: Board) -> pd.DataFrame:
    """One row per stored run: which submission, dataset, condition, status and source."""
    rows = []
    for sub in board.submissions:
        for (dataset, condition), run in sorted(sub.runs.items()):
            rows.append(
                {
                    "protocol": sub.protocol,
                    "model": sub.model,
                    "method": sub.method,
                    "dataset": dataset,
                    "condition": condition,
                    "status": run.status,
                    "source": board.sources.get(sub.name, ""),
                }
            )
    return pd.DataFrame(rows, columns=RUN_INDEX_COLUMNS)


def run_curves(
    board: Board, protocol: str, model: str, method: str, dataset: str, condition: str
) -> pd.DataFrame:
    """Checkpoints of one run in long form: step, metric, value (empty if absent or failed)."""
    for sub in board.submissions:
        if sub.key == (protocol, model, method):
            run = sub.runs.get((dataset, condition))
            if run is not None and run.status == "ok":
                wide = run.checkpoints[["step", *CURVE_METRICS]]
                return wide.melt(id_vars="step", var_name="metric", value_name="value")
    return pd.DataFrame(columns=["step", "metric", "value"])


def publish_upload(data: bytes, upload_name: str) -> tuple[str | None, list[str]]:
    """Validate and publish an uploaded ZIP under our policy (see store.publish)."""
    return store.publish(data, upload_name, load_policy())
