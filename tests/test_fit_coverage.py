"""The hardware page's context verdict on the served catalog: known (a verdict, or refused above
the model's own maximum) for at least 80 % of the rows a 24 GB card lists by default."""

from __future__ import annotations

import dataclasses

from analytics.core import db
from analytics.llm import catalog, fit, fit_view, ratings

DEFAULT_CONTEXT = 8192  # the page's default (pages/llm/hardware_fit.py)


def test_the_context_verdict_is_known_for_four_rows_in_five_on_a_24_gb_card():
    version = db.serving_version().version
    tables = catalog.of_version(version)
    target = catalog.hardware(tables.gpus, "rtx-4090", 1)
    assert target.memory_gb == 24
    flt = dataclasses.replace(catalog.NO_FILTER, open_weights_only=True)  # the page's default
    view = fit_view.hardware_fit_view(
        tables, ratings.of_version(version), target, DEFAULT_CONTEXT, flt
    )
    unknown = int((view["context_verdict"] == fit.KV_UNKNOWN).sum())
    assert len(view) > 500 and view["context_verdict"].notna().all()
    assert unknown <= 0.2 * len(view), f"{unknown} of {len(view)} rows: KV cache unknown"
