"""Pilot tests of the sessions browser and the forecast screen over sessions written by the real store (two
sessions: a pair of two tool cells + a math cell; an older one with a torn manifest), asserting on the screens'
messages and on what they show; plus SVG snapshots at 80×24 and 160×48. The clock ("12 min ago") and the time
zone are injected, and the sessions root is relative to a temporary cwd, so nothing shown depends on the wall
clock or the machine."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from textual.app import App

from console.core.sessions.compare import compare_cells
from console.core.sessions.pairs import recompute_pair, report_markdown
from console.ui.screens.forecast import ForecastScreen
from console.ui.screens.sessions import CompareScreen, ReportScreen, SessionsScreen
from tests.ui.waits import screen_text, wait_until
from tests.unit.test_browse import SHA, build_sessions, make_cell, make_session

NOW = datetime(2026, 5, 20, 14, 15, 30, tzinfo=timezone.utc)  # 12 min after the pair session was created


@pytest.fixture
def sessions(tmp_path, monkeypatch) -> dict[str, Path]:
    monkeypatch.chdir(tmp_path)
    return build_sessions(Path("sessions"))


class Host(App):
    """A bare app that pushes one screen over its default screen, as the console's app does."""

    def __init__(self, make_screen) -> None:
        super().__init__()
        self._make = make_screen

    def on_mount(self) -> None:
        self.push_screen(self._make())


def browser(**kw) -> Host:
    return Host(lambda: SessionsScreen(Path("sessions"), now=lambda: NOW, tz=timezone.utc, **kw))


def widget_text(app, selector: str) -> str:
    region = app.screen.query_one(selector).region
    lines = [s.text for s in app.screen._compositor.render_strips()]
    return "\n".join(ln[region.x:region.right] for ln in lines[region.y:region.bottom])


def loaded(app) -> bool:
    return isinstance(app.screen, SessionsScreen) and app.screen.loaded


def row_keys(app) -> list[str]:
    table = app.screen.query_one("DataTable")
    return [table.coordinate_to_cell_key((i, 0)).row_key.value for i in range(table.row_count)]


async def move_to(pilot, key: str) -> None:
    table = pilot.app.screen.query_one("DataTable")
    table.move_cursor(row=table.get_row_index(key))
    await wait_until(pilot, lambda: pilot.app.screen._cursor_key() == key, what=f"the cursor on {key}")
    await pilot.pause()  # the highlight's message updates the detail pane


def ckey(p: Path) -> str:
    return f"c:{p.parent.name}/{p.name}"


# --- browsing -----------------------------------------------------------------------------------------

async def test_lists_newest_first_with_local_time_ago_pair_and_cells(sessions):
    """Sessions, their pairs and their cells: newest first, all three (cells were listed oldest first)."""
    app = browser()
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        assert [m.count for m in messages if isinstance(m, SessionsScreen.Loaded)] == [2]
        new, old = sessions["new"].name, sessions["old"].name
        assert row_keys(app) == [f"s:{new}", f"p:{new}/pair.json", ckey(sessions["math"]), ckey(sessions["b1"]),
                                 ckey(sessions["a1"]), f"s:{old}", ckey(sessions["torn"]), ckey(sessions["old_tool"])]
        text = widget_text(app, "DataTable")
        assert "05-20 14:03 12 min ago" in text and "05-20 11:05 3 h ago" in text
        assert "⇄ pair A1 B1" in text and "+6.1%" in text and "k26-eagle3-d7 faster by 6.1%" in text
        assert "A1-tool" in text and "EAGLE-3 d6" in text and "8/8" in text and f"tool·{SHA['tool'][:6]}" in text
        assert f"math·{SHA['math'][:6]}" in text and "manifest.json unreadable" in text
        detail = widget_text(app, "#detail")  # the cursor starts on the newest session
        assert "created 2026-05-20 14:03 (12 min ago)" in detail and "gpu-node-07" in detail


