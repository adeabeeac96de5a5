"""Our reference runs: a small, seeded federated runner in torch on CPU.

Methods: FedAvg (McMahan et al. 2017), FedProx (Li et al. 2020, proximal term mu/2 ||w - w_g||^2),
FedAdam (Reddi et al. 2021, Adam on the server's pseudo-gradient), and the references Local Only
(each client alone; mean accuracy of the client models) and Centralized (all training data on one
device). Models: 'linear' (multinomial logistic regression) and 'mlp' (one hidden layer).

Every run writes a workload log (per round and participating client) and its checkpoints; the
checkpoint costs come from the common simulator. Runs are single-threaded, float64 and seeded, so
the same code and seed give the same bytes.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import nn

from analytics.fl import simulator
from analytics.fl.datasets import Task, load_task
from analytics.fl.perturbations import (
    Setup,
    client_profiles,
    corrupt_labels,
    dirichlet_label_split,
    noisy_features,
    quantity_split,
    setup_for,
)
from analytics.fl.submission import Run

FED_METHODS = ("FedAvg", "FedProx", "FedAdam")
REFERENCE_METHODS = ("Local Only", "Centralized")
METHODS = FED_METHODS + REFERENCE_METHODS
MODELS = ("linear", "mlp")
BASE_SEED = 2026
HIDDEN_UNITS = 32
LEARNING_RATE = 0.1
BATCH_SIZE = 16
LOCAL_EPOCHS = 1
PROX_MU = 0.01
SERVER_ADAM = {"lr": 0.05, "beta1": 0.9, "beta2": 0.99, "tau": 1e-3}
BYTES_PER_VALUE = 4  # updates travel and live as float32 on the simulated devices
LOSS_DECIMALS = 8
CENTRAL_PROFILE = ("rpi5_8gb", "wifi_bg")


def build_model(kind: str, n_features: int, n_classes: int) -> nn.Module:
    """'linear' (logistic regression) or 'mlp' (one ReLU hidden layer), float64."""
    if kind == "linear":
        net: nn.Module = nn.Linear(n_features, n_classes)
    elif kind == "mlp":
        net = nn.Sequential(
            nn.Linear(n_features, HIDDEN_UNITS), nn.ReLU(), nn.Linear(HIDDEN_UNITS, n_classes)
        )
    else:
        raise ValueError(f"unknown model {kind!r}; fix: use one of {MODELS}")
    return net.double()


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def _activation_width(kind: str, task: Task) -> int:
    hidden = HIDDEN_UNITS if kind == "mlp" else 0
    return task.n_features + hidden + task.n_classes


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """Test accuracy (correct / n) and mean cross-entropy, rounded to LOSS_DECIMALS."""
    with torch.no_grad():
        logits = model(x)
        loss = float(nn.functional.cross_entropy(logits, y))
        correct = int((logits.argmax(dim=1) == y).sum())
    return correct / len(y), round(loss, LOSS_DECIMALS)


def local_sgd(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    gen: torch.Generator,
    anchor: list[torch.Tensor] | None = None,
) -> int:
    """LOCAL_EPOCHS of minibatch SGD; with ``anchor``, FedProx's proximal term. Returns steps."""
    opt = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    steps = 0
    for _ in range(LOCAL_EPOCHS):
        order = torch.randperm(len(y), generator=gen)
        for start in range(0, len(y), BATCH_SIZE):
            idx = order[start : start + BATCH_SIZE]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            if anchor is not None:
                prox = sum(
                    ((p - a) ** 2).sum() for p, a in zip(model.parameters(), anchor, strict=True)
                )
                loss = loss + PROX_MU / 2 * prox
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
    return steps


@dataclass
class Federation:
    """A task spread over clients under one setup."""

    kind: str
    task: Task
    setup: Setup
    clients: list[tuple[torch.Tensor, torch.Tensor]]
    profiles: list[tuple[str, str]]
    rng: np.random.Generator
    gen: torch.Generator
    x_test: torch.Tensor
    y_test: torch.Tensor


