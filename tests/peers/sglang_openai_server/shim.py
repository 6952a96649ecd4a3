"""The base-URL shim for SGLang's own OpenAI-server tests (issue #14 §4).

Runs inside the real-sglang environment's interpreter (the tests import sglang); the console's process never
imports this module. SGLang's test classes start their server in `setUpClass` with
`sglang.test.test_utils.popen_launch_server(model, base_url, timeout, api_key=, other_args=, env=, ...)` and stop it
with `kill_process_tree(pid)`. `install()` replaces exactly those seams, before the test modules are imported:

* `popen_launch_server` starts the chosen target with the class's own server flags (`other_args`, `--api-key`,
  `env`, `return_stdout_stderr`) on the shim's loopback port, and waits for `/health_generate` as SGLang's helper
  does. Targets: `twin` (`python -m console.sim` with the reference model's argv + the class's flags), `real`
  (SGLang 0.5.23 on CPU with the lane's CPU flags + the class's flags), `url:URL` (an already-running server;
  the class's flags are checked against its `/server_info`, and a class whose flags it lacks fails in
  setUpClass naming the flag).
* `DEFAULT_*MODEL_NAME*` constants become the name the target serves (the tests send it as `model` and compare
  it with `/v1/models`); the model argument the class passes is recorded, never served.
* `get_tokenizer(...)` returns the target's tokenizer: the real model's HF tokenizer, or for the twin the
  o200k_base encoding the twin counts prompt tokens with (console/sim/content/tokens.py), with `encode`/`decode`.
* `kill_process_tree(pid)` stops only a process group this shim started (anything else is an error, never a kill).
* `start_subprocess_fail_fast_watcher` (CustomTestCase arms it around each test method: a server that exits
  non-zero mid-method ends the whole run with its status) keeps that rule, except for a server the runner's
  watchdog stopped (`stop_stalled`): that test is a timeout and the run goes on.
* `STDOUT_FILENAME` / `STDERR_FILENAME` (fixed /tmp paths in SGLang, where a class started with
  `return_stdout_stderr` sends the server's output and reads its log lines back) become files in the run's log
  directory, so runs never share or clobber them.
* Pinned files newer or older than 0.5.23 by an import path only: `sglang.srt.hf_transformers_utils` (0.5.23 keeps
  it at `sglang.srt.utils.hf_transformers_utils`) is the same module, and test-name constants 0.5.23's test_utils
  lacks (`DEFAULT_EAGLE_*`, used only by excluded speculative classes) are defined as a marker naming that.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

#: SGLang's test-name constants that name a model the tests send in requests
MODEL_CONSTANTS = ("DEFAULT_SMALL_MODEL_NAME_FOR_TEST", "DEFAULT_MODEL_NAME_FOR_TEST",
                   "DEFAULT_SMALL_MODEL_NAME_FOR_TEST_QWEN")
#: test-name constants later pinned files import that 0.5.23's sglang.test.test_utils does not define
MISSING_IN_0_5_23 = ("DEFAULT_EAGLE_TARGET_MODEL_FOR_TEST", "DEFAULT_EAGLE_DRAFT_MODEL_FOR_TEST")
#: flags whose value the class needs from a server it did not start (url target), by /server_info key
_BOOL_FLAGS = {"--enable-cache-report", "--enable-metrics", "--enable-custom-logit-processor"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str, api_key: str | None, timeout: float = 5.0) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


def _state_report(log: Path, limit: int = 4000) -> str:
    """The newest SIGUSR1 state report in a twin's log, without library frames (its own frames say where it
    waits), so a CI log shows it in the failed test's message."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    at = text.rfind("=== twin state (SIGUSR1) ===")
    if at < 0:
        return f"(no state report in {log}: the twin did not answer SIGUSR1)"
    lines = [ln for ln in text[at:].splitlines() if "site-packages" not in ln and "/asyncio/" not in ln]
    return "\n".join(lines)[:limit]


class O200kTokenizer:
    """The twin's token counter as a tokenizer: o200k_base (the `bpe-openai` wheel, offline)."""

    def __init__(self) -> None:
        import bpe_openai
        self._enc = bpe_openai.get_encoding("o200k_base")

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return list(self._enc.encode(text))

    def decode(self, ids, skip_special_tokens: bool = True) -> str:
        return self._enc.decode(list(ids))


class Launched:
    """What popen_launch_server returns: the started process (or a handle for a url target)."""

    def __init__(self, proc: subprocess.Popen | None, url: str, log: Path | None) -> None:
        self.proc = proc
        self.url = url
        self.log = log
        self.pid = proc.pid if proc else -1

    def poll(self):
        return self.proc.poll() if self.proc else None


