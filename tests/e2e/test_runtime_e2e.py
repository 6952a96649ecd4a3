"""The runtime on a real twin process: launch, live telemetry, death detection."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from console.core.launch.profile import resolve_profile
from console.core.runtime import Runtime

pytestmark = pytest.mark.e2e


async def test_engine_killed_mid_run_is_reported_within_a_second(tmp_path):
    events = []
    rt = Runtime(profile=resolve_profile("k26-eagle3-d6"), sim=True, sim_args=["--sim-time-scale", "4"],
                 sessions=tmp_path, observer=events.append)
    try:
        await rt.start()
        assert rt.state.phase == "ready"
        assert rt.state.server.spec.num_steps == 6 and rt.state.server.simulated
        await asyncio.sleep(1.2)
        assert rt.state.metrics is not None and rt.state.metrics.max_total_num_tokens
        os.killpg(rt.engine.pid, signal.SIGKILL)
        t0 = time.monotonic()
        while rt.state.phase != "dead" and time.monotonic() - t0 < 3:
            await asyncio.sleep(0.05)
        assert rt.state.phase == "dead"
        assert time.monotonic() - t0 < 1.0
        died = [e for e in events if e.kind == "died"]
        assert died and "signal 9" in died[0].data["text"]
    finally:
        await rt.stop()


async def test_startup_failure_names_the_error_line(tmp_path):
    prof = resolve_profile("k26-eagle3-d6")
    rt = Runtime(profile=prof, sim=True, sim_args=["--speculative-num-stepz", "3"], sessions=tmp_path)
    with pytest.raises(Exception) as ei:
        await rt.start()
    assert "unrecognized arguments: --speculative-num-stepz" in str(ei.value) or "error" in str(ei.value)
    assert rt.state.phase == "dead"
    await rt.stop()