def make_federation(kind: str, dataset: str, condition: str, seed: int) -> Federation:
    """Split, perturb and profile the clients of one run (all draws from ``seed``)."""
    task, setup = load_task(dataset, seed), setup_for(condition)
    rng = np.random.default_rng(seed)
    if setup.quantity_alpha is not None:
        parts = quantity_split(len(task.y_train), setup.n_clients, setup.quantity_alpha, rng)
    else:
        parts = dirichlet_label_split(task.y_train, setup.n_clients, setup.alpha, rng)
    clients = []
    for idx in parts:
        x = noisy_features(task.x_train[idx], setup.feature_noise_std, rng)
        y = corrupt_labels(task.y_train[idx], setup.label_noise, task.n_classes, rng)
        clients.append((torch.tensor(x, dtype=torch.float64), torch.tensor(y)))
    gen = torch.Generator().manual_seed(seed)
    return Federation(
        kind,
        task,
        setup,
        clients,
        client_profiles(setup, rng),
        rng,
        gen,
        torch.tensor(task.x_test, dtype=torch.float64),
        torch.tensor(task.y_test),
    )


def _row(fed: Federation, rnd: int, client: int, flops: int, up: int, down: int, mem: int):
    device, network = fed.profiles[client] if client >= 0 else CENTRAL_PROFILE
    name = f"c{client:02d}" if client >= 0 else "central"
    return {
        "round": rnd,
        "client": name,
        "device": device,
        "network": network,
        "flops": flops,
        "bytes_up": up,
        "bytes_down": down,
        "mem_bytes": mem,
    }


def _train_flops(model: nn.Module, samples: int, steps: int, prox: bool) -> int:
    """6 x params x samples (forward 2, backward 4), plus 4 x params per step for FedProx."""
    p = n_params(model)
    return 6 * p * samples * LOCAL_EPOCHS + (4 * p * steps if prox else 0)


def _mem_bytes(fed: Federation, model: nn.Module, copies: int) -> int:
    """Weights, gradients (and FedProx's anchor) plus one batch of activations."""
    act = BATCH_SIZE * _activation_width(fed.kind, fed.task)
    return BYTES_PER_VALUE * (n_params(model) * copies + act)


class _ServerAdam:
    """FedAdam server step on the pseudo-gradient (Reddi et al. 2021, Algorithm 2)."""

    def __init__(self, size: int):
        self.m = torch.zeros(size, dtype=torch.float64)
        self.v = torch.zeros(size, dtype=torch.float64)

    def step(self, weights: torch.Tensor, average: torch.Tensor) -> torch.Tensor:
        delta = average - weights
        a = SERVER_ADAM
        self.m = a["beta1"] * self.m + (1 - a["beta1"]) * delta
        self.v = a["beta2"] * self.v + (1 - a["beta2"]) * delta**2
        return weights + a["lr"] * self.m / (self.v.sqrt() + a["tau"])


def _client_round(fed, glob, method, rnd, c, rows) -> tuple[int, torch.Tensor] | None:
    """One selected client's round: its workload row and (samples, new weights) or None."""
    x, y = fed.clients[c]
    model_bytes = BYTES_PER_VALUE * n_params(glob)
    if fed.rng.random() < fed.setup.dropout_p:
        rows.append(_row(fed, rnd, c, 0, 0, model_bytes, 0))
        return None
    local = copy.deepcopy(glob)
    anchor = [p.detach().clone() for p in glob.parameters()] if method == "FedProx" else None
    steps = local_sgd(local, x, y, fed.gen, anchor)
    flops = _train_flops(glob, len(y), steps, anchor is not None)
    mem = _mem_bytes(fed, glob, 3 if anchor is not None else 2)
    rows.append(_row(fed, rnd, c, flops, model_bytes, model_bytes, mem))
    return len(y), nn.utils.parameters_to_vector(local.parameters()).detach()


def _federated(fed: Federation, method: str) -> tuple[list[dict], list[dict]]:
    glob = build_model(fed.kind, fed.task.n_features, fed.task.n_classes)
    server = _ServerAdam(n_params(glob)) if method == "FedAdam" else None
    rows, points = [], []
    for rnd in range(1, fed.setup.rounds + 1):
        chosen = np.sort(fed.rng.choice(fed.setup.n_clients, fed.setup.clients_per_round, False))
        updates = [_client_round(fed, glob, method, rnd, int(c), rows) for c in chosen]
        updates = [u for u in updates if u is not None]
        if updates:
            total = sum(n for n, _ in updates)
            average = sum(w * (n / total) for n, w in updates)
            weights = nn.utils.parameters_to_vector(glob.parameters()).detach()
            new = server.step(weights, average) if server else average
            nn.utils.vector_to_parameters(new, glob.parameters())
        acc, loss = evaluate(glob, fed.x_test, fed.y_test)
        points.append({"step": rnd, "accuracy": acc, "loss": loss})
    return rows, points


