"""Bounded inflation in the shared ZIP reader.

A member that lies about its size (a bzip2 or LZMA member declaring ~3,000 bytes that inflates
to hundreds of MiB) is refused after at most one chunk past what it declares, whatever its
compression method: the peak memory of reading it stays far under twice the member cap, in
Python allocations (tracemalloc) and in the resident size of a fresh process (ru_maxrss).
Honest members of every method still read, up to the caps exactly. Streamlit's upload limit
is our largest ZIP cap, so an upload is never held in memory far past what we then refuse.
"""

from __future__ import annotations

import io
import json
import os
import random
import struct
import subprocess
import sys
import tomllib
import tracemalloc
import zipfile

import pytest

from analytics.core import paths, safezip
from analytics.core.safezip import LIMITS, MIB, BundleError, ZipLimits

FL = LIMITS["fl-submission"]
CAP = FL.member_bytes  # 16 MiB
MEMORY_BOUND = 2 * CAP
DECLARED = 3000
MEMBER = "manifest.json"
INFLATED_MIB = {zipfile.ZIP_BZIP2: 200, zipfile.ZIP_LZMA: 128}  # both far over the cap
METHODS = {
    "stored": zipfile.ZIP_STORED,
    "deflated": zipfile.ZIP_DEFLATED,
    "bzip2": zipfile.ZIP_BZIP2,
    "lzma": zipfile.ZIP_LZMA,
}
LINE = "{source}: member {member!r} cannot be read: bad CRC, size or header ("


def _zip(members: list[tuple[str, bytes]], method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, body in members:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), body, method)
    return buffer.getvalue()


def _declare(data: bytes, size: int) -> bytes:
    """A one-member ZIP whose local header and central directory both declare ``size``."""
    out = bytearray(data)
    assert out.count(b"PK\x01\x02") == 1
    struct.pack_into("<L", out, 22, size)  # local header: uncompressed size
    struct.pack_into("<L", out, out.rfind(b"PK\x01\x02") + 24, size)  # central directory
    return bytes(out)


def _lying(method: int) -> bytes:
    """One member of zeros, ``INFLATED_MIB`` of them, compressed as it is written (never whole
    in memory) and then declared as ``DECLARED`` bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        info = zipfile.ZipInfo(MEMBER, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = method
        with zf.open(info, "w") as out:
            block = bytes(MIB)
            for _ in range(INFLATED_MIB[method]):
                out.write(block)
    return _declare(buffer.getvalue(), DECLARED)


@pytest.fixture(scope="module")
def lying() -> dict[int, bytes]:
    return {method: _lying(method) for method in INFLATED_MIB}


def _text(size: int, seed: int = 0) -> bytes:
    """CSV-like rows that compress a few-fold, like a real run (under the 100:1 ratio cap)."""
    rng = random.Random(seed)
    rows, total = [b"step,accuracy,loss\n"], 0
    while total < size:
        row = f"{rng.randrange(10**6)},{rng.random():.6f},{rng.random():.6f}\n".encode()
        rows.append(row)
        total += len(row)
    return b"".join(rows)[:size]


def _refusal(data: bytes, limits: str | ZipLimits = "fl-submission") -> BundleError:
    with pytest.raises(BundleError) as caught:
        safezip.read_members(data, "evil.zip", limits)
    return caught.value


@pytest.mark.parametrize("method", list(INFLATED_MIB), ids=["bzip2", "lzma"])
def test_lying_member_is_refused_before_it_inflates(lying, method):
    data = lying[method]
    assert len(data) < 64 * 1024  # a few KB on the wire...
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.getinfo(MEMBER).file_size == DECLARED  # ...that claims 3,000 bytes
    tracemalloc.start()
    try:
        err = _refusal(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, f"peak {peak / MIB:.1f} MiB of Python allocations"
    assert err.code == "corrupt-member" and err.member == MEMBER
    message = str(err)
    assert "\n" not in message
    assert message.startswith(LINE.format(source="evil.zip", member=MEMBER))
    assert f"more than the {DECLARED} bytes it declares" in message
    assert message.endswith(f"; fix: {FL.rebuild}")
    assert err.facts["declared"] == DECLARED


_RSS_SCRIPT = """
import json, resource, sys
from analytics.core import safezip

def peak():
    # VmHWM: this process's own peak resident size. ru_maxrss is not enough under Linux: it
    # keeps the peak of the process before exec (a fork of the large pytest process).
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # bytes on macOS, KiB elsewhere

data = open(sys.argv[1], "rb").read()
before = peak()
try:
    safezip.read_members(data, "evil.zip", "fl-submission")
    code = None
except safezip.BundleError as exc:
    code = exc.code
