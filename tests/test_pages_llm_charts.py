"""The LLM charts page (AppTest) on the LLM rating snapshot of tests/fixtures/catalogs.py, with a
few list prices added and one release date and one size removed (test data, not real figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analytics.core import db
from tests.fixtures.apptest import fresh_caches, run_page
from tests.fixtures.catalogs import LLM_NEW, llm_catalog_rows, write_parquet_tables, write_snapshot
from tests.fixtures.store import StorePaths

VERSION = "vtest-llm-charts"
PRICES = {  # model_id: input, output USD per million tokens, source, date
    "acme-2-70b": (0.5, 1.5, "https://prices.example.org/acme", "2024-08-01"),
    "beta-pro": (3.0, 15.0, "https://prices.example.org/beta", None),
    "beta-pro-2": (5.0, 15.0, "https://prices.example.org/beta", "2024-10-01"),
}


def _write_priced_snapshot(snapshots: Path) -> None:
    tables = llm_catalog_rows()
    for row in tables["models"]:
        if row["model_id"] in PRICES:
            inp, out, url, date = PRICES[row["model_id"]]
            row.update(usd_per_mtok_input=inp, usd_per_mtok_output=out, price_source_url=url,
                       price_date=date)
        if row["model_id"] == "acme-1-7b":
            row["release_date"] = None
        if row["model_id"] == "acme-2-7b":
            row["total_params_b"] = None
    folder = snapshots / VERSION
    folder.mkdir(parents=True)
    write_parquet_tables(folder, tables)
    (folder / "MANIFEST.json").write_text(json.dumps({"version": VERSION}))


def _serve(store_paths: StorePaths, version: str) -> None:
    store_paths.monkeypatch.setattr(db, "ensure_snapshot", lambda *args, **kwargs: version)
    fresh_caches()


@pytest.fixture()
def store(store_paths: StorePaths) -> Path:
    """The priced LLM snapshot, served."""
    _write_priced_snapshot(store_paths.snapshots)
    _serve(store_paths, VERSION)
    return store_paths.root


def _figures(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _trace_names(fig: dict) -> list[str]:
    return [trace.get("name") for trace in fig["data"]]


def test_charts_page(store: Path) -> None:
    at = run_page("llm/charts.py")
    assert not at.exception
    assert at.title[0].value == "LLM charts"
    figures = _figures(at)
    assert len(figures) == 3
    release, size, price = figures
    assert _trace_names(release) == ["Open weights", "Open weights: best so far",
                                     "Closed weights", "Closed weights: best so far"]
    assert _trace_names(size) == ["Open weights", "Pareto frontier"]
    assert _trace_names(price) == ["Open weights", "Closed weights", "Pareto frontier"]
    assert size["layout"]["xaxis"]["type"] == "log" and price["layout"]["xaxis"]["type"] == "log"
    titles = [fig["layout"]["xaxis"]["title"]["text"] for fig in figures]
    assert (
        titles[0] == "Release date" and "billions" in titles[1] and "USD per million" in titles[2]
    )
    assert all(fig["layout"]["yaxis"]["title"]["text"] == "Elo rating" for fig in figures)
    captions = [c.value for c in at.caption]
    # five ranked models; gamma-r is unrated
    one_left_out = "5 models with an Elo rating: ranked models only (1 unrated model is left out)"
    assert any(one_left_out in c for c in captions)  # "is", not "models are"
    assert any("1 model has no release date." in c for c in captions)  # acme-1-7b
    assert any("1 model has no parameter count." in c for c in captions)  # acme-2-7b
    assert any("2 models have no price." in c and "3:1" in c for c in captions)
    assert any(c.startswith("Data through ") for c in captions)


def test_charts_hover_names_the_model_and_its_price_source(store: Path) -> None:
    price = _figures(run_page("llm/charts.py"))[2]
    texts = [t for trace in price["data"] for t in trace["hovertext"]]
    beta = next(t for t in texts if t.startswith("<b>Beta Pro 2</b>"))
    assert "95% interval" in beta and "Beta Labs" in beta
    assert "$7.5 per 1M tokens" in beta and "prices.example.org, applies from 2024-10-01" in beta
    assert all("usd_per" not in t and "_params" not in t for t in texts)  # no raw column names


def test_charts_page_with_unrated_models(store: Path) -> None:
    at = run_page("llm/charts.py", unrated="1")
    assert not at.exception
    assert at.toggle(key="ch_unrated").value
    assert any("6 models with an Elo rating: ranked and unrated" in c.value for c in at.caption)


def test_charts_page_survives_a_snapshot_without_scores(store_paths: StorePaths) -> None:
    write_snapshot(store_paths.snapshots, "vtest-llm-empty", without_scores=True)
    _serve(store_paths, "vtest-llm-empty")
    at = run_page("llm/charts.py")
    assert not at.exception
    assert len(at.get("plotly_chart")) == 0 and at.info


def test_charts_page_on_the_plain_fixture(store_paths: StorePaths) -> None:
    """No price in the snapshot at all: the price chart is empty and says so."""
    write_snapshot(store_paths.snapshots, LLM_NEW)
    _serve(store_paths, LLM_NEW)
    at = run_page("llm/charts.py")
    assert not at.exception and len(at.get("plotly_chart")) == 3
    assert any("5 models have no price." in c.value for c in at.caption)


def test_the_price_charts_pareto_front_is_labelled_with_names(store: Path) -> None:
    """The frontier's models are named on the chart itself, not only on hover."""
    price = _figures(run_page("llm/charts.py"))[2]
    (front,) = [t for t in price["data"] if t["name"] == "Pareto frontier"]
    assert "text" in front["mode"] and len(front["text"]) == len(front["x"]) > 0
    names = [h.split("</b>")[0].removeprefix("<b>") for h in front["hovertext"]]
    assert list(front["text"]) == names  # each label is its point's model
