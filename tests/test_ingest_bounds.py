"""Issue 27, item 8: importers and the catalog refuse what would exhaust or mislead them.

Bounded JSON depth and file size, empty and cut-off CSVs, a board shorter than its overall
board, NaN prices, catalog values outside their ranges, and override rows checked in full before
any is applied; every refusal is one line naming the file (and row or line)."""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest

from analytics.core.snapshot import validate
from analytics.llm.ingest import bfcl, common, litellm
from analytics.llm.ingest import overrides as ov
from analytics.llm.ingest.common import Drops, IngestError
from analytics.llm.ingest.identity import match_key
from tests.fixtures.catalogs import edit, write_catalog

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def test_deeply_nested_json_is_one_line_naming_the_file(tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    with pytest.raises(IngestError) as err:
        common.read_source_json(path)
    assert err.value.where == str(path) and "nests" in err.value.what
    assert err.value.fix == common.RESTORE and "\n" not in str(err.value)


def test_a_source_over_the_size_cap_is_refused_before_it_is_read(tmp_path, monkeypatch) -> None:
    path = tmp_path / "big.csv"
    path.write_text("a,b\n" + "1,2\n" * 1000, "utf-8")
    monkeypatch.setattr(common, "SOURCE_MAX_BYTES", 1000)
    read = []
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or b"")
    with pytest.raises(IngestError) as err:
        common.read_source_csv(path, ("a",), "a,b")
    assert err.value.where == str(path)
    assert err.value.what.endswith("over the 1000 bytes a source may have")
    assert read == []  # refused on its size alone


