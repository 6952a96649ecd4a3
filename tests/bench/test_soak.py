"""Soak: 32 concurrent streams for 30 minutes of model time against the twin time-scaled, cells back to back as an
operator would run them (each: warm-up, /flush_cache, n requests at concurrency 32), with RSS, asyncio tasks,
threads and open file descriptors of the console process sampled every few seconds. Flat means: the idle points
between cells stay within small bounds of the first one (no task, fd or thread leak; RSS growth bounded).

    pytest -m bench -s tests/bench/test_soak.py      (SOAK_MODEL_S=1800, SOAK_TIME_SCALE=30, SOAK_N=96)
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from dataclasses import replace

import pytest

from console.core.launch.profile import resolve_profile
from console.core.run.cell import CellProtocol
from console.core.launch.ports import free_port
from console.core.run.runtime import Runtime
from tests.bench.harness import open_fds, rss_mb, threads

pytestmark = pytest.mark.bench
MODEL_S = float(os.environ.get("SOAK_MODEL_S", "1800"))
SCALE = float(os.environ.get("SOAK_TIME_SCALE", "30"))
N = int(os.environ.get("SOAK_N", "96"))
PROTO = CellProtocol(prompt_set="health", n=N, max_tokens=1024, concurrency=32, warmup=1, ignore_eos=True,
                     gate_short=False)


async def test_soak_32_streams_30_model_minutes(tmp_path):
    prof = replace(resolve_profile("k26-eagle3-d6"), port=free_port())
    rt = Runtime(profile=prof, sim=True, sim_args=["--sim-time-scale", f"{SCALE:g}", "--sim-startup-scale", "1000"],
                 sessions=tmp_path / "sessions")
    await rt.start()
    samples: list[dict] = []
    t0 = time.monotonic()
    clock0 = (await rt.admin.sim_info())["model_clock_s"]
    state = {"model_s": 0.0, "rows": 0, "errors": 0, "cells": 0}

    def sample(label: str) -> dict:
        s = {"wall": time.monotonic() - t0, "model": state["model_s"], "label": label, "rss": rss_mb(),
             "tasks": len(asyncio.all_tasks()), "fds": open_fds(), "threads": threads(), "rows": state["rows"],
             "inflight": len(rt.stream.inflight) if rt.stream else 0}
        samples.append(s)
        return s

    async def sampler() -> None:
        while True:
            await asyncio.sleep(10)
            state["model_s"] = (await rt.admin.sim_info())["model_clock_s"] - clock0
            sample("mid-cell")

    gc.collect()
    sample("start (ready, idle)")
    task = asyncio.create_task(sampler())
    try:
        while state["model_s"] < MODEL_S:
            res = await rt.run_cell(PROTO, label=f"soak-{state['cells']:03d}")
            state["cells"] += 1
            state["rows"] += len(res.rows)
            state["errors"] += sum(1 for r in res.rows if r.error)
            state["model_s"] = (await rt.admin.sim_info())["model_clock_s"] - clock0
            gc.collect()
            sample(f"idle after cell {state['cells']}")
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await rt.stop()
    print(f"\nsoak: {state['cells']} cells × n={N} at concurrency 32, health set, 1024 tokens, twin at time scale "
          f"{SCALE:g}; {state['model_s']:.0f} s model time in {samples[-1]['wall']:.0f} s wall "
          f"(effective scale {state['model_s'] / samples[-1]['wall']:.1f}); {state['rows']} requests, "
          f"{state['errors']} errors")
    print(f"{'wall s':>7} {'model s':>8} {'requests':>8} {'RSS MiB':>8} {'tasks':>6} {'fds':>4} {'threads':>7} "
          f"{'in flight':>9}  point")
    idle = [s for s in samples if s["label"].startswith(("start", "idle"))]
    shown = samples if len(samples) <= 40 else samples[:: max(1, len(samples) // 30)] + [samples[-1]]
    for s in shown:
        print(f"{s['wall']:>7.0f} {s['model']:>8.0f} {s['rows']:>8} {s['rss']:>8.1f} {s['tasks']:>6} {s['fds']:>4} "
              f"{s['threads']:>7} {s['inflight']:>9}  {s['label']}")
    first, last = idle[1] if len(idle) > 1 else idle[0], idle[-1]
    per_k = (last["rss"] - first["rss"]) / max(1, (last["rows"] - first["rows"]) / 1000)
    print(f"idle points, after cell 1 → end: RSS {first['rss']:.1f} → {last['rss']:.1f} MiB ({per_k:+.1f} MiB per "
          f"1000 requests), tasks {first['tasks']} → {last['tasks']}, fds {first['fds']} → {last['fds']}, "
          f"threads {first['threads']} → {last['threads']}")
    assert state["errors"] == 0
    assert last["tasks"] <= first["tasks"] + 2
    assert last["fds"] <= first["fds"] + 4
    assert last["threads"] <= first["threads"] + 2
    assert last["rss"] - first["rss"] <= 64, (
        f"RSS grows {per_k:+.1f} MiB per 1000 requests ({first['rss']:.0f} → {last['rss']:.0f} MiB)")
