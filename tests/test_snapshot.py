"""Catalog validation, content-hash versions and atomic snapshot builds (core.snapshot)."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analytics.core import db, paths, problems, schema, snapshot
from analytics.core.problems import at, display_path
from analytics.core.snapshot import checks, parse
from tests.fixtures import committed
from tests.fixtures.catalogs import edit, read_rows, write_catalog, write_table

BUILD_MODULE = importlib.import_module("analytics.core.snapshot.build")


def tree_digest(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder`` (byte-identity check)."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    } | {p.relative_to(folder).as_posix() + "/": "" for p in folder.rglob("*") if p.is_dir()}


@pytest.fixture()
def catalog(tmp_path: Path) -> Path:
    """The small valid catalog (tests/fixtures/catalogs.py) in tmp_path."""
    return write_catalog(tmp_path / "catalog")


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    """A snapshots folder that already holds one unrelated file (it must stay untouched)."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    (folder / "README").write_text("keep me\n")
    return folder


def test_valid_catalog_has_no_problems(catalog: Path) -> None:
    assert snapshot.validate(catalog) == []


def _rejected(catalog: Path, store: Path) -> list[str]:
    before = tree_digest(store)
    with pytest.raises(snapshot.CatalogError) as info:
        snapshot.build(catalog, store)
    assert tree_digest(store) == before, "a rejected build wrote something"
    assert snapshot.validate(catalog) == info.value.problems
    first = info.value.problems[0]
    assert problems.line(info.value.where, info.value.what, info.value.fix) == first
    return info.value.problems


def _where(catalog: Path, name: str, line: int | None = None) -> str:
    shown = display_path(catalog / name)
    return shown if line is None else f"{shown}:{line}"


def test_unknown_model_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 4, model_id="gpt-9")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 4)}: model_id 'gpt-9' is not in models.csv; "
        "fix: add the model or correct the id"
    ]


def test_unknown_gpu_in_throughput_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "throughput.csv", 2, gpu_id="rtx-9090")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'throughput.csv', 2)}: gpu_id 'rtx-9090' is not in gpus.csv; "
        "fix: add the GPU or correct the id"
    ]


def test_score_above_bound_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 2, score="105")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 2)}: score 105 is outside [0, 100], the bounds of "
        "benchmark 'mmlu'; fix: correct the score, or the bounds in benchmarks.csv"
    ]


def test_inverted_bounds_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "benchmarks.csv", 3, lower_bound="1600", upper_bound="800")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'benchmarks.csv', 3)}: lower_bound 1600 is above upper_bound 800; "
        "fix: swap the two bounds"
    ]


def test_unknown_source_kind_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 3, source_kind="vendor")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 3)}: source_kind 'vendor' is not one of: "
        "independent, arena, admin-run, curated, self-reported; fix: use one of those values"
    ]


def test_bad_source_url_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 5, source_url="www.example.org")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 5)}: source_url 'www.example.org' is not an http(s) "
        "link; fix: write the full link, starting with https://"
    ]


def test_empty_source_url_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 5, source_url="")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 5)}: source_url is empty; fix: fill it in"
    ]


def test_unknown_gpu_kind_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "gpus.csv", 3, kind="cloud")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'gpus.csv', 3)}: kind 'cloud' is not one of: datacenter, consumer, "
        "apple; fix: use one of those values"
    ]


def test_missing_column_rejected(catalog: Path, store: Path) -> None:
    header, rows = read_rows(catalog / "scores.csv")
    header.remove("source_url")
    write_table(catalog / "scores.csv", header, rows)
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 1)}: missing column 'source_url'; "
        "fix: add the column 'source_url' (str) to the header"
    ]


def test_missing_optional_column_is_allowed_and_built_as_nulls(catalog: Path, store: Path) -> None:
    header, rows = read_rows(catalog / "models.csv")
    header.remove("vram_q4_gb")
    write_table(catalog / "models.csv", header, rows)
    result = snapshot.build(catalog, store)
    con = db.connect(result.version, snapshots_dir=store, runs_dir=store / "none")
    assert db.query(con, "SELECT count(vram_q4_gb) AS n FROM models")["n"].tolist() == [0]


def test_bad_date_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "models.csv", 3, release_date="15/06/2024")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'models.csv', 3)}: release_date '15/06/2024' is not an ISO date; "
        "fix: write the date as YYYY-MM-DD"
    ]


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("is_moe", "yes", "is not a boolean; fix: write true or false"),
        ("n_layers", "32.5", "is not a whole number; fix: write an integer such as 32"),
        ("total_params_b", "7B", "is not a number; fix: write a plain number such as 71.3"),
        ("total_params_b", "nan", "is not a number; fix: write a plain number such as 71.3"),
    ],
)
def test_bad_types_rejected(
    catalog: Path, store: Path, column: str, value: str, expected: str
) -> None:
    edit(catalog / "models.csv", 2, **{column: value})
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'models.csv', 2)}: {column} '{value}' {expected}"
    ]


