"""The engine's log tail, as the runtime captured it (the UI only displays lines; it parses nothing). HTTP access
lines that answered fine (the console's own /metrics and /server_info polls) are hidden by default: `a` shows
them (`console.ui.logfilter`)."""

from __future__ import annotations

from collections import deque

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import RichLog, Static

from console.ui.logfilter import is_access_noise
from console.ui.widgets.footer import ConsoleFooter

MAX_LINES = 5000


class LogScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "back"), Binding("l", "app.pop_screen", "back", show=False),
                Binding("a", "toggle_access", "access lines")]
    DEFAULT_CSS = """
    LogScreen #log-title { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, runtime) -> None:
        super().__init__()
        self._runtime = runtime
        self._shown = 0
        self.lines: deque[str] = deque(maxlen=MAX_LINES)
        self.show_access = False
        self.hidden = 0
        """Access lines not shown (while `show_access` is off)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="log-title")
        yield RichLog(id="log", wrap=False, highlight=False, max_lines=MAX_LINES)
        yield ConsoleFooter()

    def on_mount(self) -> None:
        self._title()
        self._pull()
        self.set_interval(0.5, self._pull)

    def _path(self) -> str:
        st = self._runtime.state if self._runtime else None
        return st.log_path if st and st.log_path else "(attached: the console did not launch this engine, no log)"

    def _title(self) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("engine log", style="bold")
        if self.show_access:
            t.append("  all lines (a hides HTTP access lines)", style="dim")
        elif self.hidden:
            t.append(f"  {self.hidden} HTTP access line(s) hidden (a shows them)", style="dim")
        t.append(f"  {self._path()}", style="dim")
        self.query_one("#log-title", Static).update(t)

    def _shows(self, line: str) -> bool:
        return self.show_access or not is_access_noise(line)

    def _pull(self) -> None:
        eng = getattr(self._runtime, "engine", None)
        if eng is None:
            return
        lines, self._shown = eng.lines_since(self._shown)
        if not lines:
            return
        log = self.query_one(RichLog)
        for ln in lines:
            self.lines.append(ln)
            if self._shows(ln):
                log.write(ln)
            else:
                self.hidden += 1
        self._title()

    def action_toggle_access(self) -> None:
        self.show_access = not self.show_access
        log = self.query_one(RichLog)
        log.clear()
        self.hidden = 0
        for ln in self.lines:
            if self._shows(ln):
                log.write(ln)
            else:
                self.hidden += 1
        self._title()
