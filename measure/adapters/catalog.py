"""The adapter catalog: one row of metadata per registered adapter, for pages and notebooks.

``analytics.vision.runs`` never imports ``measure``; its functions take this table as a
parameter (``ui.vision`` composes the two).
"""

from __future__ import annotations

import pandas as pd

from analytics.core.licences import licence_verdict
from measure.adapters import registry

COLUMNS = (
    "adapter", "display_name", "task", "precisions", "code_repo", "code_licence",
    "code_licence_url", "code_licence_read_on", "checkpoint", "weights_licence",
    "weights_licence_url", "weights_licence_read_on", "licence_verdict", "default_input_size",
    "paper_value", "paper_metric", "paper_benchmark", "paper_url", "paper_note",
    "runs_with_fixes", "patch_url",
)  # fmt: skip
"""The catalog's columns, in order."""


def _row(name: str, cls: type) -> dict:
    """One adapter's catalog row: task, licences with dates, paper figure, fixes."""
    info = cls.info
    weights = info.weights[0]
    paper = info.paper
    return {
        "adapter": name,
        "display_name": info.display_name,
        "task": cls.task,
        "precisions": ", ".join(cls.precisions),
        "code_repo": info.code_repo,
        "code_licence": info.code_licence,
        "code_licence_url": info.code_licence_url,
        "code_licence_read_on": info.code_licence_read_on,
        "checkpoint": weights.checkpoint,
        "weights_licence": weights.licence,
        "weights_licence_url": weights.licence_url,
        "weights_licence_read_on": weights.read_on,
        "licence_verdict": licence_verdict(info.code_licence, weights.licence),
        "default_input_size": info.default_input_size,
        "paper_value": paper.value if paper else None,
        "paper_metric": paper.metric if paper else "",
        "paper_benchmark": paper.benchmark if paper else "",
        "paper_url": paper.url if paper else "",
        "paper_note": paper.note if paper else "",
        "runs_with_fixes": info.runs_with_fixes,
        "patch_url": info.patch_url,
    }


def adapter_catalog() -> pd.DataFrame:
    """One row per registered adapter, in registration order (columns: ``COLUMNS``)."""
    rows = [_row(name, cls) for name, cls in registry().items()]
    return pd.DataFrame(rows, columns=list(COLUMNS))
