"""The hardware tables: gpus.csv (specs and SkyPilot rental prices), throughput.csv (llama.cpp
single-stream speeds, MLPerf server throughput, and the measured community, benchmarker and
vendor speeds, single-stream ones under the roofline) and the models' hardware fields
(architecture key, weights release, Q4 ground truth)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from analytics.core import schema
from analytics.llm.ingest import (
    epoch_hardware,
    gpu_benchmarks,
    litgpt,
    measured_speed,
    mlperf,
    roofline,
    skypilot,
)
from analytics.llm.ingest.common import Drops, IngestError
from analytics.llm.ingest.identity import split_variant
from analytics.llm.ingest.resolver import Resolver


def gpu_rows(shared: Path, drops: Drops) -> list[dict]:
    """gpus.csv rows: specs (Epoch + curated) and typical SkyPilot rental prices."""
    rows = epoch_hardware.load(shared / "epoch-ml-hardware/ml_hardware.csv")
    prices = skypilot.typical_prices(shared / "skypilot-catalog", drops)
    known = {r["gpu_id"] for r in rows}
    for gpu in sorted(set(prices) - known):
        drops.add("skypilot", f"priced GPU {gpu} has no spec row")
    for row in rows:
        price = prices.get(row["gpu_id"]) if row["kind"] != "apple" else None
        row.update(skypilot.price_columns(price))
    return sorted(rows, key=lambda r: r["gpu_id"])


def throughput_rows(
    shared: Path, resolver: Resolver, models: set[str], gpus: set[str], drops: Drops
) -> list[dict]:
    """throughput.csv rows: llama.cpp single-stream speeds (a model label becomes the catalog id
    when the catalog has the model) and MLPerf server throughput of catalog checkpoints only."""
    rows = gpu_benchmarks.load(shared / "gpu-benchmarks-llm-inference/README.md", drops)
    out = []
    for row in rows:
        if row["gpu_id"] not in gpus:
            what = f"throughput GPU {row['gpu_id']} missing from gpus_curated.csv"
            raise IngestError("gpu-benchmarks-llm-inference/README.md", what, "add its spec row")
        label = row.pop("model")
        model_id = resolver.lookup(label)
        out.append({"model_id": model_id if model_id in models else label, **row,
                    "engine": "llama.cpp"})
    server = []
    for row in mlperf.load(shared / "mlcommons-inference", drops):
        if row["gpu_id"] not in gpus:
            what = f"MLPerf GPU {row['gpu_id']} missing from gpus_curated.csv"
            raise IngestError("mlcommons-inference", what, "add its spec row")
        hf_name = row.pop("hf_name")
        model_id = resolver.lookup(hf_name)
        if model_id not in models:
            drops.add(mlperf.SOURCE, f"reference checkpoint {hf_name} not in the catalog")
            continue
        server.append({"model_id": resolver.checkpoints.get(model_id, model_id), **row,
                       "engine": None})  # MLPerf: the system's own stack
    keys = schema.PRIMARY_KEYS["throughput"]
    server.sort(key=lambda r: tuple(str(r[k]) for k in keys))
    seen = {tuple(r[k] for k in keys) for r in out}
    for row in server:
        key = tuple(row[k] for k in keys)
        if key in seen:
            drops.add(mlperf.SOURCE, "same throughput key twice after mapping (first kept)")
            continue
        seen.add(key)
        out.append(row)
    return out


KIND_IDS = {
    measured_speed.COMMUNITY: "community-single-stream",
    measured_speed.BENCHMARKER: "benchmarker-single-stream",
    measured_speed.VENDOR: "vendor-aggregate",
}
"""The throughput ``kind`` of each measured-speed source, beside llama.cpp's
'single-stream' and MLPerf's 'server'; never mixed on a page."""
NO_GPU = "GPU not in the catalog (no spec row to check the speed against)"
NO_MODEL = "model does not resolve to a catalog checkpoint"
ABOVE_ROOFLINE = ("generation speed above the memory-bandwidth roofline (bandwidth / bytes of "
                  "weights read per token, +5 %): physically impossible for one stream")
