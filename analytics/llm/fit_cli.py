"""Command line for the calculators: ``python -m analytics fit|finetune ...``.

fit:       (--model ID | --params-b P [--vram-q4-gb V]) (--gpu NAME | --vram-gb X) [--count N]
           [--context T] [--json]
finetune:  (--model ID | --params-b P [--active-params-b A]) --method full|lora|qlora|auto
           --recipe sft|dpo|rl (--gpu NAME | --vram-gb X [--bf16-tflops T] [--usd-per-hour R])
           [--count N] [--samples S] [--json]

``--model`` reads total and active parameters, the curated Q4 figure and the architecture (for
``--context``) from the current snapshot's ``models`` table (id, display name or alias). GPU names
resolve against the ``gpus`` table (id, name or alias, case-insensitive); unknown names exit 2
with the closest known ones. JSON names the source of each figure (``*_source``) and the hardware
a cost is for (``priced_on``) and what backs its price (``price``, ``price_offers``,
``price_providers``, ``price_date``, ``price_thin``, ``price_sources``): a job that does not fit
the chosen hardware is priced on the smallest rentable config that fits
(``finetune_view.pricing``; thin prices only when nothing better fits), or not at all.
Every number must be finite, positive and within a generous limit (``fit.checked``), and
``--active-params-b`` at most ``--params-b``.
Every error is one line on stderr with a non-zero exit (2 for bad input); nothing is written
anywhere. JSON is strict (never ``NaN`` or ``Infinity``).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analytics.core import paths, snapshot
from analytics.core.problems import Problem
from analytics.llm import finetune, fit_inputs, hardware
from analytics.llm import fit as hwfit

if TYPE_CHECKING:
    from analytics.llm import catalog, finetune_view


class _UsageError(Problem):
    """A bad command line: one problem line, exit status 2."""

    exit_status = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of argparse's usage block
        raise _UsageError(f"{message}; fix: see `python -m analytics {self.prog} --help`")


@dataclass(frozen=True)
class _Model:
    """The model figures a command uses, and where they come from."""

    model_id: str | None
    params_b: float | None
    active_params_b: float | None
    is_moe: bool
    open_weights: bool | None  # None: no evidence either way
    vram_q4_gb: float | None
    arch: tuple[float | None, float | None, float | None]  # n_layers, n_kv_heads, head_dim
    source: str  # "catalog models.csv (snapshot v...)" or "command line"
    q4_basis: str = ""  # models.vram_q4_basis: "published file size" / "measured memory" / ""
    q4_url: str = ""  # models.vram_q4_source_url
    context_length: float | None = None  # models.context_length: the model's own maximum


@dataclass(frozen=True)
class _Target:
    """The chosen hardware and where its figures come from."""

    hardware: hardware.Hardware
    source: str
    price_source: str | None


@dataclass(frozen=True)
class _Job:
    """What one command computes on: the model, the hardware and the served snapshot."""

    model: _Model
    target: _Target
    served: _Served


# Numeric options: destination -> (upper limit, whole number). All are checked once, after parsing,
# by ``fit.checked`` (finite, above 0, at most the limit), so the error names the option as typed.
_NUMBERS: dict[str, tuple[float, bool]] = {
    "params_b": (hwfit.MAX_PARAMS_B, False),
    "active_params_b": (hwfit.MAX_PARAMS_B, False),
    "vram_gb": (hwfit.MAX_MEMORY_GB, False),
    "vram_q4_gb": (hwfit.MAX_MEMORY_GB, False),
    "count": (hwfit.MAX_GPU_COUNT, True),
    "context": (hwfit.MAX_CONTEXT_TOKENS, True),
    "bf16_tflops": (finetune.MAX_TFLOPS, False),
    "usd_per_hour": (finetune.MAX_USD_PER_HOUR, False),
    "samples": (finetune.MAX_SAMPLES, True),
}


def _checked_numbers(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with every numeric option checked and converted; raises ValueError (one line)."""
    for dest, (hi, whole) in _NUMBERS.items():
        text = getattr(args, dest, None)
        if text is not None:
            option = "--" + dest.replace("_", "-")
            setattr(args, dest, hwfit.checked(option, text, hi, whole=whole))
    active = getattr(args, "active_params_b", None)
    if active is not None and args.params_b is not None and active > args.params_b:
        where = f"--active-params-b {active:g}"
        raise ValueError(finetune.active_above_total(where, "--params-b", args.params_b))
    return args


