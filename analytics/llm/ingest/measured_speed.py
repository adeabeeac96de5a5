"""Measured LLM speeds from three public sources, as row dicts for the throughput table.

Three kinds, never shown as one another:

- ``community single stream``: localmaxxing.com community runs scraped by llmfit
  (``benchmark_cache.json``). Crowd data: filter with :func:`single_stream_drop_reason` and the
  roofline (``roofline.exceeds_roofline``), then take medians with :func:`aggregate`.
- ``benchmarker single stream``: Jeff Geerling's Ollama "eval rate" (generation tokens/s, one
  stream, averaged over runs; ``findings_parsed.csv``, converted from the README's Findings).
  Footnote 1 rows ran llama.cpp with Vulkan (the README's words), engine ``llama.cpp (Vulkan)``.
- ``vendor aggregate per GPU``: NVIDIA's TensorRT-LLM offline max throughput, output tokens/s per
  GPU with thousands of requests queued (``perf_overview.csv``): never a single-user speed.

Every row has: model_name (to resolve), measured_on (what the source ran), gpu_name, gpu_count,
gpu_memory_gb, apple_memory_gb, quant (``roofline.normalise_quant``), engine, context_tokens,
batch_size (concurrent streams; llama.cpp's ``-b`` logical batch of 128 or more is a prompt
setting, read as 1), phase, tokens_per_s, kind, source_name, source_url, date, scenario, system,
spec_decoding, partial_offload, source_params_b, source_active_params_b (the source's own,
best effort: the catalog's figures are better). Contributor names, user ids, run ids, command
lines and notes are never copied.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from analytics.core import paths
from analytics.llm.ingest.common import (
    RESTORE,
    Drops,
    IngestError,
    parse_number,
    read_source_csv,
    read_source_json,
)
from analytics.llm.ingest.roofline import (
    BENCHMARKER,
    COMMUNITY,
    SINGLE_STREAM_KINDS,
    VENDOR,
    aggregate,
    bytes_per_weight,
    gpu_lookup_name,
    is_gguf_quant,
    normalise_quant,
)

__all__ = ["BENCHMARKER", "COMMUNITY", "VENDOR", "aggregate", "gpu_lookup_name",
           "load_geerlingguy", "load_llmfit_community", "load_localmaxxing", "load_tensorrt",
           "parse_system", "run_ids", "single_stream_drop_reason"]
FOLDERS = {
    "localmaxxing": "measured-speed/localmaxxing-via-llmfit",
    "llmfit": "llmfit-1.1.17",
    "geerlingguy": "measured-speed/geerlingguy-ai-benchmarks",
    "tensorrt": "measured-speed/tensorrt-llm-perf-overview",
}
LM_FILE, LM_SOURCE = "benchmark_cache.json", "localmaxxing.com community benchmarks, via llmfit"
LM_URL = ("https://github.com/AlexsJones/llmfit/blob/3d665068876a24e0a073b1b002665072e06dfb3e/"
          "llmfit-core/data/benchmark_cache.json")
# llmfit 1.1.17's embedded copies (PROVENANCE.md there): its users' shared runs, and a newer
# localmaxxing scrape of which only the runs absent from the copy above are read.
LF_FILE, LF_SOURCE = "community_benchmarks.json", "llmfit users' shared runs (llmfit bench --share)"
LF_DROPS = "llmfit community"
REFUSED_CSV = paths.CATALOG_DIR / "evidence" / "measured_refused.csv"
"""Every measured-speed run (or one phase of it) that did not land, with its reason."""
REFUSED_COLUMNS = ("source", "reason", "run", "measurements")
PHASES = 2
"""A localmaxxing run carries two measurements (generation and prompt tokens/s): a run refused
as a whole is listed as both."""
LF_URL = "https://pypi.org/project/llmfit/1.1.17/"
LM_NEWER_SOURCE = "localmaxxing.com community benchmarks, via llmfit 1.1.17"
GG_FILE, GG_SOURCE, GG_DATE = "findings_parsed.csv", "geerlingguy/ai-benchmarks", "2025-12-18"
GG_URL = ("https://github.com/geerlingguy/ai-benchmarks/blob/"
          "bdf94413f5f273c985c164ac0abfafa312c4390f/README.md")
GG_COLUMNS = ("ollama_model", "system", "cpu_gpu", "eval_rate_tok_s", "vulkan_llamacpp_footnote1",
              "details_url")
TRT_FILE, TRT_SOURCE = "perf_overview.csv", "NVIDIA TensorRT-LLM perf overview"
TRT_URL = ("https://github.com/NVIDIA/TensorRT-LLM/blob/585c756579dc4d01f21fc13c2f604cdb461ac4f0/"
           "docs/source/developer-guide/perf-overview.md")
TRT_COLUMNS = ("model", "checkpoint", "gpu", "parallelism", "gpu_count", "precision", "isl", "osl",
               "output_tokens_per_s_per_gpu")

ENGINES = {"llama.cpp": "llama.cpp", "vllm": "vLLM", "mlx": "MLX", "ollama": "Ollama",
           "lmstudio": "LM Studio", "sglang": "SGLang", "hipfire": "hipfire",
           "lucebox": "lucebox"}
LLAMA_FAMILY = {"llama.cpp", "Ollama", "LM Studio"}
# Ollama tag (README heading, lower case) -> (checkpoint, tag, the tag's default quantisation
# in the Ollama library: Q4_K_M for these tags, MXFP4 for gpt-oss, which ships in MXFP4).
OLLAMA_TAGS = {
    "deepseek r1 14b": ("deepseek-ai/DeepSeek-R1-Distill-Qwen-14B", "deepseek-r1:14b", "Q4_K_M"),
    "deepseek r1 671b": ("deepseek-ai/DeepSeek-R1", "deepseek-r1:671b", "Q4_K_M"),
    "gpt-oss 20b": ("openai/gpt-oss-20b", "gpt-oss:20b", "MXFP4"),
    "llama 3.2:3b": ("meta-llama/Llama-3.2-3B-Instruct", "llama3.2:3b", "Q4_K_M"),
    "llama 3.1:70b": ("meta-llama/Llama-3.1-70B-Instruct", "llama3.1:70b", "Q4_K_M"),
    "llama 3.1:405b": ("meta-llama/Llama-3.1-405B-Instruct", "llama3.1:405b", "Q4_K_M"),
}
# perf-overview model heading (lower case) -> the upstream checkpoint NVIDIA quantised.
TRT_MODELS = {
    "deepseek r1 0528": "deepseek-ai/DeepSeek-R1-0528", "gpt-oss 120b": "openai/gpt-oss-120b",
    "gpt-oss 20b": "openai/gpt-oss-20b", "llama v3.3 70b": "meta-llama/Llama-3.3-70B-Instruct",
    "llama v4 maverick": "meta-llama/Llama-4-Maverick-17B-128E-Instruct",
    "qwen3 235b a22b": "Qwen/Qwen3-235B-A22B", "qwen3 30b a3b": "Qwen/Qwen3-30B-A3B",
}
REPACKAGERS = {"unsloth", "bartowski", "lmstudio-community", "mradermacher", "mlx-community",
               "ggml-org", "thebloke", "quantfactory"}
_REPACK = re.compile(r"(?i)(?:^|[-_.])(gguf|gptq|awq|nvfp4|mxfp4|fp8|fp4|int4|int8|mlx|bnb|exl2|"
                     r"autoround|w4a16|\d+(?:\.\d+)?bit)(?:$|[-_.])")
_ACTIVE = re.compile(r"(?i)[-_]A(\d+(?:\.\d+)?)B(?:$|[-_.])")
_SPEC = re.compile(
    r"--spec-type|--spec-default|--spec-draft|--speculative[-_]config|--model-draft|(?:^|\s)-md\s"
    r"|dflash_server\b[^|]*--draft|acceptedDraftTokensCount\"?\s*:\s*[1-9]"
    r"|speculative decod\w*\s*(?:is on|\(|:)|\bmtp active\b|\bwith mtp\b|\bmtp speculative\b"
    r"|\bmtp k=\d", re.IGNORECASE)
_OFFLOAD = re.compile(
    r"--n-cpu-moe|--cpu-moe|(?:-ot|--override-tensor)\s+\S*=CPU|--no-kv-offload|(?:^|\s)-nkvo\b"
    r"|--cpu-offload-gb[ =]+[1-9]|(?:^|\s)(?:-ngl|--n-gpu-layers|--gpu-layers)[ =]0\b",
    re.IGNORECASE)
_NAME_QUANTS = (("nvfp4", "NVFP4"), ("mxfp4", "MXFP4"), ("awq", "AWQ-INT4"), ("gptq", "GPTQ-INT4"),
                ("autoround", "AutoRound-INT4"), ("fp8", "FP8"), ("int4", "INT4"),
                ("int8", "INT8"))
_APPLE = re.compile(r"\b(M[1-5])(?: (Pro|Max|Ultra))?\b")


def _row(**fields) -> dict:
    base = dict(gpu_count=1, gpu_memory_gb=None, apple_memory_gb=None, context_tokens=None,
                batch_size=1, phase="generation", scenario="", system="", spec_decoding=False,
                partial_offload=False, source_params_b=None, source_active_params_b=None)
    return {**base, **fields}


def _model_name(model: dict) -> str:
    """hfId, or baseModel.hfId when hfId is a re-packaged copy (a quant uploader's repo or a name
    carrying a format); a fine-tune or a '-Base' link keeps its own id."""
    hf_id = str(model.get("hfId") or "").strip()
    base = str((model.get("baseModel") or {}).get("hfId") or "").strip()
    org, _, name = hf_id.partition("/")
    if base and (org.lower() in REPACKAGERS or _REPACK.search(name)):
        return base
    return hf_id


def _params(model: dict) -> tuple[float | None, float | None]:
    """(total, active) billions from the source: the base model's total for a re-packaged copy
    (a quant upload counts packed tensors: an int4 27B reads as '6'); active from an 'A3B' name
    part, else the activeParams of a flagged MoE when below the total, else a dense total."""
    base = model.get("baseModel") or {}
    own, parent = parse_number(model.get("params")), parse_number(base.get("params"))
    total = (parent if parent and _model_name(model) == base.get("hfId") else own) or None
    named = _ACTIVE.search(f"{model.get('hfId') or ''} {base.get('hfId') or ''}")
    if named:
        return total, float(named.group(1))
    active = parse_number(model.get("activeParams"))
    if model.get("isMoE") or base.get("isMoE"):
        return total, active if active and total and active < total else None
    return total, total


def _quant(raw: object, engine: str, hf_id: str) -> str | None:
    """normalise_quant, except that a 16-bit label on a checkpoint whose name carries a smaller
    format ('Lorbus/Qwen3.6-27B-int4-AutoRound' listed as fp16) takes the name's format."""
    quant = normalise_quant(raw, engine)
    if quant in {"FP16", "BF16", "FP32"}:
        for token, label in _NAME_QUANTS:
            if re.search(rf"(?i)(?:^|[-_.]){token}(?:$|[-_.])", hf_id.partition("/")[2]):
                return label
    return quant


