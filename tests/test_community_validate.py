"""Community bundles: a corpus of bad bundles, each refused with its own code and one line, and
the inbox and stored tables byte-identical after every attempt."""

from __future__ import annotations

import json
import stat
import warnings
import zipfile
from collections.abc import Callable

import pytest

from analytics.core import paths
from measure.community import bundle, inbox
from measure.community.auth import Maintainer
from measure.community.validate import BundleError, Limits, validate_bundle
from tests.fixtures.community.records import (
    bundle_bytes,
    make_record,
    members_of,
    our_runs_table,
    patch_central,
    patch_central_size,
    raw_zip,
    timed_calls,
    tree_digest,
)

ADAPTER_MEMBER = "adapter/torchvision_detectors.py"


@pytest.fixture()
def stores(tmp_path, monkeypatch):
    """An inbox with one accepted and one queued bundle, and runs with ours and that result."""
    root, runs = tmp_path / "inbox", tmp_path / "runs"
    monkeypatch.setattr(paths, "RUNS_DIR", runs)
    our_runs_table(runs, make_record(seed=100))
    first = inbox.add(bundle_bytes(make_record(seed=1), "bob"), "a.zip", root, runs)
    inbox.accept(first["id"], Maintainer("maint"), root, runs)
    inbox.add(bundle_bytes(make_record(seed=2), "carol"), "b.zip", root, runs)
    return root, runs


def _good_members() -> dict[str, bytes]:
    members = members_of(bundle_bytes(make_record(seed=10)))
    members.pop(bundle.MANIFEST)
    return members


def _with_record(mutate: Callable[[dict], None]) -> bytes:
    record = make_record(seed=10)
    mutate(record)
    return bundle.zip_bytes({**_good_members(), bundle.RECORD: bundle._json_bytes(record)})


def _with_member(name: str, data: bytes | None) -> bytes:
    members = _good_members()
    if data is None:
        members.pop(name)
    else:
        members[name] = data
    return bundle.zip_bytes(members)


def _raw_with(extra: list) -> bytes:
    """The good bundle's members plus ``extra`` (ZipInfo or name, bytes), manifest kept as is."""
    good = members_of(bundle_bytes(make_record(seed=10)))
    return raw_zip([*good.items(), *extra])


def _info(name: str, mode: int = 0o100644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=bundle.ZIP_DATE)
    info.external_attr = mode << 16
    return info


def _setitem(path: str, value) -> Callable[[dict], None]:
    def mutate(record: dict) -> None:
        *parents, last = path.split(".")
        node = record
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value

    return mutate


def _scale_median(record: dict) -> None:
    record["median_ms"] *= 0.8


def _halve_run(record: dict) -> None:
    record["runs"][0]["calls_ms"] = [c / 2 for c in record["runs"][0]["calls_ms"]]


def _unknown_task(record: dict) -> None:
    record["adapter"]["task"] = record["protocol"]["task"] = "pose-estimation"


def _nonstandard(record: dict) -> None:
    record["protocol"].update(standard=False, nonstandard_reasons=["precision fp32 overrides"])


def _failed(record: dict) -> None:
    record.update(status="failed", error="worker killed by signal 9 (out of memory?)")


def _nan_calls() -> bytes:
    text = bundle._json_bytes(make_record(seed=10)).decode()
    first_call = str(make_record(seed=10)["runs"][0]["calls_ms"][0])
    return _with_member(bundle.RECORD, text.replace(first_call, "NaN", 1).encode())


def _manifest_stale() -> bytes:
    members = members_of(bundle_bytes(make_record(seed=10)))
    record = json.loads(members[bundle.RECORD])
    record["tool"]["git_commit"] = "f" * 40
    members[bundle.RECORD] = bundle._json_bytes(record)
    return raw_zip(list(members.items()))


def _duplicate_names() -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile warns on a duplicate name
        return _raw_with([(bundle.RECORD, b"{}")])


