"""``python -m analytics fl-score DIR --policy FILE [--json]``, ``fl-run --out DIR [...]`` and
``fl-review list [--status S]``.

``fl-review`` only lists: accepting or rejecting an upload needs a signed-in maintainer, and the
credential check lives in ``measure.community.auth``, which ``analytics`` never imports; the
decision is made on the 'Submit to the ranked track' page (maintainer review).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from analytics.fl import reference, review, runner, scoring
from analytics.fl.datasets import DATASETS
from analytics.fl.perturbations import PERTURBATIONS
from analytics.fl.policy import load_policy
from analytics.fl.store import load_all, load_folder


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
    p.add_argument(
        "--seeds", nargs="+", type=int, default=list(runner.SEEDS),
        help="the first seed's ZIPs go to --out (scored), the others to --out/seeds/<seed>/",
    )
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
    policy = load_policy(ns.policy)  # a PolicyError: one line and exit 2 (dispatch.run)
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

    by_seed = {
        seed: reference.build(ns.methods, ns.models, ns.datasets, ns.perturbations, seed, progress)
        for seed in ns.seeds
    }
    written = reference.write_seeds(by_seed, ns.out, ns.seeds)
    print(f"wrote {len(written)} ZIPs to {ns.out} in {time.perf_counter() - started:.1f}s")
    return 0


def review_main(args: list[str]) -> int:
    """``fl-review list``: every stored upload with its review status (unverified first)."""
    p = argparse.ArgumentParser(prog="python -m analytics fl-review")
    sub = p.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="stored uploads and their review status")
    listing.add_argument("--status", choices=(review.UNVERIFIED, review.ACCEPTED, review.REJECTED))
    ns = p.parse_args(args)
    loaded = load_all(load_policy())  # a PolicyError: one line and exit 2 (dispatch.run)
    order = {review.UNVERIFIED: 0, review.ACCEPTED: 1, review.REJECTED: 2}
    uploads = sorted(loaded.uploads, key=lambda u: (order[u.state.status], u.state.zip))
    shown = [u for u in uploads if ns.status in (None, u.state.status)]
    for upload in shown:
        s, what = upload.state, upload.submission
        desc = f"{what.protocol} {what.model} {what.method}" if what else "(no longer valid)"
        by = f" by {s.decided_by} {s.decided_utc}" if s.decided_by else ""
        print(f"{s.status:<10} {s.zip}  {desc}  received {s.received_utc or '?'}{by}  {s.sha256}")
    if not shown:
        print(f"no {ns.status + ' ' if ns.status else ''}uploads in {review.uploads_dir()}")
    return 0


HANDLERS = {"fl-score": score_main, "fl-run": run_main, "fl-review": review_main}


def main(argv: list[str]) -> int:
    """Dispatch ``fl-score`` / ``fl-run`` / ``fl-review`` (argv[0] is the command name)."""
    if not argv or argv[0] not in HANDLERS:
        print("error: expected fl-score, fl-run or fl-review", file=sys.stderr)
        return 2
    return HANDLERS[argv[0]](argv[1:])
