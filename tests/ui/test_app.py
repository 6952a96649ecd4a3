"""Pilot tests of the key paths, asserting on the app's messages (harlequin style), plus SVG snapshots."""

from pathlib import Path

import pytest

from console.core.measure.stats import DEFINITIONS
from console.core.run import events as E
from console.ui.app import ConsoleApp, make_app
from console.ui.messages import Command, CommandDone, PairDone, RuntimeEvent
from console.ui.screens.help import HelpScreen
from tests.ui.fake_runtime import FakeRuntime
from tests.ui.waits import notified, wait_until


def widget_text(app, selector: str) -> str:
    """The characters the screen shows inside a widget's region (what a user reads)."""
    region = app.screen.query_one(selector).region
    lines = [s.text for s in app.screen._compositor.render_strips()]
    return "\n".join(ln[region.x:region.right] for ln in lines[region.y:region.bottom])


def app_with_fake(start: bool = False, phase: str = "ready", drafter: str = "eagle3",
                  alarm: bool = False, attached: bool = False) -> tuple[ConsoleApp, list]:
    holder: list[FakeRuntime] = []

    def factory(observer):
        rt = FakeRuntime(observer, phase=phase, drafter=drafter, alarm=alarm, attached=attached)
        holder.append(rt)
        return rt

    return make_app(factory, start_runtime=start), holder


async def test_start_posts_ready_and_dashboard_shows_live_figures():
    app, holder = app_with_fake(start=True)
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: any(isinstance(m, RuntimeEvent) and isinstance(m.event, E.Ready) for m in messages)
                         and "SIMULATED" in widget_text(app, "#server") and "110.8 GB" in widget_text(app, "#gpu"),
                         what="the ready event and the dashboard's figures")
        assert app.query_one("#dashboard").display
        server = widget_text(app, "#server")
        assert "SIMULATED" in server and "k26-eagle3-d6" in server and "EAGLE-3 depth 6 · topk 1 · 7 draft tokens" in server
        thr = widget_text(app, "#throughput")
        assert "tok/s" in thr and "tool-1#0" in thr
        acc = widget_text(app, "#acceptance")
        assert "τ " in acc and "p1" in acc and "p6" in acc
        kv = widget_text(app, "#kv")
        assert "336,000 tokens" in kv and "1,984 tok" in kv
        gpu = widget_text(app, "#gpu")
        assert "no NVIDIA driver" in gpu and "weights" in gpu and "110.8 GB" in gpu


async def test_a_runs_the_health_anchor_through_the_runtime():
    app, holder = app_with_fake(start=False)
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await pilot.press("a")
        await wait_until(pilot, lambda: any(isinstance(m, CommandDone) and m.what == "anchor" for m in messages),
                         what="CommandDone('anchor')")
        rt = holder[0]
        assert rt.anchors == 1
        assert any(isinstance(m, CommandDone) and m.what == "anchor" for m in messages)


async def test_r_opens_the_run_cell_screen_and_runs_the_chosen_protocol():
    from console.ui.screens.run_cell import RunCellScreen
    app, holder = app_with_fake(start=False)
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunCellScreen), what="the run-cell screen")
        app.screen.query_one("#n").value = "3"
        app.screen.query_one("#concurrency").value = "2"
        app.screen.query_one("#max_tokens").value = "256"
        await pilot.click("#run")
        await wait_until(pilot, lambda: any(isinstance(m, CommandDone) and m.what == "cell" for m in messages),
                         what="CommandDone('cell')")
        assert not isinstance(app.screen, RunCellScreen)
    proto = holder[0].cells_run[0]
    assert (proto.n, proto.concurrency, proto.max_tokens, proto.prompt_set) == (3, 2, 256, "health")


