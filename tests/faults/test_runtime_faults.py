"""Engine faults seen through the console's Runtime and run_cell, headless: the console keeps running, marks what
is incomplete (RequestRecord.error one line, manifest complete=false for a cell that could not finish), keeps every
finished row on disk, and says the cause in one line (Runtime.state.error and the 'died' event)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from console.core.run import events as E

from console.core.engine.stream import StreamClient
from console.core.launch.process import EngineDied
from console.core.run.cell import CellProtocol
from tests.faults.conftest import make_runtime, manifest, one_line, rows_on_disk

pytestmark = pytest.mark.e2e

#: health set, short outputs; the cell's warm-up request (64 tokens) precedes the measured ones
PROTO = CellProtocol(prompt_set="health", n=6, max_tokens=96, concurrency=1, warmup=1)


async def wait_for(pred, timeout_s: float) -> float:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout_s:
            raise AssertionError(f"condition not met within {timeout_s} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - t0


async def crash_mid_cell(tmp_path):
    """crash-at-step at the ~80th decode step after ready: the warm-up (≈21 steps) and the first measured
    request (≈31 steps) finish, the second dies mid-stream."""
    events = []
    rt = make_runtime(tmp_path, "crash-at-step:step=80", events=events)
    await rt.start()
    res = await rt.run_cell(PROTO)
    return rt, res, events


async def test_engine_crash_mid_cell_keeps_finished_rows_and_reports_one_line_cause(tmp_path):
    rt, res, events = await crash_mid_cell(tmp_path)
    try:
        cell = rt.state.cells_done[-1].cell_dir
        ok = [r for r in res.rows if r.ok]
        assert ok and all(r.ok for r in res.rows), [r.error for r in res.rows]
        # every finished row is on disk, byte-identical in content
        disk = {d["request_id"]: d for d in rows_on_disk(cell)}
        for r in ok:
            assert disk[r.request_id]["error"] is None
            assert disk[r.request_id]["completion_tokens"] == r.completion_tokens == PROTO.max_tokens
        # the request that was streaming when the engine died is marked (interrupted.jsonl), not silently cut,
        # and is not a row of the cell: a resume sends it again
        cut = [json.loads(x) for x in (Path(cell) / "interrupted.jsonl").read_text().splitlines()]
        assert len(cut) == 1 and 0 < cut[0]["completion_tokens"] < PROTO.max_tokens
        one_line(cut[0]["error"])
        assert cut[0]["request_id"] not in disk
        assert res.interrupted and manifest(cell)["complete"] is False
        # the cause, in one line (reported within a second: tests/bench/test_timing_targets.py)
        await wait_for(lambda: rt.state.phase == "dead", 30)
        cause = one_line(rt.state.error)
        assert "illegal memory access" in cause and "signal 9" in cause
        died = [e for e in events if isinstance(e, E.Died)]
        assert len(died) == 1 and one_line(died[0].text) == cause
        # the console is still alive and answers: the cell's figures are computable from what finished
        assert res.summary.n_ok == len(ok)
    finally:
        await rt.stop()


async def test_engine_crash_mid_cell_leaves_the_cell_incomplete_and_sends_nothing_after_death(tmp_path):
    rt, res, events = await crash_mid_cell(tmp_path)
    try:
        cell = rt.state.cells_done[-1].cell_dir
        refused = [r for r in res.rows if r.error and "All connection attempts failed" in r.error]
        assert manifest(cell)["complete"] is False
        assert not refused, f"{len(refused)} requests sent to a dead engine"
    finally:
        await rt.stop()


@pytest.mark.parametrize("spec, words", [
    ("crash-during-load:phase=weights", "OutOfMemoryError"),
    ("crash-during-load:phase=kv,kind=import", "ImportError"),
    ("crash-during-load:phase=graphs", "OutOfMemoryError"),
])
async def test_engine_crash_during_load_is_one_line_naming_the_error(tmp_path, spec, words):
    events = []
    rt = make_runtime(tmp_path, spec, events=events)
    t0 = time.monotonic()
    with pytest.raises(EngineDied):
        await rt.start()
    try:
        assert time.monotonic() - t0 < 60  # sanity: not the 3600 s ready timeout (the cold start is ~1 s here)
        assert rt.state.phase == "dead"
        cause = one_line(rt.state.error)
        assert words in cause and "engine died" in cause
        died = [e for e in events if isinstance(e, E.Died)]
        assert died and one_line(died[0].text) == cause
        assert rt.state.startup is not None and not rt.state.startup.ready
        with pytest.raises(RuntimeError):  # refuses to measure, with a reason, instead of hanging
            await rt.run_cell(PROTO)
    finally:
        await rt.stop()


async def run_with(tmp_path, *faults, proto=PROTO, stall_timeout_s: float | None = None):
    events = []
    rt = make_runtime(tmp_path, *faults, events=events)
    await rt.start()
    if stall_timeout_s is not None:
        # Runtime has no knob for the stream client's stall timeout (fixed 120 s): swap in a client that has one
        await rt.stream.aclose()
        rt.stream = StreamClient(rt.state.base_url, stall_timeout_s=stall_timeout_s)
        rt.monitor.attach(rt.stream.inflight)
    try:
        res = await rt.run_cell(proto)
        return rt, res, events
    except BaseException:
        await rt.stop()
        raise


async def test_stalled_streams_end_at_the_stall_timeout_and_the_cell_goes_on(tmp_path):
    # every 2nd streaming request since ready (the warm-up is the 1st) stops sending after 16 tokens, forever
    rt, res, _ = await run_with(tmp_path, "stall:after_tokens=16,seconds=inf,every=2",
                                proto=CellProtocol(prompt_set="health", n=4, max_tokens=64, warmup=1),
                                stall_timeout_s=0.6)
    try:
        stalled = [r for r in res.rows if r.error]
        assert [r.request_id for r in stalled] == ["health-tool-1#0", "health-math-1#2"]
        for r in stalled:
            assert "timeout" in one_line(r.error) and "stall" in r.error
            # ended by the 0.6 s stall timeout (never before it), not by the client's default 120 s one
            assert 0.6 <= r.t_end_s - r.t_last_s < 60, (r.t_last_s, r.t_end_s)
            assert 16 <= (r.completion_tokens or 0) < 64  # what arrived before the stall is kept on the record
        assert res.summary.n_ok == 2 and rt.state.phase == "ready"
        assert len(rows_on_disk(rt.state.cells_done[-1].cell_dir)) == 4
    finally:
        await rt.stop()


async def test_malformed_chunk_marks_the_request_and_the_stream_still_completes(tmp_path):
    rt, res, _ = await run_with(tmp_path, "malformed-chunk:after_tokens=10,every=2")
    try:
        bad = [r for r in res.rows if r.error]
        assert [r.request_id for r in bad] == ["health-tool-1#0", "health-math-1#2", "health-code-1#4"]
        for r in bad:
            assert one_line(r.error).startswith("malformed chunk (not JSON)")
            assert r.completion_tokens == PROTO.max_tokens and r.finish_reason == "length"  # went on to [DONE]
        assert res.summary.n_ok == 3 and res.summary.n_included == 3
        assert manifest(rt.state.cells_done[-1].cell_dir)["complete"] is True
    finally:
        await rt.stop()


async def test_http_500s_are_rows_with_the_servers_message(tmp_path):
    rt, res, _ = await run_with(tmp_path, "http500:rate=0.5", proto=CellProtocol(prompt_set="health", n=8,
                                                                                 max_tokens=32, warmup=0))
    try:
        bad = [r for r in res.rows if r.error]
        assert 0 < len(bad) < 8, [r.error for r in res.rows]
        for r in bad:
            assert one_line(r.error).startswith("HTTP 500 from /v1/chat/completions: ")
            assert "simulated engine failure" in r.error and r.completion_tokens is None
        assert res.summary.n_ok == 8 - len(bad)
        assert len(rows_on_disk(rt.state.cells_done[-1].cell_dir)) == 8
        assert rt.state.phase == "ready"
    finally:
        await rt.stop()


async def test_truncated_stream_is_marked_and_keeps_what_arrived(tmp_path):
    rt, res, _ = await run_with(tmp_path, "truncate:after_tokens=20,every=2")
    try:
        bad = [r for r in res.rows if r.error]
        assert [r.request_id for r in bad] == ["health-tool-1#0", "health-math-1#2", "health-code-1#4"]
        for r in bad:
            err = one_line(r.error)
            assert "incomplete chunked read" in err or "truncated" in err
            assert 20 <= (r.completion_tokens or 0) < PROTO.max_tokens and r.finish_reason is None
        assert res.summary.n_ok == 3
    finally:
        await rt.stop()


async def test_flush_cache_busy_retries_then_measures_and_records_the_refusal(tmp_path):
    rt, res, events = await run_with(tmp_path, "flush-busy:count=2",
                                     proto=CellProtocol(prompt_set="health", n=2, max_tokens=32))
    try:
        m = manifest(rt.state.cells_done[-1].cell_dir)
        assert m["flush"] == {"ok": True, "status": 200, "attempts": 3}
        assert res.summary.n_ok == 2
    finally:
        await rt.stop()


async def test_flush_cache_always_busy_is_recorded_and_the_cell_is_measured_anyway(tmp_path):
    import inspect

    from console.core.engine.admin import AdminClient
    retries = inspect.signature(AdminClient.flush_cache).parameters["retries"].default
    rt, res, events = await run_with(tmp_path, "flush-busy",
                                     proto=CellProtocol(prompt_set="health", n=2, max_tokens=32))
    try:
        m = manifest(rt.state.cells_done[-1].cell_dir)
        # retried, and gave up after its bounded number of tries (the bound, not the wall clock, is what is checked)
        assert m["flush"]["ok"] is False and m["flush"]["status"] == 400 and m["flush"]["attempts"] == retries + 1
        said = [e.text for e in events if isinstance(e, E.CellStatus) and "/flush_cache refused" in e.text]
        assert len(said) == 1 and one_line(said[0])
        assert res.summary.n_ok == 2 and m["complete"] is True
    finally:
        await rt.stop()
