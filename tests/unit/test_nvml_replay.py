"""Replay NVML answers captured on a real NVIDIA H200 (tests/gpu/capture_nvml.py on the device machine,
2026-11-30, driver 580.159.04) through the poller: it must produce what it produced there."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from console.core.telemetry.nvml import NvmlPoller

CAPTURE = Path(__file__).resolve().parents[1] / "fixtures" / "nvml" / "h200-2026-11-30.json"


class NVMLError(Exception):
    pass


class ReplayNvml:
    NVML_TEMPERATURE_GPU = 0

    def __init__(self, raw):
        self.raw = raw

    def _v(self, v):
        if isinstance(v, dict) and "nvml_error" in v:
            raise NVMLError(v["nvml_error"])
        return v

    def nvmlInit(self):
        pass

    def nvmlShutdown(self):
        pass

    def nvmlSystemGetDriverVersion(self):
        return self._v(self.raw["driver_version"])

    def nvmlDeviceGetCount(self):
        return len(self.raw["devices"])

    def nvmlDeviceGetHandleByIndex(self, i):
        return self.raw["devices"][i]

    def nvmlDeviceGetName(self, d):
        return self._v(d["name"])

    def nvmlDeviceGetUUID(self, d):
        return self._v(d["uuid"])

    def nvmlDeviceGetMemoryInfo(self, d):
        return SimpleNamespace(**self._v(d["memory"]))

    def nvmlDeviceGetUtilizationRates(self, d):
        return SimpleNamespace(**self._v(d["utilization"]))

    def nvmlDeviceGetPowerUsage(self, d):
        return self._v(d["power_mw"])

    def nvmlDeviceGetEnforcedPowerLimit(self, d):
        return self._v(d["power_limit_mw"])

    def nvmlDeviceGetTemperature(self, d, sensor):
        return self._v(d["temperature_c"])

    def nvmlDeviceGetComputeRunningProcesses(self, d):
        return [SimpleNamespace(**p) for p in self._v(d["compute_processes"])]

    def nvmlDeviceGetGraphicsRunningProcesses(self, d):
        return [SimpleNamespace(**p) for p in self._v(d["graphics_processes"])]


@pytest.fixture(scope="module")
def capture():
    return json.loads(CAPTURE.read_text())


def test_replay_reproduces_the_snapshot_taken_on_the_h200(capture):
    raw = capture["busy"]
    names = {int(k): v for d in raw["devices"] for k, v in d["process_names"].items()}
    snap = NvmlPoller(ReplayNvml(raw), proc_name=lambda pid: names.get(pid, "?")).sample()
    want = capture["poller_snapshot_busy"]
    assert snap.state == want["state"] == "ok" and snap.driver_version == want["driver_version"]
    for got, exp in zip(snap.gpus, want["gpus"]):
        assert got.name == exp["name"] == "NVIDIA H200"
        assert got.uuid == exp["uuid"]
        assert got.mem_total_gib == pytest.approx(exp["mem_total_gib"])
        assert got.mem_used_gib == pytest.approx(exp["mem_used_gib"], rel=0.05)
        assert got.power_limit_w == pytest.approx(exp["power_limit_w"])
        assert [(p.pid, p.name) for p in got.processes] == [(p["pid"], p["name"]) for p in exp["processes"]]
        assert got.processes[0].used_gib == pytest.approx(exp["processes"][0]["used_gib"])
    # the holder process of 20 GiB shows with its size
    assert snap.gpus[0].processes[0].used_gib > 20


def test_idle_capture_has_no_process(capture):
    snap = NvmlPoller(ReplayNvml(capture["idle"])).sample()
    assert snap.state == "ok" and snap.gpus[0].processes == []
    assert snap.gpus[0].mem_used_gib < 2
