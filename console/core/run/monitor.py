"""Live figures for the dashboard, computed at a fixed rate (≈4 Hz), never per token.

`LiveMonitor.tick()` reads the in-flight requests of the stream client and the finished records, and
publishes an immutable `LiveSnapshot` (a reference swap, safe to read from another thread). All
figures come from `console.core.measure.stats`; the rolling rate is the only monitor-specific quantity:

    rolling tok/s = Δ(tokens streamed by all requests) / Δt over the last `window_s` seconds

On a time-compressed twin (`time_scale` S) rates are ÷ S and ages × S: the modelled node's figures.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from console.core.engine.stream import InFlight
from console.core.measure import stats
from console.core.measure.records import RequestRecord


@dataclass(frozen=True)
class RunningRequest:
    request_id: str
    tokens: int
    tok_s: float | None
    age_s: float
    prompt_tokens: int | None


@dataclass(frozen=True)
class LiveSnapshot:
    t: float
    running: tuple[RunningRequest, ...] = ()
    rolling_tok_s: float | None = None
    rolling_history: tuple[float, ...] = ()
    tau_history: tuple[float, ...] = ()
    recent_n: int = 0
    recent_tau: float | None = None
    recent_positions: tuple[float, ...] = ()
    recent_histogram: tuple[int, ...] = ()
    recent_median_tok_s: float | None = None
    last_finished: tuple[RequestRecord, ...] = ()
    total_finished: int = 0
    total_errors: int = 0


class LiveMonitor:
    def __init__(self, window_s: float = 5.0, recent: int = 64, history: int = 240) -> None:
        self.window_s = window_s
        self._inflight: dict[str, InFlight] = {}
        self._finished: deque[RequestRecord] = deque(maxlen=recent)
        self._finished_tokens = 0
        self._total_finished = 0
        self._total_errors = 0
        self._samples: deque[tuple[float, int]] = deque()
        self._rolling_hist: deque[float] = deque(maxlen=history)
        self._tau_hist: deque[float] = deque(maxlen=history)
        self.num_draft_tokens: int | None = None
        self._last_total = 0
        self.time_scale = 1.0
        """The engine twin's time scale (1 on a real server)."""
        self.snapshot = LiveSnapshot(t=time.monotonic())

    def attach(self, inflight: dict[str, InFlight]) -> None:
        """Watch a stream client's in-flight table (the client owns it)."""
        self._inflight = inflight

    def record_finished(self, rec: RequestRecord) -> None:
        if rec.warmup:
            return
        self._total_finished += 1
        if rec.error:
            self._total_errors += 1
        self._finished_tokens += rec.completion_tokens or 0
        self._finished.append(rec)

    def reset_recent(self) -> None:
        self._finished.clear()

    def tick(self, now: float | None = None, now_ns: int | None = None) -> LiveSnapshot:
        """`now` (monotonic s) paces the rolling window; `now_ns` (perf_counter ns, the stream client's
        clock) ages the running requests. Both injectable for deterministic tests."""
        now = time.monotonic() if now is None else now
        now_ns = time.perf_counter_ns() if now_ns is None else now_ns
        live = [x for x in list(self._inflight.values()) if not x.done]
        cum = self._finished_tokens + sum(x.tokens for x in live)
        if (not live and self._samples and cum == self._samples[-1][1] and self._total_finished == self._last_total
                and not any(self._rolling_hist) and (self.snapshot.rolling_tok_s or 0.0) == 0.0):
            return self.snapshot  # idle and flat: nothing to publish (readers can tell by identity)
        self._last_total = self._total_finished
        self._samples.append((now, cum))
        while len(self._samples) > 2 and self._samples[1][0] <= now - self.window_s:
            self._samples.popleft()
        t0, c0 = self._samples[0]
        S = self.time_scale if self.time_scale > 0 else 1.0
        rolling = (cum - c0) / (now - t0) / S if now - t0 >= 0.5 else None
        if rolling is not None and cum < c0:  # counters reset (monitor re-attached)
            rolling = None
        self._rolling_hist.append(rolling or 0.0)

        recent = list(self._finished)
        ok = [r for r in recent if r.ok]
        h = stats.pool_histograms(r.spec_histogram for r in ok)
        k_max = (self.num_draft_tokens - 1) if self.num_draft_tokens and self.num_draft_tokens > 1 else None
        pos = stats.per_position_acceptance(h, k_max) if h else []
        tau = stats.histogram_tau(h) if h else None
        if tau is not None:
            self._tau_hist.append(tau)
        speeds = [s for s in (stats.output_tok_s(r) for r in ok) if s is not None]
        running = tuple(
            RunningRequest(request_id=x.request_id, tokens=x.tokens,
                           tok_s=x.live_tok_s(),
                           age_s=(now_ns - x.t_sent_ns) / 1e9 * S, prompt_tokens=x.prompt_tokens)
            for x in sorted(live, key=lambda x: x.t_sent_ns)
        )
        self.snapshot = LiveSnapshot(
            t=now,
            running=running,
            rolling_tok_s=rolling,
            rolling_history=tuple(self._rolling_hist),
            tau_history=tuple(self._tau_hist),
            recent_n=len(ok),
            recent_tau=tau,
            recent_positions=tuple(pos),
            recent_histogram=tuple(h),
            recent_median_tok_s=stats.interp_median(speeds),
            last_finished=tuple(recent[-12:]),
            total_finished=self._total_finished,
            total_errors=self._total_errors,
        )
        return self.snapshot
