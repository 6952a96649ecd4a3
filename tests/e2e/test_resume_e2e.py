"""kill -9 of the console mid-cell loses no finished row, and `bench --resume` completes the cell."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


def wait_rows(root: Path, at_least: int, timeout: float = 90) -> Path:
    deadline = time.time() + timeout
    while time.time() < deadline:
        for f in root.glob("*/cell-*/rows.jsonl"):
            if len(f.read_text().splitlines()) >= at_least:
                return f
        time.sleep(0.05)
    raise AssertionError(f"no cell reached {at_least} rows under {root}")


def test_kill9_mid_cell_then_resume_completes_without_loss_or_duplicates(tmp_path):
    sessions = tmp_path / "sessions"
    cmd = [sys.executable, "-m", "console.cli", "bench", "--profile", "k26-eagle3-d6", "--sim", "--prompts", "health",
           "--n", "8", "--max-tokens", "96", "--sessions", str(sessions)]
    p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows_file = wait_rows(sessions, 3)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    before = rows_file.read_bytes()
    n_before = len(before.decode().splitlines())
    assert 3 <= n_before < 8
    cell = rows_file.parent
    assert json.loads((cell / "manifest.json").read_text())["complete"] is False

    r = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--resume", str(cell), "--json",
                        "--sessions", str(sessions)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)["cell"]
    assert out["n"] == 8 and out["n_ok"] == 8
    after = rows_file.read_bytes()
    assert after.startswith(before)  # finished rows are kept byte for byte
    ids = [json.loads(x)["request_id"] for x in after.decode().splitlines()]
    assert len(ids) == len(set(ids)) == 8  # nothing sent twice
    m = json.loads((cell / "manifest.json").read_text())
    assert m["complete"] is True and m["resumed"][0]["rows_before"] == n_before
    # the resumed engine log sits in the same session
    assert len(list(cell.parent.glob("engine-*.log"))) == 2


def test_resume_refuses_a_different_arm(tmp_path):
    sessions = tmp_path / "sessions"
    base = [sys.executable, "-m", "console.cli", "bench", "--sessions", str(sessions)]
    r = subprocess.run(base + ["--profile", "k26-eagle3-d6", "--sim", "--prompts", "health", "--n", "1",
                               "--max-tokens", "16", "--sim-time-scale", "4", "--json"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-1500:]
    cell = Path(json.loads(r.stdout)["cell"]["rows_path"]).parent
    prof = tmp_path / "d5.toml"
    prof.write_text((REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text()
                    .replace("steps = 6 ", "steps = 5 ").replace("draft_tokens = 7 ", "draft_tokens = 6 "))
    r = subprocess.run(base + ["--resume", str(cell), "--profile", str(prof), "--sim", "--sim-time-scale", "4"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr[-1500:]
    assert "different configuration than the cell: num_steps 6 → 5" in r.stderr