async def test_run_cell_screen_refuses_bad_fields_with_one_line():
    from console.ui.screens.run_cell import RunCellScreen
    app, holder = app_with_fake(start=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, RunCellScreen), what="the run-cell screen")
        app.screen.query_one("#n").value = "three"
        await pilot.click("#run")
        await wait_until(pilot, lambda: "requests n: 'three' is not a whole number"
                         in str(app.screen.query_one("#error").render()), what="the line on n 'three'")
        assert isinstance(app.screen, RunCellScreen)
        app.screen.query_one("#n").value = "0"
        await wait_until(pilot, lambda: not app.screen.query_one("#run").has_class("-active"),
                         what="the run button out of its pressed look (a click on it before is ignored)")
        await pilot.click("#run")
        await wait_until(pilot, lambda: "n must be ≥ 1" in str(app.screen.query_one("#error").render()),
                         what="the line on n 0")
        assert isinstance(app.screen, RunCellScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RunCellScreen), what="the run-cell screen closed")
    assert holder[0].cells_run == []


async def test_r_refuses_while_launching():
    from console.ui.screens.run_cell import RunCellScreen
    app, holder = app_with_fake(start=False, phase="launching")
    messages = []
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        assert app.query_one("#startup").display and not app.query_one("#dashboard").display
        await pilot.press("r")
        await wait_until(pilot, lambda: notified(messages, "no server to measure yet"), what="the refusal toast")
        assert not isinstance(app.screen, RunCellScreen)
        assert holder[0].cells_run == []


async def test_help_lists_every_definition_and_escape_closes():
    app, _ = app_with_fake()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help screen closed")
    assert len(DEFINITIONS) >= 13


async def test_q_stops_the_runtime_then_exits():
    app, holder = app_with_fake()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("q")
        await wait_until(pilot, lambda: holder[0].stopped and not app.is_running,
                         what="the runtime stopped and the app exited")
    assert holder[0].stopped and app.return_code == 0


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_dashboard_snapshot(snap_compare, size):
    app, _ = app_with_fake()
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_alarm_snapshot(snap_compare, size):
    """An unacknowledged acceptance alarm leads the status line and the acceptance panel, '!' in the footer."""
    app, _ = app_with_fake(alarm=True)
    assert snap_compare(app, terminal_size=size)


async def test_bang_acknowledges_the_alarm_and_it_leaves_the_status_line_and_footer():
    app, holder = app_with_fake(alarm=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: "ALARM dummy" in widget_text(app, "#statusbar")
                         and "ALARM dummy" in widget_text(app, "#acceptance"), what="the alarm shown")
        assert "random draft weights" in widget_text(app, "#acceptance")
        assert app.screen.check_action("ack_alarms", ())
        await pilot.press("exclamation_mark")
        await wait_until(pilot, lambda: "ALARM" not in widget_text(app, "#statusbar")
                         and "ALARM" not in widget_text(app, "#acceptance"), what="the alarm acknowledged")
        assert holder[0].state.alarms[0].acked and holder[0].state.alarms[0].active
        assert not app.screen.check_action("ack_alarms", ())  # off the footer
        await wait_until(pilot, lambda: "1 acknowledged alarm(s) still holding: dummy" in widget_text(app, "#statusbar"),
                         what="the acknowledged alarm still named")


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_startup_snapshot(snap_compare, size):
    app, _ = app_with_fake(phase="launching")
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
@pytest.mark.parametrize("key", ["question_mark", "r", "plus", "p", "l", "C"],
                         ids=["help", "run-cell", "flip", "pair", "logs", "chat-both"])
def test_screen_snapshots(snap_compare, key, size):
    app, _ = app_with_fake()
    assert snap_compare(app, press=[key], terminal_size=size)


