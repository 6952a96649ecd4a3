"""Figures under a time-scaled twin are the modelled node's (issue #12 item 4): the same cell at ×1 and ×4 reads
the same tok/s, TTFT and $/M in `bench --json` and in the progress lines; the client clock's figures sit under
`wall_clock` only."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from console.core.launch.ports import free_port

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
SCALE = 4


def bench(tmp: Path, scale: float) -> tuple[dict, str]:
    profiles = tmp / f"profiles-{scale:g}"
    profiles.mkdir()
    text = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text()
    (profiles / "k26-eagle3-d6.toml").write_text(text.replace("port = 30000", f"port = {free_port()}"))
    cmd = [sys.executable, "-m", "console.cli", "bench", "--profile", "k26-eagle3-d6", "--sim", "--prompts", "health",
           "--n", "4", "--max-tokens", "96", "--warmup", "0", "--sim-time-scale", f"{scale:g}",
           "--sim-arg=--sim-startup-scale=1000", "--sim-arg=--sim-launch-seed=7",  # the same launch draw at both scales
           "--sessions", str(tmp / f"s-{scale:g}"), "--json"]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
                       env={**os.environ, "SERVING_CONSOLE_PROFILES": str(profiles), "PYTHONUNBUFFERED": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)["cell"], r.stderr


def test_a_time_scaled_twin_reports_the_modelled_nodes_figures(tmp_path):
    # ×4, not more: the client's wall-clock delays on a loaded machine (scheduling, loopback HTTP) do not shrink
    # with the scale, so at a high scale they inflate the modelled figures (a CPU hog made ×8 read 15%+ apart)
    real, _ = bench(tmp_path, 1)
    fast, progress = bench(tmp_path, SCALE)
    assert "wall_clock" not in real
    assert fast["sim_time_scale"] == SCALE
    # the same modelled node: the same figures, not 4× apart. The bound is 35%: a conversion missed or applied twice
    # reads 300% or 75% off, while a loaded machine's client delays, scaled ×4, lower the ×4 run's rates by up to
    # ~15-20% (it failed at 15% once in a suite run beside a CPU hog and a pip install)
    assert fast["median_tok_s"] == pytest.approx(real["median_tok_s"], rel=0.35), (fast, real)
    # TTFT is converted too (not the client clock's ÷S). It reads high under ×S: the client's own few ms per request
    # (loopback HTTP, a loaded machine) are scaled ×S like everything else, beside a ~20 ms modelled prefill
    assert fast["ttft_median_s"] >= 0.7 * real["ttft_median_s"], (fast, real)
    assert fast["wall_clock"]["ttft_median_s"] == pytest.approx(fast["ttft_median_s"] / SCALE)
    assert fast["usd_per_m_tokens"] == pytest.approx(real["usd_per_m_tokens"], rel=0.35)
    assert fast["implied_step_ms"] == pytest.approx(real["implied_step_ms"], rel=0.35)
    # the client clock's own rate, named as such
    assert fast["wall_clock"]["time_scale"] == SCALE
    assert fast["wall_clock"]["median_tok_s"] == pytest.approx(SCALE * fast["median_tok_s"])
    # progress lines print modelled rates too
    rates = [float(x) for x in re.findall(r"health-\S+\s+([\d.]+) tok/s", progress)]
    assert len(rates) == 4, progress[-2000:]
    assert max(rates) < 2 * real["median_tok_s"], (rates, real["median_tok_s"])