def _parser(command: str) -> _Parser:
    p = _Parser(prog=command, description=__doc__.split("\n")[0])
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--model", help="catalog model id, name or alias (figures from the snapshot)")
    what.add_argument("--params-b", help="total params, B")
    hw = p.add_mutually_exclusive_group(required=True)
    hw.add_argument("--gpu", help="catalog GPU id, name or alias")
    hw.add_argument("--vram-gb", help="memory per GPU, GB")
    p.add_argument("--count", default="1", help="number of GPUs")
    p.add_argument("--json", action="store_true", help="print JSON")
    if command == "fit":
        p.add_argument("--vram-q4-gb", help="curated Q4 VRAM, GB (with --params-b)")
        p.add_argument("--context", help="context tokens for the KV-cache refinement")
        return p
    p.add_argument("--active-params-b", help="active params (MoE), B (with --params-b)")
    p.add_argument("--method", choices=(*finetune.METHODS, "auto"), default="auto")
    p.add_argument("--recipe", choices=finetune.RECIPES, default="sft")
    p.add_argument("--bf16-tflops", help="peak dense bf16 per GPU")
    p.add_argument("--usd-per-hour", help="rental $ per GPU-hour")
    each = f"{finetune.TOKENS_PER_SAMPLE:,} tokens each"
    p.add_argument("--samples", help=f"training samples ({each})")
    return p


@dataclass(frozen=True)
class _Inputs:
    """One snapshot version's ``fit_inputs`` (models, GPUs, names, measured speeds)."""

    version: str
    data: dict[str, Any]
    computed: bool = False  # no stored file: speeds are computed per hardware when asked

    def source(self, table: str) -> str:
        return _catalog_source(table, self.version)

    def on(self, gpu_id: str, count: int) -> hardware.Hardware:
        """A catalog GPU x count, its price with the offer count."""
        row = self.data["gpus"][gpu_id]
        return hardware.with_offers(hardware.hardware_of(row, count), row["price_offers"])

    def speeds(self, gpu_id: str, count: int) -> dict[str, list[dict]]:
        """Checkpoint -> measured speed entries on ``count`` x ``gpu_id``."""
        gpu = str(gpu_id).casefold()
        if self.computed:
            return _computed_speeds(self.version, gpu, count)
        return self.data["speeds"].get(gpu, {}).get(str(count), {})

    @property
    def configs(self) -> list[hardware.Hardware]:
        """The rentable configurations (only a fine-tune's pricing reads them, with pandas)."""
        return _configs(self.version)


@functools.lru_cache(maxsize=2)
def _configs(version: str) -> list[hardware.Hardware]:
    """``finetune_view.rentable_configs`` of one snapshot version (a version never changes)."""
    from analytics.llm import catalog, finetune_view

    return finetune_view.rentable_configs(catalog.of_version(version, ("gpus",)).gpus)


def _inputs() -> _Inputs:
    """The served snapshot's inputs. The current catalog's stored ``fit_inputs`` file when it is
    current and intact (no pandas, no DuckDB: it was derived from a checked snapshot of exactly
    this catalog); otherwise the served version as every page gets it (built, checked, or an
    older one with a warning) and its file, or the same computed without storing it."""
    try:
        version = snapshot.catalog_version_stamped(paths.CATALOG_DIR)
        found = fit_inputs.stored(version)
    except (OSError, ValueError):  # an unreadable catalog: the full path says what is wrong
        found = None
    if found is not None:
        return _Inputs(version, found)
    version = _serving_version()
    found = fit_inputs.stored(version)
    if found is not None:
        return _Inputs(version, found)
    return _Inputs(version, _computed(version), computed=True)


@functools.lru_cache(maxsize=2)
def _tables(version: str) -> catalog.Catalog:
    from analytics.llm import catalog

    return catalog.of_version(version, fit_inputs.TABLES_READ)