def test_required_cell_empty_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "models.csv", 4, family="")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'models.csv', 4)}: family is empty; fix: fill it in"
    ]


def test_duplicate_key_rejected(catalog: Path, store: Path) -> None:
    header, rows = read_rows(catalog / "scores.csv")
    write_table(catalog / "scores.csv", header, [*rows, dict(rows[2], score="80")])
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv', 8)}: duplicate key (model_id='beta-70b', "
        "benchmark_id='mmlu', source_kind='self-reported', source_name='self-reported source'), "
        "first on line 4; fix: remove or merge one of the rows"
    ]


def test_ambiguous_alias_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "models.csv", 3, aliases="Beta-70B;ALPHA_7B")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'models.csv', 3)}: alias 'ALPHA_7B' also names model_id 'alpha-7b' "
        "(line 2); fix: keep each name on one row only, or make the names distinct"
    ]


def test_gpu_alias_equal_to_other_gpu_id_rejected(catalog: Path, store: Path) -> None:
    edit(catalog / "gpus.csv", 3, aliases="RTX 4090")
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'gpus.csv', 3)}: alias 'RTX 4090' also names gpu_id 'rtx-4090' "
        "(line 2); fix: keep each name on one row only, or make the names distinct"
    ]


def test_empty_scores_table_rejected(catalog: Path, store: Path) -> None:
    header, _ = read_rows(catalog / "scores.csv")
    write_table(catalog / "scores.csv", header, [])
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'scores.csv')}: table is empty (header only); fix: add data rows"
    ]


def test_zero_byte_and_missing_files_rejected(catalog: Path, store: Path) -> None:
    (catalog / "gpus.csv").write_bytes(b"")
    (catalog / "throughput.csv").unlink()
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'throughput.csv')}: file is missing; fix: add it with the columns "
        "listed for 'throughput' in analytics/core/schema.py",
        f"{_where(catalog, 'gpus.csv')}: file is empty; "
        "fix: add the header row and at least one data row",
    ]


def test_ragged_row_and_bad_json_rejected(catalog: Path, store: Path) -> None:
    with (catalog / "benchmarks.csv").open("a") as f:
        f.write("gsm8k,GSM8K,math,true,0,100\n")
    (catalog / "extra" / "notes.json").write_text('{"weights":\n  {"A": 1,}\n}\n')
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'benchmarks.csv', 4)}: row has 6 cells but the header has 8; "
        "fix: quote cells that contain commas",
        f"{_where(catalog, 'extra/notes.json', 2)}: invalid JSON (Expecting property name enclosed "
        "in double quotes); fix: correct the syntax",
    ]


def test_every_problem_is_reported_at_once(catalog: Path, store: Path) -> None:
    edit(catalog / "scores.csv", 2, model_id="gpt-9", source_kind="vendor")
    edit(catalog / "models.csv", 2, release_date="yesterday")
    problems = _rejected(catalog, store)
    assert len(problems) == 3
    assert all("; fix: " in line for line in problems)


def test_registered_validator_runs_and_blocks(
    catalog: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "_VALIDATORS", {})
    monkeypatch.setattr(checks, "_DISCOVERED", True)

    def weights_sum_to_three(catalog_dir: Path) -> list[str]:
        weights = json.loads((catalog_dir / "extra" / "notes.json").read_text())["weights"]
        if sum(weights.values()) == 3:
            return []
        fix = "set the A:B:C weights to 1:1:1"
        return [at(catalog_dir / "extra" / "notes.json", None, "weights", fix)]

    snapshot.register_validator("fl-policy", weights_sum_to_three)
    assert snapshot.validate(catalog) == []
    (catalog / "extra" / "notes.json").write_text('{"weights": {"A": 2, "B": 1, "C": 1}}')
    assert _rejected(catalog, store) == [
        f"{_where(catalog, 'extra/notes.json')}: weights; fix: set the A:B:C weights to 1:1:1"
    ]


def test_crashing_validator_blocks_the_build(
    catalog: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks, "_VALIDATORS", {})
    monkeypatch.setattr(checks, "_DISCOVERED", True)
    snapshot.register_validator("broken", lambda _dir: [][0])
    (problem_line,) = _rejected(catalog, store)
    assert "validator 'broken' crashed (IndexError" in problem_line


