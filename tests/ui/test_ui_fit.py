"""What an operator reads without pressing a key, at 80×24 and 160×48 (issue #12, items 3 and 5): every panel
fits, the footer is one uncut line, the help is readable, DFLASH's 15 positions leave the cell its rows. Read off
the rendered screen, as a person would."""

from __future__ import annotations

import re

from console.ui.screens.help import HelpScreen
from tests.ui.test_app import app_with_fake, widget_text
from tests.ui.waits import screen_text, wait_until


def last_line(app) -> str:
    return screen_text(app).splitlines()[-1]


async def settled(pilot, cond, what: str = "the screen to settle") -> None:
    """Wait until `cond()` holds (panels fit themselves after a layout, so this waits on what is shown)."""
    await wait_until(pilot, cond, what=what)


async def test_80x24_dashboard_shows_status_rate_tau_acceptance_and_the_cell_without_a_key():
    app, _ = app_with_fake()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, lambda: "median 492.5" in widget_text(app, "#cell"))
        cell = widget_text(app, "#cell")
        assert re.search(r"health\s+6/8\s+done", cell)                         # the cell's progress
        assert re.search(r"median 492\.5 tok/s \(n=6\)  τ \d\.\d\d  p10", cell)     # its median, τ first (#30)
        assert "…" not in cell.split("median 492.5")[1].splitlines()[0]          # the median line is not cut
        assert "READY" in widget_text(app, "#server") and "SIMULATED" in widget_text(app, "#server")
        thr = widget_text(app, "#throughput")
        assert "rolling 5 s 533.4 tok/s" in thr and "median per req 492.5" in thr
        acc = widget_text(app, "#acceptance")
        assert "τ 4.74" in acc and "p1–p6" in acc and ".93 .84 .72" in acc     # τ and the acceptance summary
        assert app.query_one("#dashboard").max_scroll_y == 0                    # nothing below the fold
        assert app.query_one("#cell").region.bottom <= 22                       # above the status bar


async def test_80x24_footer_is_one_uncut_line_with_help_and_quit():
    app, _ = app_with_fake()
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(pilot, lambda: "q quit" in last_line(app))
        footer = last_line(app).rstrip()
        assert footer.endswith("? help  q quit"), footer
        for item in ("r run", "-+ depth", "f drafter", "k KV", "p pair", "c chat", "b sessions"):
            assert item in footer, item
        from console.ui.screens.forecast import ForecastScreen
        from console.ui.screens.logs import LogScreen
        await pilot.press("d")  # out of the narrow footer, the keys still work
        await settled(pilot, lambda: isinstance(app.screen, ForecastScreen))
        await pilot.press("escape", "l")
        await settled(pilot, lambda: isinstance(app.screen, LogScreen))


async def test_160x48_footer_keeps_every_key_and_the_palette():
    app, _ = app_with_fake()
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, lambda: "q quit" in last_line(app))
        footer = last_line(app)
        assert "d forecast" in footer and "l log" in footer and "^p palette" in footer and "q quit" in footer


async def test_80x24_help_definitions_are_readable():
    app, _ = app_with_fake()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await settled(pilot, lambda: isinstance(app.screen, HelpScreen)
                      and "TTFT" in widget_text(app, "HelpScreen VerticalScroll"))
        text = widget_text(app, "HelpScreen VerticalScroll")
        assert "de…" not in text and "t(…" not in text
        assert "TTFT  [s]" in text
        assert "t(first chunk with non-empty content) − t(request sent)" in text  # the formula, whole, on a line
        assert "(completion_tokens − tokens in first content chunk) / (t_last −" in text


async def test_160x48_dflash_leaves_the_cell_its_rows_and_p_i_line():
    """15 draft positions go side by side in the acceptance panel instead of squeezing the cell to 3 rows."""
    app, _ = app_with_fake(drafter="dflash")
    async with app.run_test(size=(160, 48)) as pilot:
        await settled(pilot, lambda: "p15" in widget_text(app, "#acceptance"))
        cell = widget_text(app, "#cell")
        assert all(f"health-{i}#{i}" in cell for i in range(6)), cell           # every row of the cell
        assert "Σp_i/K" in cell and re.search(r"p_i 0\.96 (0\.\d\d ){13}0\.07", cell)
        assert app.query_one("#acceptance").region.height <= 14


# --- snapshots ------------------------------------------------------------------------------------------------------

def running_cell(app) -> None:
    """A tool cell 3 of 16 in, on the fake runtime: what an operator watches for minutes."""
    from dataclasses import replace as dc_replace
    from console.core.measure import stats
    from console.core.run.state import CellProgress
    st = app.runtime.state
    rows = [dc_replace(r, request_id=f"tool-{i}#{i}", prompt_id=f"tool-{i}") for i, r in enumerate(st.cells_done[-1].rows[:3])]
    st.cell = CellProgress(label="tool-n16-m2048-c1", total=16, done=3, status="measuring 16 request(s) at concurrency 1",
                           cell_dir="sessions/x/cell-002-tool-n16-m2048-c1", rows=rows, running=True, arm_index=0,
                           prompt_set="tool")
    st.cell.summary = stats.summarize(rows, num_draft_tokens=7)


def test_running_cell_snapshot_80x24(snap_compare):
    app, _ = app_with_fake()

    async def run_before(pilot) -> None:
        running_cell(pilot.app)
        pilot.app.refresh_state()
        await settled(pilot, lambda: "tool-n16-m2048-c1  3/16" in widget_text(pilot.app, "#cell"))

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_dflash_dashboard_snapshot_160x48(snap_compare):
    app, _ = app_with_fake(drafter="dflash")

    async def run_before(pilot) -> None:
        await settled(pilot, lambda: "p15" in widget_text(pilot.app, "#acceptance"))

    assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)