def _local_only(fed: Federation) -> tuple[list[dict], list[dict]]:
    base = build_model(fed.kind, fed.task.n_features, fed.task.n_classes)
    models = [copy.deepcopy(base) for _ in fed.clients]
    rows, points = [], []
    for rnd in range(1, fed.setup.rounds + 1):
        for c, (x, y) in enumerate(fed.clients):
            if fed.rng.random() < fed.setup.dropout_p:
                continue
            steps = local_sgd(models[c], x, y, fed.gen)
            flops = _train_flops(base, len(y), steps, False)
            rows.append(_row(fed, rnd, c, flops, 0, 0, _mem_bytes(fed, base, 2)))
        scores = [evaluate(m, fed.x_test, fed.y_test) for m in models]
        acc = sum(s[0] for s in scores) / len(scores)
        loss = round(sum(s[1] for s in scores) / len(scores), LOSS_DECIMALS)
        points.append({"step": rnd, "accuracy": acc, "loss": loss})
    return rows, points


def _centralized(fed: Federation) -> tuple[list[dict], list[dict]]:
    model = build_model(fed.kind, fed.task.n_features, fed.task.n_classes)
    x = torch.cat([c[0] for c in fed.clients])
    y = torch.cat([c[1] for c in fed.clients])
    rows, points = [], []
    for rnd in range(1, fed.setup.rounds + 1):
        steps = local_sgd(model, x, y, fed.gen)
        flops = _train_flops(model, len(y), steps, False)
        rows.append(_row(fed, rnd, -1, flops, 0, 0, _mem_bytes(fed, model, 2)))
        acc, loss = evaluate(model, fed.x_test, fed.y_test)
        points.append({"step": rnd, "accuracy": acc, "loss": loss})
    return rows, points


def _out_of_memory(workload: pd.DataFrame, profiles: simulator.Profiles) -> bool:
    limits = workload["device"].map(lambda d: profiles.devices[d].memory_bytes)
    known = limits.notna()
    return bool((workload.loc[known, "mem_bytes"] > limits[known].astype(float)).any())


def run_one(method: str, kind: str, dataset: str, condition: str, seed: int = BASE_SEED) -> Run:
    """One seeded run: workload log, checkpoints and simulator costs (or an 'oom' status)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    try:
        fed = make_federation(kind, dataset, condition, seed)
        trainers: dict[str, Callable] = {
            "Local Only": _local_only,
            "Centralized": _centralized,
        }
        if method in FED_METHODS:
            rows, points = _federated(fed, method)
        elif method in trainers:
            rows, points = trainers[method](fed)
        else:
            raise ValueError(f"unknown method {method!r}; fix: use one of {METHODS}")
    finally:
        torch.set_num_threads(threads)
    return _finish(rows, points)


def _finish(rows: list[dict], points: list[dict]) -> Run:
    profiles = simulator.load_profiles()
    workload = pd.DataFrame(rows, columns=list(simulator.WORKLOAD_COLUMNS))
    if _out_of_memory(workload, profiles):
        return Run("oom")
    checkpoints = pd.DataFrame(points)
    costs = simulator.costs_at_steps(workload, checkpoints["step"].tolist(), profiles)
    for col in ("comm_bytes", "peak_mem_bytes"):
        costs[col] = costs[col].round().astype("int64")
    checkpoints = pd.concat([checkpoints, costs], axis=1)
    checkpoints["step"] = checkpoints["step"].astype("int64")
    return Run("ok", checkpoints, workload)


def target_levels(centralized_accuracy: float) -> list[float]:
    """Our Protocol B targets: 80/90/95 % of the Centralized reference's best accuracy, floored."""
    return [math.floor(100 * f * centralized_accuracy) / 100 for f in (0.80, 0.90, 0.95)]