UNCHECKED = ("roofline cannot be checked (unknown bandwidth, active parameters or quantisation "
             "format): crowd data is kept only when it can be")


MODIFIED_CARD = ("card memory above its maker's specification by more than 25 % (a modified "
                 "card, e.g. a 24 GB board rebuilt with 48 GB, is its own GPU, not in the map)")
OFFLOADED = ("weights larger than the GPUs' memory at this quantisation (the catalog's parameter "
             "count): part of the model ran on the CPU")
MODDED_MARGIN = 1.25  # reported memory per card above the spec by more than this: another board


def _modified_card(row: dict, spec_gb: float | None) -> bool:
    """True when a discrete card reports clearly more memory than its maker's spec (Apple and
    unified-memory rows report no per-card memory)."""
    reported = row.get("gpu_memory_gb")
    return bool(reported and spec_gb and reported > spec_gb * MODDED_MARGIN)


def _weights_exceed(row: dict, total_b: float | None, spec_gb: float | None) -> bool:
    """True when the checkpoint's weights at the row's quantisation exceed the cards' memory."""
    per_weight = roofline.bytes_per_weight(row.get("quant"), str(row.get("model_name") or ""))
    count = int(row.get("gpu_count") or 1)
    return bool(per_weight and total_b and spec_gb and total_b * per_weight > spec_gb * count)


def _run_label(row: dict) -> str:
    """What a refused measured-speed row was: checkpoint run, hardware, engine, quant, phase."""
    gpu = row.get("gpu_name") or "?"
    if row.get("apple_memory_gb"):
        gpu = f"{gpu} {row['apple_memory_gb']:g} GB"
    return (f"{row.get('measured_on') or row['model_name']} on {row.get('gpu_count') or 1}× {gpu} "
            f"({row.get('engine') or '?'}, {row.get('quant') or '?'}, {row['phase']})")


def _gpu_names(gpu_table: list[dict]) -> dict[str, str]:
    """Casefolded gpu_id, name and every alias -> gpu_id."""
    out: dict[str, str] = {}
    for row in gpu_table:
        for name in [row["gpu_id"], row["name"], *(row.get("aliases") or "").split(";")]:
            if name and name.strip():
                out.setdefault(name.strip().casefold(), row["gpu_id"])
    return out


def load_measured(shared: Path, drops: Drops) -> list[dict]:
    """The rows of every measured-speed source, before the rules: localmaxxing (the shared copy,
    then only the newer scrape's runs absent from it), llmfit users' runs, Jeff Geerling's and
    NVIDIA's tables."""
    older = shared / measured_speed.FOLDERS["localmaxxing"]
    newer = shared / measured_speed.FOLDERS["llmfit"]
    return (
        measured_speed.load_localmaxxing(older, drops)
        + measured_speed.load_localmaxxing(
            newer, drops, measured_speed.run_ids(older), measured_speed.LM_NEWER_SOURCE,
            measured_speed.LF_URL,
        )
        + measured_speed.load_llmfit_community(newer, drops)
        + measured_speed.load_geerlingguy(shared / measured_speed.FOLDERS["geerlingguy"], drops)
        + measured_speed.load_tensorrt(shared / measured_speed.FOLDERS["tensorrt"], drops)
    )


