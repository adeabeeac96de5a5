"""``python -m analytics snapshot prune``: the repository keeps the served snapshot, the ones the
tests and notebooks pin and the previous one; the others go with their derived folders."""

from __future__ import annotations

import json
from pathlib import Path

from analytics.core.snapshot import cli, prune

BUILT = {  # version -> built_at
    "v0000000001": "2026-11-01T00:00:00Z",
    "v0000000002": "2026-11-02T00:00:00Z",
    "v0000000003": "2026-11-03T00:00:00Z",
    "v0000000004": "2026-11-04T00:00:00Z",
    "v0000000005": "2026-11-05T00:00:00Z",
}


def _store(root: Path) -> tuple[Path, Path]:
    snapshots, derived = root / "data" / "snapshots", root / "data" / "derived"
    for version, built_at in BUILT.items():
        (snapshots / version).mkdir(parents=True)
        manifest = {"version": version, "built_at": built_at, "tables": {}}
        (snapshots / version / "MANIFEST.json").write_text(json.dumps(manifest))
        (derived / version).mkdir(parents=True)
        (derived / version / "elo.parquet").write_bytes(b"x")
    (root / "tests").mkdir()
    (root / "tests" / "test_old.py").write_text('OLD = "v0000000001"  # reads that exact data\n')
    (root / "notebooks").mkdir()
    return snapshots, derived


def test_keeps_served_previous_and_pinned_and_removes_the_rest(tmp_path: Path) -> None:
    snapshots, derived = _store(tmp_path)
    done = prune.prune(snapshots, derived, repo=tmp_path, served="v0000000004")
    assert done.keep == {
        "v0000000004": "served (the current catalog's version)",
        "v0000000003": "previous (the snapshot diff's old side)",
        "v0000000001": "pinned by tests/test_old.py",
    }
    assert done.remove == ["v0000000002", "v0000000005"]
    assert sorted(p.name for p in snapshots.iterdir()) == sorted(done.keep)
    assert sorted(p.name for p in derived.iterdir()) == sorted(done.keep)


def test_dry_run_removes_nothing(tmp_path: Path) -> None:
    snapshots, derived = _store(tmp_path)
    done = prune.prune(snapshots, derived, repo=tmp_path, served="v0000000005", dry_run=True)
    assert done.remove == ["v0000000002", "v0000000003"]
    assert len(list(snapshots.iterdir())) == len(BUILT) == len(list(derived.iterdir()))


def test_a_notebook_pins_too_and_an_unbuilt_served_version_keeps_only_pins(tmp_path: Path) -> None:
    snapshots, _ = _store(tmp_path)
    (tmp_path / "notebooks" / "rendered.md").write_text("executed on snapshot v0000000002\n")
    pins = prune.pinned_versions(tmp_path)
    assert pins == {"v0000000001": "tests/test_old.py", "v0000000002": "notebooks/rendered.md"}
    decided = prune.plan(snapshots, "vffffffffff", pins)
    assert list(decided.keep) == ["v0000000001", "v0000000002"]


def test_the_repository_keeps_only_what_the_rule_keeps(capsys) -> None:
    """No unreferenced snapshot stays committed (run ``snapshot prune`` after a new build)."""
    assert cli.main(["prune", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would remove" not in out, "fix: python -m analytics snapshot prune\n" + out
    assert "served" in out and "previous" in out
