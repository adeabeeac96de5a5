"""Fine-tune fit and rough cost (seed 002, "Fine-tuning fit & cost").

Training memory is derived from the parameter count only (never curated). The requirement is the
exact sum of named parts; headroom lives only in the verdict thresholds. Capacity is GPU count x
VRAM, assuming FSDP/ZeRO-style sharding. MoE models need memory for all parameters, while compute
(and so cost) counts only the active parameters.

Numeric inputs pass ``fit.checked`` (finite, positive, at most a generous limit): a NaN or an
infinity raises ValueError with one line instead of reaching a verdict or a cost.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from analytics.llm.fit import (
    FITS_MAX_RATIO,
    MAX_BUDGET_GB,
    MAX_GPU_COUNT,
    MAX_PARAMS_B,
    Graded,
    budget_gb,
    checked,
    grade,
    is_missing,
)

if TYPE_CHECKING:
    import pandas as pd

METHODS: tuple[str, ...] = ("full", "lora", "qlora")
"""Fine-tune methods, highest fidelity first (the auto pick takes the first that fits)."""
RECIPES: tuple[str, ...] = ("sft", "dpo", "rl")
RECIPE_LABELS = {"sft": "SFT", "dpo": "DPO", "rl": "RL (GRPO-style)"}
METHOD_LABELS = {"full": "Full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}

FITS, TIGHT, WONT_FIT = "fits", "fits (tight)", "won't fit"
FINETUNE_VERDICTS: tuple[str, ...] = (FITS, TIGHT, WONT_FIT)
FITS_MAX = 0.8  # seed 002: ratio upper bound of "fits"; up to FITS_MAX_RATIO (1.0) is "tight"
THRESHOLDS: tuple[tuple[float, str], ...] = ((FITS_MAX, FITS), (FITS_MAX_RATIO, TIGHT))

# --- memory constants, seed 002 "Fine-tuning fit & cost" (GB per billion parameters) ---
ADAPTER_FRACTION = 0.005  # A = 0.005 P adapter parameters
BF16_GB_PER_B = 2.0  # bf16 weights / grads: 2 bytes per parameter
ADAMW_GB_PER_B = 12.0  # AdamW fp32 master weights + two moments: 12 bytes per parameter
NF4_GB_PER_B = 0.55  # NF4 4-bit weights incl. quantisation constants
ACT_MIN_GB, ACT_GB_PER_B = 2.0, 0.05  # activations = max(2, 0.05 P) GB
ROLLOUT_MIN_GB, ROLLOUT_GB_PER_B = 2.0, 0.1  # RL rollout/KV buffers = max(2, 0.1 P) GB

# --- cost constants, seed 002 ---
TOKENS_PER_SAMPLE = 1024
EPOCHS = 3
FLOPS_PER_PARAM_TOKEN = 6  # forward + backward training-FLOPs rule
MFU = 0.35  # model FLOPs utilisation assumed against peak bf16
PARAMS_PER_B = 1e9
FLOPS_PER_TFLOPS = 1e12
SECONDS_PER_HOUR = 3600
RECIPE_FLOP_MULTIPLIER = {"sft": 1.0, "dpo": 2.5, "rl": 8.0}  # DPO ref pass; ~8 GRPO rollouts

# Input limits (not seed figures): far beyond real runs, low enough to keep every product finite.
MAX_SAMPLES = 10**12
MAX_TFLOPS = 1e6  # peak dense bf16 per GPU
MAX_USD_PER_HOUR = 1e6  # per GPU
MAX_FLOPS = 1e40

DATASET_PRESETS: dict[str, int] = {
    "Small (1k samples)": 1_000,
    "Medium (10k samples)": 10_000,
    "Large (100k samples)": 100_000,
    "Very large (1M samples)": 1_000_000,
}
"""Dataset presets (samples); each sample is assumed to be 1,024 tokens, trained for 3 epochs."""


@dataclass(frozen=True)
class FinetunePlan(Graded):
    """Memory requirement and verdict of one method x recipe on a capacity."""

    method: str
    recipe: str
    parts: dict[str, float]
    required_gb: float
    capacity_gb: float
    ratio: float
    verdict: str


@dataclass(frozen=True)
class CostEstimate:
    """Rough training cost; ``cost_usd`` is None without a rental price (e.g. Apple silicon)."""

    tokens: int
    train_flops: float
    gpu_hours: float
    wall_clock_hours: float
    cost_usd: float | None = field(default=None)

    def as_dict(self) -> dict:
        return asdict(self)


def memory_parts(params_b: float, method: str, recipe: str = "sft") -> dict[str, float]:
    """Named memory parts in GB (seed 002 formulas); their sum is the requirement.

    full:  2P weights + 2P grads + 12P AdamW + act
    lora:  2P frozen weights + 2A adapter + 2A grads + 12A AdamW + act
    qlora: 0.55P NF4 weights + 2A adapter + 2A grads + 12A AdamW + act
    DPO and RL add a frozen bf16 reference (+2P) for full fine-tunes only (adapters reuse the
    frozen base); RL also adds rollout/KV buffers, max(2, 0.1P).
    """
    _check(params_b, method, recipe)
    p = float(params_b)
    a = ADAPTER_FRACTION * p
    if method == "full":
        parts = {
            "weights (bf16)": BF16_GB_PER_B * p,
            "gradients (bf16)": BF16_GB_PER_B * p,
            "optimizer (AdamW fp32)": ADAMW_GB_PER_B * p,
        }
    else:
        base = "frozen weights (bf16)" if method == "lora" else "frozen weights (NF4)"
        parts = {
            base: (BF16_GB_PER_B if method == "lora" else NF4_GB_PER_B) * p,
            "adapter (bf16)": BF16_GB_PER_B * a,
            "adapter gradients": BF16_GB_PER_B * a,
            "adapter optimizer (AdamW fp32)": ADAMW_GB_PER_B * a,
        }
    parts["activations"] = max(ACT_MIN_GB, ACT_GB_PER_B * p)
    if recipe in ("dpo", "rl") and method == "full":
        parts["reference model (bf16)"] = BF16_GB_PER_B * p
    if recipe == "rl":
        parts["rollout / KV buffers"] = max(ROLLOUT_MIN_GB, ROLLOUT_GB_PER_B * p)
    return parts


def _check(params_b: float, method: str, recipe: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    _check_recipe(recipe)
    checked("params_b", params_b, MAX_PARAMS_B)


def _check_recipe(recipe: str) -> None:
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; choose one of {', '.join(RECIPES)}")


def required_gb(params_b: float, method: str, recipe: str = "sft") -> float:
    """Training memory in GB: the exact sum of ``memory_parts`` (no hidden headroom)."""
    return sum(memory_parts(params_b, method, recipe).values())


def verdict(ratio: float) -> str:
    """Seed 002 grade of required / capacity: <=0.8 fits, <=1.0 fits (tight), else won't fit."""
    return grade(ratio, THRESHOLDS, WONT_FIT)


