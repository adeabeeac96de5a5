"""Hardware fit: will a model run on a given GPU budget (seed 002, "Hardware fit").

The seed verdict uses curated Q4 VRAM figures (ground truth beats formulas) with a 1.08 overhead for
KV cache and runtime; without a curated figure it estimates Q4 weights at 4.5 bits per parameter.
MoE models need memory for all their parameters, so ``total_params_b`` is used, never the active
count. Throughput (tok/s) is only ever a measured catalog row, never interpolated.

An optional refinement, shown beside the seed verdict and never replacing it, is the KV cache for a
chosen context length computed from the model's architecture (GQA-aware).

Every numeric input passes :func:`checked` (finite, above 0, at most a generous limit) at the
public functions and at the command line, so no NaN or infinity can reach a verdict or the JSON.
None or NaN in an optional catalog figure (params, Q4 VRAM, architecture) means "unknown".
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real

import pandas as pd

from analytics.core import problems

RUNTIME_OVERHEAD = 1.08  # seed 002 "Hardware fit": KV-cache + runtime factor on Q4 weights
Q4_BITS_PER_PARAM = 4.5  # seed 002: ~4.5 bits per parameter for Q4 quantisation
BITS_PER_BYTE = 8
Q4_BYTES_PER_PARAM = Q4_BITS_PER_PARAM / BITS_PER_BYTE  # GB per billion parameters
KV_TENSORS = 2  # the KV cache holds a key and a value tensor per layer
KV_BYTES_PER_VALUE = 2  # fp16/bf16 KV cache
BYTES_PER_GB = 1e9

COMFORTABLE, TIGHT, OFFLOAD, WONT_RUN = (
    "fits comfortably",
    "fits (tight)",
    "partial offload",
    "won't run",
)
VERDICTS: tuple[str, ...] = (COMFORTABLE, TIGHT, OFFLOAD, WONT_RUN)
"""Hardware-fit verdicts, best first."""

# seed 002 "Hardware fit": ratio upper bounds per verdict.
THRESHOLDS: tuple[tuple[float, str], ...] = ((0.8, COMFORTABLE), (1.0, TIGHT), (1.3, OFFLOAD))
FITS_MAX_RATIO = 1.0  # the boolean "fits" everywhere else is ratio <= 1.0
_RATIO_DECIMALS = 9  # compare ratios after rounding away float noise (10.8 / 13.5 is 0.8)

# Input limits (not seed figures): far beyond any real model or machine, low enough that every
# product the calculators form (FLOPs, GB, $) stays a finite float.
MAX_PARAMS_B = 1e5  # 100 trillion parameters
MAX_MEMORY_GB = 1e6  # per GPU, or a curated Q4 figure
MAX_GPU_COUNT = 100_000
MAX_BUDGET_GB = MAX_GPU_COUNT * MAX_MEMORY_GB  # count x memory
MAX_CONTEXT_TOKENS = 1 << 30
MAX_RATIO = 1e12  # required / budget


def checked(
    name: str, value: object, hi: float, *, whole: bool = False, zero_ok: bool = False
) -> float:
    """``value`` (a number, or the text typed for it) when finite, above 0 (or 0 with
    ``zero_ok``), at most ``hi`` and whole where ``whole``; else ValueError with one line
    ``<name> <value>: <what is wrong>; fix: ...``. Returns an int when ``whole``."""
    number = _as_number(value)
    what = _number_problem(number, hi, whole, zero_ok)
    if what:
        kind = f"{'non-negative' if zero_ok else 'positive'} {'whole ' if whole else ''}number"
        fix = f"pass a {kind} up to {hi:g}"
        text = str(value)
        shown = text if text.isprintable() and text.strip() == text and text else repr(text)
        raise ValueError(problems.line(f"{name} {shown}", what, fix))
    return int(number) if whole else number


def _number_problem(number: float | None, hi: float, whole: bool, zero_ok: bool) -> str | None:
    """What is wrong with ``number`` for :func:`checked`, or None."""
    if number is None:
        return "not a number"
    if not math.isfinite(number):
        return "not a finite number"
    if number < 0 or (number == 0 and not zero_ok):
        return "must not be negative" if zero_ok else "must be positive"
    if number > hi:
        return f"above the limit {hi:g}"
    if whole and number != int(number):
        return "not a whole number"
    return None


def _as_number(value: object) -> float | None:
    """``value`` as a float (text parsed as Python does), None when it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return float(value) if isinstance(value, Real) else None