class Shim:
    def __init__(self, target: str, log_dir: Path) -> None:
        self.target = target
        self.log_dir = log_dir
        self.launches: list[dict] = []  # what each class asked for, for the report
        self.ours: dict[int, Launched] = {}
        self.stalled: set[int] = set()  # pids the watchdog killed (stop_stalled)
        self.extra_twin_args: list[str] = []  # set by the runner per class (selection.TWIN_AT_MODELLED_SPEED)
        if target.startswith("url:"):
            self.url = target[4:].rstrip("/")
        else:
            self.url = f"http://127.0.0.1:{_free_port()}"
        if target == "twin":
            self.twin_python = os.environ["SC_PEER_TWIN_PYTHON"]
            self.twin_args = json.loads(os.environ["SC_PEER_TWIN_ARGS"])
            self.served = self._probe_twin_name()
        elif target == "real":
            self.real_python = os.environ["SC_PEER_REAL_PYTHON"]
            self.real_model = os.environ["SC_PEER_REAL_MODEL"]
            self.real_flags = json.loads(os.environ["SC_PEER_REAL_FLAGS"])
            self.real_env = json.loads(os.environ["SC_PEER_REAL_ENV"])
            self.served = self.real_model
        elif target.startswith("url:"):
            code, body = _get(self.url + "/v1/models", os.environ.get("SC_PEER_URL_API_KEY"))
            if code != 200:
                raise RuntimeError(f"{self.url}/v1/models answered {code}: not a ready server")
            self.served = json.loads(body)["data"][0]["id"]
        else:
            raise ValueError(f"unknown target {target!r} (twin | real | url:URL)")

    def _probe_twin_name(self) -> str:
        """The name the twin serves (it marks its model path as simulated): one launch, /v1/models, stop."""
        port = int(self.url.rsplit(":", 1)[1])
        log = self.log_dir / "server-0-twin-probe.log"
        with open(log, "w") as f:
            proc = subprocess.Popen([self.twin_python, "-m", "console.sim", *self.twin_args, "--host", "127.0.0.1",
                                     "--port", str(port)], stdout=f, stderr=f, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
        self.ours[proc.pid] = Launched(proc, self.url, log)
        try:
            end = time.monotonic() + 60
            while time.monotonic() < end and proc.poll() is None:
                code, body = _get(self.url + "/v1/models", None)
                if code == 200:
                    return json.loads(body)["data"][0]["id"]
                time.sleep(0.2)
            raise RuntimeError(f"the twin did not answer /v1/models (exit {proc.poll()}); log {log}")
        finally:
            self.kill_process_tree(proc.pid)

    # --- the replaced seams ---------------------------------------------------------------------------

    def popen_launch_server(self, model, base_url, timeout, api_key=None, other_args=None, env=None,
                            return_stdout_stderr=None, device="auto", **kw):
        other = [str(a) for a in (other_args or [])]
        self.launches.append({"asked_model": model, "other_args": other, "api_key": bool(api_key),
                              "env": sorted((env or {}).keys() - os.environ.keys())})
        if kw.get("pd_separated") or kw.get("num_replicas"):
            raise RuntimeError("PD-disaggregated launch requested: no such target here")
        if self.target.startswith("url:"):
            self._check_flags(other, api_key)
            return Launched(None, self.url, None)
        port = int(self.url.rsplit(":", 1)[1])
        n = len(self.launches)
        if self.target == "twin":
            argv = [self.twin_python, "-m", "console.sim", *self.twin_args, *self.extra_twin_args, *other]
            proc_env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        else:
            argv = [self.real_python, "-m", "sglang.launch_server", "--model-path", self.real_model,
                    *self.real_flags, *other]
            proc_env = {**os.environ, **self.real_env}
        proc_env.update(env or {})
        if api_key:
            argv += ["--api-key", api_key]
        argv += ["--host", "127.0.0.1", "--port", str(port)]
        log = self.log_dir / f"server-{n}-{self.target}.log"
        if return_stdout_stderr:
            out, err = return_stdout_stderr
            log = Path(err.name) if isinstance(getattr(err, "name", None), str) else log  # the class's own file
        else:
            out = err = open(log, "w")
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=proc_env,
                                start_new_session=True)
        handle = Launched(proc, self.url, log)
        self.ours[proc.pid] = handle
        self.launches[-1]["argv"] = argv[1:]
        deadline = time.monotonic() + min(float(timeout), 600.0)
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"{self.target} server exited ({proc.returncode}) before ready: "
                                   f"{' '.join(argv[1:])}; log {log}")
            code, _ = _get(self.url + "/health_generate", api_key, timeout=10)
            if code == 200:
                return proc
            time.sleep(0.5)
        self.kill_process_tree(proc.pid)
        raise RuntimeError(f"{self.target} server not ready in {timeout} s; log {log}")

    def kill_process_tree(self, parent_pid, include_parent: bool = True, skip_pid=None, wait_timeout=None, **kw):
        if parent_pid == -1:
            return  # a url target's handle: the server is not ours to stop
        handle = self.ours.pop(parent_pid, None)
        if handle is None:
            raise RuntimeError(f"kill_process_tree({parent_pid}): not a process this shim started")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(parent_pid, sig)
            except ProcessLookupError:
                break
            try:
                handle.proc.wait(timeout=15)
                break
            except subprocess.TimeoutExpired:
                continue
        # the port must be free before the next class launches on it
        end = time.monotonic() + 15
        while time.monotonic() < end and _get(self.url + "/health", None, timeout=1)[0] != 0:
            time.sleep(0.2)

    def stop_stalled(self, limit: float) -> str:
        """The runner's watchdog: a test ran past `limit` s. Ask each twin for its state (SIGUSR1: stacks.py writes
        it to the server log), then SIGKILL every process group this shim started; a url target is left alone.
        Returns what was done, for the test's result."""
        if not self.ours:
            return f"timed out after {limit:.0f} s; no server of this shim's was running ({self.url})"
        said = []
        self.stalled |= set(self.ours)
        for pid, handle in list(self.ours.items()):
            if self.target == "twin" and handle.proc.poll() is None:
                try:
                    os.kill(pid, signal.SIGUSR1)
                except ProcessLookupError:
                    pass
        time.sleep(2.0)  # the twin writes its report on its loop
        for pid, handle in list(self.ours.items()):
            alive = handle.proc.poll() is None
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            said.append(f"{self.target} pid {pid} ({'still running' if alive else 'had exited'}; "
                        f"log {handle.log}{', its state and task stacks at the end' if self.target == 'twin' else ''})")
        reports = [_state_report(h.log) for h in self.ours.values() if self.target == "twin" and h.log]
        return f"timed out after {limit:.0f} s: stopped " + "; ".join(said) + "".join(f"\n{r}" for r in reports if r)

    def fail_fast_watcher(self, named_procs) -> threading.Event:
        """SGLang's per-method rule (a watched server that exits non-zero ends the run with its status, as
        test_utils' watcher does), sparing a server the watchdog stopped. Set the returned event to stop watching."""
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.1):
                for name, proc in named_procs:
                    rc = proc.poll() if proc is not None else None
                    if rc in (None, 0) or proc.pid in self.stalled:
                        continue
                    sys.stderr.write(f"[FIXTURE FAIL-FAST] {name} (pid={proc.pid}) exited rc={rc}; aborting.\n")
                    sys.stderr.flush()
                    os._exit(rc if rc > 0 else 128 - rc)

        threading.Thread(target=watch, daemon=True, name="peer-fail-fast").start()
        return stop

    def get_tokenizer(self, name=None, *a, **kw):
        if self.target == "twin":
            return O200kTokenizer()
        path = self.real_model if self.target == "real" else os.environ.get("SC_PEER_URL_TOKENIZER", self.served)
        return self.hf_get_tokenizer(path, *a, **kw)

    def _check_flags(self, other: list[str], api_key) -> None:
        code, body = _get(self.url + "/server_info", os.environ.get("SC_PEER_URL_API_KEY"))
        info = json.loads(body) if code == 200 else {}
        i = 0
        while i < len(other):
            flag = other[i]
            if "=" in flag:
                flag, value = flag.split("=", 1)
                i += 1
            elif flag in _BOOL_FLAGS or i + 1 >= len(other) or other[i + 1].startswith("--"):
                value = True
                i += 1
            else:
                value = other[i + 1]
                i += 2
            key = flag.lstrip("-").replace("-", "_")
            have = info.get(key, "<absent>")
            if str(have).lower() != str(value).lower():
                raise RuntimeError(f"the server at {self.url} runs with {key}={have!r}; this class needs "
                                   f"{flag} {value}: run it with --target real or twin (the shim starts one)")


