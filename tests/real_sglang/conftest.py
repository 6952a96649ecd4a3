"""The `real_sglang` lane: the console's own paths against a real SGLang 0.5.23 server (CPU, SmolLM2-135M).

The server environment and the model are built once, outside the repo, by `scripts/real_sglang/build.sh`
(docs/real-sglang.md). A missing or unfinished build is a failure that names the command, never a skip.

Every server these tests start is bound to 127.0.0.1 on an ephemeral port, runs in its own process group and is
killed (the whole group) in teardown; a test that finds a process of it still alive after the stop fails.

The lane is opt-in: `pytest -m real_sglang tests/real_sglang`. Without `real_sglang` in `-m` its tests are
deselected here (so the default suite never starts a real server, whatever addopts says).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "scripts" / "real_sglang" / "build.sh"
HOME = Path(os.environ.get("SERVING_CONSOLE_REAL_SGLANG_HOME")
            or Path.home() / ".cache" / "serving-console" / "real-sglang")
ENV_PY = HOME / "env" / "bin" / "python"
MODEL = HOME / "model"
INFO = HOME / "build.json"
HERE = Path(__file__).resolve().parent

#: what the CPU server needs besides the model: SGLang's CPU engine (SGLANG_USE_CPU_ENGINE), plain-PyTorch attention,
#: a small KV pool; and nothing fetched from a model hub
SERVER_ENV = {"SGLANG_USE_CPU_ENGINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
SERVER_FLAGS = ["--device", "cpu", "--attention-backend", "torch_native", "--mem-fraction-static", "0.3",
                "--max-total-tokens", "8192"]
READY_TIMEOUT_S = float(os.environ.get("SERVING_CONSOLE_REAL_SGLANG_READY_S", "240"))

#: the stand-in ops' reference tests need torch, which only the real-sglang env has: the console's interpreter never
#: collects them; test_standin_ops.py runs them under the env's interpreter (standin_ops/README.md)
collect_ignore = ["standin_ops"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_sglang: against a real SGLang 0.5.23 CPU server built by "
                                       "scripts/real_sglang/build.sh (opt-in: -m real_sglang)")


def _opted_in(config: pytest.Config) -> bool:
    expr = config.getoption("markexpr") or ""
    return "real_sglang" in expr and "not real_sglang" not in expr


def deselect_unless_opted_in(config: pytest.Config, items: list[pytest.Item], here: Path) -> None:
    """The items under `here` run only with `-m real_sglang` (this lane's conftest and the peers' share it)."""
    if _opted_in(config):
        return
    mine = [i for i in items if here in Path(str(i.fspath)).resolve().parents]
    if mine:
        config.hook.pytest_deselected(items=mine)
        items[:] = [i for i in items if i not in mine]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_unless_opted_in(config, items, HERE)


def pytest_collection_finish(session: pytest.Session) -> None:
    if _opted_in(session.config) and session.items:
        built = json.loads(INFO.read_text()) if INFO.exists() else {}
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            f"real-sglang: {HOME} (env {built.get('env_mb', '?')} MB, model {built.get('model_mb', '?')} MB, "
            f"built in {built.get('total_build_s', '?')} s)")


def how_to_build() -> str:
    return f"build it with `bash {BUILD.relative_to(REPO)}` (about 2-3 min cold; docs/real-sglang.md)"


@pytest.fixture(scope="session")
def real_env() -> dict:
    """The built environment, or a failure that says how to build it."""
    if not INFO.exists() or not ENV_PY.exists() or not (MODEL / "model.safetensors").exists():
        pytest.fail(f"no real-sglang environment at {HOME} (SERVING_CONSOLE_REAL_SGLANG_HOME): {how_to_build()}",
                    pytrace=False)
    return json.loads(INFO.read_text())


# --- processes ---------------------------------------------------------------------------------------

def descendants(pid: int) -> set[int]:
    """pid's living descendants, from /proc (children first seen by parent pid)."""
    parent: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] == "Z":
            continue
        parent[int(d.name)] = int(fields[1])
    out: set[int] = set()
    frontier = {pid}
    while frontier:
        nxt = {c for c, p in parent.items() if p in frontier and c not in out}
        out |= nxt
        frontier = nxt
    return out


def alive(pids: set[int]) -> set[int]:
    """The pids still running (zombies count as gone: their parent only has to reap them)."""
    out = set()
    for p in pids:
        try:
            st = Path(f"/proc/{p}/stat").read_text()
        except OSError:
            continue
        if st[st.rindex(")") + 2:].split()[0] != "Z":
            out.add(p)
    return out


