"""Safe reading of an untrusted ZIP, in memory: caps from the central directory first, then
again while each member is read (ZIP bombs, oversized files), and no path tricks or links.

Members are inflated here, ``CHUNK`` bytes at a time and never past the least of their declared
size and the caps, whatever the compression method (``zipfile`` inflates bzip2 and LZMA without
a bound, so its readers are never used).

This is the project's one ZIP reader. Each use (a community bundle, an FL submission) names its
limits in ``LIMITS``. Every refusal is a ``BundleError`` with a ``code`` and one problem line
naming the archive, the member and the fix (the fix from the use's limits); it also carries the
``member`` and the ``facts`` (sizes, counts).
Limits: docs/community.md ("Validation"), docs/fl.md.
"""

from __future__ import annotations

import io
import lzma
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

from analytics.core.inflate import CHUNK
from analytics.core.inflate import BoundedMember as _BoundedMember
from analytics.core.inflate import Overflow as _Overflow
from analytics.core.problems import Problem

MIB = 2**20
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a ZIP local file header (APPNOTE 4.3.7)

REBUILD = "rebuild it with `python -m measure submit` and do not edit it by hand"
READABLE = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
ALL_MEMBERS = "(all members)"
METHOD_NAMES = {
    zipfile.ZIP_STORED: "stored",
    zipfile.ZIP_DEFLATED: "deflated",
    zipfile.ZIP_BZIP2: "bzip2",
    zipfile.ZIP_LZMA: "lzma",
}


@dataclass(frozen=True)
class ZipLimits:
    """Caps applied from the central directory before reading and again while reading, and what
    else one use allows (the defaults are a community bundle's)."""

    bundle_bytes: int = 64 * MIB  # the ZIP file itself
    member_bytes: int = 64 * MIB  # one member, uncompressed
    total_bytes: int = 96 * MIB  # all members, uncompressed
    ratio: float = 100.0  # uncompressed/compressed; JSON of floats compresses ~3-10x
    ratio_floor_bytes: int = 1 * MIB  # the ratio cap applies above this size
    members: int = 16
    methods: tuple[int, ...] = READABLE  # compression methods read
    folders: bool = False  # whether folder entries ('runs/') are allowed
    rebuild: str = REBUILD  # the fix every refusal names: how this use makes a clean archive
    too_large_fix: str = "submit one run record per bundle"


LIMITS: dict[str, ZipLimits] = {
    "community-bundle": ZipLimits(),
    "fl-submission": ZipLimits(
        member_bytes=16 * MIB,
        total_bytes=256 * MIB,
        members=5000,
        methods=(*READABLE, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA),
        folders=True,
        rebuild="repack it with the submission packer (docs/fl.md) and do not edit it by hand",
        too_large_fix="submit one method's runs per ZIP",
    ),
}
"""The one table of per-use limits; each caller passes its name (or a ZipLimits of its own)."""

Limits = ZipLimits  # the name community callers and tests use
DEFAULT_LIMITS = LIMITS["community-bundle"]


class BundleError(Problem, ValueError):
    """A rejected archive: ``code`` names the check, ``where`` the archive (its source),
    ``what`` is wrong and the ``fix``; ``member`` (None: the whole archive) and ``facts``
    (sizes, counts, the error) are the data behind the message."""

    def __init__(
        self,
        code: str,
        where: str,
        what: str | None = None,
        fix: str = "",
        member: str | None = None,
        facts: dict | None = None,
    ) -> None:
        super().__init__(where, what, fix)
        self.code = code
        self.member = member
        self.facts = dict(facts or {})

    def __reduce__(self):
        return (type(self), (self.code, self.where, self.what, self.fix, self.member, self.facts))


def fail(
    code: str, source: str, what: str, fix: str, member: str | None = None, **facts: Any
) -> BundleError:
    """The error for a failed check: ``<source>: <what>; fix: <fix>``."""
    return BundleError(code, source, what, fix, member, facts)


def limits_for(use: str | ZipLimits) -> ZipLimits:
    """The limits of a named use (``LIMITS``), or ``use`` itself when already limits."""
    return LIMITS[use] if isinstance(use, str) else use


