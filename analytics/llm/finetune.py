"""Fine-tune fit and rough cost (seed 002, "Fine-tuning fit & cost").

Training memory is derived from the parameter count only (never curated). The requirement is the
exact sum of named parts; headroom lives only in the verdict thresholds. Capacity is GPU count x
VRAM, assuming FSDP/ZeRO-style sharding. MoE models need memory for all parameters, while compute
(and so cost) counts only the active parameters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pandas as pd

from analytics.llm.fit import budget_gb, fits

METHODS: tuple[str, ...] = ("full", "lora", "qlora")
"""Fine-tune methods, highest fidelity first (the auto pick takes the first that fits)."""
RECIPES: tuple[str, ...] = ("sft", "dpo", "rl")
RECIPE_LABELS = {"sft": "SFT", "dpo": "DPO", "rl": "RL (GRPO-style)"}
METHOD_LABELS = {"full": "Full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}

FITS, TIGHT, WONT_FIT = "fits", "fits (tight)", "won't fit"
FINETUNE_VERDICTS: tuple[str, ...] = (FITS, TIGHT, WONT_FIT)

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
RECIPE_FLOP_MULTIPLIER = {"sft": 1.0, "dpo": 2.5, "rl": 8.0}  # DPO ref pass; ~8 GRPO rollouts

DATASET_PRESETS: dict[str, int] = {
    "Small (1k samples)": 1_000,
    "Medium (10k samples)": 10_000,
    "Large (100k samples)": 100_000,
}
"""Dataset presets (samples); each sample is assumed to be 1,024 tokens, trained for 3 epochs."""


@dataclass(frozen=True)
class FinetunePlan:
    """Memory requirement and verdict of one method x recipe on a capacity."""

    method: str
    recipe: str
    parts: dict[str, float]
    required_gb: float
    capacity_gb: float
    ratio: float
    verdict: str

    @property
    def fits(self) -> bool:
        return fits(self.ratio)

    def as_dict(self) -> dict:
        return asdict(self)


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
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r}; choose one of {', '.join(RECIPES)}")
    if params_b is None or pd.isna(params_b) or params_b <= 0:
        raise ValueError(f"parameter count must be a positive number of billions (got {params_b})")


def required_gb(params_b: float, method: str, recipe: str = "sft") -> float:
    """Training memory in GB: the exact sum of ``memory_parts`` (no hidden headroom)."""
    return sum(memory_parts(params_b, method, recipe).values())


def verdict(ratio: float) -> str:
    """Seed 002 grade of required / capacity: <=0.8 fits, <=1.0 fits (tight), else won't fit."""
    r = round(ratio, 9)
    return FITS if r <= 0.8 else TIGHT if r <= 1.0 else WONT_FIT


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
    ratio = need / capacity
    return FinetunePlan(method, recipe, parts, need, capacity, ratio, verdict(ratio))


def compute_params_b(
    total_params_b: float | None, active_params_b: float | None, is_moe: bool
) -> float | None:
    """Parameters that cost compute: active ones for MoE (None if undisclosed), else total."""
    value = active_params_b if is_moe else total_params_b
    return None if value is None or pd.isna(value) else float(value)


def training_tokens(samples: int) -> int:
    """Tokens processed: samples x 1,024 tokens x 3 epochs (seed 002 presets)."""
    return int(samples) * TOKENS_PER_SAMPLE * EPOCHS


def training_flops(params_b: float, tokens: int, recipe: str) -> float:
    """Training compute = 6e9 x params(B) x tokens x recipe multiplier (SFT 1, DPO 2.5, RL 8)."""
    return FLOPS_PER_PARAM_TOKEN * 1e9 * float(params_b) * tokens * RECIPE_FLOP_MULTIPLIER[recipe]


def gpu_hours(train_flops: float, bf16_tflops: float) -> float:
    """GPU-hours = compute / (peak bf16 TFLOPS x 1e12 x 0.35 MFU x 3600); count-independent."""
    return train_flops / (float(bf16_tflops) * 1e12 * MFU * 3600)


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
    """
    if compute_params is None or bf16_tflops is None or pd.isna(bf16_tflops):
        return None
    tokens = training_tokens(samples)
    flops = training_flops(compute_params, tokens, recipe)
    hours = gpu_hours(flops, bf16_tflops)
    price = None if usd_per_hour is None or pd.isna(usd_per_hour) else float(usd_per_hour)
    cost = None if price is None else hours * price
    return CostEstimate(tokens, flops, hours, hours / int(count), cost)


def finetunable(models: pd.DataFrame) -> pd.DataFrame:
    """Models whose weights can be tuned: open weights and a known total parameter count."""
    open_weights = models["open_weights"].fillna(False).astype(bool)
    known = models["total_params_b"].notna() & (models["total_params_b"] > 0)
    return models[open_weights & known]


def compare_measured(measured: pd.DataFrame) -> pd.DataFrame:
    """Formula requirement beside measured peak memory (catalog ``finetune_memory`` rows).

    Only LoRA rows at micro-batch 1 are comparable: NF4-quantised ones against QLoRA, the others
    against LoRA (SFT). Returns model, params_b, method, quantization, gpu_id, outcome,
    measured_gb and formula_gb; the formula is never adjusted to the measurement.
    """
    rows = measured[(measured["method"] == "lora") & (measured["microbatch_size"] == 1)]
    methods = ["qlora" if str(q).startswith("bnb.nf4") else "lora" for q in rows["quantization"]]
    formula = [required_gb(p, m) for p, m in zip(rows["params_b"], methods, strict=True)]
    out = rows.assign(formula_method=methods, formula_gb=formula)
    out = out.rename(columns={"peak_memory_gb": "measured_gb"})
    cols = ["model", "params_b", "method", "quantization", "formula_method", "gpu_id", "outcome"]
    return out[[*cols, "measured_gb", "formula_gb"]].reset_index(drop=True)
