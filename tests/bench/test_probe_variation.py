"""How far the verify-tax probe lands from the twin's configured costs when every leg is its own launch draw (the
e2e test pins one launch seed for all legs): the per-request bootstrap CI does not see launch-to-launch variation,
so this prints how often it covers the configured figure. Run with `pytest -m bench -s tests/bench/test_probe_variation.py`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_probe_e2e import REPO, _configured

pytestmark = pytest.mark.bench
RUNS = 6


def test_probe_error_and_ci_coverage_across_launch_draws(tmp_path):
    prof = tmp_path / "k26-eagle3-d6-triton.toml"
    prof.write_text((REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text().replace(
        "enable_metrics = true", 'enable_metrics = true\nextra_args = ["--attention-backend", "triton"]'))
    rows = []
    unresolved: list[int] = []
    for run in range(RUNS):
        cmd = [sys.executable, "-m", "console.cli", "probe", "verify-tax", "--profile", str(prof), "--sim",
               "--sim-time-scale", "10", f"--sim-arg=--sim-node-seed={run}", "--n", "8", "--max-tokens", "512",
               "--no-anchor", "--json", "--sessions", str(tmp_path / f"s{run}")]
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        doc = json.loads(p.stdout)["probe"]
        cell = Path(doc["dir"]) / doc["legs"][0]["cell"]
        prompts = [json.loads(x)["prompt_tokens"] for x in (cell / "rows.jsonl").read_text().splitlines()]
        v_true, c_true = _configured(sum(prompts) / len(prompts) + 256,
                                     [leg["width"] for leg in doc["legs"] if leg["kind"] == "verify"],
                                     [leg["steps"] for leg in doc["legs"] if leg["kind"] == "chain"])
        node = doc["legs"][0]["twin_factors"]["node_speed_factor"]
        launch = [leg["twin_factors"]["launch_factor"] for leg in doc["legs"]]
        v, c = doc["fit"]["verify"], doc["fit"]["chain"]
        if v is None or c is None:
            print(f"node {run}: a group did not resolve: {doc['why']}")
            unresolved.append(run)
            continue
        rows.append((run, node, min(launch), max(launch), v["slope_ms"], v["ci_ms"], v_true * node,
                     c["slope_ms"], c["ci_ms"], c_true * node))
    print(f"\n{'node':>4} {'node×':>6} {'launch× range':>14} {'verify':>7} {'95% CI':>16} {'config':>6} {'err':>6}"
          f" {'chain':>6} {'95% CI':>16} {'config':>6} {'err':>6}")
    cover_v = cover_c = 0
    errs = []
    chain_errs = []
    for run, node, lo, hi, v, vci, vt, c, cci, ct in rows:
        ev, ec = 100 * (v / vt - 1), 100 * (c / ct - 1)
        cover_v += vci[0] <= vt <= vci[1]
        cover_c += cci[0] <= ct <= cci[1]
        errs += [abs(ev), abs(ec)]
        chain_errs.append(abs(ec))
        print(f"{run:>4} {node:6.3f} {lo:6.3f}–{hi:6.3f} {v:7.3f} [{vci[0]:.3f}, {vci[1]:.3f}] {vt:6.3f} {ev:+5.1f}%"
              f" {c:6.3f} [{cci[0]:.3f}, {cci[1]:.3f}] {ct:6.3f} {ec:+5.1f}%")
    print(f"CI covered the configured verify cost in {cover_v}/{len(rows)} runs, the chain cost in "
          f"{cover_c}/{len(rows)}; largest error {max(errs):.1f}%; {len(unresolved)} run(s) unresolved")
    # A leg's launch draw (sd 1.25% of a ~9 ms step) moves its median by ~0.1 ms: over widths 3–11 that was ~10% of
    # the 0.25 ms verify slope (measured −26%…+6%); over the default 2–16 (6 nodes, ×10, n 8): verify −2.4%…+7.2%,
    # chain −2.1%…+8.6%, all resolved, the CIs covering the configured value in 10 of 12 fits.
    assert len(unresolved) <= 1 and max(chain_errs) < 20 and cover_v + cover_c >= 8