def check_size(size: int, source: str, limits: str | ZipLimits = DEFAULT_LIMITS) -> None:
    """Refuse an archive file over the size cap before reading it."""
    limits = limits_for(limits)
    if size > limits.bundle_bytes:
        cap = limits.bundle_bytes / MIB
        what = f"the archive is {size / MIB:.1f} MiB, over the {cap:.0f} MiB cap"
        raise fail("too-large", source, what, limits.too_large_fix, size=size)


def _not_zip_what(data: bytes, exc: Exception) -> str:
    if not data:
        return "the file is empty, not a ZIP"
    if data.startswith(b"PK\x03\x04"):
        return f"a ZIP whose end is missing or corrupt, probably truncated in transit ({exc})"
    return f"not a readable ZIP file ({exc})"


EOCD = struct.Struct("<4s4H2LH")  # end of central directory record (APPNOTE 4.3.16)
EOCD64 = struct.Struct("<4sQ2H2L4Q")  # ZIP64 end of central directory record (4.3.14)
EOCD64_LOCATOR_BYTES = 20  # the ZIP64 locator between the two records (4.3.15)
DIRECTORY_ENTRY = struct.Struct("<4s6H3L5H2L")  # one central directory header (4.3.12)


def _directory_span(data: bytes) -> tuple[int, int, int] | None:
    """(start, size, declared entry count) of the central directory, read from the end record
    alone; None when there is no end record (``zipfile`` then says why it is not a ZIP)."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - EOCD.size - 0xFFFF))
    if at < 0 or at + EOCD.size > len(data):
        return None
    *_, entries, size, _offset, _comment = EOCD.unpack_from(data, at)
    end = at
    if entries == 0xFFFF or size == 0xFFFFFFFF:
        at64 = at - EOCD64_LOCATOR_BYTES - EOCD64.size
        if at64 >= 0 and data[at64 : at64 + 4] == b"PK\x06\x06":
            record = EOCD64.unpack_from(data, at64)
            entries, size, end = record[7], record[8], at64
    return max(end - size, 0), size, entries


def _count_entries(data: bytes, cap: int) -> int:
    """How many central directory headers the archive holds, counted structurally (as
    ``zipfile`` walks them, whatever count the end record declares) and never past ``cap + 1``,
    so a directory of a million entries costs microseconds, not a ``ZipInfo`` each."""
    span = _directory_span(data)
    if span is None:
        return 0
    start, size, declared = span
    at, end, count = start, min(start + size, len(data)), 0
    while at + DIRECTORY_ENTRY.size <= end and count <= cap:
        header = DIRECTORY_ENTRY.unpack_from(data, at)
        if header[0] != b"PK\x01\x02":
            break
        at += DIRECTORY_ENTRY.size + header[10] + header[11] + header[12]
        count += 1
    return max(count, min(declared, 2**31)) if count > cap else count


def _open_zip(data: bytes, source: str, limits: ZipLimits) -> zipfile.ZipFile:
    check_size(len(data), source, limits)
    # the member count is checked before ``zipfile`` builds an object per directory entry
    count = _count_entries(data, limits.members)
    if count > limits.members:
        raise ZipProblems([_too_many(count, source, limits)])
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        what = _not_zip_what(data, exc)
        raise fail("not-zip", source, what, limits.rebuild, error=str(exc)) from None


def _name_problem(info: zipfile.ZipInfo, limits: ZipLimits) -> tuple[str, str] | None:
    """(code, what) when a member's name, type or encoding is unsafe, else None."""
    name, mode = info.filename, info.external_attr >> 16
    folder = limits.folders and info.is_dir() and not stat.S_ISLNK(mode)
    parts = (name[:-1] if folder else name).replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "absolute-path", f"member {name!r} has an absolute path"
    if stat.S_ISLNK(mode):
        return "link", f"member {name!r} is a symbolic link"
    if not folder and (info.is_dir() or (stat.S_IFMT(mode) and not stat.S_ISREG(mode))):
        return "not-regular-file", f"member {name!r} is not a regular file"
    if ".." in parts or "\\" in name or "" in parts or "." in parts:
        return "path-traversal", (
            f"member {name!r} has a path that leaves or bends "
            "the archive ('..', '.', '\\' or an empty part)"
        )
    if info.flag_bits & 0x1:
        return "encrypted", f"member {name!r} is encrypted"
    if info.compress_type not in limits.methods:
        methods = [METHOD_NAMES[m] for m in limits.methods]
        return "compression", (
            f"member {name!r} uses compression method {info.compress_type}; "
            f"only {', '.join(methods[:-1])} and {methods[-1]} are read"
        )
    return None


