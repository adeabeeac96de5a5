"""``python -m analytics fl-score DIR --policy FILE [--json]`` and ``fl-run --out DIR [...]``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from analytics.fl import reference, runner, scoring
from analytics.fl.datasets import DATASETS
from analytics.fl.perturbations import PERTURBATIONS
from analytics.fl.policy import load_policy
from analytics.fl.store import load_folder


def _score_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m analytics fl-score")
    p.add_argument("folder", type=Path, help="folder of submission ZIPs")
    p.add_argument("--policy", type=Path, required=True, help="policy JSON")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    return p


def _run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m analytics fl-run")
    p.add_argument("--out", type=Path, required=True, help="folder for the ZIPs (and policy.json)")
    p.add_argument("--methods", nargs="+", default=list(runner.METHODS), choices=runner.METHODS)
    p.add_argument("--models", nargs="+", default=list(runner.MODELS), choices=runner.MODELS)
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument(
        "--perturbations", nargs="*", default=list(PERTURBATIONS), choices=list(PERTURBATIONS)
    )
    p.add_argument("--seed", type=int, default=runner.BASE_SEED)
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS", help="one Ray task per run")
    p.add_argument("--results", type=Path, help="job results folder (docs/ray.md)")
    return p


def _print_table(result: scoring.Scores) -> None:
    api = scoring.to_api(result)
    print(f"{'rank':>4}  {'method':<20} {'A':>8} {'B':>8} {'C':>8} {'final':>8}")
    for m in api["methods"]:
        rank = "-" if m["rank"] is None else str(m["rank"])
        print(
            f"{rank:>4}  {m['method']:<20} {m['A']:8.4f} {m['B']:8.4f} {m['C']:8.4f} "
            f"{m['final']:8.4f}"
        )
    print("\nper model:")
    for m in api["methods"]:
        for model, s in m["per_model"].items():
            print(
                f"      {m['method']:<20} {model:<8} {s['A']:8.4f} {s['B']:8.4f} "
                f"{s['C']:8.4f} {s['final']:8.4f}"
            )


def score_main(args: list[str]) -> int:
    ns = _score_parser().parse_args(args)
    try:
        policy = load_policy(ns.policy)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not ns.folder.is_dir():
        print(
            f"error: {ns.folder}: not a folder; fix: pass the folder holding the ZIPs",
            file=sys.stderr,
        )
        return 2
    subs, problems = load_folder(ns.folder, policy)
    for line in problems:
        print(f"skipped: {line}", file=sys.stderr)
    if not subs:
        print(f"error: {ns.folder}: no valid submission ZIP; fix: see docs/fl.md", file=sys.stderr)
        return 1
    result = scoring.score(subs, policy)
    if ns.json:
        print(json.dumps(scoring.to_api(result) | {"skipped": problems}, indent=2))
    else:
        _print_table(result)
    return 1 if problems else 0


def run_main(args: list[str]) -> int:
    ns = _run_parser().parse_args(args)
    if ns.ray is not None or ns.results is not None:
        from analytics.fl import distributed

        return distributed.run_main(ns)
    started = time.perf_counter()

    def progress(msg: str) -> None:
        if not ns.quiet:
            print(f"[{time.perf_counter() - started:6.1f}s] {msg}", file=sys.stderr)

    subs = reference.build(ns.methods, ns.models, ns.datasets, ns.perturbations, ns.seed, progress)
    written = reference.write(subs, ns.out)
    if "Centralized" in ns.methods:
        reference.write_policy(reference.derive_policy(subs, ns.seed), ns.out / "policy.json")
    print(f"wrote {len(written)} ZIPs to {ns.out} in {time.perf_counter() - started:.1f}s")
    return 0


def main(argv: list[str]) -> int:
    """Dispatch ``fl-score`` / ``fl-run`` (argv[0] is the command name)."""
    if not argv or argv[0] not in {"fl-score", "fl-run"}:
        print("error: expected fl-score or fl-run", file=sys.stderr)
        return 2
    return score_main(argv[1:]) if argv[0] == "fl-score" else run_main(argv[1:])
