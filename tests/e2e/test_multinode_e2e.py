"""A profile with nnodes > 1 compiles one argv per node and launches each through its command template;
readiness is read from rank 0, a dead rank is reported (its latency target, within a second, is the benchmark
tests/bench/test_timing_targets.py), and stop ends every rank."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.core.launch.profile import load_profile
from console.core.run.runtime import Runtime

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


def two_node_profile(tmp_path: Path) -> Path:
    body = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text().replace('python = "python3"', f'''python = "sim"
template = ["{sys.executable}", "{REPO / 'tests' / 'e2e' / 'fake_node.py'}", "{{node_rank}}", "{{argv_shell}}"]
hosts = ["127.0.0.1", "127.0.0.1"]''').replace("tp = 4", 'tp = 4\nnnodes = 2\ndist_init_addr = "127.0.0.1:5757"')
    p = tmp_path / "two-node.toml"
    p.write_text(body)
    return p


def test_dry_run_prints_one_argv_per_node(tmp_path):
    p = two_node_profile(tmp_path)
    r = subprocess.run([sys.executable, "-m", "console.cli", "launch", str(p), "--dry-run"], cwd=REPO,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "# node rank 0 (serves HTTP" in r.stdout and "# node rank 1" in r.stdout
    assert r.stdout.count("--nnodes 2") == 2
    assert "--node-rank 0 --dist-init-addr 127.0.0.1:5757" in r.stdout
    assert "--node-rank 1 --dist-init-addr 127.0.0.1:5757" in r.stdout


async def test_two_nodes_start_ready_from_rank0_rank_death_reported_and_stop_ends_all(tmp_path):
    events = []
    rt = Runtime(profile=load_profile(two_node_profile(tmp_path)), sim_args=["--sim-time-scale", "8"],
                 sessions=tmp_path / "s", observer=events.append)
    try:
        await rt.start()
        assert rt.state.phase == "ready" and len(rt.node_engines) == 1
        rank1 = rt.node_engines[0]
        assert rank1.alive and rt.engine.alive
        os.killpg(rank1.pid, signal.SIGKILL)
        t0 = time.monotonic()
        while rt.state.phase != "dead" and time.monotonic() - t0 < 30:
            await asyncio.sleep(0.05)
        assert rt.state.phase == "dead", "the killed rank was not reported within 30 s"
        assert "node rank 1" in rt.state.error
    finally:
        await rt.stop()
    assert not rt.engine.alive and not rt.node_engines[0].alive
