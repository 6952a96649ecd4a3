"""Seeded `kill -9`s of the `sweep` process at four seeded points — mid-launch, mid-cell (twice), between cells — each followed by
`sweep --resume DIR` (itself killed again at the next point), then a final resume to the end: every row on disk
stays byte for byte (rows.jsonl only grows), no request id is finished twice in a cell, and the campaign completes
with every planned request finished once.

SWEEP_KILL_SEED (env, default 16) seeds the choice and order of the kill points and the delays."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.faults.conftest import CLI, REPO, cli_env
from tests.faults.test_kill_resume import alive, children, ok_ids

pytestmark = pytest.mark.e2e
SEED = int(os.environ.get("SWEEP_KILL_SEED", "16"))
SIM = ["--sim-time-scale", "10", "--sim-arg=--sim-startup-scale=300"]
PLAN = """
name = "kills"
[protocol]
n = 5
max_tokens = 160
[[workload]]
context = "short"
domains = ["tool"]
concurrency = [1, 2]
[[arms]]
profile = "k26-nospec"
[[arms]]
profile = "k26-eagle3-d5"
"""
POINTS = ("mid-launch", "mid-cell", "between-cells", "mid-cell")


def events(d: Path) -> list[dict]:
    try:
        text = (d / "journal.jsonl").read_text()
    except OSError:
        return []
    out = []
    for ln in text.splitlines():
        try:
            out.append(json.loads(ln))
        except ValueError:
            pass
    return out


def sweep_cells(d: Path) -> dict[Path, bytes]:
    out = {}
    for m in d.glob("node-*/cell-*/manifest.json"):
        try:
            label = json.loads(m.read_text()).get("label", "")
        except ValueError:
            continue
        if label.startswith("sweep ") and (m.parent / "rows.jsonl").exists():
            out[m.parent] = (m.parent / "rows.jsonl").read_bytes()
    return out


def cond(point: str, d: Path, start_events: int, rng: random.Random):
    """A predicate that is true at the kill point (judged on the journal and the rows after `start_events`)."""
    target_rows = rng.randint(1, 3)

    def mid_launch() -> bool:
        ev = events(d)[start_events:]
        return bool(ev) and ev[-1]["ev"] == "launch"

    def mid_cell() -> bool:
        ev = events(d)[start_events:]
        if not ev or ev[-1]["ev"] != "cell_start":
            return False
        for cell, rows in sweep_cells(d).items():
            try:
                running = json.loads((cell / "manifest.json").read_text()).get("complete") is not True
            except ValueError:
                continue
            if running and target_rows <= len(ok_ids(rows)) < 5:
                return True
        return False

    def between() -> bool:
        ev = events(d)[start_events:]
        return bool(ev) and ev[-1]["ev"] == "cell_done"

    return {"mid-launch": mid_launch, "mid-cell": mid_cell, "between-cells": between}[point]


def test_sweep_survives_seeded_kills_anywhere_without_losing_or_duplicating_rows(tmp_path):
    rng = random.Random(SEED)
    points = list(POINTS)
    rng.shuffle(points)
    plan = tmp_path / "kills.toml"
    plan.write_text(PLAN)
    sessions = tmp_path / "sessions"
    env = cli_env(REPO / "console" / "shipped" / "profiles")
    campaign: Path | None = None
    seen: dict[Path, bytes] = {}
    tally = []
    for i, point in enumerate(points):
        args = ["--resume", str(campaign)] if campaign else [str(plan), "--sim"]
        log = open(tmp_path / f"run-{i}.log", "wb")
        p = subprocess.Popen([*CLI, "sweep", *args, "--yes", "--sessions", str(sessions), *SIM], cwd=REPO,
                             stdout=log, stderr=subprocess.STDOUT, env=env)
        engines: set[int] = set()
        try:
            t0 = time.monotonic()
            while campaign is None:
                found = list(sessions.glob("*-campaign-kills"))
                if found:
                    campaign = found[0]
                assert time.monotonic() - t0 < 60 and p.poll() is None, (tmp_path / f"run-{i}.log").read_text()
                time.sleep(0.005)
            start = len(events(campaign))
            pred = cond(point, campaign, start, rng)
            hit = False
            while time.monotonic() - t0 < 90 and p.poll() is None:
                engines.update(children(p.pid))
                if pred():
                    time.sleep(rng.uniform(0.0, 0.03))
                    engines.update(children(p.pid))
                    hit = p.poll() is None
                    if hit:
                        os.kill(p.pid, signal.SIGKILL)
                    break
                time.sleep(0.003)
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            log.close()
        t1 = time.monotonic()
        while any(alive(e) for e in engines):  # the engines of a killed console go with it (PR_SET_PDEATHSIG)
            assert time.monotonic() - t1 < 15, "an orphaned engine outlived its console"
            time.sleep(0.02)
        tally.append((point, hit, p.returncode))
        now = sweep_cells(campaign)
        for cell, before in seen.items():
            assert now[cell].startswith(before), f"{cell.name}: rows.jsonl was rewritten after the kill at {point}"
        for cell, data in now.items():
            ids = ok_ids(data)
            assert len(ids) == len(set(ids)), f"{cell.name}: a request finished twice ({point})"
        seen = now
        if p.returncode == 0:
            break  # the campaign finished before this kill point came
    assert sum(1 for _, hit, _ in tally if hit) >= 3, f"too few kills landed: {tally}"
    final = subprocess.run([*CLI, "sweep", "--resume", str(campaign), "--yes", "--json", "--sessions", str(sessions),
                            *SIM], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert final.returncode == 0, final.stderr[-3000:]
    a = json.loads(final.stdout)["campaign"]
    assert a["campaign"]["complete"] and a["campaign"]["cells_complete"] == 4, a["campaign"]
    now = sweep_cells(campaign)
    for cell, before in seen.items():
        assert now[cell].startswith(before)
    by_key = {}
    for cell, data in now.items():
        key = json.loads((cell / "manifest.json").read_text())["label"].removeprefix("sweep ")
        assert key not in by_key, f"two cells for {key}: {by_key.get(key)}, {cell.name}"
        by_key[key] = cell
        ids = ok_ids(data)
        assert len(ids) == len(set(ids)) == 5, (cell.name, ids)
        assert {x.split("#")[1] for x in ids} == {str(k) for k in range(5)}
        assert json.loads((cell / "manifest.json").read_text())["complete"] is True
    assert len(by_key) == 4
    print(f"\nsweep kill points (seed {SEED}): " + ", ".join(f"{pt}{'' if hit else ' (missed)'}" for pt, hit, _ in tally))
