"""The runtime on a real twin process: launch, live telemetry, death detection."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from console.core.run import events as E

from console.core.launch.profile import resolve_profile
from console.core.run.runtime import Runtime

pytestmark = pytest.mark.e2e


async def test_engine_killed_mid_run_is_reported_dead_with_the_signal(tmp_path):
    """Death is reported by the telemetry watchdog; its latency target (within a second) is the benchmark
    tests/bench/test_timing_targets.py, not a timed assert on a loaded CI box."""
    events = []
    rt = Runtime(profile=resolve_profile("k26-eagle3-d6"), sim=True, sim_args=["--sim-time-scale", "4"],
                 sessions=tmp_path, observer=events.append)
    try:
        await rt.start()
        assert rt.state.phase == "ready"
        assert rt.state.server.arm.steps == 6 and rt.state.server.simulated
        t0 = time.monotonic()  # the first telemetry tick reads /metrics (no sleep that a slow tick outlasts)
        while rt.state.metrics is None and time.monotonic() - t0 < 30:
            await asyncio.sleep(0.05)
        assert rt.state.metrics is not None and rt.state.metrics.max_total_num_tokens
        os.killpg(rt.engine.pid, signal.SIGKILL)
        t0 = time.monotonic()
        while rt.state.phase != "dead" and time.monotonic() - t0 < 30:
            await asyncio.sleep(0.05)
        assert rt.state.phase == "dead", "the killed engine was not reported within 30 s"
        died = [e for e in events if isinstance(e, E.Died)]
        assert died and "signal 9" in died[0].text
    finally:
        await rt.stop()


async def test_startup_failure_names_the_error_line(tmp_path):
    """A flag the engine's parser refuses: the engine exits 2 before ready, and the exception, the state and the
    Died event all name argparse's error line from the engine's log (not a usage line above it, not 'error')."""
    from pathlib import Path
    from console.core.launch.process import EngineDied
    line = "python -m console.sim: error: unrecognized arguments: --speculative-num-stepz 3"
    want = f"engine died before ready (exit code 2): {line}"
    events = []
    rt = Runtime(profile=resolve_profile("k26-eagle3-d6"), sim=True, sim_args=["--speculative-num-stepz", "3"],
                 sessions=tmp_path, observer=events.append)
    try:
        with pytest.raises(EngineDied) as ei:
            await rt.start()
        died = ei.value
        assert died.returncode == 2 and died.error_line == line
        assert Path(died.log_path).read_text().splitlines()[-1] == line  # the line as the engine wrote it, last
        assert str(died) == f"{want}  [log: {died.log_path}]"
        assert rt.state.phase == "dead" and rt.state.error == want
        assert [ev.text for ev in events if isinstance(ev, E.Died)] == [want]
    finally:
        await rt.stop()
    # #30 item 7: the log stays where the error line names it, and the folder is a failed launch, not a session
    from console.core.sessions.browse import list_sessions
    (s,) = list_sessions(tmp_path)
    assert Path(died.log_path).parent == s.dir and Path(died.log_path).exists()
    assert s.only_a_failed_launch and s.failed_launch["error"] == want
    assert s.failed_launch["profile"] == "k26-eagle3-d6" and s.failed_launch["log"] == Path(died.log_path).name


async def test_flip_relaunches_with_new_depth_new_capacity_and_fresh_anchor(tmp_path):
    from console.core.launch import flips
    events = []
    rt = Runtime(profile=resolve_profile("k26-eagle3-d6"), sim=True, sim_args=["--sim-time-scale", "8"],
                 sessions=tmp_path, observer=events.append)
    try:
        await rt.start()
        first_pid = rt.engine.pid
        await rt.run_anchor()
        assert rt.state.arms[0].anchor_median_tok_s and rt.state.arms[0].anchor_tau
        cap0 = rt.state.server.max_total_num_tokens
        await rt.relaunch(flips.flip_depth(rt.profile, +1).after)
        assert rt.engine.pid != first_pid
        assert rt.state.server.arm.steps == 7 and rt.state.server.arm.draft_tokens == 8
        assert [a.profile for a in rt.state.arms] == ["k26-eagle3-d6", "k26-eagle3-d7"]
        assert rt.state.arms[1].anchor_median_tok_s and rt.state.arms[1].anchor_n == 8
        await rt.relaunch(flips.flip_kv(rt.profile).after)
        assert rt.state.server.kv_cache_dtype == "fp8_e4m3"
        assert rt.state.server.max_total_num_tokens > 1.8 * cap0  # half the bytes per token
        assert len(rt.state.arms) == 3 and rt.state.arms[2].anchor_median_tok_s
        meta = rt.session.meta()
        assert len([a for a in meta["arms"] if "argv" in a]) == 3
    finally:
        await rt.stop()


async def test_flip_forecast_is_compared_with_the_first_cell_of_the_new_arm(tmp_path):
    from console.core.launch import flips
    from console.core.run.cell import CellProtocol
    rt = Runtime(profile=resolve_profile("k26-eagle3-d6"), sim=True, sim_args=["--sim-time-scale", "8"],
                 sessions=tmp_path)
    proto = CellProtocol(prompt_set="tool-short", n=4, max_tokens=256, warmup=1)
    try:
        await rt.start()
        await rt.run_cell(proto)
        flip = flips.flip_depth(rt.profile, +1)
        fc, note = rt.forecast_for(flip)
        assert fc is not None and "tool-short" in note
        await rt.relaunch(flip.after, forecast=fc, forecast_prompt_set="tool-short")
        await rt.run_cell(proto)
        cmp = rt.state.cells_done[-1].forecast_cmp
        assert cmp is not None and cmp["depth"] == 7 and abs(cmp["error_pct"]) < 25
        import json
        from pathlib import Path
        m = json.loads((Path(rt.state.cells_done[-1].cell_dir) / "manifest.json").read_text())
        assert m["forecast_vs_measured"]["predicted_tok_s"] == cmp["predicted_tok_s"]
    finally:
        await rt.stop()