class Graded:
    """Mixin of the fit results (hardware and fine-tune): a ``ratio`` graded by a verdict."""

    ratio: float

    @property
    def fits(self) -> bool:
        """The boolean fit used across the app: ratio <= 1.0."""
        return fits(self.ratio)

    def as_dict(self) -> dict:
        """The dataclass fields as a plain dict (for JSON)."""
        return asdict(self)


@dataclass(frozen=True)
class FitResult(Graded):
    """One model on one hardware budget."""

    required_gb: float
    budget_gb: float
    ratio: float
    verdict: str


def q4_weights_gb(params_b: float | None, vram_q4_gb: float | None = None) -> float | None:
    """Q4 footprint before overhead: the curated figure, else params x 4.5/8 GB (bits/8)."""
    if _known(vram_q4_gb):
        return checked("vram_q4_gb", vram_q4_gb, MAX_MEMORY_GB)
    if _known(params_b):
        return checked("params_b", params_b, MAX_PARAMS_B) * Q4_BYTES_PER_PARAM
    return None


def required_gb(params_b: float | None, vram_q4_gb: float | None = None) -> float | None:
    """Memory to run at Q4 (seed 002): curated Q4 VRAM x 1.08, else params x 4.5/8 x 1.08."""
    weights = q4_weights_gb(params_b, vram_q4_gb)
    return None if weights is None else weights * RUNTIME_OVERHEAD


def budget_gb(memory_gb: float, count: int = 1) -> float:
    """GPU budget = count x per-GPU memory (Apple memory is already discounted in the catalog)."""
    gpus = checked("count", count, MAX_GPU_COUNT, whole=True)
    return float(gpus) * checked("memory_gb", memory_gb, MAX_MEMORY_GB)


def grade(ratio: float, thresholds: tuple[tuple[float, str], ...], above: str) -> str:
    """The name of the first ``(upper, name)`` threshold the ratio is within, else ``above``."""
    r = _rounded(ratio)
    return next((name for upper, name in thresholds if r <= upper), above)


def verdict(ratio: float) -> str:
    """Seed 002 grade of required / budget: <=0.8, <=1.0, <=1.3, otherwise won't run."""
    return grade(ratio, THRESHOLDS, WONT_RUN)


def fits(ratio: float) -> bool:
    """Boolean fit: ratio <= 1.0 (comfortably or tight)."""
    return _rounded(ratio) <= FITS_MAX_RATIO


def _rounded(ratio: float) -> float:
    """A checked ratio (finite, 0 or more) rounded to _RATIO_DECIMALS."""
    return round(checked("ratio", ratio, MAX_RATIO, zero_ok=True), _RATIO_DECIMALS)


def hardware_fit(
    params_b: float | None, budget: float, vram_q4_gb: float | None = None
) -> FitResult | None:
    """Verdict for one model on ``budget`` GB; None when neither params nor Q4 VRAM is known."""
    need = required_gb(params_b, vram_q4_gb)
    if need is None:
        return None
    ratio = need / checked("budget", budget, MAX_BUDGET_GB)
    return FitResult(required_gb=need, budget_gb=budget, ratio=ratio, verdict=verdict(ratio))


