"""Rules for measured speeds: the memory-bandwidth ceiling of single-stream generation, the
quant vocabulary, and the median of repeated community runs (:func:`aggregate`).

Generating one token at batch 1 reads every active weight once, so a GPU cannot generate faster
than ``bandwidth / bytes of active weights``. A measured single-stream speed above that ceiling
is impossible: speculative decoding, a batched run or a wrong label. The ceiling is optimistic on
purpose (KV-cache reads and kernel overheads are ignored, multi-GPU runs get the sum of the
boards' bandwidth), so a row above it is certainly wrong, and a row below it may still be.

``normalise_quant`` maps a source's free-text quantisation to one label (upper-case GGUF names,
``FP16``/``BF16``/``FP8``/``NVFP4``/``MXFP4``, ``MLX-<n>bit``, ``INT4``/``AWQ-INT4``/
``GPTQ-INT4``/``INT8``); text it does not know is kept as published, stripped.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable

# Bits per weight, from these sources:
# [L] llama.cpp tools/quantize/README.md, table "meta-llama/Llama-3.1-8B", column bits/weight
#     (whole-file average, so it includes the higher-precision tensors a K-quant mix keeps):
#     https://github.com/ggml-org/llama.cpp/blob/311c2c9f0ebd6e08f5b20e8827c654cebb7a41d6/tools/quantize/README.md
# [L2] the older table "Llama 2 7B" of the same README (examples/quantize/README.md before the
#     move), the only one listing Q3_K_M (3.91).
# [B] block layout in ggml (ggml-common.h): Q4_0 packs 32 weights in 16 bytes plus one fp16
#     scale = 18 bytes / 32 = 4.5 bits.
# [MLX] mlx.core.quantize, mode "affine": groups of 64 weights (default) share one scale and one
#     bias in the input dtype (16-bit): n + 32/64 bits, i.e. 4.5 / 6.5 / 8.5 for 4/6/8-bit.
#     https://ml-explore.github.io/mlx/build/html/python/_autosummary/mlx.core.quantize.html
# [MX] OCP Microscaling spec, MXFP4: E2M1 values, one E8M0 scale per 32 -> 4 + 8/32 = 4.25.
# [NV] NVIDIA NVFP4: E2M1 values, one E4M3 scale per 16 (plus one fp32 per tensor) -> 4.5.
# [F] plain formats: FP16/BF16 16, FP8 (E4M3, per-tensor or per-channel scale) 8, INT8 8.
# [G] 4-bit integer weight-only (AWQ, GPTQ, AutoRound, compressed-tensors int4): 4 bits plus a
#     16-bit scale per group of 128 = 4.125 (zero points ignored: a lower bound, so a lenient
#     ceiling).
BITS_PER_WEIGHT: dict[str, float] = {
    "IQ1_S": 2.0042, "IQ1_M": 2.1460, "IQ2_XXS": 2.3824, "IQ2_XS": 2.5882,  # [L]
    "IQ2_S": 2.7403, "IQ2_M": 2.9294, "IQ3_XXS": 3.2548, "IQ3_XS": 3.4977,  # [L]
    "IQ3_S": 3.6606, "IQ3_M": 3.7628, "IQ4_XS": 4.4597, "IQ4_NL": 4.6818,  # [L]
    "Q2_K_S": 2.9697, "Q2_K": 3.1593, "Q3_K_S": 3.6429, "Q3_K_L": 4.2979,  # [L]
    "Q3_K_M": 3.91,  # [L2]
    "Q4_0": 4.5,  # [B]
    "Q4_K_S": 4.6672, "Q4_K_M": 4.8944, "Q5_K_S": 5.5704, "Q5_K_M": 5.7036,  # [L]
    "Q6_K": 6.5633, "Q8_0": 8.5008,  # [L]
    "FP32": 32.0, "FP16": 16.0, "BF16": 16.0, "FP8": 8.0, "INT8": 8.0,  # [F]
    "NVFP4": 4.5,  # [NV]
    "MXFP4": 4.25,  # [MX]
    "MLX-4bit": 4.5, "MLX-6bit": 6.5, "MLX-8bit": 8.5,  # [MLX]
    "INT4": 4.125, "AWQ-INT4": 4.125, "GPTQ-INT4": 4.125, "AutoRound-INT4": 4.125,  # [G]
}
BYTES_PER_WEIGHT: dict[str, float] = {q: bits / 8 for q, bits in BITS_PER_WEIGHT.items()}
"""Bytes read per weight by quant label (Q4_K_M: 4.8944 bits = 0.612 bytes)."""

TOLERANCE = 0.05
"""A single-stream speed is above the roofline when it exceeds the ceiling by more than 5 %:
room for rounded parameter counts (sources give whole billions) and for bandwidth figures
quoted a little low; real runs reach 60-90 % of the ceiling, never above it."""

COMMUNITY, BENCHMARKER = "community single stream", "benchmarker single stream"
VENDOR = "vendor aggregate per GPU"
SINGLE_STREAM_KINDS = (COMMUNITY, BENCHMARKER)

_EXACT = {
    "F16": "FP16", "FP16": "FP16", "BF16": "BF16", "F32": "FP32", "FP32": "FP32",
    "FP8": "FP8", "FP8 DYNAMIC": "FP8", "INT8": "INT8", "INT8_W8A16": "INT8",
    "INT4": "INT4", "AWQ": "AWQ-INT4", "GPTQ": "GPTQ-INT4", "GPTQ4": "GPTQ-INT4",
    "AUTOROUND": "AutoRound-INT4", "MXFP4": "MXFP4",
}
_MLX_BITS = re.compile(r"^(?:MLX-)?(?:INT)?(\d)BIT$|^INT(\d)$|^MIXED(\d)$")
_GGUF = re.compile(r"^(?:UD-)?I?Q\d(?:_[0-9A-Z]+)*(?:-QAT)?$")


def normalise_quant(raw: object, engine: str | None = None) -> str | None:
    """One label for a source's quantisation text; None when blank.

    'Unsloth-Dynamic-' becomes 'UD-'; '4bit'/'int4'/'mixed4' on the MLX engine become 'MLX-4bit';
    labels naming NVFP4 anywhere ('compressed-tensors (NVFP4+FP8)') become 'NVFP4'."""
    text = str(raw or "").strip()
    if not text:
        return None
    upper = re.sub(r"\s+", " ", text.upper())
    if upper.startswith("UNSLOTH-DYNAMIC-"):
        upper = "UD-" + upper[len("UNSLOTH-DYNAMIC-"):]
    mlx = _MLX_BITS.match(upper)
    if mlx and (engine == "MLX" or upper.startswith("MLX-")):
        return f"MLX-{next(g for g in mlx.groups() if g)}bit"
    if upper in _EXACT:
        return _EXACT[upper]
    if "NVFP4" in upper:
        return "NVFP4"
    if _GGUF.match(upper):
        return upper
    return text


def is_gguf_quant(quant: object) -> bool:
    """True for a llama.cpp GGUF quantisation label ('Q4_K_M', 'IQ3_XS', 'UD-Q4_K_XL')."""
    return bool(_GGUF.match(str(quant or "").upper()))


def _base_quant(quant: str) -> str | None:
    """The label of :data:`BITS_PER_WEIGHT` that bounds a variant from below: Unsloth dynamic
    ('UD-') and bartowski/other '_L'/'_XL'/'_P' K-quant mixes keep more tensors at high
    precision than the base mix, so the base ('Q4_K_M', 'Q8_0', 'Q6_K') under-counts their
    bytes and keeps the ceiling lenient."""
    if quant in BITS_PER_WEIGHT:
        return quant
    core = re.sub(r"^UD-|-QAT$", "", quant)
    if core in BITS_PER_WEIGHT:
        return core
    match = re.match(r"^(Q[2-8])_K_(?:L|XL|P)$", core)
    if match:
        base = {"Q2": "Q2_K", "Q6": "Q6_K", "Q8": "Q8_0"}.get(match.group(1),
                                                            f"{match.group(1)}_K_M")
        return base if base in BITS_PER_WEIGHT else None
    return None


NATIVE_MXFP4 = ("gpt-oss",)
"""Models released in MXFP4 whose GGUF files keep the experts in MXFP4 at every quant label
(a gpt-oss-20b 'Q8_0' file is about as large as its MXFP4 one)."""


def bytes_per_weight(quant: str | None, model: str = "") -> float | None:
    """Bytes per weight for a normalised quant label (variants read as their base; at most
    MXFP4's for :data:`NATIVE_MXFP4` models); None when the format is unknown (hipfire 'MQ4',
    'JANGTQ', ternary...)."""
    base = _base_quant(quant) if quant else None
    if not base:
        return None
    if any(name in model.lower() for name in NATIVE_MXFP4):
        return min(BYTES_PER_WEIGHT[base], BYTES_PER_WEIGHT["MXFP4"])
    return BYTES_PER_WEIGHT[base]


def roofline_tokens_per_s(
    bandwidth_gbps: float | None,
    active_params_b: float | None,
    quant: str | None,
    gpu_count: int = 1,
    model: str = "",
) -> float | None:
    """The most generation tokens/s one stream can reach: ``gpu_count x bandwidth`` (GB/s)
    divided by the bytes of weights read per token (active parameters, billions, x bytes per
    weight). None when the bandwidth, the parameter count or the format is unknown."""
    per_weight = bytes_per_weight(quant, model)
    if not bandwidth_gbps or not active_params_b or not per_weight or gpu_count < 1:
        return None
    if bandwidth_gbps <= 0 or active_params_b <= 0:
        return None
    return gpu_count * bandwidth_gbps / (active_params_b * per_weight)


def exceeds_roofline(row: dict, bandwidth_gbps: float | None, active_params_b: float | None
                     ) -> bool:
    """True for a single-stream generation row faster than its ceiling by more than
    :data:`TOLERANCE`. Prompt rows, vendor aggregates (many streams at once) and rows whose
    ceiling is unknown are never flagged: pass the parameters read per token (active ones for
    a mixture of experts)."""
    if row.get("kind") not in SINGLE_STREAM_KINDS or row.get("phase") != "generation":
        return False
    ceiling = roofline_tokens_per_s(
        bandwidth_gbps, active_params_b, row.get("quant"), int(row.get("gpu_count") or 1),
        f"{row.get('model_name') or ''} {row.get('measured_on') or ''}",
    )
    return ceiling is not None and float(row["tokens_per_s"]) > ceiling * (1 + TOLERANCE)


def gpu_lookup_name(row: dict) -> str:
    """The name to look up in gpus.csv aliases: 'M4 Max 128GB' for Apple, else gpu_name."""
    if row.get("apple_memory_gb"):
        return f"{row['gpu_name']} {row['apple_memory_gb']:g}GB"
    return row["gpu_name"]


def aggregate(rows: list[dict], model_key: Callable[[dict], object] = lambda r: r["model_name"],
              gpu_key: Callable[[dict], object] = gpu_lookup_name) -> list[dict]:
    """Community runs of one (model_key, quant, gpu_key, gpu_count, engine, phase) become one
    row: tokens_per_s = median, n_runs, tokens_per_s_min/_max, the newest date, measured_on
    listing every checkpoint run. Other kinds pass through with n_runs 1. Every output row
    gets model_id / gpu_id from the key functions. Filter the rows first."""
    groups: dict[tuple, list[dict]] = {}
    for i, row in enumerate(rows):
        key = ((model_key(row), row["quant"], gpu_key(row), row["gpu_count"], row["engine"],
                row["phase"]) if row["kind"] == COMMUNITY else ("pass", i))
        groups.setdefault(key, []).append(row)
    out = []
    for runs in groups.values():
        values = sorted(float(r["tokens_per_s"]) for r in runs)
        newest = max(runs, key=lambda r: r.get("date") or "")
        contexts = {r.get("context_tokens") for r in runs}
        out.append({
            **newest, "model_id": model_key(newest), "gpu_id": gpu_key(newest),
            "tokens_per_s": statistics.median(values), "n_runs": len(runs),
            "tokens_per_s_min": values[0], "tokens_per_s_max": values[-1],
            "context_tokens": contexts.pop() if len(contexts) == 1 else None,
            "measured_on": "; ".join(sorted({r["measured_on"] for r in runs})),
            "spec_decoding": any(r.get("spec_decoding") for r in runs),
            "partial_offload": any(r.get("partial_offload") for r in runs),
        })
    return out
