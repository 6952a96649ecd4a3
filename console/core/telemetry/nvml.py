"""NVML poller: GPU memory, utilisation, power, temperature and the processes holding memory.

Uses `nvidia-ml-py` (module `pynvml`). Every NVML call is wrapped: an unsupported field reads as None,
never an exception; a machine without a driver yields a snapshot in state `no_driver` with one line of
explanation. NVML calls block, so callers run `sample()` off the UI thread.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

try:  # nvidia-ml-py is a dependency, but keep the import failure readable
    import pynvml as _nvml
except Exception:  # pragma: no cover - exercised only on broken installs
    _nvml = None

GIB = 1024 ** 3


@dataclass
class GpuProcess:
    pid: int
    name: str
    used_gib: float | None
    foreign: bool = False
    """True when the process is not the engine the console launched (nor a child of it)."""


@dataclass
class GpuInfo:
    index: int
    name: str | None
    uuid: str | None
    mem_used_gib: float | None
    mem_total_gib: float | None
    util_pct: float | None
    mem_util_pct: float | None
    power_w: float | None
    power_limit_w: float | None
    temp_c: float | None
    processes: list[GpuProcess] = field(default_factory=list)
    mem_reserved_gib: float | None = None
    """Memory the driver reserves for itself (NVML v2 memory info; None under v1, whose `used` includes it)."""
    mem_source: str | None = None
    """'v2' (nvmlDeviceGetMemoryInfo_v2: `used` without the driver's reservation, as nvidia-smi reports it on
    current drivers) or 'v1' (the fallback: `used` includes the reservation, ~0.6 GiB on an H200)."""


@dataclass
class GpuSnapshot:
    state: str
    """'ok' | 'no_driver' | 'error'."""
    message: str
    driver_version: str | None = None
    gpus: list[GpuInfo] = field(default_factory=list)
    t: float = 0.0

    @property
    def available(self) -> bool:
        return self.state == "ok"


def _q(fn: Callable[..., Any], *args: Any, default: Any = None) -> Any:
    """Call an NVML function; any NVMLError (or missing function) yields `default`."""
    try:
        return fn(*args)
    except Exception:
        return default


def memory_info(n: Any, h: Any) -> tuple[Any, str | None]:
    """(memory info, 'v2' | 'v1'): the v2 call where the driver and bindings have it, else v1."""
    v2 = getattr(n, "nvmlMemory_v2", None)
    if v2 is not None:
        mem = _q(n.nvmlDeviceGetMemoryInfo, h, v2)
        if mem is not None and getattr(mem, "reserved", None) is not None:
            return mem, "v2"
    mem = _q(n.nvmlDeviceGetMemoryInfo, h)
    return mem, ("v1" if mem is not None else None)


def _s(v: Any) -> str | None:
    if v is None:
        return None
    return v.decode() if isinstance(v, bytes) else str(v)


def _proc_name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


class NvmlPoller:
    """Initialises NVML once; `sample()` returns a `GpuSnapshot` and never raises."""

    def __init__(self, nvml: Any = None, proc_name: Callable[[int], str] = _proc_name) -> None:
        self._nvml = nvml if nvml is not None else _nvml
        self._proc_name = proc_name
        self._lock = threading.Lock()
        self._state = "uninit"
        self._message = ""
        self.own_pids: set[int] = set()
        """PIDs (engine process group members) that are ours; everything else on a GPU is foreign."""

    def _init(self) -> None:
        if self._state != "uninit":
            return
        if self._nvml is None:
            self._state, self._message = "no_driver", "nvidia-ml-py is not importable; no GPU telemetry"
            return
        try:
            self._nvml.nvmlInit()
            self._state = "ok"
        except Exception as e:
            name = type(e).__name__
            text = str(e) or name
            if ("Driver Not Loaded" in text or "Library Not Found" in text or "NotFound" in name
                    or "DRIVER" in text.upper()):
                self._state = "no_driver"
                self._message = (f"no NVIDIA driver on {socket.gethostname()} ({text}); showing the engine's own "
                                 "memory figures")
            else:
                self._state = "error"
                self._message = f"NVML init failed: {text}"

    def sample(self) -> GpuSnapshot:
        with self._lock:
            self._init()
            if self._state != "ok":
                return GpuSnapshot(self._state, self._message, t=time.time())
            n = self._nvml
            count = _q(n.nvmlDeviceGetCount, default=0) or 0
            gpus: list[GpuInfo] = []
            for i in range(count):
                h = _q(n.nvmlDeviceGetHandleByIndex, i)
                if h is None:
                    continue
                mem, mem_source = memory_info(n, h)
                util = _q(n.nvmlDeviceGetUtilizationRates, h)
                power = _q(n.nvmlDeviceGetPowerUsage, h)
                limit = _q(n.nvmlDeviceGetEnforcedPowerLimit, h)
                temp = _q(n.nvmlDeviceGetTemperature, h, getattr(n, "NVML_TEMPERATURE_GPU", 0))
                procs: dict[int, GpuProcess] = {}
                for getter in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
                    fn = getattr(n, getter, None)
                    for p in (_q(fn, h, default=[]) if fn else []) or []:
                        pid = int(getattr(p, "pid", 0))
                        used = getattr(p, "usedGpuMemory", None)
                        gib = used / GIB if isinstance(used, int) and used >= 0 else None
                        procs[pid] = GpuProcess(pid=pid, name=self._proc_name(pid), used_gib=gib,
                                                foreign=pid not in self.own_pids)
                gpus.append(GpuInfo(
                    index=i,
                    name=_s(_q(n.nvmlDeviceGetName, h)),
                    uuid=_s(_q(n.nvmlDeviceGetUUID, h)),
                    mem_used_gib=mem.used / GIB if mem is not None else None,
                    mem_total_gib=mem.total / GIB if mem is not None else None,
                    util_pct=float(util.gpu) if util is not None else None,
                    mem_util_pct=float(util.memory) if util is not None else None,
                    power_w=power / 1000.0 if isinstance(power, (int, float)) else None,
                    power_limit_w=limit / 1000.0 if isinstance(limit, (int, float)) else None,
                    temp_c=float(temp) if isinstance(temp, (int, float)) else None,
                    processes=sorted(procs.values(), key=lambda p: -(p.used_gib or 0)),
                    mem_reserved_gib=(mem.reserved / GIB if mem_source == "v2" else None),
                    mem_source=mem_source,
                ))
            return GpuSnapshot("ok", f"{len(gpus)} GPU(s)", driver_version=_s(_q(n.nvmlSystemGetDriverVersion)),
                               gpus=gpus, t=time.time())

    def close(self) -> None:
        with self._lock:
            if self._state == "ok":
                _q(self._nvml.nvmlShutdown)
            self._state = "uninit"


def foreign_processes(snap: GpuSnapshot, own_pids: set[int] | None = None) -> list[tuple[int, GpuProcess]]:
    """(gpu index, process) for every process holding GPU memory that is not ours."""
    own = own_pids or set()
    me = os.getpid()
    return [(g.index, p) for g in snap.gpus for p in g.processes if p.pid not in own and p.pid != me]
