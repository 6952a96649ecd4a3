"""Launching `python -m console.sim` as a child process on a free port, and reading its SSE bodies."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

MODEL = ["--model-path", "moonshotai/Kimi-K2.6", "--tp", "4", "--trust-remote-code"]
EAGLE3_D6 = ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "lightseekorg/kimi-k2.6-eagle3-mla",
             "--speculative-num-steps", "6", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "7"]
DFLASH = ["--speculative-algorithm", "DFLASH", "--speculative-draft-model-path", "z-lab/Kimi-K2.6-DFlash"]
#: Fast-forward: serving 20x faster than modeled, the ~11-minute cold start in ~0.03 s.
FAST = ["--sim-time-scale", "20", "--sim-startup-scale", "1000"]
#: One-token KV pages (flashinfer instead of the reference's trtllm_mla, which pages by 64 whatever --page-size says),
#: for comparisons with servers and tests that assume them: the real CPU server (torch_native, page 1) and SGLang's
#: own tests (test_cache_report: a repeated prompt hits prompt_tokens - 1). On 64-token pages short prompts hit no
#: whole page, as a real B200 server would (tests/sim/test_sim_model.py).
PAGE_1 = ["--attention-backend", "flashinfer"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Twin:
    """A running twin process."""

    proc: subprocess.Popen
    url: str
    stdout_path: Path
    stderr_path: Path

    def stdout(self) -> str:
        return self.stdout_path.read_bytes().decode()

    def stderr(self) -> str:
        return self.stderr_path.read_bytes().decode()

    def log(self) -> str:
        """The SGLang-format log (stderr, where SGLang's logging writes; stdout has only uvicorn's access log)."""
        return self.stderr()


PORT_TAKEN = "address already in use"


def start_twin(args: list[str], tmp: Path, ready: bool = True, timeout: float = 30.0, attempts: int = 5) -> Twin:
    """Start the twin with `args` (a --port is added) and wait until /ready answers 200 (or the process dies).
    The free port found here may be taken by someone else before the twin binds it: then again on another."""
    for attempt in range(attempts):
        try:
            return _start_twin(args, tmp, ready, timeout)
        except PortTaken:
            if attempt == attempts - 1:
                raise


class PortTaken(RuntimeError):
    pass


def _start_twin(args: list[str], tmp: Path, ready: bool, timeout: float) -> Twin:
    port = free_port()
    out, err = tmp / f"twin-{port}.out", tmp / f"twin-{port}.err"
    cmd = [sys.executable, "-m", "console.sim", *args, "--port", str(port)]
    proc = subprocess.Popen(cmd, stdout=out.open("w"), stderr=err.open("w"), start_new_session=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    twin = Twin(proc, f"http://127.0.0.1:{port}", out, err)
    if not ready:
        return twin
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            if PORT_TAKEN in twin.stdout() + twin.stderr():
                raise PortTaken(f"port {port} taken before the twin bound it")
            raise RuntimeError(f"twin exited with {proc.returncode}:\n{twin.stdout()[-3000:]}\n{twin.stderr()[-3000:]}")
        try:
            if httpx.get(twin.url + "/ready", timeout=1.0).status_code == 200:
                return twin
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    stop_twin(twin)
    raise TimeoutError(f"twin not ready after {timeout} s:\n{twin.stderr()[-3000:]}")


def stop_twin(twin: Twin) -> None:
    if twin.proc.poll() is None:
        twin.proc.terminate()
        try:
            twin.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            twin.proc.kill()
            twin.proc.wait()


def sse_events(text: str) -> list[str]:
    """The `data:` payloads of an SSE body, in order."""
    return [block[len("data: "):] for block in text.split("\n\n") if block.startswith("data: ")]


def sse_json(text: str) -> list[dict]:
    return [json.loads(e) for e in sse_events(text) if e != "[DONE]"]
