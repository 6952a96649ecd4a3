"""What the console's full screens over the dashboard share: escape (and q) go back, and a one-line title bar
(`TITLE_CLASS`) above a scrolling body."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen

TITLE_CLASS = "screen-title"


class BackScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "back"), Binding("q", "app.pop_screen", "back", show=False)]
    DEFAULT_CSS = """
    BackScreen .screen-title { height: 1; padding: 0 1; background: $boost; text-wrap: nowrap;
                               text-overflow: ellipsis; }
    BackScreen VerticalScroll { height: 1fr; padding: 0 1; }
    """
