"""One confirmation dialog for every action that relaunches the server (a flip, the verify-tax probe): a title, what
will happen, and y / enter to go on, escape / n to cancel. Subclasses give `heading()`, `details()` and the verb."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    VERB = "go on"
    WIDTH = 96
    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("n", "cancel", "cancel", show=False),
                Binding("y", "confirm", "confirm"), Binding("enter", "confirm", "confirm", show=False)]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { max-width: 95%; height: auto; border: round $warning; background: $surface;
                               padding: 0 1; }
    ConfirmScreen #buttons { height: 1; align-horizontal: right; margin-top: 1; }
    ConfirmScreen Button { margin-left: 2; }
    """

    def heading(self) -> str:
        raise NotImplementedError

    def details(self) -> Any:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        box = Vertical()
        box.styles.width = self.WIDTH
        with box:
            yield Static(self.heading())
            yield Static(self.details())
            with Horizontal(id="buttons"):
                yield Button("cancel (esc)", id="cancel", compact=True)
                yield Button(f"{self.VERB} (y)", variant="warning", id="confirm", compact=True)

    def action_confirm(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")
