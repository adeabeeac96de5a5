"""The Flower path: run a Flower strategy on our federation and write our submission ZIP.

A researcher who already has a Flower (``flwr``) strategy passes it in; each round we pick the
clients (seeded, with our runner's draws), train them in this process with our client loop, hand
Flower ``FitRes`` results to ``strategy.aggregate_fit``, and evaluate the aggregated model on the
same evaluation sample as our reference runs. Nothing is sent over a network and no Flower
simulation engine (Ray) is started, so the project's own Ray pin is untouched (docs/fl.md,
"The Flower path"). The workload log records the bytes of Flower's own serialised parameters
(down: the global model, up: each client's reply), so the simulator prices what Flower would send.

Example::

    from flwr.server.strategy import FedAdam
    from analytics.fl import flower
    init = flower.initial_parameters("cnn", "mnist")
    path = flower.write_submission(
        lambda: FedAdam(initial_parameters=init), "My-FedAdam", "A", "cnn", ["mnist"], "out/"
    )
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import torch
from flwr.common import (
    Code,
    FitRes,
    Parameters,
    Status,
    ndarrays_to_parameters,
    parameters_to_ndarrays,
)
from flwr.server.client_proxy import ClientProxy
from flwr.server.strategy import Strategy
from torch import nn

from analytics.fl import reference, runner, simulator
from analytics.fl.perturbations import client_profiles, setup_for
from analytics.fl.policy import NOMINAL, load_policy
from analytics.fl.submission import Run, Submission


class _InProcessClient(ClientProxy):
    """The identity a result carries: clients train in this process, so the strategy never
    calls one (``aggregate_fit`` only reads the results)."""

    def _unused(self, *_args, **_kwargs):
        raise RuntimeError(f"client {self.cid} runs in process; fix: use aggregate_fit only")

    get_properties = get_parameters = fit = evaluate = reconnect = _unused


def _weights(model: nn.Module) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in model.parameters()]


def _load(model: nn.Module, parameters: Parameters) -> None:
    arrays = parameters_to_ndarrays(parameters)
    with torch.no_grad():
        for p, a in zip(model.parameters(), arrays, strict=True):
            p.copy_(torch.from_numpy(np.asarray(a)))


def _size(parameters: Parameters) -> int:
    return sum(len(t) for t in parameters.tensors)


def initial_parameters(kind: str, dataset: str, seed: int = runner.BASE_SEED) -> Parameters:
    """The same initial model as our reference runs of this seed, as Flower parameters."""
    undo = runner.deterministic(seed)
    try:
        fed = runner.make_federation(kind, dataset, NOMINAL, seed)
        model = runner.build_model(kind, fed.task.image_shape, fed.task.n_classes)
    finally:
        undo()
    return ndarrays_to_parameters(_weights(model))


def _fit(fed, glob, params, strategy, rnd, c, rows) -> tuple | None:
    """One client's round: train from the global parameters; its FitRes, or None if it drops."""
    down = _size(params)
    if fed.rng.random() < fed.setup.dropout_p:
        rows.append({"round": rnd, "client": c, "flops": 0, "bytes_up": 0, "bytes_down": down,
                     "mem_bytes": 0})
        return None
    mu = getattr(strategy, "proximal_mu", None)  # Flower's FedProx sends mu to its clients
    local = runner.build_model(fed.kind, fed.task.image_shape, fed.task.n_classes)
    _load(local, params)
    anchor = [p.detach().clone() for p in local.parameters()] if mu else None
    x, y = fed.clients[c]
    steps = runner.local_sgd(local, x, y, fed, anchor, mu=mu or 0.0)
    reply = ndarrays_to_parameters(_weights(local))
    flops = runner.train_flops(fed, glob, len(y), steps, 4 if anchor else 0)
    mem = runner.mem_bytes(fed, glob, 3 if anchor else 2)
    rows.append({"round": rnd, "client": c, "flops": flops, "bytes_up": _size(reply),
                 "bytes_down": down, "mem_bytes": mem})
    status = Status(code=Code.OK, message="")
    return _InProcessClient(f"c{c:03d}"), FitRes(status, reply, len(y), {})


def run_strategy(
    strategy: Strategy,
    kind: str,
    dataset: str,
    condition: str = NOMINAL,
    seed: int = runner.BASE_SEED,
    rounds: int | None = None,
) -> Run:
    """One run of a Flower strategy on our federation (clients, draws, evaluation and costs as
    in ``runner``); ``rounds`` defaults to the setup's."""
    undo = runner.deterministic(seed)
    try:
        fed = runner.make_federation(kind, dataset, condition, seed)
        glob = runner.build_model(kind, fed.task.image_shape, fed.task.n_classes)
        params = strategy.initialize_parameters(client_manager=None)  # type: ignore[arg-type]
        params = params or ndarrays_to_parameters(_weights(glob))
        rows, points = [], []
        for rnd in range(1, (rounds or fed.setup.rounds) + 1):
            n_pick = fed.setup.clients_per_round
            chosen = np.sort(fed.rng.choice(fed.setup.n_clients, n_pick, False))
            fits = [_fit(fed, glob, params, strategy, rnd, int(c), rows) for c in chosen]
            results = [f for f in fits if f is not None]
            failures = [RuntimeError("client dropped out")] * (len(fits) - len(results))
            new, _metrics = strategy.aggregate_fit(rnd, results, failures)
            params = new if new is not None else params
            _load(glob, params)
            acc, loss = runner.evaluate(glob, fed.x_test, fed.y_test)
            points.append({"step": rnd, "accuracy": acc, "loss": loss})
    finally:
        undo()
    profiles = client_profiles(setup_for(condition), runner.profile_rng(seed))
    return runner.finish(runner.profiled(rows, profiles), points)


def submission(
    make_strategy: Callable[[], Strategy],
    method: str,
    protocol: str,
    kind: str,
    datasets: Iterable[str],
    seed: int = runner.BASE_SEED,
    rounds: int | None = None,
) -> Submission:
    """A submission of one protocol: a fresh strategy per run, every condition the protocol
    needs under our policy (C: nominal plus each registered perturbation)."""
    conditions = load_policy().conditions(protocol)
    runs = {}
    for dataset in datasets:
        for condition in conditions:
            run = run_strategy(make_strategy(), kind, dataset, condition, seed, rounds)
            runs[(dataset, condition)] = run
    version = simulator.SIMULATOR_VERSION
    return Submission(protocol, kind, method, version, seed, runs)


def write_submission(
    make_strategy: Callable[[], Strategy],
    method: str,
    protocol: str,
    kind: str,
    datasets: Iterable[str],
    out_dir: Path | str,
    seed: int = runner.BASE_SEED,
    rounds: int | None = None,
) -> Path:
    """Run and write the ZIP (checkpoints.csv, workload.csv, manifest.json) into ``out_dir``;
    returns its path, ready for ``python -m analytics fl-score`` and the upload page."""
    sub = submission(make_strategy, method, protocol, kind, datasets, seed, rounds)
    return reference.write([sub], Path(out_dir))[0]
