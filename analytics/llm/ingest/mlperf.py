"""MLPerf Inference results (``mlcommons-inference/summary_results_v5.1.json`` and ``_v6.0``).

Each file is a JSON list of result rows (fields described in shared/data/SOURCES.md). Kept: the
closed division (the reference model at its accuracy target, so figures are comparable),
``Performance_Units == "Tokens/s"`` (LLM token throughput), ``Availability == "available"``
(preview systems are not yet purchasable: dropped and counted), not flagged ``inferred`` (v6.0
marks 54 such LLM rows, mostly Interactive: the seed shows only measured speeds, so they are
dropped and counted), one accelerator type that maps to
a catalog GPU (mixed-accelerator systems are dropped and counted). ``a#`` is accelerators PER
NODE (an int, or "" for CPU-only systems); the GPU count is ``a# x Nodes`` (v6.0's ``Total
Accelerators`` says the same). A row's figure is the aggregate throughput of the whole system
under its scenario's latency bound: ``kind = "server"``, never mixed with llama.cpp's
single-stream speeds.

The MLPerf benchmark id names a reference checkpoint (MLPerf Inference rules, "Benchmarks"):
llama2-70b is Llama-2-70b-chat-hf, llama3.1-8b / -405b are the Instruct models, mixtral-8x7b is
Mixtral-8x7B-Instruct-v0.1, deepseek-r1 is DeepSeek-R1, gpt-oss-120b is gpt-oss-120b. The ``-99``
/ ``-99.9`` suffix (accuracy target: 99 % / 99.9 % of the reference's accuracy) is kept in
``measured_on``; when a system submitted both for one scenario the -99.9 row (the stricter target)
is kept, because the primary key (schema.PRIMARY_KEYS["throughput"]) has no accuracy column.
"""

from __future__ import annotations

import re
from pathlib import Path

from analytics.llm.ingest.common import Drops, IngestError, parse_number, read_source_json

SOURCE = "mlperf"
FILES = {
    "v5.1": "summary_results_v5.1.json",
    "v6.0": "summary_results_v6.0.json",
}
REQUIRED = ("Category", "Performance_Units", "Model", "Scenario", "Accelerator", "a#", "Nodes",
            "Performance_Result", "System", "Details", "weight_data_types", "Availability")

# MLPerf benchmark id (accuracy suffix removed) -> the Hugging Face repo of its reference model.
REFERENCE_MODELS = {
    "llama2-70b": "meta-llama/Llama-2-70b-chat-hf",
    "llama3.1-8b": "meta-llama/Llama-3.1-8B-Instruct",
    "llama3.1-8b-edge": "meta-llama/Llama-3.1-8B-Instruct",
    "llama3.1-405b": "meta-llama/Llama-3.1-405B-Instruct",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-Instruct-v0.1",
    "deepseek-r1": "deepseek-ai/DeepSeek-R1",
    "gpt-oss-120b": "openai/gpt-oss-120b",
}

# MLPerf accelerator name (lower case, spaces collapsed) -> gpu_id in gpus_curated.csv.
# "Virtualized" H200 is the same board under a hypervisor; a power-capped MI355X is the same chip.
ACCELERATORS = {
    "nvidia h100-sxm-80gb": "h100-sxm",
    "nvidia h200-sxm-141gb": "h200",
    "virtualized nvidia h200-sxm-141gb": "h200",
    "nvidia h200-nvl-141gb": "h200-nvl",
    "nvidia b200-sxm-180gb": "b200",
    "nvidia b300-sxm-270gb": "b300",
    "nvidia gb200": "gb200",
    "nvidia gb300": "gb300",
    "nvidia l40s": "l40s",
    "nvidia rtx pro 6000 blackwell server edition": "rtx-pro-6000-server",
    "amd instinct mi300x 192gb hbm3": "mi300x",
    "amd instinct mi325x 256gb hbm3e": "mi325x",
    "amd instinct mi350x 288gb hbm3e": "mi350x",
    "amd instinct mi355x 288gb hbm3e": "mi355x",
    "amd instinct mi355x 288gb hbm3e (power cap 1000 w)": "mi355x",
}
_COUNT_IN_NAME = re.compile(r"^(.*?)\s*\(x(\d+)\)$")
_MIXED = re.compile(r"\(x\d+\)\s*(,|and)\s", re.IGNORECASE)


def _norm(name: str) -> str:
    return re.sub(r"\s+", " ", name.strip().lower())


def split_model(model: str) -> tuple[str, str]:
    """(benchmark id without the accuracy target, the full id) for 'llama2-70b-99.9'."""
    base = re.sub(r"-99(?:\.9)?$", "", model.strip())
    return base, model.strip()


def accelerator_count(row: dict) -> int | None:
    """Total accelerators = a# (per node) x Nodes; a# may be a string; None when unknown/0."""
    per_node = parse_number(row.get("a#"))
    nodes = parse_number(row.get("Nodes"))
    if not per_node or not nodes or per_node != int(per_node) or nodes != int(nodes):
        return None
    return int(per_node) * int(nodes)


