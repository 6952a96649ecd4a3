"""The runtime's telemetry: one task that watches the engine process (a death is reported at once), ticks the live
monitor, and polls /metrics, NVML and /server_info at their own rates while the TUI or a cell reads the state."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from console.core.engine.admin import AdminError
from console.core.run.events import (
    Died,
)
from console.core.run.state import SPEC_TRAIL, SpecReading

if TYPE_CHECKING:
    from console.core.engine.admin import AdminClient
    from console.core.engine.server_info import ServerInfo
    from console.core.engine.stream import StreamClient
    from console.core.launch.process import EngineProcess
    from console.core.run.events import Event
    from console.core.run.monitor import LiveMonitor
    from console.core.run.state import RuntimeState
    from console.core.telemetry.nvml import NvmlPoller


class Telemetry:
    """Runtime's telemetry loop and engine watchdog."""

    # set by Runtime.__init__ (this class is one of Runtime's parts)
    state: RuntimeState
    engine: EngineProcess | None
    node_engines: list[EngineProcess]
    admin: AdminClient | None
    stream: StreamClient | None
    monitor: LiveMonitor
    nvml: NvmlPoller
    _telemetry: asyncio.Task[None] | None

    if TYPE_CHECKING:  # Runtime's own methods
        def _emit(self, ev: Event) -> None: ...
        def _have_server(self, info: ServerInfo) -> None: ...

    def _engines_alive(self) -> bool:
        return all(e.alive for e in [self.engine, *self.node_engines] if e is not None)

    def _report_death(self) -> None:
        """Mark the launched engine dead and say why, once."""
        if self.state.phase == "dead" or self.engine is None:
            return
        dead = next((e for e in [self.engine, *self.node_engines] if not e.alive), None)
        if dead is None:
            return
        reason = dead.death_reason() if dead is self.engine else \
            f"node rank {self.node_engines.index(dead) + 1}: {dead.death_reason()}"
        self.state.phase = "dead"
        self.state.error = reason
        self._emit(Died(reason, str(dead.log_path)))

    def _start_telemetry(self) -> None:
        self.state.spec_trail = ()  # a new server (launch, relaunch, attach): its own trail
        if self._telemetry is None or self._telemetry.done():
            self._telemetry = asyncio.create_task(self._telemetry_loop())

    def _busy(self) -> bool:
        """Requests in flight or a cell running: telemetry polls at full rate; otherwise it slows down."""
        if self.state.cell is not None and self.state.cell.running:
            return True
        return self.stream is not None and any(not x.done for x in self.stream.inflight.values())

    async def _telemetry_loop(self) -> None:
        """Every 250 ms: engine watchdog, log tail, monitor tick. /metrics and NVML every 1 s while busy, every
        5 s when idle (nothing moves, and an idle console should cost the node ~nothing); NVML not at all after
        it reported no driver; /server_info every 5 s busy, 15 s idle."""
        tick = 0
        last_metrics = last_info = -1e9
        while True:
            try:
                if self.engine is not None and self.state.phase == "ready" and not self._engines_alive():
                    self._report_death()
                elif self.engine is not None:
                    self.engine.read_log()
                self.state.live = self.monitor.tick()
                now = time.monotonic()
                busy = self._busy()
                if self.state.phase in ("ready", "attached"):
                    adaptive = self.state.server is not None and self.state.server.arm.adaptive
                    if now - last_metrics >= ((0.25 if adaptive else 1.0) if busy else 5.0):
                        last_metrics = now
                        await self._poll_metrics()
                        if self.state.gpu is None or self.state.gpu.state != "no_driver":
                            self.state.gpu = await asyncio.to_thread(self.nvml.sample)
                    if now - last_info >= (5.0 if busy else 15.0):
                        last_info = now
                        assert self.admin is not None  # ready or attached: connected
                        try:
                            self._have_server(await self.admin.server_info())
                            self._note_spec_from_server_info()
                        except AdminError:
                            pass
            except asyncio.CancelledError:
                raise
            except Exception as e:  # telemetry must never die silently: keep the last cause visible
                self.state.metrics_error = f"telemetry: {type(e).__name__}: {e}"
            tick += 1
            await asyncio.sleep(0.25)

    async def _poll_metrics(self) -> None:
        srv = self.state.server
        if srv is not None and not srv.enable_metrics:
            self.state.metrics_error = "server runs without --enable-metrics: live KV usage unavailable"
            return
        assert self.admin is not None  # polled only when ready or attached
        try:
            m = self.state.metrics = await self.admin.metrics()
            self.state.metrics_error = None
        except AdminError as e:
            self.state.metrics_error = str(e)
            return
        if m is not None and m.spec_num_steps is not None:
            self._note_spec(m.spec_num_steps, m.spec_num_draft_tokens, "/metrics")

    # --- adaptive speculation: the active draft steps ------------------------------------------------

    def _note_spec(self, steps: float, draft_tokens: float | None, source: str) -> None:
        """Append a reading of the active draft steps (adaptive servers only)."""
        srv = self.state.server
        if srv is None or not srv.arm.adaptive:
            return
        r = SpecReading(time.time(), int(steps), int(draft_tokens) if draft_tokens is not None else None, source)
        self.state.spec_trail = (self.state.spec_trail + (r,))[-SPEC_TRAIL:]

    def _note_spec_from_server_info(self) -> None:
        """Without the /metrics gauges (no --enable-metrics), /server_info internal_states[0] carries the active
        steps once the server switched them (before that, the launch values it also shows)."""
        srv = self.state.server
        if srv is None or not srv.arm.adaptive:
            return
        last = self.state.spec_active()
        if last is not None and last.source == "/metrics" and time.time() - last.t < 10:
            return
        states = srv.raw.get("internal_states") or []
        st = states[0] if states and isinstance(states[0], dict) else {}
        steps = st.get("speculative_num_steps")
        if isinstance(steps, int):
            ndt = st.get("speculative_num_draft_tokens")
            self._note_spec(steps, ndt if isinstance(ndt, int) else None, "/server_info")

    def request_steps(self, rec) -> list[int]:
        """The active draft steps while a request ran: the reading in force when it was sent, then every reading
        until its stream ended (4 Hz while busy; the /metrics gauge itself refreshes at each decode log)."""
        trail = self.state.spec_trail
        if not trail:
            return []
        start = rec.wall_start
        end = start + float(rec.t_end_s or rec.t_last_s or 0.0)
        before = [r for r in trail if r.t <= start]
        out = [before[-1].steps] if before else []
        return out + [r.steps for r in trail if start < r.t <= end]

    async def _stop_telemetry(self) -> None:
        if self._telemetry is not None:
            self._telemetry.cancel()
            try:
                await self._telemetry
            except (asyncio.CancelledError, Exception):
                pass
            self._telemetry = None
