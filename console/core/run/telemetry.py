"""The runtime's telemetry: one task that watches the engine process (a death is reported at once), ticks the live
monitor, and polls /metrics, NVML and /server_info at their own rates while the TUI or a cell reads the state."""

from __future__ import annotations

import asyncio
import time

from console.core.engine.admin import AdminError
from console.core.run.events import (
    Died,
)


class Telemetry:
    """Runtime's telemetry loop and engine watchdog."""

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
                    if now - last_metrics >= (1.0 if busy else 5.0):
                        last_metrics = now
                        await self._poll_metrics()
                        if self.state.gpu is None or self.state.gpu.state != "no_driver":
                            self.state.gpu = await asyncio.to_thread(self.nvml.sample)
                    if now - last_info >= (5.0 if busy else 15.0):
                        last_info = now
                        try:
                            self._have_server(await self.admin.server_info())  # type: ignore[union-attr]
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
        try:
            self.state.metrics = await self.admin.metrics()  # type: ignore[union-attr]
            self.state.metrics_error = None
        except AdminError as e:
            self.state.metrics_error = str(e)

    async def _stop_telemetry(self) -> None:
        if self._telemetry is not None:
            self._telemetry.cancel()
            try:
                await self._telemetry
            except (asyncio.CancelledError, Exception):
                pass
            self._telemetry = None
