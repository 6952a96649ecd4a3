"""End to end: the console launches the engine twin as a separate process, runs a cell headless and
prints the contracted JSON; `--attach` works against a server it did not launch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from console.core.launch.ports import free_port
from tests.sim.twin_process import start_twin, stop_twin

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "console.cli"]
KEYS = {"n", "n_ok", "median_tok_s", "p10_tok_s", "p90_tok_s", "ttft_median_s", "tau", "per_position_acceptance",
        "kv_capacity_tokens", "engine_version", "speculative_algorithm", "rows_path"}


def run_cli(args: list[str], tmp_path: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    extra = ["--sessions", str(tmp_path / "sessions")] if args[0] == "bench" else []
    return subprocess.run([*CLI, *args, *extra], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def test_bench_on_the_twin_prints_the_contracted_json(tmp_path):
    p = run_cli(["bench", "--profile", "k26-eagle3-d6", "--sim", "--prompts", "health", "--n", "4",
                 "--max-tokens", "64", "--json", "--sim-time-scale", "4"], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    obj = json.loads(p.stdout)  # stdout is exactly one JSON object
    cell = obj["cell"]
    assert KEYS <= set(cell)
    assert (cell["n"], cell["n_ok"]) == (4, 4)
    assert cell["engine_version"] == "0.5.23"
    assert cell["speculative_algorithm"] == "EAGLE3"
    assert 1.0 < cell["tau"] <= 7.0
    pos = cell["per_position_acceptance"]
    assert len(pos) == 6 and all(a >= b for a, b in zip(pos, pos[1:])) and 0 < pos[0] <= 1
    assert cell["p10_tok_s"] <= cell["median_tok_s"] <= cell["p90_tok_s"]
    assert 0 < cell["ttft_median_s"] < 5
    assert cell["kv_capacity_tokens"] > 100_000
    rows = Path(cell["rows_path"]).read_text().splitlines()
    assert len(rows) == 4
    # the report recomputes the same figures from the rows alone
    r = run_cli(["report", str(Path(cell["rows_path"]).parent), "--json"], tmp_path)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)["cells"][0]
    assert rep["median_tok_s"] == pytest.approx(cell["median_tok_s"])
    assert rep["tau"] == pytest.approx(cell["tau"])


def test_bench_attach_to_a_running_server(tmp_path):
    twin = start_twin(["--model-path", "moonshotai/Kimi-K2.6", "--tp-size", "4", "--mem-fraction-static", "0.96",
                       "--enable-metrics", "--sim-time-scale", "4"], tmp_path, timeout=60)
    try:
        p = run_cli(["bench", "--attach", twin.url.removeprefix("http://"), "--prompts", "health", "--n", "2",
                     "--max-tokens", "32", "--json"], tmp_path)
        assert p.returncode == 0, p.stderr[-2000:]
        cell = json.loads(p.stdout)["cell"]
        assert cell["n_ok"] == 2
        assert cell["speculative_algorithm"] is None and cell["tau"] is None  # this server runs no speculation
    finally:
        stop_twin(twin)


def test_bad_inputs_exit_2_with_one_line(tmp_path):
    p = run_cli(["bench", "--profile", "nope", "--sim", "--prompts", "health", "--n", "1"], tmp_path)
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "profile 'nope' not found" in p.stderr
    p = run_cli(["bench", "--profile", "k26-eagle3-d6", "--sim", "--prompts", "nope", "--n", "1"], tmp_path)
    assert p.returncode == 2 and "prompt set 'nope' not found" in p.stderr


def test_attach_to_nothing_exits_4(tmp_path):
    p = run_cli(["bench", "--attach", f"127.0.0.1:{free_port()}", "--prompts", "health", "--n", "1"], tmp_path)
    assert p.returncode == 4 and "cannot connect" in p.stderr