@functools.lru_cache(maxsize=2)
def _computed(version: str) -> dict[str, Any]:
    """``fit_inputs`` of a version without a stored file, less the speeds (a version never
    changes): every hardware's speeds cost seconds, one hardware's a few milliseconds."""
    return fit_inputs.compute(_tables(version), speeds=False)


@functools.lru_cache(maxsize=64)
def _computed_speeds(version: str, gpu: str, count: int) -> dict[str, list[dict]]:
    return fit_inputs.hardware_speeds(_tables(version), gpu, count)


def _stats(files: list[Path]) -> tuple[tuple[str, int, int], ...]:
    """(path, size, mtime_ns) of each file: what changes when a file is rewritten."""
    out = []
    for path in files:
        st = path.stat()
        out.append((path.as_posix(), st.st_size, st.st_mtime_ns))
    return tuple(out)


_SERVED: dict[tuple, tuple[str, tuple]] = {}  # catalog file stats -> (version, snapshot stats)


def _serving_version() -> str:
    """``db.serving_version()``, remembered within one process while neither the catalog files
    nor the served snapshot's files change (the in-process runs over every checkpoint stay
    fast); a warning (a damaged snapshot) is printed and never remembered."""
    from analytics.core import db

    catalog_dir, snapshots_dir = paths.CATALOG_DIR, paths.SNAPSHOTS_DIR
    key = (str(catalog_dir), str(snapshots_dir), _stats(snapshot.catalog_files(catalog_dir)))
    hit = _SERVED.get(key)
    if hit is not None:
        version, stats = hit
        folder = snapshots_dir / version
        if folder.is_dir() and _stats(sorted(folder.rglob("*.*"))) == stats:
            return version
    served = db.serving_version()
    if served.warning:
        print(f"warning: {served.warning}", file=sys.stderr)
        _SERVED.pop(key, None)
        return served.version
    _SERVED[key] = (served.version, _stats(sorted((snapshots_dir / served.version).rglob("*.*"))))
    return served.version


class _Served:
    """The served snapshot's inputs, looked up on first use and then kept for one command."""

    def __init__(self) -> None:
        self._inputs: _Inputs | None = None

    def __call__(self) -> _Inputs:
        if self._inputs is None:
            self._inputs = _inputs()
        return self._inputs


def _catalog_source(table: str, version: str) -> str:
    return f"catalog {table}.csv (snapshot {version})"


def _model(args: argparse.Namespace, command: str, served: _Served) -> _Model:
    """The figures of ``--model`` (from the snapshot) or of the numeric options."""
    if args.model is None:
        active = getattr(args, "active_params_b", None)
        q4 = getattr(args, "vram_q4_gb", None)
        arch = (None, None, None)
        return _Model(None, args.params_b, active, False, True, q4, arch, "command line")
    for option in ("active_params_b", "vram_q4_gb"):
        if getattr(args, option, None) is not None:
            flag = "--" + option.replace("_", "-")
            raise _UsageError(f"{flag} goes with --params-b; fix: drop it (--model reads it)")
    snap = served()
    models = snap.data["models"]
    model_id = hardware.resolve_model(snap.data["model_names"], args.model, models)
    row = models[model_id]
    arch = tuple(_figure(row, c) for c in ("n_layers", "n_kv_heads", "head_dim"))
    found = _Model(
        model_id, _figure(row, "total_params_b"), _figure(row, "active_params_b"),
        _flag(row, "is_moe"), _tri(row, "open_weights"), _figure(row, "vram_q4_gb"), arch,
        snap.source("models"), _text(row, "vram_q4_basis"), _text(row, "vram_q4_source_url"),
        _figure(row, "context_length"),
    )
    return _usable(found, command)


def _figure(row: dict, column: str) -> float | None:
    """A catalog number, None when absent."""
    return hardware.number(row.get(column))


def _text(row: dict, column: str) -> str:
    """A catalog text cell, "" when absent."""
    return hardware.text(row.get(column))


def _tri(row: dict, column: str) -> bool | None:
    """A catalog true / false / unknown flag (None when absent or empty)."""
    value = row.get(column)
    return None if hwfit.is_missing(value) else bool(value)


def _flag(row: dict, column: str) -> bool:
    """A catalog boolean, False when absent."""
    return bool(_tri(row, column))


