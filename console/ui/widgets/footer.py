"""The console's footer: Textual's, one line at any width — under `NARROW_BELOW` columns the command-palette key
leaves it (ctrl+p still opens the palette; help lists it), so the screen's own keys are not cut."""

from __future__ import annotations

from textual.widgets import Footer

NARROW_BELOW = 110


class ConsoleFooter(Footer):
    def on_resize(self) -> None:
        self.show_command_palette = self.size.width >= NARROW_BELOW
