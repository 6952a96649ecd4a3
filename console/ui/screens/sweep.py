"""Sweep: choose a campaign plan (campaigns/*.toml along the profile search path, core/places.py), read its plan and
estimate (or the one line per problem that `serving-console sweep` prints for a plan that cannot run), start it,
watch each cell's progress, ETA and forecast against measurement, and at the end the routing table. The campaign
runs in a thread of its own with its own event loop and engines (`core/campaign/run.py`, one Runtime per node), so
the dashboard's server and its telemetry go on; the figures come from `core/campaign/analysis.py`, the same as
`sweep --json` and `report DIR`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Label, Select, Static

from console.core.campaign.describe import fmt_duration, plan_lines
from console.core.campaign.estimate import Estimate, estimate
from console.core.campaign.parse import load_plan, plan_files
from console.core.campaign.plan import Plan
from console.core.campaign.refusals import refusals
from console.core.campaign.run import CampaignRunner, SweepProgress, create_campaign
from console.core.exits import describe
from console.core.fmt import num
from console.core.launch.profile import twin_args
from console.ui.widgets.confirm import ConfirmScreen
from console.ui.widgets.footer import ConsoleFooter

STATUS_STYLE = {"done": "green", "running": "bold cyan", "skipped": "yellow", "interrupted": "red", "pending": "dim"}


def progress_table(p: SweepProgress, width: int) -> Group:
    """One row per cell: status, requests done, ETA, forecast before it ran, measured, forecast error."""
    r = p.ratio()
    counts = p.counts()
    head = Text()
    head.append(f"{counts.get('done', 0)}/{len(p.cells)} cells done", style="bold")
    if counts.get("skipped"):
        head.append(f" · {counts['skipped']} skipped", style="yellow")
    head.append(f" · ETA {fmt_duration(p.eta_s())}" if p.phase == "running" else f" · {p.phase}")
    if p.error:
        head.append(f"\n{p.error}", style="bold red")
    for node, ph in sorted(p.node_phase.items()):
        head.append(f"\n{node}: {ph}", style="dim")
    wide = width >= 120
    t = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold", expand=False)
    t.add_column("cell", no_wrap=True, overflow="ellipsis", max_width=None if wide else max(20, width - 38))
    t.add_column("status", no_wrap=True)
    t.add_column("req", justify="right", no_wrap=True)
    t.add_column("ETA", justify="right", no_wrap=True)
    if wide:
        t.add_column("forecast tok/s", justify="right", no_wrap=True)
    t.add_column("measured", justify="right", no_wrap=True)
    t.add_column("Δ fc", justify="right", no_wrap=True)
    for k in p.order:
        c = p.cells[k]
        row: list[RenderableType]
        row = [Text(k if wide else f"{c.arm.removeprefix('k26-')}/{c.prompt_set}/c{c.concurrency}"),
               Text(c.status, style=STATUS_STYLE.get(c.status, "")), f"{c.done}/{c.n}",
               fmt_duration(c.eta_s(r)) if c.status in ("running", "pending") else ""]
        if wide:
            row.append(num(c.forecast_tok_s))
        row += [num(c.measured_tok_s), "" if c.error_pct is None else f"{c.error_pct:+.1f}%"]
        t.add_row(*row)
    return Group(head, t)


def routing_summary(a: dict[str, Any]) -> Group:
    """The routing table's decisions, one line per prompt set and concurrency, and the net-negative points."""
    parts: list[Any] = [Text("routing table (median per-request tok/s; Δ vs runner-up, 95% CI)", style="bold")]
    for r in a.get("routing") or []:
        style = "green" if r.get("winner") else "yellow"
        parts.append(Text.assemble((f"{r['prompt_set']} c{r['concurrency']}: ", "bold"), (r["decision"], style)))
        if r.get("disagreement"):
            parts.append(Text(f"  ! {r['disagreement']}", style="yellow"))
    nn = [cv for cv in a.get("curves") or [] if cv.get("net_negative")]
    if nn:
        parts.append(Text("net-negative against no-spec (aggregate tok/s)", style="bold"))
        for cv in nn:
            parts.append(Text(f"{cv['arm']} on {cv['prompt_set']}: {cv['net_negative']['statement']}"))
    for n in a.get("notes") or []:
        parts.append(Text(n, style="dim"))
    parts.append(Text(f"every figure: serving-console report {a['campaign']['dir']}", style="dim"))
    return Group(*parts)


