"""Inflating one ZIP member from its raw bytes, ``CHUNK`` bytes at a time and never past a
limit, whatever its compression method (stored, deflate, bzip2, LZMA): the decoders behind
``analytics.core.safezip``, which never uses ``zipfile``'s own readers (they inflate bzip2 and
LZMA without a bound)."""

from __future__ import annotations

import bz2
import lzma
import struct
import zipfile
import zlib
from typing import Any

CHUNK = 1 << 16  # bytes inflated at a time: no member is ever inflated further than this ahead
LZMA_DICT_MIN = 4096  # liblzma's smallest dictionary


class _Stored:
    """A stored member's "decompressor": its bytes as they are, at most ``max_length`` a call."""

    def __init__(self) -> None:
        self._tail: bytes | memoryview = b""
        self.eof = False
        self.needs_input = True

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        data = self._tail if not data else data
        out, self._tail = bytes(data[:max_length]), data[max_length:]
        self.needs_input = not self._tail
        return out


class _Deflated:
    """zlib's raw inflate with the ``needs_input`` of ``bz2``'s and ``lzma``'s decompressors."""

    def __init__(self) -> None:
        self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
        self.needs_input = True

    @property
    def eof(self) -> bool:
        return self._inflate.eof

    def decompress(self, data: bytes | memoryview, max_length: int) -> bytes:
        out = self._inflate.decompress(self._inflate.unconsumed_tail or data, max_length)
        self.needs_input = not self._inflate.unconsumed_tail and len(out) < max_length
        return out


def _lzma_decompressor(raw: memoryview, declared: int) -> tuple[Any, memoryview]:
    """A raw LZMA1 decompressor for a ZIP's LZMA member and the stream after its header.

    The header is version (2 bytes), properties size (2) and the LZMA1 properties (5). The
    dictionary the properties ask for is cut to the member's declared size (no valid match
    reaches further back), so a forged header cannot make the decoder reserve gigabytes.
    """
    if len(raw) < 4:
        raise zipfile.BadZipFile("LZMA header truncated")
    (psize,) = struct.unpack("<H", raw[2:4])
    props = bytes(raw[4 : 4 + psize])
    if psize != 5 or len(props) != 5 or props[0] >= 9 * 5 * 5:
        raise zipfile.BadZipFile("LZMA properties malformed")
    pb, rest = divmod(props[0], 9 * 5)
    lp, lc = divmod(rest, 9)
    (dict_size,) = struct.unpack("<L", props[1:5])
    dict_size = max(min(dict_size, declared), LZMA_DICT_MIN)
    lzma1 = {"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": dict_size}
    return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma1]), raw[4 + psize :]


class Overflow(zipfile.BadZipFile):
    """A member inflating past the bytes it may yield (its declared size or a cap)."""


class BoundedMember:
    """A member's bytes, inflated from its raw data ``CHUNK`` at a time and never more than one
    byte past ``limit`` (the least of its declared size and the caps): reading past it raises
    ``Overflow`` whatever the compression method, and the end checks the CRC-32.

    ``zipfile`` itself inflates bzip2 and LZMA without a bound (one read of a few kilobytes can
    yield gigabytes), so members are never read through ``ZipFile.open`` or ``ZipFile.read``.
    """

    def __init__(self, raw: memoryview, info: zipfile.ZipInfo, limit: int) -> None:
        self._info, self._limit = info, limit
        self._size, self._crc, self._done = 0, 0, False
        method = info.compress_type
        if method == zipfile.ZIP_STORED:
            self._decompressor: Any = _Stored()
        elif method == zipfile.ZIP_DEFLATED:
            self._decompressor = _Deflated()
        elif method == zipfile.ZIP_BZIP2:
            self._decompressor = bz2.BZ2Decompressor()
        elif method == zipfile.ZIP_LZMA:
            self._decompressor, raw = _lzma_decompressor(raw, info.file_size)
        else:  # refused by the directory checks; kept for a caller of its own
            raise NotImplementedError(f"compression method {method} is not read")
        self._raw, self._at = raw, 0

    def read(self, n: int = -1) -> bytes:
        """At most ``n`` (or ``CHUNK``) bytes of the member; b'' at its end."""
        want = min(n if n and n > 0 else CHUNK, CHUNK, self._limit - self._size + 1)
        decompressor = self._decompressor
        while not self._done:
            feed: memoryview | bytes = b""
            if decompressor.eof:
                break
            if decompressor.needs_input:
                if self._at >= len(self._raw):
                    break
                feed = self._raw[self._at : self._at + CHUNK]
                self._at += len(feed)
            out = decompressor.decompress(feed, want)
            if out:
                return self._count(out)
            if not feed and not decompressor.needs_input:
                break  # no input given and none wanted, yet no output: nothing more comes
        self._finish()
        return b""

    def _count(self, out: bytes) -> bytes:
        self._size += len(out)
        if self._size > self._limit:
            self._done = True
            raise Overflow(
                f"it inflates to more than the {self._limit} bytes "
                + (
                    "it declares"
                    if self._limit == self._info.file_size
                    else f"a cap allows (it declares {self._info.file_size})"
                )
                + "; reading stopped there"
            )
        self._crc = zlib.crc32(out, self._crc)
        return out

    def _finish(self) -> None:
        if not self._done:
            self._done = True
            if self._crc != self._info.CRC:
                raise zipfile.BadZipFile(f"Bad CRC-32 for file {self._info.filename!r}")
