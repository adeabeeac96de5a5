"""Federated setups: the nominal one and the eight registered perturbations of Protocol C.

A ``Setup`` fixes how a task's training split is spread over clients and how clients behave;
each perturbation changes one thing. The client data split is Dirichlet non-IID over labels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

MIN_CLIENT_SAMPLES = 2
DEVICE_CYCLE = ("rpi4", "rpi5_8gb")
NETWORK_CYCLE = ("wifi_bg", "wifi_bg", "hsdpa", "hsdpa")
STRAGGLER_DEVICE = "rpi_zero2w"


@dataclass(frozen=True)
class Setup:
    n_clients: int = 10
    rounds: int = 20
    clients_per_round: int = 5
    alpha: float = 0.5  # Dirichlet concentration of the label split (smaller = more skew)
    quantity_alpha: float | None = None  # Dirichlet over client sizes, labels IID, when set
    label_noise: float = 0.0  # fraction of training labels replaced at random
    feature_noise_std: float = 0.0  # Gaussian noise added to standardised training features
    dropout_p: float = 0.0  # chance a selected client returns no update in a round
    straggler_fraction: float = 0.0  # clients moved to the slowest device profile
    network: str | None = None  # one network profile for every client, when set


NOMINAL_SETUP = Setup()
PERTURBATIONS: dict[str, Setup] = {
    "client_dropout": replace(NOMINAL_SETUP, dropout_p=0.3),
    "stragglers": replace(NOMINAL_SETUP, straggler_fraction=0.3),
    "label_noise": replace(NOMINAL_SETUP, label_noise=0.2),
    "bandwidth_drop": replace(NOMINAL_SETUP, network="hsdpa_low"),
    "stronger_skew": replace(NOMINAL_SETUP, alpha=0.1),
    "fewer_clients": replace(NOMINAL_SETUP, n_clients=4, clients_per_round=2),
    "quantity_skew": replace(NOMINAL_SETUP, quantity_alpha=0.5),
    "feature_noise": replace(NOMINAL_SETUP, feature_noise_std=0.5),
}


def setup_for(condition: str) -> Setup:
    """The setup of a run condition ('nominal' or a registered perturbation)."""
    if condition == "nominal":
        return NOMINAL_SETUP
    if condition not in PERTURBATIONS:
        raise ValueError(
            f"unknown condition {condition!r}; fix: use nominal or {list(PERTURBATIONS)}"
        )
    return PERTURBATIONS[condition]


def _sizes_ok(parts: list[np.ndarray]) -> bool:
    return min(len(p) for p in parts) >= MIN_CLIENT_SAMPLES


def dirichlet_label_split(
    y: np.ndarray, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """Per class, share its indices over clients by Dirichlet(alpha) proportions (retry if tiny)."""
    for _ in range(200):
        parts: list[list[int]] = [[] for _ in range(n_clients)]
        for label in np.unique(y):
            idx = rng.permutation(np.flatnonzero(y == label))
            cuts = (np.cumsum(rng.dirichlet([alpha] * n_clients)) * len(idx)).astype(int)[:-1]
            for client, chunk in enumerate(np.split(idx, cuts)):
                parts[client].extend(chunk.tolist())
        arrays = [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]
        if _sizes_ok(arrays):
            return arrays
    raise ValueError(f"cannot give {n_clients} clients >= {MIN_CLIENT_SAMPLES} samples each")


def quantity_split(
    n: int, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """IID labels, client sizes by Dirichlet(alpha) proportions (retry if tiny)."""
    for _ in range(200):
        idx = rng.permutation(n)
        cuts = (np.cumsum(rng.dirichlet([alpha] * n_clients)) * n).astype(int)[:-1]
        arrays = [np.sort(c) for c in np.split(idx, cuts)]
        if _sizes_ok(arrays):
            return arrays
    raise ValueError(f"cannot give {n_clients} clients >= {MIN_CLIENT_SAMPLES} samples each")


def client_profiles(setup: Setup, rng: np.random.Generator) -> list[tuple[str, str]]:
    """(device, network) of each client: a fixed cycle, stragglers and network overrides applied."""
    devices = [DEVICE_CYCLE[i % len(DEVICE_CYCLE)] for i in range(setup.n_clients)]
    networks = [NETWORK_CYCLE[i % len(NETWORK_CYCLE)] for i in range(setup.n_clients)]
    n_slow = int(round(setup.straggler_fraction * setup.n_clients))
    for i in rng.choice(setup.n_clients, size=n_slow, replace=False) if n_slow else []:
        devices[int(i)] = STRAGGLER_DEVICE
    if setup.network:
        networks = [setup.network] * setup.n_clients
    return list(zip(devices, networks, strict=True))


def corrupt_labels(
    y: np.ndarray, fraction: float, n_classes: int, rng: np.random.Generator
) -> np.ndarray:
    """Replace a fraction of labels with uniformly drawn classes (may redraw the same class)."""
    if fraction <= 0:
        return y
    y = y.copy()
    chosen = rng.choice(len(y), size=int(round(fraction * len(y))), replace=False)
    y[chosen] = rng.integers(0, n_classes, size=len(chosen))
    return y


def noisy_features(x: np.ndarray, std: float, rng: np.random.Generator) -> np.ndarray:
    """Add N(0, std^2) noise to every training feature."""
    return x if std <= 0 else x + rng.normal(0.0, std, size=x.shape)
