"""Bad input and failed starts give one line and a documented exit code, in the TUI exactly as headless
(issue #12 item 2): unknown/broken profiles, a server that is not SGLang, HTTP 401 without and with a wrong key,
an engine that dies before ready; failed starts leave no empty session folder; `check` reports every problem;
`forecast` never writes into the recorded cell."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from console.core.exits import EXIT_AUTH, EXIT_CONNECT, EXIT_ENGINE, EXIT_USAGE
from console.core.launch.profile import resolve_profile
from console.core.launch.ports import free_port
from console.core.run.runtime import Runtime
from console.ui.app import make_app
from tests.sim.twin_process import FAST as TWIN_FAST, MODEL, start_twin, stop_twin

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "console.cli"]
KEY = "sc-test-key-0123456789"


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})


def lines_of(stderr: str) -> list[str]:
    out = [x for x in stderr.splitlines() if x.strip()]
    assert not any("Traceback" in x for x in out), stderr[-3000:]
    return out


@pytest.fixture
def not_sglang(tmp_path):
    """`python3 -m http.server`: answers HTML 404 on SGLang's routes."""
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    import httpx
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
            break
        except httpx.HTTPError:
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    p.terminate()
    p.wait(timeout=10)


@pytest.fixture(scope="module")
def keyed_twin(tmp_path_factory):
    t = start_twin([*MODEL, "--mem-fraction-static", "0.96", *TWIN_FAST, "--api-key", KEY],
                   tmp_path_factory.mktemp("keyed"))
    yield t
    stop_twin(t)


# --- bad profiles: the TUI as headless ---------------------------------------------------------

@pytest.mark.parametrize("cmd", ["tui", "bench"])
def test_unknown_profile_is_one_line_and_exit_2_in_the_tui_as_headless(cmd, tmp_path):
    extra = ["--prompts", "health"] if cmd == "bench" else []
    r = run_cli(cmd, "--profile", "nosuchprofile", "--sim", "--sessions", str(tmp_path), *extra)
    assert r.returncode == EXIT_USAGE, r.stderr[-2000:]
    assert lines_of(r.stderr) == [lines_of(r.stderr)[0]]
    assert r.stderr.startswith("serving-console: profile 'nosuchprofile' not found; searched ") and "known: " in r.stderr
    # where it looked, in the search order of core/places.py, the shipped profiles last
    assert "./profiles)" in r.stderr and "(user config)" in r.stderr and "(shipped)" in r.stderr
    assert "k26-eagle3-d6" in r.stderr.split("known: ", 1)[1]
    assert not list(tmp_path.iterdir()), "nothing was started, nothing recorded"


def test_broken_profile_file_is_the_same_line_in_the_tui_bench_and_check(tmp_path):
    text = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text()
    assert 'dtype = "auto"' in text
    bad = tmp_path / "fp9.toml"
    bad.write_text(text.replace('dtype = "auto"', 'dtype = "fp9"', 1))
    seen = []
    for args in (["tui", "--profile", str(bad), "--sim"], ["bench", "--profile", str(bad), "--sim", "--prompts",
                                                            "health"], ["check", str(bad)]):
        r = run_cli(*args, "--sessions", str(tmp_path / "s")) if args[0] != "check" else run_cli(*args)
        assert r.returncode == EXIT_USAGE, (args, r.stderr[-2000:])
        got = lines_of(r.stderr)
        assert len(got) == 1 and "kv.dtype 'fp9' is not one of auto" in got[0] and str(bad) in got[0], got
        seen.append(got[0])
    assert len(set(seen)) == 1, seen


def test_check_reports_every_problem_one_line_each(tmp_path):
    p = tmp_path / "three.toml"
    p.write_text('name = "x"\n[model]\npath = "m"\ntp = 0\n[kv]\ndtype = "fp9"\n[server]\nport = "a"\n')
    r = run_cli("check", str(p))
    assert r.returncode == EXIT_USAGE
    got = lines_of(r.stderr)
    assert len(got) == 3, got
    assert any("model.tp must be ≥ 1" in x for x in got)
    assert any("kv.dtype 'fp9'" in x for x in got)
    assert any("server.port must be an integer" in x for x in got)
    assert all(x.startswith(f"serving-console: {p}: ") for x in got)


# --- attach: not SGLang, 401 ---------------------------------------------------------------------

def test_attach_to_a_server_that_is_not_sglang_is_one_line_exit_4_and_leaves_no_session(not_sglang, tmp_path):
    r = run_cli("bench", "--attach", not_sglang, "--prompts", "health", "--n", "1", "--sessions", str(tmp_path))
    assert r.returncode == EXIT_CONNECT, r.stderr[-2000:]
    got = lines_of(r.stderr)
    assert len(got) == 1, got
    assert "not an SGLang server" in got[0] and "HTTP 404" in got[0] and "SimpleHTTP" in got[0], got
    assert "<html" not in r.stderr.lower() and "<!doctype" not in r.stderr.lower()
    assert not list(tmp_path.iterdir()), "a failed attach leaves no empty session folder"


