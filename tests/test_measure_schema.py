"""One run-record schema: the writer, the inbox validator and `measure verify` agree on it."""

from __future__ import annotations

import pytest

from analytics.core import run_schema
from measure import record as rec
from measure import verify
from measure.community import validate
from measure.runner import RunRequest, run_measurement
from tests.fixtures.community.records import make_record

FIXTURE = "tests/fixtures/measure/busy_adapter.py:BusyWait2ms"
SCHEMA_PATHS = {f.path for f in run_schema.RECORD}


@pytest.fixture(scope="module")
def built() -> dict:
    """A record of a registered adapter, built by ``measure.record.build``."""
    return make_record()


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> dict:
    """A record the runner wrote for an adapter outside the registry (no ``adapter.info``)."""
    out = tmp_path_factory.mktemp("runs")
    return run_measurement(RunRequest(adapter=FIXTURE, out=out, runs=1, warmup=1, calls=3))


def test_every_schema_field_is_produced_with_its_kind(built):
    assert run_schema.first_problem(built, run_schema.RECORD) is None
    for run in built["runs"]:
        assert run_schema.first_problem(run, run_schema.RUN) is None
    for item in built["inputs"]["files"]:
        assert run_schema.first_problem(item, run_schema.INPUT_FILE) is None
    missing = [f.path for f in run_schema.RECORD if f.required and f.path not in _paths(built)]
    assert not missing


def test_every_key_the_writer_produces_is_in_the_schema(built, measured):
    for record in (built, measured):
        assert set(record) <= SCHEMA_PATHS
        assert set(run_schema.top_level_keys()) <= set(record)
        run_keys = {f.path.split(".")[0] for f in run_schema.RUN}
        assert all(set(run) <= run_keys for run in record["runs"])
    outside = [f for f in run_schema.RECORD if not f.path.startswith("adapter.info")]
    assert run_schema.first_problem(measured, tuple(outside)) is None


def test_the_validator_checks_only_schema_fields_and_accepts_a_built_record(built):
    assert {f.path for f in validate.RECORD_FIELDS} <= SCHEMA_PATHS
    assert {f.path for f in validate.RUN_FIELDS} <= {f.path for f in run_schema.RUN}
    assert all(f.kind in run_schema.KINDS for f in (*run_schema.RECORD, *run_schema.RUN))
    validate.check_record_schema(built, "built.zip")  # raises on any disagreement
    validate.check_recompute(built, "built.zip")


def test_verify_recomputes_exactly_the_schema_figures(built, measured):
    for record in (built, measured):
        keys = rec.figure_keys(record)
        assert set(keys) <= {f.path for f in run_schema.RECORD if f.figure}
        rec.validate(record)
        checks = list(verify._figure_checks(record, rec.recompute(record)))
        assert [c.name for c in checks] == keys and all(c.state == "ok" for c in checks)


def test_a_missing_top_level_key_is_refused_by_name(built):
    broken = {k: v for k, v in built.items() if k != "weights"}
    with pytest.raises(ValueError, match="'weights'"):
        rec.validate(broken)


def _paths(doc: dict, prefix: str = "") -> set[str]:
    """Every dotted key path of a nested dict."""
    out = set()
    for key, value in doc.items():
        path = f"{prefix}{key}"
        out.add(path)
        if isinstance(value, dict):
            out |= _paths(value, f"{path}.")
    return out
