"""Safe reading of an untrusted ZIP, in memory: caps from the central directory first, then
again while each member is read (ZIP bombs, oversized files), and no path tricks or links.

Every refusal is a ``BundleError`` with a ``code`` and one line naming the bundle, the member and
the fix. Limits: docs/community.md ("Validation").
"""

from __future__ import annotations

import io
import stat
import zipfile
from dataclasses import dataclass
from typing import Any

MIB = 2**20


@dataclass(frozen=True)
class Limits:
    """Caps applied from the central directory before reading and again while reading."""

    bundle_bytes: int = 64 * MIB  # the ZIP file itself
    member_bytes: int = 64 * MIB  # one member, uncompressed
    total_bytes: int = 96 * MIB  # all members, uncompressed
    ratio: float = 100.0  # uncompressed/compressed; JSON of floats compresses ~3-10x
    ratio_floor_bytes: int = 1 * MIB  # the ratio cap applies above this size
    members: int = 16


DEFAULT_LIMITS = Limits()


class BundleError(ValueError):
    """A rejected bundle: ``code`` names the check, the message says what and how to fix it."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def fail(code: str, source: str, what: str, fix: str) -> BundleError:
    """The error for a failed check: ``<source>: <what>; fix: <fix>``."""
    return BundleError(code, f"{source}: {what}; fix: {fix}")


REBUILD = "rebuild it with `python -m measure submit` and do not edit it by hand"


def check_size(size: int, source: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a bundle file over the size cap before reading it."""
    if size > limits.bundle_bytes:
        raise fail(
            "too-large",
            source,
            f"the bundle is {size / MIB:.1f} MiB, over the {limits.bundle_bytes / MIB:.0f} MiB cap",
            "submit one run record per bundle",
        )


def _open_zip(data: bytes, source: str, limits: Limits) -> zipfile.ZipFile:
    check_size(len(data), source, limits)
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        if not data:
            what = "the file is empty, not a ZIP"
        elif data.startswith(b"PK\x03\x04"):
            what = f"a ZIP whose end is missing or corrupt, probably truncated in transit ({exc})"
        else:
            what = f"not a readable ZIP file ({exc})"
        raise fail("not-zip", source, what, REBUILD) from None


def _check_name(info: zipfile.ZipInfo, source: str) -> None:
    name = info.filename
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise fail("absolute-path", source, f"member {name!r} has an absolute path", REBUILD)
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise fail("link", source, f"member {name!r} is a symbolic link", REBUILD)
    if info.is_dir() or (stat.S_IFMT(mode) and not stat.S_ISREG(mode)):
        raise fail("not-regular-file", source, f"member {name!r} is not a regular file", REBUILD)
    if ".." in parts or "\\" in name or "" in parts or "." in parts:
        raise fail(
            "path-traversal",
            source,
            f"member {name!r} has a path that leaves or bends "
            "the bundle ('..', '.', '\\' or an empty part)",
            REBUILD,
        )
    if info.flag_bits & 0x1:
        raise fail("encrypted", source, f"member {name!r} is encrypted", REBUILD)
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise fail(
            "compression",
            source,
            f"member {name!r} uses compression method "
            f"{info.compress_type}; only stored and deflated are read",
            REBUILD,
        )


def _too_compressed(size: int, compressed: int, limits: Limits) -> bool:
    return size > limits.ratio_floor_bytes and size > limits.ratio * max(compressed, 1)


def _check_directory(infos: list[zipfile.ZipInfo], source: str, limits: Limits) -> None:
    """Every cap, from the sizes the central directory declares (before reading anything)."""
    if len(infos) > limits.members:
        raise fail(
            "too-many-members",
            source,
            f"{len(infos)} members, over the cap of {limits.members}",
            REBUILD,
        )
    seen: set[str] = set()
    for info in infos:
        _check_name(info, source)
        if info.filename in seen:
            raise fail(
                "duplicate-member", source, f"member {info.filename!r} appears twice", REBUILD
            )
        seen.add(info.filename)
        if info.file_size > limits.member_bytes:
            raise fail(
                "oversized-member",
                source,
                f"member {info.filename!r} is "
                f"{info.file_size / MIB:.1f} MiB, over the {limits.member_bytes / MIB:.0f}"
                " MiB cap per member",
                "leave bulky extras out of the record",
            )
        if _too_compressed(info.file_size, info.compress_size, limits):
            raise _bomb_ratio(info.filename, info.file_size, info.compress_size, source, limits)
    total = sum(i.file_size for i in infos)
    if total > limits.total_bytes:
        raise fail(
            "zip-bomb-total",
            source,
            f"members declare {total / MIB:.1f} MiB "
            f"uncompressed, over the {limits.total_bytes / MIB:.0f} MiB cap",
            REBUILD,
        )
    if _too_compressed(total, sum(i.compress_size for i in infos), limits):
        raise _bomb_ratio(
            "(all members)", total, sum(i.compress_size for i in infos), source, limits
        )


def _bomb_ratio(name: str, size: int, compressed: int, source: str, limits: Limits) -> BundleError:
    return fail(
        "zip-bomb-ratio",
        source,
        f"member {name!r} expands {size / max(compressed, 1):.0f}"
        f"-fold ({size} bytes from {compressed}), over the {limits.ratio:.0f}:1 cap",
        REBUILD,
    )


def read_capped(
    stream: io.RawIOBase | Any, info: zipfile.ZipInfo, already: int, source: str, limits: Limits
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
            raise fail(
                "size-mismatch",
                source,
                f"member {info.filename!r} yields more than the "
                f"{info.file_size} bytes it declares or than a cap allows",
                REBUILD,
            )
        if _too_compressed(size, info.compress_size, limits):
            raise _bomb_ratio(info.filename, size, info.compress_size, source, limits)
        chunks.append(block)
    if size != info.file_size:
        raise fail(
            "size-mismatch",
            source,
            f"member {info.filename!r} has {size} bytes, not the {info.file_size} it declares",
            REBUILD,
        )
    return b"".join(chunks)


def read_members(data: bytes, source: str, limits: Limits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """Every member's bytes, in memory, after the central-directory checks."""
    archive = _open_zip(data, source, limits)
    with archive:
        infos = archive.infolist()
        _check_directory(infos, source, limits)
        out: dict[str, bytes] = {}
        for info in infos:
            try:
                with archive.open(info) as stream:
                    out[info.filename] = read_capped(
                        stream, info, sum(map(len, out.values())), source, limits
                    )
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError) as exc:
                if isinstance(exc, BundleError):
                    raise
                raise fail(
                    "corrupt-member",
                    source,
                    f"member {info.filename!r} cannot be read: bad CRC, size or header ({exc})",
                    REBUILD,
                ) from None
    return out