def capacity_gb(memory_gb: float, count: int = 1) -> float:
    """Training capacity = GPU count x VRAM (FSDP/ZeRO-style sharding assumed)."""
    return budget_gb(memory_gb, count)


def plan(params_b: float, recipe: str, capacity: float, method: str = "auto") -> FinetunePlan:
    """Memory plan on ``capacity`` GB; ``method='auto'`` picks the highest-fidelity method that
    fits (full > LoRA > QLoRA), falling back to QLoRA (the smallest) when none fits."""
    if method == "auto":
        plans = [plan(params_b, recipe, capacity, m) for m in METHODS]
        return next((p for p in plans if p.fits), plans[-1])
    parts = memory_parts(params_b, method, recipe)
    need = sum(parts.values())
    ratio = need / checked("capacity", capacity, MAX_BUDGET_GB)
    return FinetunePlan(method, recipe, parts, need, capacity, ratio, verdict(ratio))


def compute_params_b(
    total_params_b: float | None, active_params_b: float | None, is_moe: bool
) -> float | None:
    """Parameters that cost compute: active ones for MoE (None if undisclosed), else total.

    Raises ValueError when a given count is not a positive finite number, or active > total.
    """
    total = _optional("total_params_b", total_params_b, MAX_PARAMS_B)
    active = _optional("active_params_b", active_params_b, MAX_PARAMS_B)
    if total is not None and active is not None and active > total:
        where = f"active_params_b {active_params_b}"
        raise ValueError(active_above_total(where, "total_params_b", total))
    return active if is_moe else total


