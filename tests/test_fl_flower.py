"""The Flower path: a Flower strategy runs offline on our federation and its ZIP scores."""

from __future__ import annotations

import subprocess
import sys
import zipfile

from flwr.server.strategy import FedAvg, FedProx

from analytics.core import paths
from analytics.fl import flower, runner
from analytics.fl.policy import load_policy, policy_path
from analytics.fl.submission import validate_zip

ROUNDS = 3  # a tiny run: digits, the 2NN, three rounds


def test_a_flower_fedavg_run_writes_a_zip_that_fl_score_accepts(tmp_path):
    init = flower.initial_parameters("mlp", "digits")
    path = flower.write_submission(
        lambda: FedAvg(initial_parameters=init), "Flower-FedAvg", "A", "mlp", ["digits"],
        tmp_path, rounds=ROUNDS,
    )
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
    assert {"manifest.json", "runs/digits/nominal/checkpoints.csv"} <= names
    assert "runs/digits/nominal/workload.csv" in names
    assert validate_zip(path, load_policy()).ok
    done = subprocess.run(
        [sys.executable, "-m", "analytics", "fl-score", str(tmp_path), "--policy",
         str(policy_path())],
        capture_output=True, text=True, cwd=paths.REPO_ROOT, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Flower-FedAvg" in done.stdout


def test_flower_run_is_seeded_and_prices_flowers_own_bytes():
    init = flower.initial_parameters("mlp", "digits")
    runs = [flower.run_strategy(FedAvg(initial_parameters=init), "mlp", "digits", rounds=ROUNDS)
            for _ in range(2)]
    assert runs[0].checkpoints.equals(runs[1].checkpoints)
    work = runs[0].workload
    assert len(work) == ROUNDS * 10  # ten clients a round
    weights = 4 * sum(p.numel() for p in runner.build_model("mlp", (1, 8, 8), 10).parameters())
    assert (work["bytes_down"] > weights).all()  # serialised arrays carry their headers
    assert (work["bytes_down"] < weights * 1.01).all()


def test_flower_fedprox_sends_its_mu_to_our_clients():
    init = flower.initial_parameters("mlp", "digits")
    plain = flower.run_strategy(FedAvg(initial_parameters=init), "mlp", "digits", rounds=ROUNDS)
    prox = flower.run_strategy(
        FedProx(initial_parameters=init, proximal_mu=1.0), "mlp", "digits", rounds=ROUNDS
    )
    assert not plain.checkpoints["loss"].equals(prox.checkpoints["loss"])
    assert (prox.workload["flops"] > plain.workload["flops"]).all()  # the proximal gradient
