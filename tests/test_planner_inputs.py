"""The fine-tune planner's precomputed version-level inputs (``analytics.llm.planner_inputs``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from analytics.core import atomic, db
from analytics.llm import catalog as cat
from analytics.llm import derive_cli, finetune_view, planner_inputs, quality, ratings
from tests._sources import computation_modules


def test_sources_cover_every_module_the_tables_are_computed_with() -> None:
    seen = computation_modules("analytics/llm/planner_inputs.py")
    assert seen <= set(planner_inputs.SOURCES), sorted(seen - set(planner_inputs.SOURCES))


def test_committed_planner_inputs_of_the_current_snapshot_are_current() -> None:
    """The first planner render reads these instead of building ~900 checkpoint options."""
    version = db.current_version()
    reason = planner_inputs.TABLES.stale_reason(version)
    assert reason is None, reason


def test_committed_tables_equal_a_fresh_computation() -> None:
    version = db.current_version()
    tables = cat.of_version(version)
    choices, default = planner_inputs.model_options(
        version, pytest.fail, pytest.fail  # stored: neither the catalog nor ratings is read
    )
    want, want_default = finetune_view.planner_models(
        tables.models, tables.scores, ratings.of_version(version)
    )
    pd.testing.assert_frame_equal(choices, want)
    assert default == want_default and default is not None
    stored = planner_inputs.axis_values(version, pytest.fail)
    pd.testing.assert_frame_equal(stored, quality.axis_values(tables.scores, tables.benchmarks))
    ids = planner_inputs.measured_ids(version, pytest.fail)
    assert ids == finetune_view.measured_model_ids(tables)
    assert len(ids) == len(tables.finetune_memory) and any(ids)


@pytest.fixture()
def version(tiny_store: Path) -> str:
    return db.ensure_snapshot()


def test_other_code_never_reads_the_old_file(version: str, monkeypatch) -> None:
    first = planner_inputs.derive(version)
    assert all(p.exists() for p in first)
    reads = []

    def catalog():
        reads.append(1)
        return cat.of_version(version)

    old_choices, old_default = planner_inputs.model_options(version, catalog, pytest.fail)
    assert reads == []  # stored
    monkeypatch.setattr(planner_inputs.TABLES, "source_hash", lambda: "edited-code")
    assert planner_inputs.TABLES.stale_reason(version).endswith(f"derive {version}")
    choices, default = planner_inputs.model_options(
        version, catalog, lambda: ratings.of_version(version)
    )
    assert reads == [1]  # recomputed under the new name, the old file untouched
    pd.testing.assert_frame_equal(choices, old_choices)
    assert default == old_default
    assert planner_inputs.TABLES.path(version, "planner_models").exists()
    assert all(p.exists() for p in first)


def test_a_read_only_folder_serves_the_computed_table(version: str, monkeypatch) -> None:
    def refuse(*_args, **_kwargs):
        raise PermissionError("read-only")

    monkeypatch.setattr(atomic, "write_parquet", refuse)
    table = planner_inputs.axis_values(version, lambda: cat.of_version(version))
    assert not table.empty and not planner_inputs.TABLES.path(version, "axis_values").exists()


def test_derive_planner_only_and_check(version: str, capsys) -> None:
    assert derive_cli.main(["derive", version, "--check", "--planner-only"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "axis_values" not in err[0] and "planner_models_" in err[0]
    assert derive_cli.main(["derive", version, "--planner-only"]) == 0
    out = capsys.readouterr().out.splitlines()
    names = [Path(line).name.split("_")[0] for line in out]
    assert names == ["lineage", "profiles", "fit", "planner", "axis", "measured"]
    assert derive_cli.main(["derive", version, "--check", "--planner-only"]) == 0
    assert derive_cli.main(["derive", version, "--check"]) == 1  # the ratings were not derived
    assert derive_cli.main(["derive", "a", "b"]) == 2  # tests/test_derive_cli.py: its message


def test_a_damaged_stored_table_is_recomputed_and_replaced(version: str) -> None:
    good = planner_inputs.axis_values(version, lambda: cat.of_version(version))
    stored = planner_inputs.TABLES.path(version, "axis_values")
    stored.write_bytes(b"not parquet")
    again = planner_inputs.axis_values(version, lambda: cat.of_version(version))
    pd.testing.assert_frame_equal(again, good)
    pd.testing.assert_frame_equal(pd.read_parquet(stored), good)  # replaced atomically

