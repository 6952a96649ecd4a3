"""The Textual app. It reads core state at a fixed rate (4 Hz) and sends commands to the runtime, which
runs in its own I/O thread; it never parses HTTP or logs itself."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.css.query import NoMatches

from console.core.exits import EXIT_ENGINE, EXIT_OK
from console.core.run import events as E
from console.core.run.cell import ANCHOR_PROTOCOL, CellProtocol
from console.core.run.events import Event
from console.core.run.interface import ConsoleRuntime
from console.ui import render
from console.ui.iothread import IoThread
from console.ui.messages import (
    ChatArmsReady,
    Command,
    CommandDone,
    CommandFailed,
    PairDone,
    ProbeDone,
    RuntimeEvent,
)
from console.ui.screens.chat import ChatScreen
from console.ui.screens.dashboard import SHORT_BELOW, DashboardScreen
from console.ui.screens.help import HelpScreen
from console.ui.screens.pair import PairState
from console.ui.widgets.footer import NARROW_BELOW

RuntimeFactory = Callable[[Callable[[Event], None]], ConsoleRuntime]

TOAST_WIDTH, TOAST_CHROME = 60, 3
"""Textual's toast: 60 columns, at most half the screen; its left border and padding take 3."""

HEALTH_CELL = ANCHOR_PROTOCOL


class ConsoleApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "serving-console"
    BINDINGS = [
        Binding("question_mark", "help", "help"),
        Binding("w", "sweep", "sweep", show=False),
        Binding("ctrl+t", "toggle_theme", "light/dark", show=False),
        Binding("q", "quit_console", "quit"),
        Binding("ctrl+q", "quit_console", "quit", show=False, priority=True),
    ]
    """The console's own keys, on every screen that does not bind them itself; the dashboard's are
    `DashboardScreen.BINDINGS`."""
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
        self.last_protocol: CellProtocol = HEALTH_CELL
        self.pair_state = PairState()
        self._start_failure: tuple[int, str] | None = None
        self.failure: str | None = None
        """Set on exit: the line that says why the console stopped unsuccessfully (the CLI prints it)."""

    # --- layout ------------------------------------------------------------------------------

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
            self.submit(Command.START, self.runtime.start())

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = True) -> None:
        """Every toast of the console (screens' too) is wrapped to the toast's width here: at spaces, and in a path
        after a '/', never inside a name (the terminal's own folding broke 'cel' / 'l-002-…')."""
        width = min(TOAST_WIDTH, self.size.width // 2) - TOAST_CHROME
        super().notify(render.wrap_breakable(message, width), title=title, severity=severity, timeout=timeout,
                       markup=markup)


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

    def submit(self, what: Command | str, coro: Coroutine[Any, Any, Any],
               done_message: Callable[[Any], CommandDone] | None = None) -> concurrent.futures.Future | None:
        """Run `coro` on the I/O thread; when it ends, `CommandFailed` if it raised, else `done_message(result)`
        (default `CommandDone(what)`: the typed message of a command whose result the app reads)."""
        if self._io is None:
            coro.close()
            return None
        fut = self._io.submit(coro)

        def done(f: concurrent.futures.Future) -> None:
            loop = self._loop
            if loop is None or loop.is_closed():
                return
            exc = f.exception() if not f.cancelled() else None
            result = None if f.cancelled() or exc else f.result()
            msg: Any = (CommandFailed.of(what, exc) if exc
                        else done_message(result) if done_message is not None else CommandDone(what))
            try:
                loop.call_soon_threadsafe(self.post_message, msg)
            except RuntimeError:
                pass

        fut.add_done_callback(done)
        return fut

    # --- refresh -----------------------------------------------------------------------------

    def get_default_screen(self) -> DashboardScreen:
        return DashboardScreen()

    @property
    def dashboard(self) -> DashboardScreen:
        """The main screen: always the bottom of the screen stack."""
        return cast(DashboardScreen, self.screen_stack[0])

    def clock(self) -> float:
        return self._clock()

    def refresh_state(self) -> None:
        """Re-render the dashboard from the runtime's state (4 Hz, and after every event)."""
        try:
            self._refresh_state()
        except NoMatches:  # a tick that lands while the app is still composing or already shutting down
            pass

    def _refresh_state(self) -> None:
        # only while the dashboard is the screen shown (as a screen on top hides it; it re-renders on its return)
        if self.screen_stack and self.runtime is not None and self.screen is self.dashboard:
            self.dashboard.refresh_panels(self.runtime.state)

    # --- events ------------------------------------------------------------------------------

    def on_runtime_event(self, msg: RuntimeEvent) -> None:
        ev = msg.event
        if isinstance(ev, E.Ready):
            rt = self.runtime
            if rt is not None and rt.profile is not None:
                self.sub_title = rt.profile.name
            if not self._pair_on_screen():
                self.notify(f"engine ready: {ev.server.arm.label()}", timeout=4)
            if self.auto_anchor and rt is not None and not rt.state.relaunching and len(rt.state.arms) == 1:
                self.submit(Command.ANCHOR, rt.run_anchor())  # relaunches anchor themselves
        elif isinstance(ev, E.Died):
            self.notify(ev.text, title="engine died", severity="error", timeout=30)
        elif isinstance(ev, E.PairStatus):
            self.pair_state.lines.append(ev.text)
        elif isinstance(ev, E.AlarmChanged):
            if ev.event == "raised":
                self.notify(f"{ev.alarm.saw} — {ev.alarm.causes}", title=f"acceptance alarm: {ev.alarm.kind}",
                            severity="error", timeout=20)
            self.refresh_bindings()  # '!' joins or leaves the footer
        elif ev.HIGH_RATE:
            return  # the 4 Hz tick shows them (docs/architecture.md: coalesce, never per event)
        elif isinstance(ev, E.CellFinished):
            s = ev.summary
            med = f"{s.median_tok_s:.1f} tok/s" if s.median_tok_s is not None else "no usable row"
            where = Path(str(ev.cell_dir or "")).name
            if not self._pair_on_screen():
                self.notify(f"cell {ev.label}: median {med} (n={s.n_included})"
                            + (f"; rows in {where}/ of this session" if where else ""), timeout=8)
        self.refresh_state()

    def on_command_failed(self, msg: CommandFailed) -> None:
        if msg.what == Command.START and self._start_failure is None:
            self._start_failure = (msg.code if msg.code is not None else 1, msg.text)
        if self._quitting:
            return
        if msg.what == Command.PAIR:
            self.pair_state.running = False
            self.pair_state.error = f"pair stopped: {msg.text}"
        self.notify(msg.text, title=f"{msg.what} failed", severity="error", timeout=15)
        self.refresh_state()

    def on_command_done(self, msg: CommandDone) -> None:
        self.refresh_state()

    def on_chat_arms_ready(self, msg: ChatArmsReady) -> None:
        if msg.sessions:
            self.push_screen(ChatScreen(msg.sessions, self.submit, getattr(self.runtime.state, "session_dir", None)
                                        if self.runtime is not None else None, close_on_exit=True))

    def on_pair_done(self, msg: PairDone) -> None:
        self.pair_state.running = False
        self.pair_state.result = msg.result
        if msg.result is not None and not self._pair_on_screen():
            self.notify(f"pair: {msg.result.stats.verdict}", timeout=15)
        self.refresh_state()

    def _pair_on_screen(self) -> bool:
        """The pair screen is showing: it lists the pair's launches and legs itself and ends on its result, whose
        last line (`recompute: …`) the routine toasts — engine ready, each leg's cell, the verdict — covered for
        up to 15 s at the bottom right (#30 item 8). Errors and alarms still toast."""
        from console.ui.screens.pair import PairScreen
        try:
            return isinstance(self.screen, PairScreen)
        except Exception:
            return False

    def on_probe_done(self, msg: ProbeDone) -> None:
        if msg.result is not None:
            tax = msg.result.doc.get("tax")
            self.notify(f"verify tax {tax['ms']:.3f} ms/token: {tax['text']}" if tax else
                        f"probe: no fit ({msg.result.why})", title="verify-tax probe",
                        severity="information" if tax else "warning", timeout=20)
        self.refresh_state()

    # --- actions -----------------------------------------------------------------------------









    def action_chat_both(self) -> None:
        """The two-arm chat, from wherever it is asked for (the dashboard's C, ctrl+b in a one-column chat)."""
        self.dashboard.action_chat_both()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme != "textual-light" else "textual-dark"

    def get_system_commands(self, screen):
        """The command palette (ctrl+p): every console action, then Textual's own (themes, screenshot, quit)."""
        from textual.app import SystemCommand
        acts = [
            ("Run cell…", "choose the prompt set and protocol, then measure", self.dashboard.action_run_cell),
            ("Run anchor", "the health cell on the running arm", self.dashboard.action_run_anchor),
            ("Stop cell", "after the requests in flight", self.dashboard.action_stop_cell),
            ("Flip: draft depth +1", "relaunch with one more draft step", lambda: self.dashboard.action_flip("depth+")),
            ("Flip: draft depth −1", "relaunch with one draft step less", lambda: self.dashboard.action_flip("depth-")),
            ("Flip: drafter family", "none → the families this model's profiles run",
             lambda: self.dashboard.action_flip("family")),
            ("Flip: KV-cache dtype", "auto ↔ fp8_e4m3", lambda: self.dashboard.action_flip("kv")),
            ("Record a pair…", "same-session A/B with a verdict", self.dashboard.action_pair),
            ("Probe the verify tax…", "dummy draft weights at several verify widths: ms per verified token with "
             "its CI, used by this session's forecasts", self.dashboard.action_probe),
            ("Chat with the model", "openai SDK; per-turn TTFT, tok/s, τ, p_i", self.dashboard.action_chat),
            ("Chat with both arms…", "one message to A and B (another server, or other sampling), side by side",
             self.dashboard.action_chat_both),
            ("Sessions…", "recorded sessions, cells and pairs; reports; compare two cells",
             self.dashboard.action_sessions),
            ("Forecast depths…", "price other draft depths from the latest cell of this arm",
             self.dashboard.action_forecast),
            ("Engine log", "the launched engine's log", self.dashboard.action_logs),
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



def make_app(runtime_factory: RuntimeFactory, **kw: Any) -> ConsoleApp:
    """The one constructor shared by the CLI and the tests."""
    return ConsoleApp(runtime_factory, **kw)
