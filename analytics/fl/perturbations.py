"""Federated setups: the nominal one and the eight registered perturbations of Protocol C.

A ``Setup`` fixes how a task's training split is spread over clients and how clients behave;
each perturbation changes one thing. The client data split is non-IID over labels: each
client's label proportions are drawn from Dirichlet(alpha) over the classes (the scheme of Hsu et
al. 2019, "Measuring the effects of non-identical data distribution"), with equal client sizes.
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
    n_clients: int = 100
    rounds: int = 20
    clients_per_round: int = 10
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
    "fewer_clients": replace(NOMINAL_SETUP, n_clients=20, clients_per_round=2),
    "quantity_skew": replace(NOMINAL_SETUP, quantity_alpha=0.5),
    "feature_noise": replace(NOMINAL_SETUP, feature_noise_std=0.5),
}


def training_groups(conditions: list[str]) -> list[list[str]]:
    """Conditions grouped by what they train (order kept): stragglers and a bandwidth drop change
    only devices and networks, so they share the nominal run's training and only cost more."""
    groups: dict[Setup, list[str]] = {}
    for condition in conditions:
        key = replace(setup_for(condition), straggler_fraction=0.0, network=None)
        groups.setdefault(key, []).append(condition)
    return list(groups.values())


def setup_for(condition: str) -> Setup:
    """The setup of a run condition ('nominal' or a registered perturbation)."""
    if condition == "nominal":
        return NOMINAL_SETUP
    if condition not in PERTURBATIONS:
        raise ValueError(
            f"unknown condition {condition!r}; fix: use nominal or {list(PERTURBATIONS)}"
        )
    return PERTURBATIONS[condition]


def dirichlet_label_split(
    y: np.ndarray, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """Equal-size clients whose label proportions are Dirichlet(alpha) draws (Hsu et al. 2019).

    Each client asks for a multinomial draw of its size from its proportions; a class that has
    run out is made up from the classes with the most left, so every sample is used at most once
    and no client is ever too small (no retries).
    """
    classes = np.unique(y)
    pools = [rng.permutation(np.flatnonzero(y == c)) for c in classes]
    used = np.zeros(len(classes), dtype=np.int64)
    size = len(y) // n_clients
    parts = []
    for _ in range(n_clients):
        left = np.array([len(pool) for pool in pools]) - used
        taken = np.minimum(rng.multinomial(size, rng.dirichlet([alpha] * len(classes))), left)
        for _ in range(size - int(taken.sum())):
            taken[int(np.argmax(left - taken))] += 1
        chunk = [pools[k][used[k] : used[k] + t] for k, t in enumerate(taken)]
        used += taken
        parts.append(np.sort(np.concatenate(chunk).astype(np.int64)))
    return parts


def quantity_split(
    n: int, n_clients: int, alpha: float, rng: np.random.Generator
) -> list[np.ndarray]:
    """IID labels; each client gets MIN_CLIENT_SAMPLES, the rest is shared by Dirichlet(alpha)
    proportions (no retries)."""
    idx = rng.permutation(n)
    rest = n - MIN_CLIENT_SAMPLES * n_clients
    if rest < 0:
        raise ValueError(f"cannot give {n_clients} clients >= {MIN_CLIENT_SAMPLES} samples each")
    extra = np.floor(rng.dirichlet([alpha] * n_clients) * rest).astype(int)
    sizes = extra + MIN_CLIENT_SAMPLES
    cuts = np.cumsum(sizes)[:-1]
    return [np.sort(c) for c in np.split(idx[: int(sizes.sum())], cuts)]


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