def _gpu(hw: dict) -> tuple[str | None, float | None, float | None, str | None]:
    """(gpu_name, gpu_memory_gb, apple_memory_gb, drop reason) of a localmaxxing hardware."""
    if hw.get("hwClass") == "UNIFIED":
        family, variant = hw.get("chipFamily") or "", hw.get("chipVariant") or ""
        memory = parse_number(hw.get("unifiedMemoryGb"))
        if str(hw.get("chipVendor") or "").lower() != "apple":
            return None, None, None, "unified-memory chip other than Apple"
        chip = variant if variant.startswith(family) else f"{family} {variant}".strip()
        if not chip or not memory:
            return None, None, None, "Apple run without chip name or memory size"
        return chip, memory, memory, None
    name = str(hw.get("gpuName") or "").strip()
    if not name:
        return None, None, None, "no GPU name"
    return name, parse_number(hw.get("vramGb")), None, None


def _batch(raw: dict, engine: str) -> int | None:
    value = parse_number(raw.get("batchSize"))
    if value is None:
        return None
    return 1 if engine in LLAMA_FAMILY and value >= 128 else int(value)


def _offloaded(flags: dict, text: str, quant: str | None, model: str, total_b: float | None,
               memory_gb: float | None, gpu_count: int) -> bool:
    """CPU offload named in the command (MoE experts, tensors, KV cache, -ngl 0) or weights
    larger than the GPUs' memory (they cannot all be resident)."""
    if _OFFLOAD.search(text) or parse_number(flags.get("gpuLayers")) == 0:
        return True
    per_weight = bytes_per_weight(quant, model)
    return bool(per_weight and total_b and memory_gb and total_b * per_weight > memory_gb
                * gpu_count)