def test_401_without_a_key_and_with_a_wrong_key_read_differently_exit_6(keyed_twin, tmp_path):
    sess = tmp_path / "s"
    r = run_cli("bench", "--attach", keyed_twin.url, "--prompts", "health", "--n", "1", "--sessions", str(sess))
    assert r.returncode == EXIT_AUTH, r.stderr[-2000:]
    missing = lines_of(r.stderr)
    assert len(missing) == 1 and "HTTP 401" in missing[0] and "requires an API key" in missing[0], missing
    assert "--api-key-env VAR" in missing[0] and "api_key_file" not in missing[0], missing

    r = run_cli("bench", "--attach", keyed_twin.url, "--api-key-env", "SC_WRONG", "--prompts", "health", "--n", "1",
                "--sessions", str(sess), env={"SC_WRONG": "not-the-key"})
    assert r.returncode == EXIT_AUTH, r.stderr[-2000:]
    wrong = lines_of(r.stderr)
    assert len(wrong) == 1 and "refused the API key from $SC_WRONG" in wrong[0], wrong
    assert "not-the-key" not in r.stderr
    assert not sess.exists() or not list(sess.iterdir()), "no empty session folders"

    r = run_cli("bench", "--attach", keyed_twin.url, "--api-key-env", "SC_RIGHT", "--prompts", "health", "--n", "1",
                "--max-tokens", "8", "--warmup", "0", "--sessions", str(sess), env={"SC_RIGHT": KEY})
    assert r.returncode == 0, r.stderr[-2000:]


# --- the TUI's exit code after a failed start -------------------------------------------------------

async def _tui_exit(factory, *, timeout: float = 60.0) -> tuple[int | None, str | None]:
    app = make_app(factory, auto_anchor=False)
    async with app.run_test(size=(120, 40)) as pilot:
        deadline = time.monotonic() + timeout
        while app._start_failure is None and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert app._start_failure is not None, "the start did not fail"
        await pilot.press("q")
        deadline = time.monotonic() + 30
        while app.is_running and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    return app.return_code, app.failure


async def test_tui_q_after_a_failed_attach_exits_4_with_the_headless_line(not_sglang, tmp_path):
    code, line = await _tui_exit(lambda obs: Runtime(attach_url=not_sglang, sessions=tmp_path, observer=obs))
    assert code == EXIT_CONNECT
    assert line and "not an SGLang server" in line and "\n" not in line
    assert not list(tmp_path.iterdir())


async def test_tui_q_after_401_exits_6(keyed_twin, tmp_path):
    code, line = await _tui_exit(lambda obs: Runtime(attach_url=keyed_twin.url, sessions=tmp_path, observer=obs))
    assert code == EXIT_AUTH and "requires an API key" in (line or "")


async def test_tui_q_after_the_engine_died_before_ready_exits_3_and_keeps_the_log(tmp_path):
    prof = replace(resolve_profile("k26-eagle3-d6"), port=free_port())
    args = ["--sim-time-scale", "20", "--sim-startup-scale", "1000", "--sim-fault", "crash-during-load:phase=weights"]
    code, line = await _tui_exit(lambda obs: Runtime(profile=prof, sim=True, sim_args=args, sessions=tmp_path,
                                                     observer=obs))
    assert code == EXIT_ENGINE
    assert line and "OutOfMemoryError" in line
    logs = list(tmp_path.glob("*/engine-*.log"))
    assert len(logs) == 1 and logs[0].stat().st_size > 0, "the engine log is kept (the session is not empty)"


# --- recorded cells are evidence -------------------------------------------------------------------

def _tree_digest(d: Path) -> dict[str, str]:
    return {str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*"))
            if p.is_file()}


def test_forecast_never_modifies_the_recorded_cell(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    text = (REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml").read_text()
    (profiles / "k26-eagle3-d6.toml").write_text(text.replace("port = 30000", f"port = {free_port()}"))
    env = {"SERVING_CONSOLE_PROFILES": str(profiles)}
    r = run_cli("bench", "--profile", "k26-eagle3-d6", "--sim", "--prompts", "health", "--n", "4", "--max-tokens",
                "48", "--warmup", "0", "--sim-time-scale", "20", "--sim-arg=--sim-startup-scale=1000",
                "--sessions", str(tmp_path / "s"), env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    (cell,) = list((tmp_path / "s").glob("*/cell-*"))
    before = _tree_digest(cell)
    r = run_cli("forecast", str(cell), "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    out = tmp_path / "fc.json"
    r = run_cli("forecast", str(cell), "--out", str(out))
    assert r.returncode == 0 and out.exists() and str(out) in r.stdout
    r = run_cli("forecast", str(cell), "--out", str(cell / "forecast.json"))
    assert r.returncode == EXIT_USAGE and "recorded cells are never modified" in r.stderr
    assert _tree_digest(cell) == before