def _usable(model: _Model, command: str) -> _Model:
    """``model`` when the command can use its catalog figures; else a one-line error."""
    fix = "fix: pass --params-b instead"
    if command == "finetune" and not model.open_weights:
        state = "closed weights" if model.open_weights is False else "weights not known to be open"
        raise ValueError(f"{model.model_id}: {state} cannot be fine-tuned; {fix}")
    if model.params_b is None and (command == "finetune" or model.vram_q4_gb is None):
        raise ValueError(f"{model.model_id}: the catalog has no parameter count; {fix}")
    return model


def _target(args: argparse.Namespace, served: _Served) -> _Target:
    if args.gpu is None:
        tflops = getattr(args, "bf16_tflops", None)
        usd = getattr(args, "usd_per_hour", None)
        name = f"{args.vram_gb:g} GB"
        hw = hardware.Hardware("custom", name, "custom", args.vram_gb, args.count, tflops, usd)
        return _Target(hw, "command line", "--usd-per-hour" if usd is not None else None)
    snap = served()
    gpu_id = hardware.resolve_gpu(snap.data["gpu_names"], args.gpu, snap.data["gpus"])
    hw = snap.on(gpu_id, int(args.count))
    return _Target(hw, snap.source("gpus"), _price_source(snap, hw))


def _price_source(snap: _Inputs, hw: hardware.Hardware | None) -> str | None:
    """Where a catalog GPU's $/h comes from: its price sources, via the snapshot."""
    if hw is None or hw.usd_per_hour is None:
        return None
    where = snap.source("gpus")
    urls = hw.price.source_urls if hw.price is not None else ()
    return f"{where}: {';'.join(urls)}" if urls else where


def _figures(model: _Model, target: _Target) -> dict:
    """The inputs of a result and the source of each."""
    out = {"model_id": model.model_id} if model.model_id else {}
    out.update(params_b=model.params_b, params_b_source=model.source)
    out.update(hardware=target.hardware.label, memory_gb=target.hardware.memory_gb)
    out["memory_gb_source"] = target.source
    return out


def _fit(args: argparse.Namespace, job: _Job) -> dict:
    model, target = job.model, job.target
    hw = target.hardware
    budget = hwfit.budget_gb(hw.memory_gb, hw.count)
    result = hwfit.hardware_fit(model.params_b, budget, model.vram_q4_gb)
    out = _figures(model, target)
    q4_source = model.source if model.vram_q4_gb is not None else "none: estimated from params_b"
    if model.vram_q4_gb is not None and model.q4_basis:
        q4_source += f"; {model.q4_basis}" + (f": {model.q4_url}" if model.q4_url else "")
    out.update(vram_q4_gb=model.vram_q4_gb, vram_q4_gb_source=q4_source, **result.as_dict())
    kv = None
    if args.context is not None:
        kv = hwfit.kv_cache_gb(*model.arch, args.context)
        weights = hwfit.q4_weights_gb(model.params_b, model.vram_q4_gb)
        out.update(context_tokens=args.context, kv_cache_gb=kv)
        out["q4_plus_kv_gb"] = None if kv is None else weights + kv
        out["kv_cache_source"] = model.source if kv is not None else "none: architecture unknown"
        out.update(_context_fit(model, args.context, kv, weights, budget))
    out.update(_quants(model, budget, kv, args.context))
    if model.model_id and hw.gpu_id != "custom":
        out["measured_speeds"] = measured_speeds(job.served(), model.model_id, hw)
    return out


def _context_fit(model: _Model, context: int, kv: float | None, weights: float, budget: float
                 ) -> dict:
    """The Q4 verdict at ``context`` (weights + KV cache), refused above the model's maximum."""
    out = {"max_context_tokens": model.context_length}
    if hwfit.above_max_context(context, model.context_length):
        out["context_verdict"] = hwfit.ABOVE_MAX_CONTEXT
    elif kv is None:
        out["context_verdict"] = hwfit.KV_UNKNOWN
    else:
        out["context_verdict"] = hwfit.verdict((weights + kv) / budget)
    return out


