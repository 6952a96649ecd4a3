"""The console's relaunching instruments on the real speculative server (issue #25 §4): a same-session pair d2 vs d4
with anchors (three launches, A B A), a campaign of two arms × one domain × 1 and 2 streams (the shipped cpu-smoke
plan), and the verify-tax probe (dummy draft weights at several verify widths, then the arm again). Every launch is
the real SGLang 0.5.23 server the shipped CPU profiles name; outputs are short (decode runs at a few tok/s)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from console.core.measure.pairs import VERDICT_RE
from tests.browser.cdp import Browser, chromium_binary
from tests.browser.test_html_browser import check_page
from tests.real_sglang.conftest import run_cli
from tests.real_sglang.spec import SPEC, cpu_profiles, rows_of, server_side

pytestmark = pytest.mark.real_sglang


@pytest.fixture
def profiles(real_env, tmp_path) -> dict:
    return {"SERVING_CONSOLE_PROFILES": str(cpu_profiles(tmp_path / "profiles"))}


def test_a_same_session_pair_d2_vs_d4_on_the_real_server(profiles, tmp_path):
    p = run_cli(["pair", "--a", "cpu-smollm2-standalone-d2", "--b", "cpu-smollm2-standalone-d4", "--prompts", "health",
                 "--n", "3", "--max-tokens", "32", "--json", "--sessions", str(tmp_path / "s")], timeout=900,
                env=profiles)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout)["pair"]
    assert (out["a_n"], out["b_n"]) == (6, 3) and out["order"] == "ABA"
    assert len(out["a_anchor_tok_s"]) == 2 and len(out["b_anchor_tok_s"]) == 1  # each launch anchored
    assert re.fullmatch(VERDICT_RE, out["verdict"]), out["verdict"]
    lo, hi = out["ci95_pct"]
    assert lo <= out["delta_pct"] <= hi
    assert 1 < out["a_tau"] <= 3 and 1 < out["b_tau"] <= 5  # depth 2: τ ≤ 3; depth 4: τ ≤ 5
    d = Path(out["dir"])
    doc = json.loads((d / "pair.json").read_text())
    # no forecast of B: nothing in this session measured this model's verify tax, and the published one is
    # Kimi-K2.6's on 4×B200 (the probe below reads ~40 ms/token here); the pair says so instead of a number
    assert out["forecast_vs_measured"] is None and doc["forecast"]["depth"] == 4
    assert "the verify tax of" in doc["forecast"]["refused"] and "is unknown" in doc["forecast"]["refused"]
    assert [leg["arm"] for leg in doc["legs"]] == ["A", "B", "A"]
    assert len(list(d.glob("engine-*.log"))) == 3  # three real launches
    for leg in doc["legs"]:  # each leg's server was the arm it claims: the real server's own /server_info
        m = json.loads((d / leg["cell_dir"] / "manifest.json").read_text())
        steps = {"A": 2, "B": 4}[leg["arm"]]
        assert m["speculative"]["num_steps"] == steps and m["speculative"]["algorithm"] == "STANDALONE", m
        assert m["simulated"] is False and m["engine_version"] == "0.5.23"
    md = (d / "report.md").read_text()
    assert md.startswith("# Pair: cpu-smollm2-standalone-d2 (A) vs cpu-smollm2-standalone-d4 (B)")
    assert out["verdict"] in md and "SIMULATED" not in md and "No forecast of depth 4 before B ran" in md
    h = run_cli(["report", str(d), "--html", str(tmp_path / "pair.html")], timeout=120)
    assert h.returncode == 0, h.stderr
    page = (tmp_path / "pair.html").read_text()
    assert "<script" not in page and "cpu-smollm2-standalone-d4" in page and "SIMULATED" not in page
    # and it renders: headless Chromium at a laptop and a phone viewport, no console problem, no fetch, every plot
    # drawn (the browser lane's check; .ci/run installs chromium before this lane, its absence fails naming how)
    chromium_binary()
    with Browser() as b:
        seen = check_page(b, tmp_path / "pair.html", tmp_path, "real-pair")
        text = b.evaluate("document.body.innerText")
    assert "plot-acceptance" in [p["id"] for p in seen["laptop"]["plots"]]
    assert out["verdict"] in text and "SIMULATED" not in text
    print(f"\nreal pair d2 vs d4: A {out['a_median_tok_s']:.2f} tok/s τ {out['a_tau']:.2f}, B {out['b_median_tok_s']:.2f} "
          f"tok/s τ {out['b_tau']:.2f}; {out['verdict']}; drift {out['drift_pct']:+.1f}%")


def test_a_campaign_of_two_arms_one_domain_one_and_two_streams_on_the_real_server(profiles, tmp_path):
    p = run_cli(["sweep", "cpu-smoke", "--json", "--yes", "--sessions", str(tmp_path / "s")], timeout=1200,
                env=profiles)
    assert p.returncode == 0, p.stderr[-3000:]
    a = json.loads(p.stdout)["campaign"]
    c = a["campaign"]
    assert c["complete"] and c["cells_planned"] == 4 and c["cells_complete"] == 4 and not c.get("sim_time_scale")
    d = Path(c["dir"])
    assert len(list(d.rglob("engine-*.log"))) == 2  # one real launch per arm
    for cell in a["cells"]:
        assert cell["complete"] and cell["n_included"] == max(2, cell["concurrency"]), cell["key"]
        rows = rows_of(Path(cell["cell_dir"]))
        if cell["arm"] == SPEC:  # the campaign's τ is the real server's
            assert cell["tau"] == pytest.approx(server_side(rows, 3)["tau"], rel=1e-9)
        else:
            assert cell["tau"] is None and all(r["spec_verify_ct"] is None for r in rows)
    assert {(r["prompt_set"], r["concurrency"]) for r in a["routing"]} == {("math-short", 1), ("math-short", 2)}
    for r in a["routing"]:
        assert r["controlled"] is True and re.fullmatch(VERDICT_RE, r["decision"]), r["decision"]
    (curve,) = [cv for cv in a["curves"] if cv["arm"] == SPEC]
    assert curve["net_negative"]["vs"] == "cpu-smollm2-nospec"
    r = run_cli(["report", str(d), "--json"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["campaign"]["routing"] == a["routing"]  # recomputed from the rows alone
    print("\nreal campaign:", "; ".join(f"c{r['concurrency']}: {r['decision']}" for r in a["routing"]),
          "|", curve["net_negative"]["statement"])


def test_the_verify_tax_probe_on_the_real_server(profiles, tmp_path):
    """`probe verify-tax --profile cpu-smollm2-standalone-d3 --json` as the operator types it: the profile's [probe]
    section sizes it for this CPU — dummy draft weights (τ ≈ 1: every step verifies its whole width and keeps one
    token) at verify widths 4 and 10 of a topk-2 tree at depth 3 (4 = steps + 1, the narrowest 0.5.23 verifies; 11
    the widest), 2 × 24 tokens of the health prompts each, then the arm again, re-anchored. The answer is a tax in ms
    per verified token with its CI, or a refusal that says the CPU's noise swamps it — whichever the real server's
    figures give."""
    p = run_cli(["probe", "verify-tax", "--profile", SPEC, "--json", "--sessions", str(tmp_path / "s")], timeout=1200,
                env=profiles)
    assert p.returncode in (0, 1), p.stderr[-3000:]
    doc = json.loads(p.stdout)["probe"]
    assert [(leg["kind"], leg["width"]) for leg in doc["legs"]] == [("verify", 4), ("verify", 10)]
    assert doc["prompt_set"]["name"] == "health" and doc["protocol"]["n"] == 2 and doc["protocol"]["max_tokens"] == 24
    for leg in doc["legs"]:
        assert leg["dummy_weights"] and leg["tau"] <= 1.05, leg  # random draft weights: nothing is accepted
    assert doc["anchor"]["profile"] == SPEC and doc["anchor"]["median_tok_s"] > 0  # the arm relaunched, re-anchored
    fit = doc["fit"]
    if p.returncode == 0:
        v = fit["verify"]
        lo, hi = v["ci_ms"]
        assert lo <= v["slope_ms"] <= hi and doc["tax"]["source"] == "probed"
        print(f"\nreal probe: verify tax {v['slope_ms']:.3f} ms/token, 95% CI [{lo:.3f}, {hi:.3f}]")
    else:
        assert doc["why"], doc  # the refusal says why, in words
        print(f"\nreal probe refused: {doc['why']}")