async def test_p_jumps_to_the_newest_pair_and_enter_opens_its_recomputed_report(sessions):
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await pilot.press("p")
        assert app.screen.current()[0] == "pair"
        assert "legs A1 = cell-001-a1-tool, B1 = cell-002-b1-tool" in widget_text(app, "#detail")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen) and app.screen.text is not None,
                         what="the report")
        doc, ps, cmp = recompute_pair(sessions["new"])
        assert app.screen.text == report_markdown(doc, ps, cmp, sessions["new"])
        shown = screen_text(app)
        assert "Pair: k26-eagle3-d6 (A) vs k26-eagle3-d7 (B)" in shown and "faster by 6.1%" in shown
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser again")


async def test_several_pairs_in_a_session_list_newest_first_and_each_report_is_its_own(sessions):
    from console.core.sessions.store import Session
    from tests.unit.test_browse import write_pair
    write_pair(Session(sessions["new"]), sessions["b1"], sessions["a1"])  # a second pair: the arms swapped
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        new = sessions["new"].name
        assert row_keys(app)[:3] == [f"s:{new}", f"p:{new}/pair-2.json", f"p:{new}/pair.json"]
        text = widget_text(app, "DataTable")
        assert "⇄ pair 2 A1 B1" in text and "⇄ pair 1 A1 B1" in text and "-5.7%" in text and "+6.1%" in text
        assert "pair 2 leg B1 · pair 1 leg A1" in text
        await pilot.press("p", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen) and app.screen.text is not None,
                         what="the report")
        doc, ps, cmp = recompute_pair(sessions["new"], sessions["new"] / "pair-2.json")
        assert app.screen.text == report_markdown(doc, ps, cmp, sessions["new"]) and "slower" in app.screen.text


async def test_a_pair_whose_legs_are_gone_shows_report_md_as_written_and_why(sessions):
    import shutil
    shutil.rmtree(sessions["b1"])
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await pilot.press("p", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen) and app.screen.text is not None,
                         what="the report")
        assert app.screen.text.startswith("> **Not recomputed**")
        assert (sessions["new"] / "report.md").read_text() in app.screen.text