def _document(path: Path, data: object) -> list[dict]:
    presets = data.get("presets") if isinstance(data, dict) else None
    if not isinstance(presets, dict) or not all(
            isinstance(p, dict) and isinstance(p.get("rows"), list) for p in presets.values()):
        raise IngestError(f"{path}: expected {{presets: {{label: {{rows: [...]}}}}}} "
                          f"(llmfit benchmark_cache.json); fix: {RESTORE}")
    rows = [r for p in presets.values() for r in p["rows"]]
    if not all(isinstance(r, dict) and isinstance(r.get("hardware"), dict)
               and isinstance(r.get("model"), dict) for r in rows):
        raise IngestError(f"{path}: a run lacks its hardware or model object; fix: {RESTORE}")
    return rows


def run_ids(path: Path) -> frozenset[str]:
    """The run ids of a benchmark_cache.json (a folder holding it is accepted); none when absent."""
    path = path / LM_FILE if path.is_dir() else path
    if not path.is_file():
        return frozenset()
    return frozenset(str(r.get("id")) for r in _document(path, read_source_json(path)))


def load_localmaxxing(
    path: Path,
    drops: Drops,
    known_ids: frozenset[str] = frozenset(),
    source_name: str = LM_SOURCE,
    source_url: str = LM_URL,
) -> list[dict]:
    """One row per (run, phase) of benchmark_cache.json (a folder holding it is accepted; an
    absent file gives none). The same run listed under two presets is kept once; a run of
    ``known_ids`` (already read from another copy of the scrape) is not read again."""
    path = path / LM_FILE if path.is_dir() else path
    if not path.is_file():
        return []
    out, seen, src = [], set(known_ids), "localmaxxing"
    for raw in _document(path, read_source_json(path)):
        if str(raw.get("id")) in seen:
            if str(raw.get("id")) not in known_ids:
                drops.add(src, "same run listed under two GPU presets (kept once)")
            continue
        seen.add(str(raw.get("id")))
        hw, model = raw["hardware"], raw["model"]
        eng, flags = (x if isinstance(x, dict) else {} for x in (raw.get("engine"),
                                                                 raw.get("engineFlags")))
        chip = " ".join(str(hw.get(k) or "") for k in ("chipFamily", "chipVariant")).strip()
        run = (f"run {raw.get('id')}: {model.get('hfId') or '?'} on "
               f"{hw.get('gpuName') or chip or hw.get('hwClass') or '?'}")
        if hw.get("hwClass") == "CPU_ONLY":
            drops.add(src, "CPU-only run (no GPU)", item=run, measurements=PHASES)
            continue
        gpu_name, memory, apple, reason = _gpu(hw)
        engine_raw = str(eng.get("engineName") or "").strip()
        engine = ENGINES.get(engine_raw.lower(), engine_raw)
        quant = _quant(eng.get("quantization"), engine, str(model.get("hfId") or ""))
        reason = reason or next((why for bad, why in (
            (not model.get("hfId"), "no model id"), (not engine, "no engine named"),
            (quant is None, "no quantisation stated"),
            (engine == "MLX" and is_gguf_quant(quant), GGUF_ON_MLX)) if bad),
            None)
        if reason:
            drops.add(src, reason, item=run, measurements=PHASES)
            continue
        text = f"{flags.get('commandSnippet') or ''} | {raw.get('notes') or ''}"
        total, active = _params(model)
        count = 1 if apple else int(parse_number(hw.get("gpuCount")) or 1)
        created = str(raw.get("createdAt") or "")[:10]
        common = _row(
            model_name=_model_name(model), measured_on=str(model["hfId"]).strip(),
            gpu_name=gpu_name, gpu_count=count, gpu_memory_gb=memory, apple_memory_gb=apple,
            quant=quant, engine=engine, batch_size=_batch(raw, engine), kind=COMMUNITY,
            context_tokens=int(parse_number(raw.get("contextLength")) or 0) or None,
            source_name=source_name, source_url=source_url,
            date=created if re.fullmatch(r"\d{4}-\d\d-\d\d", created) else None,
            spec_decoding=bool(flags.get("specDecoding") or flags.get("mtpEnabled")
                               or _SPEC.search(text)),
            partial_offload=_offloaded(flags, text, quant, str(model["hfId"]), total, memory,
                                       count),
            source_params_b=total, source_active_params_b=active)
        for phase, field, missing in (("generation", "tokSOut", "no generation tokens/s"),
                                      ("prompt", "tokSPrefill", "no prompt tokens/s")):
            value = parse_number(raw.get(field))
            if value is None or value <= 0:
                drops.add(src, missing, 1, f"{run} ({phase})")
            else:
                out.append({**common, "phase": phase, "tokens_per_s": value})
    return out


