"""Preflight on a real H200 with a foreign process (tests/gpu/capture_preflight.py on the device machine,
2026-12-01): the refusal names the GPU, the pid, the process name and its size; --force gets past it. The raw
NVML answers of that moment are replayed through the poller and preflight here."""

import json
import tomllib
from pathlib import Path

from console.core.launch.preflight import check_gpus
from console.core.launch.profile import profile_from_dict
from console.core.telemetry.nvml import NvmlPoller
from tests.unit.test_nvml_replay import FIXTURES, ReplayNvml

CAPTURE = json.loads((FIXTURES / "h200-preflight-2026-12-01.json").read_text())


def test_the_replayed_h200_snapshot_refuses_a_launch_on_gpu0_naming_the_process():
    raw = CAPTURE["raw"]
    names = {int(k): v for d in raw["devices"] for k, v in d["process_names"].items()}
    snap = NvmlPoller(ReplayNvml(raw), proc_name=lambda pid: names.get(pid, "?")).sample()
    prof = profile_from_dict(tomllib.loads(CAPTURE["profile"]), name="tp1-real", path=Path("tp1-real.toml"))
    issues = [i for i in check_gpus(prof, snap) if i.severity == "error"]
    pid = CAPTURE["holder_pid"]
    (app,) = [a for a in CAPTURE["nvidia_smi"]["apps"] if int(a[1]) == pid]
    gib = float(app[3]) / 1024
    assert len(issues) == 1
    msg = issues[0].message
    assert msg.startswith(f"GPU 0: pid {pid} (python3) holds {gib:.1f} GiB") and f"kill {pid}" in msg, msg


def test_on_the_device_bench_refused_with_exit_5_and_force_got_past_preflight():
    refused, forced = CAPTURE["runs"]["refused"], CAPTURE["runs"]["forced"]
    pid = CAPTURE["holder_pid"]
    assert refused["returncode"] == 5
    last = refused["stderr"].strip().splitlines()[-1]
    assert last.startswith(f"serving-console: preflight refused the launch: GPU 0: pid {pid} (python3) holds ")
    assert "(--force launches anyway)" in last
    assert forced["returncode"] == 3  # past preflight, into the launch: no sglang on the device machine
    assert "launching: " in forced["stderr"] and "No module named 'sglang'" in forced["stderr"]
