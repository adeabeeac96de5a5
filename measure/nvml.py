"""A thin view of NVML (``pynvml`` from nvidia-ml-py) for one GPU.

Every call goes through a module object, so tests pass a fake module with the same functions.
Anything NVML cannot answer is recorded as ``None`` / "unknown", never guessed.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

MIB = 2**20

_THROTTLE_BITS = {
    "gpu_idle": 0x1,
    "applications_clocks_setting": 0x2,
    "sw_power_cap": 0x4,
    "hw_slowdown": 0x8,
    "sync_boost": 0x10,
    "sw_thermal_slowdown": 0x20,
    "hw_thermal_slowdown": 0x40,
    "hw_power_brake_slowdown": 0x80,
    "display_clock_setting": 0x100,
}
"""NVML ``nvmlClocksEventReason*`` bit values (same numbers as the older throttle names)."""


class Gpu:
    """One NVML device: memory, processes, clock-event reasons and static facts."""

    def __init__(self, module: Any, index: int) -> None:
        self.nvml = module
        self.index = index
        self.handle = module.nvmlDeviceGetHandleByIndex(index)

    def used_mib(self) -> float:
        """Device memory in use, MiB (whole device, all processes)."""
        return self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used / MIB

    def process_ids(self) -> list[int]:
        """PIDs NVML lists as running compute or graphics work on this device."""
        pids: set[int] = set()
        for name in (
            "nvmlDeviceGetComputeRunningProcesses",
            "nvmlDeviceGetGraphicsRunningProcesses",
        ):
            fn = getattr(self.nvml, name, None)
            if fn is not None:
                pids.update(int(p.pid) for p in _try(fn, self.handle) or [])
        return sorted(pids)

    def other_process_ids(self, own_pid: int | None = None) -> list[int]:
        """PIDs on the device other than ours (``own_pid``, default this process; in a container
        ours may not be listed: then one unknown PID is taken to be ours)."""
        pids = self.process_ids()
        own = own_pid or os.getpid()
        if own in pids:
            return [p for p in pids if p != own]
        return pids[1:]

    def throttle_reasons(self) -> list[str]:
        """Names of the clock-event reasons active now."""
        fn = getattr(self.nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            self.nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None
        )
        bits = _try(fn, self.handle) if fn else None
        if bits is None:
            return []
        return [name for name, bit in _THROTTLE_BITS.items() if int(bits) & bit]

    def facts(self) -> dict[str, Any]:
        """Name, driver, CUDA driver and NVML versions, power limits and clocks."""
        n = self.nvml
        enforced = _try(n.nvmlDeviceGetEnforcedPowerLimit, self.handle)
        default = _try(n.nvmlDeviceGetPowerManagementDefaultLimit, self.handle)
        cuda = _try(getattr(n, "nvmlSystemGetCudaDriverVersion_v2", None) or _none)
        return {
            "gpu_name": _text(_try(n.nvmlDeviceGetName, self.handle)),
            "driver_version": _text(_try(n.nvmlSystemGetDriverVersion)),
            "nvml_version": _text(_try(n.nvmlSystemGetNVMLVersion)),
            "cuda_driver_version": f"{cuda // 1000}.{cuda % 1000 // 10}" if cuda else None,
            "power_limit_w": enforced / 1000 if enforced is not None else None,
            "default_power_limit_w": default / 1000 if default is not None else None,
            "power_limited": power_limited(enforced, default),
            "sm_clock_mhz": _try(n.nvmlDeviceGetClockInfo, self.handle, n.NVML_CLOCK_SM),
            "mem_clock_mhz": _try(n.nvmlDeviceGetClockInfo, self.handle, n.NVML_CLOCK_MEM),
            "memory_total_mib": _memory_total(n, self.handle),
        }


def power_limited(enforced_mw: float | None, default_mw: float | None) -> str:
    """'yes' when the enforced power limit is below the default, 'unknown' if NVML can't say."""
    if enforced_mw is None or default_mw is None:
        return "unknown"
    return "yes" if enforced_mw < default_mw else "no"


def open_gpu(device: str, module: Any | None = None) -> tuple[Gpu | None, str]:
    """The NVML view of ``cuda[:N]`` and "" — or None and the reason NVML is unusable."""
    index = int(device.split(":", 1)[1]) if ":" in device else 0
    try:
        nvml = module or importlib.import_module("pynvml")
        nvml.nvmlInit()
        return Gpu(nvml, index), ""
    except Exception as exc:  # NVMLError, ImportError, missing driver: all mean "no NVML"
        return None, f"NVML unavailable: {type(exc).__name__}: {exc}"


def _memory_total(n: Any, handle: Any) -> float | None:
    info = _try(n.nvmlDeviceGetMemoryInfo, handle)
    return info.total / MIB if info is not None else None


def _none() -> None:
    return None


def _try(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception:  # any NVMLError: "not supported" on this GPU or driver
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)
