"""Wall-clock driver of the engine, and per-request output delivery to the HTTP writers.

`EngineRuntime` runs the scheduler as one asyncio task. Each forward is planned, then committed at an absolute
deadline `wall0 + (model_clock + duration) / time_scale`, so timing never drifts: a late wake-up is absorbed by
the following steps (which then run back to back) instead of accumulating. When the engine idles, its model
clock jumps to the next arrival.

An arrival's model time is the moment its HTTP request reached the twin (`RECEIVED_AT`, stamped by the app's
outermost middleware), not the later moment the route finished parsing and counting the prompt and submitted it:
that work is the twin's own wall time, which does not shrink with the time scale, and the modelled node tokenizes
and dispatches at receipt (timing.py). So a request is admitted at the first modelled scheduling point after its
receipt: on an idle engine its prefill is planned from the receipt, and the parse overlaps the prefill's wall
time instead of preceding it (docs/twin.md §7).

`RequestHandle` is the meeting point of the engine (which pushes cumulative outputs) and the HTTP writer (which
pulls): like SGLang's `_wait_one_response`, a writer that wakes up late gets only the newest cumulative state,
so queued outputs merge into one chunk; the first output (the prefill token) is always delivered alone.
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .engine import Engine, RequestOutput, SimRequest, StepPlan

#: loop time (time.monotonic(), seconds) at which the HTTP request being served reached the twin; set per request by
#: the app's outermost middleware (app.ReceiptStamp), read when the route submits its engine requests
RECEIVED_AT: ContextVar[float | None] = ContextVar("sim_received_at", default=None)
#: how far before a prefill's deadline its timer sleep ends (the selector's timeout granularity, 1 ms)
TIMER_SLACK_S = 0.001


class RequestHandle:
    """Outputs of one request, from the engine (push) to its HTTP writer (pull)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._first: RequestOutput | None = None
        self._latest: RequestOutput | None = None
        self._last_given: RequestOutput | None = None

    def push(self, out: RequestOutput) -> None:
        """Engine side: a new cumulative output."""
        if self._first is None:
            self._first = out
        self._latest = out
        self._event.set()

    async def next(self) -> RequestOutput | None:
        """Writer side: the next output to send (merged), or None after the final one was given."""
        while True:
            if self._last_given is None and self._first is not None:
                self._last_given = self._first
                return self._first
            if self._latest is not None and self._latest is not self._last_given:
                self._last_given = self._latest
                return self._latest
            if self._last_given is not None and self._last_given.finished:
                return None
            self._event.clear()
            await self._event.wait()


class EngineRuntime:
    """Runs `Engine` against the wall clock, `time_scale` model seconds per wall second."""

    def __init__(self, engine: Engine, time_scale: float) -> None:
        self.engine = engine
        self.time_scale = time_scale
        self._wake: asyncio.Event | None = None
        self._wall0 = 0.0
        self._task: asyncio.Task | None = None
        self.inflight: StepPlan | None = None
        self.failed: BaseException | None = None
        self.crash_at: int | None = None  #: the crash-at-step fault: the decode step (engine.decode_ct) that dies
        self._on_crash: Callable[[], None] | None = None
        #: an engine bug (an exception in the engine task): given the traceback record; the server logs it as every
        #: rank's scheduler exception and ends the process, as SGLang's launcher does when a scheduler dies, so
        #: clients see the connection close instead of waiting on requests nobody will step
        self.on_failure: Callable[[str], None] | None = None
        # pacing: how late each commit ran against its deadline (wall seconds); >0 means the emit schedule slipped
        self.forwards = 0
        self.late_sum = 0.0
        self.late_max = 0.0
        self.late_last = 0.0
        self.late_over_1ms = 0
        self.commit_cpu_s = 0.0  #: process CPU spent in plan + commit (the engine model itself)

    def pacing(self) -> dict[str, Any]:
        """How well the emit schedule keeps up with the model (for /sim/info and the twin-speed benchmark)."""
        n = self.forwards
        return {"forwards": n, "late_mean_s": self.late_sum / n if n else 0.0, "late_max_s": self.late_max,
                "late_last_s": self.late_last, "late_over_1ms": self.late_over_1ms,
                "engine_cpu_s": self.commit_cpu_s, "process_cpu_s": time.process_time(),
                "wall0_monotonic": self._wall0, "time_scale": self.time_scale}

    def arm_crash(self, steps: int, on_crash: Callable[[], None]) -> None:
        """Call `on_crash` instead of committing the `steps`-th decode/verify step from now."""
        self.crash_at = self.engine.decode_ct + steps
        self._on_crash = on_crash

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._wall0 = loop.time() - self.engine.clock / self.time_scale
        self._task = loop.create_task(self._run(), name="sim-engine")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    def model_now(self) -> float:
        """Wall-derived model time (seconds)."""
        return (asyncio.get_running_loop().time() - self._wall0) * self.time_scale

    def model_at(self, wall_s: float) -> float:
        """The model time of loop time `wall_s`."""
        return (wall_s - self._wall0) * self.time_scale

    def submit(self, req: SimRequest, received: float | None = None) -> None:
        """Hand a request to the scheduler; it joins at the next step boundary after its arrival. `received`: the loop
        time at which its HTTP request reached the twin (the arrival; default now)."""
        now = self.model_now()
        if received is not None:
            now = min(now, self.model_at(received))
        if self.inflight is not None:
            # Busy: the arrival falls within the step in flight.
            now = min(max(now, self.engine.clock), self.engine.clock + self.inflight.duration_s)
        else:
            now = max(now, self.engine.clock)
        self.engine.submit(req, now)
        assert self._wake is not None
        self._wake.set()

    def abort(self, req: SimRequest) -> None:
        self.engine.abort(req)

    @staticmethod
    async def _sleep_until(loop: asyncio.AbstractEventLoop, deadline: float, exact: bool) -> None:
        """Sleep to the loop time `deadline`. The selector rounds a timeout up to the next millisecond, so a plain
        sleep wakes 0-1 ms late; a step that yields first tokens (`exact`: a prefill, its TTFT) sleeps to
        TIMER_SLACK_S before and passes the rest through the loop (other callbacks run), so its first tokens go
        out on time. Decode steps take the plain sleep: their lateness is absorbed by the next deadlines."""
        delay = deadline - loop.time()
        if not exact:
            await asyncio.sleep(delay if delay > 0 else 0)
            return
        if delay > TIMER_SLACK_S:
            await asyncio.sleep(delay - TIMER_SLACK_S)
        while loop.time() < deadline:
            await asyncio.sleep(0)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        engine = self.engine
        assert self._wake is not None
        try:
            while True:
                if not engine.has_work():
                    engine.on_idle()
                    self._wake.clear()
                    await self._wake.wait()
                    # the clock jumps to the newest arrival (modelled at its receipt, see submit), not to the
                    # wall-derived now: the hand-off from the HTTP route to this task is not modelled time
                    arrivals = [r.arrival_s for r in engine.waiting]
                    engine.clock = max(engine.clock, max(arrivals) if arrivals else self.model_now())
                c0 = time.process_time()
                plan = engine.plan()
                self.commit_cpu_s += time.process_time() - c0
                if plan is None:
                    await asyncio.sleep(0.001)
                    continue
                self.inflight = plan
                deadline = self._wall0 + (engine.clock + plan.duration_s) / self.time_scale
                await self._sleep_until(loop, deadline, exact=plan.kind == "prefill")
                self.inflight = None
                late = loop.time() - deadline
                self.forwards += 1
                self.late_last = late
                if late > 0:
                    self.late_sum += late
                    self.late_max = max(self.late_max, late)
                    if late > 0.001:
                        self.late_over_1ms += 1
                if self.crash_at is not None and plan.kind == "decode" and engine.decode_ct + 1 >= self.crash_at:
                    assert self._on_crash is not None
                    self._on_crash()  # does not return (the process is killed)
                c0 = time.process_time()
                engine.commit(plan)
                self.commit_cpu_s += time.process_time() - c0
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # an engine bug: the scheduler died, as SGLang's would (on_failure)
            self.failed = e
            tb = "Scheduler hit an exception: " + traceback.format_exc()
            if self.on_failure is not None:
                self.on_failure(tb)  # does not return (the process is killed)
            sys.stderr.write(tb)
            sys.stderr.flush()


