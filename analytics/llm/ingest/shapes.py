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
- **a base the repository's own name states** (:func:`fill_from_named_base`): a fine-tune or
  long-context variant that writes its base's whole name, size included
  (``dolphin-2.9.4-llama3.1-8b``, ``Yarn-Llama-2-13b-128k``), with a parameter count within 10 %
  of the base's. Only when every such base agrees on the shapes, and never when the row's own
  config states another architecture (``falcon-mamba-7b`` is no Falcon 7B transformer).

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


def _size_b(word: str) -> float | None:
    match = SIZE_WORD.match(word)
    return float(match[1]) / (1000 if match[2] == "m" else 1) if match else None


def _size_agrees(word: str, params_b: float | None) -> bool:
    size_b = _size_b(word)
    return bool(size_b and params_b) and abs(size_b - params_b) <= SIZE_TOLERANCE * params_b


def _unfilled(row: dict) -> bool:
    return all(row.get(f) is None for f in SHAPE_FIELDS)


def _completes(row: dict, shapes: Shapes) -> bool:
    """The row lacks a shape, and every shape it states is the one ``shapes`` gives."""
    have = [row.get(f) for f in SHAPE_FIELDS]
    return None in have and all(h is None or h == s for h, s in zip(have, shapes, strict=True))


def _record(row: dict, shapes: Shapes, repo: str) -> None:
    row.update(zip(SHAPE_FIELDS, shapes, strict=True))
    llmfit.cite(row, HUB_URL.format(repo=repo))


def copies_of(row: dict, index: Iterable[tuple]) -> list[tuple[Shapes, str]]:
    """(shapes, repository) of the copies of the row's checkpoint in ``index``
    (:func:`copy_index`): same words as the checkpoint id (less a size word the copy's unpacked
    count agrees with), or else as its weights repository's
    name (``TechxGenus/Codestral-22B-v0.1-AWQ`` for ``mistralai/Codestral-22B-v0.1``), same date
    if that name writes one, at most a size word that agrees with its parameter count, and an
    unpacked count that agrees too. A name that writes no version, size or date needs at least
    one copy whose size word agrees."""
    names = (str(row.get("checkpoint_id") or row["model_id"]), str(row.get("weights_repo") or ""))
    for name in filter(None, names):
        found = _copies_named(name, row.get("total_params_b"), index)
        if found:
            return found
    return []


def _copies_named(name: str, params: float | None, index: Iterable[tuple]) -> list:
    words, written = name_words(name)
    if not words:
        return []
    found, sized = [], False
    for repo_words, repo_date, shapes, repo, repo_b in index:
        if written is not None and repo_date != written:
            continue
        if repo_b and params and abs(repo_b - params) > SIZE_TOLERANCE * params:
            continue
        # a repository may leave out the size the checkpoint's name adds ('MiniCPM-V-4.6' for
        # 'minicpm-v-4.6-1.3b') when its own unpacked count agrees with that size
        unnamed = words - repo_words
        if unnamed and not (repo_b and all(_size_agrees(w, repo_b) for w in unnamed)):
            continue
        extra = repo_words - words
        if all(_size_agrees(w, params) for w in extra):
            found.append((shapes, repo))
            sized = sized or bool(extra)
    if written is None and not any(ch.isdigit() for w in words for ch in w) and not sized:
        return []  # a name without a version, size or date ('muse-glimmer') needs a copy that
        # states a size agreeing with the checkpoint's ('Muse-Glimmer-30B-NVFP4')
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


def named_base_index(
    path: Path, rows: list[dict]
) -> list[tuple[frozenset[str], Shapes, str, float, bool]]:
    """(words, shapes, repository, parameters in billions, a catalog model's own weights) of
    every possible base a name can state: catalog rows with shapes and a weights repository,
    then the Hub table's configs with an unpacked count. Only names that write a size qualify
    (a family word alone is no base)."""
    out = []
    for row in rows:
        shapes = tuple(row.get(f) for f in SHAPE_FIELDS)
        repo, params_b = row.get("weights_repo"), row.get("total_params_b")
        if repo and params_b and None not in shapes:
            for name in (str(row.get("checkpoint_id") or row["model_id"]), str(repo)):
                out.append((name_words(name)[0], shapes, str(repo), params_b, True))
    out += [(words, shapes, repo, params_b, False)
            for words, _, shapes, repo, params_b in copy_index(path) if params_b]
    return [entry for entry in out if any(SIZE_WORD.match(w) for w in entry[0])]


