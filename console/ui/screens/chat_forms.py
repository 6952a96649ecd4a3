"""The chat's forms: settings (system prompt, temperature, max tokens) and "both arms" (where arm B answers), on
one small form modal: a bad field shows one line and nothing changes."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class FormModal(ModalScreen["dict[str, Any] | None"]):
    """A small form: `read()` returns the values or raises ValueError with one line, shown in `#ERROR_ID`
    (nothing changes); the `OK_ID` button or Enter submits, escape or any other button cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]
    DEFAULT_CSS = """
    FormModal { align: center middle; }
    FormModal > Vertical { max-width: 100%; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    FormModal Grid { grid-size: 2; grid-rows: 1; height: auto; margin: 1 0 0 0; }
    FormModal .form-error { color: $error; height: auto; }
    FormModal .form-buttons { height: 1; align-horizontal: right; margin-top: 1; }
    FormModal Button { margin-left: 2; }
    """
    ERROR_ID = "form-error"
    OK_ID = "ok"

    def read(self) -> dict[str, Any]:
        raise NotImplementedError

    def action_submit(self) -> None:
        try:
            values = self.read()
        except ValueError as e:
            self.query_one(f"#{self.ERROR_ID}", Static).update(str(e))
            return
        self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_submit() if event.button.id == self.OK_ID else self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()


class ChatSettingsScreen(FormModal):
    """System prompt, temperature and max tokens; a bad field shows one line and nothing changes."""

    ERROR_ID, OK_ID = "settings-error", "apply"
    DEFAULT_CSS = """
    ChatSettingsScreen > Vertical { width: 76; }
    ChatSettingsScreen Grid { grid-columns: 15 1fr; }
    """

    def __init__(self, system_prompt: str, temperature: float, max_tokens: int) -> None:
        super().__init__()
        self.initial = (system_prompt, temperature, max_tokens)

    def compose(self) -> ComposeResult:
        sp, t, m = self.initial
        with Vertical():
            yield Static("[b]chat settings[/b] [dim](apply to every column; the history stays)[/dim]")
            with Grid():
                yield Label("system prompt")
                yield Input(sp, id="system_prompt", compact=True, placeholder="none")
                yield Label("temperature")
                yield Input(f"{t:g}", id="temperature", compact=True)
                yield Label("max tokens")
                yield Input(str(m), id="max_tokens", compact=True)
            yield Static("", id="settings-error", classes="form-error")
            with Horizontal(id="settings-buttons", classes="form-buttons"):
                yield Button("cancel", id="cancel", compact=True)
                yield Button("apply", variant="primary", id="apply", compact=True)

    def read(self) -> dict[str, Any]:
        raw_t = self.query_one("#temperature", Input).value.strip()
        raw_m = self.query_one("#max_tokens", Input).value.strip()
        try:
            t = float(raw_t)
        except ValueError:
            raise ValueError(f"temperature: {raw_t!r} is not a number") from None
        if not 0.0 <= t <= 2.0:
            raise ValueError("temperature must be between 0 and 2")
        try:
            m = int(raw_m)
        except ValueError:
            raise ValueError(f"max tokens: {raw_m!r} is not a whole number") from None
        if m < 1:
            raise ValueError("max tokens must be ≥ 1")
        return {"system_prompt": self.query_one("#system_prompt", Input).value, "temperature": t, "max_tokens": m}


class BothArmsScreen(FormModal):
    """Where arm B answers: another server (a second node, or a router in front of it) or this server with other
    sampling. Returns {"url": str | None, "api_key_env": str | None, "temperature": float | None}."""

    ERROR_ID, OK_ID = "both-error", "open"
    DEFAULT_CSS = """
    BothArmsScreen > Vertical { width: 84; }
    BothArmsScreen Grid { grid-columns: 22 1fr; }
    """

    def __init__(self, a_label: str, a_temperature: float) -> None:
        super().__init__()
        self.a_label, self.a_temperature = a_label, a_temperature

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]chat with both arms[/b] [dim]A = {self.a_label} (T {self.a_temperature:g}); "
                         "one message goes to both, answers side by side[/dim]")
            with Grid():
                yield Label("B server URL")
                yield Input("", id="url", compact=True, placeholder="blank: this server (e.g. other sampling)")
                yield Label("B API key env var")
                yield Input("", id="api_key_env", compact=True, placeholder="optional, e.g. SGLANG_API_KEY_B")
                yield Label("B temperature")
                yield Input("", id="temperature", compact=True,
                            placeholder=f"blank: same as A ({self.a_temperature:g})")
            yield Static("", id="both-error", classes="form-error")
            with Horizontal(id="both-buttons", classes="form-buttons"):
                yield Button("cancel", id="cancel", compact=True)
                yield Button("open", variant="primary", id="open", compact=True)

    def on_mount(self) -> None:
        self.query_one("#url", Input).focus()

    def read(self) -> dict[str, Any]:
        url = self.query_one("#url", Input).value.strip() or None
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError(f"B server URL: {url!r} must start with http:// or https://")
        env = self.query_one("#api_key_env", Input).value.strip() or None
        if env is not None and not env.replace("_", "").isalnum():
            raise ValueError(f"B API key env var: {env!r} is not a variable name (give the name, never the key)")
        raw_t = self.query_one("#temperature", Input).value.strip()
        t = None
        if raw_t:
            try:
                t = float(raw_t)
            except ValueError:
                raise ValueError(f"B temperature: {raw_t!r} is not a number") from None
            if not 0.0 <= t <= 2.0:
                raise ValueError("B temperature must be between 0 and 2")
        if url is None and t is None:
            raise ValueError("B is this server with the same sampling: give B a server URL or another temperature")
        return {"url": url, "api_key_env": env, "temperature": t}
