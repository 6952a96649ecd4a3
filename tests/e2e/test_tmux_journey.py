"""The user journey under tmux, read from the screen as a person would: start the console on the twin, see
the anchor, run a cell, flip depth (relaunch + fresh anchor), quit — each result read with capture-pane."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


class Tmux:
    def __init__(self, name: str, cmd: str, width: int = 160, height: int = 48) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is required for the journey test (Debian package tmux)")
        self.name = name
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), cmd], check=True)

    def screen(self) -> str:
        r = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return r.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def wait(self, pattern: str, timeout: float = 60.0) -> str:
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.screen()
            if re.search(pattern, s):
                return s
            time.sleep(0.2)
        raise AssertionError(f"screen never showed {pattern!r}; last screen:\n{self.screen()}")

    def kill(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def test_journey_start_anchor_cell_flip_quit(tmp_path):
    sessions = tmp_path / "sessions"
    cmd = (f"unset COLUMNS LINES; cd {REPO} && SERVING_CONSOLE_SESSIONS={sessions} {sys.executable} -m console.cli --sim-time-scale 4; "
           f"echo CONSOLE-EXITED-$?; sleep 30")
    t = Tmux(f"sc-journey-{os.getpid()}", cmd)
    try:
        t.wait(r"launching k26-eagle3-d6", 30)                       # startup phases
        t.wait(r"READY\s+SIMULATED", 60)                             # the dashboard
        s = t.wait(r"arms k26-eagle3-d6 \[anchor \d+ tok/s", 60)     # the automatic anchor landed
        assert "EAGLE-3 depth 6 · topk 1 · 7 draft tokens" in s
        t.keys("r")
        t.wait(r"run a cell", 10)
        t.keys("C-r")                                                 # run with the defaults (health, n 8)
        s = t.wait(r"health-n8-m128-c1\s+8/8\s+done", 60)
        assert re.search(r"median \d+\.\d tok/s \(interp\., n=8\)", s)
        t.keys("+")
        s = t.wait(r"draft depth \+1", 10)
        assert "+ --speculative-num-steps 7" in s and "forecast" in s
        t.keys("y")
        t.wait(r"launching k26-eagle3-d7", 20)
        s = t.wait(r"arms k26-eagle3-d6 \[.*\] → k26-eagle3-d7 \[anchor \d+ tok/s", 90)  # fresh anchor, new arm
        assert "EAGLE-3 depth 7 · topk 1 · 8 draft tokens" in s and "p7" in s
        t.keys("c")                                                   # chat one turn with the served model
        t.wait(r"ctrl\+s|Enter sends|send", 10)
        t.keys("Explain speculative decoding in one sentence.", "Enter")
        s = t.wait(r"tok/s.*τ|τ.*tok/s", 60)                          # the turn's stats line
        assert re.search(r"TTFT", s)
        t.keys("Escape")
        t.wait(r"READY\s+SIMULATED", 10)
        t.keys("q")
        t.wait(r"CONSOLE-EXITED-0", 30)
    finally:
        t.kill()
    assert list(sessions.glob("*/cell-*-anchor")) and list(sessions.glob("*/k26-eagle3-d7.toml"))


def test_journey_at_80x24_reads_status_rate_tau_and_the_cells_progress_and_median(tmp_path):
    """At 80×24 everything an operator watches is on the dashboard without a key: the status, the live rate, τ
    with the acceptance curve, and the cell's progress and median — read off the screen while and after it runs."""
    sessions = tmp_path / "sessions"
    cmd = (f"unset COLUMNS LINES; cd {REPO} && SERVING_CONSOLE_SESSIONS={sessions} {sys.executable} -m console.cli --sim-time-scale 4; "
           f"echo CONSOLE-EXITED-$?; sleep 30")
    t = Tmux(f"sc-journey80-{os.getpid()}", cmd, width=80, height=24)
    try:
        t.wait(r"READY\s+SIMULATED", 90)
        s = t.wait(r"anchor\s+8/8\s+done", 60)                          # the anchor cell, on the dashboard
        assert re.search(r"median \d+\.\d tok/s \(n=8\)  τ \d\.\d\d", s)  # τ beside the median (#30)
        assert "rolling 5 s" in s and re.search(r"τ \d\.\d\d tokens/step", s) and "p1–p6" in s
        assert s.rstrip().splitlines()[-1].rstrip().endswith("? help  q quit")   # the footer, uncut
        t.keys("r")
        t.wait(r"ctrl\+r runs", 10)
        t.keys("C-r")                                                     # the defaults: health, n 8
        s = t.wait(r"health-n8-m128-c1\s+\d/8", 30)                       # its progress while it runs (or done)
        s = t.wait(r"health-n8-m128-c1\s+8/8\s+done", 60)
        cell = s[s.index("health-n8-m128-c1"):]
        m = re.search(r"median (\d+\.\d) tok/s \(n=8\)", cell)                # the median, right under it
        assert m and float(m.group(1)) > 0, s
        s = t.wait(r"READY[\s\S]*rolling 5 s[\s\S]*τ \d\.\d\d[\s\S]*health-n8-m128-c1\s+8/8\s+done", 15)  # toasts gone
        t.keys("q")
        t.wait(r"CONSOLE-EXITED-0", 30)
    finally:
        t.kill()
