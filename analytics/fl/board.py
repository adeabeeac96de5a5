"""Typed data for the FL pages and the notebook: the scored board, run index and run curves."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from analytics.core import paths
from analytics.fl import cache, datasets, review, scoring, seeds, store, training
from analytics.fl.perturbations import NOMINAL_SETUP
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
    seeds: tuple[int, ...] = ()  # the seeds of our reference set; the first one is scored
    spread: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=seeds.SPREAD_COLUMNS))
    score_spread: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=seeds.SCORE_SPREAD_COLUMNS)
    )

    @property
    def gaps(self) -> pd.DataFrame:
        """Adjacent ranked methods per comparison, and whether the gap is inside the spread."""
        return seeds.adjacent_gaps(self.spread)
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
    pairs = zip(loaded.submissions, loaded.ids, strict=True)
    ours_ids = [(s, i) for s, i in pairs if loaded.sources.get(s.name) == "reference"]
    ours = [s for s, _ in ours_ids]
    primary = ours[0].seed if ours else 0
    # the spread compares our sets alone under each seed (accepted uploads have one seed)
    per_seed = {primary: cache.scored(ours, [i for _, i in ours_ids], policy)}
    for seed, (subs, ids) in store.load_seed_sets(policy).items():
        if subs:
            per_seed[seed] = cache.scored(subs, ids, policy)
    comparisons = {seed: _ours(s.comparisons, ours) for seed, s in per_seed.items()}
    tables = {seed: _ours(s.table, ours) for seed, s in per_seed.items()}
    return Board(
        data_version(),
        policy,
        result,
        loaded.problems,
        loaded.sources,
        loaded.submissions,
        loaded.uploads,
        tuple(per_seed),
        seeds.metric_spread(comparisons, primary),
        seeds.score_spread(tables, primary),
        loaded.reference_damage,
    )


def _ours(frame: pd.DataFrame, ours: list[Submission]) -> pd.DataFrame:
    """Rows of our reference methods only (an accepted upload has no further seeds)."""
    return frame[frame["method"].isin({s.method for s in ours})]


def spread_table(board: Board, protocol: str, model: str | None = None) -> pd.DataFrame:
    """One protocol's comparison values beside their mean, sd and range over the seeds."""
    rows = board.spread[board.spread["protocol"] == protocol]
    if model is not None:
        rows = rows[rows["model"] == model]
    return rows.drop(columns=["protocol"]).reset_index(drop=True)


def gap_summary(board: Board) -> dict[str, int]:
    """Adjacent gaps in all comparisons: total, inside the seed spread, exceeding it, ties."""
    return seeds.gap_counts(board.gaps)


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


DOCS = "docs/fl.md"
DOCS_SECTION = "Our reference runs and targets"


def docs_section(title: str = DOCS_SECTION) -> str:
    """One '## ' section of docs/fl.md (its text up to the next '## '), for the page to show."""
    text = (paths.REPO_ROOT / DOCS).read_text(encoding="utf-8")
    start = text.index(f"## {title}\n") + len(title) + 4
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else len(text)].strip()


def disclosures(board: Board) -> list[str]:
    """What the reference set is, in plain sentences built from the code's own settings: the
    datasets and their sources, the models, the client split, the seeds, whose targets B uses."""
    setup = NOMINAL_SETUP
    names = [datasets.SOURCES.get(d, d) for d in board.policy.datasets]
    seeds_text = ", ".join(str(s) for s in board.seeds) or "none"
    batches = ", ".join(
        f"{d}: B = {b}, E = {e}" for d, (b, e) in training.LOCAL_TRAINING.items()
        if d in board.policy.datasets
    )
    return [
        "Datasets: " + "; ".join(names) + f". Every checkpoint is evaluated on the same fixed "
        f"sample of at most {datasets.EVAL_SAMPLES:,} test images.",
        "Models: a LeNet-5 CNN and the 2NN MLP (two layers of 200 units), float32, trained with "
        f"SGD (lr {training.LEARNING_RATE}; {batches}).",
        f"Clients: {setup.n_clients}, each with label proportions drawn from Dirichlet("
        f"{setup.alpha:g}); {setup.clients_per_round} take part in each of {setup.rounds} rounds. "
        f"Local Only is the mean accuracy of clients 0-{training.LOCAL_ONLY_CLIENTS - 1} only, "
        f"every {training.LOCAL_ONLY_EVAL_EVERY} rounds; Centralized trains "
        f"{training.CENTRAL_EPOCHS} epochs on all training data.",
        f"Seeds: {seeds_text}. Points and ranks use the first seed's runs (the submissions), "
        "exactly as the methodology scores submitted values; the other seeds show the spread.",
        "The Protocol B targets are ours, not a paper's: 80 %, 90 % and 95 % of the best "
        "accuracy of our own Centralized run per model and dataset.",
    ]
