"""Issue 26 on the pages (AppTest): one row per checkpoint with its variants and a toggle for
every variant, the unrated rating greyed, a former id's notice, an unknown id's message, movers
within one product line.

The store is the LLM rating snapshot of ``tests/fixtures/catalogs.py`` (test data only) with a
"high" setting of Beta Pro 2 (a variant of the same checkpoint, ranked) and a former id kept as
an alias of Acme 2 7B.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.fixtures.apptest import run_page, serve_tables, shown_labels, tables
from tests.fixtures.catalogs import llm_catalog_rows
from tests.fixtures.store import StorePaths

VERSION = "vtest-llm-variants"


@pytest.fixture()
def store(store_paths: StorePaths) -> StorePaths:
    tables_ = llm_catalog_rows()
    base = next(m for m in tables_["models"] if m["model_id"] == "beta-pro-2")
    tables_["models"].append(
        {**base, "model_id": "beta-pro-2-high", "display_name": "Beta Pro 2 (high)",
         "checkpoint_id": "beta-pro-2", "variant": "high"}
    )
    for model in tables_["models"]:
        model.setdefault("variant", "default")
        if model["model_id"] == "acme-2-7b":
            model["aliases"] = "acme-2-7b-0601;Acme Two 7B"
    high = [
        {**row, "model_id": "beta-pro-2-high", "score": row["score"] + 2}
        for row in tables_["scores"] if row["model_id"] == "beta-pro-2"
    ]
    tables_["scores"] += high
    serve_tables(store_paths, VERSION, tables_)
    return store_paths


def test_one_row_per_checkpoint_names_its_variants_and_the_toggle_shows_them(store) -> None:
    at = run_page("llm/leaderboard.py")
    assert not at.exception
    ranked = tables(at)[0].value
    names = ranked["display_name"].tolist()
    assert names[0] == "Beta Pro 2 (high)" and "Beta Pro 2" not in names  # the best variant
    assert ranked["variants"].iloc[0] == "Beta Pro 2"
    # each row keeps its variant's rank (the model page's): Beta Pro 2, rank 2, is folded into
    # its checkpoint's row, and no one else takes its number
    assert ranked["rank"].tolist() == [1, *range(3, len(ranked) + 2)]
    assert not ranked["display_name"].duplicated().any()
    assert any("share one row" in m.value for m in at.markdown)  # in "How to read this"
    at.toggle(key="lb_variants").set_value(True).run()
    assert not at.exception
    every = tables(at)[0].value
    assert {"Beta Pro 2 (high)", "Beta Pro 2"} <= set(every["display_name"])
    assert len(every) == len(ranked) + 1 and at.query_params["variants"] == "all"


def test_unrated_rows_show_their_rating_greyed_beside_the_reason(store) -> None:
    at = run_page("llm/leaderboard.py")
    unrated = tables(at)[1]
    labels = shown_labels(unrated)
    assert "Elo (reference)" in labels and "Elo" not in labels and "Why unrated" in labels
    cell = unrated.value["reference_rating"].iloc[0]
    assert list(cell) == [f"{float(cell[0]):.1f}"]  # one grey badge with the number


def test_a_former_id_opens_its_model_with_a_notice_naming_both(store) -> None:
    at = run_page("llm/model.py", model="acme-2-7b-0601")
    assert not at.exception
    assert at.selectbox(key="lm_model").value == "acme-2-7b"
    notice = " ".join(i.value for i in at.info)
    assert "'acme-2-7b-0601' is now Acme 2 7B (acme-2-7b)" in notice
    assert at.query_params["model"] == "acme-2-7b"


def test_an_unknown_id_says_so_and_offers_search(store) -> None:
    at = run_page("llm/model.py", model="acme-9-700b")
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "No model 'acme-9-700b' in this snapshot" in warning
    assert "llm_leaderboard?q=acme-9-700b" in warning and "Closest:" in warning
    assert not at.info  # no model is passed off as the one asked for


def test_movers_stay_within_one_product_line_and_size_class(store) -> None:
    at = run_page("llm/movers.py")
    assert not at.exception
    moves = tables(at)[0].value
    pairs = set(zip(moves["predecessor_name"], moves["display_name"], strict=True))
    assert ("Acme 1 7B", "Acme 2 7B") in pairs
    assert not any(new == "Acme 2 70B" for _, new in pairs)  # 70B follows no 7B
    assert not moves["display_name"].duplicated().any()  # one row per checkpoint
    assert pd.Series([n for n in moves["display_name"] if n.startswith("Beta")]).size <= 1
