"""The twin's argv for a profile: what `serving-console launch P --dry-run` prints, less the interpreter, host and
port (the peer harness picks the port), fast-forwarded (twin_process.FAST) and seeded."""

from __future__ import annotations

import shlex
import subprocess
import sys

from tests.real_sglang.conftest import REPO
from tests.sim.twin_process import FAST


def twin_args(profile: str, time_scale: float | None = None) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "console.cli", "launch", profile, "--dry-run"], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=True).stdout.strip().splitlines()[-1]
    argv = shlex.split(out)
    argv = argv[argv.index("sglang.launch_server") + 1:]
    for flag in ("--host", "--port"):
        if flag in argv:
            i = argv.index(flag)
            del argv[i:i + 2]
    fast = list(FAST)
    if time_scale is not None:
        fast[fast.index("--sim-time-scale") + 1] = str(time_scale)
    return [*argv, *fast, "--sim-seed", "1"]
