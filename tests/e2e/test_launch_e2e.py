"""Launching a non-twin profile: preflight refuses a bound port (exit 5, one line); with --force the launch
goes ahead and an engine that cannot start is reported with its first real error line (exit 3)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import python_without_site

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


def profile_without_sglang(tmp_path: Path, port: int) -> Path:
    """engine.python is this Python without site-packages: no sglang, even where this venv has one."""
    py = python_without_site(tmp_path / "nosglang-bin")
    body = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text()
    body = body.replace('python = "python3"', f'python = "{py}"').replace("port = 30000", f"port = {port}")
    p = tmp_path / "nosglang.toml"
    p.write_text(body)
    return p


def test_preflight_refuses_a_bound_port_then_force_reports_the_engine_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        prof = profile_without_sglang(tmp_path, port)
        cmd = [sys.executable, "-m", "console.cli", "bench", "--profile", str(prof), "--prompts", "health", "--n", "1",
               "--sessions", str(tmp_path / "s")]
        r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert r.returncode == 5, r.stderr
        last = r.stderr.strip().splitlines()[-1]
        assert last.startswith("serving-console: preflight refused the launch:") and f"{port}" in last
        assert "--force" in last
    prof = profile_without_sglang(tmp_path, port)  # now free: the engine itself fails (no sglang in this python)
    r = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--profile", str(prof), "--prompts", "health",
                        "--n", "1", "--sessions", str(tmp_path / "s"), "--force"], cwd=REPO, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 3, r.stderr
    assert "No module named 'sglang'" in r.stderr.strip().splitlines()[-1]
