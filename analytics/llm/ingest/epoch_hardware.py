"""GPU specs: Epoch AI's ML hardware table merged with the curated table ``gpus_curated.csv``.

For each GPU in the curated table: a figure written in the curated table (taken from the vendor
page in its ``spec_source_url``) wins; otherwise the figure comes from Epoch's row named in
``epoch_name`` (dense Tensor FP16/BF16 FLOP/s, memory per board, memory bandwidth). Epoch's blank
cells (e.g. H200 memory) and its FP16-accumulate consumer figures are why the curated column
exists. Apple memory_gb is the GPU-usable share of unified memory (see ``apple_budget_gb``).
"""

from __future__ import annotations

import csv
from pathlib import Path

from analytics.llm.ingest.common import IngestError, clean_text, parse_number, read_source_csv

CURATED_CSV = Path(__file__).with_name("gpus_curated.csv")
EPOCH_URL = "https://epoch.ai/data/machine-learning-hardware"
EPOCH_COLUMNS = (
    "Hardware name",
    "Tensor-FP16/BF16 performance (FLOP/s)",
    "Memory size per board (Byte)",
    "Memory bandwidth (byte/s)",
)
# macOS lets Metal wire about 2/3 of RAM on Macs up to 36 GB and about 3/4 above that
# (recommendedMaxWorkingSetSize; 10922.67 MB reported on a 16 GB Mac, ~48 GB usable on 64 GB).
APPLE_SMALL_FRACTION = 2 / 3
APPLE_LARGE_FRACTION = 0.75
APPLE_SMALL_MAX_GB = 36
APPLE_SMALL_URL = "https://github.com/abetlen/llama-cpp-python/issues/687"
APPLE_LARGE_URL = "https://github.com/ggml-org/llama.cpp/issues/1870"


def apple_budget_gb(ram_gb: float) -> tuple[float, str]:
    """GPU-usable unified memory (GB) of a Mac with `ram_gb` of RAM, and the note citing why."""
    if ram_gb <= APPLE_SMALL_MAX_GB:
        fraction, url, label = APPLE_SMALL_FRACTION, APPLE_SMALL_URL, "2/3"
    else:
        fraction, url, label = APPLE_LARGE_FRACTION, APPLE_LARGE_URL, "3/4"
    budget = round(ram_gb * fraction, 1)
    note = (
        f"{ram_gb:g} GB unified RAM x {label}: macOS Metal recommendedMaxWorkingSetSize default "
        f"(about 2/3 of RAM up to {APPLE_SMALL_MAX_GB} GB, about 3/4 above); see {url}"
    )
    return budget, note


def read_epoch(path: Path) -> dict[str, dict]:
    """Epoch rows by hardware name: bf16 TFLOPS, memory GB, bandwidth GB/s (None when blank)."""
    frame = read_source_csv(path, EPOCH_COLUMNS, "Epoch's header")
    out = {}
    for _, row in frame.iterrows():
        flops = parse_number(row[EPOCH_COLUMNS[1]])
        mem = parse_number(row[EPOCH_COLUMNS[2]])
        bw = parse_number(row[EPOCH_COLUMNS[3]])
        out[row["Hardware name"].strip()] = {
            "bf16_tflops_dense": flops / 1e12 if flops else None,
            "memory_gb": mem / 1e9 if mem else None,
            "mem_bandwidth_gbps": bw / 1e9 if bw else None,
        }
    return out


def read_curated(path: Path = CURATED_CSV) -> list[dict]:
    """The curated GPU rows as dicts of stripped strings."""
    with open(path, newline="", encoding="utf-8") as fh:
        return [{k: (v or "").strip() for k, v in row.items()} for row in csv.DictReader(fh)]


def gpu_row(cur: dict, epoch: dict[str, dict]) -> dict:
    """One gpus.csv row (without prices) from a curated row and Epoch's figures."""
    ep = epoch.get(cur["epoch_name"], {}) if cur["epoch_name"] else {}
    if cur["epoch_name"] and not ep:
        raise IngestError(
            f"{CURATED_CSV}: epoch_name {cur['epoch_name']!r} (gpu {cur['gpu_id']}) is not in "
            "ml_hardware.csv; fix the name or leave it blank"
        )
    row = {k: cur[k] for k in ("gpu_id", "name", "vendor", "kind", "aliases")}
    for col in ("memory_gb", "bf16_tflops_dense", "mem_bandwidth_gbps"):
        row[col] = parse_number(cur[col]) if cur[col] else ep.get(col)
    row["spec_source_url"] = clean_text(cur["spec_source_url"]) or EPOCH_URL
    row["memory_note"] = None
    if cur["unified_ram_gb"]:
        row["memory_gb"], row["memory_note"] = apple_budget_gb(float(cur["unified_ram_gb"]))
    elif ep and cur["memory_gb"] and ep.get("memory_gb") is None:
        row["memory_note"] = (
            f"Epoch leaves memory blank; {cur['memory_gb']} GB from the vendor page"
        )
    if row["memory_gb"] is None:
        raise IngestError(f"{CURATED_CSV}: gpu {cur['gpu_id']} has no memory_gb; add the figure")
    return row


def load(epoch_csv: Path) -> list[dict]:
    """gpus.csv rows for every curated GPU, specs resolved."""
    epoch = read_epoch(epoch_csv)
    return [gpu_row(cur, epoch) for cur in read_curated()]
