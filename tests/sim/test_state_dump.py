"""`kill -USR1` on a twin (console/sim/ops/stacks.py): its scheduler state and asyncio task stacks go to its log, and it
keeps serving; an exception in its engine task ends it as a crashed scheduler ends SGLang. The peer runner's watchdog relies on it to say where a stalled twin waits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from .twin_process import EAGLE3_D6, FAST, MODEL, free_port, start_twin, stop_twin


def _wait_for(pred, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_sigusr1_reports_a_held_request_and_the_twin_keeps_serving(tmp_path):
    # a stream that stops sending after 2 tokens and never resumes: the engine has finished it, its writer waits
    twin = start_twin(MODEL + EAGLE3_D6 + FAST + ["--mem-fraction-static", "0.96", "--sim-fault", "stall:after_tokens=2,seconds=inf"], tmp_path)
    try:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 400, "stream": True}
        got: list[str] = []

        def stream() -> None:
            try:
                with httpx.stream("POST", twin.url + "/v1/chat/completions", json=body, timeout=30) as r:
                    for line in r.iter_lines():
                        got.append(line)
            except httpx.HTTPError:
                pass

        t = threading.Thread(target=stream, daemon=True)
        t.start()
        assert _wait_for(lambda: any(ln.startswith("data: {") for ln in got)), got
        os.kill(twin.proc.pid, signal.SIGUSR1)
        assert _wait_for(lambda: "=== twin state (SIGUSR1) ===" in twin.log()), twin.log()[-2000:]
        assert _wait_for(lambda: "--- task sim-engine" in twin.log())
        report = twin.log()[twin.log().index("=== twin state (SIGUSR1) ==="):]
        assert "engine task running; failed=None" in report, report[:400]
        for name in ("waiting: ", "running: ", "chunked: "):
            assert name in report
        assert "--- task uvicorn" in report  # every task's stack, the HTTP server's too
        assert twin.proc.poll() is None  # the signal does not end it
        r = httpx.post(twin.url + "/v1/chat/completions", timeout=30,
                       json={"model": "m", "messages": [{"role": "user", "content": "again"}], "max_tokens": 3})
        assert r.status_code == 200 and json.loads(r.text)["usage"]["completion_tokens"] == 3
    finally:
        stop_twin(twin)


_BUGGY_TWIN = """
import sys
import console.sim.model.engine as engine
commit = engine.Engine.commit
def buggy(self, plan):
    if any(r.max_new_tokens == 400 and r.n_out >= 3 for r in self.running):  # the test's request, a few tokens in
        raise ZeroDivisionError("an engine bug")
    return commit(self, plan)
engine.Engine.commit = buggy
from console.sim.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_an_engine_bug_ends_the_twin_like_a_crashed_scheduler(tmp_path):
    """An exception in the engine task leaves no request waiting forever: every rank logs it as SGLang's
    `Scheduler hit an exception`, the launcher's kill lines follow and the process dies (SIGKILL), so the open
    stream ends with a closed connection at once."""
    port = free_port()
    err = tmp_path / "twin.err"
    argv = [sys.executable, "-c", _BUGGY_TWIN, *MODEL, *EAGLE3_D6, *FAST, "--mem-fraction-static", "0.96",
            "--port", str(port)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err.open("w"), start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        assert _wait_for(lambda: _ready(url), 30), err.read_text()[-2000:]
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 400, "stream": True}
        t0 = time.monotonic()
        with pytest.raises(httpx.HTTPError):
            with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=30) as r:
                for _ in r.iter_lines():
                    pass
        assert time.monotonic() - t0 < 10
        assert proc.wait(timeout=10) == -signal.SIGKILL
        log = err.read_text()
        assert log.count("Scheduler hit an exception: Traceback (most recent call last):") == 4, log[-3000:]
        assert log.count("ZeroDivisionError: an engine bug") == 4
        sigquit = log.index("SIGQUIT received. signum=None, frame=None. It usually means one child failed.")
        assert log.index("kill_process_tree called: parent_pid=") > sigquit
        assert log.rstrip().endswith("Killed")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _ready(url: str) -> bool:
    try:
        return httpx.get(url + "/ready", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False
