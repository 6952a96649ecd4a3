"""The dashboard: the console's main screen (server, throughput, acceptance, KV, GPU and cell panels, the arms strip
and the status line), re-rendered from the runtime's state at the app's fixed rate, and every key that acts on the
running arm (run a cell, anchor, flip, pair, probe, chat, sessions, forecast, log, maximize). The app (app.py) owns
the runtime, the I/O thread and the messages; this screen lays out and acts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Header, Static

from console.core.measure.plots import sparkline
from console.core.run import events as E
from console.core.run.cell import CellProtocol
from console.ui import render
from console.ui.messages import ChatArmsReady, Command, PairDone, ProbeDone
from console.ui.screens.chat import ChatScreen
from console.ui.screens.flip import FlipScreen
from console.ui.screens.forecast import ForecastScreen
from console.ui.screens.logs import LogScreen
from console.ui.screens.pair import PairScreen, PairState
from console.ui.screens.run_cell import RunCellScreen
from console.ui.screens.sessions import SessionsScreen
from console.ui.widgets.footer import NARROW_BELOW, ConsoleFooter

if TYPE_CHECKING:
    from console.core.run.interface import ConsoleRuntime
    from console.core.run.state import RuntimeState


class DashboardHost(Protocol):
    """What the dashboard asks of the app that shows it (`ConsoleApp`): the runtime, the I/O thread's `submit`, the
    pair in flight, the last cell protocol, the app's clock and its refresh."""

    runtime: ConsoleRuntime | None
    pair_state: PairState
    last_protocol: CellProtocol

    def submit(self, what: Command | str, coro: Any, done_message: Any = None) -> Any: ...

    def clock(self) -> float: ...

    def refresh_state(self) -> None: ...

BUSY_STREAMS = 16
"""Requests in flight from which the dashboard repaints at 2 Hz instead of 4 (timing fidelity, tests/bench)."""

SHORT_BELOW = 36
"""Terminal heights below this get the compact dashboard (80×24): every panel in a few lines, so status, live
tok/s, τ with the acceptance curve, and the cell's progress and median are all on screen without a key."""

FOOTER_OPTIONAL = frozenset({"forecast", "logs"})
"""Under `NARROW_BELOW` columns forecast (d) and log (l) leave the footer (their keys still work; help lists them)."""

DEPTH = Binding.Group("depth", compact=True)

PANEL_TIPS = {
    "server": "1 maximizes · the arm the server actually runs, read back from /server_info",
    "throughput": "2 maximizes · rolling tok/s = Δ(tokens of all streams)/Δt over 5 s; per request "
                  "tok/s = (completion_tokens − first-chunk tokens)/(t_last − t_first)",
    "acceptance": "3 maximizes · τ = 1 + Σk·h[k]/Σh (bonus included, prefill excluded); p_i = Σ_{k≥i} h[k]/Σh from "
                  "the pooled spec_correct_drafts_histogram of finished requests",
    "kv": "4 maximizes · capacity = max_total_num_tokens (/server_info); usage from /metrics token_usage, "
          "num_used_tokens",
    "gpu": "5 maximizes · NVML device memory, util, power, foreign processes; the engine's own memory breakdown "
           "from /server_info internal_states[0].memory_usage",
    "cell": "6 maximizes · cell median = numpy percentile 50 (linear) of per-request tok/s; flagged rows excluded",
}


class Panel(Static):
    """A bordered panel whose body is re-rendered from state on every tick."""

    ALLOW_MAXIMIZE = True
    DEFAULT_CSS = """
    Panel { border: round $primary 60%; padding: 0 1; height: auto; }
    """

    def __init__(self, title: str, **kw: Any) -> None:
        super().__init__("", **kw)
        self.border_title = title

    def on_resize(self) -> None:
        """A panel's body is fitted to its size, known only after a layout: re-render on the next refresh."""
        screen = self.screen
        if isinstance(screen, DashboardScreen):
            screen.forget_panel(f"#{self.id}")


def _alarms_key(st: RuntimeState) -> object:
    """What the alarms shown depend on: each alarm's state and what it saw."""
    return tuple((a.id, a.saw, a.acked, a.active) for a in st.alarms)


