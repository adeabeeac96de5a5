"""Our reference runs rebuild bit-for-bit from their seeds (a small subset is rerun here)."""

from __future__ import annotations

import zipfile

import pytest

from analytics.fl import reference, runner, store
from analytics.fl.policy import load_policy
from analytics.fl.submission import frame_to_csv

SUBSET = [
    ("A", "FedAvg", "linear", "iris", "nominal"),
    ("C", "FedProx", "mlp", "wine", "client_dropout"),
    ("C", "FedAdam", "linear", "synth_moons", "stragglers"),
    ("C", "Local Only", "linear", "iris", "label_noise"),
    ("B", "Centralized", "mlp", "iris", "nominal"),
]


def _member(protocol: str, method: str, model: str, name: str) -> bytes:
    path = store.reference_dir() / f"{protocol}_{model}_{method.replace(' ', '-')}.zip"
    with zipfile.ZipFile(path) as zf:
        return zf.read(name)


@pytest.mark.parametrize("protocol, method, model, dataset, condition", SUBSET)
def test_committed_run_rebuilds_bit_for_bit(protocol, method, model, dataset, condition):
    run = runner.run_one(method, model, dataset, condition)
    prefix = f"runs/{dataset}/{condition}/"
    assert frame_to_csv(run.checkpoints) == _member(
        protocol, method, model, prefix + "checkpoints.csv"
    )
    assert frame_to_csv(run.workload) == _member(protocol, method, model, prefix + "workload.csv")


def test_committed_targets_are_derived_from_our_centralized_runs():
    policy = load_policy()
    subs = reference.build(["Centralized"], ["linear"], ["iris"], [])
    derived = reference.derive_policy(subs)
    assert tuple(derived["targets"]["linear"]["iris"]) == policy.targets["linear"]["iris"]
    assert "OUR levels" in policy.about


def test_target_levels_are_floored_fractions():
    assert runner.target_levels(1.0) == [0.8, 0.9, 0.95]
    assert runner.target_levels(0.9473684) == [0.75, 0.85, 0.89]


def test_reference_set_is_complete():
    policy = load_policy()
    names = sorted(p.name for p in store.reference_dir().glob("*.zip"))
    assert len(names) == 28  # 2 models x (3 FL methods + Local Only) x A/B/C + Centralized A/B
    assert len(policy.datasets) == 7 and len(policy.perturbations) == 8


def test_unknown_method_and_model_name_the_fix():
    with pytest.raises(ValueError, match="fix: use one of"):
        runner.run_one("FedMagic", "linear", "iris", "nominal")
    with pytest.raises(ValueError, match="fix: use one of"):
        runner.build_model("cnn", 4, 3)