def _discarded_record() -> bytes:
    calls = [*timed_calls(20.0, 10)[:2], timed_calls(25.0, 11)[0]]  # medians 25% apart
    record = make_record(seed=10, calls=calls)
    assert record["discarded"]
    return bundle.zip_bytes({**_good_members(), bundle.RECORD: bundle._json_bytes(record)})


GOOD = lambda: bundle_bytes(make_record(seed=10))  # noqa: E731

BAD: list[tuple[str, Callable[[], bytes], Limits | None, str, str]] = [
    ("not-a-zip", lambda: b"hello, I am not a ZIP", None, "not-zip", "not a readable ZIP"),
    ("empty-file", lambda: b"", None, "not-zip", "the file is empty"),
    ("truncated", lambda: GOOD()[: len(GOOD()) // 2], None, "not-zip", "probably truncated"),
    ("bundle-too-large", GOOD, Limits(bundle_bytes=2048), "too-large", "over the 0 MiB cap"),
    ("too-many-members", GOOD, Limits(members=3), "too-many-members", "6 members"),
    (
        "zip-bomb-ratio",
        lambda: raw_zip([(bundle.RECORD, b" " * (8 * 2**20))]),
        None,
        "zip-bomb-ratio",
        "expands",
    ),
    ("zip-bomb-total", GOOD, Limits(total_bytes=20_000), "zip-bomb-total", "uncompressed, over"),
    (
        "declared-huge-in-central-directory",
        lambda: patch_central_size(GOOD(), bundle.RECORD, 0xF000_0000),
        None,
        "oversized-member",
        "3840.0 MiB, over the 64 MiB cap per member",
    ),
    (
        "lies-about-its-size",
        lambda: patch_central_size(GOOD(), bundle.RECORD, 100),
        None,
        "corrupt-member",
        "bad CRC, size or header",
    ),
    ("oversized-member", GOOD, Limits(member_bytes=20_000), "oversized-member", "cap per member"),
    (
        "path-traversal",
        lambda: _raw_with([(_info("../../etc/cron.d/evil"), b"x")]),
        None,
        "path-traversal",
        "'../../etc/cron.d/evil'",
    ),
    (
        "backslash-traversal",
        lambda: _raw_with([(_info("adapter\\..\\..\\x.py"), b"x")]),
        None,
        "path-traversal",
        "leaves or bends",
    ),
    (
        "absolute-path",
        lambda: _raw_with([(_info("/etc/passwd"), b"x")]),
        None,
        "absolute-path",
        "'/etc/passwd'",
    ),
    (
        "drive-path",
        lambda: _raw_with([(_info("C:/evil.py"), b"x")]),
        None,
        "absolute-path",
        "absolute path",
    ),
    (
        "symlink",
        lambda: _raw_with([(_info("adapter/link.py", stat.S_IFLNK | 0o777), b"/etc")]),
        None,
        "link",
        "symbolic link",
    ),
    (
        "device-file",
        lambda: _raw_with([(_info("adapter/dev.py", stat.S_IFCHR | 0o644), b"")]),
        None,
        "not-regular-file",
        "not a regular file",
    ),
    (
        "encrypted",
        lambda: patch_central(GOOD(), bundle.RECORD, 8, 0x1, 2),
        None,
        "encrypted",
        "'record.json' is encrypted",
    ),
    (
        "bzip2",
        lambda: raw_zip([(bundle.RECORD, b"{}")], zipfile.ZIP_BZIP2),
        None,
        "compression",
        "compression method 12",
    ),
    ("duplicate-member-name", _duplicate_names, None, "duplicate-member", "appears twice"),
    (
        "unexpected-member",
        lambda: _with_member("notes.txt", b"hi"),
        None,
        "unexpected-member",
        "'notes.txt'",
    ),
    (
        "missing-member",
        lambda: _with_member(bundle.PIP_FREEZE, None),
        None,
        "missing-member",
        "'lock/pip-freeze.txt' is missing",
    ),
    (
        "manifest-hash-mismatch",
        _manifest_stale,
        None,
        "hash",
        "MANIFEST.json gives record.json sha256",
    ),
    (
        "lock-file-hash-mismatch",
        lambda: _with_member(bundle.REQUIREMENTS, b"torch==9.9\n"),
        None,
        "hash",
        "lock/requirements.txt hashes to",
    ),
    (
        "adapter-hash-mismatch",
        lambda: _with_member(ADAPTER_MEMBER, b"print('hi')\n"),
        None,
        "hash",
        f"{ADAPTER_MEMBER} hashes to",
    ),
    (
        "not-json",
        lambda: _with_member(bundle.RECORD, b"{not json"),
        None,
        "schema",
        "record.json is not valid JSON",
    ),
    ("nan-in-calls", _nan_calls, None, "schema", "NaN is not a number JSON allows"),
    (
        "wrong-type-median",
        lambda: _with_record(_setitem("median_ms", "fast")),
        None,
        "schema",
        "median_ms should be number|null, got str 'fast'",
    ),
    (
        "wrong-type-call",
        lambda: _with_record(_setitem("runs.0.calls_ms.3", "12.5")),
        None,
        "schema",
        "runs[0].calls_ms should be list[number]",
    ),
    (
        "missing-key",
        lambda: _with_record(lambda r: r.pop("environment")),
        None,
        "schema",
        "environment.device_kind should be str, got missing",
    ),
    (
        "markdown-in-gpu-name",
        lambda: _with_record(_setitem("environment.device_name", "[win](http://x.test)")),
        None,
        "schema",
        "environment.device_name should be text",
    ),
    (
        "bad-github-name",
        lambda: _with_member(
            bundle.SUBMISSION,
            bundle._json_bytes(
                {
                    "format": bundle.FORMAT,
                    "format_version": 1,
                    "github": "-not valid-",
                    "submitted_utc": "2026-11-21T09:00:00+00:00",
                }
            ),
        ),
        None,
        "schema",
        "is not a GitHub user name",
    ),
    ("failed-run", lambda: _with_record(_failed), None, "protocol", "the measurement failed"),
    ("figure-edited", lambda: _with_record(_scale_median), None, "recompute", "median_ms = 15.9"),
    (
        "calls-edited",
        lambda: _with_record(_halve_run),
        None,
        "recompute",
        "does not recompute from its own timed calls",
    ),
    (
        "unknown-adapter",
        lambda: _with_record(_setitem("adapter.name", "yolo-v99")),
        None,
        "unknown-adapter",
        "adapter 'yolo-v99' is not in the registry",
    ),
    (
        "unknown-task",
        lambda: _with_record(_unknown_task),
        None,
        "unknown-task",
        "task 'pose-estimation'",
    ),
    (
        "other-inputs",
        lambda: _with_record(_setitem("inputs.files.0.sha256", "0" * 64)),
        None,
        "inputs",
        "not task 'object-detection''s shared input set",
    ),
    (
        "cpu-run",
        lambda: _with_record(_setitem("environment.device_kind", "cpu")),
        None,
        "protocol",
        "it ran on cpu",
    ),
    (
        "non-standard-protocol",
        lambda: _with_record(_nonstandard),
        None,
        "protocol",
        "non-standard (precision fp32 overrides",
    ),
    ("discarded-measurement", _discarded_record, None, "protocol", "the protocol discards it"),
]


@pytest.mark.parametrize(
    ("make", "limits", "code", "fragment"), [pytest.param(*case[1:], id=case[0]) for case in BAD]
)
def test_bad_bundle_is_refused_with_its_own_line_and_stores_nothing(
    stores, make, limits, code, fragment
):
    root, runs = stores
    data = make()
    before = tree_digest(root, runs)
    with pytest.raises(BundleError) as caught:
        inbox.add(data, "upload.zip", root, runs, **({"limits": limits} if limits else {}))
    message = str(caught.value)
    assert caught.value.code == code, message
    assert fragment in message
    assert message.startswith("upload.zip: ") and "; fix: " in message and "\n" not in message
    assert tree_digest(root, runs) == before


def test_every_bad_case_has_a_distinct_message(stores):
    root, runs = stores
    messages = set()
    for _name, make, limits, _, _ in BAD:
        with pytest.raises(BundleError) as caught:
            validate_bundle(make(), "u.zip", limits or Limits(), runs)
        messages.add(str(caught.value))
    assert len(messages) == len(BAD)


def test_duplicate_bundle_is_refused_and_stores_nothing(stores):
    root, runs = stores
    queued = next(e for e in inbox.entries(root) if e["status"] == "queued")
    before = tree_digest(root, runs)
    for github in ("carol", "mallory"):  # the same record re-sent under another name too
        with pytest.raises(inbox.InboxError) as caught:
            inbox.add(bundle_bytes(make_record(seed=2), github), "again.zip", root, runs)
        assert caught.value.code == "duplicate"
        assert f"duplicate of bundle {queued['id']}" in str(caught.value)
    accepted = bundle_bytes(make_record(seed=1), "bob")
    with pytest.raises(inbox.InboxError, match="accepted"):
        inbox.add(accepted, "again.zip", root, runs)
    assert tree_digest(root, runs) == before


def test_good_bundle_is_queued_with_its_id(stores):
    root, runs = stores
    data = GOOD()
    entry = inbox.add(data, "mine.zip", root, runs)
    assert entry["status"] == "queued" and len(entry["id"]) == 12
    assert (root / "queued" / f"{entry['id']}.zip").read_bytes() == data
    assert entry["flags"] == [] and entry["github"] == "alice"
    assert entry["our_median_ms"] == pytest.approx(make_record(seed=100)["median_ms"])


def test_the_bundle_is_deterministic_and_lists_every_member():
    record = make_record(seed=10)
    assert bundle_bytes(record) == bundle_bytes(record)
    members = members_of(bundle_bytes(record))
    manifest = json.loads(members[bundle.MANIFEST])
    assert {m["name"] for m in manifest["members"]} == set(members) - {bundle.MANIFEST}
    assert json.loads(members[bundle.RECORD]) == json.loads(json.dumps(record))  # every call
    assert members[bundle.PIP_FREEZE].decode().splitlines() == record["lock"]["pip_freeze"]
    assert ADAPTER_MEMBER in members


def test_reading_stops_when_a_member_outgrows_its_declared_size():
    import io

    from analytics.core.safezip import read_capped

    info = zipfile.ZipInfo(bundle.RECORD)
    info.file_size, info.compress_size = 10, 10
    with pytest.raises(BundleError) as caught:
        read_capped(io.BytesIO(b"x" * 100_000), info, 0, "u.zip", Limits())
    assert caught.value.code == "size-mismatch"
    info.file_size = 200_000
    with pytest.raises(BundleError, match="has 100000 bytes, not the 200000"):
        read_capped(io.BytesIO(b"x" * 100_000), info, 0, "u.zip", Limits())


def test_every_refusal_and_flag_code_is_documented():
    import re

    files = [*(paths.REPO_ROOT / "measure/community").glob("*.py")]
    source = "".join(p.read_text() for p in [*files, paths.REPO_ROOT / "analytics/core/safezip.py"])
    codes = set(re.findall(r'(?:fail|InboxError|Flag)\(\s*"([a-z-]+)"', source))
    assert {"zip-bomb-ratio", "duplicate", "power-limited", "far-from-ours"} <= codes
    docs = (paths.REPO_ROOT / "docs/community.md").read_text()
    assert [c for c in sorted(codes) if f"`{c}`" not in docs] == []
