"""Messages the app passes around (past tense, small dataclasses). Core `Event`s arrive from the I/O
thread wrapped in `RuntimeEvent`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from console.core.runtime import Event


@dataclass
class RuntimeEvent(Message, bubble=False):
    event: Event

    @property
    def kind(self) -> str:
        return self.event.kind


@dataclass
class CommandFailed(Message, bubble=False):
    """A submitted runtime command raised; `text` is the one line to show."""

    what: str
    text: str
    code: int | None = None
    """The documented exit code of this failure (console.core.exits), None for an unexpected error."""


@dataclass
class CommandDone(Message, bubble=False):
    what: str
    result: Any = None