async def test_plus_opens_the_flip_screen_with_diff_and_forecast_and_y_relaunches():
    from console.ui.screens.flip import FlipScreen
    app, holder = app_with_fake()
    messages = []
    async with app.run_test(size=(160, 48), message_hook=messages.append) as pilot:
        await pilot.press("plus")
        await wait_until(pilot, lambda: isinstance(app.screen, FlipScreen)
                         and "verify tax" in widget_text(app, "FlipScreen Vertical"), what="the flip screen")
        body = widget_text(app, "FlipScreen Vertical")
        assert "drafter.steps" in body and "+ --speculative-num-steps 7" in body
        assert "- --speculative-num-draft-tokens 7" in body and "+ --speculative-num-draft-tokens 8" in body
        assert "forecast" in body and "depth 7" in body and "verify tax 0.397 ms/token: published" in body
        await pilot.press("y")
        await wait_until(pilot, lambda: any(isinstance(m, CommandDone) and m.what == "flip" for m in messages),
                         what="CommandDone('flip')")
    rt = holder[0]
    assert [p.name for p in rt.relaunched] == ["k26-eagle3-d7"]
    after = rt.relaunched[0]
    assert (after.drafter.steps, after.drafter.draft_tokens, after.drafter.topk) == (7, 8, 1)
    assert any(isinstance(m, CommandDone) and m.what == "flip" for m in messages)


async def test_flip_cancel_and_kv_flip():
    from console.ui.screens.flip import FlipScreen
    app, holder = app_with_fake()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, FlipScreen)
                         and "no forecast" in widget_text(app, "FlipScreen Vertical"), what="the KV flip screen")
        body = widget_text(app, "FlipScreen Vertical")
        assert "kv.dtype" in body and "fp8_e4m3" in body and "no forecast" in body
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, FlipScreen), what="the flip screen closed")
    assert holder[0].relaunched == []


async def test_flips_are_not_offered_when_attached():
    """#30 item 6: on a server the console did not launch, the key bar offers no relaunch (- + f k), the keys do
    nothing, the status line says how long the console has been attached (not 'up'), and a no-spec server's rows
    read τ 1 as the acceptance panel does."""
    from console.ui.screens.flip import FlipScreen
    app, holder = app_with_fake(attached=True, drafter="none")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: "attached for 0 min (since attach)" in widget_text(app, "#statusbar"), what="the status line")
        for kind in ("depth+", "depth-", "family", "kv"):
            assert app.screen.check_action("flip", (kind,)) is False
        await wait_until(pilot, lambda: "r run" in widget_text(app, "#dashboard-footer"), what="the key bar")
        keys = widget_text(app, "#dashboard-footer")
        assert "depth" not in keys and "drafter" not in keys and " KV" not in keys and "run" in keys
        for key in ("plus", "minus", "f", "k"):
            await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, FlipScreen)
        assert "τ = 1 by definition" in widget_text(app, "#acceptance")
        cell = widget_text(app, "#cell")
        assert "health-5#5" in cell and " — " not in cell.split("health-5#5")[1].splitlines()[0]
    assert holder[0].relaunched == []


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_attached_snapshot(snap_compare, size):
    """Attached to a no-spec server: no relaunch keys, 'attached N min', rows' τ 1 (#30 item 6)."""
    app, _ = app_with_fake(attached=True, drafter="none")
    assert snap_compare(app, terminal_size=size)



async def test_pair_recorder_runs_the_core_pair_and_shows_the_result_card(monkeypatch, tmp_path):
    from console.core.measure.pairs import pair_stats
    from console.core.run.pair import PairResult
    from console.ui.screens.pair import PairScreen
    from tests.unit.test_pairs import rows

    seen = {}

    async def fake_run_pair(rt, spec, say):
        seen["spec"] = spec
        say("leg A1: anchor")
        say("leg B1: launching")
        ps = pair_stats([rows([480, 490, 500, 505, 495, 488])], [rows([520, 530, 525, 515, 522, 528])],
                        order="AB", seed=0, a_name=spec.a.name, b_name=spec.b.name)
        return PairResult(dir=tmp_path, legs=[], stats=ps)

    monkeypatch.setattr("console.core.run.pair.run_pair", fake_run_pair)
    app, holder = app_with_fake()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PairScreen), what="the pair screen")
        await pilot.press("plus")  # dashboard keys are off here: no flip screen on top
        await pilot.pause()  # nothing to wait for; the result card below is read off this same screen
        assert isinstance(app.screen, PairScreen)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "k26-eagle3-d7 faster by 6.3%" in widget_text(app, "#progress"),
                         what="the pair's result card")
        assert isinstance(app.screen, PairScreen)
        text = widget_text(app, "#progress")
        assert "leg A1: anchor" in text and "k26-eagle3-d7 faster by 6.3%" in text and "median tok/s (n)" in text
    spec = seen["spec"]
    assert spec.a.name == "k26-eagle3-d6" and spec.b.drafter.steps == 7 and spec.order == "ABA"
    assert holder[0].relaunched == []  # the pair (not the app) decides relaunches