def parse_accelerator(name: str) -> tuple[str | None, int | None, str | None]:
    """(gpu_id, count stated in the name, drop reason) for one Accelerator cell."""
    if not name.strip():
        return None, None, "CPU-only system (no accelerator)"
    if _MIXED.search(name):
        return None, None, "mixed-accelerator system (figure is not one GPU type's)"
    stated = None
    match = _COUNT_IN_NAME.match(name.strip())
    if match:
        name, stated = match.group(1), int(match.group(2))
    gpu_id = ACCELERATORS.get(_norm(name))
    if gpu_id is None:
        return None, stated, f"accelerator {name.strip()!r} not in the curated GPU map"
    return gpu_id, stated, None


def parse_row(row: dict, version: str, drops: Drops) -> dict | None:
    """One throughput dict (``hf_name`` still to resolve), or None with the reason counted."""
    label = f"{SOURCE} {version}"
    if row.get("Category") != "closed":
        drops.add(label, "open division (model or accuracy target may differ from the reference)")
        return None
    if row.get("Performance_Units") != "Tokens/s":
        drops.add(label, "result not in Tokens/s (not an LLM token-throughput row)")
        return None
    if row.get("inferred") in (1, "1", True):
        drops.add(label, "result flagged 'inferred' by MLCommons (not a direct measurement)")
        return None
    if row.get("Availability") != "available":
        drops.add(label, f"availability {row.get('Availability')!r} (not yet purchasable)")
        return None
    base, full = split_model(str(row.get("Model", "")))
    hf_name = REFERENCE_MODELS.get(base)
    if hf_name is None:
        drops.add(label, f"MLPerf model {full!r} has no reference checkpoint mapped")
        return None
    gpu_id, stated, reason = parse_accelerator(str(row.get("Accelerator", "")))
    if reason:
        drops.add(label, reason)
        return None
    count = accelerator_count(row)
    total = row.get("Total Accelerators")
    if count is None or (isinstance(total, int) and total != count):
        drops.add(label, "accelerator count unknown or inconsistent (a# x Nodes)")
        return None
    if stated is not None and stated != count:
        drops.add(label, "accelerator count in the name disagrees with a# x Nodes")
        return None
    value = parse_number(row.get("Performance_Result"))
    url = str(row.get("Details") or "").strip()
    if value is None or value <= 0 or not url.startswith("https://"):
        drops.add(label, "no positive result or no Details URL")
        return None
    return {
        "hf_name": hf_name,
        "gpu_id": gpu_id,
        "gpu_count": count,
        "quant": str(row.get("weight_data_types") or "").strip().upper(),
        "phase": "generation",
        "tokens_per_s": float(value),
        "source_url": url,
        "kind": "server",
        "scenario": str(row.get("Scenario") or "").strip(),
        "measured_on": full,
        "system": str(row.get("System") or "").strip(),
        "source_name": f"MLPerf Inference {version}",
    }


def read_results(path: Path) -> list[dict]:
    """The JSON list of result rows; IngestError naming the file and the missing field."""
    data = read_source_json(path)
    if not isinstance(data, list):
        raise IngestError(f"{path}: expected a JSON list of MLPerf result rows")
    for i, row in enumerate(data):
        missing = [k for k in REQUIRED if not isinstance(row, dict) or k not in row]
        if missing:
            raise IngestError(
                f"{path}: row {i}: missing field(s) {missing}; expected MLPerf summary_results.json"
            )
    return data


def _strictness(row: dict) -> int:
    return 1 if row["measured_on"].endswith("-99.9") else 0


def load(folder: Path, drops: Drops) -> list[dict]:
    """Kept rows of every summary file present in `folder` (an absent folder gives none).

    One row per (checkpoint, GPU, count, quant, scenario, system, Details URL): every
    submitter's system stays; of a -99 / -99.9 pair the stricter -99.9 row is kept."""
    if not folder.is_dir():
        return []
    best: dict[tuple, dict] = {}
    for version, name in FILES.items():
        path = folder / name
        if not path.is_file():
            continue
        for raw in read_results(path):
            row = parse_row(raw, version, drops)
            if row is None:
                continue
            key = tuple(row[k] for k in ("hf_name", "gpu_id", "gpu_count", "quant", "scenario",
                                         "system", "source_url"))
            if key in best:
                old = best[key]
                both_targets = (old["measured_on"] != row["measured_on"]
                                and split_model(old["measured_on"])[0]
                                == split_model(row["measured_on"])[0])
                reason = (
                    "same system and scenario at both accuracy targets (-99.9 kept)"
                    if both_targets
                    else "same checkpoint, system and scenario listed twice (higher figure kept)"
                )
                drops.add(f"{SOURCE} {version}", reason)
                if (_strictness(row), row["tokens_per_s"]) <= (_strictness(old),
                                                               old["tokens_per_s"]):
                    continue
            best[key] = row
    return list(best.values())
