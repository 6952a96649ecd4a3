"""Adaptive speculation live (docs/measurement.md#adaptive-speculation): against a twin launched with
--speculative-adaptive (profiles/k26-eagle3-adaptive.toml) the dashboard shows the active draft steps, their trail
and their switches, at 160×48 and in the short form at 80×24; the cells record each request's steps."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from console.core.launch.profile import resolve_profile
from console.core.run.runtime import Runtime
from console.ui.app import make_app
from tests.ui.test_app import widget_text
from tests.ui.waits import wait_until

REPO = Path(__file__).resolve().parents[2]


async def test_adaptive_steps_appear_live_change_and_the_cell_records_them(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)  # the profile names its adaptive config relative to where the console runs
    prof = resolve_profile("k26-eagle3-adaptive")
    app = make_app(lambda observer=None: Runtime(profile=prof, sim=True, sim_args=["--sim-time-scale", "10"],
                                                 sessions=tmp_path, observer=observer))
    async with app.run_test(size=(160, 48)) as pilot:
        def rt():
            assert app.runtime is not None
            return app.runtime
        await wait_until(pilot, lambda: rt().state.phase == "ready", 90, "the twin ready")
        # the automatic anchor runs the health set at batch 1: short prompts accept little, the server steps down
        await wait_until(pilot, lambda: len({r.steps for r in rt().state.spec_trail}) >= 2, 90,
                         "the active steps changed at least once")
        trail = [r.steps for r in rt().state.spec_trail]
        assert trail[0] == 5 and set(trail) <= {3, 5, 7}  # the launch value, then the batch-1 slot's candidates
        await wait_until(pilot, lambda: re.search(r"active\s+steps \d · \d draft tokens · /metrics \S+ \d(→\d)+",
                                                  widget_text(app, "#server")), 20, "the full form's active line")
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: re.search(r"EAGLE-3 adaptive steps \d \S+ \d(→\d)+",
                                                  widget_text(app, "#server")), 20, "the short form's active line")
        await wait_until(pilot, lambda: rt().state.cells_done and not rt().state.cells_done[-1].running, 90,
                         "the anchor cell done")
        cell = rt().state.cells_done[-1]
        assert cell.adaptive is not None and cell.adaptive["requests"] == 8
        lines = (Path(cell.cell_dir) / "adaptive.jsonl").read_text().splitlines()
        assert len(lines) == 8 and all(json.loads(x)["steps"] for x in lines)
        summary = json.loads((Path(cell.cell_dir) / "adaptive.json").read_text())
        assert sum(summary["requests_by_steps"].values()) == 8 and summary["source"].startswith("/metrics")
        for s, g in summary["per_steps"].items():  # requests at one count never accept more drafts than it
            assert len(g["per_position_acceptance"]) == int(s) and g["tau"] <= 1 + int(s)
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, 30, "the console stopped its twin and exited")


def _adaptive_fake():
    """The fake dashboard with its server adapting: the launch at 6 steps, then /metrics readings 6 → 7 → 5, and the
    last cell's step distribution (what a real adaptive cell writes to adaptive.json)."""
    from dataclasses import replace as dc_replace
    from console.core.engine.server_info import ServerInfo
    from console.core.run.state import SpecReading
    from tests.ui.test_app import app_with_fake
    app, holder = app_with_fake()
    orig = app._factory

    def factory(observer):
        rt = orig(observer)
        st = rt.state
        st.server = ServerInfo.parse({**st.server.raw, "speculative_adaptive": True})
        st.spec_trail = tuple(SpecReading(1000.0 + k, s, s + 1, "/metrics")
                              for k, s in enumerate([6] * 4 + [7] * 10 + [5] * 6))
        st.cells_done[-1] = dc_replace(st.cells_done[-1], adaptive={
            "requests": 6, "requests_by_steps": {"5": 2, "7": 4}, "mixed_requests": 1})
        return rt

    app._factory = factory
    return app


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_adaptive_dashboard_snapshot(snap_compare, size):
    assert snap_compare(_adaptive_fake(), terminal_size=size)
