"""Port 30000 is not fixed (#30 item 3): a twin launch whose profile port is taken takes a free one and says so,
and `--port N` (tui, bench, pair, sweep) puts the server on N — on the twin and, through the same runtime, on a
real engine, where a busy port given by hand stays preflight's one-line refusal."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "console.cli"]
FAST = ["--sim", "--sim-time-scale", "8", "--sim-arg=--sim-startup-scale=1000"]


def _held() -> socket.socket:
    """A port bound (not listening: a connect probe sees it free, a bind does not), as a stray process holds it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


def _profile(tmp: Path, port: int) -> Path:
    text = (REPO / "console/shipped/profiles/k26-nospec.toml").read_text()
    assert "port = 30000" in text
    p = tmp / "k26-nospec-here.toml"
    p.write_text(text.replace("port = 30000", f"port = {port}"))
    return p


def _argv_port(sessions: Path) -> int:
    (sj,) = sessions.glob("*/session.json")
    argv = json.loads(sj.read_text())["arms"][0]["argv"]
    return int(argv[argv.index("--port") + 1])


def test_a_busy_profile_port_moves_the_twin_and_says_so(tmp_path):
    held = _held()
    try:
        busy = held.getsockname()[1]
        p = subprocess.run([*CLI, "bench", "-p", str(_profile(tmp_path, busy)), *FAST, "--prompts", "health", "--n",
                            "2", "--max-tokens", "16", "--json", "--sessions", str(tmp_path / "s")], cwd=REPO,
                           capture_output=True, text=True, timeout=180)
    finally:
        held.close()
    assert p.returncode == 0, p.stderr[-2000:]
    assert f"server.port {busy} on 127.0.0.1 is busy: the engine twin listens on" in p.stderr
    assert _argv_port(tmp_path / "s") != busy


def test_port_flag_puts_the_server_there(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        want = s.getsockname()[1]
    p = subprocess.run([*CLI, "bench", "-p", "k26-nospec", *FAST, "--port", str(want), "--prompts", "health", "--n",
                        "2", "--max-tokens", "16", "--json", "--sessions", str(tmp_path / "s")], cwd=REPO,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    assert _argv_port(tmp_path / "s") == want


def test_a_busy_port_given_by_hand_is_refused_and_a_bad_one_is_bad_input(tmp_path):
    held = _held()
    try:
        busy = held.getsockname()[1]
        p = subprocess.run([*CLI, "bench", "-p", "k26-nospec", *FAST, "--port", str(busy), "--prompts", "health",
                            "--n", "2", "--max-tokens", "16", "--sessions", str(tmp_path / "s")], cwd=REPO,
                           capture_output=True, text=True, timeout=180)
    finally:
        held.close()
    assert p.returncode == 5 and f"server.port {busy} on 127.0.0.1 is already in use" in p.stderr, p.stderr[-2000:]
    for cmd in (["bench", "-p", "k26-nospec", "--prompts", "health"], ["pair", "--a", "k26-nospec", "--b",
                                                                         "k26-nospec", "--prompts", "health"],
                ["sweep", "smoke"]):
        q = subprocess.run([*CLI, *cmd, "--sim", "--port", "80"], cwd=REPO, capture_output=True, text=True,
                           timeout=60)
        assert q.returncode == 2 and "--port 80: give a port number, 1024-65535" in q.stderr, (cmd, q.stderr)
