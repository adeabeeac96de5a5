"""The measuring protocol: precision choice, timing, summary, discard rules, sampler, NVML."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import psutil
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from measure import nvml, protocol
from measure.sampler import MemorySampler, label_phases, rss_source
from measure.worker import measure_once, other_cpu_percent
from tests.fixtures.measure import fake_nvml
from tests.fixtures.measure.busy_adapter import BusyWait2ms, Crashing, busy_cpu, busy_wait


@pytest.mark.parametrize(
    ("supported", "device", "expected"),
    [
        (("fp16", "bf16", "fp32"), "cuda", "fp16"),
        (("bf16", "fp32"), "cuda:1", "bf16"),
        (("fp32",), "cuda", "fp32"),
        (("fp16", "fp32"), "cpu", "fp32"),
    ],
)
def test_precision_follows_protocol_order(supported, device, expected):
    precision, reason = protocol.choose_precision(supported, device)
    assert precision == expected
    assert reason  # every choice says why
    if device == "cpu":
        assert "cpu" in reason


def test_precision_without_any_known_fails():
    with pytest.raises(ValueError, match="include none"):
        protocol.choose_precision(("int8",), "cuda")


def test_summary_golden():
    # pooled = 1,2,2,3,3,3,4,4,5: median 3; p90 at rank 0.9*8 = 7.2 -> 4 + 0.2 = 4.2
    s = protocol.summarise([[1, 2, 3], [2, 3, 4], [3, 4, 5]])
    assert s.median_ms == 3.0
    assert s.p90_ms == pytest.approx(4.2)
    assert s.run_medians_ms == (2.0, 3.0, 4.0)
    assert s.run_spread == pytest.approx(1.0)  # (4 - 2) / 2


def test_summary_rejects_empty_run():
    with pytest.raises(ValueError):
        protocol.summarise([[1.0], []])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.floats(0.01, 1e4), min_size=1, max_size=30), min_size=1, max_size=4))
def test_summary_invariants(runs):
    s = protocol.summarise(runs)
    pooled = [x for r in runs for x in r]
    assert min(pooled) <= s.median_ms <= s.p90_ms + 1e-9 <= max(pooled) + 1e-9
    assert s.run_spread >= 0
    assert protocol.summarise(list(reversed(runs))).median_ms == s.median_ms


def _summary(medians):
    spread = (max(medians) - min(medians)) / min(medians)
    return protocol.TimingSummary(medians[0], medians[0], tuple(medians), spread)


def test_spread_limit_is_ten_percent_of_the_fastest_run():
    assert protocol.discard_reason(_summary([10.0, 11.0, 10.5]), [{}, {}, {}]) == ""
    reason = protocol.discard_reason(_summary([10.0, 11.01, 10.5]), [{}, {}, {}])
    assert "differ by 10.1%" in reason


@pytest.mark.parametrize(
    ("disturbance", "fragment"),
    [
        ({"other_cpu_percent": 10.5}, "10.5% of CPU"),
        ({"gpu_other_processes": [4242]}, "other GPU processes [4242]"),
        ({"throttle_reasons": ["sw_thermal_slowdown"]}, "sw_thermal_slowdown"),
        ({"throttle_reasons": ["sw_power_cap", "gpu_idle"]}, "sw_power_cap"),
    ],
)
def test_disturbed_run_discards_with_reason(disturbance, fragment):
    reason = protocol.discard_reason(_summary([5.0, 5.0, 5.0]), [{}, {"disturbance": disturbance}])
    assert reason.startswith("run 2 disturbed") and fragment in reason


def test_benign_observations_do_not_discard():
    quiet = {"other_cpu_percent": 9.9, "throttle_reasons": ["gpu_idle"], "gpu_other_processes": []}
    assert protocol.discard_reason(_summary([5.0, 5.0, 5.0]), [{"disturbance": quiet}]) == ""


def test_time_calls_syncs_before_and_after_each_call():
    events = []
    warm, timed = protocol.time_calls(
        lambda i: events.append(("call", i)), 2, 3, sync=lambda: events.append("sync")
    )
    assert len(warm) == 2 and len(timed) == 3
    assert events[:4] == ["sync", ("call", 0), "sync", "sync"]
    assert events.count("sync") == 2 * 5


def test_time_calls_measures_a_known_cost():
    # Each call costs 2 ms of CPU time, so its wall time is never less, however loaded the
    # machine; load stretches the harness's figure and the call's own reference clock alike,
    # so their ratio stays 1 (a timer in the wrong unit, or timing the wrong thing, fails both).
    reference_ms = []

    def call(i: int) -> None:
        start = time.monotonic()
        busy_cpu(0.002)
        reference_ms.append((time.monotonic() - start) * 1e3)

    _, timed = protocol.time_calls(call, 2, 30)
    assert len(timed) == 30 and min(timed) >= 2.0 * 0.999
    ratios = np.asarray(timed) / np.asarray(reference_ms[2:])
    assert np.median(ratios) == pytest.approx(1.0, rel=0.05)


def test_sampler_keeps_a_10ms_median_while_the_main_thread_is_busy():
    sampler = MemorySampler(rss_source()).start()
    sampler.mark("timed")
    busy_wait(0.4)
    sampler.stop()
    stats = protocol.sampler_stats([t for t, _, _ in sampler.samples])
    assert stats["interval_median_ms"] <= protocol.SAMPLER_DEADLINE_MS
    assert {p for _, _, p in sampler.samples} <= {"idle", "timed"}


def _busy_cpu_s() -> float:
    """CPU seconds all processes have spent busy (user + system) since boot."""
    times = psutil.cpu_times()
    return times.user + times.system


def test_sampler_keeps_polling_while_a_c_call_holds_the_gil():
    # A thread sampler gets no sample in while sum() runs: C code does not release the lock,
    # like importing torch. The sampler's own process keeps polling all through it. Asserted as
    # ratios that a busy machine (CI) still meets, instead of skipping when it is busy: a
    # starved thread would have at most one sample in the window and one gap spanning it.
    sampler = MemorySampler(rss_source()).start()
    try:
        sampler.mark("held")
        held_s = time.perf_counter()
        busy_before, ours_before = _busy_cpu_s(), time.process_time()
        sum(range(3 * 10**7))
        ours_s = time.process_time() - ours_before
        others_s = _busy_cpu_s() - busy_before - ours_s
        held_s = time.perf_counter() - held_s
        sampler.mark("after")
        time.sleep(0.02)
        sampler.stop()
    finally:
        sampler.close()
    during = [t for t, _, p in sampler.samples if p == "held"]
    load = f"others used {others_s:.2f} CPU-s over {held_s:.2f} s"
    assert ours_s > 0.1  # the lock really was held (on CPU) long enough to starve a thread
    scheduled = held_s / (protocol.SAMPLER_PERIOD_MS / 1e3)
    assert len(during) >= max(5, 0.1 * scheduled), load  # >= 10% of its polls, not ~0
    assert during[-1] - during[0] >= 0.5 * held_s, load  # spread over the window
    assert max(np.diff(during)) <= 0.5 * held_s, load  # never starved for half of it


def test_label_phases_golden():
    marks = [(0.010, "load"), (0.020, "warmup"), (0.020, "timed")]
    phases = label_phases([0.0, 0.0099, 0.010, 0.015, 0.020, 0.5], marks)
    assert phases == ["idle", "idle", "load", "load", "timed", "timed"]
    assert label_phases([0.0, 1.0], []) == ["idle", "idle"]


def _sampler_children(before: set[int]) -> list[psutil.Process]:
    """Children of this process started since ``before`` (their pids) that are samplers, or
    zombies: a process it exited without reaping. An earlier test's unreaped child in this
    worker is not the measurement's (its cmdline cannot even be read)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        if child.pid in before:
            continue
        try:
            if "measure.sampler_proc" in " ".join(child.cmdline()):
                found.append(child)
        except psutil.ZombieProcess:
            found.append(child)
        except psutil.NoSuchProcess:
            continue  # gone and reaped
    return found