def test_an_empty_csv_names_the_file(tmp_path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("", "utf-8")
    with pytest.raises(IngestError) as err:
        common.read_source_csv(path, (), "a header")
    assert (err.value.where, err.value.what) == (str(path), "empty (no header, no rows)")


def test_a_csv_cut_off_mid_row_names_the_file_and_line(tmp_path) -> None:
    path = tmp_path / "cut.csv"
    path.write_text('a,b,c\n1,2,3\n4,"long\ntext",6\n7,8', "utf-8")
    with pytest.raises(IngestError) as err:
        common.read_source_csv(path, ("a",), "a,b,c")
    assert err.value.where == f"{path}:4" and err.value.what.startswith("the last row has 2 of 3")
    path.write_text('a,b,c\n1,2,3\n4,"long\ntext",6', "utf-8")  # complete, no final newline
    assert len(common.read_source_csv(path, ("a",), "a,b,c")) == 2


def test_a_bfcl_board_shorter_than_the_overall_board_is_refused(tmp_path) -> None:
    root = tmp_path / "bfcl"
    shutil.copytree(FIXTURES / "bfcl", root)
    live = root / "data_live.csv"
    lines = live.read_text("utf-8").splitlines(keepends=True)
    live.write_text("".join(lines[:-5]), "utf-8")  # five entries fewer, cut at a line end
    with pytest.raises(IngestError, match=r"data_live\.csv: \d+ entries, but data_overall"):
        bfcl.load(root, Drops())
    assert bfcl.load(FIXTURES / "bfcl", Drops())  # the intact fixture still loads


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_a_nan_price_in_litellm_names_the_file_and_key(tmp_path, value) -> None:
    src = FIXTURES / "litellm" / litellm.FILENAME
    data = src.read_text("utf-8").replace(
        '"input_cost_per_token": 2.5e-06', f'"input_cost_per_token": {value}', 1
    )
    assert value in data
    (tmp_path / litellm.FILENAME).write_text(data, "utf-8")
    with pytest.raises(IngestError) as err:
        litellm.load(tmp_path, Drops())
    assert litellm.FILENAME in str(err.value) and "gpt-4o-2024-08-06" in str(err.value)


# --- catalog validation bounds ---------------------------------------------------------------


@pytest.mark.parametrize(
    "table, line, cells, wanted",
    [
        ("models", 2, {"release_date": "2099-01-01"}, "release_date 2099-01-01 is after today"),
        ("models", 2, {"total_params_b": "-7"}, "total_params_b -7 is outside"),
        ("models", 2, {"total_params_b": "1e300"}, "total_params_b 1e+300 is outside"),
        ("models", 2, {"usd_per_mtok_input": "-1"}, "usd_per_mtok_input -1 is outside"),
        ("gpus", 2, {"memory_gb": "0"}, "memory_gb 0 is outside"),
        ("gpus", 3, {"memory_gb": "-80"}, "memory_gb -80 is outside"),
        ("throughput", 2, {"tokens_per_s": "-5"}, "tokens_per_s -5 is outside"),
        ("scores", 2, {"date": (date.today() + timedelta(days=2)).isoformat()}, "is after today"),
    ],
)
def test_validation_bounds_each_figure(tmp_path, table, line, cells, wanted) -> None:
    catalog = write_catalog(tmp_path / "catalog")
    assert validate(catalog) == []
    edit(catalog / f"{table}.csv", line, **cells)
    problems = validate(catalog)
    assert any(f"{table}.csv:{line}" in p and wanted in p and "fix:" in p for p in problems), (
        problems
    )


# --- the override table ----------------------------------------------------------------------

HEADER = ",".join(ov.COLUMNS)
URL = "https://example.org/page"


def _overrides(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "overrides.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", "utf-8")
    return path


def test_every_bad_override_row_is_reported_before_any_is_applied(tmp_path) -> None:
    path = _overrides(
        tmp_path,
        f"alias,Foo 1,foo-1,,,,,{URL},why,extra,cells",
        f"set,foo-1,,,,release_date,2026-13-45,{URL},why",
        f"set,foo-1,,,,total_params_b,0,{URL},why",
        f"alias,a-one,b-two,,,,,{URL},why",
        f"alias,b-two,a-one,,,,,{URL},why",
    )
    with pytest.raises(ValueError) as err:
        ov.load(path, match_key=match_key)
    lines = str(err.value).splitlines()
    assert any(":2: row has 11 cells but the header has 9" in line for line in lines)
    assert any(":3:" in line and "2026-13-45" in line for line in lines)
    assert any(":4:" in line and "total_params_b" in line for line in lines)
    assert any(":5:" in line and "comes back to itself" in line for line in lines)
    assert all(str(path) in line and "fix:" in line for line in lines)


def test_rows_the_built_catalog_leaves_without_effect_are_named(tmp_path) -> None:
    path = _overrides(
        tmp_path,
        f"set,no-such-model,,,,release_date,2024-01-01,{URL},why",
        f"alias,Some Name,missing-target,,,,,{URL},why",
        f"distinct-from,real-a,gone-b,,,,,{URL},why",
        f"set,real-a,,,,release_date,2024-01-01,{URL},why",
    )
    table = ov.load(path, match_key=match_key)
    idle = ov.unapplied(table, {"real-a"}, {"real-a"})
    assert [line.split(": ", 1)[0].rsplit(":", 1)[-1] for line in idle] == ["2", "3", "4"]
    assert all("no model of the built catalog has" in line for line in idle)


def test_an_unpublished_row_names_a_model_and_a_missing_fact_without_a_value(tmp_path) -> None:
    good = f"unpublished,real-a,,,,release_date,,{URL},no page dates it"
    table = ov.load(_overrides(tmp_path, good), match_key=match_key)
    assert table.unpublished == {"real-a": {"release_date": "no page dates it"}}
    bad = (
        f"unpublished,real-a,,,,release_date,2024-01-01,{URL},a value is a set row",
        f"unpublished,real-a,,,,licence_raw,,{URL},not a fact the audit asks for",
        f"unpublished,Real A,,,,release_date,,{URL},a spelling, not a model id",
    )
    with pytest.raises(ValueError) as err:
        ov.load(_overrides(tmp_path, *bad), match_key=match_key)
    lines = str(err.value).splitlines()
    assert [line.split(": ", 1)[0].rsplit(":", 1)[-1] for line in lines] == ["2", "3", "4"]
    assert all("fix:" in line for line in lines)


def test_an_unpublished_row_is_idle_once_a_source_states_the_fact(tmp_path) -> None:
    path = _overrides(
        tmp_path,
        f"unpublished,real-a,,,,release_date,,{URL},no page dates it",
        f"unpublished,gone-b,,,,release_date,,{URL},no page dates it",
        f"unpublished,real-c,,,,total_params_b,,{URL},no card counts it",
    )
    table = ov.load(path, match_key=match_key)
    rows = [{"model_id": "real-a", "release_date": "2024-01-01", "total_params_b": None},
            {"model_id": "real-c", "release_date": "", "total_params_b": None}]
    idle = ov.unapplied(table, {"real-a", "real-c"}, set(), ov.filled_fields(rows))
    assert [line.split(": ", 1)[0].rsplit(":", 1)[-1] for line in idle] == ["2", "3"]
    assert "now states it" in idle[0] and "no model of the built catalog" in idle[1]


def test_the_committed_override_table_has_no_idle_row() -> None:
    import pandas as pd

    from analytics.core import paths

    models = pd.read_csv(paths.CATALOG_DIR / "models.csv", dtype=str, keep_default_na=False)
    table = ov.load(ov.OVERRIDES_CSV, match_key=match_key)
    checkpoints = set(models["checkpoint_id"]) | set(models["model_id"])
    filled = ov.filled_fields(models.to_dict("records"))
    idle = ov.unapplied(table, set(models["model_id"]), checkpoints, filled)
    assert not idle, "\n".join(idle)
