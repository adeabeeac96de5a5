"""Cached loaders of the federated-learning pages: the scored board and its run index.

Every cache is keyed by the FL data version (``analytics.fl.board.data_version``, a content hash
of the policy, profiles, every stored ZIP and the review record), so a newly published
submission shows on the next rerun. A cold load reads validated and scored results from the
on-disk cache (``analytics.fl.cache``) when they exist for exactly those bytes.

The board is a ``st.cache_resource``: one shared, read-only object per data version (no page
modifies it), so a rerun does not unpickle hundreds of run tables as ``st.cache_data`` would.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import streamlit as st

from analytics.core import safezip
from analytics.fl import board as flb
from analytics.fl.submission import ZIP_USE
from ui import community
from ui import format as fmt
from ui.llm import show_table as show_table  # the one labelled-table helper of every track


@st.cache_resource(show_spinner="Validating and scoring submissions…", max_entries=2)
def _board(version: str) -> flb.Board:
    return flb.load_board()


def board() -> flb.Board:
    """Every stored submission, validated and scored (shared: read, never modify)."""
    return _board(flb.data_version())


@st.cache_data(show_spinner=False, max_entries=4)
def _run_index(version: str) -> pd.DataFrame:
    return flb.run_index(_board(version))


def run_index() -> pd.DataFrame:
    """One row per stored run (method, model, protocol, dataset, condition, status)."""
    return _run_index(flb.data_version())


def receive_uploaded(uploaded: Any) -> tuple[str | None, list[str]]:
    """``flb.receive_upload`` for a Streamlit upload, refused by its size (the FL ZIP cap,
    ``safezip.LIMITS["fl-submission"]``) in one line before its bytes are read."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", str(uploaded.name))[:100] or "upload.zip"
    try:
        safezip.check_size(int(uploaded.size), name, safezip.LIMITS[ZIP_USE])
    except safezip.BundleError as exc:
        return None, [str(exc)]
    return flb.receive_upload(uploaded.getvalue(), uploaded.name, community.client())


# --- display of FL figures (ui.format's rule: one unit per column or axis, human names) ------

METRIC_NAMES = {
    "accuracy": "Accuracy (0-1)",
    "loss": "Loss",
    "time_s": "Simulated time",
    "comm_bytes": "Communication",
    "energy_j": "Simulated energy",
    "peak_mem_bytes": "Peak memory",
}
"""Checkpoint metric -> name without the raw unit (the unit follows from :func:`metric_scale`)."""
METRIC_KINDS = {"time_s": "seconds", "comm_bytes": "bytes", "energy_j": "joules",
                "peak_mem_bytes": "bytes"}
"""Cost metric -> the kind of quantity its raw values are (s, bytes, J)."""
QUALITY_DECIMALS = 3  # accuracy and loss: three decimals (the API keeps four)


def metric_scale(metric: str, values: pd.Series) -> fmt.Scale | None:
    """The one unit a column or axis of ``metric`` shows its ``values`` in (None: accuracy and
    loss, unitless, at :data:`QUALITY_DECIMALS`)."""
    kind = METRIC_KINDS.get(metric)
    return None if kind is None else fmt.scale_for(values, kind)


def metric_title(metric: str, values: pd.Series) -> str:
    """'Peak memory (KiB)', 'Simulated time (ms)', 'Accuracy (0-1)': name and shown unit."""
    scale = metric_scale(metric, values)
    name = METRIC_NAMES.get(metric, fmt.fallback_name(metric))
    return name if scale is None else scale.title(name)


def metric_value_text(metric: str, value: object) -> str:
    """One metric value in its own best unit ('12.1 KiB', '26.5 ms', '0.942')."""
    kind = METRIC_KINDS.get(metric)
    if kind is None:
        return fmt.number_text(value, QUALITY_DECIMALS)
    return fmt.quantity_text(value, kind)


def metric_table(frame: pd.DataFrame, metrics: list[str]) -> tuple[pd.DataFrame, dict]:
    """``frame`` with each metric column in its own unit (one per column, chosen by its values)
    and the column config naming it: 'Communication (KiB)', fixed decimals."""
    out, config = frame.copy(), {}
    for metric in (m for m in metrics if m in frame):
        scale = metric_scale(metric, frame[metric])
        if scale is not None:
            out[metric] = scale.apply(frame[metric])
        decimals = QUALITY_DECIMALS if scale is None else scale.decimals
        config[metric] = fmt.number_column(metric_title(metric, frame[metric]), decimals)
    return out, config


def named_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the model, dataset and condition ids replaced by their human names
    (``ui.format``); a Protocol A or B comparison's condition says what it compares."""
    out = frame.copy()
    if "model" in out:
        out["model"] = [fmt.fl_model_name(v) for v in out["model"]]
    if "dataset" in out:
        out["dataset"] = [fmt.fl_dataset_name(v) for v in out["dataset"]]
    if "condition" in out and "protocol" in out:
        pairs = zip(out["protocol"], out["condition"], strict=True)
        out["condition"] = [fmt.comparison_condition(p, c) for p, c in pairs]
    elif "condition" in out:
        out["condition"] = [fmt.fl_condition_name(v) for v in out["condition"]]
    return out


# --- seed spread (analytics.fl.seeds via the board) --------------------------------------------

SPREAD_COLUMNS = {
    "method": "Method",
    "score": "Score",
    "submitted": fmt.number_column("Scored (first seed)", 2),
    "mean": fmt.number_column("Mean over seeds", 2),
    "sd": fmt.number_column("Standard deviation", 2),
    "low": fmt.number_column("Lowest", 2),
    "high": fmt.number_column("Highest", 2),
    "seeds": fmt.count_column("Seeds"),
}
"""Columns of the per-method score spread (points, 0-10)."""
SPREAD_VALUE_COLUMNS = {"submitted": "Scored (first seed)", "mean": "Mean over seeds",
                        "sd": "Standard deviation", "low": "Lowest", "high": "Highest"}


def score_spread_table(board: flb.Board) -> pd.DataFrame:
    """Each method's protocol and final scores: scored value and spread over the seeds."""
    table = board.score_spread.copy()
    table["score"] = [fmt.protocol_name(s) if s != "final" else "Final" for s in table["score"]]
    return table


def metric_spread_table(board: flb.Board, protocol: str) -> tuple[pd.DataFrame, dict]:
    """One protocol's values per comparison and method, each metric in its own unit: the
    scored value beside mean, standard deviation and range over the seeds."""
    rows = fl_named(flb.spread_table(board, protocol), protocol)
    config: dict[str, Any] = {"method": "Method", "model": "Model", "dataset": "Dataset",
                              "condition": "Condition", "metric": "Metric",
                              "seeds": fmt.count_column("Seeds")}
    texts = {c: [] for c in SPREAD_VALUE_COLUMNS}
    for metric, *values in rows[["metric", *SPREAD_VALUE_COLUMNS]].itertuples(index=False):
        for column, value in zip(SPREAD_VALUE_COLUMNS, values, strict=True):
            texts[column].append(metric_value_text(metric, value))
    for column, label in SPREAD_VALUE_COLUMNS.items():
        rows[column] = texts[column]
        config[column] = fmt.text_number_column(label)
    rows["metric"] = [METRIC_NAMES.get(m, fmt.fallback_name(m)) for m in rows["metric"]]
    return rows.drop(columns=["reference"]), config


def fl_named(frame: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """``named_runs`` for a table of one protocol (its conditions say what they compare)."""
    return named_runs(frame.assign(protocol=protocol)).drop(columns=["protocol"])
