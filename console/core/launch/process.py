"""The engine as a managed child: own process group, logs to a file, readiness by `/ready`, clean stop.

- The child runs in its own session/process group with stdin closed and stdout+stderr appended to the
  session's log file, so it never touches the console's terminal.
- On Linux the child also gets `PR_SET_PDEATHSIG(SIGTERM)`: if the console dies (even by SIGKILL), the
  engine is told to exit (a child whose console died before the signal was armed never execs the engine), and
  `atexit` stops every group still alive on a normal exit — no orphan holds the GPUs after the console is gone.
- `wait_ready` polls `/ready` every 100 ms while tailing the log into `StartupParser`; if the child
  exits first, `EngineDied` carries its exit code and the first real error line of the log.
- `stop` sends SIGTERM to the whole group, then SIGKILL after a timeout.
"""

from __future__ import annotations

import asyncio
import atexit
import codecs
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from console.core.launch.logparse import StartupParser, StartupProgress
from console.core.redaction import relay_redacted

_LIVE: set[EngineProcess] = set()
_LIVE_LOCK = threading.Lock()


def describe_exit(rc: int | None) -> str:
    """'signal 9 (SIGKILL)' for a signal death, 'exit code 1' otherwise ('not started' for None)."""
    if rc is None:
        return "not started"
    if rc < 0:
        try:
            return f"signal {-rc} ({signal.Signals(-rc).name})"
        except ValueError:
            return f"signal {-rc}"
    return f"exit code {rc}"


class EngineDied(RuntimeError):
    def __init__(self, returncode: int | None, error_line: str | None, log_path: Path) -> None:
        self.returncode = returncode
        self.error_line = error_line
        self.log_path = log_path
        why = error_line or "no error line in the log"
        super().__init__(f"engine died before ready ({describe_exit(returncode)}): {why}  [log: {log_path}]")


class EngineLost(RuntimeError):
    """The engine died while the console was measuring on it (one line: what stopped and what was kept)."""


class EngineTimeout(RuntimeError):
    pass


