"""`serving-console pair` on the twin: legs A B A with relaunches and anchors, verdict with CI, forecast kept
beside the measurement, and `report` recomputing the same figures from the rows."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from console.core.measure.pairs import VERDICT_RE

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]


def test_pair_d6_vs_d7_headless_and_report_recomputes(tmp_path):
    cmd = [sys.executable, "-m", "console.cli", "pair", "--a", "k26-eagle3-d6", "--b", "k26-eagle3-d7", "--prompts",
           "health", "--n", "4", "--max-tokens", "96", "--sim", "--sim-time-scale", "4", "--json",
           "--sessions", str(tmp_path)]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)["pair"]
    for k in ("a_median_tok_s", "b_median_tok_s", "delta_pct", "ci95_pct", "a_anchor_tok_s", "b_anchor_tok_s",
              "drift_pct", "verdict", "a_n", "b_n"):
        assert out[k] is not None, k
    assert (out["a_n"], out["b_n"]) == (8, 4)
    assert len(out["a_anchor_tok_s"]) == 2 and len(out["b_anchor_tok_s"]) == 1  # each launch anchored
    lo, hi = out["ci95_pct"]
    assert lo <= out["delta_pct"] <= hi
    # the one verdict format, resolved or not (measure/pairs.VERDICT_RE; its outcomes are asserted with seeded
    # inputs in tests/unit/test_pairs.py): a resolved pair names arm B and states sizes of one sign
    assert re.fullmatch(VERDICT_RE, out["verdict"]), out["verdict"]
    assert out["verdict"].startswith(("k26-eagle3-d7 faster by", "k26-eagle3-d7 slower by", "no difference resolved"))
    assert out["resolved"] == (not out["verdict"].startswith("no difference resolved"))
    # every pair states the smallest change it resolves, and its interval holds the launches' spread
    assert out["mde_pct"] > 0 and out["verdict"].split(" — ")[0].endswith(f" · MDE {out['mde_pct']:.1f}%")
    assert out["launch_sd_pct"] > 0 and out["launch_df"] == 3 + 1  # the default prior's 3 + A's two launches
    fvm = out["forecast_vs_measured"]
    assert fvm["depth"] == 7 and fvm["predicted_tok_s"] > 0
    d = Path(out["dir"])
    doc = json.loads((d / "pair.json").read_text())
    # written before B is launched: only depth 6 is measured then, so no tax is fitted in the session (B's anchor
    # would have given the fit a depth-7 point: the forecast would partly restate B) and the published tax prices it
    assert doc["forecast"]["tax_source"].startswith("published"), doc["forecast"]
    err = p.stderr
    assert 0 <= err.find("forecast for B (depth 7)") < err.find("leg B1: launching"), err[-2000:]
    assert [leg["arm"] for leg in doc["legs"]] == ["A", "B", "A"]
    assert [leg["launch"] for leg in doc["legs"]] == [0, 1, 2] and doc["schema"] == 2
    assert doc["spec"]["launch"]["node_key"].startswith("twin:") and doc["spec"]["launch"]["record"] == []
    assert "MDE" in (d / "report.md").read_text() and "launch sd" in (d / "report.md").read_text()
    md = (d / "report.md").read_text()
    assert md.startswith("# Pair: k26-eagle3-d6 (A) vs k26-eagle3-d7 (B)")
    # measured on a time-compressed twin: the report says so and converts the medians back to the modelled node
    assert out["sim_time_scale"] == 4.0 and doc["sim_time_scale"] == 4.0
    assert "time scale ×4" in md and "modelled node's" in md and f"A {out['a_median_tok_s'] * 4:.1f}" in md
    # every artifact of a twin run says SIMULATED, in the same words (#30 item 2)
    from console.core.sessions.report import simulated_note
    words = simulated_note(True, 4.0)
    assert out["simulated"] is True and out["simulated_note"] == words
    assert md.splitlines()[2] == f"**{words}**"
    h = subprocess.run([sys.executable, "-m", "console.cli", "report", str(d), "--html", str(tmp_path / "p.html")],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert h.returncode == 0, h.stderr
    page = (tmp_path / "p.html").read_text()
    from html import escape
    assert escape(words.partition(": ")[2]) in page and "<b>SIMULATED</b>" in page
    assert "SIMULATED: serving-console&#x27;s engine twin, answering as SGLang 0.5.23" in page  # provenance
    r = subprocess.run([sys.executable, "-m", "console.cli", "report", str(d), "--json"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["pair"]["delta_pct"] == pytest.approx(out["delta_pct"])
    assert rep["pair"]["ci95_pct"] == pytest.approx(out["ci95_pct"])
    assert rep["pair"]["verdict"] == out["verdict"]


def test_same_flags_interleave_on_one_server(tmp_path):
    cmd = [sys.executable, "-m", "console.cli", "pair", "--a", "k26-eagle3-d6", "--b", "k26-eagle3-d6", "--prompts",
           "health", "--b-temperature", "0", "--n", "3", "--max-tokens", "48", "--sim", "--sim-time-scale", "4",
           "--json", "--sessions", str(tmp_path)]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)["pair"]
    assert out["interleaved"] is True and (out["a_n"], out["b_n"]) == (3, 3)
    d = Path(out["dir"])
    assert len(list(d.glob("engine-*.log"))) == 1  # one launch only


def test_until_ci_adds_rounds_and_a_second_pair_reads_the_first_in_its_record(tmp_path):
    base = [sys.executable, "-m", "console.cli", "pair", "--a", "k26-eagle3-d6", "--b", "k26-eagle3-d7",
            "--prompts", "health", "--n", "3", "--max-tokens", "48", "--sim", "--sim-time-scale", "4", "--json",
            "--sessions", str(tmp_path)]
    # a target no 3-request pair reaches: one B A round is added (the cap), and the document says why it stopped
    p = subprocess.run(base + ["--until-ci", "0.5", "--max-rounds", "1"], cwd=REPO, capture_output=True, text=True,
                       timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)["pair"]
    seq = out["sequential"]
    assert out["order"] == "ABABA" and (out["a_n"], out["b_n"]) == (9, 6)
    assert seq["stopped"] == "round cap" and seq["rounds_added"] == 1 and len(seq["half_widths_pct"]) == 2
    assert seq["half_widths_pct"][-1] == pytest.approx(out["half_width_pct"])
    assert "round 1 (B A)" in p.stderr and "sequential: round cap" in p.stderr
    d1 = Path(out["dir"])
    r = subprocess.run([sys.executable, "-m", "console.cli", "report", str(d1), "--json"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pair"]["verdict"] == out["verdict"]
    # the next pair on the same node pools the first one's reading (A's three launches: 2 degrees of freedom)
    p2 = subprocess.run(base, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert p2.returncode == 0, p2.stderr[-2000:]
    out2 = json.loads(p2.stdout)["pair"]
    rec = json.loads((Path(out2["dir"]) / "pair.json").read_text())["spec"]["launch"]["record"]
    assert [x["source"] for x in rec] == [f"{d1.name}/pair.json"] and rec[0]["df"] >= 2
    assert out2["launch_df"] == 3 + rec[0]["df"] + 1  # prior, the record, this pair's A A
    # bad sequential settings: one line naming the flag, the documented exit code, no traceback
    bad = subprocess.run(base + ["--until-ci", "0"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--until-ci" in bad.stderr and "Traceback" not in bad.stderr
    for extra, flag in ((["--until-mde", "0"], "--until-mde"), (["--until-ci", "3", "--until-mde", "5"], "one stopping")):
        bad = subprocess.run(base + extra, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and flag in bad.stderr and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
