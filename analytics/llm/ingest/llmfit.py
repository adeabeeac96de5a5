"""Importer for llmfit's model catalog (``llmfit/hf_models.json``; schema in ``schema.json``).

Metadata only (it never adds a model): parameter counts, MoE experts, context length, release
date. ``min_vram_gb`` is NOT read: per llmfit's schema it is an estimate (about 0.5 bytes per
parameter at Q4_K_M), below published Q4_K_M file sizes (Llama 3 8B: 4.1 vs 4.92 GB), so it is not
ground truth for ``vram_q4_gb`` (the seed formula applies where no file size or
measurement exists). Layer/head fields are absent from this stored version.

``arch_keys`` gives the architecture identity of each entry: llmfit's ``architecture`` (the
Hugging Face ``model_type``) and ``parameters_raw`` (the exact parameter count). Two checkpoints
with the same model type and the same count to the parameter have the same tensor shapes (layers,
hidden size, KV heads, head dim): the base and instruct tunes of one model, or a fine-tune that
kept the shapes. Context length and RoPE settings are not part of it (they change no weight).
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, ModelObs, read_source_json
from analytics.llm.ingest.families import NAME_SIZE_FACTOR, off_the_name
from analytics.llm.ingest.identity import slugify

SOURCE = "llmfit"
FILE_URL = (
    "https://github.com/AlexsJones/llmfit/blob/026ac571bab477fcc50ba9c7a4aabbeff56828d2/"
    "llmfit-core/data/hf_models.json"
)


ROUNDED = 1_000_000
"""A parameter count divisible by this is a rounded size (some entries give '40000000000')."""


def read_models(path: Path) -> list[dict]:
    """The JSON list of model entries; IngestError naming the file when it is not a list."""
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of models (see schema.json)")
    return [entry for entry in data if isinstance(entry, dict) and entry.get("name")]


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
    """(Hugging Face name, arch_key) of every entry that has one, most-downloaded first."""
    entries = sorted(read_models(path), key=lambda e: -int(e.get("hf_downloads") or 0))
    return [(e["name"], key) for e in entries if (key := arch_key(e))]