def test_version_is_a_stable_content_hash(catalog: Path, tmp_path: Path) -> None:
    version = snapshot.catalog_version(catalog)
    assert len(version) == 11 and version[0] == "v" and int(version[1:], 16) >= 0
    copy = write_catalog(tmp_path / "elsewhere")
    assert snapshot.catalog_version(copy) == version  # location and mtimes do not matter
    edit(copy / "scores.csv", 2, score="63.6")
    assert snapshot.catalog_version(copy) != version
    edit(copy / "scores.csv", 2, score="63.5")
    assert snapshot.catalog_version(copy) == version
    (copy / "notes.md").write_text("not data\n")
    assert snapshot.catalog_version(copy) == version
    crlf = (copy / "gpus.csv").read_bytes().replace(b"\n", b"\r\n")
    (copy / "gpus.csv").write_bytes(crlf)
    assert snapshot.catalog_version(copy) != version  # bytes count, line endings included
    assert snapshot.validate(copy) == []


def test_build_writes_typed_parquet_and_manifest(catalog: Path, store: Path) -> None:
    result = snapshot.build(catalog, store)
    assert result.created and result.version == snapshot.catalog_version(catalog)
    assert result.path == store / result.version
    assert result.counts == {
        "api_index_cost": 0,
        "api_speed": 0,
        "benchmarks": 2,
        "copies": 0,
        "disagreements": 0,
        "extra_sample": 1,
        "gpus": 2,
        "models": 3,
        "retired": 0,
        "scores": 6,
        "sources": 1,
        "throughput": 1,
    }
    assert result.categories == 2
    files = sorted(p.relative_to(result.path).as_posix() for p in result.path.rglob("*"))
    assert files == [
        "MANIFEST.json",
        "api_index_cost.parquet",
        "api_speed.parquet",
        "benchmarks.parquet",
        "copies.parquet",
        "disagreements.parquet",
        "extra",
        "extra/notes.json",
        "extra_sample.parquet",
        "gpus.parquet",
        "models.parquet",
        "retired.parquet",
        "scores.parquet",
        "sources.parquet",
        "throughput.parquet",
    ]
    manifest = snapshot.read_manifest(result.path)
    assert manifest["version"] == result.version and manifest["tables"] == result.counts
    assert manifest["json"] == ["extra/notes.json"]
    schema_csvs = {f"{n}.csv" for n in schema.TABLES}
    assert set(manifest["files"]) == schema_csvs | {"extra/sample.csv", "extra/notes.json"}
    assert (result.path / "extra" / "notes.json").read_bytes() == (
        catalog / "extra" / "notes.json"
    ).read_bytes()
    assert [p.name for p in store.iterdir() if p.name.startswith(".")] == []


def test_existing_version_is_not_rewritten(catalog: Path, store: Path) -> None:
    first = snapshot.build(catalog, store)
    before = tree_digest(store)
    (first.path / "scores.parquet").touch()
    again = snapshot.build(catalog, store)
    assert not again.created and again.version == first.version and again.counts == first.counts
    assert tree_digest(store) == before
    edit(catalog / "scores.csv", 3, score="79.5")
    changed = snapshot.build(catalog, store)
    assert changed.created and changed.version != first.version
    listed = {m["version"] for m in snapshot.list_snapshots(store)}
    assert listed == {first.version, changed.version}


def test_db_views_over_built_snapshot(catalog: Path, store: Path) -> None:
    result = snapshot.build(catalog, store)
    con = db.connect(result.version, snapshots_dir=store, runs_dir=store / "no-runs")
    for name in ("models", "benchmarks", "scores", "gpus", "throughput", "extra_sample"):
        assert db.has_table(con, name)
    models = db.query(con, "SELECT * FROM models ORDER BY model_id")
    assert list(models.columns[: len(schema.TABLES["models"])]) == [
        c.name for c in schema.TABLES["models"]
    ]
    assert models["total_params_b"].tolist()[:2] == [7.0, 70.6]
    assert models["is_moe"].tolist() == [False, False, True]
    assert str(models["release_date"][0]) == "2024-03-01 00:00:00"
    types = dict(
        db.query(
            con,
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'models'",
        ).itertuples(index=False)
    )
    assert types["n_layers"] == "BIGINT" and types["release_date"] == "DATE"
    assert types["open_weights"] == "BOOLEAN" and types["vram_q4_gb"] == "DOUBLE"
    extra = db.query(con, "SELECT * FROM extra_sample")
    assert extra["bytes_per_param"].tolist() == [2] and extra["method"].tolist() == ["lora"]
    per_kind = db.query(con, "SELECT source_kind, count(*) AS n FROM scores GROUP BY 1 ORDER BY 1")
    assert dict(per_kind.itertuples(index=False)) == {
        "arena": 2,
        "curated": 1,
        "independent": 1,
        "self-reported": 2,
    }


