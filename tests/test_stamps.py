"""Hashes remembered by file stamps (``hashing.by_stamps``): the served catalog version and the
derived tables' code hashes are read again only when a file changes, never trusted for a file
written within the last tick of the file system's clock."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from analytics.core import derived, hashing, paths, snapshot
from analytics.core.snapshot import manifest

HOUR_S = 3600


def _age(folder: Path, seconds: float) -> None:
    """Every file under ``folder`` last modified ``seconds`` ago."""
    then = time.time() - seconds
    for path in folder.rglob("*"):
        os.utime(path, (then, then))


def test_a_remembered_value_is_computed_again_when_a_file_changes(tmp_path: Path) -> None:
    data = tmp_path / "a.txt"
    data.write_text("one")
    _age(tmp_path, HOUR_S)
    calls = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert hashing.by_stamps([data], ("test", str(tmp_path)), compute) == 1
    assert hashing.by_stamps([data], ("test", str(tmp_path)), compute) == 1  # remembered
    data.write_text("three")  # another size and mtime
    assert hashing.by_stamps([data], ("test", str(tmp_path)), compute) == 2


def test_a_file_written_just_now_is_never_remembered(tmp_path: Path) -> None:
    data = tmp_path / "a.txt"
    data.write_text("one")  # within RACY_S: a same-size rewrite could keep its mtime
    calls = []
    for _ in range(2):
        hashing.by_stamps([data], ("racy", str(tmp_path)), lambda: calls.append(1))
    assert len(calls) == 2


def test_the_served_catalog_version_follows_an_edit(tmp_path: Path, monkeypatch) -> None:
    catalog = tmp_path / "catalog"
    shutil.copytree(paths.CATALOG_DIR, catalog)
    _age(catalog, HOUR_S)
    first = snapshot.catalog_version_stamped(catalog)
    assert first == snapshot.catalog_version(catalog)
    hashed = []
    real = manifest.catalog_version
    monkeypatch.setattr(manifest, "catalog_version", lambda d: hashed.append(d) or real(d))
    assert snapshot.catalog_version_stamped(catalog) == first and hashed == []  # not re-read
    edited = catalog / "gpus.csv"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert snapshot.catalog_version_stamped(catalog) != first
    assert hashed == [catalog]


def test_a_code_hash_follows_an_edit_of_its_source(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path)
    source = tmp_path / "m.py"
    source.write_text("x = 1\n")
    _age(tmp_path, HOUR_S)
    first = derived.code_hash(["m.py"])
    assert derived.code_hash(["m.py"]) == first
    source.write_text("x = 22\n")
    assert derived.code_hash(["m.py"]) != first
