"""Run on a machine with an NVIDIA GPU (the device machine): capture what NVML answers, and what the
console's poller makes of it, while a second process holds GPU memory (a 'foreign' process).

    python3 tests/gpu/capture_nvml.py OUT.json

The JSON is committed as tests/fixtures/nvml/<device>-<date>.json and replayed by
tests/unit/test_nvml_replay.py on machines without a GPU.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pynvml  # noqa: E402

from console.core.telemetry.nvml import NvmlPoller  # noqa: E402

HOLD_GIB = 7


def holder_code(gib: int, seconds: float) -> str:
    """A foreign process: a torch allocation of `gib` GiB that runs matmuls for `seconds` (util and power)."""
    return (f"import torch, time\nx = torch.empty({gib} * 1024**3, dtype=torch.uint8, device='cuda')\n"
            f"y = torch.randn(8192, 8192, device='cuda')\nprint('holding', flush=True)\nt = time.time()\n"
            f"while time.time() - t < {seconds}:\n    y = y @ y.T; y = y / y.norm()\ntorch.cuda.synchronize()\n")


HOLDER = holder_code(HOLD_GIB, 25)


def raw_answers() -> dict:
    """What NVML itself returns, call by call (independent of the poller's code)."""
    def q(fn, *a):
        try:
            v = fn(*a)
            return v.decode() if isinstance(v, bytes) else v
        except pynvml.NVMLError as e:
            return {"nvml_error": str(e)}

    out = {"driver_version": q(pynvml.nvmlSystemGetDriverVersion), "devices": []}
    for i in range(pynvml.nvmlDeviceGetCount()):
        h = pynvml.nvmlDeviceGetHandleByIndex(i)
        mem = q(pynvml.nvmlDeviceGetMemoryInfo, h)
        mem2 = q(pynvml.nvmlDeviceGetMemoryInfo, h, pynvml.nvmlMemory_v2)
        util = q(pynvml.nvmlDeviceGetUtilizationRates, h)

        def procs(fn):
            r = q(fn, h)
            if isinstance(r, dict):
                return r
            return [{"pid": p.pid, "usedGpuMemory": p.usedGpuMemory} for p in r]

        comp = procs(pynvml.nvmlDeviceGetComputeRunningProcesses)
        graph = procs(pynvml.nvmlDeviceGetGraphicsRunningProcesses)
        names = {}
        for p in (comp if isinstance(comp, list) else []) + (graph if isinstance(graph, list) else []):
            try:
                names[str(p["pid"])] = Path(f"/proc/{p['pid']}/comm").read_text().strip()
            except OSError:
                names[str(p["pid"])] = "?"
        out["devices"].append({
            "name": q(pynvml.nvmlDeviceGetName, h),
            "uuid": q(pynvml.nvmlDeviceGetUUID, h),
            "memory": mem if isinstance(mem, dict) else {"used": mem.used, "total": mem.total, "free": mem.free},
            "memory_v2": mem2 if isinstance(mem2, dict) else {"used": mem2.used, "total": mem2.total, "free": mem2.free,
                                                             "reserved": mem2.reserved},
            "utilization": util if isinstance(util, dict) else {"gpu": util.gpu, "memory": util.memory},
            "power_mw": q(pynvml.nvmlDeviceGetPowerUsage, h),
            "power_limit_mw": q(pynvml.nvmlDeviceGetEnforcedPowerLimit, h),
            "temperature_c": q(pynvml.nvmlDeviceGetTemperature, h, pynvml.NVML_TEMPERATURE_GPU),
            "compute_processes": comp,
            "graphics_processes": graph,
            "process_names": names,
        })
    return out


SMI_GPU = "index,name,memory.used,memory.total,memory.reserved,utilization.gpu,power.draw,temperature.gpu"
SMI_APPS = "gpu_uuid,pid,process_name,used_memory"


def nvidia_smi() -> dict:
    """nvidia-smi's own figures (MiB, %, W, °C), the reference the panel is compared with."""
    def run(args):
        r = subprocess.run(["nvidia-smi", *args, "--format=csv,noheader,nounits"], capture_output=True, text=True)
        return [[x.strip() for x in ln.split(",")] for ln in r.stdout.splitlines() if ln.strip()]
    gpus = run([f"--query-gpu={SMI_GPU}"])
    apps = run([f"--query-compute-apps={SMI_APPS}"])
    return {"query_gpu": SMI_GPU, "gpus": gpus, "query_compute_apps": SMI_APPS, "apps": apps}


def main(out_path: str) -> int:
    pynvml.nvmlInit()
    idle = raw_answers()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    time.sleep(3)
    busy = raw_answers()
    poller = NvmlPoller()
    snap = poller.sample()
    smi = nvidia_smi()
    holder.wait()
    doc = {
        "captured_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "what": f"NVML while a torch process holds {HOLD_GIB} GiB and runs matmuls (busy), and before it (idle)",
        "holder_pid": holder.pid,
        "idle": idle,
        "busy": busy,
        "poller_snapshot_busy": dataclasses.asdict(snap),
        "nvidia_smi_busy": smi,
    }
    Path(out_path).write_text(json.dumps(doc, indent=1, default=str))
    print(json.dumps({k: doc[k] for k in ("captured_utc", "host")}))
    print(json.dumps(doc["poller_snapshot_busy"], indent=1, default=str)[:3000])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
