"""Our reference runs: a seeded federated runner in torch on CPU.

Methods (federated, ranked): FedAvg (McMahan et al. 2017); FedProx (Li et al. 2020, proximal
term mu/2 ||w - w_g||^2 in the client loss); FedAvgM (Hsu et al. 2019, server momentum on the
averaged update); FedAdagrad, FedAdam and FedYogi (Reddi et al. 2021, "Adaptive Federated
Optimization", Algorithm 2: an adaptive server optimiser on the pseudo-gradient); SCAFFOLD
(Karimireddy et al. 2020, control variates, option II). References, never ranked: Local Only
(each client trains alone; the mean accuracy of a fixed sample of client models) and Centralized
(all training data on one device, one epoch per checkpoint).

Models: 'cnn' (LeNet-5: two 5x5 convolutions with max pooling, then 120-84 dense layers; LeCun
et al. 1998) and 'mlp' (McMahan et al.'s 2NN: two hidden layers of 200 ReLU units).

Every run writes a workload log (per round and participating client) and its checkpoints; the
checkpoint costs come from the common simulator. Runs are float32, single-threaded, seeded and use
torch's deterministic algorithms, so the same code, seed and CPU give the same bytes.
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
    training_groups,
)
from analytics.fl.submission import Run
from analytics.fl.training import (
    CENTRAL_EPOCHS,
    LEARNING_RATE,
    LOCAL_ONLY_CLIENTS,
    LOCAL_ONLY_EVAL_EVERY,
    LOCAL_TRAINING,
)

FED_METHODS = ("FedAvg", "FedProx", "FedAvgM", "FedAdagrad", "FedAdam", "FedYogi", "SCAFFOLD")
REFERENCE_METHODS = ("Local Only", "Centralized")
METHODS = FED_METHODS + REFERENCE_METHODS
MODELS = ("cnn", "mlp")
SEEDS = (2026, 2027, 2028)  # every reference run is made with each; the first is the submission
BASE_SEED = SEEDS[0]
HIDDEN_UNITS = 200  # 2NN of McMahan et al. 2017
PROX_MU = 1.0  # FedProx; the top of Li et al.'s grid {0.001, 0.01, 0.1, 1}: each local step
# pulls the weights back by lr x mu = 5 % of their drift, enough to change the runs (docs/fl.md)
SERVER_MOMENTUM = {"lr": 1.0, "beta": 0.9}  # FedAvgM (Hsu et al. 2019)
# Adaptive server optimisers (Reddi et al. 2021): server lr eta, betas, adaptivity tau.
SERVER_OPT = {"lr": 0.01, "beta1": 0.9, "beta2": 0.99, "tau": 1e-3}
SERVER_ADAGRAD_LR = 0.1  # Adagrad's sum of squares only grows: a larger eta (their grid)
BYTES_PER_VALUE = 4  # float32 weights, as sent and held on the simulated devices
LOSS_DECIMALS = 8
PROFILE_STREAM = 1  # device draws use their own stream: they never change training
CENTRAL_PROFILE = ("rpi5_8gb", "wifi_bg")


class LeNet5(nn.Module):
    """LeNet-5 (LeCun et al. 1998) with ReLU and max pooling; images smaller than 16 px get a
    padded second convolution so that 8x8 digits still fit."""

    def __init__(self, shape: tuple[int, int, int], n_classes: int):
        super().__init__()
        channels, side, _ = shape
        pad2 = 0 if side >= 16 else 2
        self.features = nn.Sequential(
            nn.Conv2d(channels, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5, padding=pad2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        )
        flat = self.features(torch.zeros(1, *shape)).shape[1]
        self.head = nn.Sequential(
            nn.Linear(flat, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, n_classes)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def build_model(kind: str, shape: tuple[int, int, int], n_classes: int) -> nn.Module:
    """'cnn' (LeNet-5) or 'mlp' (2NN), float32, initialised from torch's current seed."""
    if kind == "cnn":
        return LeNet5(shape, n_classes)
    if kind == "mlp":
        return nn.Sequential(
            nn.Flatten(),
            nn.Linear(int(np.prod(shape)), HIDDEN_UNITS), nn.ReLU(),
            nn.Linear(HIDDEN_UNITS, HIDDEN_UNITS), nn.ReLU(),
            nn.Linear(HIDDEN_UNITS, n_classes),
        )
    raise ValueError(f"unknown model {kind!r}; fix: use one of {MODELS}")


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


