"""Our reference runs rebuild bit-for-bit from their seeds (a small subset is rerun here), and
the runner's mechanisms (client split, methods, references) do what docs/fl.md says."""

from __future__ import annotations

import time
import zipfile

import numpy as np
import pytest
import torch

from analytics.fl import reference, runner, store
from analytics.fl.perturbations import dirichlet_label_split, quantity_split, training_groups
from analytics.fl.policy import load_policy
from analytics.fl.submission import frame_to_csv

# (protocol, method, model, dataset, condition, seed): one per method family and seed, and
# a profile-only condition that shares the nominal training
SUBSET = [
    ("A", "FedAvg", "cnn", "digits", "nominal", 2026),
    ("C", "SCAFFOLD", "mlp", "digits", "client_dropout", 2026),
    ("C", "FedYogi", "cnn", "digits", "stragglers", 2027),
    ("C", "Local Only", "mlp", "digits", "stronger_skew", 2028),
    ("B", "Centralized", "mlp", "digits", "nominal", 2027),
]


def _member(protocol: str, method: str, model: str, seed: int, name: str) -> bytes:
    folder = reference.out_dir(store.reference_dir(), seed, runner.SEEDS[0])
    if seed != runner.SEEDS[0]:
        folder = store.seed_dirs()[seed]
    path = folder / f"{protocol}_{model}_{method.replace(' ', '-')}.zip"
    with zipfile.ZipFile(path) as zf:
        return zf.read(name)


def test_committed_subset_rebuilds_bit_for_bit_within_a_minute():
    started = time.process_time()  # CPU time: a busy shared machine must not fail it
    for protocol, method, model, dataset, condition, seed in SUBSET:
        run = runner.run_one(method, model, dataset, condition, seed)
        prefix = f"runs/{dataset}/{condition}/"
        label = (protocol, method, model, condition, seed)
        want = _member(protocol, method, model, seed, prefix + "checkpoints.csv")
        assert frame_to_csv(run.checkpoints) == want, label
        want = _member(protocol, method, model, seed, prefix + "workload.csv")
        assert frame_to_csv(run.workload) == want, label
    assert time.process_time() - started < 60


def test_committed_targets_are_derived_from_our_centralized_runs():
    policy = load_policy()
    subs = reference.build(["Centralized"], ["mlp"], ["digits"], [])
    derived = reference.derive_policy(subs)
    assert tuple(derived["targets"]["mlp"]["digits"]) == policy.targets["mlp"]["digits"]
    assert "OUR levels" in policy.about


def test_target_levels_are_floored_fractions():
    assert runner.target_levels(1.0) == [0.8, 0.9, 0.95]
    assert runner.target_levels(0.9473684) == [0.75, 0.85, 0.89]


def test_reference_set_is_complete_for_every_seed():
    policy = load_policy()
    ranked = len(runner.FED_METHODS) + 1  # Local Only has A, B and C too
    want = len(policy.models) * (3 * ranked + 2)  # Centralized: A and B
    names = sorted(p.name for p in store.reference_dir().glob("*.zip"))
    assert len(names) == want
    assert sorted(store.seed_dirs()) == list(runner.SEEDS[1:])
    for folder in store.seed_dirs().values():
        assert sorted(p.name for p in folder.glob("*.zip")) == names
    assert {"fashion_mnist", "mnist"} <= set(policy.datasets) or "digits" in policy.datasets
    assert len(runner.FED_METHODS) >= 6 and len(runner.SEEDS) >= 3


def test_unknown_method_and_model_name_the_fix():
    with pytest.raises(ValueError, match="fix: use one of"):
        runner.run_one("FedMagic", "cnn", "digits", "nominal")
    with pytest.raises(ValueError, match="fix: use one of"):
        runner.run_one("FedAvg", "linear", "digits", "nominal")


def test_a_run_leaves_torch_settings_as_it_found_them():
    threads = torch.get_num_threads()
    runner.run_one("Centralized", "mlp", "digits", "nominal")
    assert torch.get_num_threads() == threads
    assert not torch.are_deterministic_algorithms_enabled()


def test_label_split_gives_equal_disjoint_clients_and_skews_labels():
    y = np.repeat(np.arange(10), 600)
    parts = dirichlet_label_split(y, 100, 0.5, np.random.default_rng(0))
    assert [len(p) for p in parts] == [60] * 100
    assert len(np.unique(np.concatenate(parts))) == 6000  # every sample at most once
    dominant = np.mean([np.bincount(y[p], minlength=10).max() / 60 for p in parts])
    assert dominant > 0.3  # iid would be about 0.17
    strong = dirichlet_label_split(y, 100, 0.1, np.random.default_rng(0))
    assert np.mean([np.bincount(y[p], minlength=10).max() / 60 for p in strong]) > dominant


def test_quantity_split_never_leaves_a_client_too_small():
    parts = quantity_split(1347, 100, 0.5, np.random.default_rng(3))
    assert min(len(p) for p in parts) >= 2 and len(parts) == 100


def test_profile_only_conditions_share_the_nominal_training():
    groups = training_groups(["nominal", "client_dropout", "stragglers", "bandwidth_drop"])
    assert groups == [["nominal", "stragglers", "bandwidth_drop"], ["client_dropout"]]
    runs = runner.run_group("FedAvg", "mlp", "digits", groups[0], 2026)
    alone = runner.run_one("FedAvg", "mlp", "digits", "stragglers", 2026)
    assert runs["stragglers"].checkpoints.equals(alone.checkpoints)
    nominal, slow = runs["nominal"].checkpoints, runs["stragglers"].checkpoints
    assert nominal["accuracy"].equals(slow["accuracy"])
    assert (slow["time_s"] > nominal["time_s"]).all()  # only the devices changed


@pytest.mark.parametrize("method", ["FedProx", "FedAvgM", "FedAdam", "FedYogi", "SCAFFOLD"])
def test_each_method_trains_differently_from_fedavg(method):
    base = runner.run_one("FedAvg", "mlp", "digits", "nominal", 2026).checkpoints
    other = runner.run_one(method, "mlp", "digits", "nominal", 2026).checkpoints
    assert not base["loss"].equals(other["loss"])


def test_scaffold_sends_twice_the_bytes_and_local_only_uses_its_fixed_clients():
    fedavg = runner.run_one("FedAvg", "mlp", "digits", "nominal").workload
    scaffold = runner.run_one("SCAFFOLD", "mlp", "digits", "nominal").workload
    assert scaffold["bytes_up"].sum() == 2 * fedavg["bytes_up"].sum()
    local = runner.run_one("Local Only", "mlp", "digits", "nominal")
    clients = {f"c{i:03d}" for i in range(runner.LOCAL_ONLY_CLIENTS)}
    assert set(local.workload["client"]) == clients
    assert local.checkpoints["step"].tolist() == [5, 10, 15, 20]
