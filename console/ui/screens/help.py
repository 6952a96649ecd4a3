"""Help: every measurement definition (from `stats.DEFINITIONS`, the single source) and the key map."""

from __future__ import annotations

from rich.table import Table
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
    ("− / +  ([ / ])", "flip draft depth (EAGLE: steps ±1, draft tokens = steps + 1; DFLASH: block 4/8/16/32): relaunch"),
    ("f", "flip drafter family none → EAGLE-3 → DFLASH (the drafter of a sibling profile): relaunch"),
    ("k", "flip KV-cache dtype auto ↔ fp8_e4m3: relaunch"),
    ("p", "record a same-session pair (arm B = a profile or a flip of the running arm)"),
    ("1 … 6", "maximize a panel (server, throughput, acceptance, KV, GPU, cell); escape restores"),
    ("ctrl+p", "command palette: every action"),
    ("ctrl+t", "light / dark theme"),
    ("c", "chat with the served model: Enter sends, ctrl+s stops, F2 saves chat-<n>.json/.md into the session"),
    ("C", "chat with both arms (ctrl+b in the chat): B = another server URL or this one with other sampling; "
          "one message, answers side by side"),
    ("b", "sessions: newest first; enter opens a report, space marks A/B, c compares, p next pair, f forecast"),
    ("d", "forecast other draft depths from the latest measured cell of the running arm"),
    ("l", "engine log (tail)"),
    ("?", "this help"),
    ("q", "quit: stops the engine the console launched"),
)


def definitions_table() -> Table:
    t = Table(title="measurement definitions", title_justify="left", expand=True)
    t.add_column("quantity", style="bold", no_wrap=True)
    t.add_column("definition")
    t.add_column("unit", no_wrap=True)
    for d in DEFINITIONS:
        t.add_row(d.name, d.formula + (f"\n[dim]{d.note}[/dim]" if d.note else ""), d.unit)
    return t


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
            yield Static(definitions_table())
            yield Static(keys_table())
            yield Static("[dim]escape closes[/dim]")
