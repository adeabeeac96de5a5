"""The common calibrated cost simulator of the federated ranked track (seed 001, "Ranked track").

A workload log (one row per round and participating client: FLOPs, bytes up/down, memory of the
workload) becomes the cumulative system-cost columns of a checkpoint: ``time_s``, ``comm_bytes``,
``energy_j`` and ``peak_mem_bytes``. The device and network profiles are published figures, each
with its source URL, in ``data/catalog/fl/simulator_profiles.json``; the version below pins them.

Per round (simulator 1.0.0):
- a client's time = FLOPs / device FLOP/s + (bytes up + bytes down) x 8 / network bit/s;
- the round's time is the slowest participating client's time;
- communication = sum of bytes up + down;
- energy = sum over clients of device power x compute time + bytes x 8 x E_bit(datarate), where
  E_bit = A + B x (datarate_kbps - C) is the source's fitted radio-energy model;
- peak memory = the largest client memory of the workload so far.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from analytics.core import paths

SIMULATOR_VERSION = "1.0.0"
WORKLOAD_COLUMNS = (
    "round",
    "client",
    "device",
    "network",
    "flops",
    "bytes_up",
    "bytes_down",
    "mem_bytes",
)
COST_COLUMNS = ("time_s", "comm_bytes", "energy_j", "peak_mem_bytes")
REL_TOLERANCE = 1e-6  # a submitted cost must recompute within this relative error
ABS_TOLERANCE = 1e-9  # ... or within this absolute error (costs near zero)


@dataclass(frozen=True)
class Device:
    device_id: str
    flops_per_s: float
    power_w: float
    memory_bytes: int | None


@dataclass(frozen=True)
class Network:
    network_id: str
    bandwidth_kbps: float
    latency_s: float
    joules_per_byte: float


@dataclass(frozen=True)
class Profiles:
    version: str
    devices: dict[str, Device]
    networks: dict[str, Network]


def profiles_path() -> Path:
    """Location of the committed profile file (resolved at call time)."""
    return paths.CATALOG_DIR / "fl" / "simulator_profiles.json"


def joules_per_byte(model: dict, bandwidth_kbps: float) -> float:
    """Radio energy per byte at a datarate: 8 x (A + B x (rate - C)) (AAU fitted model)."""
    per_bit = model["a_j_per_bit"] + model["b_j_per_bit_per_kbps"] * (
        bandwidth_kbps - model["c_kbps"]
    )
    return 8.0 * per_bit


def load_profiles(path: Path | None = None) -> Profiles:
    """Read and check the profile file; raises ValueError naming the file and the fix."""
    path = path or profiles_path()
    stat = path.stat()
    return _load_profiles(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _load_profiles(name: str, mtime_ns: int, size: int) -> Profiles:
    path = Path(name)
    raw = json.loads(path.read_text(encoding="utf-8"))
    if raw.get("simulator_version") != SIMULATOR_VERSION:
        raise ValueError(
            f"{path}: simulator_version {raw.get('simulator_version')!r} != code "
            f"{SIMULATOR_VERSION!r}; fix: bump SIMULATOR_VERSION with the profiles"
        )
    devices = {
        key: Device(key, float(d["flops_per_s"]), float(d["power_w"]), d.get("memory_bytes"))
        for key, d in raw["devices"].items()
    }
    networks = {}
    for key, n in raw["networks"].items():
        jpb = joules_per_byte(n["energy_model"], float(n["bandwidth_kbps"]))
        if jpb <= 0:
            raise ValueError(f"{path}: network {key}: non-positive J/byte; fix: check datarate")
        networks[key] = Network(key, float(n["bandwidth_kbps"]), float(n["latency_s"] or 0), jpb)
    return Profiles(SIMULATOR_VERSION, devices, networks)


def _client_costs(workload: pd.DataFrame, profiles: Profiles) -> dict[str, np.ndarray]:
    """Per workload row: round, client time, bytes, energy and memory (numpy arrays)."""
    unknown_dev = sorted(set(workload["device"]) - set(profiles.devices))
    unknown_net = sorted(set(workload["network"]) - set(profiles.networks))
    if unknown_dev or unknown_net:
        raise ValueError(
            f"unknown device/network profile {unknown_dev + unknown_net}; "
            f"fix: use one of {sorted(profiles.devices)} / {sorted(profiles.networks)}"
        )
    devs = [profiles.devices[k] for k in workload["device"]]
    nets = [profiles.networks[k] for k in workload["network"]]
    flops = workload["flops"].to_numpy(dtype=float)
    up = workload["bytes_up"].to_numpy(dtype=float)
    bytes_total = up + workload["bytes_down"].to_numpy(dtype=float)
    compute_s = flops / np.array([d.flops_per_s for d in devs], dtype=float)
    bandwidth_bps = np.array([n.bandwidth_kbps * 1000.0 for n in nets], dtype=float)
    latency_s = np.array([n.latency_s for n in nets], dtype=float)
    power_w = np.array([d.power_w for d in devs], dtype=float)
    j_per_byte = np.array([n.joules_per_byte for n in nets], dtype=float)
    return {
        "round": workload["round"].to_numpy(dtype=np.int64),
        "client_s": compute_s + bytes_total * 8.0 / bandwidth_bps + latency_s,
        "comm_bytes": bytes_total,
        "energy_j": compute_s * power_w + bytes_total * j_per_byte,
        "mem_bytes": workload["mem_bytes"].to_numpy(dtype=float),
    }


def _cumulative(workload: pd.DataFrame, profiles: Profiles) -> dict[str, np.ndarray]:
    """Cumulative costs after each distinct round, rounds ascending."""
    c = _client_costs(workload, profiles)
    rounds, inv = np.unique(c["round"], return_inverse=True)
    slowest = np.zeros(len(rounds))
    np.maximum.at(slowest, inv, c["client_s"])  # the slowest participant sets the round time
    peak = np.zeros(len(rounds))
    np.maximum.at(peak, inv, c["mem_bytes"])
    return {
        "round": rounds,
        "time_s": np.cumsum(slowest),
        "comm_bytes": np.cumsum(np.bincount(inv, c["comm_bytes"], len(rounds))),
        "energy_j": np.cumsum(np.bincount(inv, c["energy_j"], len(rounds))),
        "peak_mem_bytes": np.maximum.accumulate(peak),
    }


def round_costs(workload: pd.DataFrame, profiles: Profiles | None = None) -> pd.DataFrame:
    """Cumulative costs after each round: round, time_s, comm_bytes, energy_j, peak_mem_bytes."""
    if workload.empty:
        return pd.DataFrame({"round": pd.Series(dtype=int), **{c: [] for c in COST_COLUMNS}})
    return pd.DataFrame(_cumulative(workload, profiles or load_profiles()))


def costs_at_steps(
    workload: pd.DataFrame, steps: list[int], profiles: Profiles | None = None
) -> pd.DataFrame:
    """The cost columns at each checkpoint step: everything of rounds <= step (0 before any)."""
    if workload.empty:
        return pd.DataFrame({c: np.zeros(len(steps)) for c in COST_COLUMNS})
    table = _cumulative(workload, profiles or load_profiles())
    idx = np.searchsorted(table["round"], np.asarray(steps, dtype=np.int64), side="right") - 1
    out = {}
    for col in COST_COLUMNS:
        values = np.concatenate([[0.0], table[col]])
        out[col] = values[idx + 1]  # idx = -1 (before the first round) picks the leading 0
    return pd.DataFrame(out, columns=list(COST_COLUMNS))


def mismatches(
    checkpoints: pd.DataFrame, workload: pd.DataFrame, profiles: Profiles | None = None
) -> list[str]:
    """Rows whose submitted costs do not recompute within tolerance, one message per cell."""
    expected = costs_at_steps(workload, [int(s) for s in checkpoints["step"]], profiles)
    problems = []
    for col in COST_COLUMNS:
        got = checkpoints[col].to_numpy(dtype=float)
        want = expected[col].to_numpy(dtype=float)
        bad = ~np.isclose(got, want, rtol=REL_TOLERANCE, atol=ABS_TOLERANCE)
        for i in np.flatnonzero(bad):
            problems.append(
                f"row {i + 2}: {col} {float(got[i])!r} but simulator {SIMULATOR_VERSION} "
                f"gives {float(want[i])!r}"
            )
    return problems
