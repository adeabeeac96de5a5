"""Importer for llmfit's model catalog (``llmfit/hf_models.json``; schema in ``schema.json``).

Metadata only (it never adds a model): parameter counts, MoE experts, context length, release
date, and ``min_vram_gb`` -> ``vram_q4_gb``. Per llmfit's schema and docs, ``min_vram_gb`` is the
memory its authors list for the model's weights at the entry's ``quantization`` (Q4_K_M for all but
one entry; about 0.5 bytes per parameter): a curated estimate, not a measurement. Entries at any
other quantization give no vram_q4_gb. Layer/head fields are absent from this stored version.
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest.common import IngestError, ModelObs, read_source_json

SOURCE = "llmfit"
FILE_URL = (
    "https://github.com/AlexsJones/llmfit/blob/026ac571bab477fcc50ba9c7a4aabbeff56828d2/"
    "llmfit-core/data/hf_models.json"
)
Q4_QUANTS = {"Q4_K_M"}


def read_models(path: Path) -> list[dict]:
    """The JSON list of model entries; IngestError naming the file when it is not a list."""
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of models (see schema.json)")
    return [entry for entry in data if isinstance(entry, dict) and entry.get("name")]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and value > 0 else None


def model_obs(entry: dict) -> ModelObs:
    """Metadata of one llmfit entry."""
    raw = entry.get("parameters_raw")
    active = entry.get("active_parameters")
    vram = entry.get("min_vram_gb")
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
        vram_q4_gb=float(vram)
        if isinstance(vram, int | float) and entry.get("quantization") in Q4_QUANTS
        else None,
        n_layers=_int(entry.get("num_hidden_layers")),
        n_kv_heads=_int(entry.get("num_key_value_heads")),
        head_dim=_int(entry.get("head_dim")),
        metadata_source_url=FILE_URL,
    )


def load(path: Path) -> list[ModelObs]:
    """Observations ordered by Hugging Face downloads (most-downloaded repo wins a tie)."""
    entries = sorted(read_models(path), key=lambda e: -int(e.get("hf_downloads") or 0))
    return [model_obs(e) for e in entries]