def active_above_total(where: str, total_name: str, total: float) -> str:
    """The one-line problem of an active parameter count above the total (MoE active <= total)."""
    return f"{where}: above {total_name} {total:g}; fix: pass at most {total_name}"


def _unknown(value: object) -> bool:
    """None or NaN: a figure the catalog does not have."""
    return is_missing(value)


def _optional(name: str, value: object, hi: float) -> float | None:
    """None when ``value`` is unknown, else ``checked``."""
    return None if _unknown(value) else checked(name, value, hi)


def training_tokens(samples: int) -> int:
    """Tokens processed: samples x 1,024 tokens x 3 epochs (seed 002 presets)."""
    return checked("samples", samples, MAX_SAMPLES, whole=True) * TOKENS_PER_SAMPLE * EPOCHS


def training_flops(params_b: float, tokens: int, recipe: str) -> float:
    """Training compute = 6e9 x params(B) x tokens x recipe multiplier (SFT 1, DPO 2.5, RL 8)."""
    _check_recipe(recipe)
    params = PARAMS_PER_B * checked("params_b", params_b, MAX_PARAMS_B)
    max_tokens = MAX_SAMPLES * TOKENS_PER_SAMPLE * EPOCHS
    count = checked("tokens", tokens, max_tokens, whole=True)
    return FLOPS_PER_PARAM_TOKEN * params * count * RECIPE_FLOP_MULTIPLIER[recipe]


def gpu_hours(train_flops: float, bf16_tflops: float) -> float:
    """GPU-hours = compute / (peak bf16 TFLOPS x 1e12 x 0.35 MFU x 3600); count-independent."""
    flops = checked("train_flops", train_flops, MAX_FLOPS)
    peak = checked("bf16_tflops", bf16_tflops, MAX_TFLOPS)
    return flops / (peak * FLOPS_PER_TFLOPS * MFU * SECONDS_PER_HOUR)


def cost_estimate(
    compute_params: float | None,
    samples: int,
    recipe: str,
    bf16_tflops: float | None,
    count: int = 1,
    usd_per_hour: float | None = None,
) -> CostEstimate | None:
    """Rough cost of a run; None when active params or peak bf16 TFLOPS are unknown.

    wall-clock = GPU-hours / count; cost = GPU-hours x $/GPU-hour (None without a price).
    None or NaN mean unknown; any other value must be a positive finite number.
    """
    if _unknown(compute_params) or _unknown(bf16_tflops):
        return None
    tokens = training_tokens(samples)
    flops = training_flops(compute_params, tokens, recipe)
    hours = gpu_hours(flops, bf16_tflops)
    gpus = checked("count", count, MAX_GPU_COUNT, whole=True)
    price = _optional("usd_per_hour", usd_per_hour, MAX_USD_PER_HOUR)
    cost = None if price is None else hours * price
    return CostEstimate(tokens, flops, hours, hours / gpus, cost)


def finetunable(models: pd.DataFrame) -> pd.DataFrame:
    """Models whose weights can be tuned: open weights and a known total parameter count."""
    open_weights = models["open_weights"].fillna(False).astype(bool)
    known = models["total_params_b"].notna() & (models["total_params_b"] > 0)
    return models[open_weights & known]


def compare_measured(measured: pd.DataFrame) -> pd.DataFrame:
    """Formula requirement beside measured peak memory (catalog ``finetune_memory`` rows).

    Only LoRA rows at micro-batch 1 are comparable: NF4-quantised ones against QLoRA, the others
    against LoRA (SFT). Returns model, params_b, method, quantization, gpu_id, outcome,
    measured_gb and formula_gb (and source_url, measured_on when the rows have them); the
    formula is never adjusted to the measurement.
    """
    rows = measured[(measured["method"] == "lora") & (measured["microbatch_size"] == 1)]
    methods = ["qlora" if str(q).startswith("bnb.nf4") else "lora" for q in rows["quantization"]]
    formula = [required_gb(p, m) for p, m in zip(rows["params_b"], methods, strict=True)]
    out = rows.assign(formula_method=methods, formula_gb=formula)
    out = out.rename(columns={"peak_memory_gb": "measured_gb"})
    cols = ["model", "params_b", "method", "quantization", "formula_method", "gpu_id", "outcome"]
    extra = [c for c in ("source_url", "measured_on") if c in out]
    return out[[*cols, "measured_gb", "formula_gb", *extra]].reset_index(drop=True)
