"""Run on the device machine: preflight on a real GPU with a foreign process holding memory (issue #18).

    python3 tests/gpu/capture_preflight.py OUT.json

A TP-1 profile that would launch the real engine on GPU 0: `bench` must refuse it (exit 5) naming the GPU, the
process, its name and its size; `--force` must get past preflight to the launch (here the engine then dies, exit 3:
there is no sglang on the device machine, which is what the second line shows). The raw NVML answers of the same
moment are kept so that tests/unit/test_preflight_gpu_replay.py replays the refusal in the default suite.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import pynvml  # noqa: E402

from console.core.telemetry.nvml import NvmlPoller  # noqa: E402
from tests.gpu.capture_nvml import nvidia_smi, raw_answers  # noqa: E402

HOLDER = """
import torch, time
x = torch.empty(6 * 1024**3, dtype=torch.uint8, device='cuda')
print('holding', flush=True)
time.sleep(60)
"""


def main(out_path: str) -> int:
    pynvml.nvmlInit()
    tmp = Path(tempfile.mkdtemp())
    prof = tmp / "tp1-real.toml"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    prof.write_text(f'name = "tp1-real"\n[engine]\npython = "{sys.executable}"\n[model]\npath = "moonshotai/Kimi-K2.6"\n'
                    f'tp = 1\ntrust_remote_code = true\n[server]\nport = {port}\n')
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    time.sleep(2)
    raw = raw_answers()
    snap = NvmlPoller().sample()
    smi = nvidia_smi()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    runs = {}
    for name, extra in (("refused", []), ("forced", ["--force"])):
        r = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--profile", str(prof), "--prompts", "health",
                            "--n", "1", "--sessions", str(tmp / "sessions"), *extra], cwd=REPO, capture_output=True,
                           text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
        runs[name] = {"argv_tail": ["bench", "--profile", "tp1-real.toml", "--prompts", "health", "--n", "1", *extra],
                      "returncode": r.returncode, "stderr": r.stderr[-4000:]}
    holder.kill()
    doc = {"captured_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "host": socket.gethostname(), "holder_pid": holder.pid, "profile": prof.read_text(), "raw": raw,
           "poller_snapshot": dataclasses.asdict(snap), "nvidia_smi": smi, "runs": runs}
    Path(out_path).write_text(json.dumps(doc, indent=1, default=str))
    print(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
