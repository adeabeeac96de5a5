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

Additions (all beside the seed verdict, never replacing it):

- the curated Q4 figure drives the verdict only when it is ground truth (``vram_q4_basis`` is
  "published file size" or "measured memory"); otherwise the seed formula, labelled;
- at a chosen context: Q4 weights + the fp16 KV cache give a second verdict ("at N tokens");
- a verdict per quantisation (:data:`QUANTS`) at the chosen context, refused above the model's own
  maximum context, and the most precise quantisation that fits (:func:`quant_fits`);
- measured throughput by kind: :mod:`analytics.llm.speeds`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real
from typing import TYPE_CHECKING

from analytics.core import problems
from analytics.llm.ingest import roofline

if TYPE_CHECKING:
    import pandas as pd

RUNTIME_OVERHEAD = 1.08  # seed 002 "Hardware fit": KV-cache + runtime factor on Q4 weights
Q4_BITS_PER_PARAM = 4.5  # seed 002: ~4.5 bits per parameter for Q4 quantisation
BITS_PER_BYTE = 8
Q4_BYTES_PER_PARAM = Q4_BITS_PER_PARAM / BITS_PER_BYTE  # GB per billion parameters
KV_TENSORS = 2  # the KV cache holds a key and a value tensor per layer
KV_BYTES_PER_VALUE = 2  # fp16/bf16 KV cache
BYTES_PER_GB = 1e9
# The Q4 figures that are ground truth (models.vram_q4_basis); any other
# vram_q4_gb is not used by the verdict, which then applies the seed formula.
GROUND_TRUTH_Q4 = ("published file size", "measured memory")
FORMULA_Q4 = f"formula ({Q4_BITS_PER_PARAM:g} bits/param)"
BASIS_NOT_RECORDED = "curated (basis not recorded)"  # a catalog without vram_q4_basis
KV_UNKNOWN = "KV cache unknown: architecture not in sources"
ABOVE_MAX_CONTEXT = "refused: above the model's maximum context"
"""The context verdict of a model asked for more tokens than it was built to read
(``models.context_length``): no memory figure makes that context work."""
QUANTS: tuple[str, ...] = ("Q4_K_M", "Q5_K_M", "Q8_0", "FP16")
"""The quantisations graded per model, smallest first; bits per weight from llama.cpp's quantize
table (:data:`analytics.llm.ingest.roofline.BITS_PER_WEIGHT`, the table the roofline reads)."""
QUANT_PREFIX = {q: q.casefold() for q in QUANTS}  # column prefix: q4_k_m_verdict, fp16_gb, ...
PUBLISHED_FILE = "published file size"
PUBLISHED_QUANT = "Q4_K_M"  # the quant of the published file sizes the catalog's Q4 basis cites

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
    0 KV heads is an attention-free model (Mamba, RWKV): 0 GB, its fixed recurrent state being
    part of the runtime overhead the seed's 1.08 covers.
    """
    tokens = checked("context_tokens", context_tokens, MAX_CONTEXT_TOKENS, whole=True)
    if _known(n_layers) and n_layers > 0 and _known(n_kv_heads) and n_kv_heads == 0:
        return 0.0
    dims = (n_layers, n_kv_heads, head_dim)
    if not all(_known(d) and d > 0 for d in dims):
        return None
    names = ("n_layers", "n_kv_heads", "head_dim")
    layers, heads, dim = (
        int(checked(n, d, MAX_CONTEXT_TOKENS)) for n, d in zip(names, dims, strict=True)
    )
    values = KV_TENSORS * layers * heads * dim * tokens
    return values * bytes_per_value / BYTES_PER_GB


def is_missing(value: object) -> bool:
    """None or a missing-value marker (NaN of any float type, pandas' NA or NaT), tested
    without importing pandas: the command line's fit answers from plain JSON values."""
    if value is None:
        return True
    try:
        return bool(value != value)  # only NaN and NaT differ from themselves
    except TypeError:  # pandas' NA: its comparisons are NA, whose truth value raises
        return True


def _known(value: float | None) -> bool:
    return not is_missing(value)


def weights_gb(params_b: float | None, bits_per_param: float) -> float | None:
    """Formula weights of ``params_b`` billion parameters at ``bits_per_param``: params x bits/8
    GB (None when the count is unknown)."""
    if not _known(params_b):
        return None
    return checked("params_b", params_b, MAX_PARAMS_B) * bits_per_param / BITS_PER_BYTE


def q4_basis(row: dict) -> tuple[float | None, str, str | None]:
    """(the Q4 figure the verdict may use, its basis label, its source URL) for a models row.

    The catalog's ``vram_q4_gb`` counts only when ``vram_q4_basis`` names ground truth
    (:data:`GROUND_TRUTH_Q4`); a catalog without that column predates the basis and keeps its
    curated figure (labelled :data:`BASIS_NOT_RECORDED`). Otherwise: the seed formula."""
    figure = _get(row, "vram_q4_gb")
    if figure is not None:
        if "vram_q4_basis" not in row:
            return figure, BASIS_NOT_RECORDED, None
        basis = str(row.get("vram_q4_basis") or "").strip().casefold()
        if basis in GROUND_TRUTH_Q4:
            url = row.get("vram_q4_source_url")
            return figure, basis, url if isinstance(url, str) and url.strip() else None
    return None, FORMULA_Q4 if _known(_get(row, "total_params_b")) else "", None


def above_max_context(context_tokens: int | None, context_length: float | None) -> bool:
    """True when a chosen context exceeds the model's own maximum (``models.context_length``);
    an unknown maximum never refuses."""
    return bool(context_tokens) and _known(context_length) and context_tokens > context_length


@dataclass(frozen=True)
class QuantFit:
    """One quantisation of one model on one budget, at a context when one is chosen.

    ``weights_gb`` is the published file where the catalog has it for this quant, else params x
    bits/8 (``basis`` says which). ``need_gb`` is weights + fp16 KV cache at the context (the
    context verdict's rule), or weights x the seed's 1.08 without a context; None when the KV
    cache is unknown or the context is refused, and ``verdict`` then says why."""

    quant: str
    bits_per_param: float
    weights_gb: float
    basis: str
    need_gb: float | None
    verdict: str

    @property
    def fits(self) -> bool:
        return self.need_gb is not None and self.verdict in VERDICTS[:2]


def quant_fits(
    params_b: float | None,
    q4: tuple[float | None, str, str | None],
    budget: float,
    kv_gb: float | None,
    context_tokens: int | None = None,
    context_length: float | None = None,
) -> list[QuantFit]:
    """A :class:`QuantFit` per :data:`QUANTS` (empty when the parameter count is unknown and no
    file is published). ``q4`` is :func:`q4_basis` of the model: its published file size stands
    for Q4_K_M; measured memory (a bitsandbytes 4-bit peak) is not a GGUF file and is not used
    here."""
    checked("budget", budget, MAX_BUDGET_GB)
    out = []
    for quant in QUANTS:
        bits = roofline.BITS_PER_WEIGHT[quant]
        if quant == PUBLISHED_QUANT and q4[0] is not None and q4[1] == PUBLISHED_FILE:
            weights, basis = float(q4[0]), PUBLISHED_FILE
        else:
            weights, basis = weights_gb(params_b, bits), f"formula ({bits:.2f} bits/param)"
        if weights is None:
            continue
        need, grade_ = _quant_need(weights, kv_gb, budget, context_tokens, context_length)
        out.append(QuantFit(quant, bits, weights, basis, need, grade_))
    return out


def _quant_need(
    weights: float,
    kv_gb: float | None,
    budget: float,
    context_tokens: int | None,
    context_length: float | None,
) -> tuple[float | None, str]:
    if not context_tokens:
        need = weights * RUNTIME_OVERHEAD
        return need, verdict(need / budget)
    if above_max_context(context_tokens, context_length):
        return None, ABOVE_MAX_CONTEXT
    if kv_gb is None:
        return None, KV_UNKNOWN
    return weights + kv_gb, verdict((weights + kv_gb) / budget)


def best_quant(fits_: list[QuantFit]) -> QuantFit | None:
    """The most precise quantisation that fits (ratio <= 1.0), None when none does or none is
    known."""
    fitting = [q for q in fits_ if q.fits]
    return max(fitting, key=lambda q: q.bits_per_param) if fitting else None


NONE_FITS = "none fits"


def best_quant_label(fits_: list[QuantFit]) -> str | None:
    """The best quant's name, :data:`NONE_FITS` when every grade is known and none fits, or the
    reason it is unknown (the unknown-KV or above-maximum text); None without any quant."""
    best = best_quant(fits_)
    if best is not None:
        return best.quant
    unknown = [q.verdict for q in fits_ if q.need_gb is None]
    return unknown[0] if unknown else (NONE_FITS if fits_ else None)


def fit_table(
    models: pd.DataFrame,
    budget: float,
    context_tokens: int | None = None,
) -> pd.DataFrame:
    """Seed verdict per model (columns from the catalog ``models`` table) on ``budget`` GB.

    Adds required_gb, budget_gb, ratio, verdict, fits (seed 002 "Hardware fit"), the Q4 figure's
    ``q4_basis`` and ``q4_source_url``; and - beside them, never replacing them - kv_cache_gb and
    q4_plus_kv_gb (Q4 weights + fp16 KV cache) for ``context_tokens`` where the architecture is
    known, ``context_ratio`` and ``context_verdict`` (the same thresholds on that sum; the
    :data:`KV_UNKNOWN` text where the architecture is unknown, :data:`ABOVE_MAX_CONTEXT` above
    the model's ``context_length``, shown as ``max_context_tokens``), and the per-quantisation
    columns of :func:`quant_columns`. Models with neither a parameter count nor a ground-truth
    Q4 figure get no verdict (None). MoE models use total parameters throughout.
    """
    import pandas as pd  # here: the command line's fit imports this module without pandas

    checked("budget", budget, MAX_BUDGET_GB)
    out = models.copy()
    records = out.to_dict("records")
    bases = [q4_basis(row) for row in records]
    params = [_get(row, "total_params_b") for row in records]
    results = [hardware_fit(p, budget, b[0]) for p, b in zip(params, bases, strict=True)]
    out["required_gb"] = [r.required_gb if r else None for r in results]
    out["budget_gb"] = budget
    out["ratio"] = [r.ratio if r else None for r in results]
    out["verdict"] = [r.verdict if r else None for r in results]
    # bool even when empty: an empty object column used as a mask would select columns
    out["fits"] = pd.Series([bool(r and r.fits) for r in results], index=out.index, dtype=bool)
    out["q4_basis"] = [b[1] if r else None for b, r in zip(bases, results, strict=True)]
    out["q4_source_url"] = [b[2] for b in bases]
    kv = [_row_kv(row, context_tokens) for row in records]
    out["kv_cache_gb"] = kv
    weights = [q4_weights_gb(p, b[0]) for p, b in zip(params, bases, strict=True)]
    pairs = zip(weights, kv, strict=True)
    total = [w + k if w is not None and k is not None else None for w, k in pairs]
    out["q4_plus_kv_gb"] = total
    limits = [_get(row, "context_length") for row in records]
    refused = [above_max_context(context_tokens, n) for n in limits]
    out["max_context_tokens"] = limits
    out["context_ratio"] = [
        None if t is None or no else t / budget for t, no in zip(total, refused, strict=True)
    ]
    out["context_verdict"] = [
        _context_verdict(t, w, budget, context_tokens, no)
        for t, w, no in zip(total, weights, refused, strict=True)
    ]
    per_model = [
        quant_fits(p, b, budget, k, context_tokens, n)
        for p, b, k, n in zip(params, bases, kv, limits, strict=True)
    ]
    return out.join(quant_columns(per_model, out.index))


def quant_columns(per_model: list[list[QuantFit]], index: pd.Index) -> pd.DataFrame:
    """Per :data:`QUANTS`: ``<quant>_gb`` (need at the context), ``<quant>_weights_gb``,
    ``<quant>_basis`` and ``<quant>_verdict``; then ``best_quant`` (:func:`best_quant_label`)
    and ``best_quant_bits`` (its bits per weight, the numeric sort key; empty when none fits)."""
    import pandas as pd

    columns: dict[str, list] = {}
    for quant, prefix in QUANT_PREFIX.items():
        found = [next((q for q in fits_ if q.quant == quant), None) for fits_ in per_model]
        columns[f"{prefix}_gb"] = [q.need_gb if q else None for q in found]
        columns[f"{prefix}_weights_gb"] = [q.weights_gb if q else None for q in found]
        columns[f"{prefix}_basis"] = [q.basis if q else None for q in found]
        columns[f"{prefix}_verdict"] = [q.verdict if q else None for q in found]
    best = [best_quant(fits_) for fits_ in per_model]
    columns["best_quant"] = [best_quant_label(fits_) for fits_ in per_model]
    columns["best_quant_bits"] = [q.bits_per_param if q else None for q in best]
    table = pd.DataFrame(columns, index=index)
    number = [c for c in table if c.endswith("_gb") or c == "best_quant_bits"]
    return table.astype({c: "float64" for c in number})


def _context_verdict(
    total: float | None,
    weights: float | None,
    budget: float,
    context_tokens: int | None,
    refused: bool,
) -> str | None:
    """The verdict of weights + KV cache at the context, the above-maximum refusal, the
    unknown-architecture text, or None (no context chosen, or no Q4 weights)."""
    if not context_tokens or weights is None:
        return None
    if refused:
        return ABOVE_MAX_CONTEXT
    return KV_UNKNOWN if total is None else verdict(total / budget)


def _get(row: dict, key: str) -> float | None:
    value = row.get(key)
    return None if is_missing(value) else value


def _row_kv(row: dict, context_tokens: int | None) -> float | None:
    if not context_tokens:
        return None
    return kv_cache_gb(
        _get(row, "n_layers"), _get(row, "n_kv_heads"), _get(row, "head_dim"), context_tokens
    )
