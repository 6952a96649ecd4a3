"""`tui --attach` (Textual Pilot) against the real server: the dashboard shows what the real /server_info and
/metrics say, and a cell run from the r screen lists its rows with TTFT and tok/s."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from tests.real_sglang.conftest import rows_of, until, widget_text

pytestmark = pytest.mark.real_sglang


async def test_tui_attach_shows_the_real_server_and_runs_a_cell(server, tmp_path):
    from console.core.run.runtime import Runtime
    from console.ui.app import make_app
    from console.ui.screens.run_cell import RunCellScreen

    holder: dict = {}

    def factory(observer):
        holder["rt"] = Runtime(attach_url=server.url, sessions=tmp_path / "sessions", observer=observer)
        return holder["rt"]

    app = make_app(factory)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: "rt" in holder and holder["rt"].state.phase == "attached", 60, "attached")
        rt = holder["rt"]
        await until(pilot, lambda: rt.state.metrics is not None, 20, "first /metrics poll")
        await pilot.pause(0.5)
        srv = widget_text(app, "#server")
        assert "ATTACHED" in srv and "sglang 0.5.23" in srv and "metrics on" in srv, srv
        assert "none (no speculation)" in srv and str(server.info["model_path"])[:40] in srv, srv
        assert "SIMULATED" not in srv
        cap = server.info["max_total_num_tokens"]
        kv = widget_text(app, "#kv")
        assert re.search(rf"capacity\s+{cap:,} tokens", kv), kv  # the panel aligns its labels
        acc = widget_text(app, "#acceptance")
        assert "no speculation on this server" in acc and "p1" not in acc, acc
        assert "no spec" in widget_text(app, "#statusbar")  # the status bar's short form
        # the /server_info view: 1 maximizes the server panel, escape restores
        await pilot.press("1")
        await pilot.pause(0.3)
        big = widget_text(app, "#server")
        assert "mem frac 0.300" in big and "TP 1" in big, big
        await pilot.press("escape")
        await pilot.pause(0.2)

        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RunCellScreen), 5, "run-cell screen")
        app.screen.query_one("#n").value = "2"
        app.screen.query_one("#max_tokens").value = "24"
        await pilot.click("#run")
        await until(pilot, lambda: rt.state.cell is not None and not rt.state.cell.running
                    and rt.state.cell.done == 2, 240, "the cell's 2 rows")
        await pilot.pause(0.6)
        cell = widget_text(app, "#cell")
        cell_dir = Path(rt.state.cell.cell_dir)
        rows = rows_of(cell_dir)
        assert len(rows) == 2
        for r in rows:  # each row on screen: its id, TTFT, tok/s, τ 1 (no drafter: 1 by definition, as the
            # acceptance panel says; #30 item 6) and 24 output tokens
            line = next((ln for ln in cell.splitlines() if r["request_id"] in ln), None)
            assert line is not None, cell
            assert f"{r['t_first_s']:.3f}" in line and re.search(r"\s1\s+24\b", line) and " — " not in line, line
        assert "2/2  done" in cell and "median" in cell and "TTFT med" in cell and "τ 1" in cell, cell
        m = json.loads((cell_dir / "manifest.json").read_text())
        assert m["flush"]["ok"] is True and m["kv_capacity_tokens"] == cap
        kv = widget_text(app, "#kv")
        assert re.search(rf"capacity\s+{cap:,} tokens", kv), kv
        await asyncio.wrap_future(app._io.submit(rt.stop()))
