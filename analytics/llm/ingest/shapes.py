"""Layers, KV heads and head dim for checkpoints whose own repository states none in the Hub table
(``llmfit-1.1.17/hf_models.json``), from two kinds of evidence a test can re-check there:

- **a copy of the release under its own name** (:func:`fill_from_copies`): a repository in any
  namespace whose name, less its quantisation format ('8bit', 'AWQ', 'MLX', 'bnb-4bit'), its
  tuning word and a size that agrees with the checkpoint's, is the checkpoint's name
  (``mlx-community/aya-expanse-32b-8bit`` for ``aya-expanse-32b``). Quantising packs the tensors,
  so such a copy's parameter count is useless, but its config keeps the model's layers, KV heads
  and head dim. Only when every such copy agrees; a name with extra words (``-abliterated``,
  ``46B``) is another model.
- **a stated base model with the same parameter count** (:func:`fill_from_base`): the Open LLM
  Leaderboard states each evaluated repository's base (``metadata_base_model``); a fine-tune with
  the base's exact size kept its tensor shapes (a changed layer count or vocabulary changes the
  count). The base's shapes come from its own config in the Hub table or from the catalog row
  that already has them.

Each fill appends the repository it read (``https://huggingface.co/<repo>``) to the row's
``metadata_source_url``. Rows that already have any of the three fields are never touched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from analytics.llm.ingest import llmfit
from analytics.llm.ingest.common import parse_number, read_source_csv
from analytics.llm.ingest.identity import name_tokens, slugify

HUB_URL = "https://huggingface.co/{repo}"
SIZE_WORD = re.compile(r"^(\d+(?:\.\d+)?)([bm])$")
SIZE_TOLERANCE = 0.10
"""A size word in a copy's name must be within this fraction of the checkpoint's parameters."""
SAME_COUNT_TOLERANCE = 0.01
"""A fine-tune and its base are the same shapes only at the same count (rounding of the
leaderboard's billions column)."""
SHAPE_FIELDS = llmfit.SHAPE_FIELDS
Shapes = tuple[int, int, int]


def name_words(name: str) -> tuple[frozenset[str], tuple | None]:
    """(words, date) of a checkpoint id or a repository's last segment less its quantisation
    words; unlike ``llmfit.shape_words`` single letters and digits stay ('MiniCPM-o 2.6' is not
    'MiniCPM-V 2.6', 'Ministral 3 3B' is not 'Ministral-3b')."""
    stem = llmfit.QUANTISED_NAME.sub("-", name.rsplit("/", 1)[-1])
    words, written = name_tokens(slugify(stem))
    return frozenset(w for w in words if w not in llmfit.SHAPE_NEUTRAL_WORDS), written


def copy_index(
    path: Path,
) -> list[tuple[frozenset[str], tuple | None, Shapes, str, float | None]]:
    """(words, date, shapes, repository, parameters in billions or None for a packed count) of
    every config in the Hub table that states all three shapes, quantised uploads included
    (their shapes are the model's; only their counts are packed)."""
    out = []
    for entry in llmfit.read_models(path):
        obs = llmfit.config_obs(entry, frozenset())
        shapes = tuple(getattr(obs, f) for f in SHAPE_FIELDS)
        if None in shapes or "/" not in entry["name"]:
            continue
        out.append((*name_words(entry["name"]), shapes, entry["name"], obs.total_params_b))
    return out


def _size_agrees(word: str, params_b: float | None) -> bool:
    match = SIZE_WORD.match(word)
    if not match or not params_b:
        return False
    size_b = float(match[1]) / (1000 if match[2] == "m" else 1)
    return abs(size_b - params_b) <= SIZE_TOLERANCE * params_b


def _unfilled(row: dict) -> bool:
    return all(row.get(f) is None for f in SHAPE_FIELDS)


def _record(row: dict, shapes: Shapes, repo: str) -> None:
    row.update(zip(SHAPE_FIELDS, shapes, strict=True))
    llmfit.cite(row, HUB_URL.format(repo=repo))


def copies_of(row: dict, index: Iterable[tuple]) -> list[tuple[Shapes, str]]:
    """(shapes, repository) of the copies of the row's checkpoint in ``index``
    (:func:`copy_index`): same words, same date if the checkpoint's name writes one, at most a
    size word that agrees with its parameter count, and an unpacked count that agrees too. A
    name that writes no version or size needs at least one copy whose size word agrees."""
    words, written = name_words(str(row.get("checkpoint_id") or row["model_id"]))
    if not words:
        return []
    params = row.get("total_params_b")
    found, sized = [], False
    for repo_words, repo_date, shapes, repo, repo_b in index:
        if not words <= repo_words or (written is not None and repo_date != written):
            continue
        if repo_b and params and abs(repo_b - params) > SIZE_TOLERANCE * params:
            continue
        extra = repo_words - words
        if all(_size_agrees(w, params) for w in extra):
            found.append((shapes, repo))
            sized = sized or bool(extra)
    if not any(ch.isdigit() for w in words for ch in w) and not sized:
        return []  # a name without a version or size ('muse-glimmer') needs a copy that states
        # a size agreeing with the checkpoint's ('Muse-Glimmer-30B-NVFP4')
    return found


def fill_from_copies(rows: list[dict], index: list[tuple]) -> int:
    """Shapes for unfilled rows from the copies of their release (:func:`copies_of`) when every
    copy agrees; returns how many rows were filled."""
    filled = 0
    for row in rows:
        if not _unfilled(row):
            continue
        found = copies_of(row, index)
        if found and len({shapes for shapes, _ in found}) == 1:
            _record(row, found[0][0], sorted(repo for _, repo in found)[0])
            filled += 1
    return filled


BASES_FILE = "llm-leaderboard-csv/huggingface_v2.csv"
BASE_COLUMNS = ("model_name", "metadata_base_model", "metadata_params_billions")


def stated_bases(path: Path) -> dict[str, tuple[str, float]]:
    """Repository (lower case) -> (its stated base repository, its parameters in billions) for
    every leaderboard row that names a base other than itself ('Removed' and merges excluded)."""
    frame = read_source_csv(path, BASE_COLUMNS, "the v2 export header")
    out: dict[str, tuple[str, float]] = {}
    for name, base, params in frame[list(BASE_COLUMNS)].itertuples(index=False):
        repo, base = str(name).strip().lower(), str(base or "").strip().lower()
        size = parse_number(params)
        if "/" not in base or " " in base or base == repo or not size or size <= 0:
            continue
        out.setdefault(repo, (base, size))
    return out


def base_shapes(path: Path, rows: list[dict]) -> dict[str, tuple[Shapes, float]]:
    """Repository (lower case) -> (shapes, parameters in billions) from the Hub table's
    unquantised configs with an exact count, then from catalog rows that have both."""
    out: dict[str, tuple[Shapes, float]] = {}
    for entry in llmfit.read_models(path):
        obs = llmfit.config_obs(entry, frozenset())
        shapes = tuple(getattr(obs, f) for f in SHAPE_FIELDS)
        if None not in shapes and obs.total_params_b:
            out.setdefault(entry["name"].lower(), (shapes, obs.total_params_b))
    for row in rows:
        shapes = tuple(row.get(f) for f in SHAPE_FIELDS)
        repo = str(row.get("weights_repo") or "").lower()
        if repo and None not in shapes and row.get("total_params_b"):
            out.setdefault(repo, (shapes, row["total_params_b"]))
    return out


def fill_from_base(
    rows: list[dict],
    bases: dict[str, tuple[str, float]],
    shapes_of: dict[str, tuple[Shapes, float]],
) -> int:
    """Shapes for unfilled rows whose weights repository has a stated base (:func:`stated_bases`)
    with known shapes and the same parameter count; returns how many rows were filled."""
    filled = 0
    for row in rows:
        repo = str(row.get("weights_repo") or "").lower()
        if not _unfilled(row) or repo not in bases:
            continue
        base, size_b = bases[repo]
        if base not in shapes_of:
            continue
        shapes, base_b = shapes_of[base]
        if abs(size_b - base_b) <= SAME_COUNT_TOLERANCE * base_b:
            _record(row, shapes, base)
            filled += 1
    return filled
