"""Replay NVML answers captured on a real NVIDIA H200 (tests/gpu/capture_nvml.py on the device machine,
2026-11-30, driver 580.159.04) through the poller: it must produce what it produced there."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from console.core.telemetry.nvml import NvmlPoller

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nvml"
CAPTURE = FIXTURES / "h200-2026-11-30.json"
PANEL = FIXTURES / "h200-panel-2026-12-01.json"
"""The GPU panel on a real H200 (tests/gpu/capture_panel.py, 2026-12-01, driver 580.159.04): raw NVML v1 and v2
answers, the poller's snapshot, nvidia-smi's figures read within the same second, the panel's text."""


class NVMLError(Exception):
    pass


class ReplayNvml:
    NVML_TEMPERATURE_GPU = 0
    nvmlMemory_v2 = 0x2000028

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

    def nvmlDeviceGetMemoryInfo(self, d, version=None):
        if version is None:
            return SimpleNamespace(**self._v(d["memory"]))
        if "memory_v2" not in d:  # a capture from before the poller asked for v2: as a driver without it
            raise NVMLError("Function Not Found")
        return SimpleNamespace(**self._v(d["memory_v2"]))

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


def test_an_old_capture_without_v2_falls_back_to_v1_and_says_so(capture):
    snap = NvmlPoller(ReplayNvml(capture["busy"])).sample()
    g = snap.gpus[0]
    assert g.mem_source == "v1" and g.mem_reserved_gib is None


@pytest.fixture(scope="module")
def panel():
    return json.loads(PANEL.read_text())


def _smi(panel):
    cols = panel["nvidia_smi"]["query_gpu"].split(",")
    return [dict(zip(cols, row)) for row in panel["nvidia_smi"]["gpus"]]


def test_used_memory_equals_nvidia_smi_within_1pct_on_the_h200(panel):
    """nvidia-smi (current drivers) reports used without the driver's reservation: NVML v2's `used`. v1's `used`
    includes it (~0.6 GiB on an H200) and read 7.80 GiB where nvidia-smi read 7,375 MiB (issue #19)."""
    names = {int(k): v for d in panel["raw"]["devices"] for k, v in d["process_names"].items()}
    snap = NvmlPoller(ReplayNvml(panel["raw"]), proc_name=lambda pid: names.get(pid, "?")).sample()
    for g, smi, raw in zip(snap.gpus, _smi(panel), panel["raw"]["devices"]):
        assert g.mem_source == "v2"
        smi_used = float(smi["memory.used"])
        assert abs(g.mem_used_gib * 1024 - smi_used) <= 0.01 * smi_used, (g.mem_used_gib * 1024, smi_used)
        assert g.mem_total_gib * 1024 == pytest.approx(float(smi["memory.total"]), abs=1)
        assert g.mem_reserved_gib * 1024 == pytest.approx(float(smi["memory.reserved"]), abs=1)
        v1_used = raw["memory"]["used"] / 2**20
        assert v1_used - smi_used > 500, "the capture shows the v1/v2 difference the fix is about"


def test_the_gpu_panel_shows_the_foreign_process_with_nvidia_smis_figures(panel):
    from rich.console import Console
    from console.core.run.state import RuntimeState
    from console.ui.render import gpu_panel
    names = {int(k): v for d in panel["raw"]["devices"] for k, v in d["process_names"].items()}
    snap = NvmlPoller(ReplayNvml(panel["raw"]), proc_name=lambda pid: names.get(pid, "?")).sample()
    st = RuntimeState()
    st.gpu = snap
    con = Console(width=60, record=True, color_system=None)
    con.print(gpu_panel(st))
    text = con.export_text()
    smi = _smi(panel)[0]
    used_gib = float(smi["memory.used"]) / 1024
    assert f"{used_gib:.1f}/140.4" in text, text
    (app,) = panel["nvidia_smi"]["apps"]
    pid, smi_mib = int(app[1]), float(app[3])
    (proc,) = [p for p in snap.gpus[0].processes if p.pid == pid]
    assert proc.foreign and proc.used_gib * 1024 == pytest.approx(smi_mib, rel=0.01)
    assert f"foreign: GPU0 pid {pid} python3 {smi_mib / 1024:.1f} GiB" in text, text
    assert "driver-reserved" in text
    # what the device machine's own TUI showed, read off its screen at 160×48
    assert f"{used_gib:.1f}/140.4" in panel["panel_text"]["160x48"]
    assert f"pid {panel['poller_snapshot']['gpus'][0]['processes'][0]['pid']}" in panel["panel_text"]["160x48"]