def parse_system(system: str) -> tuple[str | None, float | None, str | None]:
    """(gpu_name, apple_memory_gb, drop reason) from a geerlingguy System cell such as
    'Intel 265K Custom PC (Nvidia RTX 4090)' or 'Mac Studio (M3 Ultra 512GB)'."""
    if "cluster" in system.lower():
        return None, None, "multi-machine cluster (not one GPU)"
    apple = _APPLE.search(system)
    memory = re.search(r"(\d+)\s*GB", system)
    if apple and memory:
        return " ".join(g for g in apple.groups() if g), float(memory.group(1)), None
    if "framework" in system.lower():  # Framework Desktop: Ryzen AI Max+ 395 with Radeon 8060S
        return "Radeon 8060S (Ryzen AI Max+ 395)", None, None
    for group in re.findall(r"\(([^()]*)\)", system):
        match = re.match(r"^(Nvidia|AMD|Intel)\s+(.+)$", group.strip(), re.IGNORECASE)
        if not match:
            continue
        vendor, name = match.group(1).lower(), match.group(2).strip()
        if name.lower() == "spark":
            return "GB10 (DGX Spark)", None, None
        if vendor == "nvidia" and re.match(r"^\d{4}", name):
            name = f"RTX {name}"
        elif vendor == "nvidia" and re.match(r"^A\d{3,4}$", name):
            name = f"RTX {name}"
        elif vendor == "amd" and re.match(r"^\d{4}", name):
            name = f"RX {name}"
        elif vendor == "amd" and re.match(r"^(AI )?Pro ", name):
            name = f"Radeon {name}"
        return name, None, None
    return None, None, "no GPU named in the System column"


