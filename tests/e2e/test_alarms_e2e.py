"""Acceptance alarms end to end on the twin: a drafter that collapses mid-cell (the acceptance-collapse fault) raises
the dummy alarm live — in the session's alarms.jsonl, `bench --json` ('alarm', 'alarms'), `report` and the HTML
report — while the same cell on a healthy launch raises nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def bench(tmp: Path, *extra: str) -> tuple[dict, Path]:
    p = subprocess.run([sys.executable, "-m", "console.cli", "bench", "--profile", "k26-eagle3-d6", "--sim",
                        "--sim-time-scale", "8", "--prompts", "tool-short", "--n", "12", "--max-tokens", "96",
                        "--json", "--sessions", str(tmp), *extra], cwd=REPO, capture_output=True, text=True,
                       timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    cell = json.loads(p.stdout)["cell"]
    return cell, Path(cell["rows_path"]).parents[1]


def test_a_collapse_mid_cell_alarms_everywhere_and_a_healthy_cell_does_not(tmp_path):
    healthy, s0 = bench(tmp_path / "a")
    assert healthy["alarm"] is False and healthy["alarms"] == [] and not (s0 / "alarms.jsonl").exists()
    cell, s1 = bench(tmp_path / "b", "--sim-arg=--sim-fault=acceptance-collapse:after_requests=4")
    assert cell["alarm"] is True and cell["alarms"][0]["kind"] == "dummy"
    lines = [json.loads(x) for x in (s1 / "alarms.jsonl").read_text().splitlines()]
    assert lines[0]["event"] == "raised" and lines[0]["alarm"]["kind"] == "dummy"
    assert lines[0]["alarm"]["since_index"] < 8 and lines[0]["alarm"]["since_utc"]
    assert "random draft weights" in lines[0]["alarm"]["saw"] and "dummy draft checkpoint" in lines[0]["alarm"]["causes"]
    r = subprocess.run([sys.executable, "-m", "console.cli", "report", str(s1)], cwd=REPO, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "## Acceptance alarms" in r.stdout and "**dummy**" in r.stdout
    rj = subprocess.run([sys.executable, "-m", "console.cli", "report", str(s1), "--json"], cwd=REPO,
                        capture_output=True, text=True, timeout=60)
    assert [a["kind"] for a in json.loads(rj.stdout)["alarms"]] == ["dummy"]
    h = subprocess.run([sys.executable, "-m", "console.cli", "report", str(s1), "--html", str(tmp_path / "s.html")],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert h.returncode == 0
    page = (tmp_path / "s.html").read_text()
    assert 'id="alarms"' in page and "random draft weights" in page and "SIMULATED" in page
