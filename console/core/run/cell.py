"""Cells (docs/measurement.md#cells-anchors-pairs): one server configuration × one prompt set × one protocol.

A cell sends warm-up requests (not recorded), flushes the server's cache (retrying while busy; this also
resets SGLang's lifetime speculative counters), then n requests at a fixed concurrency. Every finished
request is gated — input tokens (as the server reports them) outside the set's window, or an output that
stopped short of max_tokens, set a flag and exclude the row from the statistic — and appended to
`rows.jsonl` before the next figure is shown. A resumed cell skips the request ids already on disk.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol as TypingProtocol

from console.core.engine.admin import AdminClient, AdminError
from console.core.engine.stream import StreamClient
from console.core.fmt import utc_iso
from console.core.measure import stats
from console.core.measure.records import RequestRecord
from console.core.sessions.store import CellWriter
from console.core.workload.prompts import Prompt, PromptSet


@dataclass(frozen=True)
class CellProtocol:
    prompt_set: str
    n: int = 16
    max_tokens: int = 2048
    temperature: float = 0.6
    concurrency: int = 1
    warmup: int = 1
    endpoint: str = "chat"
    """'chat' (/v1/chat/completions) or 'generate' (native /generate)."""
    ignore_eos: bool = True
    """Ask the server to run every output to max_tokens (SGLang's `ignore_eos`, as its bench_serving does by
    default): a real model stops at end-of-sequence after a varying number of tokens, which would make cells of
    different arms, launches and nodes measure different output lengths."""
    flush_cache: bool = True
    gate_short: bool = True
    """Flag (and exclude) rows whose output stopped before max_tokens."""

    def validate(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be ≥ 1, got {self.n}")
        if self.max_tokens < 2:
            raise ValueError(f"max_tokens must be ≥ 2, got {self.max_tokens}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be ≥ 1, got {self.concurrency}")
        if not (0.0 <= self.temperature <= 2.0):
            raise ValueError(f"temperature must be within 0..2, got {self.temperature}")
        if self.endpoint not in ("chat", "generate"):
            raise ValueError(f"endpoint must be 'chat' or 'generate', got {self.endpoint!r}")
        if self.warmup < 0:
            raise ValueError(f"warmup must be ≥ 0, got {self.warmup}")


ANCHOR_PROTOCOL = CellProtocol(prompt_set="health", n=8, max_tokens=128, temperature=0.6, concurrency=1, warmup=1,
                               ignore_eos=True, gate_short=True)
"""The anchor cell: 8 pinned short prompts, fixed 128-token outputs (ignore_eos), rows that stop short flagged and
excluded, so that anchors compare across arms, launches and nodes."""


class CellObserver(TypingProtocol):
    def cell_event(self, kind: str, **data: Any) -> None: ...


class _NullObserver:
    def cell_event(self, kind: str, **data: Any) -> None:
        pass


TRANSPORT_ERRORS = ("connection error", "stream ended before [DONE]", "timeout")
"""Error prefixes meaning the request did not finish on the server (as opposed to an answer from a live server)."""


def is_transport_error(rec: RequestRecord) -> bool:
    return bool(rec.error and rec.error.startswith(TRANSPORT_ERRORS))


@dataclass
class CellResult:
    rows: list[RequestRecord]
    summary: stats.CellSummary
    started: float
    ended: float
    flush: dict[str, Any] | None = None
    cancelled: bool = False
    warmup_errors: list[str] = field(default_factory=list)
    interrupted: bool = False
    """The engine died during the cell: requests it cut were not recorded (a resume sends them again)."""

    @property
    def complete(self) -> bool:
        return not self.cancelled and not self.interrupted


def request_plan(pset: PromptSet, n: int) -> list[tuple[str, Prompt]]:
    """(request_id, prompt) for the n measured requests: the set's prompts in order, cycling."""
    plan = []
    for i in range(n):
        p = pset.prompts[i % len(pset.prompts)]
        plan.append((f"{p.id}#{i}", p))
    return plan


def gate(rec: RequestRecord, proto: CellProtocol, window: tuple[int, int] | None) -> None:
    """Set exclusion flags on a finished row (in place)."""
    if not rec.ok:
        return
    if window is not None and rec.prompt_tokens is not None and not (window[0] <= rec.prompt_tokens <= window[1]):
        rec.flags.append("window")
    if proto.gate_short and (rec.completion_tokens or 0) < proto.max_tokens:
        rec.flags.append("short")


