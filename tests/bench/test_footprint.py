"""Ingest rate and footprint of the console.

1. Ingest: a chat stream recorded from the twin (EAGLE-3: many small multi-token chunks), replayed through httpx's
   MockTransport one SSE event per socket read, through the console's StreamClient (SSEParser + per-read
   perf_counter_ns + JSON decoding + record keeping) on one core, beside the official openai SDK consuming the same
   bytes the way an operator's loop would (timestamp per chunk, usage, delta content). Targets: ≥ 10,000 chunks/s
   and ≥ 3× the SDK.
2. CPU of this (the console's) process, from time.process_time() over fixed windows: monitoring an idle twin with
   the TUI live (target ≤ 2% of a core) and while one ~500 tok/s request streams (target ≤ 10%); the same without
   the TUI beside it.
3. Readiness: the twin launched by Runtime; the time from the ready line's arrival in the engine log file (a thread
   polls the file every 0.5 ms; the line's own timestamp has 1 s resolution) to Runtime's 'ready' event (target
   ≤ 250 ms).

    pytest -m bench -s tests/bench/test_footprint.py
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from dataclasses import replace

import httpx
import pytest
from openai import AsyncOpenAI

from console.core.engine.sse import SSEParser
from console.core.engine.stream import StreamClient
from console.core.launch.logparse import READY_MARK
from console.core.launch.profile import resolve_profile
from console.core.run.cell import CellProtocol
from console.core.launch.ports import free_port
from console.core.run import events as E
from console.core.run.runtime import Runtime
from console.core.workload.prompts import load_set
from tests.bench.harness import cpu_s, live_tui, pct, threads, twin, wait_for

pytestmark = pytest.mark.bench
WINDOW_S = float(os.environ.get("FOOTPRINT_WINDOW_S", "10"))


class Reads(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self):
        for p in self.pieces:
            yield p


def record_chat_stream(url: str, max_tokens: int) -> bytes:
    """Raw bytes of one streamed chat completion, requested the way the console requests it."""
    model = httpx.get(url + "/v1/models").json()["data"][0]["id"]
    body = {"model": model, "messages": load_set("tool-short").prompts[0].messages_list(), "max_tokens": max_tokens,
            "temperature": 0.6, "stream": True, "ignore_eos": True, "return_spec_tokens_details": True,
            "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
    with httpx.stream("POST", url + "/v1/chat/completions", json=body, timeout=120) as r:
        assert r.status_code == 200
        return b"".join(r.iter_raw())


async def test_ingest_rate_console_vs_openai_sdk(tmp_path):
    with twin(tmp_path, "--sim-time-scale", "50") as t:  # recording only: the bytes do not depend on the scale
        data = record_chat_stream(t.url, 4096)
    pieces = [p + b"\n\n" for p in data.split(b"\n\n") if p]
    ref = SSEParser().feed(data, 0)
    n_events = len(ref)
    n_content = sum(1 for e in ref if '"content":"' in e.data and '"content":""' not in e.data)
    tokens = 4096
    reps = max(1, 60_000 // n_events)
    transport = httpx.MockTransport(lambda req: httpx.Response(200, stream=Reads(pieces),
                                                               headers={"content-type": "text/event-stream"}))
    msgs = [{"role": "user", "content": "hi"}]

    # the parser alone
    c0 = cpu_s()
    for _ in range(reps):
        p = SSEParser()
        for i, piece in enumerate(pieces):
            p.feed(piece, i)
    parser_cpu = cpu_s() - c0

    # the console's client: parser + timestamps + decode + record
    async with StreamClient("http://sglang.test", transport=transport) as sc:
        await sc.chat(msgs, max_tokens=tokens)
        c0, w0 = cpu_s(), time.perf_counter()
        for _ in range(reps):
            rec = await sc.chat(msgs, max_tokens=tokens)
        console_cpu, console_wall = cpu_s() - c0, time.perf_counter() - w0
    assert rec.ok and rec.completion_tokens == tokens and rec.n_content_chunks == n_content

    # the openai SDK over the same bytes, as an operator's loop consumes them
    client = AsyncOpenAI(base_url="http://sglang.test/v1", api_key="none", max_retries=0,
                         http_client=httpx.AsyncClient(transport=transport))

    async def sdk_once() -> tuple[int, int]:
        stream = await client.chat.completions.create(
            model="m", messages=msgs, max_tokens=tokens, stream=True,
            stream_options={"include_usage": True, "continuous_usage_stats": True})
        n = cum = 0
        stamps = []
        async for chunk in stream:
            stamps.append(time.perf_counter_ns())
            if chunk.usage is not None:
                cum = chunk.usage.completion_tokens
            if chunk.choices and chunk.choices[0].delta.content:
                n += 1
        return n, cum

    await sdk_once()
    sdk_reps = max(1, reps // 4)
    c0, w0 = cpu_s(), time.perf_counter()
    for _ in range(sdk_reps):
        n_sdk, cum = await sdk_once()
    sdk_cpu, sdk_wall = cpu_s() - c0, time.perf_counter() - w0
    await client.close()
    assert n_sdk == n_content and cum == tokens

    rate = lambda n, reps_, s: n * reps_ / s  # noqa: E731
    con_ev, con_ch = rate(n_events, reps, console_cpu), rate(n_content, reps, console_cpu)
    sdk_ev, sdk_ch = rate(n_events, sdk_reps, sdk_cpu), rate(n_content, sdk_reps, sdk_cpu)
    print(f"\ningest, one core (CPU time of this process): a recorded twin chat stream, {len(data) / 1024:.0f} KiB, "
          f"{n_events} SSE events of which {n_content} content chunks ({tokens / n_content:.2f} tokens/chunk), "
          f"one event per read")
    print(f"{'path':<42} {'events/s':>10} {'content chunks/s':>17} {'µs/event':>9} {'reps':>5}")
    print(f"{'SSEParser.feed alone':<42} {rate(n_events, reps, parser_cpu):>10,.0f} "
          f"{rate(n_content, reps, parser_cpu):>17,.0f} {1e6 * parser_cpu / (n_events * reps):>9.2f} {reps:>5}")
    print(f"{'console StreamClient.chat (MockTransport)':<42} {con_ev:>10,.0f} {con_ch:>17,.0f} "
          f"{1e6 / con_ev:>9.2f} {reps:>5}")
    print(f"{'openai SDK stream loop (same transport)':<42} {sdk_ev:>10,.0f} {sdk_ch:>17,.0f} "
          f"{1e6 / sdk_ev:>9.2f} {sdk_reps:>5}")
    print(f"console / SDK = {con_ch / sdk_ch:.2f}x  (targets: ≥ 10,000 chunks/s "
          f"[{'met' if con_ch >= 10_000 else 'MISSED'}], ≥ 3x SDK [{'met' if con_ch >= 3 * sdk_ch else 'MISSED'}]); "
          f"wall/CPU console {console_wall / console_cpu:.2f}, SDK {sdk_wall / sdk_cpu:.2f}")
    assert con_ch >= 10_000


async def window(seconds: float) -> tuple[float, float]:
    c0, w0 = cpu_s(), time.perf_counter()
    await asyncio.sleep(seconds)
    return cpu_s() - c0, time.perf_counter() - w0


def inflight_started(rt: Runtime) -> bool:
    return any(f.t_first_ns is not None for f in list(rt.stream.inflight.values()))


STREAM_PROTO = CellProtocol(prompt_set="tool", n=1, max_tokens=8192, warmup=0, ignore_eos=True, flush_cache=False,
                            gate_short=False)


async def test_cpu_idle_and_streaming_with_the_tui_live(tmp_path):
    rows = []
    with twin(tmp_path) as t:
        # warm the prefix cache with the request's prompt, so that the streaming window starts soon
        async with StreamClient(t.url) as sc:
            await sc.chat(load_set("tool").prompts[0].messages_list(), max_tokens=8)
        # --- TUI live
        async with live_tui(t.url, tmp_path / "sessions") as (app, rt, counters):
            await asyncio.sleep(2.0)
            f0 = counters.frames
            cpu, wall = await window(WINDOW_S)
            rows.append(("TUI live", "idle (attached; telemetry, 4 Hz repaint)", cpu, wall,
                         f"{(counters.frames - f0) / wall:.1f} frames/s, {threads()} threads"))
            fut = app._io.submit(rt.run_cell(STREAM_PROTO, label="footprint-stream"))
            await wait_for(lambda: inflight_started(rt), 60)
            await asyncio.sleep(0.5)
            f0 = counters.frames
            cpu, wall = await window(min(WINDOW_S, 8.0))
            assert not fut.done(), "the request ended inside the window"
            res = await asyncio.wrap_future(fut)
            r = res.rows[0]
            tok_s = (r.completion_tokens - r.first_chunk_tokens) / (r.t_last_s - r.t_first_s)
            rows.append(("TUI live", f"one request streaming ({tok_s:.0f} tok/s, "
                         f"{r.n_content_chunks / (r.t_last_s - r.t_first_s):.0f} chunks/s)", cpu, wall,
                         f"{(counters.frames - f0) / wall:.1f} frames/s"))
        # --- headless, for comparison
        rt = Runtime(attach_url=t.url, sessions=tmp_path / "sessions")
        await rt.start()
        try:
            await asyncio.sleep(2.0)
            cpu, wall = await window(WINDOW_S)
            rows.append(("headless", "idle (attached; telemetry)", cpu, wall, ""))
            task = asyncio.create_task(rt.run_cell(STREAM_PROTO, label="footprint-stream-headless"))
            await wait_for(lambda: inflight_started(rt), 60)
            await asyncio.sleep(0.5)
            cpu, wall = await window(min(WINDOW_S, 8.0))
            assert not task.done()
            await task
            rows.append(("headless", "one request streaming", cpu, wall, ""))
        finally:
            await rt.stop()
    print(f"\nconsole process CPU (time.process_time over the window; % of one core), twin at time scale 1 in its own "
          f"process, {os.cpu_count()} CPUs")
    print(f"{'mode':<9} {'condition':<52} {'window':>7} {'CPU s':>7} {'% core':>7}  notes")
    for mode, cond, cpu, wall, note in rows:
        print(f"{mode:<9} {cond:<52} {wall:>6.1f}s {cpu:>7.3f} {100 * cpu / wall:>6.2f}%  {note}")
    idle = next(r for r in rows if r[0] == "TUI live" and r[1].startswith("idle"))
    busy = next(r for r in rows if r[0] == "TUI live" and r[1].startswith("one"))
    print(f"targets: idle with TUI ≤ 2% [{'met' if idle[2] / idle[3] <= 0.02 else 'MISSED'}: "
          f"{100 * idle[2] / idle[3]:.2f}%], one 500 tok/s stream with TUI ≤ 10% "
          f"[{'met' if busy[2] / busy[3] <= 0.10 else 'MISSED'}: {100 * busy[2] / busy[3]:.2f}%]")


async def test_readiness_detected_soon_after_the_ready_line(tmp_path):
    trials = int(os.environ.get("READINESS_TRIALS", "5"))
    out = []
    for i in range(trials):
        seen: dict[str, float] = {}
        log_path: list[str] = []
        stop = threading.Event()

        def observer(ev) -> None:
            if isinstance(ev, E.Launching):
                log_path.append(ev.log_path)
            elif isinstance(ev, E.Ready):
                seen["ready_event"] = time.perf_counter()

        def watch() -> None:
            while not log_path and not stop.is_set():
                time.sleep(0.0005)
            pos, buf = 0, b""
            while not stop.is_set():
                try:
                    with open(log_path[0], "rb") as f:
                        f.seek(pos)
                        chunk = f.read()
                except FileNotFoundError:
                    chunk = b""
                if chunk:
                    pos += len(chunk)
                    buf = (buf + chunk)[-4096:]
                    if READY_MARK.encode() in buf:
                        seen["line"] = time.perf_counter()
                        return
                time.sleep(0.0005)

        th = threading.Thread(target=watch, daemon=True)
        th.start()
        prof = replace(resolve_profile("k26-eagle3-d6"), port=free_port())
        rt = Runtime(profile=prof, sim=True, sim_args=["--sim-startup-scale", "300"], sessions=tmp_path / f"s{i}",
                     observer=observer)
        try:
            await rt.start()
        finally:
            stop.set()
            th.join(2)
            await rt.stop()
        assert "line" in seen and "ready_event" in seen, seen
        out.append((seen["ready_event"] - seen["line"]) * 1e3)
    print(f"\nreadiness: Runtime 'ready' event − arrival of '{READY_MARK}' in the engine log "
          f"({trials} launches of the twin, startup scale 300): "
          f"median {pct(out, 50):.0f} ms, max {max(out):.0f} ms; each: {', '.join(f'{x:.0f}' for x in out)} ms "
          f"(target ≤ 250 ms: {'met' if max(out) <= 250 else 'MISSED'})")
    assert max(out) <= 250