def _too_compressed(size: int, compressed: int, limits: ZipLimits) -> bool:
    return size > limits.ratio_floor_bytes and size > limits.ratio * max(compressed, 1)


def _bomb_ratio(
    name: str, size: int, compressed: int, source: str, limits: ZipLimits
) -> BundleError:
    what = (
        f"member {name!r} expands {size / max(compressed, 1):.0f}-fold ({size} bytes from "
        f"{compressed}), over the {limits.ratio:.0f}:1 cap"
    )
    member = None if name == ALL_MEMBERS else name
    return fail("zip-bomb-ratio", source, what, limits.rebuild, member, size=size)


def _member_problem(
    info: zipfile.ZipInfo, seen: set[str], source: str, limits: ZipLimits
) -> BundleError | None:
    """The first problem of one member, from its central-directory entry (None when fine)."""
    named = _name_problem(info, limits)
    name = info.filename
    if named:
        code, what = named
        return fail(code, source, what, limits.rebuild, name)
    if name in seen:
        what = f"member {name!r} appears twice"
        return fail("duplicate-member", source, what, limits.rebuild, name)
    seen.add(info.filename)
    if info.file_size > limits.member_bytes:
        what = (
            f"member {info.filename!r} is {info.file_size / MIB:.1f} MiB, over the "
            f"{limits.member_bytes / MIB:.0f} MiB cap per member"
        )
        fix = "leave bulky extras out of the record"
        return fail("oversized-member", source, what, fix, name, size=info.file_size)
    if _too_compressed(info.file_size, info.compress_size, limits):
        return _bomb_ratio(info.filename, info.file_size, info.compress_size, source, limits)
    return None


def _total_problems(
    infos: list[zipfile.ZipInfo], source: str, limits: ZipLimits
) -> list[BundleError]:
    total, packed = sum(i.file_size for i in infos), sum(i.compress_size for i in infos)
    if total > limits.total_bytes:
        what = (
            f"members declare {total / MIB:.1f} MiB uncompressed, over the "
            f"{limits.total_bytes / MIB:.0f} MiB cap"
        )
        return [fail("zip-bomb-total", source, what, limits.rebuild, size=total)]
    if _too_compressed(total, packed, limits):
        return [_bomb_ratio(ALL_MEMBERS, total, packed, source, limits)]
    return []


def _too_many(count: int, source: str, limits: ZipLimits) -> BundleError:
    what = f"{count} members, over the cap of {limits.members}"
    return fail("too-many-members", source, what, limits.rebuild, count=count)


def _extent(data: memoryview, info: zipfile.ZipInfo) -> tuple[int, int]:
    """The bytes a member really occupies: its local header, name, extra field and
    compressed data (``BadZipFile`` when its local header is cut off)."""
    header = data[info.header_offset : info.header_offset + LOCAL_HEADER.size]
    if len(header) < LOCAL_HEADER.size or bytes(header[:4]) != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"no local header for {info.filename!r}")
    *_, name_len, extra_len = LOCAL_HEADER.unpack(header)
    start = info.header_offset + LOCAL_HEADER.size + name_len + extra_len
    return info.header_offset, start + info.compress_size


def overlap_problems(
    data: memoryview, infos: list[zipfile.ZipInfo], source: str, limits: ZipLimits
) -> list[BundleError]:
    """A problem when two members share bytes of the archive: entries pointing at one
    compressed stream inflate it many times while each keeps a modest ratio (and the ratio
    of the whole counts the shared bytes once per entry)."""
    try:
        spans = sorted((*_extent(data, info), info.filename) for info in infos)
    except zipfile.BadZipFile as exc:
        what = f"a member cannot be located: {exc}"
        return [fail("corrupt-member", source, what, limits.rebuild, error=str(exc))]
    for (_, end, first), (start, _, second) in zip(spans, spans[1:], strict=False):
        if start < end:
            what = (
                f"members {first!r} and {second!r} share bytes of the archive (overlapping entries)"
            )
            return [fail("overlapping-members", source, what, limits.rebuild, second)]
    return []