def _quants(model: _Model, budget: float, kv: float | None, context: int | None) -> dict:
    """``quants``: a verdict per quantisation (GB at the context, weights, basis), and
    ``best_quant`` / ``best_quant_bits``: the most precise one that fits."""
    basis = (model.vram_q4_gb, model.q4_basis, model.q4_url or None)
    found = hwfit.quant_fits(model.params_b, basis, budget, kv, context, model.context_length)
    best = hwfit.best_quant(found)
    return {
        "quants": [
            {"quant": q.quant, "bits_per_param": q.bits_per_param, "weights_gb": q.weights_gb,
             "weights_basis": q.basis, "need_gb": q.need_gb, "verdict": q.verdict}
            for q in found
        ],
        "best_quant": hwfit.best_quant_label(found),
        "best_quant_bits": best.bits_per_param if best else None,
    }


def measured_speeds(inputs: _Inputs, model_id: str, hw: hardware.Hardware) -> list[dict]:
    """The measured generation speeds the hardware-fit page shows for this model's checkpoint on
    exactly this GPU and count (``fit_inputs``: one entry per kind, never estimated)."""
    checkpoint = inputs.data["models"].get(model_id, {}).get("checkpoint_id", model_id)
    return inputs.speeds(hw.gpu_id, hw.count).get(checkpoint, [])


def _finetune(args: argparse.Namespace, job: _Job) -> dict:
    model, target, served = job.model, job.target, job.served
    hw = target.hardware
    capacity = finetune.capacity_gb(hw.memory_gb, hw.count)
    plan = finetune.plan(model.params_b, args.recipe, capacity, args.method)
    out = _figures(model, target)
    out.update(active_params_b=model.active_params_b, active_params_b_source=model.source)
    out.update(plan.as_dict())
    if args.samples is not None:
        out.update(_cost(args, model, target, served))
    return out


def _compute_params(model: _Model) -> float | None:
    """Parameters that cost compute: active for a catalog MoE (None undisclosed), else total."""
    if model.model_id is None:
        return model.active_params_b or model.params_b
    return finetune.compute_params_b(model.params_b, model.active_params_b, model.is_moe)


def _cost(args: argparse.Namespace, model: _Model, target: _Target, served: _Served) -> dict:
    """The rough cost keys, priced on the hardware that can run the job (``priced_on``)."""
    compute = _compute_params(model)
    tokens = finetune.training_tokens(args.samples)
    flops = None if compute is None else finetune.training_flops(compute, tokens, args.recipe)
    out = {"compute_params_b": compute, "tokens": tokens, "train_flops": flops}
    out.update(gpu_hours=None, wall_clock_hours=None, cost_usd=None, priced_on=None)
    hw = target.hardware
    if hw.is_apple:
        out["note"] = "Apple silicon: fit verdict only, no cost estimate"
        return out
    if compute is None:
        out["note"] = "active parameter count undisclosed for this MoE model: compute unknown"
        return out
    out["configs"] = _config_options(args, model, compute, served)
    priced, price_source = _priced(args, model, target, served)
    if priced.note:
        out["priced_on_note"] = priced.note
    if priced.hardware is None:
        return out
    from analytics.llm import finetune_view

    on = priced.hardware
    out.update(priced_on=on.label, bf16_tflops=on.bf16_tflops, usd_per_hour=on.usd_per_hour)
    out["usd_per_hour_source"] = price_source
    out.update(finetune_view.price_facts(on), price=finetune_view.price_label(on))
    if on.bf16_tflops is None:
        if on.kind == "custom":
            raise _UsageError("--samples needs the GPU's peak bf16 TFLOPS; fix: pass --bf16-tflops")
        out["note"] = f"no peak bf16 figure for {on.name} in the catalog"
        return out
    est = finetune.cost_estimate(
        compute, args.samples, args.recipe, on.bf16_tflops, on.count, on.usd_per_hour
    )
    out.update(est.as_dict())
    return out


def _config_options(
    args: argparse.Namespace, model: _Model, compute: float, served: _Served
) -> list[dict]:
    """The smallest, cheapest and fastest rentable configs that fit the job
    (``finetune_view.config_options``), whatever the chosen hardware, as JSON records."""
    from analytics.llm import finetune_view

    options = finetune_view.config_options(
        served().configs, model.params_b, compute, args.recipe, args.method, args.samples
    )
    return finetune_view.option_records(options)


