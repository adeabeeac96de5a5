"""Measured fine-tuning peak memory from LitGPT's ``tutorials/resource-tables.md``.

Only the fine-tuning tables are read (LoRA, Adapter, Adapter v2; single and multi GPU). All runs
used bf16-true precision on NVIDIA A100-SXM4-40GB GPUs, minibatch 128, Alpaca. ``Max GPU RAM``
becomes ``peak_memory_gb`` (outcome ``measured``); ``OOM`` rows are kept as outcome ``oom`` (a
useful upper bound for the formula); ``N/A`` rows (not run) are dropped with a reason.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, parse_number

SOURCE = "litgpt"
URL = (
    "https://github.com/Lightning-AI/litgpt/blob/4839345a97a0a90bc5f2361664b04d665c9a0e89/"
    "tutorials/resource-tables.md"
)
GPU_ID = "a100-40gb"  # the document's hardware line: NVIDIA A100-SXM4-40GB
COLUMNS = (
    "model",
    "params_b",
    "method",
    "quantization",
    "microbatch_size",
    "trainable_params",
    "gpu_id",
    "gpu_count",
    "peak_memory_gb",
    "outcome",
    "source_url",
)
SECTIONS = {
    "finetuning with lora": "lora",
    "finetuning with adapter": "adapter",
}
MODELS = {
    "phi-1.5": "phi-1.5",
    "stablelm alpha": "stablelm-alpha-3b",
    "llama 2": "llama-2-{size}b",
    "falcon": "falcon-{size}b",
}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_row(header: list[str], cells: list[str], method: str) -> dict | None:
    """One table row as a finetune_memory dict; None for blank spacer rows."""
    row = dict(zip([h.lower() for h in header], cells, strict=False))
    if not row.get("model"):
        return None
    size = parse_number(row["size"].replace("B", "").strip())
    size_label = f"{size:g}" if size is not None else ""
    template = MODELS.get(row["model"].lower())
    if template is None or size is None:
        raise ValueError(f"unknown model {row['model']!r}")
    memory_text = row["max gpu ram"]
    gpu = re.match(r"(\d+)\s*x", row.get("gpu", "1 x")) if row.get("gpu") else None
    return {
        "model": template.format(size=size_label),
        "params_b": size,
        "method": method,
        "quantization": "none" if row["quantization"].lower() == "none" else row["quantization"],
        "microbatch_size": int(row["microbatch size"]),
        "trainable_params": int(row["trainable parameters"].replace(",", "")),
        "gpu_id": GPU_ID,
        "gpu_count": int(gpu.group(1)) if gpu else 1,
        "peak_memory_gb": parse_number(memory_text.replace("GB", "")),
        "outcome": "oom" if memory_text.upper() == "OOM" else "measured",
        "source_url": URL,
    }


def load(path: Path, drops: Drops) -> list[dict]:
    """All fine-tuning rows with a measurement or an OOM outcome."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise IngestError(f"{path}: unreadable ({exc}); restore the file from its source") from exc
    rows, method, table = [], None, []
    for line in text.splitlines() + [""]:
        if line.startswith("## "):
            title = line[3:].strip().lower()
            method = next((m for key, m in SECTIONS.items() if title.startswith(key)), None)
        elif "adapter_v2.py" in line and method == "adapter":
            method = "adapter-v2"
        if line.startswith("|"):
            table.append(line)
            continue
        if table and method:
            rows += _parse_table(table, method, drops)
        table = []
    return rows


def _parse_table(lines: list[str], method: str, drops: Drops) -> list[dict]:
    header, out = _cells(lines[0]), []
    for line in lines[2:]:
        row = parse_row(header, _cells(line), method)
        if row is None:
            continue
        if row["peak_memory_gb"] is None and row["outcome"] != "oom":
            drops.add(SOURCE, "run without a memory figure (N/A)")
            continue
        out.append(row)
    return out
