"""The Textual app. It reads core state at a fixed rate (4 Hz) and sends commands to the runtime, which
runs in its own I/O thread; it never parses HTTP or logs itself."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import os
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Header, Static

from console.core.exits import EXIT_ENGINE, EXIT_OK
from console.core.measure.plots import sparkline
from console.core.run import events as E
from console.core.run.cell import ANCHOR_PROTOCOL, CellProtocol
from console.core.run.events import Event
from console.core.run.protocol import ConsoleRuntime
from console.ui import render
from console.ui.iothread import IoThread
from console.ui.messages import CommandDone, CommandFailed, RuntimeEvent
from console.ui.screens.chat import ChatScreen
from console.ui.screens.flip import FlipScreen
from console.ui.screens.forecast import ForecastScreen
from console.ui.screens.help import HelpScreen
from console.ui.screens.logs import LogScreen
from console.ui.screens.pair import PairScreen, PairState
from console.ui.screens.run_cell import RunCellScreen
from console.ui.screens.sessions import SessionsScreen
from console.ui.widgets.footer import NARROW_BELOW as FOOTER_NARROW_BELOW, ConsoleFooter

RuntimeFactory = Callable[[Callable[[Event], None]], ConsoleRuntime]

BUSY_STREAMS = 16
"""Requests in flight from which the dashboard repaints at 2 Hz instead of 4 (timing fidelity, tests/bench)."""

SHORT_BELOW = 36
"""Terminal heights below this get the compact dashboard (80×24): every panel in a few lines, so status, live
tok/s, τ with the acceptance curve, and the cell's progress and median are all on screen without a key."""

NARROW_BELOW = FOOTER_NARROW_BELOW
"""Terminal widths below this keep the footer to one line: forecast (d), log (l) and the palette key (ctrl+p)
leave it (their keys still work, and help lists them)."""

FOOTER_OPTIONAL = frozenset({"forecast", "logs"})

TOAST_WIDTH, TOAST_CHROME = 60, 3
"""Textual's toast: 60 columns, at most half the screen; its left border and padding take 3."""

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

HEALTH_CELL = ANCHOR_PROTOCOL


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
        app = self.app
        if isinstance(app, ConsoleApp):
            app._panel_keys.pop(f"#{self.id}", None)
            app._last_sig = None
            app.call_after_refresh(app.refresh_state)


class ConsoleApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "serving-console"
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
        Binding("w", "sweep", "sweep", show=False),
        Binding("c", "chat", "chat"),
        Binding("C", "chat_both", "chat A|B", show=False),
        Binding("b", "sessions", "sessions"),
        Binding("d", "forecast", "forecast"),
        Binding("d", "forecast('key')", "forecast", show=False),  # d when the footer is too narrow to show it
        Binding("l", "logs", "log"),
        Binding("l", "logs('key')", "log", show=False),
        Binding("question_mark", "help", "help"),
        Binding("1", "maximize('server')", "server", show=False),
        Binding("2", "maximize('throughput')", "throughput", show=False),
        Binding("3", "maximize('acceptance')", "acceptance", show=False),
        Binding("4", "maximize('kv')", "KV", show=False),
        Binding("5", "maximize('gpu')", "GPU", show=False),
        Binding("6", "maximize('cell')", "cell", show=False),
        Binding("escape", "restore", "restore", show=False),
        Binding("ctrl+t", "toggle_theme", "light/dark", show=False),
        Binding("q", "quit_console", "quit"),
        Binding("ctrl+q", "quit_console", "quit", show=False, priority=True),
    ]
    REFRESH_S = 0.25
    VERTICAL_BREAKPOINTS = [(0, "-short"), (SHORT_BELOW, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]

    def __init__(self, runtime_factory: RuntimeFactory, *, io: IoThread | None = None, start_runtime: bool = True,
                 clock: Callable[[], float] = time.monotonic, auto_anchor: bool = True) -> None:
        super().__init__()
        self._factory = runtime_factory
        self._io = io
        self._start_runtime = start_runtime
        self.auto_anchor = auto_anchor
        """Run the anchor cell once the first launched arm is ready (docs/measurement.md#cells-anchors-pairs: every arm
        is anchored)."""
        self._clock = clock
        self.runtime: ConsoleRuntime | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._quitting = False
        self._panel_keys: dict[str, object] = {}
        self._launch_view: bool | None = None
        self._last_sig: object = None
        self._ticks = 0
        self.last_protocol: CellProtocol = HEALTH_CELL
        self.pair_state = PairState()
        self._start_failure: tuple[int, str] | None = None
        self.failure: str | None = None
        """Set on exit: the line that says why the console stopped unsuccessfully (the CLI prints it)."""

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

    # --- lifecycle ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._loop = asyncio.get_running_loop()
        # The I/O thread timestamps chunks; a long frame in this thread must not hold the GIL for the default
        # 5 ms slices while a chunk waits (measured p99 timing error with the TUI live: tests/bench).
        sys.setswitchinterval(0.001)
        # Full cyclic-GC passes stop every thread, the I/O thread too: move what start-up allocated out of the
        # collector's reach and collect young objects less often (measured in tests/bench/test_fidelity.py).
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        for pid, tip in PANEL_TIPS.items():
            self.query_one(f"#{pid}").tooltip = tip
        if self._io is None:
            self._io = IoThread()
        self.runtime = self._factory(self._observe)
        self.sub_title = self.runtime.profile.name if self.runtime.profile else (self.runtime.attach_url or "")
        note = getattr(self.runtime.profile, "shadow_note", None)
        if note:  # a profile of the same name further down the search path is not the one running (core/places.py)
            self.notify(note, title="profile shadows another", severity="warning", timeout=12)
        self.set_interval(self.REFRESH_S, self.refresh_state)
        self.refresh_state()
        self.call_after_refresh(self.refresh_state)
        if self._start_runtime:
            self.submit("start", self.runtime.start())

    def on_resize(self) -> None:
        self._panel_keys.clear()
        self._last_sig = None
        self.refresh_bindings()  # d and l leave or rejoin the footer (check_action)
        self.call_after_refresh(self.refresh_state)

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast of the console (screens' too) is wrapped to the toast's width here: at spaces, and in a path
        after a '/', never inside a name (the terminal's own folding broke 'cel' / 'l-002-…')."""
        width = min(TOAST_WIDTH, self.size.width // 2) - TOAST_CHROME
        super().notify(render.wrap_breakable(message, width), title=title, severity=severity, timeout=timeout,
                       markup=markup)

    @property
    def compact(self) -> bool:
        """The 80×24 dashboard: panels render their few-line forms (a maximized panel keeps its full form)."""
        return self.size.height < SHORT_BELOW

    def on_unmount(self) -> None:
        if self._io is not None and not self._quitting:
            self._io.close(timeout_s=2.0)

    def _observe(self, ev: Event) -> None:
        """Called in the I/O thread: hand the event to the UI loop without blocking."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.post_message, RuntimeEvent(ev))
            except RuntimeError:
                pass

    def submit(self, what: str, coro: Coroutine[Any, Any, Any]) -> concurrent.futures.Future | None:
        if self._io is None:
            coro.close()
            return None
        fut = self._io.submit(coro)

        def done(f: concurrent.futures.Future) -> None:
            loop = self._loop
            if loop is None or loop.is_closed():
                return
            exc = f.exception() if not f.cancelled() else None
            msg: Any = (CommandFailed.of(what, exc) if exc
                        else CommandDone(what, None if f.cancelled() else f.result()))
            try:
                loop.call_soon_threadsafe(self.post_message, msg)
            except RuntimeError:
                pass

        fut.add_done_callback(done)
        return fut

    # --- refresh -----------------------------------------------------------------------------

    def refresh_state(self) -> None:
        try:
            self._refresh_state()
        except NoMatches:  # a tick that lands while the app is still composing or already shutting down
            pass

    def _update(self, selector: str, key: object, render_fn: Callable[[], Any]) -> None:
        """Re-render a panel only when what it shows changed: an update re-lays out the screen, which would
        otherwise cost CPU (and I/O-thread latency, through the GIL) four times a second for nothing."""
        if self._panel_keys.get(selector) == key:
            return
        self._panel_keys[selector] = key
        self.query_one(selector, Static).update(render_fn())

    def _refresh_state(self) -> None:
        rt = self.runtime
        if rt is None:
            return
        st = rt.state
        now = self._clock()
        c = st.cell or (st.cells_done[-1] if st.cells_done else None)
        sig = (st.phase, id(st.live), id(st.metrics), id(st.gpu), id(st.server), st.error, len(st.arms),
               None if c is None else (id(c), c.done, c.status), len(st.cells_done), st.relaunching,
               id(st.startup), st.startup_elapsed_s, len(st.preflight),
               int(now - st.ready_at) // 60 if st.ready_at is not None else None, self.size,
               self._layout_sig())
        if sig == self._last_sig:
            return  # nothing the dashboard shows has changed since the last tick
        self._ticks += 1
        if st.live is not None and len(st.live.running) >= BUSY_STREAMS and self._ticks % 2:
            return  # many streams: repaint at 2 Hz so frames compete less with the I/O thread's timestamps
        self._last_sig = sig
        up = int(now - st.ready_at) // 60 if st.ready_at is not None else None
        srv = _server_key(st.server)
        self._update("#statusbar", (st.phase, st.profile_name, srv, st.session_dir, up),
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
        maxed = getattr(self.screen_stack[0], "maximized", None) if self.screen_stack else None

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
        acc_key = (ca, w_acc, srv, None if live is None else (
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
                                              a.anchor_pct) for a in st.arms)), lambda: render.arms_strip(st, w_arms))
        last = st.cells_done[-1] if st.cells_done else None
        shown = st.cell if st.cell and st.cell.running else None
        c = shown or last
        cell_h = self.query_one("#cell").content_size.height
        w_cell = inner("#cell", 60)
        cell_key = (cc, cell_h, w_cell, None if c is None else (id(c), c.done, c.status, len(c.rows),
                                                               id(c.summary), c.forecast_cmp is not None))
        self._update("#cell", cell_key, lambda: render.cell_panel(
            shown, last, dist_width=w_cell - 20, height=cell_h if cell_h > 0 else None, width=w_cell, compact=cc))

    def _layout_sig(self) -> object:
        """What the panels' fitted forms depend on besides the state: the cell's inner size (known only after a
        layout, so a change re-renders it on the next tick) and which panel is maximized."""
        try:
            cell = self.query_one("#cell").content_size
        except NoMatches:
            return None
        maxed = getattr(self.screen_stack[0], "maximized", None) if self.screen_stack else None
        return cell, None if maxed is None else maxed.id

    # --- events ------------------------------------------------------------------------------

    def on_runtime_event(self, msg: RuntimeEvent) -> None:
        ev = msg.event
        if isinstance(ev, E.Ready):
            rt = self.runtime
            if rt is not None and rt.profile is not None:
                self.sub_title = rt.profile.name
            self.notify(f"engine ready: {ev.server.arm.label()}", timeout=4)
            if self.auto_anchor and rt is not None and not rt.state.relaunching and len(rt.state.arms) == 1:
                self.submit("anchor", rt.run_anchor())  # relaunches anchor themselves
        elif isinstance(ev, E.Died):
            self.notify(ev.text, title="engine died", severity="error", timeout=30)
        elif isinstance(ev, E.PairStatus):
            self.pair_state.lines.append(ev.text)
        elif ev.HIGH_RATE:
            return  # the 4 Hz tick shows them (docs/architecture.md: coalesce, never per event)
        elif isinstance(ev, E.CellFinished):
            s = ev.summary
            med = f"{s.median_tok_s:.1f} tok/s" if s.median_tok_s is not None else "no usable row"
            where = Path(str(ev.cell_dir or "")).name
            self.notify(f"cell {ev.label}: median {med} (n={s.n_included})"
                        + (f"; rows in {where}/ of this session" if where else ""), timeout=8)
        self.refresh_state()

    def on_command_failed(self, msg: CommandFailed) -> None:
        if msg.what == "start" and self._start_failure is None:
            self._start_failure = (msg.code if msg.code is not None else 1, msg.text)
        if self._quitting:
            return
        if msg.what == "pair":
            self.pair_state.running = False
            self.pair_state.error = f"pair stopped: {msg.text}"
        self.notify(msg.text, title=f"{msg.what} failed", severity="error", timeout=15)
        self.refresh_state()

    def on_command_done(self, msg: CommandDone) -> None:
        if msg.what == "chat_both" and msg.result:
            self.push_screen(ChatScreen(msg.result, self.submit, getattr(self.runtime.state, "session_dir", None)
                                        if self.runtime is not None else None, close_on_exit=True))
            return
        if msg.what == "pair":
            self.pair_state.running = False
            self.pair_state.result = msg.result
            if msg.result is not None:
                self.notify(f"pair: {msg.result.stats.verdict}", timeout=15)
        if msg.what == "probe" and msg.result is not None:
            tax = msg.result.doc.get("tax")
            self.notify(f"verify tax {tax['ms']:.3f} ms/token: {tax['text']}" if tax else
                        f"probe: no fit ({msg.result.why})", title="verify-tax probe",
                        severity="information" if tax else "warning", timeout=20)
        self.refresh_state()

    # --- actions -----------------------------------------------------------------------------

    DASHBOARD_ACTIONS = frozenset({"run_cell", "run_anchor", "stop_cell", "flip", "pair", "logs", "maximize", "chat",
                                   "chat_both", "sessions", "forecast", "probe"})

    def action_sessions(self) -> None:
        """Browse recorded sessions: cells, pairs, reports; compare two cells of the same workload."""
        rt = self.runtime
        if rt is not None:
            self.push_screen(SessionsScreen(rt.sessions_root))

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
        self.push_screen(ForecastScreen(Path(base.cell_dir)))

    def action_chat(self) -> None:
        """Chat with the served model (openai SDK); every answer carries TTFT, tok/s, τ and p_i."""
        if self._can_chat():
            self.push_screen(ChatScreen.for_runtime(self.runtime, self.submit))

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
                self.push_screen(ChatScreen([a, b], self.submit, rt.state.session_dir, close_on_exit=True))
                return
            key = os.environ.get(v["api_key_env"]) if v["api_key_env"] else None
            if v["api_key_env"] and key is None:
                self.notify(f"B API key: ${v['api_key_env']} is unset; export it and retry", severity="error")
                return

            async def make() -> list:
                return [a, await ChatSession.for_url(v["url"], key, **kw)]

            self.submit("chat_both", make())

        self.push_screen(BothArmsScreen(a.label, a.temperature), chosen)

    def _can_chat(self) -> bool:
        if self.runtime is None or self.runtime.state.phase not in ("ready", "attached"):
            self.notify("no server to chat with yet", severity="warning")
            return False
        return True

    def action_maximize(self, panel: str) -> None:
        """Show one panel full screen (escape restores)."""
        if self.query_one("#dashboard").display:
            self.screen.maximize(self.query_one(f"#{panel}"))
            self._panel_keys.clear()
            self._last_sig = None
            self.call_after_refresh(self.refresh_state)

    def action_restore(self) -> None:
        if self.screen.maximized is not None:
            self.screen.minimize()
            self._panel_keys.clear()
            self._last_sig = None
            self.call_after_refresh(self.refresh_state)

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme != "textual-light" else "textual-dark"

    def get_system_commands(self, screen):
        """The command palette (ctrl+p): every console action, then Textual's own (themes, screenshot, quit)."""
        from textual.app import SystemCommand
        acts = [
            ("Run cell…", "choose the prompt set and protocol, then measure", self.action_run_cell),
            ("Run anchor", "the health cell on the running arm", self.action_run_anchor),
            ("Stop cell", "after the requests in flight", self.action_stop_cell),
            ("Flip: draft depth +1", "relaunch with one more draft step", lambda: self.action_flip("depth+")),
            ("Flip: draft depth −1", "relaunch with one draft step less", lambda: self.action_flip("depth-")),
            ("Flip: drafter family", "none → the families this model's profiles run",
             lambda: self.action_flip("family")),
            ("Flip: KV-cache dtype", "auto ↔ fp8_e4m3", lambda: self.action_flip("kv")),
            ("Record a pair…", "same-session A/B with a verdict", self.action_pair),
            ("Probe the verify tax…", "dummy draft weights at several verify widths: ms per verified token with "
             "its CI, used by this session's forecasts", self.action_probe),
            ("Chat with the model", "openai SDK; per-turn TTFT, tok/s, τ, p_i", self.action_chat),
            ("Chat with both arms…", "one message to A and B (another server, or other sampling), side by side",
             self.action_chat_both),
            ("Sessions…", "recorded sessions, cells and pairs; reports; compare two cells", self.action_sessions),
            ("Forecast depths…", "price other draft depths from the latest cell of this arm", self.action_forecast),
            ("Engine log", "the launched engine's log", self.action_logs),
            ("Help: definitions and keys", "every formula the console uses", self.action_help),
            ("Toggle light/dark", "theme", self.action_toggle_theme),
            ("Quit", "stops the engine the console launched", self.action_quit_console),
        ]
        for extra in self.extra_commands():
            acts.append(extra)
        for title, help_text, cb in acts:
            yield SystemCommand(title, help_text, cb)
        for cmd in super().get_system_commands(screen):
            if cmd.title.lower() not in ("quit", "quit the application"):
                yield cmd

    def extra_commands(self) -> list:
        """Commands of screens wired later (chat, sessions, forecast)."""
        return []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Dashboard keys act only on the dashboard: on another screen they are off (and out of the footer)."""
        if action in self.DASHBOARD_ACTIONS and len(self.screen_stack) > 1:
            return False
        if action in FOOTER_OPTIONAL and not parameters and self.size.width < NARROW_BELOW:
            return False  # out of the narrow footer; the same key's hidden binding runs the action
        return True

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
            self.push_screen(RunCellScreen(self.last_protocol), self._run_protocol)

    def action_run_anchor(self) -> None:
        """Run the anchor (health) cell on the current arm; its median lands in the arms strip."""
        if self._can_run() and self.runtime is not None:
            self.submit("anchor", self.runtime.run_anchor())
            self.notify("running the anchor: 8 pinned short prompts, 128 output tokens")

    def _run_protocol(self, proto: CellProtocol | None) -> None:
        if proto is None or self.runtime is None:
            return
        self.last_protocol = proto
        self.submit("cell", self.runtime.run_cell(proto))
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
                self.submit("flip", rt.relaunch(flip.after, forecast=fc, forecast_prompt_set=base_set))
                self.notify(f"relaunching as {flip.after.name}")

        self.push_screen(FlipScreen(flip, fc, note, rt.last_startup_s()), confirmed)

    def action_probe(self) -> None:
        """The verify-tax probe on the running arm: plan it (core), confirm, run the legs, relaunch this arm."""
        from console.core.run.probe import ProbeRefused, plan_probe, run_probe
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
            self.call_from_thread(self.notify, text, title="verify-tax probe", timeout=4)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.submit("probe", run_probe(rt, plan, say=say, restore=base))
                self.notify(f"probing {base.name}: {len(plan.legs)} legs", timeout=4)

        self.push_screen(ProbeScreen(plan, rt.last_startup_s()), confirmed)

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
        self.push_screen(PairScreen(a, self.pair_state, self._start_pair, self.last_protocol))

    def _start_pair(self, spec) -> None:
        from console.core.run.pair import run_pair
        rt = self.runtime
        if rt is None or self.pair_state.running:
            return
        if rt.state.cell is not None and rt.state.cell.running:
            self.notify("a cell is running: stop it (s) before recording a pair", severity="warning")
            return
        self.pair_state = PairState(running=True, spec_text=f"pair {spec.a.name} (A) vs {spec.b.name} (B): order "
                                                            f"{spec.order}, {spec.protocol.n} × "
                                                            f"{spec.protocol.prompt_set} per leg")
        if isinstance(self.screen, PairScreen):
            self.screen.state = self.pair_state

        def say(text: str) -> None:
            rt.emit(E.PairStatus(text))

        self.submit("pair", run_pair(rt, spec, say=say))  # type: ignore[arg-type]  # a Runtime in the app; UI tests replace run_pair

    def action_sweep(self) -> None:
        """Campaigns: choose a plan (campaigns/ along the profile search path), read its estimate, run it, read the
        routing table."""
        from console.ui.screens.sweep import SweepScreen
        rt = self.runtime
        if rt is not None:  # installed: leaving it (escape) keeps the campaign and its progress for the next w
            if not self.is_screen_installed("sweep"):
                self.install_screen(SweepScreen(rt.sessions_root, sim=bool(rt.state.simulated),
                                                time_scale=rt.state.sim_time_scale), "sweep")
            self.push_screen("sweep")

    def action_logs(self, _via: str = "") -> None:
        self.push_screen(LogScreen(self.runtime))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_quit_console(self) -> None:
        if self._quitting:
            return
        self._quitting = True
        self.notify("stopping the engine…", timeout=30)
        self._stop_and_exit()

    @work(thread=True, exclusive=True, group="shutdown")
    def _stop_and_exit(self) -> None:
        rt, io = self.runtime, self._io
        if rt is not None and io is not None:
            try:
                io.submit(rt.stop()).result(timeout=30)
            except Exception:
                pass
        if io is not None:
            io.close()
        code, self.failure = self.exit_status()
        self.call_from_thread(self.exit, None, code)

    def exit_status(self) -> tuple[int, str | None]:
        """(exit code, line) as headless would give them: the start failed (attach refused, engine died before
        ready, preflight refused, …) or the engine is dead now → its documented code; else 0."""
        if self._start_failure is not None:
            return self._start_failure
        rt = self.runtime
        if rt is not None and rt.state.phase == "dead":
            return EXIT_ENGINE, rt.state.error or "the engine died"
        return EXIT_OK, None


def _server_key(s) -> object:
    """What the panels show of /server_info (its object is replaced on every refresh, its content rarely)."""
    if s is None:
        return None
    mu = s.memory
    return (s.version, s.arm.label(), s.arm.draft_model, s.kv_cache_dtype, s.mem_fraction_static,
            s.max_total_num_tokens, s.tp_size, s.dp_size, s.served_model_name, s.enable_metrics,
            None if s.avg_spec_accept_length is None else round(s.avg_spec_accept_length, 2),
            None if mu is None else (mu.weight_gb, mu.kvcache_gb, mu.graph_total_gb))


def make_app(runtime_factory: RuntimeFactory, **kw: Any) -> ConsoleApp:
    """The one constructor shared by the CLI and the tests."""
    return ConsoleApp(runtime_factory, **kw)
