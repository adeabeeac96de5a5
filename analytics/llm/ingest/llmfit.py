"""Importer for llmfit's model catalogs: ``llmfit/hf_models.json`` (507 curated entries; schema in
``schema.json``) and the table embedded in llmfit 1.1.17 (``llmfit-1.1.17/hf_models.json``, 16,849
Hugging Face repositories with their configs).

Metadata only (it never adds a model). From the curated file: parameter counts, MoE experts,
context length, release date. From 1.1.17 (:func:`load_configs`) only what a repository's config
states: layers, KV heads, head dimension, experts and active size, its licence, and the
repository itself (a maker's repository is the evidence of open weights). Not read from 1.1.17:
its context length (4096 where the config gives none: Llama 3.3 70B reads 4096), its release date
(the repository's creation day, a file date, not a release), and the parameter count of a
quantised re-upload (packed tensors: IBM's granite-4.2-30b-mxfp4 counts 15.9B of 29.3B).
``min_vram_gb`` is NOT read: per llmfit's schema it is an estimate (about 0.5 bytes per
parameter at Q4_K_M), below published Q4_K_M file sizes (Llama 3 8B: 4.1 vs 4.92 GB), so it is not
ground truth for ``vram_q4_gb`` (the seed formula applies where no file size or measurement
exists). Layer/head fields are absent from the curated file.

``arch_keys`` gives the architecture identity of each entry: llmfit's ``architecture`` (the
Hugging Face ``model_type``) and ``parameters_raw`` (the exact parameter count). Two checkpoints
with the same model type and the same count to the parameter have the same tensor shapes (layers,
hidden size, KV heads, head dim): the base and instruct tunes of one model, or a fine-tune that
kept the shapes. Context length and RoPE settings are not part of it (they change no weight).
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, read_source_json
from analytics.llm.ingest.families import (
    NAME_SIZE_FACTOR,
    canonical_org,
    off_the_name,
    org_from_hf,
    org_key,
)
from analytics.llm.ingest.identity import name_tokens, slugify

SOURCE = "llmfit"
FILE_URL = (
    "https://github.com/AlexsJones/llmfit/blob/026ac571bab477fcc50ba9c7a4aabbeff56828d2/"
    "llmfit-core/data/hf_models.json"
)


CONFIGS_FILE = "llmfit-1.1.17/hf_models.json"
CONFIGS_URL = "https://pypi.org/project/llmfit/1.1.17/"
"""The 1.1.17 table ships inside the wheel's binary (its PROVENANCE.md gives the byte range)."""

QUANTISED_FORMATS = frozenset({"mlx", "awq", "gptq", "autoround"})
QUANTISED_NAME = re.compile(
    r"(?:^|[-_.])(?:gguf|gptq|awq|exl2|mlx|bnb|nvfp4|mxfp4|fp8[-_]dynamic|fp8|fp4|int4|int8|w4a16|w8a8|"
    r"[2-8]bit|q[2-8](?:_k)?(?:_[msl])?|\d+bpw)(?=$|[-_.])",
    re.IGNORECASE,
)
"""A re-upload whose tensors are packed: its parameter count is not the model's."""

ROUNDED = 1_000_000
"""A parameter count divisible by this is a rounded size (some entries give '40000000000')."""


_READ: dict[tuple, list[dict]] = {}  # the tables read, by path and file stamp
_READ_KEPT = 4  # the Hub tables of one ingest (two llmfit versions) and a test's own


def read_models(path: Path) -> list[dict]:
    """The JSON list of model entries; IngestError naming the file when it is not a list.

    One ingest asks for the 15 MB Hub table about ten times; it is parsed once per file stamp
    (the entries are shared: callers read them and never change them)."""
    stat = path.stat() if path.is_file() else None
    key = (str(path), stat and stat.st_mtime_ns, stat and stat.st_size)
    if key not in _READ:
        data = read_source_json(path)
        if not isinstance(data, list):
            raise IngestError(f"{path}: expected a JSON list of models (see schema.json)")
        if len(_READ) >= _READ_KEPT:
            del _READ[next(iter(_READ))]
        _READ[key] = [entry for entry in data if isinstance(entry, dict) and entry.get("name")]
    return list(_READ[key])


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def _broken_count(entry: dict) -> bool:
    """A count its name contradicts (``families.off_the_name``: llmfit lists
    allenai/Olmo-3-7B-Instruct at 528,384 parameters)."""
    raw = entry.get("parameters_raw")
    if not isinstance(raw, int | float) or raw <= 0:
        return False
    return off_the_name(slugify(str(entry["name"]).rsplit("/", 1)[-1]), raw / 1e9)


