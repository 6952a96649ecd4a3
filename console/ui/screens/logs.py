"""The engine's log tail, as the runtime captured it (the UI only displays lines; it parses nothing)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, RichLog, Static


class LogScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "back"), Binding("l", "app.pop_screen", "back", show=False)]

    def __init__(self, runtime) -> None:
        super().__init__()
        self._runtime = runtime
        self._shown = 0

    def compose(self) -> ComposeResult:
        st = self._runtime.state if self._runtime else None
        path = st.log_path if st and st.log_path else "(attached: the console did not launch this engine, no log)"
        yield Static(f"[b]engine log[/b]  {path}", id="log-title")
        yield RichLog(id="log", wrap=False, highlight=False, max_lines=5000)
        yield Footer()

    def on_mount(self) -> None:
        self._pull()
        self.set_interval(0.5, self._pull)

    def _pull(self) -> None:
        eng = getattr(self._runtime, "engine", None)
        if eng is None:
            return
        lines, self._shown = eng.lines_since(self._shown)
        log = self.query_one(RichLog)
        for ln in lines:
            log.write(ln)
