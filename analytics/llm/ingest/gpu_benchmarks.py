"""Measured llama.cpp tokens/s from XiongjieDai/GPU-Benchmarks-on-LLM-Inference (README.md).

Only the tables under "## Benchmarks" are read. LLaMA 3 tables give tg/pp at several lengths;
we keep ``tg 512`` (generation) and ``pp 512`` (prompt processing). LLaMA / LLaMA 2 tables give
three runs and their mean; we keep ``mean TG`` and ``mean PP``. OOM cells and runs marked
``(CPU)`` (CPU fallback) are not GPU measurements and are dropped with a reason. Every row is a
single-stream figure (``kind = "single-stream"``: one llama-bench stream), never an aggregate.

``q4_file_sizes`` reads the "Total VRAM Requirements" table of LLaMA 3 ("Quantized size
(Q4_K_M)"): the published size of the Q4_K_M GGUF file. Its "GB" are GiB: the same README's
perplexity table lists the 70B Q4_K_M file at 39.60 GiB and F16 at 131.43 GiB where this table
says 39.59 / 131.42 "GB"; so sizes are converted with 1 GiB = 1.073741824 GB (8B: 4.58 GiB =
4.92 GB). The LLaMA / LLaMA 2 tables give Q4_0 sizes of Dec 2023 builds whose unit cannot be
checked that way (they match neither GB nor GiB consistently): not used, counted as dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, parse_number

SOURCE = "gpu-benchmarks"
URL = (
    "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference/blob/"
    "00dd2bdeb2404263f22bd6c1cd46ce397e341db5/README.md"
)
# README GPU label (lower case, without '* N') -> gpu_id
GPU_LABELS = {
    "3070 8gb": "rtx-3070",
    "3080 10gb": "rtx-3080",
    "3080 ti 12gb": "rtx-3080-ti",
    "4070 ti 12gb": "rtx-4070-ti",
    "4080 16gb": "rtx-4080",
    "3090 24gb": "rtx-3090",
    "4090 24gb": "rtx-4090",
    "rtx 4000 ada 20gb": "rtx-4000-ada",
    "rtx 5000 ada 32gb": "rtx-5000-ada",
    "rtx a6000 48gb": "rtx-a6000",
    "rtx 6000 ada 48gb": "rtx-6000-ada",
    "a100 80gb": "a100-80gb",
    "h100 pcie 80gb": "h100-pcie",
    "m1 7-core gpu 8gb": "m1-8gb",
    "m1 max 24-core gpu 32gb": "m1-max-32gb",
    "m1 max 32-core gpu 64gb": "m1-max-64gb",
    "m2 ultra 76-core gpu 192gb": "m2-ultra-192gb",
    "m3 10-core gpu 16gb": "m3-16gb",
    "m3 max 40-core gpu 48gb": "m3-max-48gb",
    "m3 max 40-core gpu 64gb": "m3-max-64gb",
}
SECTIONS = {"llama 3": "llama-3", "llama 2": "llama-2", "llama": "llama"}
HEADINGS = {"llama-3": "LLaMA 3", "llama-2": "LLaMA 2", "llama": "LLaMA"}
SOURCE_NAME = "llama.cpp GPU-Benchmarks-on-LLM-Inference"
KIND = "single-stream"
GIB_GB = 2**30 / 1e9  # the README's "GB" are GiB (see the module docstring)
PHASE_COLUMNS = {
    "generation": ("tg 512", "mean tg [t/s]"),
    "prompt": ("pp 512", "mean pp [t/s]"),
}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2011", "-").replace("*", "").strip().lower())


def parse_gpu(label: str) -> tuple[str | None, int]:
    """(gpu_id, count) for a README label like '4090 24GB * 2'; gpu_id None when unknown."""
    match = re.match(r"^(.*?)(?:\s*\*\s*(\d+))?$", label.replace("\u2011", "-").strip())
    base, count = match.group(1), int(match.group(2) or 1)
    return GPU_LABELS.get(_norm(base)), count


def parse_model(cell: str, family: str) -> tuple[str, str] | None:
    """(model label, quant) from '8B Q4_K_M' or '7B_q4_0'; None for '(CPU)' runs."""
    if "(cpu)" in cell.lower():
        return None
    match = re.match(r"^(\d+)B[ _]([A-Za-z0-9_]+)$", cell.strip())
    if not match:
        raise ValueError(cell)
    return f"{family}-{match.group(1)}b", match.group(2).upper()


def _column_index(header: list[str], phase: str) -> int | None:
    lowered = [h.lower() for h in header]
    return next((lowered.index(c) for c in PHASE_COLUMNS[phase] if c in lowered), None)


def parse_table(lines: list[str], family: str, drops: Drops) -> list[dict]:
    """Rows of one markdown table (header, separator, body) as throughput dicts."""
    header, body = _cells(lines[0]), lines[2:]
    out, gpu_label = [], ""
    for line in body:
        cells = _cells(line)
        gpu_label = cells[0] or gpu_label
        gpu_id, count = parse_gpu(gpu_label)
        parsed = parse_model(cells[1], family)
        if parsed is None:
            drops.add(SOURCE, "run marked (CPU): not a GPU measurement")
            continue
        if gpu_id is None:
            drops.add(SOURCE, f"GPU label {gpu_label!r} not in the curated map")
            continue
        for phase in PHASE_COLUMNS:
            idx = _column_index(header, phase)
            value = parse_number(cells[idx].strip("*")) if idx is not None else None
            if value is None:
                drops.add(SOURCE, "OOM or empty cell (no measurement)")
                continue
            out.append(
                dict(
                    model=parsed[0],
                    gpu_id=gpu_id,
                    gpu_count=count,
                    quant=parsed[1],
                    phase=phase,
                    tokens_per_s=value,
                    source_url=URL,
                    kind=KIND,
                    scenario="",
                    measured_on=f"{HEADINGS[family]} {cells[1].strip()}",
                    system="",
                    source_name=SOURCE_NAME,
                )
            )
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise IngestError(f"{path}: unreadable ({exc}); restore the file from its source") from exc


def q4_file_sizes(path: Path, drops: Drops) -> list[dict]:
    """Published Q4_K_M file sizes (GB) by model label ('llama-3-8b'), from the LLaMA 3 table of
    "Total VRAM Requirements"; the Q4_0 tables of LLaMA / LLaMA 2 are counted as dropped."""
    text = _read(path)
    if "## Total VRAM Requirements" not in text:
        return []  # an older README without the table: no ground truth, the formula applies
    section = text.split("## Total VRAM Requirements", 1)[1].split("\n## ", 1)[0]
    out, family = [], None
    for line in section.splitlines():
        heading = re.match(r"^###\s+(LLaMA(?: \d)?)", line)
        if heading:
            family = SECTIONS[heading.group(1).lower()]
        cells = _cells(line) if line.startswith("|") else []
        if len(cells) < 2 or not re.match(r"^\d+B$", cells[0]):
            continue
        size = parse_number(cells[1].replace("GB", ""))
        if family != "llama-3" or size is None:
            drops.add(f"{SOURCE} q4", "Q4_0 size of a Dec 2023 build (unit unclear): not used")
            continue
        out.append(
            dict(
                model=f"{family}-{cells[0].lower()}",
                quant="Q4_K_M",
                size_gb=round(size * GIB_GB, 2),
                source_url=URL,
            )
        )
    return out


def load(path: Path, drops: Drops) -> list[dict]:
    """Throughput rows from the README's Benchmarks section (first occurrence of a key kept)."""
    text = _read(path)
    if "## Benchmarks" not in text:
        raise IngestError(f"{path}: no '## Benchmarks' section; expected the upstream README")
    section = text.split("## Benchmarks", 1)[1].split("\n## ", 1)[0]
    rows, family, table = [], None, []
    for line in section.splitlines() + [""]:
        heading = re.match(r"^###\s+(LLaMA(?: \d)?)", line)
        if heading:
            family = SECTIONS[heading.group(1).lower()]
        if line.startswith("|"):
            table.append(line)
        elif table:
            rows += parse_table(table, family, drops) if family else []
            table = []
    return _dedupe(rows, drops)


def _dedupe(rows: list[dict], drops: Drops) -> list[dict]:
    seen, out = set(), []
    for row in rows:
        key = (row["model"], row["gpu_id"], row["gpu_count"], row["quant"], row["phase"])
        if key in seen:
            drops.add(SOURCE, "repeated row for the same model/GPU/quant/phase (first kept)")
            continue
        seen.add(key)
        out.append(row)
    return out
