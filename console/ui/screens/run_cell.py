"""Run-cell screen: choose the pinned prompt set and the protocol, then run. Validation is core's
(`CellProtocol.validate`); a bad field shows one line and nothing is sent."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from console.core.run.cell import CellProtocol
from console.core.workload.prompts import PromptSetError, list_sets, load_set
from console.ui.widgets.footer import ConsoleFooter

FIELDS = (  # (id, label, attribute, parser)
    ("n", "requests n", "n", int),
    ("max_tokens", "max tokens", "max_tokens", int),
    ("temperature", "temperature", "temperature", float),
    ("concurrency", "concurrency", "concurrency", int),
    ("warmup", "warm-up requests", "warmup", int),
)


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


@lru_cache(maxsize=64)
def set_label(name: str) -> str:
    """'tool  16 × ≈10.2k tokens in': the set's size and its median input length (o200k tokens, as pinned), so
    the form says what a set costs before it runs (tool ≈ 10k tokens per request, health ≈ 50)."""
    try:
        ps = load_set(name, verify=False)
    except (PromptSetError, OSError, ValueError):
        return name
    toks = sorted(p.tokens for p in ps.prompts)
    if not toks:
        return name
    return f"{name}  {len(toks)} × ≈{_tokens(toks[len(toks) // 2])} tokens in"


class RunCellScreen(ModalScreen[CellProtocol | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+r", "run", "run")]
    DEFAULT_CSS = """
    RunCellScreen { align: center middle; }
    RunCellScreen > Vertical { width: 64; height: auto; border: round $accent; background: $surface; padding: 0 1; }
    RunCellScreen Grid { grid-size: 2; grid-columns: 18 1fr; grid-rows: 1; grid-gutter: 0; height: auto; margin: 1 0; }
    RunCellScreen #error { color: $error; height: auto; }
    RunCellScreen #buttons { height: 1; align-horizontal: right; margin-top: 1; }
    RunCellScreen Button { margin-left: 2; }
    """

    def __init__(self, initial: CellProtocol, sets: list[str] | None = None) -> None:
        super().__init__()
        self.initial = initial
        self.sets = sets if sets is not None else list_sets()

    def compose(self) -> ComposeResult:
        p = self.initial
        options = [(set_label(s), s) for s in self.sets] or [(p.prompt_set, p.prompt_set)]
        values = [v for _, v in options]
        with Vertical():
            yield Static("[b]run a cell[/b]  [dim]ctrl+r runs · escape cancels[/dim]\n"
                         "[dim]warm-up (not recorded) → /flush_cache → n measured requests[/dim]")
            with Grid():
                yield Label("prompt set")
                yield Select(options, value=p.prompt_set if p.prompt_set in values else options[0][1],
                             allow_blank=False, id="prompt_set", compact=True)
                for fid, label, attr, _ in FIELDS:
                    yield Label(label)
                    yield Input(str(getattr(p, attr)), id=fid, compact=True)
                yield Label("endpoint")
                yield Select([("chat (/v1/chat/completions)", "chat"), ("native (/generate)", "generate")],
                             value=p.endpoint, allow_blank=False, id="endpoint", compact=True)
            yield Checkbox("ignore EOS (outputs run to max tokens)", p.ignore_eos, id="ignore_eos", compact=True)
            yield Checkbox("exclude rows that stop short of max tokens", p.gate_short, id="gate_short", compact=True)
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("cancel", id="cancel", compact=True)
                yield Button("run (ctrl+r)", variant="primary", id="run", compact=True)
        yield ConsoleFooter()

    def read(self) -> CellProtocol:
        """The protocol the form describes; raises ValueError with one line naming the field."""
        kw: dict[str, Any] = {}
        for fid, label, attr, parse in FIELDS:
            raw = self.query_one(f"#{fid}", Input).value.strip()
            try:
                kw[attr] = parse(raw)
            except ValueError:
                raise ValueError(f"{label}: {raw!r} is not a "
                                 f"{'number' if parse is float else 'whole number'}") from None
        proto = replace(self.initial, prompt_set=str(self.query_one("#prompt_set", Select).value),
                        endpoint=str(self.query_one("#endpoint", Select).value),
                        ignore_eos=self.query_one("#ignore_eos", Checkbox).value,
                        gate_short=self.query_one("#gate_short", Checkbox).value, **kw)
        proto.validate()
        return proto

    def action_run(self) -> None:
        try:
            proto = self.read()
        except ValueError as e:
            self.query_one("#error", Static).update(str(e))
            return
        self.dismiss(proto)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_run()
