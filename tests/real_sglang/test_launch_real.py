"""Launching the real engine from a profile whose engine.python is the real-sglang environment's interpreter:
the real startup log's phases in order, readiness, `--api-key` (a missing and a wrong key are the console's
auth line, exit 6), Ctrl-C stops the engine with no process left; a real failure (a flag the real parser
rejects, a model path that does not exist) is the first real error line, exit 3, and the log is kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.real_sglang.conftest import (CLI, ENV_PY, MODEL, REPO, SERVER_ENV, SERVER_FLAGS, alive, descendants,
                                        free_port, kill_group, rows_of, run_cli)

pytestmark = pytest.mark.real_sglang
KEY_VAR = "SC_REAL_SGLANG_KEY"
KEY = "real-lane-key-5c1e"


def write_profile(d: Path, port: int, *, model: str | None = None, extra: tuple[str, ...] = (),
                  api_key_env: str | None = None, name: str = "real-smollm2-cpu") -> Path:
    flags = [f for f in SERVER_FLAGS if f not in ("--mem-fraction-static", "0.3")] + list(extra)
    lines = [
        f'name = "{name}"',
        'description = "SmolLM2-135M-Instruct on SGLang 0.5.23, CPU (the real_sglang lane)"',
        "[engine]", f'python = "{ENV_PY}"',
        "[model]", f'path = "{model or MODEL}"',
        "[drafter]", 'family = "none"',
        "[kv]", "mem_fraction_static = 0.3",
        "[server]", 'host = "127.0.0.1"', f"port = {port}", "enable_metrics = true",
        "extra_args = [" + ", ".join(json.dumps(f) for f in flags) + "]",
    ]
    if api_key_env:
        lines.append(f'api_key_env = "{api_key_env}"')
    lines += ["[env]"] + [f'{k} = "{v}"' for k, v in SERVER_ENV.items()]
    p = d / f"{name}.toml"
    p.write_text("\n".join(lines) + "\n")
    return p


def _terminal_sigint() -> None:
    """SIGINT as a terminal's Ctrl-C meets it. A shell without job control starts a background command (`cmd &`)
    with SIGINT ignored, the test run inherits that, and Python keeps an inherited SIG_IGN (no KeyboardInterrupt):
    the launch would never see the test's Ctrl-C (seen when .ci/run itself ran in the background)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def engine_logs(sessions: Path) -> list[Path]:
    return sorted(p for p in sessions.glob("*/*.log"))


@pytest.fixture(scope="module")
def launched(real_env, tmp_path_factory):
    """`serving-console launch P` with the API key from $SC_REAL_SGLANG_KEY, running until the test stops it."""
    d = tmp_path_factory.mktemp("real-launch")
    port = free_port()
    prof = write_profile(d, port, api_key_env=KEY_VAR)
    sessions = d / "sessions"
    err = d / "launch.stderr"
    env = {**os.environ, KEY_VAR: KEY}
    t0 = time.monotonic()
    with open(err, "w") as f:
        proc = subprocess.Popen([*CLI, "launch", str(prof), "--sessions", str(sessions)], cwd=REPO, stdout=f,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                                preexec_fn=_terminal_sigint)
    state = {"proc": proc, "url": f"http://127.0.0.1:{port}", "port": port, "sessions": sessions, "stderr": err,
             "profile": prof, "pids": set(), "ready_s": None}
    try:
        while "ready at" not in err.read_text(errors="replace"):
            if proc.poll() is not None:
                pytest.fail(f"launch exited {proc.returncode} before ready:\n{err.read_text()[-3000:]}", pytrace=False)
            if time.monotonic() - t0 > 300:
                pytest.fail(f"launch not ready in 300 s:\n{err.read_text()[-3000:]}", pytrace=False)
            time.sleep(0.5)
        state["ready_s"] = time.monotonic() - t0
        state["pids"] = descendants(proc.pid)
        yield state
    finally:
        if proc.poll() is None:  # a test failed before the stop test: stop it here
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        kill_group(proc.pid)
        for pid in alive(state["pids"]):
            try:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def test_launch_reaches_ready_with_the_real_phases_in_order(launched):
    from console.core.launch.logparse import PHASE_KEYS, StartupParser

    out = launched["stderr"].read_text(errors="replace")
    assert f"ready at {launched['url']}: no speculation" in out, out[-2000:]
    assert KEY not in out and "<redacted>" in out  # the launching argv is shown with the key redacted
    logs = engine_logs(launched["sessions"])
    assert logs, f"no engine log under {launched['sessions']}"
    text = logs[0].read_text(errors="replace")
    assert "The server is fired up and ready to roll!" in text and KEY not in text
    # the real log, line by line as the console reads it: the order in which each phase starts
    p = StartupParser(tp=1, has_draft=False)
    order: list[str] = []
    for ln in text.splitlines(keepends=True):
        prog = p.feed(ln)
        order += [ph.key for ph in prog.phases if ph.status != "pending" and ph.key not in order]
    prog = p.finish()
    assert prog.ready and prog.error_line is None
    assert [ph.status for ph in prog.phases] == ["done"] * len(PHASE_KEYS), [(ph.key, ph.status) for ph in prog.phases]
    assert order == [k for k in PHASE_KEYS if k in order], order  # never out of SGLang's order
    assert {"init", "weights", "kv_pool", "capacity", "http", "ready"} <= set(order), order
    # and the log's own markers, in that order (the CPU engine: no CUDA graphs, no drafter)
    marks = ["Init parallel begin.", "Load weight begin.", "Load weight end.", "KV Cache is allocated.",
             "max_total_num_tokens=8192", "Uvicorn running on", "The server is fired up and ready to roll!"]
    at = [text.find(m) for m in marks]
    assert all(i >= 0 for i in at) and at == sorted(at), dict(zip(marks, at))
    assert prog.kv_tokens == prog.max_total_num_tokens == 8192