def test_cli_build_list_validate(catalog: Path, store: Path, capsys: pytest.CaptureFixture) -> None:
    args = ["--catalog", str(catalog), "--snapshots", str(store)]
    assert snapshot.main(["snapshot", "validate", *args]) == 0
    assert snapshot.main(["snapshot", "build", *args]) == 0
    out = capsys.readouterr().out.splitlines()
    version = snapshot.catalog_version(catalog)
    assert out[-2] == (
        f"snapshot {version}: 3 models, 2 benchmarks (2 categories), 6 scores, 2 gpus, "
        "1 throughput rows; extra tables: extra_sample (1 rows)"
    )
    assert snapshot.main(["snapshot", "list", *args]) == 0
    listed = capsys.readouterr().out.strip().splitlines()
    assert len(listed) == 1 and listed[0].endswith(out[-2])


def test_cli_failure_prints_every_problem_and_writes_nothing(
    catalog: Path, store: Path, capsys: pytest.CaptureFixture
) -> None:
    edit(catalog / "scores.csv", 4, model_id="gpt-9")
    edit(catalog / "scores.csv", 5, score="-1")
    before = tree_digest(store)
    code = snapshot.main(
        ["snapshot", "build", "--catalog", str(catalog), "--snapshots", str(store)]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 3 and err[-1] == "2 problems; nothing written"
    assert tree_digest(store) == before


def test_cli_missing_catalog(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    missing = tmp_path / "nope"
    code = snapshot.main(
        ["snapshot", "build", "--catalog", str(missing), "--snapshots", str(tmp_path / "s")]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err[0].endswith(
        "catalog folder is missing; fix: create it, or pass --catalog DIR"
    )
    assert not (tmp_path / "s").exists()


def test_committed_catalog_validates_and_builds(tmp_path: Path) -> None:
    committed.catalog_file("scores.csv")
    problems = snapshot.validate(paths.CATALOG_DIR)
    assert problems == [], "\n".join(problems[:20])
    result = snapshot.build(paths.CATALOG_DIR, tmp_path / "snapshots")
    assert result.counts["models"] > 0 and result.counts["scores"] > 0
    con = db.connect(result.version, snapshots_dir=tmp_path / "snapshots", runs_dir=tmp_path)
    assert db.query(con, "SELECT count(*) AS n FROM scores")["n"][0] == result.counts["scores"]


def test_track_catalog_checks_are_listed_and_import() -> None:
    package = paths.REPO_ROOT / "analytics"
    found = {
        ".".join(("analytics", *p.relative_to(package).with_suffix("").parts))
        for p in package.rglob("*catalog_checks.py")
    }
    assert found == set(snapshot.CHECK_MODULES), "list every *catalog_checks.py in CHECK_MODULES"
    snapshot.registered_validators()
    assert checks._discover_checks() == []
    assert all(m in sys.modules for m in snapshot.CHECK_MODULES)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_cells_round_trip(value: float) -> None:
    assert parse._parse_cell("float", repr(value)) == value


@given(st.integers(min_value=-(2**62), max_value=2**62))
def test_int_cells_round_trip(value: int) -> None:
    assert parse._parse_cell("int", str(value)) == value
    assert parse._infer_type([str(value), ""]) == "int"


@given(st.text(max_size=30), st.from_regex(r"[a-z0-9.]{1,8}", fullmatch=True))
def test_name_normalisation(name: str, word: str) -> None:
    once = snapshot.normalise_name(name)
    assert snapshot.normalise_name(once) == once
    spaced, joined = f"{word} {word.upper()}", f"{word}_-_{word}"
    assert snapshot.normalise_name(spaced) == snapshot.normalise_name(joined)


def test_concurrent_build_keeps_the_first_snapshot(
    catalog: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = BUILD_MODULE._write_snapshot

    def another_process_wins(*args) -> None:
        monkeypatch.setattr(BUILD_MODULE, "_write_snapshot", real_write)
        snapshot.build(catalog, store)  # finishes while our temp folder is being written
        real_write(*args)

    monkeypatch.setattr(BUILD_MODULE, "_write_snapshot", another_process_wins)
    result = snapshot.build(catalog, store)
    assert not result.created and (result.path / "MANIFEST.json").is_file()
    assert sorted(p.name for p in store.iterdir()) == ["README", result.version]