def load_geerlingguy(folder: Path, drops: Drops) -> list[dict]:
    """Generation rows of findings_parsed.csv; CPU runs dropped, GPU/CPU runs flagged
    ``partial_offload`` (an absent file gives none)."""
    path = folder / GG_FILE
    if not path.is_file():
        return []
    frame = read_source_csv(path, GG_COLUMNS, f"{','.join(GG_COLUMNS)}; fix: {RESTORE}")
    out, src = [], "geerlingguy"
    for rec in frame.to_dict("records"):
        tag = OLLAMA_TAGS.get(re.sub(r"\s+", " ", rec["ollama_model"].strip().lower()))
        where = rec["cpu_gpu"].strip().upper()
        gpu_name, apple, reason = parse_system(rec["system"])
        value = parse_number(rec["eval_rate_tok_s"])
        reason = next((why for bad, why in (
            (where == "CPU", "CPU-only run (no GPU)"),
            (where not in {"CPU", "GPU", "GPU/CPU"}, "CPU/GPU cell not GPU, GPU/CPU or CPU"),
            (tag is None, "Ollama tag not mapped to a checkpoint"), (bool(reason), reason),
            (value is None or value <= 0, "no eval rate")) if bad), None)
        if reason:
            drops.add(src, reason)
            continue
        vulkan = rec["vulkan_llamacpp_footnote1"].strip().lower() == "true"
        url = rec["details_url"].strip()
        out.append(_row(
            model_name=tag[0], measured_on=tag[1], gpu_name=gpu_name, apple_memory_gb=apple,
            quant=tag[2], engine="llama.cpp (Vulkan)" if vulkan else "Ollama",
            tokens_per_s=value, kind=BENCHMARKER, source_name=GG_SOURCE,
            source_url=url if url.startswith("https://") else GG_URL, date=GG_DATE,
            system=rec["system"].strip(), partial_offload=where == "GPU/CPU"))
    return out