def measured_rows(
    shared: Path, resolver: Resolver, model_table: list[dict], gpu_table: list[dict], drops: Drops
) -> list[dict]:
    """Throughput rows of the community, benchmarker and vendor speed sources: each
    row resolved to a catalog checkpoint and GPU, single-stream rows without speculative
    decoding, offload or batching and under the roofline; community runs of one setting
    become their median with the number of runs and the range (docs/calculators.md)."""
    rows = load_measured(shared, drops)
    gpu_of = _gpu_names(gpu_table)
    bandwidth = {g["gpu_id"]: g.get("mem_bandwidth_gbps") for g in gpu_table}
    models = {m["model_id"]: m for m in model_table}
    active = {m["checkpoint_id"]: m["active_params_b"] for m in model_table}
    total = {m["checkpoint_id"]: m["total_params_b"] for m in model_table}
    memory = {g["gpu_id"]: g.get("memory_gb") for g in gpu_table if g.get("kind") != "apple"}
    kept = []
    for row in rows:
        label = f"{row['source_name']}: {row['kind']}"
        reason = measured_speed.single_stream_drop_reason(row)
        gpu_id = gpu_of.get(measured_speed.gpu_lookup_name(row).casefold())
        model_id = resolver.lookup(row["model_name"]) if not reason and gpu_id else None
        if model_id is not None and model_id not in models:
            checkpoint = resolver.registry.lookup(split_variant(row["model_name"])[0])
            model_id = checkpoint if checkpoint in active else None
        checkpoint = models[model_id]["checkpoint_id"] if model_id in models else model_id
        single = row["kind"] in roofline.SINGLE_STREAM_KINDS and row["phase"] == "generation"
        ceiling = single and checkpoint and roofline.roofline_tokens_per_s(
            bandwidth.get(gpu_id), active.get(checkpoint), row["quant"], row["gpu_count"] or 1,
            f"{row['model_name']} {row.get('measured_on') or ''}")
        if reason is None and gpu_id is None:
            reason = NO_GPU
        elif reason is None and _modified_card(row, memory.get(gpu_id)):
            reason = MODIFIED_CARD
        elif reason is None and checkpoint is None:
            reason = NO_MODEL
        elif reason is None and single and not ceiling:
            reason = UNCHECKED
        elif reason is None and single and roofline.exceeds_roofline(
                row, bandwidth.get(gpu_id), active.get(checkpoint)):
            reason = ABOVE_ROOFLINE
        elif reason is None and single and _weights_exceed(row, total.get(checkpoint),
                                                           memory.get(gpu_id)):
            reason = OFFLOADED
        if reason:
            drops.add(label, reason, 1, _run_label(row))
            continue
        kept.append(row | {"_gpu_id": gpu_id, "_checkpoint": checkpoint})
    merged = measured_speed.aggregate(
        kept, model_key=lambda r: r["_checkpoint"], gpu_key=lambda r: r["_gpu_id"])
    out = []
    for row in merged:
        out.append({
            "model_id": row["model_id"], "gpu_id": row["gpu_id"], "gpu_count": row["gpu_count"],
            "quant": row["quant"] or "unknown", "phase": row["phase"],
            "tokens_per_s": round(float(row["tokens_per_s"]), 2),
            "source_url": row["source_url"], "kind": KIND_IDS[row["kind"]],
            "scenario": row.get("scenario"), "measured_on": row.get("measured_on"),
            "system": row.get("system"), "source_name": row["source_name"],
            "engine": row["engine"], "context_tokens": row.get("context_tokens"),
            "n_runs": row["n_runs"], "tokens_per_s_min": round(row["tokens_per_s_min"], 2),
            "tokens_per_s_max": round(row["tokens_per_s_max"], 2), "date": row.get("date"),
        })
    return out


Q4_BASES = ("published file size", "measured memory")
"""vram_q4_basis values, best first: a file size is the weights alone (the seed's 1.08 factor adds
KV cache and runtime), a measured peak already holds some of both."""
ARCH_FIELDS = ("n_layers", "n_kv_heads", "head_dim")
_TUNE_SUFFIX = re.compile(r"-(?:instruct|chat|it|base|hf)(?=(?:-v\d+(?:\.\d+)*)?$)")


def weights_release(row: dict) -> str | None:
    """'<org>/<checkpoint without its tuning suffix>' for open weights: equal only for the base
    and instruct/chat checkpoints of one release (llama-3-8b, llama-3-8b-instruct), never across
    releases (llama-3.1-8b) or publishers (a third party's fine-tune keeps its own name)."""
    if not row.get("open_weights"):
        return None
    stem = _TUNE_SUFFIX.sub("", row["checkpoint_id"])
    org = re.sub(r"[^a-z0-9]+", "-", str(row.get("organisation") or "").lower()).strip("-")
    return f"{org or 'unknown'}/{stem}"


