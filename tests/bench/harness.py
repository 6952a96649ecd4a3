"""Shared machinery of the benchmarks: the engine twin as a separate process, the console's TUI running live and
rendering (headless terminal, full ANSI output), the twin's ground truth (/sim/trace), and process figures
(CPU time, RSS, file descriptors, asyncio tasks) of this — the console's — process.

"TUI live" here means the real app (`console.ui.app.make_app`) driven by `App.run_test()` with a real `Runtime`
attached to the twin: the app repaints from core state at 4 Hz in the main thread while the runtime measures in its
`IoThread`, exactly as in `serving-console tui`. Textual's headless driver skips the last step of a frame (turning
the composed screen into terminal bytes and writing them); `RenderingDriver` restores it, so each frame is
serialized to ANSI like on a terminal and only the final write goes to a byte counter instead of a tty.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

import httpx
import numpy as np
from textual.drivers.headless_driver import HeadlessDriver

from console.core.run.runtime import Runtime
from console.ui.app import ConsoleApp, make_app
from tests.sim.twin_process import EAGLE3_D6, MODEL, start_twin, stop_twin

#: the reference arm (EAGLE-3 depth 6) at the report's mem fraction, metrics on, cold start fast-forwarded
TWIN_ARGS = [*MODEL, *EAGLE3_D6, "--mem-fraction-static", "0.96", "--enable-metrics", "--sim-startup-scale", "1000"]
CLK_TCK = os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def twin(tmp: Path, *extra: str):
    t = start_twin([*TWIN_ARGS, *extra], tmp, timeout=60)
    try:
        yield t
    finally:
        stop_twin(t)


# --- TUI live ----------------------------------------------------------------------------------------------

class RenderingDriver(HeadlessDriver):
    """Headless input, but every frame is rendered to terminal bytes (App._display runs in full)."""

    frames = 0
    bytes_out = 0

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.frames += 1
        self.bytes_out += len(data)


@dataclass
class TuiCounters:
    driver: RenderingDriver | None = None
    refreshes: int = 0

    @property
    def frames(self) -> int:
        return self.driver.frames if self.driver else 0

    @property
    def bytes_out(self) -> int:
        return self.driver.bytes_out if self.driver else 0


def _instrument(app: ConsoleApp) -> TuiCounters:
    c = TuiCounters()
    orig_build = app._build_driver

    def build(headless, inline, mouse, size):
        d = orig_build(headless, inline, mouse, size)
        d.__class__ = RenderingDriver
        c.driver = d  # type: ignore[assignment]
        return d

    app._build_driver = build  # type: ignore[method-assign]
    orig_refresh = app.refresh_state

    def refresh() -> None:
        c.refreshes += 1
        orig_refresh()

    app.refresh_state = refresh  # type: ignore[method-assign]
    return c


@contextlib.asynccontextmanager
async def live_tui(url: str, sessions: Path, size: tuple[int, int] = (160, 48)
                   ) -> AsyncIterator[tuple[ConsoleApp, Runtime, TuiCounters]]:
    """The console's app, live and rendering, with a real Runtime attached to `url`."""
    holder: dict[str, Runtime] = {}

    def factory(observer):
        rt = Runtime(attach_url=url, sessions=sessions, observer=observer)
        holder["rt"] = rt
        return rt

    app = make_app(factory, auto_anchor=False)
    counters = _instrument(app)
    async with app.run_test(size=size) as pilot:
        rt = holder["rt"]
        await wait_for(lambda: rt.state.phase == "attached", 30)
        await pilot.pause(0.5)
        assert app.query_one("#dashboard").display, "dashboard not shown"
        try:
            yield app, rt, counters
        finally:
            fut = app._io.submit(rt.stop())  # type: ignore[union-attr]
            await asyncio.wrap_future(fut)


async def in_io(app: ConsoleApp, coro) -> Any:
    """Run a runtime coroutine in the app's I/O thread (as the app's own commands do) and await its result."""
    return await asyncio.wrap_future(app._io.submit(coro))  # type: ignore[union-attr]


async def wait_for(pred, timeout_s: float, poll_s: float = 0.02) -> float:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout_s:
            raise TimeoutError(f"condition not met within {timeout_s} s")
        await asyncio.sleep(poll_s)
    return time.monotonic() - t0


# --- ground truth ------------------------------------------------------------------------------------------

def traces(url: str) -> dict[str, dict[str, Any]]:
    d = httpx.get(url + "/sim/trace", timeout=30).json()
    assert d["clock"] == "time.monotonic"
    return {r["rid"]: r for r in d["requests"]}


@dataclass
class Truth:
    tok_s: float | None
    ttft_s: float
    n_content: int
    cum_tokens: list[int]


def truth_of(tr: dict[str, Any], n_content: int) -> Truth:
    """The console's own formulas on the server's emit times: the first chunk is the role chunk (no content), the
    next `n_content` chunks are the content chunks the client saw, in order.

    tok/s = (completion_tokens − tokens of the first content chunk) / (emit of last − emit of first content chunk);
    TTFT = emit of the first content chunk − arrival of the request at the server."""
    t, k = tr["t_chunks"], tr["chunk_tokens"]
    assert k[0] == 0, "first chunk is the role chunk"
    content_t, content_k = t[1:1 + n_content], k[1:1 + n_content]
    cum = list(np.cumsum(content_k)) if content_k else []
    dt = content_t[-1] - content_t[0] if n_content > 1 else 0.0
    n = tr["completion_tokens"] - content_k[0]
    return Truth(tok_s=n / dt if dt > 0 and n > 0 else None, ttft_s=content_t[0] - tr["t_arrival"],
                 n_content=n_content, cum_tokens=[int(x) for x in cum])


# --- this process ------------------------------------------------------------------------------------------

def cpu_s() -> float:
    """CPU time of this whole process (all threads), seconds."""
    return time.process_time()


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def pct(xs, q: float) -> float:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else float("nan")


def threads() -> int:
    return len(os.listdir("/proc/self/task"))