#: a plan past either of these asks before it starts (the reference plan: 2.4 node-hours, ≈ $82 on its node)
EXPENSIVE_NODE_HOURS = 1.0
EXPENSIVE_USD = 25.0


def expensive(est: Estimate) -> bool:
    return est.node_s / 3600 > EXPENSIVE_NODE_HOURS or (est.usd or 0.0) > EXPENSIVE_USD


def smallest_plan(files: list[Path]) -> Path | None:
    """The plan the screen opens on: the one of fewest cells (a plan that does not parse counts as the largest),
    so the expensive one is never a keystroke away by default."""
    def size(f: Path) -> tuple[int, str]:
        try:
            return len(load_plan(f).cells()), f.stem
        except ValueError:
            return 1 << 30, f.stem
    return min(files, key=size) if files else None


class CampaignConfirm(ConfirmScreen):
    """Starting a campaign past EXPENSIVE_NODE_HOURS or EXPENSIVE_USD: its size, its modelled node time and cost
    beside this machine's wall time, then y to start."""

    VERB = "start"

    def __init__(self, plan: Plan, est: Estimate, sim: bool) -> None:
        super().__init__()
        self.plan, self.est, self.sim = plan, est, sim

    def heading(self) -> str:
        usd = f" ≈ ${self.est.usd:,.2f}" if self.est.usd is not None else ""
        return (f"[b]Start campaign {self.plan.name}?[/b] {len(self.plan.cells())} cells, "
                f"{self.est.node_s / 3600:.2f} node-hours{' of the modelled node' if self.sim else ''}{usd}")

    def details(self) -> Text:
        where = (f"on the twin: {fmt_duration(self.est.wall_s)} of this machine's wall time"
                 if self.sim else f"{fmt_duration(self.est.wall_s)} of wall time on the node")
        return Text(f"{where}; {self.plan.launches()} launches. A smaller plan (smoke) checks the machinery first.",
                    style="dim")


class SweepScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "back (the campaign goes on)"),
                Binding("ctrl+r", "start", "start campaign")]
    DEFAULT_CSS = """
    SweepScreen #sweep-top { height: 1; padding: 0 1; }
    SweepScreen #sweep-top Label { width: auto; padding: 0 1 0 0; }
    SweepScreen #plan-select { width: 1fr; }
    SweepScreen VerticalScroll { height: 1fr; padding: 0 1; }
    SweepScreen #sweep-plan { height: auto; }
    SweepScreen #sweep-progress { height: auto; }
    SweepScreen #sweep-result { height: auto; }
    """

    class Loaded(Message, bubble=False):
        def __init__(self, path: Path, lines: list[str], ok: bool) -> None:
            super().__init__()
            self.path, self.lines, self.ok = path, lines, ok

    class Finished(Message, bubble=False):
        def __init__(self, analysis: dict[str, Any] | None, error: str | None) -> None:
            super().__init__()
            self.analysis, self.error = analysis, error

    def __init__(self, sessions_root: Path, *, plans: Path | None = None, sim: bool = True,
                 time_scale: float | None = None, sim_args: list[str] | None = None,
                 choose: str | None = None) -> None:
        super().__init__()
        self.sessions_root = Path(sessions_root)
        self.plans_dir = Path(plans) if plans else None  # None: every plan along the search path (core/places.py)
        self.sim, self.time_scale = sim, time_scale
        self.sim_args = list(sim_args or []) or (twin_args((), time_scale) if sim else [])
        self.files = plan_files(self.plans_dir)
        self.choice = next((f for f in self.files if f.stem == choose), None) or smallest_plan(self.files)
        self.plan: Plan | None = None
        self.est: Estimate | None = None
        self.lines: list[str] = []
        self.ok = False
        self.loaded = False
        self.runner: CampaignRunner | None = None
        self.analysis: dict[str, Any] | None = None
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="sweep-top"):
            yield Label("[b]campaign[/b]")
            opts = [(f.stem, str(f)) for f in self.files]
            yield Select(opts, value=str(self.choice) if self.choice else Select.BLANK, allow_blank=not opts,
                         id="plan-select", compact=True)
        with VerticalScroll():
            yield Static(Text("no plans in " + (str(self.plans_dir) if self.plans_dir else "campaigns/ of the profile "
                                                "search path (serving-console --version)"), style="yellow")
                         if not self.files else
                         Text("reading the plan…", style="dim"), id="sweep-plan")
            yield Static("", id="sweep-progress")
            yield Static("", id="sweep-result")
        yield ConsoleFooter()

    def on_mount(self) -> None:
        if self.choice is not None:
            self._load(self.choice)
        self.set_interval(0.25, self._tick)

    def on_select_changed(self, ev: Select.Changed) -> None:
        if ev.select.id == "plan-select" and ev.value not in (None, Select.BLANK) and self.runner is None:
            self.choice = Path(str(ev.value))
            self._load(self.choice)

    @work(thread=True, exclusive=True, group="sweep-plan")
    def _load(self, path: Path) -> None:
        try:
            plan = load_plan(path)
            probs = refusals(plan, sim=self.sim, sessions_root=self.sessions_root)
            if probs:
                self.app.call_from_thread(self._loaded, path, None, None, probs)
                return
            est = estimate(plan, sim=self.sim, time_scale=self.time_scale, sessions_root=self.sessions_root)
        except ValueError as e:  # a plan that does not parse: the same lines as headless
            self.app.call_from_thread(self._loaded, path, None, None, describe(e))
            return
        self.app.call_from_thread(self._loaded, path, plan, est, None)

    def _loaded(self, path: Path, plan: Plan | None, est: Estimate | None, problems: list[str] | None) -> None:
        if not self.is_attached:
            return
        self.plan, self.est, self.ok, self.loaded = plan, est, problems is None, True
        body = self.query_one("#sweep-plan", Static)
        if problems is not None:
            self.lines = list(problems)
            body.update(Text("\n".join(self.lines), style="bold red"))
        else:
            assert plan is not None and est is not None  # no problems: _load passed both
            self.lines = plan_lines(plan, est, sim=self.sim)
            body.update(Group(Text("\n".join(self.lines)),
                              Text("ctrl+r starts the campaign (its own engines; the dashboard's server goes on)",
                                   style="dim")))
        self.post_message(self.Loaded(path, self.lines, self.ok))

    def action_start(self) -> None:
        if not self.ok or self.plan is None or self.runner is not None:
            if not self.ok and self.loaded:
                self.notify("this plan cannot run: " + (self.lines[0] if self.lines else "see above"),
                            severity="error")
            return
        if self.est is not None and expensive(self.est):
            self.app.push_screen(CampaignConfirm(self.plan, self.est, self.sim),
                                 lambda ok: self._start() if ok else None)
            return
        self._start()

    def _start(self) -> None:
        if self.plan is None or self.runner is not None:
            return
        cdir = create_campaign(self.plan, self.sessions_root, sim=self.sim, time_scale=self.time_scale,
                               sim_args=self.sim_args)
        self.runner = CampaignRunner(self.plan, cdir, sim=self.sim, sim_args=self.sim_args,
                                     sessions_root=self.sessions_root, estimate=self.est)
        self.query_one("#sweep-plan", Static).update(Text("\n".join(self.lines + [f"campaign folder: {cdir}"])))
        self._run(self.runner)

    @work(thread=True, exclusive=True, group="sweep-run")
    def _run(self, runner: CampaignRunner) -> None:
        from console.core.campaign.analysis import analyse
        err = None
        try:
            asyncio.run(runner.run())
        except Exception as e:  # noqa: BLE001 — shown as its one line, the campaign is kept for --resume
            err = " ".join(describe(e))
        try:
            a = analyse(runner.dir)
        except (ValueError, OSError) as e:
            a, err = None, err or str(e)
        self.app.call_from_thread(self._finished, a, err)

    def _finished(self, a: dict[str, Any] | None, err: str | None) -> None:
        if not self.is_attached:
            return
        self.analysis, self.error = a, err
        self._tick()
        res = self.query_one("#sweep-result", Static)
        parts: list[Any] = []
        if err:
            parts.append(Text(err + f" — serving-console sweep --resume {self.runner.dir} continues it"
                              if self.runner else err, style="bold red"))
        if a is not None:
            parts.append(routing_summary(a))
        res.update(Group(*parts))
        self.post_message(self.Finished(a, err))

    def _tick(self) -> None:
        if self.runner is None or not self.is_attached:
            return
        self.query_one("#sweep-progress", Static).update(progress_table(self.runner.progress, self.app.size.width))