def load_tensorrt(folder: Path, drops: Drops) -> list[dict]:
    """Rows of perf_overview.csv: output tokens/s per GPU, offline, fixed ISL/OSL (an absent
    file gives none). FP4 is NVFP4 (ModelOpt checkpoints) except gpt-oss, which is MXFP4."""
    path = folder / TRT_FILE
    if not path.is_file():
        return []
    frame = read_source_csv(path, TRT_COLUMNS, f"{','.join(TRT_COLUMNS)}; fix: {RESTORE}")
    out, src = [], "tensorrt-llm"
    for rec in frame.to_dict("records"):
        model = TRT_MODELS.get(rec["model"].strip().lower())
        count, value = parse_number(rec["gpu_count"]), parse_number(
            rec["output_tokens_per_s_per_gpu"])
        isl, osl = parse_number(rec["isl"]), parse_number(rec["osl"])
        reason = next((why for bad, why in (
            (model is None, "model heading not mapped to a checkpoint"),
            (not rec["gpu"].strip(), "no GPU named"),
            (not count or count < 1 or count != int(count), "no GPU count"),
            (not isl or not osl, "no input/output lengths"),
            (value is None or value <= 0, "no throughput figure")) if bad), None)
        if reason:
            drops.add(src, reason)
            continue
        precision = rec["precision"].strip().upper()
        quant = (("MXFP4" if "gpt-oss" in model else "NVFP4") if precision == "FP4"
                 else normalise_quant(precision))
        gpu, parallel = rec["gpu"].strip(), rec["parallelism"].strip()
        out.append(_row(
            model_name=model, measured_on=re.sub(r"\s*\(.*\)$", "", rec["checkpoint"].strip()),
            gpu_name=gpu, gpu_count=int(count), quant=quant, engine="TensorRT-LLM",
            context_tokens=int(isl + osl), batch_size=None, tokens_per_s=value, kind=VENDOR,
            source_name=TRT_SOURCE, source_url=TRT_URL, date=None,
            scenario=f"offline max throughput, ISL {int(isl)} / OSL {int(osl)}",
            system=f"{int(count)}x {gpu} {parallel}".strip()))
    return out


def single_stream_drop_reason(row: dict) -> str | None:
    """Why a row is not a plain single-stream speed (None when it is one); vendor aggregates
    are judged on speculative decoding and offload only, never on batch size."""
    if row.get("spec_decoding"):
        return "speculative decoding or multi-token prediction (MTP) on"
    if row.get("partial_offload"):
        return "partial offload to the CPU (weights or KV cache outside the GPU)"
    if row.get("kind") in SINGLE_STREAM_KINDS and row.get("batch_size") != 1:
        return "batch size other than 1 (not a single stream)"
    return None


_LF_PROVIDERS = {"ollama": "Ollama", "llamacpp": "llama.cpp", "mlx": "MLX", "vllm": "vLLM"}
_GGUF_FILE = re.compile(r"(?i)^(?P<name>.+?)[-.](?P<quant>(?:UD-)?I?Q\d(?:_[0-9A-Z]+)*|F16|BF16|F32"
                        r"|MXFP4)\.gguf$")
_OLLAMA_QUANT = re.compile(r"(?i)(?:^|-)(q\d(?:_[0-9a-z]+)*|fp16|bf16)$")
_MLX_SUFFIX = re.compile(r"(?i)[-_](?:mlx[-_])?(\d)bit$")
_VENDOR_WORDS = re.compile(r"^(?:NVIDIA\s+)?(?:GeForce\s+)?(?:AMD\s+)?(?:Radeon\s+(?=RX\b))?"
                           r"(?:Tesla\s+)?", re.IGNORECASE)
GGUF_ON_MLX = ("GGUF quantisation named on the MLX engine (MLX runs its own safetensors "
               "formats): the labels disagree")
OLLAMA_DEFAULT_QUANT = "Q4_K_M"
"""The quantisation of an Ollama library tag that names none (the library's default for its
tags; gpt-oss ships MXFP4, :data:`analytics.llm.ingest.roofline.NATIVE_MXFP4`)."""


def llmfit_hardware(hw: dict) -> tuple[str | None, float | None, float | None, str | None]:
    """(gpu_name, memory per card GB, apple_memory_gb, drop reason) of an llmfit submission's
    hardware: 'Apple M4 Pro' with 24 GB -> ('M4 Pro', None, 24); 'NVIDIA GeForce RTX 5070' ->
    'RTX 5070' (its ``vramGb`` is the sum over ``gpuCount`` cards); 'NVIDIA GB10' -> 'GB10'."""
    name = re.sub(r"\s+", " ", str(hw.get("hardwareName") or "")).strip()
    memory = parse_number(hw.get("vramGb"))
    if not name:
        return None, None, None, "no GPU name"
    if "(integrated)" in name.lower():
        return None, None, None, "integrated graphics sharing system memory (no GPU bandwidth)"
    apple = re.fullmatch(r"Apple (M\d(?: (?:Pro|Max|Ultra))?)", name)
    if apple:
        if not memory:
            return None, None, None, "Apple run without chip name or memory size"
        return apple.group(1), None, memory, None
    count = int(parse_number(hw.get("gpuCount")) or 1)
    per_card = memory / count if memory else None
    unified = bool(hw.get("unifiedMemory"))
    return _VENDOR_WORDS.sub("", name).strip(), None if unified else per_card, None, None


