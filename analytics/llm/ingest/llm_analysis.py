"""Importer for llm-analysis model configs (``llm-analysis/model_configs/*.json``).

Metadata only (it never adds a model): layers, KV heads, head dim and context length. A file
named ``<org>_<repo>.json`` describes the Hugging Face repo ``<org>/<repo>``. When a config has no
``num_key_value_heads`` the model uses full multi-head attention, so KV heads = ``n_head``;
head_dim = hidden_dim / n_head.
"""

from __future__ import annotations

from pathlib import Path

from analytics.llm.ingest.common import IngestError, ModelObs, read_source_json

SOURCE = "llm-analysis"
BASE_URL = "https://github.com/cli99/llm-analysis/blob/main/llm_analysis/model_configs/{name}"


def config_obs(path: Path) -> ModelObs | None:
    """Architecture of one config file, or None when it lacks layers or heads."""
    cfg = read_source_json(path)
    layers, heads, hidden = cfg.get("num_layers"), cfg.get("n_head"), cfg.get("hidden_dim")
    if not all(isinstance(v, int) and v > 0 for v in (layers, heads, hidden)):
        return None
    name = path.stem.replace("_", "/", 1) if "_" in path.stem else path.stem
    context = cfg.get("max_seq_len")
    return ModelObs(
        name=name,
        source=SOURCE,
        n_layers=layers,
        n_kv_heads=int(cfg.get("num_key_value_heads") or heads),
        head_dim=hidden // heads if hidden % heads == 0 else None,
        context_length=context if isinstance(context, int) and context > 0 else None,
        metadata_source_url=BASE_URL.format(name=path.name),
    )


def load(folder: Path) -> list[ModelObs]:
    """Observations for every config in `folder` (sorted by file name)."""
    if not folder.is_dir():
        raise IngestError(f"{folder}: folder missing; point --shared at shared/data")
    return [obs for path in sorted(folder.glob("*.json")) if (obs := config_obs(path))]