def _fake_pair(monkeypatch, tmp_path):
    from console.core.measure.pairs import pair_stats
    from console.core.run.pair import PairResult
    from tests.unit.test_pairs import rows

    async def fake_run_pair(rt, spec, say):
        say("leg A1: anchor")
        say("leg B1: launching")
        ps = pair_stats([rows([480, 490, 500, 505, 495, 488])], [rows([520, 530, 525, 515, 522, 528])],
                        order="AB", seed=0, a_name=spec.a.name, b_name=spec.b.name)
        return PairResult(dir=Path("sessions/20261203T120000Z-k26-eagle3-d6"), legs=[], stats=ps)  # fixed: a snapshot
    monkeypatch.setattr("console.core.run.pair.run_pair", fake_run_pair)


async def test_no_routine_toast_covers_the_pair_result(monkeypatch, tmp_path):
    """#30 item 8: the pair's verdict toast (15 s) sat over its own result card's last line, `recompute: …`, at the
    bottom right. On the pair screen, which shows the verdict itself, the routine toasts are left out."""
    from console.ui.screens.pair import PairScreen
    _fake_pair(monkeypatch, tmp_path)
    app, _ = app_with_fake()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PairScreen), what="the pair screen")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "recompute:" in widget_text(app, "#progress"), what="the result card")
        await pilot.pause()
        assert not app._notifications, [n.message for n in app._notifications]
        await pilot.press("escape")  # back on the dashboard, a finished pair still toasts
        app.post_message(PairDone(Command.PAIR, app.pair_state.result))
        await wait_until(pilot, lambda: any("pair:" in n.message for n in app._notifications), what="the toast")


def test_pair_result_snapshot_80x24(snap_compare, monkeypatch, tmp_path):
    from console.ui.screens.pair import PairScreen
    _fake_pair(monkeypatch, tmp_path)
    app, _ = app_with_fake()

    async def run_before(pilot):
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, PairScreen), what="the pair screen")
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: "recompute:" in widget_text(app, "#progress"), what="the result card")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


async def test_number_keys_maximize_panels_and_escape_restores():
    app, _ = app_with_fake()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("3")
        await wait_until(pilot, lambda: app.screen.maximized is app.query_one("#acceptance"),
                         what="#acceptance maximized")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen.maximized is None, what="the panels restored")
        await pilot.press("6")
        await wait_until(pilot, lambda: app.screen.maximized is app.query_one("#cell"), what="#cell maximized")


async def test_command_palette_lists_every_console_action():
    app, _ = app_with_fake()
    async with app.run_test(size=(120, 40)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
    for t in ("Run cell…", "Run anchor", "Flip: draft depth +1", "Flip: drafter family", "Flip: KV-cache dtype",
              "Record a pair…", "Engine log", "Help: definitions and keys", "Quit"):
        assert t in titles, t
    assert titles.count("Quit") == 1


async def test_theme_toggle():
    app, _ = app_with_fake()
    async with app.run_test(size=(120, 40)) as pilot:
        before = app.theme
        await pilot.press("ctrl+t")
        await wait_until(pilot, lambda: app.theme != before, what="the theme toggled")


def test_light_theme_snapshot(snap_compare):
    app, _ = app_with_fake()
    assert snap_compare(app, press=["ctrl+t"], terminal_size=(120, 40))


def test_maximized_acceptance_snapshot(snap_compare):
    app, _ = app_with_fake()
    assert snap_compare(app, press=["3"], terminal_size=(80, 24))
