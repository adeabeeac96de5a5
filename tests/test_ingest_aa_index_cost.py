"""What it cost Artificial Analysis to run its Intelligence Index, per model: the importer on a
tiny hand-made ``llms.json`` (test data, not real figures), the one-row-per-catalog-model step,
and, with ../shared, every committed row of ``data/catalog/api_index_cost.csv`` re-read from the
Artificial Analysis file it names."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from analytics.core import paths
from analytics.llm.ingest import aa_api_speed, aa_index_cost, artificial_analysis, build
from analytics.llm.ingest.common import Drops, IngestError
from analytics.llm.ingest.overrides import Overrides
from analytics.llm.ingest.resolver import make_resolver

FIX = Path(__file__).parent / "fixtures" / "ingest" / "aa_index_cost" / "2026-08-22"
CATALOG_CSV = paths.CATALOG_DIR / "api_index_cost.csv"
AA_SHARED = paths.SHARED_DATA_DIR / build.AA_DIR


def _reasons(drops: Drops) -> dict[str, int]:
    return {reason: n for (src, reason), n in drops.counts.items() if src == aa_index_cost.SOURCE}


def test_rows_and_drops():
    drops = Drops()
    rows = aa_index_cost.load(FIX, drops)
    assert [r["model_name"] for r in rows] == ["model-a", "unlisted-model"]
    assert rows[0] == {
        "model_name": "model-a",
        "name": "Model A (high)",
        "index_cost_usd": 812.5,  # the total, never the input or output part
        "measured_on": "2026-08-22",
        "source_name": "Artificial Analysis (cost to run its Intelligence Index)",
        "source_url": "https://artificialanalysis.ai/models/model-a",
    }
    assert rows[1]["index_cost_usd"] == 41.0  # an integer in the file: a float in the row
    assert _reasons(drops) == {
        aa_index_cost.NOT_PUBLISHED: 2,  # model-b: null; model-s: no pricing at all
        aa_index_cost.COST_ZERO: 1,  # model-c: listed at a price of 0
        aa_api_speed.NO_SLUG: 1,
        aa_api_speed.DUPLICATE_SLUG: 1,  # the second model-a (first kept)
    }


def test_one_row_per_catalog_model_and_an_unresolved_name_counted():
    resolver = make_resolver(Overrides())
    model_id = resolver.resolve("Model A (high)")  # the catalog lists Model A only
    drops = Drops()
    rows = build.aa_catalog_rows(
        "api_index_cost", aa_index_cost.load(FIX, Drops()), resolver, {model_id}, drops,
        aa_index_cost.SOURCE, build.INDEX_COST_NOT_IN_CATALOG,
    )
    assert rows == [{
        "model_id": model_id,
        "index_cost_usd": 812.5,
        "measured_on": "2026-08-22",
        "source_name": aa_index_cost.SOURCE_NAME,
        "source_url": "https://artificialanalysis.ai/models/model-a",
    }]
    assert _reasons(drops) == {build.INDEX_COST_NOT_IN_CATALOG: 1}  # 'Unlisted Model'


def test_a_cost_that_is_not_a_number_refuses_the_file(tmp_path: Path):
    data = json.loads((FIX / "llms.json").read_text())
    data["models"][1]["pricing"]["intelligence_index_cost_total"] = "cheap"
    folder = tmp_path / "2026-08-22"
    folder.mkdir()
    (folder / "llms.json").write_text(json.dumps(data))
    with pytest.raises(IngestError) as err:
        aa_index_cost.load(folder, Drops())
    assert err.value.where == str(folder / "llms.json")
    assert "pricing.intelligence_index_cost_total = 'cheap' is not a number" in err.value.what


# --- the committed catalog against ../shared -------------------------------------------------

needs_aa = pytest.mark.skipif(not AA_SHARED.is_dir(), reason=f"{AA_SHARED} is absent")


def _committed() -> list[dict]:
    with CATALOG_CSV.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _costs_by_slug(day: str) -> dict[str, float]:
    """slug -> cost to run the Intelligence Index, as AA's file of that day states it."""
    data = json.loads((AA_SHARED / day / "llms.json").read_text(encoding="utf-8"))
    return {
        m["slug"]: m["pricing"][aa_index_cost.COST_KEY]
        for m in data["models"]
        if (m.get("pricing") or {}).get(aa_index_cost.COST_KEY) is not None
    }


@pytest.mark.shared
@needs_aa
def test_every_committed_row_is_the_figure_of_the_file_it_names():
    rows = _committed()
    assert rows, f"{CATALOG_CSV}: no rows; fix: python -m analytics ingest"
    with (paths.CATALOG_DIR / "models.csv").open(encoding="utf-8", newline="") as f:
        models = {r["model_id"] for r in csv.DictReader(f)}
    slugs = []
    for row in rows:
        costs = _costs_by_slug(row["measured_on"])  # each row keeps its own file's day
        slug = row["source_url"].removeprefix(f"{artificial_analysis.SITE}/models/")
        assert float(row["index_cost_usd"]) == pytest.approx(costs[slug], rel=1e-6), slug
        assert row["source_name"] == aa_index_cost.SOURCE_NAME
        assert row["model_id"] in models
        slugs.append(slug)
    assert len(set(slugs)) == len(slugs) == len({r["model_id"] for r in rows})
    newest = build.newest_first_party(paths.SHARED_DATA_DIR)
    assert {r["measured_on"] for r in rows} == {newest}
    priced = {s for s, usd in _costs_by_slug(newest).items() if usd > 0}
    assert set(slugs) <= priced and len(slugs) >= 0.9 * len(priced)


@pytest.mark.shared
@needs_aa
def test_the_newer_copy_states_no_index_cost():
    """The llmval copy of 2026-10-03 is newer than AA's own file but has no cost field: were one
    added, the importer would have to prefer it per model."""
    _, models = aa_api_speed.read_copy(AA_SHARED / aa_api_speed.COPY_DIR)
    assert not [k for m in models for k in m if "cost" in k.lower()]