def model_obs(entry: dict) -> ModelObs:
    """Metadata of one llmfit entry (a count its name contradicts is left out)."""
    raw = None if _broken_count(entry) else entry.get("parameters_raw")
    active = entry.get("active_parameters")
    is_moe = entry.get("is_moe")
    return ModelObs(
        name=entry["name"],
        source=SOURCE,
        release_date=entry.get("release_date") or None,
        total_params_b=raw / 1e9 if isinstance(raw, int | float) and raw > 0 else None,
        active_params_b=active / 1e9 if isinstance(active, int | float) and active > 0 else None,
        is_moe=is_moe if isinstance(is_moe, bool) else None,
        licence_raw=entry.get("license") or None,
        hf_id=entry["name"],
        context_length=_int(entry.get("context_length")),
        n_layers=_int(entry.get("num_hidden_layers")),
        n_kv_heads=_int(entry.get("num_key_value_heads")),
        head_dim=_int(entry.get("head_dim")),
        metadata_source_url=FILE_URL,
    )


def load(path: Path, drops: Drops | None = None) -> list[ModelObs]:
    """Observations ordered by Hugging Face downloads (most-downloaded repo wins a tie)."""
    entries = sorted(read_models(path), key=lambda e: -int(e.get("hf_downloads") or 0))
    broken = sum(_broken_count(e) for e in entries)
    if drops is not None and broken:
        drops.add(SOURCE, f"parameter count {NAME_SIZE_FACTOR:g}x off its name's size", broken)
    return [model_obs(e) for e in entries]


def quantised(entry: dict) -> bool:
    """Whether the entry is a quantised upload (by its format or a quantisation tag in its
    name): its parameter count counts packed tensors."""
    return str(entry.get("format") or "").lower() in QUANTISED_FORMATS or bool(
        QUANTISED_NAME.search(str(entry["name"]).rsplit("/", 1)[-1]))


def expert_architectures(entries: list[dict]) -> frozenset[str]:
    """Model types of which some config in the table has two or more experts: a config of
    such a type without an expert count is not evidence of a dense model (the table leaves the
    count out of some of them, e.g. stepfun-ai/Step-3.5-Flash-Base)."""
    return frozenset(
        str(e.get("architecture")).lower() for e in entries if _experts(e) > 1
    )


def _experts(entry: dict) -> int:
    value = entry.get("num_experts")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def config_moe(entry: dict, moe_types: frozenset[str]) -> bool | None:
    """True when the config has two or more experts; False when it was read (it states the
    layers) and its model type never has experts in the table; else None (unknown)."""
    if _experts(entry) > 1:
        return True
    if _int(entry.get("num_hidden_layers")) and str(entry.get("architecture")).lower() not in (
        moe_types
    ):
        return False
    return None


def _head_dim(entry: dict) -> int | None:
    """The config's head dimension, else hidden size / attention heads when that divides."""
    stated = _int(entry.get("head_dim"))
    hidden, heads = _int(entry.get("hidden_size")), _int(entry.get("num_attention_heads"))
    if stated or not hidden or not heads or hidden % heads:
        return stated
    return hidden // heads


def config_obs(entry: dict, moe_types: frozenset[str]) -> ModelObs:
    """What one repository's config in the 1.1.17 table states (see the module docstring for
    the fields it does not give)."""
    packed = quantised(entry) or _broken_count(entry)
    raw, active = entry.get("parameters_raw"), entry.get("active_parameters")
    is_moe = config_moe(entry, moe_types)
    return ModelObs(
        name=entry["name"],
        source=SOURCE,
        total_params_b=None if packed or not _int(raw) else raw / 1e9,
        active_params_b=active / 1e9 if is_moe and not packed and _int(active) else None,
        is_moe=is_moe,
        licence_raw=entry.get("license") or None,
        hf_id=entry["name"],
        n_layers=_int(entry.get("num_hidden_layers")),
        n_kv_heads=_int(entry.get("num_key_value_heads")),
        head_dim=_head_dim(entry),
        metadata_source_url=CONFIGS_URL,
    )


def load_configs(path: Path, drops: Drops | None = None) -> list[ModelObs]:
    """Observations of the 1.1.17 table, unquantised uploads first, then by downloads (the
    maker's own repository is put first per model by ``models_table.maker_first``)."""
    entries = sorted(
        read_models(path), key=lambda e: (quantised(e), -int(e.get("hf_downloads") or 0))
    )
    packed = sum(quantised(e) for e in entries)
    if drops is not None and packed:
        drops.add(f"{SOURCE} 1.1.17", "parameter count of a quantised upload (packed tensors)",
                  packed)
    moe_types = expert_architectures(entries)
    return [config_obs(e, moe_types) for e in entries]


def arch_key(entry: dict) -> str | None:
    """'<model_type>:<exact parameter count>', or None when either is unknown."""
    arch, raw = entry.get("architecture"), entry.get("parameters_raw")
    if not isinstance(arch, str) or not arch.strip() or arch.strip().lower() == "unknown":
        return None
    if not isinstance(raw, int) or isinstance(raw, bool) or raw <= 0:
        return None
    if raw % ROUNDED == 0:  # e.g. 40000000000: a rounded size, not a count of the tensors
        return None
    return f"{arch.strip().lower()}:{raw}"