def llmfit_model(provider: str, label: str) -> tuple[str | None, str | None, str | None]:
    """(model name to resolve, quant, drop reason) of one llmfit result's ``model`` label."""
    label = label.strip()
    if provider == "llama.cpp":
        found = _GGUF_FILE.match(label)
        if not found:
            return None, None, "GGUF file name without a quantisation"
        return found["name"], normalise_quant(found["quant"]), None
    if provider == "Ollama":
        family, _, tag = label.partition(":")
        if re.search(r"(?i)(?:^|-)mlx$", tag):
            return None, None, "Ollama MLX build: its quantisation is not stated"
        quant = _OLLAMA_QUANT.search(tag)
        size = tag[: quant.start()] if quant else tag
        default = "MXFP4" if family.startswith("gpt-oss") else OLLAMA_DEFAULT_QUANT
        name = f"{family}-{size}" if size and size != "latest" else family
        return name, normalise_quant(quant.group(1)) if quant else default, None
    name = label.rpartition("/")[2] if provider == "MLX" else label
    if provider == "MLX":
        if _GGUF_FILE.match(name) or re.search(r"(?i)[-_]I?Q\d(?:_[0-9A-Z]+)+$", name):
            return None, None, GGUF_ON_MLX
        bits = _MLX_SUFFIX.search(name)
        if not bits:
            return None, None, "MLX build without a bit width in its name"
        return name[: bits.start()], f"MLX-{bits.group(1)}bit", None
    quant = _quant("FP16", provider, f"x/{name}")  # vLLM: only a format in the name says one
    if quant == "FP16":
        return None, None, "no quantisation stated"
    stripped = re.sub(r"(?i)[-_](?:awq|gptq|nvfp4|mxfp4|fp8|int4|int8)(?:[-_].*)?$", "", name)
    return stripped, quant, None


def load_llmfit_community(folder: Path, drops: Drops) -> list[dict]:
    """One generation row per result of llmfit's community_benchmarks.json (an absent file
    gives none): each submission's mean decode speed over its runs, as one community run; the
    engine from its provider, the quantisation from the model label (a GGUF file's suffix, an
    Ollama tag's, an MLX build's bit width), never a GGUF label on MLX."""
    path = folder / LF_FILE
    if not path.is_file():
        return []
    data = read_source_json(path)
    if not isinstance(data, list) or not all(
            isinstance(s, dict) and isinstance(s.get("hardware"), dict)
            and isinstance(s.get("results"), list) for s in data):
        raise IngestError(f"{path}: expected a list of {{hardware, results}} submissions "
                          f"(llmfit community_benchmarks.json); fix: {RESTORE}")
    out, src = [], LF_DROPS
    for submission in data:
        gpu_name, per_card, apple, hw_reason = llmfit_hardware(submission["hardware"])
        count = 1 if apple else int(parse_number(submission["hardware"].get("gpuCount")) or 1)
        when = parse_number(submission.get("submittedAtUnix"))
        date = _day(when) if when else None
        for result in submission["results"]:
            engine = _LF_PROVIDERS.get(str(result.get("provider") or "").lower())
            value = parse_number(result.get("avgTps"))
            name, quant, reason = (llmfit_model(engine, str(result.get("model") or ""))
                                   if engine else (None, None, "engine not named"))
            reason = hw_reason or reason or (
                "no generation tokens/s" if value is None or value <= 0 else None)
            if reason:
                where = submission["hardware"].get("hardwareName") or "?"
                drops.add(src, reason, 1, f"{result.get('model') or '?'} ({engine or '?'}) on "
                                          f"{where}")
                continue
            out.append(_row(
                model_name=name, measured_on=str(result["model"]).strip(), gpu_name=gpu_name,
                gpu_count=count, gpu_memory_gb=per_card, apple_memory_gb=apple, quant=quant,
                engine=engine, kind=COMMUNITY, tokens_per_s=value, source_name=LF_SOURCE,
                source_url=LF_URL, date=date))
    return out


def _day(unix_s: float) -> str:
    return dt.datetime.fromtimestamp(unix_s, dt.UTC).date().isoformat()
