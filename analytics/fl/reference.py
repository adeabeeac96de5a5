"""Build our reference submissions (``fl-run``) and derive our Protocol B targets from them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from analytics.core import atomic
from analytics.fl import runner, simulator
from analytics.fl.datasets import DATASETS
from analytics.fl.perturbations import PERTURBATIONS
from analytics.fl.policy import NOMINAL
from analytics.fl.scoring import best_checkpoint
from analytics.fl.submission import Run, Submission, submission_files, zip_bytes, zip_name

POLICY_ABOUT = (
    "Our policy for the reference runs. The Protocol B targets are OUR levels, not a paper's: "
    "for each model and dataset, 80 %, 90 % and 95 % of the best test accuracy of our Centralized "
    "reference run (seed {seed}), floored to two decimals (analytics.fl.runner.target_levels)."
)


def build(
    methods: Iterable[str] = runner.METHODS,
    models: Iterable[str] = runner.MODELS,
    datasets: Iterable[str] = DATASETS,
    perturbations: Iterable[str] = tuple(PERTURBATIONS),
    seed: int = runner.BASE_SEED,
    progress: Callable[[str], None] | None = None,
) -> list[Submission]:
    """Run and package: A and B share the nominal runs; C adds the perturbed runs."""
    subs: list[Submission] = []
    for model in models:
        for method in methods:
            nominal: dict[tuple[str, str], Run] = {}
            perturbed: dict[tuple[str, str], Run] = {}
            for dataset in datasets:
                if progress:
                    progress(f"{model} {method} {dataset}")
                nominal[(dataset, NOMINAL)] = runner.run_one(method, model, dataset, NOMINAL, seed)
                if method == "Centralized":
                    continue  # Centralized takes part in A/B only (seed 001)
                for pert in perturbations:
                    perturbed[(dataset, pert)] = runner.run_one(method, model, dataset, pert, seed)
            version = simulator.SIMULATOR_VERSION
            for protocol in ("A", "B"):
                subs.append(Submission(protocol, model, method, version, seed, dict(nominal)))
            if method != "Centralized":
                subs.append(Submission("C", model, method, version, seed, nominal | perturbed))
    return subs


def derive_policy(subs: list[Submission], seed: int = runner.BASE_SEED) -> dict:
    """Our policy JSON: registry names plus targets from the Centralized Protocol A runs."""
    central = {s.model: s for s in subs if s.method == "Centralized" and s.protocol == "A"}
    models = sorted({s.model for s in subs})
    datasets = sorted({d for s in subs for d, _ in s.runs})
    perts = sorted({c for s in subs for _, c in s.runs if c != NOMINAL})
    targets: dict[str, dict[str, list[float]]] = {}
    for model in models:
        if model not in central:
            raise ValueError(f"no Centralized run for model {model!r}; fix: include Centralized")
        targets[model] = {}
        for dataset in datasets:
            run = central[model].runs[(dataset, NOMINAL)]
            best = float(best_checkpoint(run.checkpoints)["accuracy"])
            targets[model][dataset] = runner.target_levels(best)
    return {
        "about": POLICY_ABOUT.format(seed=seed),
        "models": models,
        "datasets": [d for d in DATASETS if d in datasets],
        "perturbations": [p for p in PERTURBATIONS if p in perts],
        "targets": targets,
        "reference_methods": list(runner.REFERENCE_METHODS),
    }


def write(subs: list[Submission], out_dir: Path) -> list[Path]:
    """Write each submission as a deterministic ZIP, atomically."""
    written = []
    for sub in subs:
        path = out_dir / zip_name(sub)
        atomic.write_bytes(path, zip_bytes(submission_files(sub)))
        written.append(path)
    return written


def write_policy(policy: dict, path: Path) -> None:
    atomic.write_json(path, policy, indent=2, allow_nan=True)
