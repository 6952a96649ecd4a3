"""Latency and pacing targets that used to be timed asserts in the default suite, where a loaded 2-core CI box
can miss them without any bug; the default suite keeps the behaviour (and generous ceilings), these keep the figures.

1. Engine death (kill -9 of the engine, or of rank 1 of a two-node launch) reported by the Runtime within 1 s.
2. The twin keeps pace with its model clock: 32 concurrent streams take model time / time scale of wall time
   (±50%, +0.5 s).

    pytest -m bench -s tests/bench/test_timing_targets.py
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import replace

import httpx
import pytest

from console.core.launch.profile import load_profile, resolve_profile
from console.core.launch.ports import free_port
from console.core.run.runtime import Runtime
from tests.bench.harness import pct
from tests.e2e.test_multinode_e2e import two_node_profile
from tests.sim.twin_process import EAGLE3_D6, MODEL, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.bench
TRIALS = int(os.environ.get("DEATH_TRIALS", "3"))
DEATH_TARGET_S = 1.0


async def _death_latency(rt: Runtime, victim_pid) -> float:
    await rt.start()
    try:
        assert rt.state.phase == "ready"
        os.killpg(victim_pid(rt), signal.SIGKILL)
        t0 = time.monotonic()
        while rt.state.phase != "dead" and time.monotonic() - t0 < 30:
            await asyncio.sleep(0.01)
        assert rt.state.phase == "dead"
        return time.monotonic() - t0
    finally:
        await rt.stop()


async def test_engine_death_reported_within_a_second(tmp_path):
    rows = []
    for i in range(TRIALS):
        (tmp_path / f"n{i}").mkdir()
        prof = replace(resolve_profile("k26-eagle3-d6"), port=free_port())
        rank0 = await _death_latency(Runtime(profile=prof, sim=True, sim_args=["--sim-time-scale", "4"],
                                             sessions=tmp_path / f"a{i}"), lambda rt: rt.engine.pid)
        rank1 = await _death_latency(Runtime(profile=load_profile(two_node_profile(tmp_path / f"n{i}")),
                                             sim_args=["--sim-time-scale", "8"], sessions=tmp_path / f"b{i}"),
                                     lambda rt: rt.node_engines[0].pid)
        rows.append((rank0, rank1))
    for name, xs in (("single engine", [r[0] for r in rows]), ("rank 1 of 2 nodes", [r[1] for r in rows])):
        print(f"\ndeath reported after kill -9, {name}: median {pct(xs, 50) * 1e3:.0f} ms, max {max(xs) * 1e3:.0f} ms "
              f"(target ≤ {DEATH_TARGET_S * 1e3:.0f} ms: {'met' if max(xs) <= DEATH_TARGET_S else 'MISSED'})")
    assert max(max(r) for r in rows) <= DEATH_TARGET_S


async def test_twin_keeps_pace_with_its_model_clock_under_32_streams(tmp_path):
    scale = 5.0
    t = start_twin([*MODEL, *EAGLE3_D6, "--mem-fraction-static", "0.96", "--enable-metrics", "--sim-seed", "3",
                    "--sim-time-scale", str(scale), "--sim-startup-scale", "1000"], tmp_path, timeout=60)
    prompt = "Call the tool `search(query)` and return the JSON tool calls. " + "context " * 900
    try:
        async with httpx.AsyncClient(base_url=t.url, timeout=120, limits=httpx.Limits(max_connections=64)) as client:
            async def one(i: int) -> str:
                body = {"model": "kimi", "messages": [{"role": "user", "content": prompt + str(i)}], "max_tokens": 96,
                        "stream": True, "ignore_eos": True, "rid": f"pace-{i}", "stream_options": {"include_usage": True}}
                r = await client.post("/v1/chat/completions", json=body)
                assert sse_json(r.text)[-1]["usage"]["completion_tokens"] == 96
                return body["rid"]

            t0 = time.perf_counter()
            rids = await asyncio.gather(*(one(i) for i in range(32)))
            wall = time.perf_counter() - t0
            traces = [(await client.get("/sim/trace", params={"rid": rid})).json() for rid in rids]
    finally:
        stop_twin(t)
    span = max(x["model_time"]["finish_s"] for x in traces) - min(x["model_time"]["arrival_s"] for x in traces)
    want = span / scale
    ok = abs(wall - want) <= max(0.5 * want, 0.5)
    print(f"\n32 concurrent streams: wall {wall:.2f} s vs model {span:.2f} s / scale {scale:g} = {want:.2f} s "
          f"(target ±50% +0.5 s: {'met' if ok else 'MISSED'})")
    assert wall == pytest.approx(want, rel=0.5, abs=0.5)