async def test_enter_on_a_cell_opens_its_recomputed_report_and_on_a_session_folds_it(sessions):
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ReportScreen) and app.screen.text is not None,
                         what="the report")
        text = app.screen.text
        assert text.startswith("# Cell A1-tool") and "**median 479.5 tok/s**" in text and "τ 4.76" in text
        assert "p1 " in text and "conditional p_i/p_(i-1)" in text and "serving-console report sessions/" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser again")
        await move_to(pilot, f"s:{sessions['new'].name}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "▸ 05-20 14:03" in widget_text(app, "DataTable"), what="the session folded")
        assert ckey(sessions["a1"]) not in row_keys(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: ckey(sessions["a1"]) in row_keys(app), what="the session unfolded")


async def test_space_marks_two_cells_and_c_shows_the_verdict_card(sessions):
    app = browser()
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await pilot.press("c")  # nothing marked: a warning, no comparison
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("space")
        await move_to(pilot, ckey(sessions["b1"]))
        await pilot.press("space")
        assert app.screen.marks == [ckey(sessions["a1"]), ckey(sessions["b1"])]
        assert "A   A1-tool" in widget_text(app, "DataTable") or "A  " in widget_text(app, "#status")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare card")
        done = [m for m in messages if isinstance(m, SessionsScreen.Compared)]
        assert len(done) == 1 and done[0].refusal is None
        want = compare_cells(sessions["a1"], sessions["b1"], seed=0)
        assert done[0].stats.effect == want.effect
        card = widget_text(app, "#card")
        assert "479.5" in card and "508.6" in card and "473.2 / 484.6" in card and "502.1 / 513.2" in card
        assert want.effect.text() in card and "B faster by 6.1%" in card and "2000 resamples, seed 0" in card
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser again")


async def test_compare_refuses_cells_of_different_prompt_sets_in_one_line(sessions):
    app = browser()
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("space")
        await move_to(pilot, ckey(sessions["math"]))
        await pilot.press("space", "c")
        await wait_until(pilot, lambda: any(isinstance(m, SessionsScreen.Compared) for m in messages),
                         what="SessionsScreen.Compared")
        done = [m for m in messages if isinstance(m, SessionsScreen.Compared)][0]
        assert done.stats is None and "\n" not in done.refusal
        assert SHA["tool"][:12] in done.refusal and SHA["math"][:12] in done.refusal
        assert not isinstance(app.screen, CompareScreen)
        status = widget_text(app, "#status")
        assert "cannot compare: prompt sets differ" in status and SHA["math"][:12] in status


async def test_a_third_mark_replaces_the_oldest_and_marks_survive_refresh(sessions):
    app = browser()
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        for k in ("a1", "b1", "math"):
            await move_to(pilot, ckey(sessions[k]))
            await pilot.press("space")
        assert app.screen.marks == [ckey(sessions["b1"]), ckey(sessions["math"])]
        later = make_session(Path("sessions"), "20260520T141000Z", "k26-dflash-b16")
        make_cell(later, "tool", [600.0, 610.0, 620.0])
        await pilot.press("r")
        await wait_until(pilot, lambda: sum(isinstance(m, SessionsScreen.Loaded) for m in messages) == 2,
                         what="a second SessionsScreen.Loaded")
        assert row_keys(app)[0] == f"s:{later.dir.name}" and "5 min ago" in widget_text(app, "DataTable")
        assert app.screen.marks == [ckey(sessions["b1"]), ckey(sessions["math"])]
        assert app.screen.current()[2].dir == sessions["math"]  # the cursor stays on its row


async def test_empty_root_says_so_and_escape_goes_back(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = browser()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        assert "no sessions under sessions yet" in widget_text(app, "#status")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), what="the browser closed")


async def test_leaving_before_the_disk_is_read_is_harmless(sessions, monkeypatch):
    """The disk read (a worker thread) is held until the browser is closed, then let finish."""
    import threading

    import console.ui.screens.sessions as mod
    real = mod.list_sessions
    reading, release, read = threading.Event(), threading.Event(), threading.Event()

    def slow_list(root):
        reading.set()
        release.wait(30)
        try:
            return real(root)
        finally:
            read.set()

    monkeypatch.setattr(mod, "list_sessions", slow_list)
    app = browser()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: reading.is_set() and isinstance(app.screen, SessionsScreen),
                         what="the browser reading the disk")
        assert not app.screen.loaded
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionsScreen), what="the browser closed")
        release.set()
        await wait_until(pilot, lambda: read.is_set(), what="the disk read finished after the browser closed")
        await pilot.pause()  # the worker hands its listing to the closed screen
        await pilot.pause()
        assert not isinstance(app.screen, SessionsScreen)
    assert app.return_code in (None, 0)


# --- forecast ----------------------------------------------------------------------------------------------

def forecasting(cell: Path, **kw) -> Host:
    return Host(lambda: ForecastScreen(cell, **kw))


def computed(app) -> bool:
    """The forecast (or its refusal) is computed AND laid out on screen. `result` is set before the body's repaint
    lands, and the first repaint can still fit the placeholder's one-line region (CI saw the placeholder, then only
    the head line): wait for the lines after the table (or the refusal line) to be on screen."""
    if not isinstance(app.screen, ForecastScreen):
        return False
    if app.screen.error is not None:
        return "no forecast:" in screen_text(app)
    return app.screen.result is not None and "acceptance per draft position" in screen_text(app)