def _server_key(s) -> object:
    """What the panels show of /server_info (its object is replaced on every refresh, its content rarely)."""
    if s is None:
        return None
    mu = s.memory
    return (s.version, s.arm.label(), s.arm.draft_model, s.kv_cache_dtype, s.mem_fraction_static,
            s.max_total_num_tokens, s.tp_size, s.dp_size, s.served_model_name, s.enable_metrics,
            None if s.avg_spec_accept_length is None else round(s.avg_spec_accept_length, 2),
            None if mu is None else (mu.weight_gb, mu.kvcache_gb, mu.graph_total_gb))


class DashboardScreen(Screen[None]):
    BINDINGS = [
        Binding("r", "run_cell", "run"),
        Binding("a", "run_anchor", "anchor", show=False),
        Binding("s", "stop_cell", "stop cell", show=False),
        Binding("minus", "flip('depth-')", "depth−", group=DEPTH),
        Binding("plus", "flip('depth+')", "depth+", group=DEPTH),
        Binding("left_square_bracket", "flip('depth-')", "depth−", show=False),
        Binding("right_square_bracket", "flip('depth+')", "depth+", show=False),
        Binding("f", "flip('family')", "drafter"),
        Binding("k", "flip('kv')", "KV"),
        Binding("p", "pair", "pair"),
        Binding("v", "probe", "probe", show=False),
        Binding("c", "chat", "chat"),
        Binding("C", "chat_both", "chat A|B", show=False),
        Binding("b", "sessions", "sessions"),
        Binding("d", "forecast", "forecast"),
        Binding("d", "forecast('key')", "forecast", show=False),  # d when the footer is too narrow to show it
        Binding("l", "logs", "log"),
        Binding("l", "logs('key')", "log", show=False),
        Binding("1", "maximize_panel(\'server\')", "server", show=False),
        Binding("2", "maximize_panel(\'throughput\')", "throughput", show=False),
        Binding("3", "maximize_panel(\'acceptance\')", "acceptance", show=False),
        Binding("4", "maximize_panel(\'kv\')", "KV", show=False),
        Binding("5", "maximize_panel(\'gpu\')", "GPU", show=False),
        Binding("6", "maximize_panel(\'cell\')", "cell", show=False),
        Binding("escape", "restore", "restore", show=False),
        Binding("exclamation_mark", "ack_alarms", "ack alarm"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._panel_keys: dict[str, object] = {}
        self._launch_view: bool | None = None
        self._last_sig: object = None
        self._ticks = 0

    @property
    def console(self) -> DashboardHost:
        return cast(DashboardHost, self.app)

    @property
    def runtime(self) -> ConsoleRuntime | None:
        return self.console.runtime

    def submit(self, *args: Any, **kw: Any) -> Any:
        return self.console.submit(*args, **kw)

    # --- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with VerticalScroll(id="startup"):
            yield Static("", id="startup-body")
        with VerticalScroll(id="dashboard"):
            with Horizontal(id="row-top"):
                yield Panel("server", id="server")
                yield Panel("throughput", id="throughput")
            with Horizontal(id="row-mid"):
                yield Panel("acceptance per draft position", id="acceptance")
                yield Panel("KV cache", id="kv")
                yield Panel("GPU / memory", id="gpu")
            yield Static("", id="arms")
            yield Panel("cell", id="cell")
        yield Static("", id="statusbar")
        yield ConsoleFooter(id="dashboard-footer")

    def on_mount(self) -> None:
        for pid, tip in PANEL_TIPS.items():
            self.query_one(f"#{pid}").tooltip = tip
        self.console.refresh_state()  # the first frame shows the state (the app mounts before this screen is composed)

    def on_screen_resume(self) -> None:
        self.forget_panels()  # back from another screen: show the state as it is now

    def on_resize(self) -> None:
        self.forget_panels()
        self.app.refresh_bindings()  # d and l leave or rejoin the footer (check_action)

    def forget_panel(self, selector: str) -> None:
        self._panel_keys.pop(selector, None)
        self._last_sig = None
        self.app.call_after_refresh(self.console.refresh_state)

    def forget_panels(self) -> None:
        """Every panel re-renders on the next tick (a resize, a maximized panel)."""
        self._panel_keys.clear()
        self._last_sig = None
        self.app.call_after_refresh(self.console.refresh_state)

    # --- refresh and actions ---------------------------------------------------------------------

    @property
    def compact(self) -> bool:
        """The 80×24 dashboard: panels render their few-line forms (a maximized panel keeps its full form)."""
        return self.size.height < SHORT_BELOW

    def _update(self, selector: str, key: object, render_fn: Callable[[], Any]) -> None:
        """Re-render a panel only when what it shows changed: an update re-lays out the screen, which would
        otherwise cost CPU (and I/O-thread latency, through the GIL) four times a second for nothing."""
        if self._panel_keys.get(selector) == key:
            return
        self._panel_keys[selector] = key
        self.query_one(selector, Static).update(render_fn())

    def refresh_panels(self, st: RuntimeState) -> None:
        """Re-render the panels whose content changed (the app calls it at its fixed rate)."""
        try:
            self._render_panels(st)
        except NoMatches:  # not composed yet (or being torn down): nothing shown, so nothing to remember
            self._last_sig = None
            self._panel_keys.clear()
            raise

    def _render_panels(self, st: RuntimeState) -> None:
        now = self.console.clock()
        c = st.cell or (st.cells_done[-1] if st.cells_done else None)
        sig = (st.phase, id(st.live), id(st.metrics), id(st.gpu), id(st.server), st.error, len(st.arms),
               None if c is None else (id(c), c.done, c.status), len(st.cells_done), st.relaunching,
               id(st.startup), st.startup_elapsed_s, len(st.preflight),
               int(now - st.ready_at) // 60 if st.ready_at is not None else None, self.size,
               self._layout_sig(), _alarms_key(st))
        if sig == self._last_sig:
            return  # nothing the dashboard shows has changed since the last tick
        self._ticks += 1
        if st.live is not None and len(st.live.running) >= BUSY_STREAMS and self._ticks % 2:
            return  # many streams: repaint at 2 Hz so frames compete less with the I/O thread's timestamps
        self._last_sig = sig
        if st.mode != getattr(self, "_bindings_mode", None):  # attached: the relaunch keys leave the footer
            self._bindings_mode = st.mode
            self.app.refresh_bindings()
        up = int(now - st.ready_at) // 60 if st.ready_at is not None else None
        srv = _server_key(st.server)
        self._update("#statusbar", (st.phase, st.profile_name, srv, st.session_dir, up, _alarms_key(st)),
                     lambda: render.status_line(st, now))
        launching = st.phase in ("idle", "launching") or (st.phase in ("dead", "error") and st.server is None)
        if self._launch_view != launching:
            self._launch_view = launching
            self.query_one("#startup").display = launching
            self.query_one("#dashboard").display = not launching
            self._panel_keys.clear()
        if launching:
            p = st.startup
            key = (st.phase, st.error, len(st.preflight), round(st.startup_elapsed_s or 0, 1), st.previous_startup_s,
                   None if p is None else (p.lines, tuple((x.status, x.detail) for x in p.phases), p.error_line))
            self._update("#startup-body", key, lambda: render.startup_panel(st))
            return

        def inner(sel: str, fallback: int) -> int:
            w = self.query_one(sel).content_size.width
            return w if w > 0 else fallback

        live, m, g = st.live, st.metrics, st.gpu
        w_thr, w_acc, w_kv = inner("#throughput", 40), inner("#acceptance", 40), inner("#kv", 30)
        spark_w = max(8, w_thr - 1)
        maxed = self.maximized

        def compact(pid: str) -> bool:
            return self.compact and (maxed is None or maxed.id != pid)

        cs, ct, ca, ck, cg, cc = (compact(p) for p in ("server", "throughput", "acceptance", "kv", "gpu", "cell"))
        trail = tuple((r.steps, r.draft_tokens, r.source) for r in st.spec_trail[-24:])
        self._update("#server", (cs, st.phase, st.error, srv, st.simulated, st.sim_time_scale, st.profile_name,
                                 st.base_url, len(st.workers), trail), lambda: render.server_panel(st, compact=cs))
        thr_key = (ct, w_thr, None if live is None else (
            round(live.rolling_tok_s or 0.0, 1), round(live.recent_median_tok_s or 0.0, 1),
            tuple((r.request_id, r.tokens, r.tok_s is None) for r in live.running[:6]), len(live.running),
            sparkline(live.rolling_history, spark_w)),
            None if m is None else m.gen_throughput)
        self._update("#throughput", thr_key, lambda: render.throughput_panel(st, spark_width=spark_w, compact=ct))
        acc_key = (ca, w_acc, srv, _alarms_key(st), None if live is None else (
            live.recent_n, live.recent_tau, live.recent_positions, sparkline(live.tau_history, 24)))
        self._update("#acceptance", acc_key, lambda: render.acceptance_panel(st, width=max(6, w_acc - 16),
                                                                             compact=ca))
        kv_key = (ck, w_kv, srv, st.metrics_error, None if m is None else (
            m.token_usage, m.num_used_tokens, m.num_running_reqs, m.num_queue_reqs, m.max_total_num_tokens,
            m.num_retracted_reqs, m.num_retracted_requests_total))
        self._update("#kv", kv_key, lambda: render.kv_panel(st, width=max(3, w_kv - (12 if ck else 11)),
                                                            compact=ck))
        gpu_key = (cg, srv, None if g is None else (g.state, g.message, tuple(
            (d.index, round(d.mem_used_gib or 0, 1), d.util_pct, round(d.power_w or 0), d.temp_c,
             tuple((p.pid, round(p.used_gib or 0, 1), p.foreign) for p in d.processes)) for d in g.gpus)))
        self._update("#gpu", gpu_key, lambda: render.gpu_panel(st, compact=cg))
        w_arms = inner("#arms", max(20, self.size.width - 2))
        self._update("#arms", (w_arms, tuple((a.profile, a.anchor_median_tok_s, a.anchor_tau, a.kv_capacity_tokens,
                                              a.anchor_pct, a.unanchored) for a in st.arms)),
                     lambda: render.arms_strip(st, w_arms))
        last = st.cells_done[-1] if st.cells_done else None
        shown = st.cell if st.cell and st.cell.running else None
        c = shown or last
        cell_h = self.query_one("#cell").content_size.height
        w_cell = inner("#cell", 60)
        srv = st.server
        spec = None if srv is None else srv.arm.speculative
        cell_key = (cc, cell_h, w_cell, spec, None if c is None else (id(c), c.done, c.status, len(c.rows),
                                                                     id(c.summary), c.forecast_cmp is not None))
        self._update("#cell", cell_key, lambda: render.cell_panel(
            shown, last, dist_width=w_cell - 20, height=cell_h if cell_h > 0 else None, width=w_cell, compact=cc,
            speculative=spec))

    def _layout_sig(self) -> object:
        """What the panels' fitted forms depend on besides the state: the cell's inner size (known only after a
        layout, so a change re-renders it on the next tick) and which panel is maximized."""
        try:
            cell = self.query_one("#cell").content_size
        except NoMatches:
            return None
        maxed = self.maximized
        return cell, None if maxed is None else maxed.id

    def action_sessions(self) -> None:
        """Browse recorded sessions: cells, pairs, reports; compare two cells of the same workload."""
        rt = self.runtime
        if rt is not None:
            self.app.push_screen(SessionsScreen(rt.sessions_root))

    def action_forecast(self, _via: str = "") -> None:
        """Forecast other depths from the latest measured cell of the running arm."""
        rt = self.runtime
        if rt is None:
            return
        base = rt.forecast_base()
        if base is None:
            self.notify("no measured cell with per-position acceptance on this arm yet (r runs one)",
                        severity="warning")
            return
        assert base.cell_dir is not None  # forecast_base picks only cells with a directory
        self.app.push_screen(ForecastScreen(Path(base.cell_dir)))

    def action_chat(self) -> None:
        """Chat with the served model (openai SDK); every answer carries TTFT, tok/s, τ and p_i."""
        if self._can_chat():
            self.app.push_screen(ChatScreen.for_runtime(self.runtime, self.submit))

    def action_chat_both(self) -> None:
        """Chat with both arms: A is this server, B another server (second node, router) or this one with other
        sampling; one message goes to both and the answers stream side by side, each with its own stats."""
        if not self._can_chat():
            return
        from console.core.run.chat import ChatSession, ChatUnavailable
        from console.ui.screens.chat import BothArmsScreen
        rt = self.runtime
        assert rt is not None  # _can_chat checked it
        try:
            a = ChatSession.on_server(rt.chat_target())
        except ChatUnavailable as e:
            self.notify(str(e), severity="warning")
            return

        def chosen(v: dict | None) -> None:
            if v is None:
                return
            kw: dict = {"system_prompt": a.system_prompt, "max_tokens": a.max_tokens,
                        "temperature": v["temperature"] if v["temperature"] is not None else a.temperature}
            if v["url"] is None:  # this server, other sampling: nothing to look up
                a.label = f"{a.spec_label or 'this server'} · T {a.temperature:g}"
                b = ChatSession.on_server(rt.chat_target(),
                                          label=f"{a.spec_label or 'this server'} · T {kw['temperature']:g}", **kw)
                self.app.push_screen(ChatScreen([a, b], self.submit, rt.state.session_dir, close_on_exit=True))
                return
            key = os.environ.get(v["api_key_env"]) if v["api_key_env"] else None
            if v["api_key_env"] and key is None:
                self.notify(f"B API key: ${v['api_key_env']} is unset; export it and retry", severity="error")
                return

            async def make() -> list:
                return [a, await ChatSession.for_url(v["url"], key, **kw)]

            self.submit(Command.CHAT_BOTH, make(), lambda sessions: ChatArmsReady(Command.CHAT_BOTH, sessions))

        self.app.push_screen(BothArmsScreen(a.label, a.temperature), chosen)

    def _can_chat(self) -> bool:
        if self.runtime is None or self.runtime.state.phase not in ("ready", "attached"):
            self.notify("no server to chat with yet", severity="warning")
            return False
        return True

    def action_maximize_panel(self, panel: str) -> None:
        """Show one panel full screen (escape restores)."""
        if self.query_one("#dashboard").display:
            self.maximize(self.query_one(f"#{panel}"))
            self.forget_panels()

    def action_restore(self) -> None:
        if self.maximized is not None:
            self.minimize()
            self.forget_panels()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The dashboard's keys act on the dashboard only: under another screen (a modal box included) they are off
        and out of the footer. Forecast and log leave a narrow footer."""
        if self.app.screen is not self:
            return False
        if action in FOOTER_OPTIONAL and not parameters and self.size.width < NARROW_BELOW:
            return False  # out of the narrow footer; the same key's hidden binding runs the action
        if action == "flip":  # a relaunch: not offered on a server the console did not launch (attached)
            rt = self.runtime
            return not (rt is not None and rt.state.mode == "attach")
        if action == "ack_alarms":  # in the footer only while an alarm waits for its acknowledgement
            rt = self.runtime
            return rt is not None and any(a.active and not a.acked for a in rt.state.alarms)
        return True

    def action_ack_alarms(self) -> None:
        """Acknowledge every active acceptance alarm: it stays in the session's record and the reports, quiet."""
        rt = self.runtime
        if rt is None:
            return
        n = rt.acknowledge_alarms()
        self.notify(f"{n} alarm(s) acknowledged (kept in alarms.jsonl and the report)" if n
                    else "no alarm to acknowledge")
        self.app.refresh_bindings()

    def _can_run(self) -> bool:
        rt = self.runtime
        if rt is None or rt.state.phase not in ("ready", "attached"):
            self.notify("no server to measure yet", severity="warning")
            return False
        if rt.state.cell is not None and rt.state.cell.running:
            self.notify("a cell is already running (s stops it)", severity="warning")
            return False
        return True

    def action_run_cell(self) -> None:
        """Open the run-cell screen (set, n, max tokens, temperature, concurrency, …)."""
        if self._can_run():
            self.app.push_screen(RunCellScreen(self.console.last_protocol), self._run_protocol)

    def action_run_anchor(self) -> None:
        """Run the anchor (health) cell on the current arm; its median lands in the arms strip."""
        if self._can_run() and self.runtime is not None:
            self.submit(Command.ANCHOR, self.runtime.run_anchor())
            self.notify("running the anchor: 8 pinned short prompts, 128 output tokens")

    def _run_protocol(self, proto: CellProtocol | None) -> None:
        if proto is None or self.runtime is None:
            return
        self.console.last_protocol = proto
        self.submit(Command.CELL, self.runtime.run_cell(proto))
        self.notify(f"running {proto.prompt_set}: n={proto.n}, {proto.max_tokens} tokens, "
                    f"T={proto.temperature}, concurrency {proto.concurrency}", timeout=3)

    def _may_relaunch(self, no_profile: str, verb: str, gerund: str) -> bool:
        """Whether an action that relaunches the engine may start now; if not, say why in one toast."""
        rt = self.runtime
        if rt is None or rt.profile is None or rt.state.mode != "launch":
            self.notify(no_profile, severity="warning")
        elif rt.state.phase != "ready" or rt.state.relaunching:
            self.notify(f"cannot {verb} while the engine is {rt.state.phase}", severity="warning")
        elif rt.state.cell is not None and rt.state.cell.running:
            self.notify(f"a cell is running: stop it (s) before {gerund}", severity="warning")
        else:
            return True
        return False

    def action_flip(self, kind: str) -> None:
        """Derive the flipped arm (core), show its diff and forecast, relaunch on confirmation."""
        from console.core.launch import flips
        rt = self.runtime
        if not self._may_relaunch("attached to a server the console did not launch: flips need a profile (--profile)",
                                  "flip", "flipping"):
            return
        assert rt is not None and rt.profile is not None  # _may_relaunch checked both
        try:
            if kind in ("depth+", "depth-"):
                flip = flips.flip_depth(rt.profile, +1 if kind == "depth+" else -1)
            elif kind == "family":
                flip = flips.flip_family(rt.profile)
            else:
                flip = flips.flip_kv(rt.profile)
        except (flips.FlipError, ValueError) as e:
            self.notify(str(e), title="no flip", severity="warning")
            return
        try:
            fc, note = rt.forecast_for(flip)
        except ValueError as e:
            fc, note = None, str(e)

        base_set = None
        if fc is not None and fc.cell_dir:
            base_set = next((c.prompt_set for c in rt.state.cells_done if c.cell_dir == fc.cell_dir), None)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.submit(Command.FLIP, rt.relaunch(flip.after, forecast=fc, forecast_prompt_set=base_set))
                self.notify(f"relaunching as {flip.after.name}")

        self.app.push_screen(FlipScreen(flip, fc, note, rt.last_startup_s()), confirmed)

    def action_probe(self) -> None:
        """The verify-tax probe on the running arm: plan it (core), confirm, run the legs, relaunch this arm."""
        from console.core.run.probe import ProbeRefused, plan_probe, probe_cost, run_probe
        from console.ui.screens.probe import ProbeScreen
        rt = self.runtime
        if not self._may_relaunch("the probe relaunches the engine at each width: it needs a launched profile "
                                  "(--profile)", "probe", "probing"):
            return
        assert rt is not None and rt.profile is not None  # _may_relaunch checked both
        base = rt.profile
        try:
            plan = plan_probe(base, server_args=rt.state.server.raw if rt.state.server is not None else None)
        except ProbeRefused as e:
            self.notify(str(e), title="no probe", severity="warning", timeout=12)
            return
        except ValueError as e:
            self.notify(str(e), title="no probe", severity="error", timeout=12)
            return

        def say(text: str) -> None:
            self.app.call_from_thread(self.notify, text, title="verify-tax probe", timeout=4)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.submit(Command.PROBE, run_probe(rt, plan, say=say, restore=base),
                            lambda res: ProbeDone(Command.PROBE, res))
                self.notify(f"probing {base.name}: {len(plan.legs)} legs", timeout=4)

        self.app.push_screen(ProbeScreen(plan, probe_cost(plan, rt.state)), confirmed)

    def action_stop_cell(self) -> None:
        if self.runtime is not None:
            self.runtime.request_stop_cell()
            self.notify("stopping the cell after the requests in flight")

    def action_pair(self) -> None:
        """Open the pair recorder (it shows the pair in flight or the last result)."""
        rt = self.runtime
        if rt is None:
            return
        a = rt.profile if rt.state.mode == "launch" else None
        self.app.push_screen(PairScreen(a, self.console.pair_state, self._start_pair, self.console.last_protocol))

    def _start_pair(self, spec) -> None:
        from console.core.run.pair import run_pair
        rt = self.runtime
        if rt is None or self.console.pair_state.running:
            return
        if rt.state.cell is not None and rt.state.cell.running:
            self.notify("a cell is running: stop it (s) before recording a pair", severity="warning")
            return
        self.console.pair_state = PairState(running=True, spec_text=f"pair {spec.a.name} (A) vs {spec.b.name} (B): "
                                                                    f"order {spec.order}, {spec.protocol.n} × "
                                                                    f"{spec.protocol.prompt_set} per leg")
        if isinstance(self.app.screen, PairScreen):
            self.app.screen.state = self.console.pair_state

        def say(text: str) -> None:
            rt.emit(E.PairStatus(text))

        self.submit(Command.PAIR, run_pair(rt, spec, say=say),  # type: ignore[arg-type]  # a Runtime in the app; UI tests replace run_pair
                    lambda res: PairDone(Command.PAIR, res))

    def action_logs(self, _via: str = "") -> None:
        self.app.push_screen(LogScreen(self.runtime))