print(json.dumps({"code": code, "grew": peak() - before}))
"""


@pytest.mark.parametrize("method", list(INFLATED_MIB), ids=["bzip2", "lzma"])
def test_lying_member_does_not_grow_a_fresh_process(lying, method, tmp_path):
    pytest.importorskip("resource")
    path = tmp_path / "evil.zip"
    path.write_bytes(lying[method])
    env = {**os.environ, "PYTHONPATH": str(paths.REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        cwd=paths.REPO_ROOT,
        env=env,
        timeout=120,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == "corrupt-member"
    assert result["grew"] < MEMORY_BOUND, f"resident size grew {result['grew'] / MIB:.1f} MiB"


@pytest.mark.parametrize("method", list(METHODS.values()), ids=list(METHODS))
def test_honest_members_read_through_every_method(method):
    members = [
        ("manifest.json", b'{"method": "FedAvg"}'),
        ("runs/", b""),
        ("runs/d1/nominal/checkpoints.csv", _text(3 * MIB // 2, seed=1)),
        ("runs/d1/nominal/empty.csv", b""),
        ("runs/d1/nominal/workload.csv", _text(70_000, seed=2)),
    ]
    assert safezip.read_members(_zip(members, method), "good.zip", "fl-submission") == dict(members)


def test_honest_bzip2_member_reads_exactly_at_the_caps():
    body = _text(300_000)
    data = _zip([("a.csv", body), ("b.csv", body)], zipfile.ZIP_BZIP2)
    exact = ZipLimits(member_bytes=len(body), total_bytes=2 * len(body), methods=FL.methods)
    assert safezip.read_members(data, "good.zip", exact) == {"a.csv": body, "b.csv": body}


@pytest.mark.parametrize("method", list(METHODS.values()), ids=list(METHODS))
def test_a_member_one_byte_longer_than_it_declares_is_refused(method):
    body = _text(200_000)
    err = _refusal(_declare(_zip([(MEMBER, body)], method), len(body) - 1))
    assert err.code == "corrupt-member" and err.member == MEMBER
    assert str(err).startswith(LINE.format(source="evil.zip", member=MEMBER))
    assert f"more than the {len(body) - 1} bytes it declares" in str(err)


@pytest.mark.parametrize("method", list(METHODS.values()), ids=list(METHODS))
def test_a_member_one_byte_shorter_than_it_declares_is_refused(method):
    body = _text(200_000)
    err = _refusal(_declare(_zip([(MEMBER, body)], method), len(body) + 1))
    assert err.code == "size-mismatch" and err.member == MEMBER
    assert f"has {len(body)} bytes, not the {len(body) + 1} it declares" in str(err)


def test_a_changed_byte_still_fails_the_crc_check():
    body = _text(100_000)
    data = bytearray(_zip([(MEMBER, body)], zipfile.ZIP_STORED))
    data[data.find(body[:50]) + 1000] ^= 0x01
    err = _refusal(bytes(data))
    assert err.code == "corrupt-member" and "Bad CRC-32" in str(err)


def test_a_forged_lzma_dictionary_size_reserves_nothing():
    """An LZMA header asking for a 4 GiB dictionary is decoded with one the member's size."""
    body = _text(200_000)
    data = bytearray(_zip([(MEMBER, body)], zipfile.ZIP_LZMA))
    start = 30 + len(MEMBER)  # no extra field: the member's data follows its name
    assert data[start + 2 : start + 4] == b"\x05\x00"  # LZMA1 properties: 5 bytes
    struct.pack_into("<L", data, start + 5, 0xFFFF_FFFF)
    tracemalloc.start()
    try:
        members = safezip.read_members(bytes(data), "good.zip", "fl-submission")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert members == {MEMBER: body}
    assert peak < 8 * MIB, f"peak {peak / MIB:.1f} MiB"


def test_members_are_never_inflated_by_zipfile_itself(monkeypatch):
    """zipfile inflates bzip2 and LZMA without a bound; the reader must not call it to."""

    def unbounded(*args, **kwargs):
        raise AssertionError("a member was read through zipfile")

    for name in ("read", "read1", "readline", "peek"):
        monkeypatch.setattr(zipfile.ZipExtFile, name, unbounded)
    monkeypatch.setattr(zipfile.ZipFile, "read", unbounded)
    body = _text(100_000)
    for method in METHODS.values():
        assert safezip.read_members(_zip([(MEMBER, body)], method), "g.zip", FL) == {MEMBER: body}


def test_streamlit_upload_limit_is_the_largest_zip_cap():
    config = tomllib.loads((paths.REPO_ROOT / ".streamlit" / "config.toml").read_text())
    largest = max(limits.bundle_bytes for limits in LIMITS.values())
    assert largest % MIB == 0
    assert config["server"]["maxUploadSize"] == largest // MIB
