"""The NVML poller on a fake NVML: fields that fail read as None; no driver is a state, not an exception."""

from types import SimpleNamespace

from console.core.telemetry.nvml import NvmlPoller, foreign_processes


class NVMLError(Exception):
    pass


class FakeNvml:
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, init_error=None):
        self.init_error = init_error

    def nvmlInit(self):
        if self.init_error:
            raise self.init_error

    def nvmlShutdown(self):
        pass

    def nvmlSystemGetDriverVersion(self):
        return b"580.95.05"

    def nvmlDeviceGetCount(self):
        return 2

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetName(self, h):
        return "NVIDIA H200"

    def nvmlDeviceGetUUID(self, h):
        return f"GPU-{h}"

    def nvmlDeviceGetMemoryInfo(self, h):
        return SimpleNamespace(used=55 * 1024 ** 3 if h == 0 else 0, total=141 * 1024 ** 3)

    def nvmlDeviceGetUtilizationRates(self, h):
        return SimpleNamespace(gpu=37, memory=12)

    def nvmlDeviceGetPowerUsage(self, h):
        if h == 1:
            raise NVMLError("Not Supported")
        return 312_000

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return 700_000

    def nvmlDeviceGetTemperature(self, h, sensor):
        return 41

    def nvmlDeviceGetComputeRunningProcesses(self, h):
        return [SimpleNamespace(pid=4242, usedGpuMemory=55 * 1024 ** 3)] if h == 0 else []

    def nvmlDeviceGetGraphicsRunningProcesses(self, h):
        raise NVMLError("Not Supported")


def test_sample_reads_devices_and_degrades_per_field():
    snap = NvmlPoller(FakeNvml()).sample()
    assert snap.state == "ok" and snap.driver_version == "580.95.05"
    g0, g1 = snap.gpus
    assert g0.name == "NVIDIA H200" and round(g0.mem_used_gib) == 55 and round(g0.mem_total_gib) == 141
    assert g0.power_w == 312.0 and g0.power_limit_w == 700.0 and g0.temp_c == 41.0 and g0.util_pct == 37.0
    assert g1.power_w is None  # unsupported field: a placeholder, not an exception
    assert g0.processes[0].pid == 4242 and round(g0.processes[0].used_gib) == 55 and g0.processes[0].foreign


def test_foreign_processes_exclude_our_engine():
    p = NvmlPoller(FakeNvml())
    p.own_pids = {4242}
    snap = p.sample()
    assert not snap.gpus[0].processes[0].foreign
    assert foreign_processes(snap, own_pids={4242}) == []
    assert [(i, x.pid) for i, x in foreign_processes(NvmlPoller(FakeNvml()).sample())] == [(0, 4242)]


def test_no_driver_is_a_state_with_one_line():
    snap = NvmlPoller(FakeNvml(init_error=NVMLError("NVML Shared Library Not Found"))).sample()
    assert snap.state == "no_driver" and not snap.available and snap.gpus == []
    assert "no NVIDIA driver" in snap.message and "\n" not in snap.message


def test_other_init_failures_are_errors_not_crashes():
    snap = NvmlPoller(FakeNvml(init_error=NVMLError("Insufficient Permissions"))).sample()
    assert snap.state == "error" and "Insufficient Permissions" in snap.message


def test_this_machine_without_gpu_does_not_raise():
    snap = NvmlPoller().sample()
    assert snap.state in ("ok", "no_driver", "error")
