"""Help: every measurement definition (from `stats.DEFINITIONS`, the single source) and the key map."""

from __future__ import annotations

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from console.core.measure.stats import DEFINITIONS

KEYS = (
    ("r", "run a cell: choose the pinned prompt set, n, max tokens, temperature, concurrency; rows land in sessions/"),
    ("a", "run the health anchor cell (8 pinned short prompts, 128 output tokens)"),
    ("s", "stop the running cell after the requests in flight"),
    ("− / +  ([ / ])",
     "flip draft depth (EAGLE: steps ±1, draft tokens = steps + 1; DFLASH: block 4/8/16/32): relaunch"),
    ("f", "flip drafter family: none → each family this model's profiles run (EAGLE-3 → DFLASH here) with "
          "that profile's drafter: relaunch"),
    ("k", "flip KV-cache dtype auto ↔ fp8_e4m3: relaunch"),
    ("p", "record a same-session pair (arm B = a profile or a flip of the running arm)"),
    ("v", "verify-tax probe: dummy draft weights at several verify widths (relaunches), then this arm again; "
          "the session's forecasts use the probed tax"),
    ("w", "sweep: run a campaign plan (campaigns/ of the profile search path): estimate, progress and ETA per "
          "cell, routing table"),
    ("1 … 6", "maximize a panel (server, throughput, acceptance, KV, GPU, cell); escape restores"),
    ("ctrl+p", "command palette: every action"),
    ("ctrl+t", "light / dark theme"),
    ("c", "chat with the served model: Enter sends, ctrl+s stops, F2 saves chat-<n>.json/.md into the session"),
    ("C", "chat with both arms (ctrl+b in the chat): B = another server URL or this one with other sampling; "
          "one message, answers side by side"),
    ("b", "sessions: newest first; enter opens a report, space marks A/B, c compares, p next pair, f forecast, "
          "h writes the HTML report (beside the folder)"),
    ("d", "forecast other draft depths from the latest measured cell of the running arm"),
    ("l", "engine log (tail)"),
    ("?", "this help"),
    ("q", "quit: stops the engine the console launched"),
)


STACK_BELOW = 120
"""Below this width the definitions stack (name and unit, then the formula, then the note) instead of a
three-column table whose formula column collapsed to a few characters at 80 columns."""


def definitions_table() -> Table:
    t = Table(title="measurement definitions", title_justify="left", expand=True)
    t.add_column("quantity", style="bold", ratio=2)
    t.add_column("definition", ratio=5)
    t.add_column("unit", no_wrap=True)
    for d in DEFINITIONS:
        note = d.note
        t.add_row(d.name, Text(d.formula) + (Text("\n" + note, style="dim") if note else Text("")), d.unit)
    return t


def definitions_stacked() -> Group:
    """Every definition as a block: its name and unit, the formula under it, the note under that — readable at
    any width (each line wraps at spaces)."""
    parts: list = [Text("measurement definitions", style="italic")]
    for d in DEFINITIONS:
        head = Text()
        head.append(d.name, style="bold")
        if d.unit:
            head.append(f"  [{d.unit}]", style="dim")
        parts.append(head)
        parts.append(Padding(Text(d.formula), (0, 0, 0, 2)))
        note = d.note
        if note:
            parts.append(Padding(Text(note, style="dim"), (0, 0, 0, 2)))
    return Group(*parts)


def definitions(width: int):
    return definitions_stacked() if width < STACK_BELOW else definitions_table()


def keys_table() -> Table:
    t = Table(title="keys", title_justify="left", expand=True)
    t.add_column("key", style="bold", no_wrap=True)
    t.add_column("action")
    for k, a in KEYS:
        t.add_row(k, a)
    return t


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "close"), Binding("question_mark", "dismiss", "close"),
                Binding("q", "dismiss", "close", show=False)]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(definitions(self.app.size.width), id="definitions")
            yield Static(keys_table())
            yield Static("[dim]escape closes[/dim]")

    def on_resize(self) -> None:
        self.query_one("#definitions", Static).update(definitions(self.app.size.width))