async def test_forecast_screen_shows_depths_tax_and_curve(sessions):
    app = forecasting(sessions["old_tool"], verify_tax_ms=0.1)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: computed(app), what="the forecast")
        cf = app.screen.result
        assert [pt.depth for pt in cf.forecast.points] == [3, 4, 5, 6, 7, 8]
        text = screen_text(app)
        pt8 = cf.forecast.at(8)
        assert f"{pt8.tok_s:.1f}" in text and f"{100 * (pt8.tok_s / cf.forecast.base_tok_s - 1):+.1f}%" in text
        assert "measured" in text and "verify tax 0.100 ms per extra drafted token: given" in text
        assert "p6 " in text and "p8 " in text and "extrapolated" in text


async def test_f_in_the_browser_forecasts_the_highlighted_cell_with_the_session_tax(sessions):
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("f")
        await wait_until(pilot, lambda: computed(app), what="the forecast")
        tax = app.screen.result.forecast.tax  # A1 and B1 in this session: a fit whose CI includes 0 is refused
        assert tax.source == "published" and "not resolved" in tax.text
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser again")


async def test_forecast_refuses_a_cell_without_speculation_in_one_line(sessions):
    s = make_session(Path("sessions"), "20260520T120000Z", "nospec")
    d = make_cell(s, "tool", [300.0, 310.0, 305.0], spec=None)
    app = forecasting(d)
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: computed(app), what="the forecast")
        assert "no per-position acceptance" in app.screen.error
        assert "no forecast:" in screen_text(app)


# --- snapshots ---------------------------------------------------------------------------------------------

def until(cond):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: cond(pilot.app), what=cond.__name__)
    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_sessions_snapshot(snap_compare, sessions, size):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: loaded(pilot.app), what="the listing")
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("space")
        await move_to(pilot, ckey(sessions["b1"]))
        await pilot.press("space")
    assert snap_compare(browser(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_forecast_snapshot(snap_compare, sessions, size):
    app = forecasting(sessions["a1"])
    assert snap_compare(app, terminal_size=size, run_before=until(computed))


def test_compare_card_snapshot(snap_compare, sessions):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: loaded(pilot.app), what="the listing")
        for k in ("a1", "b1"):
            await move_to(pilot, ckey(sessions[k]))
            await pilot.press("space")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen), what="the compare card")
    assert snap_compare(browser(), terminal_size=(160, 48), run_before=run_before)


def test_pair_report_snapshot(snap_compare, sessions):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: loaded(pilot.app), what="the listing")
        await pilot.press("p", "enter")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReportScreen) and pilot.app.screen.text is not None,
                         what="the report")
    assert snap_compare(browser(), terminal_size=(80, 24), run_before=run_before)


async def test_a_failed_launch_is_listed_as_one_not_as_a_session(tmp_path, monkeypatch):
    """#30 item 7: a start that died before ready keeps its engine log (the error line names it) and is listed as a
    failed launch with its error and log, not as a session of 'sglang ?'."""
    import json as _json
    monkeypatch.chdir(tmp_path)
    d = Path("sessions") / "20260520T140000Z-k26-eagle3-d6"
    d.mkdir(parents=True)
    err = "engine died before ready (exit code 2): python -m console.sim: error: unrecognized arguments: --x"
    (d / "engine-1.log").write_text("python -m console.sim: error: unrecognized arguments: --x\n")
    (d / "session.json").write_text(_json.dumps({
        "schema": 1, "created_utc": "2026-05-20T14:00:00Z", "slug": "k26-eagle3-d6", "node": {"hostname": "h"},
        "arms": [{"profile": "k26-eagle3-d6", "argv": [], "log": "engine-1.log"}],
        "failed_launch": {"profile": "k26-eagle3-d6", "error": err, "log": "engine-1.log",
                          "utc": "2026-05-20T14:00:09Z"}}))
    app = browser()
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        text = widget_text(app, "DataTable")
        assert "k26-eagle3-d6 · failed launch of k26-eagle3-d6: engine died before ready (exit c" in text
        assert "sglang ?" not in text
        detail = widget_text(app, "#detail")
        assert "never became ready" in detail and "engine-1.log" in detail and "unrecognized arguments" in detail
