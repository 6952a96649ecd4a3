"""The sweep screen: a plan's printed plan and estimate (snapshots at 160×48 and 80×24), a bad plan's lines exactly as
headless prints them, and a small campaign run from the screen on the twin to its routing table."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.app import App

from console.cli import main
from console.ui.screens.sweep import SweepScreen
from tests.ui.waits import wait_until

REPO = Path(__file__).resolve().parents[2]


class Host(App):
    def __init__(self, make_screen) -> None:
        super().__init__()
        self._make = make_screen

    def on_mount(self) -> None:
        self.push_screen(self._make())


@pytest.fixture
def plans(tmp_path: Path) -> Path:
    d = tmp_path / "campaigns"
    d.mkdir()
    shutil.copy(REPO / "console" / "shipped" / "profiles" / "campaigns" / "smoke.toml", d / "smoke.toml")
    (d / "tiny.toml").write_text('name = "tiny"\n[protocol]\nn = 3\nmax_tokens = 48\n[[workload]]\ncontext = "short"\n'
                                 'domains = ["tool"]\nconcurrency = [1, 2]\n[[arms]]\nprofile = "k26-nospec"\n'
                                 '[[arms]]\nprofile = "k26-eagle3-d5"\n')
    (d / "bad.toml").write_text('name = "bad"\n[protocol]\nn = 0\nbogus = 1\n[[workload]]\ncontext = "short"\n'
                                'domains = ["tool"]\n[[arms]]\nprofile = "k26-nope"\n')
    return d


def host(plans: Path, sessions: Path, choose: str, **kw) -> Host:
    return Host(lambda: SweepScreen(sessions, plans=plans, sim=True, time_scale=8.0, choose=choose, **kw))


def loaded(app) -> bool:
    return isinstance(app.screen, SweepScreen) and app.screen.loaded


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_sweep_plan_snapshot(snap_compare, plans, tmp_path, size):
    async def run_before(pilot) -> None:
        await wait_until(pilot, lambda: loaded(pilot.app), what="the plan and its estimate")
    assert snap_compare(host(plans, tmp_path / "sessions", "smoke"), terminal_size=size, run_before=run_before)


async def test_a_bad_plan_shows_the_lines_headless_prints(plans, tmp_path, capsys):
    code = main(["sweep", str(plans / "bad.toml"), "--sim", "--dry-run", "--sessions", str(tmp_path / "s")])
    headless = [ln.removeprefix("serving-console: ") for ln in capsys.readouterr().err.splitlines()]
    assert code == 2 and len(headless) >= 3
    app = host(plans, tmp_path / "s", "bad")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the refusal")
        scr = app.screen
        assert not scr.ok and scr.lines == headless
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert scr.runner is None  # nothing starts


async def test_a_campaign_runs_from_the_screen_to_its_routing_table(plans, tmp_path):
    app = host(plans, tmp_path / "s", "tiny", sim_args=["--sim-time-scale", "8", "--sim-startup-scale", "1000"])
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app) and app.screen.ok, what="the plan")
        scr = app.screen
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: scr.runner is not None and scr.runner.progress.phase == "running",
                         what="the campaign to start")
        await wait_until(pilot, lambda: scr.analysis is not None or scr.error is not None, what="the campaign's end",
                         timeout=180)
        assert scr.error is None, scr.error
        p = scr.runner.progress
        assert p.counts() == {"done": 4}
        assert all(c.measured_tok_s for c in p.cells.values())
        assert len(scr.analysis["routing"]) == 2 and scr.analysis["campaign"]["complete"]
        await pilot.pause()
        text = "\n".join(s.text for s in app.screen._compositor.render_strips())
        assert "routing table" in text and "4/4 cells done" in text


async def test_w_opens_the_sweep_screen_and_it_outlives_escape(tmp_path):
    from tests.ui.test_app import app_with_fake
    app, holder = app_with_fake(start=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.loaded, what="the screen")
        first = app.screen
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SweepScreen), what="the dashboard")
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, SweepScreen), what="the screen again")
        assert app.screen is first  # the same screen: a campaign started there keeps its progress


async def test_the_screen_opens_on_the_smallest_plan_and_asks_before_an_expensive_one(tmp_path):
    """#30 item 4: with the shipped plans the screen opens on the one of fewest cells, never on `reference`
    (120 cells, ~2.4 node-hours); starting `reference` asks first (its cells, node-hours and cost beside this
    machine's wall time) and escape leaves nothing started; the estimate names modelled node time and wall time
    apart."""
    from console.ui.screens.sweep import CampaignConfirm, smallest_plan
    from console.core.campaign.parse import plan_files
    shipped = REPO / "console" / "shipped" / "profiles" / "campaigns"
    files = plan_files(shipped)
    small = smallest_plan(files)
    assert small is not None and small.stem != "reference"
    app = Host(lambda: SweepScreen(tmp_path, plans=shipped, sim=True, time_scale=8.0))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the plan")
        assert app.screen.choice == small
        assert any("of this machine's wall time (the twin at time scale ×8)" in ln and "node-hours of the modelled "
                   "node" in ln for ln in app.screen.lines), app.screen.lines
    app = host(shipped, tmp_path, "reference")
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the plan")
        sweep = app.screen
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, CampaignConfirm), what="the confirm box")
        heading = app.screen.heading()
        assert "Start campaign reference?" in heading and "120 cells" in heading and "node-hours" in heading
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is sweep, what="back")
        assert sweep.runner is None and not list(tmp_path.glob("*campaign*"))
