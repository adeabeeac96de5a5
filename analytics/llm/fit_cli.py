"""Command line for the calculators: ``python -m analytics fit|finetune ...``.

fit:       --params-b P [--vram-q4-gb V] (--gpu NAME | --vram-gb X) [--count N] [--json]
finetune:  --params-b P [--active-params-b A] --method full|lora|qlora|auto --recipe sft|dpo|rl
           (--gpu NAME | --vram-gb X [--bf16-tflops T] [--usd-per-hour R]) [--count N]
           [--samples S] [--json]

GPU names resolve against the catalog ``gpus`` table (id, name or alias, case-insensitive). Every
number must be finite, positive and within a generous limit (``fit.checked``), and
``--active-params-b`` at most ``--params-b``. Every error is one line on stderr with a non-zero exit
(2 for bad input); nothing is written anywhere. JSON is strict (never ``NaN`` or ``Infinity``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

from analytics.core import db
from analytics.llm import catalog, finetune
from analytics.llm import fit as hwfit


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of argparse's usage block
        raise _UsageError(f"{message}; fix: see `python -m analytics {self.prog} --help`")


@dataclass(frozen=True)
class _Target:
    label: str
    memory_gb: float
    count: int
    kind: str
    bf16_tflops: float | None
    usd_per_hour: float | None


# Numeric options: destination -> (upper limit, whole number). All are checked once, after parsing,
# by ``fit.checked`` (finite, above 0, at most the limit), so the error names the option as typed.
_NUMBERS: dict[str, tuple[float, bool]] = {
    "params_b": (hwfit.MAX_PARAMS_B, False),
    "active_params_b": (hwfit.MAX_PARAMS_B, False),
    "vram_gb": (hwfit.MAX_MEMORY_GB, False),
    "vram_q4_gb": (hwfit.MAX_MEMORY_GB, False),
    "count": (hwfit.MAX_GPU_COUNT, True),
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
    if active is not None and active > args.params_b:
        where = f"--active-params-b {active:g}"
        raise ValueError(finetune.active_above_total(where, "--params-b", args.params_b))
    return args


def _parser(command: str) -> _Parser:
    p = _Parser(prog=command, description=__doc__.split("\n")[0])
    p.add_argument("--params-b", required=True, help="total params, B")
    hw = p.add_mutually_exclusive_group(required=True)
    hw.add_argument("--gpu", help="catalog GPU id, name or alias")
    hw.add_argument("--vram-gb", help="memory per GPU, GB")
    p.add_argument("--count", default="1", help="number of GPUs")
    p.add_argument("--json", action="store_true", help="print JSON")
    if command == "fit":
        p.add_argument("--vram-q4-gb", help="curated Q4 VRAM, GB")
        return p
    p.add_argument("--active-params-b", help="active params (MoE), B")
    p.add_argument("--method", choices=(*finetune.METHODS, "auto"), default="auto")
    p.add_argument("--recipe", choices=finetune.RECIPES, default="sft")
    p.add_argument("--bf16-tflops", help="peak dense bf16 per GPU")
    p.add_argument("--usd-per-hour", help="rental $ per GPU-hour")
    each = f"{finetune.TOKENS_PER_SAMPLE:,} tokens each"
    p.add_argument("--samples", help=f"training samples ({each})")
    return p


def _target(args: argparse.Namespace) -> _Target:
    if args.gpu is None:
        tflops = getattr(args, "bf16_tflops", None)
        usd = getattr(args, "usd_per_hour", None)
        label = f"{args.count}× {args.vram_gb:g} GB"
        return _Target(label, args.vram_gb, args.count, "custom", tflops, usd)
    gpus = catalog.load_catalog(db.connect()).gpus
    hw = catalog.hardware(gpus, catalog.resolve_gpu(gpus, args.gpu), args.count)
    return _Target(hw.label, hw.memory_gb, hw.count, hw.kind, hw.bf16_tflops, hw.usd_per_hour)


def _fit(args: argparse.Namespace, target: _Target) -> dict:
    budget = hwfit.budget_gb(target.memory_gb, target.count)
    result = hwfit.hardware_fit(args.params_b, budget, args.vram_q4_gb)
    return {"hardware": target.label, **result.as_dict()}


def _finetune(args: argparse.Namespace, target: _Target) -> dict:
    capacity = finetune.capacity_gb(target.memory_gb, target.count)
    plan = finetune.plan(args.params_b, args.recipe, capacity, args.method)
    out = {"hardware": target.label, **plan.as_dict()}
    if args.samples is None:
        return out
    compute = args.active_params_b or args.params_b
    tokens = finetune.training_tokens(args.samples)
    flops = finetune.training_flops(compute, tokens, args.recipe)
    out.update(tokens=tokens, train_flops=flops, gpu_hours=None, wall_clock_hours=None)
    out["cost_usd"] = None
    if target.kind == "apple":
        out["note"] = "Apple silicon: fit verdict only, no cost estimate"
        return out
    if target.bf16_tflops is None:
        raise _UsageError("--samples needs the GPU's peak bf16 TFLOPS; fix: pass --bf16-tflops")
    est = finetune.cost_estimate(
        compute, args.samples, args.recipe, target.bf16_tflops, target.count, target.usd_per_hour
    )
    out.update(est.as_dict())
    return out


def _human(command: str, out: dict) -> str:
    head = f"{out['hardware']}: needs {out['required_gb']:.1f} GB of "
    cap = out.get("capacity_gb", out.get("budget_gb"))
    head += f"{cap:.1f} GB (ratio {out['ratio']:.2f}) -> {out['verdict']}"
    if command == "fit":
        return head
    lines = [f"{finetune.METHOD_LABELS[out['method']]}, {out['recipe'].upper()}: " + head]
    lines += [f"  {name:<32} {gb:8.2f} GB" for name, gb in out["parts"].items()]
    if "tokens" in out:
        lines.append(f"rough estimate: {out['tokens']:,} tokens, {out['train_flops']:.3g} FLOPs")
        if out["gpu_hours"] is not None:
            lines.append(
                f"  {out['gpu_hours']:,.1f} GPU-hours, {out['wall_clock_hours']:,.1f} h wall-clock"
            )
        cost = out["cost_usd"]
        lines.append(f"  cost: {'—' if cost is None else f'${cost:,.2f}'}")
    return "\n".join(lines)


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
        target = _target(args)
        out = _fit(args, target) if command == "fit" else _finetune(args, target)
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