def _priced(
    args: argparse.Namespace, model: _Model, target: _Target, served: _Served
) -> tuple[finetune_view.Pricing, str | None]:
    """Where to price (``finetune_view.pricing``) and the source of that $/h."""
    from analytics.llm import finetune_view

    hw = target.hardware
    capacity = finetune.capacity_gb(hw.memory_gb, hw.count)
    if finetune.plan(model.params_b, args.recipe, capacity, args.method).fits:
        return finetune_view.Pricing(hw), target.price_source
    snap = served()
    priced = finetune_view.pricing(hw, snap.configs, model.params_b, args.recipe, args.method)
    return priced, _price_source(snap, priced.hardware)


def _human(command: str, out: dict) -> str:
    name = f"{out['model_id']} on " if out.get("model_id") else ""
    head = f"{name}{out['hardware']}: needs {out['required_gb']:.1f} GB of "
    cap = out.get("capacity_gb", out.get("budget_gb"))
    head += f"{cap:.1f} GB (ratio {out['ratio']:.2f}) -> {out['verdict']}"
    if command == "fit":
        kv = out.get("kv_cache_gb")
        if "context_tokens" not in out:
            return head
        head += f"\n  at {out['context_tokens']:,} tokens: {out['context_verdict']}"
        head += "" if kv is None else f" (KV cache {kv:.2f} GB)"
        return head + f"\n  best quant that fits: {out['best_quant'] or '—'}"
    lines = [f"{finetune.METHOD_LABELS[out['method']]}, {out['recipe'].upper()}: " + head]
    lines += [f"  {name:<32} {gb:8.2f} GB" for name, gb in out["parts"].items()]
    if "tokens" in out:
        lines += _human_cost(out)
    return "\n".join(lines)


def _human_cost(out: dict) -> list[str]:
    flops = "—" if out["train_flops"] is None else f"{out['train_flops']:.3g}"
    lines = [f"rough estimate: {out['tokens']:,} tokens, {flops} FLOPs"]
    if out["gpu_hours"] is not None:
        lines.append(
            f"  {out['gpu_hours']:,.1f} GPU-hours, {out['wall_clock_hours']:,.1f} h wall-clock"
        )
    cost = out["cost_usd"]
    where = f" (on {out['priced_on']})" if out.get("priced_on") and cost is not None else ""
    lines.append(f"  cost: {'—' if cost is None else f'${cost:,.2f}'}{where}")
    if out.get("price"):
        lines.append(f"  price: {out['price']}")
    lines += [f"  {out[k]}" for k in ("priced_on_note", "note") if out.get(k)]
    for option in out.get("configs") or []:
        cost = option["cost_usd"]
        lines.append(
            f"  {option['role']:<9} {option['config']}: "
            + ("—" if cost is None else f"{option['wall_clock_hours']:,.1f} h, ${cost:,.2f}")
        )
    return lines


def _one_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()] or [repr(exc)]
    more = len(lines) - 1
    if more > 0 and "problem" in lines[-1]:
        more -= 1  # a trailing "N problems" summary line
    suffix = f" (and {more} more; run `python -m analytics snapshot validate`)" if more else ""
    return lines[0].strip("'\"") + suffix


def main(argv: list[str]) -> int:
    """Run ``fit`` or ``finetune`` (argv[0]); prints a result, returns the exit status."""
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if command not in ("fit", "finetune"):
        print(f"error: command must be 'fit' or 'finetune' (got {command!r})", file=sys.stderr)
        return 2
    try:
        args = _checked_numbers(_parser(command).parse_args(rest))
        served = _Served()
        job = _Job(_model(args, command, served), _target(args, served), served)
        out = _fit(args, job) if command == "fit" else _finetune(args, job)
        text = _json(out) if args.json else _human(command, out)
    except (_UsageError, LookupError, FileNotFoundError, ValueError) as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # e.g. an invalid catalog while resolving --gpu
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 1
    print(text)
    return 0


def _json(out: dict) -> str:
    """Strict JSON: a NaN or infinity raises ValueError (one line) instead of printing ``NaN``."""
    try:
        return json.dumps(out, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        what = "a result is not a finite number"
        raise ValueError(f"--json: {what}; fix: pass smaller, finite inputs") from None
