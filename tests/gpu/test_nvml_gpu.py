"""On a real NVIDIA GPU (run on the device machine: `pytest -m gpu tests/gpu`)."""

import subprocess
import sys
import time

import pytest

from console.core.telemetry.nvml import NvmlPoller, foreign_processes

pytestmark = pytest.mark.gpu


def test_poller_reads_a_real_gpu():
    snap = NvmlPoller().sample()
    assert snap.state == "ok", snap.message
    assert snap.gpus and snap.driver_version
    g = snap.gpus[0]
    assert g.name and "NVIDIA" in g.name and g.uuid.startswith("GPU-")
    assert g.mem_total_gib > 10 and 0 <= g.mem_used_gib <= g.mem_total_gib
    assert g.util_pct is not None and g.temp_c is not None


def test_a_process_holding_memory_shows_as_foreign_with_its_size():
    code = ("import torch,time; x=torch.empty(8*1024**3,dtype=torch.uint8,device='cuda'); "
            "print('ok',flush=True); time.sleep(8)")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ok"
        time.sleep(1)
        snap = NvmlPoller().sample()
        found = [(i, x) for i, x in foreign_processes(snap) if x.pid == p.pid]
        if not found:  # some virtualised drivers hide per-process accounting: say so, don't pass silently
            pytest.fail(f"NVML lists no process for pid {p.pid}: {[x.pid for g in snap.gpus for x in g.processes]}")
        assert found[0][1].used_gib is None or found[0][1].used_gib >= 7.5
    finally:
        p.kill()


def test_used_memory_matches_nvidia_smi_within_1pct():
    """NVML v2's `used` is what nvidia-smi reports (the driver's reservation apart); v1's includes it."""
    from tests.gpu.capture_nvml import nvidia_smi
    snap = NvmlPoller().sample()
    smi = nvidia_smi()
    for g, row in zip(snap.gpus, smi["gpus"]):
        assert g.mem_source == "v2", "this driver has nvmlDeviceGetMemoryInfo_v2"
        used = float(row[2])
        assert abs(g.mem_used_gib * 1024 - used) <= max(0.01 * used, 2.0), (g.mem_used_gib * 1024, used)
        assert g.mem_reserved_gib * 1024 == pytest.approx(float(row[4]), abs=2)