def group_members(pgid: int) -> set[int]:
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                st = (d / "stat").read_text()
            except OSError:
                continue
            f = st[st.rindex(")") + 2:].split()
            if f[0] != "Z" and int(f[2]) == pgid:
                out.add(int(d.name))
    return out


def kill_group(pgid: int, grace_s: float = 15.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + grace_s
        while time.monotonic() < end:
            if not group_members(pgid):
                return
            time.sleep(0.2)


def free_port() -> int:
    """An ephemeral port on 127.0.0.1 (bound, read, released)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def until(pilot, cond, timeout: float = 5.0, what: str = "condition") -> None:
    """Wait on what the app shows (Pilot), not a fixed sleep."""
    import asyncio
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"{what}: not met in {timeout:.0f} s")
        await pilot.pause(0.05)
    await pilot.pause(0.05)


def widget_text(app, selector: str) -> str:
    """The characters the screen shows inside a widget's region (what a user reads)."""
    region = app.screen.query_one(selector).region
    lines = [s.text for s in app.screen._compositor.render_strips()]
    return "\n".join(ln[region.x:region.right] for ln in lines[region.y:region.bottom])


@dataclass
class Server:
    url: str
    port: int
    proc: subprocess.Popen
    log: Path
    argv: list[str]
    startup_s: float
    api_key: str | None = None
    info: dict = field(default_factory=dict)

    def get(self, path: str, **kw) -> httpx.Response:
        h = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return httpx.get(self.url + path, headers=h, timeout=30, **kw)


def start_server(log: Path, extra: list[str] = (), api_key: str | None = None) -> Server:
    port = free_port()
    argv = [str(ENV_PY), "-m", "sglang.launch_server", "--model-path", str(MODEL), *SERVER_FLAGS,
            "--host", "127.0.0.1", "--port", str(port), *extra]
    if api_key:
        argv += ["--api-key", api_key]
    env = {**os.environ, **SERVER_ENV}
    t0 = time.monotonic()
    with open(log, "wb") as f:
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env, cwd=log.parent)
    url = f"http://127.0.0.1:{port}"
    srv = Server(url, port, proc, log, argv, 0.0, api_key)
    try:
        while True:
            if proc.poll() is not None:
                tail = log.read_text(errors="replace").splitlines()[-15:]
                raise RuntimeError(f"the real server exited ({proc.returncode}) before ready; log {log}:\n"
                                   + "\n".join(tail))
            if time.monotonic() - t0 > READY_TIMEOUT_S:
                raise RuntimeError(f"the real server was not ready in {READY_TIMEOUT_S:.0f} s; log {log}")
            try:
                if httpx.get(url + "/ready", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        srv.startup_s = time.monotonic() - t0
        srv.info = srv.get("/server_info").json()
        return srv
    except BaseException:
        stop_server(srv)
        raise


def stop_server(srv: Server) -> set[int]:
    """Kill the server's process group; return what of it is still alive (should be nothing)."""
    kill_group(srv.proc.pid)
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    return group_members(srv.proc.pid)


@pytest.fixture(scope="module")
def server(real_env, tmp_path_factory):
    """A real SGLang server for the module, with --enable-metrics, no API key. Not one for the session: an idle
    0.5.23 CPU server's scheduler holds a core at 100% (measured: 41 min of CPU in 40 min), so a session-long one
    halved the CPU of every speculative test that ran while it idled; a start costs ~30 s per module."""
    d = tmp_path_factory.mktemp("real-sglang-server")
    try:
        srv = start_server(d / "server.log", ["--enable-metrics"])
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    sys.stderr.write(f"\nreal-sglang: server ready in {srv.startup_s:.1f} s at {srv.url}\n")
    yield srv
    left = stop_server(srv)
    assert not left, f"server processes still alive after the stop: {sorted(left)}"


# --- the console -------------------------------------------------------------------------------------

CLI = [sys.executable, "-m", "console.cli"]


def run_cli(args: list[str], timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """The console's CLI as an operator runs it (this checkout's console, the console's own interpreter). Past
    `timeout` the console gets Ctrl-C first, as an operator would send, so that it stops the real server it launched
    (a SIGKILL left that server running for the rest of the lane), then TimeoutExpired."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("SC_REAL_")}
    e.update(env or {})
    proc = subprocess.Popen([*CLI, *args], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=e, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        raise subprocess.TimeoutExpired(proc.args, timeout, output=out, stderr=err) from None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def rows_of(cell_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (cell_dir / "rows.jsonl").read_text().splitlines() if x.strip()]