def _prctl() -> Any:
    """libc's prctl, looked up in the console (never between fork and exec); None off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _child_setup(parent: int) -> Callable[[], None]:
    """What the child runs between fork and exec: its own session, and PR_SET_PDEATHSIG(SIGTERM). The signal is
    armed only for a parent alive at the prctl: a console killed between the fork and it (a sweep killed in the
    middle of a launch, seen under load) would leave the engine running for good, so a child whose parent is no
    longer `parent` exits before it execs the engine."""
    prctl = _prctl()

    def setup() -> None:
        os.setsid()
        if prctl is not None:
            prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            if os.getppid() != parent:
                os._exit(1)
    return setup


class EngineProcess:
    """One launched engine. `argv` is exec'd as a list (no shell); `display_argv` is what records show
    (secrets redacted)."""

    def __init__(
        self,
        argv: list[str],
        log_path: Path,
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        tp: int = 1,
        has_draft: bool | None = None,
        display_argv: list[str] | None = None,
        secrets: list[str] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.display_argv = display_argv or list(argv)
        self.log_path = Path(log_path)
        self.env = env
        self.cwd = cwd
        self.parser = StartupParser(tp=tp, has_draft=has_draft)
        self.secrets = [x for x in (secrets or []) if x]
        """Values (API keys) replaced by '<redacted>' before the engine's output reaches the log file."""
        self._relay: threading.Thread | None = None
        self.proc: subprocess.Popen | None = None
        self.started_at: float | None = None
        self.ready_at: float | None = None
        self._log_pos = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._tail: deque[str] = deque(maxlen=2000)
        self._nlines = 0

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.setdefault("PYTHONUNBUFFERED", "1")
        if self.env:
            env.update(self.env)
        with open(self.log_path, "ab") as logf:
            header = f"# serving-console launch {time.strftime('%Y-%m-%dT%H:%M:%S%z')}: {' '.join(self.display_argv)}\n"
            logf.write(header.encode())
            logf.flush()
            self._log_pos = logf.tell()
            try:
                # With secrets, the output goes through a relay that redacts them (SGLang prints its
                # server_args, api_key included); otherwise straight to the file.
                self.proc = subprocess.Popen(
                    self.argv, stdout=subprocess.PIPE if self.secrets else logf, stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL, env=env, cwd=self.cwd, preexec_fn=_child_setup(os.getpid()),
                    close_fds=True,
                )
            except FileNotFoundError:
                raise EngineDied(None, f"cannot execute {self.argv[0]!r}: not found (check "
                                       "engine.python in the profile)",
                                 self.log_path) from None
            except PermissionError:
                raise EngineDied(None, f"cannot execute {self.argv[0]!r}: permission denied", self.log_path) from None
        if self.secrets and self.proc.stdout is not None:
            self._relay = threading.Thread(target=relay_redacted, args=(self.proc.stdout, self.log_path, self.secrets),
                                           name="engine-log-relay", daemon=True)
            self._relay.start()
        self.started_at = time.monotonic()
        with _LIVE_LOCK:
            _LIVE.add(self)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    @property
    def returncode(self) -> int | None:
        return self.proc.poll() if self.proc else None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def group_pids(self) -> set[int]:
        """PIDs in the engine's process group (Linux /proc scan), the child included."""
        if not self.proc:
            return set()
        pgid = self.proc.pid
        pids = {pgid}
        try:
            for d in os.listdir("/proc"):
                if d.isdigit():
                    try:
                        if os.getpgid(int(d)) == pgid:
                            pids.add(int(d))
                    except OSError:
                        pass
        except OSError:
            pass
        return pids

    def read_log(self) -> StartupProgress:
        """Feed whatever the log gained since the last call into the startup parser."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self._log_pos)
                data = f.read()
                self._log_pos = f.tell()
        except OSError:
            return self.parser.progress
        if data:
            text = self._decoder.decode(data)
            self.parser.feed(text)
            self._remember_tail(text)
        return self.parser.progress

    def _remember_tail(self, text: str) -> None:
        lines = [ln for ln in text.replace("\r", "\n").split("\n") if ln.strip()]
        self._tail.extend(lines)
        self._nlines += len(lines)

    def tail(self, n: int = 20) -> list[str]:
        return list(self._tail)[-n:]

    def lines_since(self, k: int) -> tuple[list[str], int]:
        """Log lines numbered ≥ k that are still retained (the last 2000), and the running total."""
        first = self._nlines - len(self._tail)
        start = max(k, first) - first
        return list(self._tail)[start:], self._nlines

    def death_reason(self) -> str:
        """One line on why the engine is gone: its first real error line, else its last log line."""
        self.read_log()
        self.parser.finish()
        p = self.parser.progress
        what = p.error_line or (self._tail[-1] if self._tail else "no output")
        if p.error_line and p.error_where:
            what += f"  (at {p.error_where})"
        return f"engine died ({describe_exit(self.returncode)}): {what}"

    async def wait_ready(
        self,
        ready: Callable[[], Awaitable[bool]],
        timeout_s: float = 3600.0,
        poll_s: float = 0.1,
        on_progress: Callable[[StartupProgress], None] | None = None,
        also: list[EngineProcess] | None = None,
    ) -> StartupProgress:
        """Poll `ready()` (an async callable returning True on `/ready` 200) every `poll_s` while
        tailing the log; raise `EngineDied` as soon as the child (or one of `also`, the other node ranks)
        exits, `EngineTimeout` after `timeout_s`."""
        t0 = time.monotonic()
        while True:
            prog = self.read_log()
            if on_progress is not None:
                on_progress(prog)
            for other in also or ():
                if not other.alive:
                    other.read_log()
                    other.parser.finish()
                    raise EngineDied(other.returncode, other.death_reason(), other.log_path)
            if not self.alive:
                self.read_log()
                self.parser.finish()
                p = self.parser.progress
                line = p.error_line or (self._tail[-1] if self._tail else None)
                if p.error_line and p.error_where:
                    line = f"{p.error_line}  (at {p.error_where})"
                raise EngineDied(self.returncode, line, self.log_path)
            if await ready():
                self.ready_at = time.monotonic()
                prog = self.read_log()
                if not prog.ready:
                    prog.ready = True
                if on_progress is not None:
                    on_progress(prog)
                return prog
            if time.monotonic() - t0 > timeout_s:
                raise EngineTimeout(f"engine not ready after {timeout_s:.0f} s; last log line: {prog.last_line!r}")
            await asyncio.sleep(poll_s)

    def stop(self, timeout_s: float = 15.0) -> int | None:
        """SIGTERM to the process group, SIGKILL after `timeout_s`. Returns the exit code."""
        if self.proc is None:
            return None
        try:
            if self.proc.poll() is None:
                _signal_group(self.proc.pid, signal.SIGTERM)
                try:
                    self.proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    _signal_group(self.proc.pid, signal.SIGKILL)
                    self.proc.wait(timeout=5)
            # stragglers of the group (real SGLang spawns schedulers) get SIGKILL
            _signal_group(self.proc.pid, signal.SIGKILL)
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(self)
        return self.proc.returncode


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all(timeout_s: float = 5.0) -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for e in live:
        try:
            e.stop(timeout_s)
        except Exception:
            pass


atexit.register(stop_all)