def q4_figures(shared: Path, resolver: Resolver, models: set[str], drops: Drops) -> dict:
    """checkpoint_id -> (vram_q4_gb, basis, source_url) from published Q4 file sizes and measured
    4-bit memory (ground truth only; llmfit's estimate is not used)."""
    found = [
        (r["model"], r["size_gb"], Q4_BASES[0], r["source_url"])
        for r in gpu_benchmarks.q4_file_sizes(
            shared / "gpu-benchmarks-llm-inference/README.md", drops
        )
    ]
    litgpt_md = shared / "litgpt/resource-tables.md"
    if litgpt_md.is_file():
        found += [
            (r["model"], r["memory_gb"], Q4_BASES[1], r["source_url"])
            for r in litgpt.inference_memory(litgpt_md, drops)
        ]
    out: dict[str, tuple] = {}
    for label, gb, basis, url in found:
        model_id = resolver.lookup(label)
        if model_id not in models:
            drops.add("q4 ground truth", f"{basis} of {label}: model not in the catalog")
            continue
        checkpoint = resolver.checkpoints.get(model_id, model_id)
        out[checkpoint] = min(out.get(checkpoint, (gb, basis, url)), (gb, basis, url),
                              key=_q4_rank)
    return out


def _q4_rank(figure: tuple) -> tuple:
    """Sort key of a Q4 figure (lower is preferred): basis order, then the larger size."""
    gb, basis, _ = figure
    return (Q4_BASES.index(basis), -gb)


def _q4_group(row: dict) -> str | None:
    """Models that must show one Q4 figure: one arch_key, else (unknown shapes) one release."""
    if row["arch_key"]:
        return f"arch {row['arch_key']}"
    return f"release {row['weights_release']}" if row["weights_release"] else None


def hardware_metadata(rows: list[dict], arch: dict[str, str], q4: dict[str, tuple]) -> None:
    """arch_key, weights_release, shared architecture fields and Q4 ground truth, in place.

    Identical architectures agree: every model of one arch_key gets the group's best
    Q4 figure (same shapes => same file size), or none and the formula; the group's layer/head
    fields fill members that have none."""
    releases: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        row["arch_key"] = arch.get(row["checkpoint_id"])
        row["weights_release"] = weights_release(row)
        if row["arch_key"] and row["weights_release"]:
            releases[row["weights_release"]].add(row["arch_key"])
    for row in rows:  # base and instruct of one release share shapes: one known key fills both
        known = releases.get(row["weights_release"] or "", set())
        if not row["arch_key"] and len(known) == 1:
            row["arch_key"] = next(iter(known))
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if _q4_group(row):
            groups[_q4_group(row)].append(row)
    for row in rows:
        members = groups.get(_q4_group(row), [row]) if _q4_group(row) else [row]
        figures = [q4[m["checkpoint_id"]] for m in members if m["checkpoint_id"] in q4]
        best = min(figures, key=_q4_rank) if figures else (None, None, None)
        row["vram_q4_gb"], row["vram_q4_basis"], row["vram_q4_source_url"] = best
        _take_shapes(row, members)


def share_release_shapes(rows: list[dict]) -> int:
    """Base and instruct of one release share shapes: a row with none takes those of a member
    of its ``weights_release`` that has all three (for shapes filled after
    :func:`hardware_metadata`). Returns how many rows were filled."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row.get("weights_release"):
            groups[row["weights_release"]].append(row)
    return sum(_take_shapes(row, groups[row["weights_release"]])
               for row in rows if row.get("weights_release"))


def _take_shapes(row: dict, members: list[dict]) -> bool:
    """The first member's layer/head fields for a row that has none, with its sources."""
    if any(row[f] is not None for f in ARCH_FIELDS):
        return False
    donor = next((m for m in members if all(m[f] is not None for f in ARCH_FIELDS)), None)
    if donor is None or donor is row:
        return False
    for field_name in ARCH_FIELDS:
        row[field_name] = donor[field_name]
    urls = [u for u in (row["metadata_source_url"], donor["metadata_source_url"]) if u]
    row["metadata_source_url"] = ";".join(dict.fromkeys(";".join(urls).split(";")))
    return True