@dataclass
class TraceRecord:
    """Ground truth of one request as the server wrote it: send time (time.monotonic(), seconds) and completion
    tokens of every SSE chunk (role/finish/usage chunks carry 0). `t_arrival` is when its HTTP request reached the
    twin (its modelled arrival), `t_submit` when the route handed it to the engine (the twin's parse between)."""

    rid: str
    endpoint: str
    stream: bool
    domain: str
    prompt_tokens: int
    t_arrival: float
    t_submit: float = 0.0
    t_chunks: list[float] = field(default_factory=list)
    chunk_tokens: list[int] = field(default_factory=list)
    completion_tokens: int = 0
    finish_reason: Any = None
    model_arrival_s: float = 0.0
    model_first_token_s: float | None = None
    model_finish_s: float | None = None
    spec_verify_ct: int = 0
    spec_correct_drafts_histogram: list[int] = field(default_factory=list)

    def chunk(self, tokens: int) -> None:
        self.t_chunks.append(time.monotonic())
        self.chunk_tokens.append(tokens)

    def to_json(self) -> dict[str, Any]:
        return {
            "rid": self.rid, "endpoint": self.endpoint, "stream": self.stream, "domain": self.domain,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason, "t_arrival": self.t_arrival, "t_submit": self.t_submit,
            "t_chunks": self.t_chunks,
            "chunk_tokens": self.chunk_tokens,
            "model_time": {"arrival_s": self.model_arrival_s, "first_token_s": self.model_first_token_s,
                           "finish_s": self.model_finish_s},
            "spec_verify_ct": self.spec_verify_ct,
            "spec_correct_drafts_histogram": self.spec_correct_drafts_histogram,
        }


class TraceStore:
    """Finished requests' traces (the newest `capacity` kept), for `GET /sim/trace`."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self.finished: OrderedDict[str, TraceRecord] = OrderedDict()

    def start(self, req: SimRequest, endpoint: str, received: float | None = None) -> TraceRecord:
        """A request's trace; `received`: when its HTTP request reached the twin (time.monotonic(); default now)."""
        now = time.monotonic()
        return TraceRecord(rid=req.rid, endpoint=endpoint, stream=req.stream, domain=req.domain,
                           prompt_tokens=req.prompt_tokens, t_arrival=now if received is None else received,
                           t_submit=now)

    def finish(self, rec: TraceRecord, req: SimRequest) -> None:
        rec.completion_tokens = req.n_out
        rec.finish_reason = req.finish_reason
        rec.model_arrival_s = req.arrival_s
        rec.model_first_token_s = req.first_token_s
        rec.model_finish_s = req.finish_s
        rec.spec_verify_ct = req.spec_verify_ct
        rec.spec_correct_drafts_histogram = list(req.spec_hist)
        self.finished[rec.rid] = rec
        while len(self.finished) > self.capacity:
            self.finished.popitem(last=False)
