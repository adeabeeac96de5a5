"""One catalog generation: the files a writer of several catalog files (``ingest``) wrote
together, sealed by a list of their hashes written after them all.

A writer renames its files into place one by one (``atomic.write_all``), so a kill between two
renames leaves a mix: a new ``models.csv`` beside an old ``scores.csv``, which may even
validate and would then be built and served as a version nobody produced. The writer therefore
writes ``GENERATION.sha256`` last (sha256sum's format: ``<hex>  <path>``, paths relative to the
catalog); validation, the build and ``snapshot check`` refuse a catalog whose listed files do
not hash to it, naming each. A mix keeps the old list (or none yet), so it never passes.
The list is not a CSV or JSON file: it is neither part of the version nor of the snapshot.
"""

from __future__ import annotations

from pathlib import Path

from analytics.core import atomic
from analytics.core.hashing import file_sha256
from analytics.core.problems import at

GENERATION_FILE = "GENERATION.sha256"
MAX_GENERATION_BYTES = 64 * 1024  # a few dozen lines; a larger one is refused, not read
REWRITE_FIX = "rerun `python -m analytics ingest`, which rewrites these files and the list together"


def seal(catalog_dir: Path, files: list[Path]) -> Path:
    """Write the generation list of ``files`` (already in place) into ``catalog_dir``, atomically
    and last; returns its path."""
    lines = sorted(
        f"{file_sha256(path)}  {path.relative_to(catalog_dir).as_posix()}\n" for path in files
    )
    target = catalog_dir / GENERATION_FILE
    atomic.write_text(target, "".join(lines))
    return target


def _listed(catalog_dir: Path, listing: Path) -> tuple[dict[str, str], list[str]]:
    """(path -> sha256, problems) of the generation list."""
    if listing.stat().st_size > MAX_GENERATION_BYTES:
        return {}, [at(listing, None, "is too large to be a generation list", REWRITE_FIX)]
    try:
        text = listing.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return {}, [at(listing, None, f"cannot be read ({exc})", REWRITE_FIX)]
    listed, problems = {}, []
    for number, line in enumerate(text.splitlines(), start=1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64 or not name or ".." in Path(name).parts:
            problems.append(at(listing, number, "not a '<sha256>  <path>' line", REWRITE_FIX))
            continue
        listed[name] = digest
    return listed, problems


def problems(catalog_dir: Path) -> list[str]:
    """One line per listed file that is missing or does not hash to the list (a catalog with
    no list: nothing to check)."""
    listing = catalog_dir / GENERATION_FILE
    if not listing.is_file():
        return []
    listed, found = _listed(catalog_dir, listing)
    for name, digest in sorted(listed.items()):
        path = catalog_dir / name
        if not path.is_file():
            found.append(at(path, None, f"missing, though {GENERATION_FILE} lists it", REWRITE_FIX))
        elif file_sha256(path) != digest:
            what = (
                f"not the file written with the rest of its generation (its sha256 differs "
                f"from {GENERATION_FILE}): an interrupted ingest or an edit left a mix"
            )
            found.append(at(path, None, what, REWRITE_FIX))
    return found