def kv_cache_gb(
    n_layers: float | None,
    n_kv_heads: float | None,
    head_dim: float | None,
    context_tokens: int,
    bytes_per_value: int = KV_BYTES_PER_VALUE,
) -> float | None:
    """KV cache for one sequence: 2 (K and V) x layers x kv_heads x head_dim x context x bytes.

    GQA-aware because it counts key/value heads, not query heads. None when metadata is missing
    (None, NaN or not above 0); an infinite dimension or a bad context raises ValueError.
    """
    dims = (n_layers, n_kv_heads, head_dim)
    if not all(_known(d) and d > 0 for d in dims):
        return None
    names = ("n_layers", "n_kv_heads", "head_dim")
    layers, heads, dim = (
        int(checked(n, d, MAX_CONTEXT_TOKENS)) for n, d in zip(names, dims, strict=True)
    )
    tokens = checked("context_tokens", context_tokens, MAX_CONTEXT_TOKENS, whole=True)
    values = KV_TENSORS * layers * heads * dim * tokens
    return values * bytes_per_value / BYTES_PER_GB


def _known(value: float | None) -> bool:
    return value is not None and not pd.isna(value)


def fit_table(
    models: pd.DataFrame,
    budget: float,
    context_tokens: int | None = None,
) -> pd.DataFrame:
    """Seed verdict per model (columns from the catalog ``models`` table) on ``budget`` GB.

    Adds required_gb, budget_gb, ratio, verdict, fits, and - beside them - kv_cache_gb and
    q4_plus_kv_gb for ``context_tokens`` where the architecture is known. Models with neither a
    parameter count nor a curated Q4 figure get no verdict (None).
    """
    checked("budget", budget, MAX_BUDGET_GB)
    out = models.copy()
    results = [
        hardware_fit(_get(row, "total_params_b"), budget, _get(row, "vram_q4_gb"))
        for row in out.to_dict("records")
    ]
    out["required_gb"] = [r.required_gb if r else None for r in results]
    out["budget_gb"] = budget
    out["ratio"] = [r.ratio if r else None for r in results]
    out["verdict"] = [r.verdict if r else None for r in results]
    out["fits"] = [bool(r and r.fits) for r in results]
    kv = [_row_kv(row, context_tokens) for row in out.to_dict("records")]
    out["kv_cache_gb"] = kv
    weights = [
        q4_weights_gb(_get(r, "total_params_b"), _get(r, "vram_q4_gb"))
        for r in out.to_dict("records")
    ]
    out["q4_plus_kv_gb"] = [
        w + k if w is not None and k is not None else None for w, k in zip(weights, kv, strict=True)
    ]
    return out


def _get(row: dict, key: str) -> float | None:
    value = row.get(key)
    return None if value is None or pd.isna(value) else value


def _row_kv(row: dict, context_tokens: int | None) -> float | None:
    if not context_tokens:
        return None
    return kv_cache_gb(
        _get(row, "n_layers"), _get(row, "n_kv_heads"), _get(row, "head_dim"), context_tokens
    )


def measured_throughput(
    throughput: pd.DataFrame,
    gpu_id: str,
    gpu_count: int,
    model_aliases: dict[str, list[str]] | None = None,
    phase: str = "generation",
) -> pd.DataFrame:
    """Measured tok/s per model on exactly this GPU and count (never interpolated).

    Returns columns model_id, tokens_per_s, quant, source_url: one row per model (a Q4 row when
    one exists, matching the Q4 fit verdict, else the fastest measured quantisation).
    ``model_aliases`` maps a catalog model_id to other labels a source used for it. Models
    without a measured row are absent.
    """
    cols = ["model_id", "tokens_per_s", "quant", "source_url"]
    if throughput is None or throughput.empty:
        return pd.DataFrame(columns=cols)
    rows = throughput[
        (throughput["gpu_id"].str.lower() == gpu_id.lower())
        & (throughput["gpu_count"].astype(int) == int(gpu_count))
        & (throughput["phase"] == phase)
    ]
    label_to_model = {}
    for model_id, labels in (model_aliases or {}).items():
        for label in [model_id, *labels]:
            label_to_model.setdefault(label.lower(), model_id)
    rows = rows.assign(model_id=[label_to_model.get(m.lower(), m) for m in rows["model_id"]])
    rows = rows.assign(_q4=rows["quant"].str.upper().str.startswith("Q4"))
    rows = rows.sort_values(["_q4", "tokens_per_s"], ascending=[False, False])
    best = rows.drop_duplicates("model_id")
    return best[cols].reset_index(drop=True)
