"""Issue 29: the model page lists every measured GPU speed of the model with its kind named,
the hardware-fit page shows one figure of each kind with its label, a single community run says
1 run."""

from __future__ import annotations

from analytics.core import db
from analytics.llm import catalog
from analytics.llm import fit as hwfit


def _tables() -> catalog.Catalog:
    return catalog.of_version(db.serving_version().version)


def test_model_speeds_name_every_kind_and_keep_the_runs():
    tables = _tables()
    rows = hwfit.model_speeds(tables.throughput, tables.models, "qwen3.6-27b")
    assert not rows.empty
    assert set(rows["kind"]) <= set(hwfit.KIND_LABELS.values())
    community = rows[rows["kind"] == hwfit.KIND_LABELS[hwfit.COMMUNITY]]
    assert not community.empty
    assert (community["n_runs"] >= 1).all()
    assert (community["tokens_per_s_min"] <= community["tokens_per_s_max"]).all()
    single = community[community["n_runs"] == 1]
    assert (single["tokens_per_s_min"] == single["tokens_per_s"]).all()


def test_each_kind_has_a_figure_somewhere_in_the_committed_catalog():
    tables = _tables()
    kinds = set(hwfit.throughput_kinds(tables.throughput))
    assert set(hwfit.THROUGHPUT_KINDS) <= kinds
