"""Typed data for the FL pages and the notebook: the scored board, run index and run curves."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from analytics.fl import cache, review, scoring, store
from analytics.fl.policy import Policy, load_policy
from analytics.fl.submission import PROTOCOLS, Submission

CURVE_METRICS = ("accuracy", "loss", "time_s", "comm_bytes", "energy_j", "peak_mem_bytes")
RUN_INDEX_COLUMNS = ["protocol", "model", "method", "dataset", "condition", "status", "source"]
UPLOAD_COLUMNS = [
    "zip",
    "status",
    "protocol",
    "model",
    "method",
    "received_utc",
    "decided_by",
    "decided_utc",
    "sha256",
]


@dataclass(frozen=True)
class Board:
    """Everything the ranked page shows, computed once per data version."""

    version: str
    policy: Policy
    scores: scoring.Scores
    problems: list[str]
    sources: dict[str, str]
    submissions: list[Submission]  # scored: our reference runs and accepted uploads
    uploads: list[store.Upload] = field(default_factory=list)  # every stored upload
    reference_damage: list[str] = field(default_factory=list)  # shown first, never folded

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
    result = cache.scored(loaded.submissions, loaded.ids, policy)  # scoring.score, cached
    return Board(
        data_version(),
        policy,
        result,
        loaded.problems,
        loaded.sources,
        loaded.submissions,
        loaded.uploads,
        loaded.reference_damage,
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


def uploads_table(board: Board, statuses: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Stored uploads (optionally only some review statuses): never scored unless accepted."""
    rows = []
    for upload in board.uploads:
        state, sub = upload.state, upload.submission
        if statuses is not None and state.status not in statuses:
            continue
        rows.append(
            {
                "zip": state.zip,
                "status": state.status if sub is not None else f"{state.status} (invalid)",
                "protocol": sub.protocol if sub else "",
                "model": sub.model if sub else "",
                "method": sub.method if sub else "",
                "received_utc": state.received_utc,
                "decided_by": state.decided_by,
                "decided_utc": state.decided_utc,
                "sha256": state.sha256,
            }
        )
    return pd.DataFrame(rows, columns=UPLOAD_COLUMNS)


CLAIM_COLUMNS = ["dataset", "condition", "status", "best_accuracy", "loss", "ours_best_accuracy"]


def _ours_best(board: Board, sub: Submission, dataset: str, condition: str) -> float | None:
    """Our reference runs' best accuracy on the same protocol, model, dataset and condition."""
    best = None
    for ref in board.submissions:
        run = ref.runs.get((dataset, condition))
        same = (ref.protocol, ref.model) == (sub.protocol, sub.model)
        if board.sources.get(ref.name) == "reference" and same and run and run.status == "ok":
            acc = float(scoring.best_checkpoint(run.checkpoints)["accuracy"])
            best = acc if best is None else max(best, acc)
    return best


def upload_claims(board: Board, zip_name: str) -> pd.DataFrame:
    """What a stored upload claims per run (A-selected checkpoint) beside our best reference
    accuracy, for the maintainer reviewing it; empty when the upload no longer validates."""
    sub = next((u.submission for u in board.uploads if u.state.zip == zip_name), None)
    rows = []
    for (dataset, condition), run in sorted(sub.runs.items()) if sub else []:
        best = scoring.best_checkpoint(run.checkpoints) if run.status == "ok" else None
        rows.append(
            {
                "dataset": dataset,
                "condition": condition,
                "status": run.status,
                "best_accuracy": None if best is None else float(best["accuracy"]),
                "loss": None if best is None else float(best["loss"]),
                "ours_best_accuracy": _ours_best(board, sub, dataset, condition),
            }
        )
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def receive_upload(
    data: bytes, upload_name: str, client: str | None = None
) -> tuple[str | None, list[str]]:
    """Validate and store an uploaded ZIP as unverified under our policy (see store.receive)."""
    return store.receive(data, upload_name, load_policy(), client)


def decide_upload(
    name: str,
    action: str,
    by: str,
    sha256: str | None = None,
    reason: str = "",
    seen: str | None = None,
) -> review.State:
    """A maintainer's accept/reject of a stored upload (the caller checks who is signed in);
    ``seen``: the status the maintainer was shown (``review.decide``; default unverified, so a
    withdrawal of an accepted upload says so)."""
    kwargs = {} if seen is None else {"seen": seen}
    return review.decide(name, action, by, sha256, reason, **kwargs)