def test_sampler_process_is_gone_after_a_failed_load():
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    with pytest.raises(ImportError, match="imaginary_backbone"):
        measure_once(
            Crashing(),
            [np.zeros((4, 4, 3), np.uint8)],
            device="cpu",
            precision="fp32",
            warmup=0,
            calls=1,
        )
    assert _sampler_children(before) == []


_ORPHAN = (
    "import sys, time; from measure.sampler import MemorySampler, rss_source; "
    "s = MemorySampler(rss_source()).start(); print(s.pid, flush=True); time.sleep(60)"
)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_sampler_process_never_outlives_a_killed_worker():
    worker = subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE, text=True)
    sampler_pid = int(worker.stdout.readline())
    assert not _gone(sampler_pid)
    worker.kill()  # SIGKILL: no finally clause runs in the worker
    worker.wait()
    deadline = time.monotonic() + 5.0
    while not _gone(sampler_pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(sampler_pid)


def test_sampler_that_cannot_read_says_why():
    with pytest.raises(RuntimeError, match="did not start: NoSuchProcess"):
        MemorySampler(rss_source(pid=2**22 + 1)).start()  # above Linux's largest PID


def test_sampler_stats_flag_missed_deadlines():
    steady = protocol.sampler_stats(np.arange(0, 1.0, 0.005))
    assert steady["sampler_ok"] and steady["missed_deadlines"] == 0
    gap = protocol.sampler_stats([*np.arange(0, 0.5, 0.005), 0.6])  # one 105 ms gap
    assert gap["missed_deadlines"] == 1 and not gap["sampler_ok"]
    assert gap["interval_max_ms"] == pytest.approx(105.0, abs=0.01)


def test_other_cpu_percent_subtracts_own_time():
    # 2 s of wall on this machine's CPUs: 1.0 s busy overall, 0.4 s of it ours.
    ncpu = os.cpu_count() or 1
    share = other_cpu_percent((0.0, 10.0, 1.0), (2.0, 11.0, 1.4))
    assert share == pytest.approx(0.6 / (2.0 * ncpu) * 100, rel=0.05)


@pytest.fixture()
def gpu(tmp_path, monkeypatch):
    monkeypatch.setenv(fake_nvml.SHARE_ENV, str(tmp_path / "fake_nvml.json"))  # sampler reads it
    fake_nvml.reset()
    handle, why = nvml.open_gpu("cuda:0", fake_nvml)
    assert why == ""
    return handle


def test_nvml_facts_from_fake(gpu):
    facts = gpu.facts()
    assert facts["gpu_name"] == "NVIDIA GeForce RTX 4090"
    assert facts["nvml_version"] == "12.550.54.14"
    assert facts["cuda_driver_version"] == "12.4"
    assert facts["power_limit_w"] == 450.0 and facts["power_limited"] == "no"


@pytest.mark.parametrize(
    ("enforced", "default", "unsupported", "expected"),
    [(300000, 450000, set(), "yes"), (450000, 450000, set(), "no"), (1, 1, {"default"}, "unknown")],
)
def test_power_limited(gpu, enforced, default, unsupported, expected):
    fake_nvml.update(enforced_mw=enforced, default_mw=default, unsupported=unsupported)
    assert gpu.facts()["power_limited"] == expected


def test_nvml_throttle_bits_and_other_processes(gpu):
    fake_nvml.update(throttle=0x4 | 0x1, procs=[os.getpid(), 777])
    assert gpu.throttle_reasons() == ["gpu_idle", "sw_power_cap"]
    assert gpu.other_process_ids() == [777]
    fake_nvml.update(procs=[11, 12])  # container: our PID is not listed; one is ours
    assert gpu.other_process_ids() == [12]
    fake_nvml.update(procs=[11, 12, 13])  # the sampler's process checks on the worker's behalf
    assert gpu.other_process_ids(own_pid=12) == [11, 13]


def test_missing_nvml_says_why():
    fake_nvml.reset(fail_init=True)
    handle, why = nvml.open_gpu("cuda", fake_nvml)
    assert handle is None and "Driver Not Loaded" in why


class _GrowsVram(BusyWait2ms):
    """Raises the fake device's memory by 1000 MiB on load, like a model moving to the GPU."""

    def load(self, device, precision):
        fake_nvml.update(used_mib=1400.0)


def test_cuda_path_records_vram_peak_and_syncs(gpu):
    syncs = []
    run = measure_once(
        _GrowsVram(),
        [np.zeros((8, 8, 3), np.uint8)],
        device="cuda:0",
        precision="fp16",
        warmup=2,
        calls=10,
        gpu=gpu,
        sync=lambda: syncs.append(1),
    )
    assert len(syncs) == 2 * 12
    assert run["memory"]["kind"] == "vram" and run["memory"]["baseline_mib"] == 400.0
    assert max(run["memory"]["used_mib"]) - run["memory"]["baseline_mib"] == 1000.0
    assert "other_cpu_percent" not in run["disturbance"]
    assert len(run["calls_ms"]) == 10


def test_cuda_path_sees_another_process_and_throttling(gpu):
    fake_nvml.update(procs=[os.getpid(), 31337], throttle=0x40)
    run = measure_once(
        BusyWait2ms(),
        [np.zeros((8, 8, 3), np.uint8)],
        device="cuda",
        precision="fp16",
        warmup=0,
        calls=3,
        gpu=gpu,
        sync=lambda: None,
    )
    reason = protocol.run_disturbance(run)
    assert "31337" in reason and "hw_thermal_slowdown" in reason


class _Ballast48MiB(BusyWait2ms):
    """Loads 48 MiB of written memory: above glibc's largest mmap threshold (32 MiB), so it
    comes as fresh pages even after earlier tests freed memory the heap could reuse."""

    def load(self, device, precision):
        self.ballast = np.ones(48 * 2**20, np.uint8)


def test_cpu_path_measures_ram():
    run = measure_once(
        _Ballast48MiB(),
        [np.zeros((8, 8, 3), np.uint8)],
        device="cpu",
        precision="fp32",
        warmup=1,
        calls=10,
    )
    assert run["memory"]["kind"] == "ram"
    assert max(run["memory"]["used_mib"]) - run["memory"]["baseline_mib"] >= 45.0
    assert "other_cpu_percent" in run["disturbance"]
    assert {"load", "warmup", "timed"} <= set(run["memory"]["phase"]) | {"load", "warmup"}


def test_sampler_runs_during_load():
    class SlowLoad(BusyWait2ms):
        def load(self, device, precision):
            time.sleep(0.1)

    run = measure_once(
        SlowLoad(),
        [np.zeros((4, 4, 3), np.uint8)],
        device="cpu",
        precision="fp32",
        warmup=0,
        calls=1,
    )
    assert run["memory"]["phase"].count("load") >= 5


class _BriefIntruder(BusyWait2ms):
    """Another GPU process and thermal slowdown appear during load only: the worker's own
    checks before and after miss them, the sampler's periodic checks (every 100 ms) must not."""

    def load(self, device, precision):
        fake_nvml.update(procs=[os.getpid(), 4242], throttle=0x20)
        time.sleep(0.3)
        fake_nvml.update(procs=[os.getpid()], throttle=0)


def test_sampler_checks_catch_a_disturbance_during_load(gpu):
    run = measure_once(
        _BriefIntruder(),
        [np.zeros((4, 4, 3), np.uint8)],
        device="cuda",
        precision="fp16",
        warmup=0,
        calls=1,
        gpu=gpu,
        sync=lambda: None,
    )
    assert run["disturbance"]["gpu_other_processes"] == [4242]
    assert run["disturbance"]["throttle_reasons"] == ["sw_thermal_slowdown"]