async def _send(stream: StreamClient, prompt: Prompt, proto: CellProtocol, request_id: str, model: str,
                max_tokens: int) -> RequestRecord:
    if proto.endpoint == "generate":
        return await stream.generate(prompt.as_text(), max_new_tokens=max_tokens, temperature=proto.temperature,
                                     request_id=request_id, prompt_id=prompt.id, ignore_eos=proto.ignore_eos,
                                     keep_text=True)
    return await stream.chat(prompt.messages_list(), max_tokens=max_tokens, temperature=proto.temperature,
                             model=model, request_id=request_id, prompt_id=prompt.id, ignore_eos=proto.ignore_eos,
                             keep_text=True)


@dataclass
class Leg:
    """One cell's share of a run: its prompt set, protocol, writer and the rows it already has (a resume)."""

    pset: PromptSet
    proto: CellProtocol
    writer: CellWriter | None = None
    done_rows: list[RequestRecord] = field(default_factory=list)


async def run_cell(
    stream: StreamClient,
    admin: AdminClient,
    pset: PromptSet,
    proto: CellProtocol,
    *,
    writer: CellWriter | None = None,
    model: str = "default",
    num_draft_tokens: int | None = None,
    observer: CellObserver | None = None,
    done_rows: list[RequestRecord] | None = None,
    should_stop: Callable[[], bool] | None = None,
    engine_alive: Callable[[], bool] | None = None,
) -> CellResult:
    """Run one cell. `done_rows` (from a resumed cell) are kept and their ids not re-sent. With `engine_alive`,
    a request that fails in transport while the engine is gone is not recorded (it did not finish: a resume sends
    it again) and no further request is sent."""
    (res,) = await run_legs(stream, admin, [Leg(pset, proto, writer, list(done_rows or []))], model=model,
                            num_draft_tokens=num_draft_tokens, observer=observer, should_stop=should_stop,
                            engine_alive=engine_alive)
    return res


