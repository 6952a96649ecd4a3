"""Messages the app passes around (past tense, small dataclasses). Core `Event`s arrive from the I/O
thread wrapped in `RuntimeEvent`; a submitted command that raised arrives as `CommandFailed`, its line from
`one_line` (the console's own description of a failure, `console.core.exits.describe`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from console.core.exits import describe, exit_code
from console.core.run.events import Event

ONE_LINE_LIMIT = 600


def one_line(exc: BaseException | None) -> str:
    """The failure as the one line the UI shows: `describe`'s problems joined by '; ' ("" for None)."""
    if exc is None:
        return ""
    return "; ".join(describe(exc))[:ONE_LINE_LIMIT]


@dataclass
class RuntimeEvent(Message, bubble=False):
    """A runtime event (console.core.run.events), handed from the I/O thread to the UI loop. High-rate kinds
    coalesce in the queue: a newer one of the same type replaces one not yet handled (the 4 Hz repaint reads the
    state they describe anyway)."""

    event: Event

    def can_replace(self, message: Message) -> bool:
        return (isinstance(message, RuntimeEvent) and self.event.HIGH_RATE
                and type(message.event) is type(self.event))


@dataclass
class CommandFailed(Message, bubble=False):
    """A submitted runtime command raised; `text` is the one line to show."""

    what: str
    text: str
    code: int | None = None
    """The documented exit code of this failure (console.core.exits), None for an unexpected error."""

    @classmethod
    def of(cls, what: str, exc: BaseException) -> CommandFailed:
        return cls(what, one_line(exc), exit_code(exc))


@dataclass
class CommandDone(Message, bubble=False):
    what: str
    result: Any = None
