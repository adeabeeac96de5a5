"""The common cost simulator: hand-computed golden costs and cited profiles."""

from __future__ import annotations

import json

import pytest

from analytics.fl import simulator
from tests.fixtures.fl.builders import workload


def test_profiles_load_and_every_number_cites_a_source():
    raw = json.loads(simulator.profiles_path().read_text())
    assert raw["simulator_version"] == simulator.SIMULATOR_VERSION
    for device in raw["devices"].values():
        for key in ("flops_per_s", "power_w"):
            assert device["sources"][key].startswith("http")
        if device["memory_bytes"] is not None:
            assert device["sources"]["memory_bytes"].startswith("http")
        else:
            assert device["memory_note"]
    for network in raw["networks"].values():
        assert network["sources"]["bandwidth_kbps"].startswith("http")
        assert network["sources"]["energy_model"].startswith("http")


def test_radio_energy_per_byte_from_the_fitted_model():
    prof = simulator.load_profiles()
    # Wi-Fi at 5000 kbps: 8 * (6.45e-7 - 1.27e-10 * (5000 - 2130)) = 2.24408e-6 J/byte
    assert prof.networks["wifi_bg"].joules_per_byte == pytest.approx(2.24408e-6, rel=1e-9)
    # HSDPA at 1500 kbps: 8 * (1.13e-5 - 7.21e-9 * (1500 - 101)) = 9.70568e-6 J/byte
    assert prof.networks["hsdpa"].joules_per_byte == pytest.approx(9.70568e-6, rel=1e-9)


def test_golden_round_costs():
    # c00 (Pi 4, Wi-Fi): 1 s compute + 1.25e6 B * 8 / 5e6 bit/s = 3 s; 7.2 J + 2.8051 J
    # c01 (Pi 5, HSDPA): 1 s compute + 5.625e5 B * 8 / 1.5e6 bit/s = 4 s; 12.7 J + 5.459445 J
    table = simulator.round_costs(workload(2))
    assert table["round"].tolist() == [1, 2]
    assert table["time_s"].tolist() == pytest.approx([4.0, 8.0])  # the slowest client per round
    assert table["comm_bytes"].tolist() == pytest.approx([1_812_500, 3_625_000])
    assert table["energy_j"].tolist() == pytest.approx([28.164545, 56.32909], rel=1e-9)
    assert table["peak_mem_bytes"].tolist() == [3000, 3000]


def test_costs_at_steps_before_between_and_after_rounds():
    costs = simulator.costs_at_steps(workload(2), [0, 1, 2, 5])
    assert costs["time_s"].tolist() == pytest.approx([0.0, 4.0, 8.0, 8.0])


def test_mismatch_is_reported_per_cell():
    wl = workload(2)
    ck = simulator.costs_at_steps(wl, [1, 2]).assign(step=[1, 2])
    assert simulator.mismatches(ck, wl) == []
    ck.loc[1, "energy_j"] = 60.0
    (line,) = simulator.mismatches(ck, wl)
    assert line.startswith("row 3: energy_j 60.0 but simulator 1.0.0 gives 56.32909")


def test_unknown_profile_names_the_fix():
    wl = workload(1)
    wl.loc[0, "device"] = "abacus"
    with pytest.raises(ValueError, match="abacus.*fix: use one of"):
        simulator.round_costs(wl)