async def run_legs(
    stream: StreamClient,
    admin: AdminClient,
    legs: list[Leg],
    *,
    model: str = "default",
    num_draft_tokens: int | None = None,
    observer: CellObserver | None = None,
    should_stop: Callable[[], bool] | None = None,
    engine_alive: Callable[[], bool] | None = None,
) -> list[CellResult]:
    """The one cell runner. One leg is a cell; several legs on one server interleave request by request (an
    interleaved pair: leg 1's first request, leg 2's first, leg 1's second, …, one at a time). Warm-up (the first
    leg's protocol), one /flush_cache, then every planned request; each finished row is gated and on disk before it
    is reported; a request cut by the engine's death is kept apart (interrupted.jsonl) and ends the run; each
    leg's summary and manifest (complete, interrupted) are written whatever happens."""
    for leg in legs:
        leg.proto.validate()
        if not leg.pset.prompts:
            raise ValueError(f"prompt set {leg.pset.name} is empty")
    obs = observer or _NullObserver()
    started = time.time()
    first = legs[0].proto
    rows: list[list[RequestRecord]] = [list(leg.done_rows) for leg in legs]
    plans = []
    for k, leg in enumerate(legs):
        done_ids = {r.request_id for r in rows[k]}
        plans.append([(k, rid, p) for rid, p in request_plan(leg.pset, leg.proto.n) if rid not in done_ids])
    if len(legs) == 1:
        plan = plans[0]
    else:  # round robin
        plan = [x for i in range(max(len(pl) for pl in plans)) for pl in plans if i < len(pl) for x in [pl[i]]]
    total = sum(leg.proto.n for leg in legs)
    obs.cell_event("started", total=total, done=sum(map(len, rows)), protocol=asdict(first),
                   prompt_set=legs[0].pset.name)

    warm_errors: list[str] = []
    warm = max(leg.proto.warmup for leg in legs)
    if warm and plan:
        obs.cell_event("status", text=f"warm-up: {warm} request(s), not recorded")
        for i in range(warm):
            p = legs[0].pset.prompts[i % len(legs[0].pset.prompts)]
            rec = await _send(stream, p, first, f"warmup#{i}", model, min(first.max_tokens, 64))
            if rec.error:
                warm_errors.append(rec.error)
        if warm_errors and len(warm_errors) == warm:
            obs.cell_event("status", text=f"warm-up failed: {warm_errors[-1]}")

    flush_info: dict[str, Any] | None = None
    if any(leg.proto.flush_cache for leg in legs) and plan:
        obs.cell_event("status", text="flushing the server cache (resets its lifetime spec counters)")
        try:
            fr = await admin.flush_cache()
            flush_info = {"ok": fr.ok, "status": fr.status, "attempts": fr.attempts}
            if not fr.ok:
                obs.cell_event("status", text=f"/flush_cache refused (HTTP {fr.status} after {fr.attempts} tries); "
                                              "measuring anyway, cache state recorded in the manifest")
        except AdminError as e:
            flush_info = {"ok": False, "error": str(e)}
            obs.cell_event("status", text=str(e))
    for leg in legs:
        if leg.writer is not None and flush_info is not None:
            leg.writer.update_manifest(flush=flush_info)

    sem = asyncio.Semaphore(first.concurrency if len(legs) == 1 else 1)
    lock = asyncio.Lock()
    cancelled = False
    interrupted = False

    def engine_gone() -> bool:
        return engine_alive is not None and not engine_alive()

    async def died_under(rec: RequestRecord, grace_s: float = 2.0) -> bool:
        """A transport error while the engine process is dying: the socket closes a moment before the process
        can be reaped, so wait (briefly) for the death to be observable before calling the request finished."""
        if engine_alive is None or not is_transport_error(rec):
            return False
        deadline = time.monotonic() + grace_s
        while not engine_gone():
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def one(k: int, rid: str, p: Prompt) -> None:
        nonlocal cancelled, interrupted
        leg = legs[k]
        async with sem:
            if engine_gone() or interrupted:
                interrupted = True
                return
            if should_stop is not None and should_stop():
                cancelled = True
                return
            obs.cell_event("request_started", request_id=rid, prompt_id=p.id)
            rec = await _send(stream, p, leg.proto, rid, model, leg.proto.max_tokens)
            if await died_under(rec):
                interrupted = True  # cut by the engine's death: not a finished request
                if leg.writer is not None and (rec.completion_tokens or rec.n_content_chunks):
                    await asyncio.to_thread(leg.writer.append_interrupted, rec)  # what it streamed, as evidence
                obs.cell_event("request_interrupted", record=rec)
                return
            gate(rec, leg.proto, leg.pset.window)
            async with lock:
                if leg.writer is not None:
                    # on disk (fsync'ed) before it is shown; in a thread, so the other streams' socket reads
                    # (and their timestamps) do not wait for the disk
                    await asyncio.to_thread(leg.writer.append, rec)
                    rec.chunks, rec.text = [], None  # on disk in full; keep memory flat over long sessions
                rows[k].append(rec)
            obs.cell_event("request_finished", record=rec, done=sum(map(len, rows)), total=total)

    conc = first.concurrency if len(legs) == 1 else 1
    obs.cell_event("status", text=f"measuring {len(plan)} request(s) at concurrency {conc}"
                                  + (f", {len(legs)} legs interleaved" if len(legs) > 1 else ""))
    tasks = [asyncio.create_task(one(k, rid, p)) for k, rid, p in plan]
    results: list[CellResult] = []
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        cancelled = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        ended = time.time()
        for k, leg in enumerate(legs):
            summary = stats.summarize(rows[k], num_draft_tokens=num_draft_tokens)
            short = [r for r in rows[k] if "short" in r.flags and not r.warmup]
            if short:
                why = (f"although ignore_eos was sent: the server did not honour it for these (finish_reason "
                       f"{', '.join(sorted({str(r.finish_reason) for r in short}))})" if leg.proto.ignore_eos else
                       "at end-of-sequence (ignore_eos off)")
                obs.cell_event("status", text=f"{len(short)} of {len(rows[k])} rows stopped before "
                                              f"{leg.proto.max_tokens} tokens {why}; flagged short and excluded")
            planned = {rid for rid, _ in request_plan(leg.pset, leg.proto.n)}
            complete = not cancelled and not interrupted and planned <= {r.request_id for r in rows[k]}
            if leg.writer is not None:
                leg.writer.write_summary(summary.to_json())
                leg.writer.update_manifest(ended_utc=utc_iso(ended), complete=complete, interrupted=interrupted)
            results.append(CellResult(rows=rows[k], summary=summary, started=started, ended=ended, flush=flush_info,
                                      cancelled=cancelled, warmup_errors=warm_errors, interrupted=interrupted))
    for res in results:
        obs.cell_event("finished", summary=res.summary, cancelled=cancelled, interrupted=interrupted)
    return results