def test_missing_and_wrong_api_key_are_the_auth_line_exit_6(launched, tmp_path):
    url = launched["url"]
    common = ["bench", "--attach", url, "--prompts", "health", "--n", "1", "--max-tokens", "8",
              "--sessions", str(tmp_path / "s")]
    p = run_cli(common)
    line = last_line(p.stderr)
    assert p.returncode == 6, (p.returncode, p.stderr[-1500:])
    assert "requires an API key" in line and "--api-key-env" in line and "refused" not in line, line
    p = run_cli([*common, "--api-key-env", "SC_REAL_WRONG_KEY"], env={"SC_REAL_WRONG_KEY": "not-the-key"})
    line = last_line(p.stderr)
    assert p.returncode == 6, (p.returncode, p.stderr[-1500:])
    assert "refused the API key" in line and "$SC_REAL_WRONG_KEY" in line and "requires" not in line, line
    assert "not-the-key" not in p.stderr + p.stdout
    # the right key measures
    p = run_cli([*common, "--api-key-env", KEY_VAR, "--json"], env={KEY_VAR: KEY})
    assert p.returncode == 0, p.stderr[-2000:]
    cell = json.loads(p.stdout)["cell"]
    assert cell["n_ok"] == 1 and [r["completion_tokens"] for r in rows_of(Path(cell["rows_path"]).parent)] == [8]
    assert not any(KEY in f.read_text(errors="replace") for f in (tmp_path / "s").rglob("*") if f.is_file())


def test_ctrl_c_stops_the_engine_and_leaves_no_process(launched):
    proc = launched["proc"]
    engine = set(launched["pids"])
    assert engine, "the launch had no engine process"
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=90)
    assert rc == 130, (rc, launched["stderr"].read_text()[-2000:])
    end = time.monotonic() + 20
    while alive(engine) and time.monotonic() < end:
        time.sleep(0.2)
    left = alive(engine)
    assert not left, f"processes of the launched engine still alive after the stop: {sorted(left)}"
    assert engine_logs(launched["sessions"]), "the engine log was not kept"


def test_a_flag_the_real_parser_rejects_is_its_error_line_exit_3(real_env, tmp_path):
    prof = write_profile(tmp_path, free_port(), extra=("--no-such-flag",), name="real-bad-flag")
    sessions = tmp_path / "sessions"
    p = run_cli(["bench", "--profile", str(prof), "--prompts", "health", "--n", "1", "--sessions", str(sessions)])
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    line = last_line(p.stderr)
    assert "unrecognized arguments: --no-such-flag" in line, p.stderr[-2000:]
    logs = engine_logs(sessions)
    assert logs and "--no-such-flag" in logs[0].read_text(errors="replace"), "the engine log was not kept"


def test_a_model_path_that_does_not_exist_is_the_real_error_line_exit_3(real_env, tmp_path):
    missing = tmp_path / "no-such-model"
    prof = write_profile(tmp_path, free_port(), model=str(missing), name="real-no-model")
    sessions = tmp_path / "sessions"
    args = ["bench", "--profile", str(prof), "--prompts", "health", "--n", "1", "--sessions", str(sessions)]
    p = run_cli(args)
    assert p.returncode == 5 and str(missing) in last_line(p.stderr), (p.returncode, p.stderr[-2000:])  # preflight
    p = run_cli([*args, "--force"])
    assert p.returncode == 3, (p.returncode, p.stderr[-2000:])
    line = last_line(p.stderr)
    assert "engine died before ready" in line or "no-such-model" in line, line
    assert "no-such-model" in line and "Traceback" not in line, line
    logs = engine_logs(sessions)
    assert logs and "no-such-model" in logs[-1].read_text(errors="replace"), "the engine log was not kept"