def arch_keys(path: Path) -> list[tuple[str, str]]:
    """(Hugging Face name, arch_key) of every unquantised entry that has one, most-downloaded
    first (a quantised upload's count is of packed tensors)."""
    entries = sorted(read_models(path), key=lambda e: -int(e.get("hf_downloads") or 0))
    return [(e["name"], key) for e in entries if not quantised(e) and (key := arch_key(e))]


SHAPE_FIELDS = ("n_layers", "n_kv_heads", "head_dim")
SHAPE_NEUTRAL_WORDS = frozenset({"instruct", "it", "chat", "base", "hf", "thinking", "reasoning"})
"""Words naming a tuning of one set of weights: the base, instruct and thinking checkpoints of a
release share every tensor shape (Qwen3-30B-A3B-Instruct-2507 and -Thinking-2507)."""


def shape_words(name: str) -> tuple[frozenset[str], tuple | None]:
    """(the name's words without host, tuning words or single letters, its date) of a model id
    or a repository's name."""
    words, written = name_tokens(slugify(name.rsplit("/", 1)[-1]))
    kept = frozenset(w for w in words if w not in SHAPE_NEUTRAL_WORDS and len(w) > 1)
    return kept, written


def maker_shapes(path: Path) -> dict[str, list[tuple[frozenset[str], tuple | None, tuple, str]]]:
    """Maker (``families.org_key`` of the repository's namespace) -> (words, date, (layers, KV
    heads, head dim), repository) of every unquantised config in the 1.1.17 table that states
    all three."""
    out: dict[str, list] = {}
    for entry in read_models(path):
        obs = config_obs(entry, frozenset())
        shapes = tuple(getattr(obs, f) for f in SHAPE_FIELDS)
        if quantised(entry) or None in shapes or "/" not in entry["name"]:
            continue
        maker = org_key(canonical_org(org_from_hf(entry["name"].split("/")[0])) or "")
        out.setdefault(maker, []).append((*shape_words(entry["name"]), shapes, entry["name"]))
    return out


def arch_shapes(path: Path) -> dict[str, tuple]:
    """arch_key -> (layers, KV heads, head dim) where every unquantised config of that key in
    the 1.1.17 table that states all three agrees (one model type and one exact parameter count
    are one set of tensor shapes, see the module docstring)."""
    found: dict[str, set[tuple]] = {}
    for entry in read_models(path):
        obs = config_obs(entry, frozenset())
        shapes = tuple(getattr(obs, f) for f in SHAPE_FIELDS)
        if not quantised(entry) and None not in shapes and (key := arch_key(entry)):
            found.setdefault(key, set()).add(shapes)
    return {key: next(iter(s)) for key, s in found.items() if len(s) == 1}


def cite(row: dict, url: str) -> None:
    """Add ``url`` to the row's ``metadata_source_url`` (';'-joined, each URL once)."""
    urls = [u for u in (row.get("metadata_source_url") or "").split(";") if u]
    row["metadata_source_url"] = ";".join(dict.fromkeys([*urls, url]))


def fill_from_arch(rows: list[dict], by_key: dict[str, tuple]) -> int:
    """Layers, KV heads and head dim for rows that have none and an ``arch_key`` the Hub table
    gives shapes for (:func:`arch_shapes`); returns how many rows were filled."""
    filled = 0
    for row in rows:
        shapes = by_key.get(row.get("arch_key") or "")
        if shapes is None or any(row.get(f) is not None for f in SHAPE_FIELDS):
            continue
        row.update(zip(SHAPE_FIELDS, shapes, strict=True))
        cite(row, CONFIGS_URL)
        filled += 1
    return filled


def fill_shapes(rows: list[dict], by_maker: dict[str, list]) -> int:
    """Layers, KV heads and head dim for rows that have none, from their maker's configs whose
    names hold every word of the checkpoint's (and its date, if it writes one): 'qwen3-30b-a3b-
    2507' takes Qwen/Qwen3-30B-A3B-Instruct-2507's. Only when every such config agrees (else
    the name is ambiguous and the row stays unknown); returns how many rows were filled."""
    filled = 0
    for row in rows:
        if any(row.get(f) is not None for f in SHAPE_FIELDS):
            continue
        words, written = shape_words(str(row.get("checkpoint_id") or row["model_id"]))
        if not any(ch.isdigit() for w in words for ch in w):
            continue  # 'reka-flash': too few words to name one release
        candidates = [
            (shapes, repo) for repo_words, repo_date, shapes, repo in by_maker.get(
                org_key(str(row.get("organisation") or "")), [])
            if words <= repo_words and (written is None or repo_date == written)
        ]
        if candidates and len({shapes for shapes, _ in candidates}) == 1:
            for field, value in zip(SHAPE_FIELDS, candidates[0][0], strict=True):
                row[field] = value
            cite(row, CONFIGS_URL)
            filled += 1
    return filled