def hub_architectures(path: Path) -> dict[str, str]:
    """Repository (lower case) -> the architecture its config states in the Hub table."""
    return {entry["name"].lower(): str(entry["architecture"])
            for entry in llmfit.read_models(path)
            if entry.get("architecture") not in (None, "", "unknown")}


def named_bases(row: dict, index: Iterable[tuple]) -> list[tuple[Shapes, str]]:
    """(shapes, repository) of every base in ``index`` (:func:`named_base_index`) whose whole
    name the row's checkpoint id or weights repository writes with more words (a size may be
    written to fewer digits: ``Yarn-Solar-10b`` writes ``SOLAR-10.7B``),
    with a parameter count within that tolerance of the row's; the base the name states most
    fully comes first, a catalog model's own weights before a copy."""
    params = row.get("total_params_b")
    if not params:
        return []
    names = [str(row.get("checkpoint_id") or row["model_id"]), str(row.get("weights_repo") or "")]
    own = [name_words(n)[0] for n in names if n]
    found = [(-len(words), not catalog, repo, shapes)
             for words, shapes, repo, base_b, catalog in index
             if any(_writes(mine, words) for mine in own)
             and abs(base_b - params) <= SIZE_TOLERANCE * params]
    return [(shapes, repo) for *_, repo, shapes in sorted(found)]


def _writes(name: frozenset[str], base: frozenset[str]) -> bool:
    """The name holds every word of the base and more; a size word of the base is held when
    the name writes that size to fewer digits (``10b`` for ``10.7b``, never ``30b`` for
    ``32b``)."""
    if len(name) <= len(base):
        return False
    sizes = [_size_b(w) for w in name - base]
    for word in base - name:
        size = _size_b(word)
        if size is None or not any(s and s in (int(size), round(size)) for s in sizes):
            return False
    return True


def fill_from_named_base(
    rows: list[dict], index: list[tuple], architectures: dict[str, str]
) -> int:
    """Shapes for rows missing one from the bases their names state (:func:`named_bases`) when
    every such base agrees with the others and with the shapes the row states, and no
    architecture the row's own config states differs from a base's; returns how many rows were
    filled."""
    filled = 0
    for row in rows:
        found = named_bases(row, index) if None in (row.get(f) for f in SHAPE_FIELDS) else []
        if not found or len({shapes for shapes, _ in found}) != 1:
            continue
        if not _completes(row, found[0][0]):
            continue
        mine = architectures.get(str(row.get("weights_repo") or "").lower())
        theirs = {architectures.get(repo.lower()) for _, repo in found} - {None}
        if mine and theirs and theirs != {mine}:
            continue
        _record(row, *found[0])
        filled += 1
    return filled


ATTENTION_FREE = frozenset({"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7"})
"""Hub architectures without attention layers: a fixed recurrent state, no KV cache that grows
with the context (hybrids such as Jamba or RecurrentGemma keep some attention and are not here)."""


def fill_attention_free(rows: list[dict], architectures: dict[str, str]) -> int:
    """0 KV heads and head dim 0 for rows whose weights repository's config states an
    attention-free architecture (:data:`ATTENTION_FREE`); the fit then counts no KV cache.
    Returns how many rows were filled."""
    filled = 0
    for row in rows:
        repo = str(row.get("weights_repo") or "")
        if architectures.get(repo.lower()) not in ATTENTION_FREE or not row.get("n_layers"):
            continue
        if row.get("n_kv_heads") is None and row.get("head_dim") is None:
            row.update(n_kv_heads=0, head_dim=0)
            llmfit.cite(row, HUB_URL.format(repo=repo))
            filled += 1
    return filled
