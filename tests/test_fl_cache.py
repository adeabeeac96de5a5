"""The on-disk cache of validated and scored FL submissions (``analytics.fl.cache``)."""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import pytest

from analytics.core import atomic
from analytics.fl import board as flb
from analytics.fl import cache, derive, scoring, store
from analytics.fl.policy import load_policy
from analytics.fl.submission import validate_zip, zip_bytes
from tests.fixtures.fl.store import fl_store

SMALL_SET = ["A_cnn_FedAvg.zip", "B_cnn_FedAvg.zip", "C_cnn_FedProx.zip"]


@pytest.fixture()
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fl_store(tmp_path, monkeypatch, SMALL_SET)


def _entries(kind: str = "zip") -> list[Path]:
    return sorted(cache.root().rglob(f"{kind}-*.entry"))


def _count_validations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = cache.validate_zip

    def spy(source, policy, name=None):
        seen.append(name)
        return real(source, policy, name=name)

    monkeypatch.setattr(cache, "validate_zip", spy)
    return seen


def test_a_cache_hit_is_identical_to_a_fresh_validation(data, monkeypatch):
    policy = load_policy()
    first = store.load_all(policy)
    assert len(_entries()) == len(SMALL_SET) and len(first.submissions) == len(SMALL_SET)
    seen = _count_validations(monkeypatch)
    hit = store.load_all(policy)
    assert seen == []  # every ZIP came from its entry
    for file in sorted(store.reference_dir().glob("*.zip")):
        fresh = validate_zip(file, policy)
        cached, entry_id = cache.validated(file, policy)
        assert entry_id is not None and cache.same_validation(cached, fresh)
    assert [s.name for s in hit.submissions] == [s.name for s in first.submissions]
    assert hit.problems == first.problems and hit.sources == first.sources
    # the scores from the cache equal those computed from a fresh validation
    cached_board = flb.load_board()
    fresh_scores = scoring.score(store.load_folder(store.reference_dir(), policy)[0], policy)
    assert cache.same_scores(cached_board.scores, fresh_scores)
    assert seen == [] and len(_entries("scores")) == 1


def test_a_rejected_zip_is_cached_with_the_same_lines(data, monkeypatch):
    bad = store.reference_dir() / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not a zip")
    policy = load_policy()
    fresh = validate_zip(bad, policy)
    assert not fresh.ok
    cache.validated(bad, policy)
    seen = _count_validations(monkeypatch)
    again, _ = cache.validated(bad, policy)
    assert seen == [] and again.problems == fresh.problems and again.submission is None


def test_a_modified_zip_invalidates_its_entry(data, monkeypatch):
    policy = load_policy()
    flb.load_board()
    target = store.reference_dir() / "A_cnn_FedAvg.zip"
    with zipfile.ZipFile(target) as zf:
        files = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(files["manifest.json"])
    files["manifest.json"] = json.dumps(manifest | {"method": "Edited"}).encode()
    target.write_bytes(zip_bytes(files))
    store.write_reference_list()  # a deliberate new reference (as fl-run then fl-derive do)
    seen = _count_validations(monkeypatch)
    loaded = flb.load_board()
    assert seen == ["A_cnn_FedAvg.zip"]  # only the changed ZIP is validated again, in full
    assert "Edited" in {s.method for s in loaded.submissions}
    assert len(_entries()) == len(SMALL_SET) + 1 and len(_entries("scores")) == 2
    # a change that breaks validation is never served from the old entry
    files["runs/digits/nominal/checkpoints.csv"] = b"step,accuracy\n1,2\n"
    target.write_bytes(zip_bytes(files))
    loaded = store.load_all(policy)
    assert "Edited" not in {s.method for s in loaded.submissions}
    assert any(line.startswith("A_cnn_FedAvg.zip") for line in loaded.problems)


def test_other_policy_or_code_is_another_folder(data, monkeypatch):
    policy = load_policy()
    before = cache.key(policy)
    assert cache.key(dataclasses.replace(policy, perturbations=())) != before
    monkeypatch.setattr(cache, "FORMAT", cache.FORMAT + 1)
    assert cache.key(policy) != before


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:-10] + bytes(10),  # last bytes zeroed
        lambda b: b"{}\n" + b,  # header replaced
        lambda b: b"",  # empty
        lambda b: b.replace(b'"zip": "', b'"zip": "x', 1),  # names another ZIP
    ],
)
def test_a_corrupt_entry_is_ignored_and_recomputed(data, monkeypatch, damage):
    policy = load_policy()
    file = store.reference_dir() / "A_cnn_FedAvg.zip"
    fresh, entry_id = cache.validated(file, policy)
    (entry,) = [p for p in _entries() if entry_id in p.name]
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    seen = _count_validations(monkeypatch)
    result, again = cache.validated(file, policy)
    assert seen == ["A_cnn_FedAvg.zip"] and again == entry_id
    assert cache.same_validation(result, fresh)
    assert entry.read_bytes() == good  # rewritten whole


def test_a_corrupt_scores_entry_is_recomputed(data):
    first = flb.load_board()
    (entry,) = _entries("scores")
    entry.write_bytes(entry.read_bytes()[:-100])
    again = flb.load_board()
    assert cache.same_scores(first.scores, again.scores)
    assert cache._decode(entry.read_bytes(), {"kind": "scores"}) is not None


def test_nothing_is_written_half(data, monkeypatch):
    """A write that fails midway leaves no entry (and no temp file); the next load computes it."""
    policy = load_policy()
    file = store.reference_dir() / "A_cnn_FedAvg.zip"

    def broken_replace(temp, path):
        raise OSError("disk full")

    real = atomic.fsync_replace
    monkeypatch.setattr(atomic, "fsync_replace", broken_replace)
    result, _ = cache.validated(file, policy)
    assert result.ok
    assert _entries() == [] and not [p for p in cache.root().rglob("*") if p.is_file()]
    monkeypatch.setattr(atomic, "fsync_replace", real)
    cache.validated(file, policy)
    (entry,) = _entries()
    assert cache._decode(entry.read_bytes(), {"kind": "zip"}) is not None


def test_unforeseen_failures_are_never_cached(data, monkeypatch):
    from analytics.fl import submission

    def boom(*args, **kwargs):
        raise KeyError("a check nobody wrote")

    monkeypatch.setattr(submission, "_runs", boom)
    result, entry_id = cache.validated(store.reference_dir() / "A_cnn_FedAvg.zip", load_policy())
    assert not result.ok and entry_id is None and _entries() == []


def test_derive_writes_the_committed_folder_and_check_sees_staleness(data):
    assert derive.stale_reason() is not None  # nothing derived yet
    folder = derive.derive()
    assert derive.stale_reason() is None
    assert not (folder / cache.LOCAL).exists()
    assert len(list(folder.glob("zip-*.entry"))) == len(SMALL_SET)
    (store.reference_dir() / "B_cnn_FedAvg.zip").unlink()
    assert "no longer stored" in derive.stale_reason()
    derive.derive()
    assert derive.stale_reason() is None
    entry = next(folder.glob("zip-*.entry"))
    entry.write_bytes(entry.read_bytes()[:-1])
    assert "does not match its manifest" in derive.stale_reason()


def test_committed_cache_is_current():
    """data/derived/fl/<key>/ must come from today's ZIPs, policy and code (else the first page
    load on a fresh server validates all 28 ZIPs again)."""
    assert derive.stale_reason() is None
