"""Faults through the headless CLI (`serving-console bench`), where it is cheap: exit codes, one-line causes on
stderr, the contracted JSON with the rows that finished."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.faults.conftest import CLI, PROFILE, REPO, cli_env, manifest, one_line, profiles_with_free_port, rows_on_disk

pytestmark = pytest.mark.e2e
FAST = ["--sim-time-scale", "20", "--sim-arg=--sim-startup-scale=1000"]


def bench(tmp_path: Path, *extra: str, n: int = 6, max_tokens: int = 96, timeout: float = 90):
    cmd = [*CLI, "bench", "--profile", PROFILE, "--sim", "--prompts", "health", "--n", str(n), "--max-tokens",
           str(max_tokens), "--sessions", str(tmp_path / "sessions"), "--json", *FAST, *extra]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env=cli_env(profiles_with_free_port(tmp_path)))


def test_bench_with_http_500s_exits_ok_and_reports_each_error_in_one_line(tmp_path):
    r = bench(tmp_path, "--sim-arg=--sim-fault=http500:rate=0.5", "--warmup", "0", max_tokens=32)
    assert r.returncode == 0, r.stderr[-2000:]
    cell = json.loads(r.stdout)["cell"]
    assert cell["n"] == 6 and 0 < cell["n_errors"] < 6 and cell["n_ok"] == 6 - cell["n_errors"]
    for e in cell["errors"]:
        assert one_line(e).startswith("HTTP 500 from /v1/chat/completions")
    assert len(rows_on_disk(Path(cell["rows_path"]).parent)) == 6


def test_bench_engine_crash_during_load_exits_3_with_the_error_line(tmp_path):
    r = bench(tmp_path, "--sim-arg=--sim-fault=crash-during-load:phase=weights")
    assert r.returncode == 3, (r.returncode, r.stderr[-2000:])
    assert r.stdout == ""
    last = [x for x in r.stderr.splitlines() if x.strip()][-1]
    assert "OutOfMemoryError" in last and "engine" in last and last.startswith("serving-console: ")


def test_bench_engine_crash_mid_cell_exits_3_says_why_and_leaves_the_cell_incomplete(tmp_path):
    r = bench(tmp_path, "--sim-arg=--sim-fault=crash-at-step:step=80")
    cells = list((tmp_path / "sessions").glob("*/cell-*"))
    assert len(cells) == 1
    rows = rows_on_disk(cells[0])
    assert any(x["error"] is None for x in rows)  # what finished is on disk in any case
    assert r.returncode == 3, (r.returncode, r.stderr[-1500:])
    assert "illegal memory access" in r.stderr
    assert manifest(cells[0])["complete"] is False


def test_an_interleaved_pair_whose_engine_dies_keeps_its_cells_incomplete_and_exits_3(tmp_path):
    """The interleaved pair runs on the one cell runner (issue #13): an engine death stops it at once, the cut
    request is kept apart, both cells say complete=false (they said true unconditionally), exit 3 in one line."""
    cmd = [*CLI, "pair", "--a", PROFILE, "--b", PROFILE, "--b-temperature", "0.9", "--prompts", "health", "--n", "6",
           "--max-tokens", "96", "--sim", "--sessions", str(tmp_path / "sessions"), *FAST,
           "--sim-arg=--sim-fault=crash-at-step:step=400"]
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120,
                       env=cli_env(profiles_with_free_port(tmp_path)))
    assert r.returncode == 3, (r.returncode, r.stderr[-2000:])
    last = [x for x in r.stderr.splitlines() if x.strip()][-1]
    assert last.startswith("serving-console: the engine died during the interleaved pair") and "Traceback" not in r.stderr
    cells = sorted((tmp_path / "sessions").glob("*/cell-*interleaved"))
    assert len(cells) == 2
    for c in cells:
        m = manifest(c)
        assert m["complete"] is False and m["interrupted"] is True, (c.name, m.get("complete"))
    assert not list((tmp_path / "sessions").glob("*/pair.json")), "no pair verdict from a cut pair"