def install(target: str, log_dir: Path) -> Shim:
    """Patch sglang.test.test_utils and friends before any SGLang test module is imported."""
    import sys

    import sglang.srt.utils as srt_utils
    import sglang.srt.utils.hf_transformers_utils as hf_utils
    import sglang.test.test_utils as tu

    shim = Shim(target, log_dir)
    tu.STDOUT_FILENAME = str(log_dir / "server-stdout.txt")
    tu.STDERR_FILENAME = str(log_dir / "server-stderr.txt")
    sys.modules.setdefault("sglang.srt.hf_transformers_utils", hf_utils)
    for name in MISSING_IN_0_5_23:
        if not hasattr(tu, name):
            setattr(tu, name, f"<{name}: not in sglang 0.5.23's test_utils>")
    shim.hf_get_tokenizer = hf_utils.get_tokenizer  # SGLang's own, for the real model's tokenizer
    tu.popen_launch_server = shim.popen_launch_server
    if not hasattr(tu, "start_subprocess_fail_fast_watcher"):
        raise RuntimeError("sglang.test.test_utils has no start_subprocess_fail_fast_watcher: the shim needs updating")
    tu.start_subprocess_fail_fast_watcher = shim.fail_fast_watcher
    tu.DEFAULT_URL_FOR_TEST = shim.url
    for name in MODEL_CONSTANTS:
        setattr(tu, name, shim.served)
    srt_utils.kill_process_tree = shim.kill_process_tree
    tu.kill_process_tree = shim.kill_process_tree
    hf_utils.get_tokenizer = shim.get_tokenizer
    return shim