def directory_problems(
    infos: list[zipfile.ZipInfo], source: str, limits: ZipLimits
) -> list[BundleError]:
    """Every cap, from the sizes the central directory declares (before reading anything):
    the member count alone when over, else the first problem of each member, then the totals."""
    if len(infos) > limits.members:
        return [_too_many(len(infos), source, limits)]
    seen: set[str] = set()
    found = [_member_problem(info, seen, source, limits) for info in infos]
    return [p for p in found if p is not None] + _total_problems(infos, source, limits)


def read_capped(
    stream: io.RawIOBase | Any, info: zipfile.ZipInfo, already: int, source: str, limits: ZipLimits
) -> bytes:
    """A member's bytes, stopping as soon as it outgrows its declared size or any cap."""
    chunks, size = [], 0
    while block := stream.read(1 << 16):
        size += len(block)
        if (
            size > info.file_size
            or size > limits.member_bytes
            or already + size > limits.total_bytes
        ):
            what = (
                f"member {info.filename!r} yields more than the {info.file_size} bytes it "
                "declares or than a cap allows"
            )
            raise fail("size-mismatch", source, what, limits.rebuild, info.filename)
        if _too_compressed(size, info.compress_size, limits):
            raise _bomb_ratio(info.filename, size, info.compress_size, source, limits)
        chunks.append(block)
    if size != info.file_size:
        what = f"member {info.filename!r} has {size} bytes, not the {info.file_size} it declares"
        raise fail("size-mismatch", source, what, limits.rebuild, info.filename)
    return b"".join(chunks)