@dataclass(frozen=True)
class Profile:
    """Per-sample forward multiply-accumulates and activation values of a model."""

    forward_macs: int
    activations: int


def profile(model: nn.Module, shape: tuple[int, int, int]) -> Profile:
    """Count a forward pass of one sample: conv MACs = output elements x (in/groups) x k x k,
    dense MACs = in x out; activations = every layer output's elements."""
    counts = {"macs": 0, "acts": 0}

    def hook(module: nn.Module, _inp, out: torch.Tensor) -> None:
        counts["acts"] += out[0].numel()
        if isinstance(module, nn.Conv2d):
            k = module.kernel_size[0] * module.kernel_size[1]
            counts["macs"] += out[0].numel() * module.in_channels // module.groups * k
        elif isinstance(module, nn.Linear):
            counts["macs"] += module.in_features * module.out_features

    leaves = [m for m in model.modules() if not list(m.children())]
    handles = [m.register_forward_hook(hook) for m in leaves]
    try:
        with torch.no_grad():
            model(torch.zeros(1, *shape))
    finally:
        for h in handles:
            h.remove()
    return Profile(counts["macs"], counts["acts"])


def evaluate(model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """Accuracy (correct / n) and mean cross-entropy on the evaluation sample (loss rounded)."""
    correct, loss_sum = 0, 0.0
    with torch.no_grad():
        for start in range(0, len(y), 1000):
            logits = model(x[start : start + 1000])
            target = y[start : start + 1000]
            loss_sum += float(nn.functional.cross_entropy(logits, target, reduction="sum"))
            correct += int((logits.argmax(dim=1) == target).sum())
    return correct / len(y), round(loss_sum / len(y), LOSS_DECIMALS)


def local_sgd(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    fed: Federation,
    anchor: list[torch.Tensor] | None = None,
    correction: list[torch.Tensor] | None = None,
    epochs: int | None = None,
    mu: float = PROX_MU,
) -> int:
    """Minibatch SGD (the dataset's B and E); ``anchor``: FedProx's proximal term (weight
    ``mu``); ``correction``: SCAFFOLD's c - c_i added to every gradient. Returns the steps."""
    opt = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    steps = 0
    for _ in range(fed.epochs if epochs is None else epochs):
        order = torch.randperm(len(y), generator=fed.gen)
        for start in range(0, len(y), fed.batch_size):
            idx = order[start : start + fed.batch_size]
            loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
            if anchor is not None:
                prox = sum(
                    ((p - a) ** 2).sum() for p, a in zip(model.parameters(), anchor, strict=True)
                )
                loss = loss + mu / 2 * prox
            opt.zero_grad()
            loss.backward()
            if correction is not None:
                for p, c in zip(model.parameters(), correction, strict=True):
                    p.grad.add_(c)
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
    rng: np.random.Generator
    gen: torch.Generator
    x_test: torch.Tensor
    y_test: torch.Tensor
    cost: Profile

    @property
    def batch_size(self) -> int:
        return LOCAL_TRAINING[self.task.name][0]

    @property
    def epochs(self) -> int:
        return LOCAL_TRAINING[self.task.name][1]


def make_federation(kind: str, dataset: str, condition: str, seed: int) -> Federation:
    """Split, perturb and profile the clients of one run (all draws from ``seed``)."""
    task, setup = load_task(dataset), setup_for(condition)
    rng = np.random.default_rng(seed)
    if setup.quantity_alpha is not None:
        parts = quantity_split(len(task.y_train), setup.n_clients, setup.quantity_alpha, rng)
    else:
        parts = dirichlet_label_split(task.y_train, setup.n_clients, setup.alpha, rng)
    clients = []
    for idx in parts:
        x = noisy_features(task.x_train[idx], setup.feature_noise_std, rng).astype(np.float32)
        y = corrupt_labels(task.y_train[idx], setup.label_noise, task.n_classes, rng)
        clients.append((torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(y)))
    gen = torch.Generator().manual_seed(seed)
    probe = build_model(kind, task.image_shape, task.n_classes)
    return Federation(
        kind,
        task,
        setup,
        clients,
        rng,
        gen,
        torch.from_numpy(task.x_test),
        torch.from_numpy(task.y_test),
        profile(probe, task.image_shape),
    )


def _row(fed: Federation, rnd: int, client: int, flops: int, up: int, down: int, mem: int):
    """A workload row; ``client`` stays an index (-1: the central server) until profiled."""
    return {
        "round": rnd,
        "client": client,
        "flops": flops,
        "bytes_up": up,
        "bytes_down": down,
        "mem_bytes": mem,
    }


def profiled(rows: list[dict], profiles: list[tuple[str, str]]) -> list[dict]:
    """Workload rows with each client's name, device and network (the central server's fixed)."""
    out = []
    for row in rows:
        c = row["client"]
        device, network = profiles[c] if c >= 0 else CENTRAL_PROFILE
        name = f"c{c:03d}" if c >= 0 else "central"
        out.append(row | {"client": name, "device": device, "network": network})
    return out


def train_flops(
    fed: Federation,
    model: nn.Module,
    samples: int,
    steps: int,
    extra: int,
    epochs: int | None = None,
) -> int:
    """6 x forward MACs x samples x epochs (forward 2, backward 4 FLOPs per MAC), plus ``extra``
    FLOPs per parameter and step (FedProx's proximal gradient 4, SCAFFOLD's correction 2)."""
    passes = samples * (fed.epochs if epochs is None else epochs)
    return 6 * fed.cost.forward_macs * passes + extra * n_params(model) * steps


def mem_bytes(fed: Federation, model: nn.Module, copies: int) -> int:
    """``copies`` parameter-sized tensors (weights, gradients, and the method's extra state) plus
    one batch of activations, kept for the backward pass."""
    return BYTES_PER_VALUE * (n_params(model) * copies + fed.batch_size * fed.cost.activations)


def _vector(model: nn.Module) -> torch.Tensor:
    return nn.utils.parameters_to_vector(model.parameters()).detach().clone()


class ServerOptimizer:
    """The server step of each method on the weighted client average (Reddi et al. 2021, Alg. 2;
    FedAvgM: Hsu et al. 2019). FedAvg, FedProx and SCAFFOLD (global lr 1) take the average."""

    def __init__(self, method: str, size: int):
        self.method = method
        self.m = torch.zeros(size)
        self.v = torch.zeros(size)

    def step(self, weights: torch.Tensor, average: torch.Tensor) -> torch.Tensor:
        delta = average - weights
        if self.method == "FedAvgM":
            self.m = SERVER_MOMENTUM["beta"] * self.m + delta
            return weights + SERVER_MOMENTUM["lr"] * self.m
        if self.method not in ("FedAdagrad", "FedAdam", "FedYogi"):
            return average
        a = SERVER_OPT
        self.m = a["beta1"] * self.m + (1 - a["beta1"]) * delta
        sq = delta**2
        if self.method == "FedAdagrad":
            self.v = self.v + sq
        elif self.method == "FedAdam":
            self.v = a["beta2"] * self.v + (1 - a["beta2"]) * sq
        else:  # FedYogi
            self.v = self.v - (1 - a["beta2"]) * sq * torch.sign(self.v - sq)
        lr = SERVER_ADAGRAD_LR if self.method == "FedAdagrad" else a["lr"]
        return weights + lr * self.m / (self.v.sqrt() + a["tau"])


@dataclass
class Scaffold:
    """SCAFFOLD's control variates: the server's c and each client's c_i (flat vectors)."""

    c: torch.Tensor
    clients: dict[int, torch.Tensor]

    def client(self, c: int) -> torch.Tensor:
        return self.clients.get(c, torch.zeros_like(self.c))


def _shapes(model: nn.Module, flat: torch.Tensor) -> list[torch.Tensor]:
    out, at = [], 0
    for p in model.parameters():
        out.append(flat[at : at + p.numel()].view_as(p))
        at += p.numel()
    return out


def _client_round(fed, glob, method, rnd, c, rows, scaffold) -> tuple | None:
    """One selected client's round: its workload row and (samples, weights, control delta)."""
    x, y = fed.clients[c]
    factor = 2 if scaffold is not None else 1  # SCAFFOLD sends c with x and returns delta c_i
    model_bytes = factor * BYTES_PER_VALUE * n_params(glob)
    if fed.rng.random() < fed.setup.dropout_p:
        rows.append(_row(fed, rnd, c, 0, 0, model_bytes, 0))
        return None
    local = copy.deepcopy(glob)
    anchor = [p.detach().clone() for p in glob.parameters()] if method == "FedProx" else None
    correction = None
    if scaffold is not None:
        correction = _shapes(glob, scaffold.c - scaffold.client(c))
    steps = local_sgd(local, x, y, fed, anchor, correction)
    extra = 4 if anchor is not None else 2 if scaffold is not None else 0
    copies = 3 if anchor is not None else 4 if scaffold is not None else 2
    flops = train_flops(fed, glob, len(y), steps, extra)
    rows.append(_row(fed, rnd, c, flops, model_bytes, model_bytes, mem_bytes(fed, glob, copies)))
    weights = _vector(local)
    delta_c = None
    if scaffold is not None:  # option II: c_i+ = c_i - c + (x - y_i) / (K lr)
        old = scaffold.client(c)
        new = old - scaffold.c + (_vector(glob) - weights) / (steps * LEARNING_RATE)
        scaffold.clients[c] = new
        delta_c = new - old
    return len(y), weights, delta_c


def _federated(fed: Federation, method: str) -> tuple[list[dict], list[dict]]:
    glob = build_model(fed.kind, fed.task.image_shape, fed.task.n_classes)
    size = n_params(glob)
    server = ServerOptimizer(method, size)
    scaffold = Scaffold(torch.zeros(size), {}) if method == "SCAFFOLD" else None
    rows, points = [], []
    for rnd in range(1, fed.setup.rounds + 1):
        chosen = np.sort(fed.rng.choice(fed.setup.n_clients, fed.setup.clients_per_round, False))
        updates = [_client_round(fed, glob, method, rnd, int(c), rows, scaffold) for c in chosen]
        updates = [u for u in updates if u is not None]
        if updates:
            total = sum(n for n, _, _ in updates)
            average = sum(w * (n / total) for n, w, _ in updates)
            new = server.step(_vector(glob), average)
            nn.utils.vector_to_parameters(new, glob.parameters())
            if scaffold is not None:
                mean_dc = sum(dc for _, _, dc in updates) / len(updates)
                scaffold.c = scaffold.c + mean_dc * (len(updates) / fed.setup.n_clients)
        acc, loss = evaluate(glob, fed.x_test, fed.y_test)
        points.append({"step": rnd, "accuracy": acc, "loss": loss})
    return rows, points


def _local_only(fed: Federation) -> tuple[list[dict], list[dict]]:
    base = build_model(fed.kind, fed.task.image_shape, fed.task.n_classes)
    sample = range(min(LOCAL_ONLY_CLIENTS, len(fed.clients)))
    models = {c: copy.deepcopy(base) for c in sample}
    rows, points = [], []
    for rnd in range(1, fed.setup.rounds + 1):
        for c in sample:
            x, y = fed.clients[c]
            if fed.rng.random() < fed.setup.dropout_p:
                continue
            steps = local_sgd(models[c], x, y, fed)
            flops = train_flops(fed, base, len(y), steps, 0)
            rows.append(_row(fed, rnd, c, flops, 0, 0, mem_bytes(fed, base, 2)))
        if rnd % LOCAL_ONLY_EVAL_EVERY and rnd != fed.setup.rounds:
            continue
        scores = [evaluate(models[c], fed.x_test, fed.y_test) for c in sample]
        acc = sum(s[0] for s in scores) / len(scores)
        loss = round(sum(s[1] for s in scores) / len(scores), LOSS_DECIMALS)
        points.append({"step": rnd, "accuracy": acc, "loss": loss})
    return rows, points


def _centralized(fed: Federation) -> tuple[list[dict], list[dict]]:
    model = build_model(fed.kind, fed.task.image_shape, fed.task.n_classes)
    x = torch.cat([c[0] for c in fed.clients])
    y = torch.cat([c[1] for c in fed.clients])
    rows, points = [], []
    for epoch in range(1, CENTRAL_EPOCHS + 1):
        steps = local_sgd(model, x, y, fed, epochs=1)
        flops = train_flops(fed, model, len(y), steps, 0, epochs=1)
        rows.append(_row(fed, epoch, -1, flops, 0, 0, mem_bytes(fed, model, 2)))
        acc, loss = evaluate(model, fed.x_test, fed.y_test)
        points.append({"step": epoch, "accuracy": acc, "loss": loss})
    return rows, points


def _out_of_memory(workload: pd.DataFrame, profiles: simulator.Profiles) -> bool:
    limits = workload["device"].map(lambda d: profiles.devices[d].memory_bytes)
    known = limits.notna()
    return bool((workload.loc[known, "mem_bytes"] > limits[known].astype(float)).any())


def deterministic(seed: int) -> Callable[[], None]:
    """One thread, deterministic kernels, torch seeded; returns the undo."""
    threads = torch.get_num_threads()
    was = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(seed)

    def undo() -> None:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(was)

    return undo


def profile_rng(seed: int) -> np.random.Generator:
    """Device draws use their own stream, so they never change what is trained."""
    return np.random.default_rng([seed, PROFILE_STREAM])


def run_group(
    method: str, kind: str, dataset: str, conditions: list[str], seed: int = BASE_SEED
) -> dict[str, Run]:
    """Runs of conditions that train alike (``perturbations.training_groups``): trained once,
    then each condition's devices and networks are applied to the workload."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; fix: use one of {METHODS}")
    if kind not in MODELS:
        raise ValueError(f"unknown model {kind!r}; fix: use one of {MODELS}")
    if len(training_groups(conditions)) != 1:
        raise ValueError(f"{conditions} do not train alike; fix: use perturbations.training_groups")
    undo = deterministic(seed)
    try:
        fed = make_federation(kind, dataset, conditions[0], seed)
        if method == "Local Only":
            rows, points = _local_only(fed)
        elif method == "Centralized":
            rows, points = _centralized(fed)
        else:
            rows, points = _federated(fed, method)
    finally:
        undo()
    out = {}
    for condition in conditions:
        profiles = client_profiles(setup_for(condition), profile_rng(seed))
        out[condition] = finish(profiled(rows, profiles), points)
    return out


def run_one(method: str, kind: str, dataset: str, condition: str, seed: int = BASE_SEED) -> Run:
    """One seeded run: workload log, checkpoints and simulator costs (or an 'oom' status)."""
    return run_group(method, kind, dataset, [condition], seed)[condition]


def finish(rows: list[dict], points: list[dict]) -> Run:
    """A run from its workload rows and checkpoints: simulator costs added (or 'oom')."""
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
