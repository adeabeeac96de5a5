"""Measured fine-tuning peak memory from LitGPT's ``tutorials/resource-tables.md``.

Only the fine-tuning tables are read (LoRA, Adapter, Adapter v2; single and multi GPU). All runs
used bf16-true precision on NVIDIA A100-SXM4-40GB GPUs, minibatch 128, Alpaca. ``Max GPU RAM``
becomes ``peak_memory_gb`` (outcome ``measured``); ``OOM`` rows are kept as outcome ``oom`` (a
useful upper bound for the formula); ``N/A`` rows (not run) are dropped with a reason.

``inference_memory`` reads the "Single-GPU Inference" table: measured peak GPU memory of 4-bit
NF4 inference (bitsandbytes ``bnb.nf4``; ``bnb.nf4-dq`` only where the nf4 run has no figure,
e.g. Llama 2 70B, whose nf4 cell is a CUDA error). That is "measured memory" Q4 ground truth.
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
INFERENCE_MODELS = {**MODELS, "codellama": "codellama-{size}b"}
NF4_PREFERENCE = ("bnb.nf4", "bnb.nf4-dq")


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


def inference_memory(path: Path, drops: Drops) -> list[dict]:
    """Measured 4-bit (NF4) inference memory by model label ('llama-2-7b'), GB."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise IngestError(f"{path}: unreadable ({exc}); restore the file from its source") from exc
    if "## Single-GPU Inference" not in text:
        return []  # a file without the table: no measured memory, the formula applies
    section = text.split("## Single-GPU Inference", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [h.lower() for h in _cells(lines[0])] if lines else []
    found: dict[str, dict[str, float]] = {}
    for line in lines[2:]:
        row = dict(zip(header, _cells(line), strict=False))
        quant = row.get("quantization", "").lower()
        if not row.get("model") or quant not in NF4_PREFERENCE:
            continue
        size = parse_number(row["size"].replace("B", "").strip())
        template = INFERENCE_MODELS.get(row["model"].lower())
        if template is None or size is None:
            raise IngestError(f"{path}: inference row {row['model']!r}: unknown model; add it")
        memory = parse_number(row.get("max gpu ram", "").replace("GB", ""))
        label = template.format(size=f"{size:g}")
        if memory is None:
            drops.add(SOURCE, f"{quant} inference run without a memory figure (error or OOM)")
            continue
        found.setdefault(label, {})[quant] = memory
    out = []
    for label, by_quant in found.items():
        quant = next(q for q in NF4_PREFERENCE if q in by_quant)
        out.append(
            {"model": label, "quant": quant, "memory_gb": by_quant[quant], "source_url": URL}
        )
    return out