def _raw_data(data: memoryview, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> memoryview:
    """A member's compressed bytes, found through its local header (checked by ``zipfile``)."""
    with archive.open(info):  # checks the local header (magic, name, flags); inflates nothing
        pass
    header = data[info.header_offset : info.header_offset + LOCAL_HEADER.size]
    if len(header) < LOCAL_HEADER.size:
        raise zipfile.BadZipFile("local header truncated")
    *_, name_len, extra_len = LOCAL_HEADER.unpack(header)
    start = info.header_offset + LOCAL_HEADER.size + name_len + extra_len
    if start + info.compress_size > len(data):
        raise zipfile.BadZipFile("member data runs past the end of the archive")
    return data[start : start + info.compress_size]


def _read_member(
    data: memoryview,
    archive: zipfile.ZipFile,
    info: zipfile.ZipInfo,
    already: int,
    source: str,
    limits: ZipLimits,
) -> bytes:
    limit = max(min(info.file_size, limits.member_bytes, limits.total_bytes - already), 0)
    try:
        stream = _BoundedMember(_raw_data(data, archive, info), info, limit)
        return read_capped(stream, info, already, source, limits)
    except BundleError:
        raise
    except _READ_ERRORS as exc:
        raise _corrupt_member(exc, info, source, limits, limit=limit) from None


_READ_ERRORS = (
    zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, zlib.error, lzma.LZMAError,
)
"""What a damaged member raises while it is read: each becomes its one ``BundleError``."""


def _corrupt_member(
    exc: BaseException, info: zipfile.ZipInfo, source: str, limits: ZipLimits, **overflow: Any
) -> BundleError:
    """The ``corrupt-member`` error of a member whose read raised ``exc``; ``overflow`` facts
    (the limit it ran into) are added when it inflated past its declared size."""
    what = f"member {info.filename!r} cannot be read: bad CRC, size or header ({exc})"
    facts: dict[str, Any] = {"error": str(exc)}
    if isinstance(exc, _Overflow):
        facts |= {"declared": info.file_size, **overflow}
    return fail("corrupt-member", source, what, limits.rebuild, info.filename, **facts)


class ZipProblems(BundleError):
    """Several problems at once; ``code``, the fields and the message are the first one's."""

    def __init__(self, found: list[BundleError]) -> None:
        first = found[0]
        super().__init__(first.code, first.where, first.what, first.fix, first.member, first.facts)
        self.problems = list(found)

    def __reduce__(self):
        return (type(self), (self.problems,))


def each_problem(exc: BundleError) -> list[BundleError]:
    """Every problem of a refusal (several for ``ZipProblems``, else ``exc`` alone)."""
    return list(getattr(exc, "problems", [exc]))


class _CheckedStream(io.RawIOBase):
    """One member's bytes as a binary stream, with ``read_capped``'s checks applied as they
    arrive (declared size, member and total caps, ratio) and every failure a ``BundleError``:
    a member is validated while it inflates, ``CHUNK`` bytes at a time, never held whole."""

    def __init__(self, archive: Archive, info: zipfile.ZipInfo) -> None:
        super().__init__()
        self._archive, self._info = archive, info
        limits = archive.limits
        limit = max(
            min(info.file_size, limits.member_bytes, limits.total_bytes - archive.inflated), 0
        )
        self._limit, self._size, self._pending = limit, 0, b""
        self._member = archive.guard(info, lambda: _BoundedMember(archive.raw(info), info, limit))

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if not self._pending:
            self._pending = self._archive.guard(self._info, self._next)
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _next(self) -> bytes:
        block = self._member.read(CHUNK)
        info, limits, archive = self._info, self._archive.limits, self._archive
        self._size += len(block)
        archive.inflated += len(block)
        if self._size > info.file_size or archive.inflated > limits.total_bytes:
            what = (
                f"member {info.filename!r} yields more than the {info.file_size} bytes it "
                "declares or than a cap allows"
            )
            raise fail("size-mismatch", archive.source, what, limits.rebuild, info.filename)
        if _too_compressed(self._size, info.compress_size, limits):
            raise _bomb_ratio(info.filename, self._size, info.compress_size, archive.source, limits)
        if not block and self._size != info.file_size:
            what = (
                f"member {info.filename!r} has {self._size} bytes, "
                f"not the {info.file_size} it declares"
            )
            raise fail("size-mismatch", archive.source, what, limits.rebuild, info.filename)
        return block


class Archive:
    """An untrusted ZIP opened for reading one member at a time: the directory checks (entry
    count, names, sizes, ratios, overlapping entries) are done on opening, before any member
    is inflated; ``read`` gives a member's bytes, ``open`` a stream that checks as it goes.

    Memory: the archive's own bytes plus ``CHUNK`` per open member (and what ``read`` returns).
    Use as a context manager; any refusal is a ``BundleError`` (several: ``ZipProblems``).
    """

    def __init__(self, data: bytes, source: str, limits: str | ZipLimits = DEFAULT_LIMITS):
        self.limits, self.source, self.inflated = limits_for(limits), source, 0
        self._zip = _open_zip(data, source, self.limits)
        self._view = memoryview(data)
        self.infos = self._zip.infolist()
        found = directory_problems(self.infos, source, self.limits)
        found = found or overlap_problems(self._view, self.infos, source, self.limits)
        if found:
            self.close()
            raise ZipProblems(found)
        self._by_name = {info.filename: info for info in self.infos}

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()
        self._view.release()

    @property
    def names(self) -> list[str]:
        """Member names in directory order (folders end with '/')."""
        return [info.filename for info in self.infos]

    def size(self, name: str) -> int:
        """A member's declared uncompressed size (checked against its bytes as it is read)."""
        return self._by_name[name].file_size

    def raw(self, info: zipfile.ZipInfo) -> memoryview:
        return _raw_data(self._view, self._zip, info)

    def guard(self, info: zipfile.ZipInfo, step: Any) -> Any:
        """``step()``, with a member's read failures turned into its one ``BundleError``."""
        try:
            return step()
        except BundleError:
            raise
        except _READ_ERRORS as exc:
            raise _corrupt_member(exc, info, self.source, self.limits) from None

    def open(self, name: str) -> io.BufferedReader:
        """A member as a buffered binary stream, checked while it is read."""
        return io.BufferedReader(_CheckedStream(self, self._by_name[name]), CHUNK)

    def read(self, name: str) -> bytes:
        """A member's whole bytes (after the same checks)."""
        info = self._by_name[name]
        data = _read_member(self._view, self._zip, info, self.inflated, self.source, self.limits)
        self.inflated += len(data)
        return data


def read_members(
    data: bytes, source: str, limits: str | ZipLimits = DEFAULT_LIMITS
) -> dict[str, bytes]:
    """Every member's bytes (folders as b''), in memory, after the central-directory checks.

    Raises a ``ZipProblems`` holding every central-directory problem, or the first problem
    found while reading (a ``BundleError`` in both cases: the first is its code and message).
    """
    with Archive(data, source, limits) as archive:
        return {name: archive.read(name) for name in archive.names}
