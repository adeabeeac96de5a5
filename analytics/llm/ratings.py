"""Elo ratings of a catalog snapshot, cached in ``data/derived/<version>/`` (seed 002, "The Elo
rating"); ``python -m analytics derive [VERSION] [--check]`` (``analytics.llm.derive_cli``)
regenerates or checks them.

A cached file is keyed by the snapshot version (snapshots are immutable) and by
``elo.ALGORITHM_VERSION`` (the rating method, part of the file name), so a new method never
serves old ratings. The folder's ``MANIFEST.json`` records, per file, the algorithm version and a
hash of the sources that determine the ratings (:data:`RATING_SOURCES`); :func:`stale_reason`
compares that with the current source, and a test fails when the committed files of the current
snapshot are stale. The current snapshot's folder is committed and kept current; the folders of
some older snapshots, committed when they were current, stay in the repository as they were
(their files carry the method version they were computed with, so a file of another method is
never read). Versions without a file for the current method (the snapshot diff's old side) are
computed on demand and cached the same way.

Beside the overall ratings, one file holds every category's ratings (``elo.rate_categories``,
the category leaderboards); its name and manifest entry also carry ``elo.CATEGORY_VERSION``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

from analytics.core import atomic, db, derived, paths
from analytics.core.schema import SOURCE_KINDS
from analytics.llm import elo
from analytics.llm.ingest.benchmarks import benchmark_files, views

BOOTSTRAP_ROUNDS = 200  # resamples of the benchmarks for the 95% intervals (leaderboard pages)
BOOTSTRAP_SEED = 0
SERVED: tuple[tuple[int, int], ...] = ((BOOTSTRAP_ROUNDS, BOOTSTRAP_SEED), (0, BOOTSTRAP_SEED))
"""(bootstrap, seed) of the files the app reads: the leaderboard pages, then hardware fit / diff."""
CATEGORY_SERVED = (BOOTSTRAP_ROUNDS, BOOTSTRAP_SEED)
"""(bootstrap, seed) of the category ratings file (the leaderboard's category view)."""
ELO_SOURCES = tuple(
    sorted(
        path.relative_to(paths.REPO_ROOT).as_posix()
        for path in Path(elo.__file__).resolve().parent.glob("*.py")
    )
)
"""Every module of the ``analytics.llm.elo`` package, sorted (code moved between them stays in
the hash)."""
VIEW_SOURCES = (
    "analytics/llm/ingest/benchmarks.py",  # reads the tables (and, through protocols, identity)
    "analytics/llm/ingest/identity.py",
    "analytics/llm/ingest/protocols.py",
    *(path.relative_to(paths.REPO_ROOT).as_posix() for path in benchmark_files()),
)
"""The curated benchmark tables and the code that reads them: their ``family`` / ``view_order``
columns decide which view of an evaluation enters the rating (``load_scores``), so every table
computed from the scores is keyed by them too."""
RATING_SOURCES = (*ELO_SOURCES, "analytics/llm/ratings.py", *VIEW_SOURCES)
"""Files whose code or declarations determine the ratings (with ``schema.SOURCE_KINDS``, hashed
as a value)."""
MANIFEST = "MANIFEST.json"
REGENERATE = derived.REGENERATE

_MANIFEST_LOCK = threading.Lock()  # pages may write two files of one folder at once


def load_scores(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every stored score joined with its benchmark, in the engine's column names; ``method``
    (how the source says it ran the score) is empty for snapshots built before it existed.

    Two columns come from outside the snapshot: ``publisher`` (``elo.publisher_of`` of the
    source, which eligibility counts) and the benchmark's ``family`` / ``view_order`` from the
    curated benchmark tables (which view of an evaluation counts: the current declaration
    applies to every snapshot, so both sides of a diff follow one rule)."""
    scores = _stored_scores(con)
    declared = views()
    family = {bench: family for bench, (family, _, _) in declared.items()}
    order = {bench: order for bench, (_, order, _) in declared.items()}
    scores["family"] = scores["benchmark"].map(family).fillna("").astype(str)
    scores["view_order"] = scores["benchmark"].map(order).fillna(1).astype(int)
    scores["publisher"] = elo.publishers(scores)
    return scores


def _stored_scores(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    columns = {row[0] for row in con.execute("DESCRIBE scores").fetchall()}
    method = "s.method" if "method" in columns else "CAST(NULL AS VARCHAR)"
    return db.query(
        con,
        f"""
        SELECT s.model_id AS model, s.benchmark_id AS benchmark, b.name AS benchmark_name,
               b.category, b.higher_is_better, b.unit, s.score, s.source_kind AS source,
               s.source_name, s.source_url, s.date, {method} AS method
        FROM scores s JOIN benchmarks b USING (benchmark_id)
        ORDER BY model, benchmark, source, source_name
        """,
    )


def scores_of(version: str) -> pd.DataFrame:
    """:func:`load_scores` of a built snapshot version."""
    con = db.connect(version)
    try:
        return load_scores(con)
    finally:
        con.close()


def cache_path(version: str, bootstrap: int, seed: int) -> Path:
    """The ratings file of one snapshot version, rating method and bootstrap setting."""
    name = f"elo_ratings_{elo.ALGORITHM_VERSION}_b{bootstrap}_s{seed}.parquet"
    return derived.folder(version) / name


def source_hash() -> str:
    """sha256 over :data:`RATING_SOURCES` and ``SOURCE_KINDS`` (``derived.code_hash``, whole)."""
    return derived.code_hash(RATING_SOURCES, extra=repr(SOURCE_KINDS).encode(), digits=64)


def category_cache_path(version: str, bootstrap: int, seed: int) -> Path:
    """The category ratings file of one snapshot version, both method versions and bootstrap."""
    name = (
        f"elo_category_ratings_{elo.ALGORITHM_VERSION}_{elo.CATEGORY_VERSION}"
        f"_b{bootstrap}_s{seed}.parquet"
    )
    return derived.folder(version) / name


def cached(
    scores: pd.DataFrame | Callable[[], pd.DataFrame], version: str, *, bootstrap: int, seed: int
) -> pd.DataFrame:
    """``elo.rate`` of a snapshot version's ``scores``, read from / written to its derived file.

    Without a version (ad-hoc data) nothing is cached. Writes are atomic.
    """
    path = cache_path(version, bootstrap, seed) if version else None
    return _cached(path, elo.rate, scores, bootstrap, seed)


def cached_categories(
    scores: pd.DataFrame | Callable[[], pd.DataFrame], version: str, *, bootstrap: int, seed: int
) -> pd.DataFrame:
    """``elo.rate_categories`` of a snapshot version's ``scores``, cached like :func:`cached`."""
    path = category_cache_path(version, bootstrap, seed) if version else None
    return _cached(path, elo.rate_categories, scores, bootstrap, seed)


def _cached(
    path: Path | None,
    compute: Callable[..., pd.DataFrame],
    scores: pd.DataFrame | Callable[[], pd.DataFrame],
    bootstrap: int,
    seed: int,
) -> pd.DataFrame:
    """``derived.cached_table`` of ``compute``'s table at ``path`` (nothing stored without a
    path), its manifest entry recorded when stored; ``scores`` may be a function that reads
    them, called only when the file is missing or damaged."""
    return derived.cached_table(
        path,
        lambda: compute(scores() if callable(scores) else scores, bootstrap=bootstrap, seed=seed),
        lambda stored: _record(stored, bootstrap, seed),
    )


def stored(version: str, bootstrap: int, seed: int) -> pd.DataFrame | None:
    """The stored ratings file of ``version`` for the current method, or None when it is not
    there (nothing is computed: for a caller that only adds what the file holds)."""
    path = cache_path(version, bootstrap, seed)
    return derived.read_verified(path) if path.exists() else None


def of_version(version: str, *, bootstrap: int = 0, seed: int = BOOTSTRAP_SEED) -> pd.DataFrame:
    """Ratings of a built snapshot version with ``model_id`` naming (cached as :func:`cached`)."""
    table = cached(lambda: scores_of(version), version, bootstrap=bootstrap, seed=seed)
    return table.rename(columns={"model": "model_id"})


def categories_of_version(
    version: str, *, bootstrap: int = BOOTSTRAP_ROUNDS, seed: int = BOOTSTRAP_SEED
) -> pd.DataFrame:
    """Every category's ratings of a built snapshot version, ``model_id`` naming (cached)."""
    table = cached_categories(lambda: scores_of(version), version, bootstrap=bootstrap, seed=seed)
    return table.rename(columns={"model": "model_id"})


def read_manifest(version: str) -> dict:
    """The derived folder's manifest (``files``: name -> what it was computed with)."""
    path = derived.folder(version) / MANIFEST
    try:
        found = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError:  # damaged: every file then reads as stale, and derive rewrites it
        found = {}
    if not isinstance(found, dict) or not isinstance(found.get("files"), dict):
        return {"files": {}}
    return found


def _entry(path: Path) -> dict:
    """What a derived file must have been computed with (its manifest entry, less bootstrap)."""
    entry = {"algorithm_version": elo.ALGORITHM_VERSION, "source_sha256": source_hash()}
    if path.name.startswith("elo_category_ratings_"):
        entry["category_version"] = elo.CATEGORY_VERSION
    return entry


def _store(path: Path, bootstrap: int, seed: int, table: pd.DataFrame) -> Path:
    """``derived.store`` and the manifest entry (a read-only checkout stores neither)."""
    if derived.store(path, table):
        _record(path, bootstrap, seed)
    return path


def _record(path: Path, bootstrap: int, seed: int) -> None:
    """Record what a stored ratings file was computed with in its folder's manifest."""
    entry = {**_entry(path), "bootstrap": bootstrap, "seed": seed}
    version = path.parent.name
    with _MANIFEST_LOCK:
        manifest = read_manifest(version)
        files = {n: e for n, e in manifest["files"].items() if (path.parent / n).exists()}
        files[path.name] = entry
        payload = {"snapshot_version": version, "regenerate": REGENERATE, "files": files}
        atomic.write_json(path.parent / MANIFEST, payload)


def served_paths(version: str) -> list[Path]:
    """Every derived file the app reads for ``version``: :data:`SERVED`, then the categories."""
    overall = [cache_path(version, bootstrap, seed) for bootstrap, seed in SERVED]
    return [*overall, category_cache_path(version, *CATEGORY_SERVED)]


def stale_reason(version: str) -> str | None:
    """None when every file of :func:`served_paths` matches the current rating code;
    otherwise one line saying what is stale and how to regenerate."""
    files = read_manifest(version)["files"]
    for path in served_paths(version):
        entry = files.get(path.name, {})
        where = path.relative_to(paths.SNAPSHOTS_DIR.parent)
        if not path.exists() or any(entry.get(k) != v for k, v in _entry(path).items()):
            return f"{where} is missing or stale (other rating code); fix: {REGENERATE} {version}"
        damaged = derived.damage(path)
        if damaged:
            return f"{where}: {damaged}; fix: {REGENERATE} {version}"
    return None


def derive(version: str | None = None, *, force: bool = False) -> list[Path]:
    """Recompute the :func:`served_paths` files of ``version`` (default: the current
    snapshot). Every table is computed first and each is then written beside the old file and
    renamed over it, so a page always finds a file; the folder's other rating files (an older
    rating method) are removed only after. Files whose :func:`stale_reason` is empty (current
    code, recorded hash verified) are kept as they are, unless ``force``: a derive with nothing
    changed costs what ``derive --check`` costs."""
    version = version or db.ensure_snapshot()
    if not force and stale_reason(version) is None:
        return served_paths(version)
    scores = scores_of(version)
    folder = derived.folder(version)
    jobs = [(cache_path(version, b, s), elo.rate, b, s) for b, s in SERVED]
    b, s = CATEGORY_SERVED
    jobs.append((category_cache_path(version, b, s), elo.rate_categories, b, s))
    tables = [(path, b, s, rate(scores, bootstrap=b, seed=s)) for path, rate, b, s in jobs]
    written = [_store(path, b, s, table) for path, b, s, table in tables]
    keep = {p.name for p in written}
    old = [p for p in folder.glob("elo_*ratings_*.parquet") if p.name not in keep]
    for path in old:
        path.unlink()
    derived.forget_digests(folder, [p.name for p in old])
    with _MANIFEST_LOCK:
        manifest = read_manifest(version)
        manifest["files"] = {n: e for n, e in manifest["files"].items() if n in keep}
        atomic.write_json(folder / MANIFEST, manifest)
    return written
