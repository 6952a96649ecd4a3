"""Messages the app passes around (past tense, small dataclasses). Core `Event`s arrive from the I/O
thread wrapped in `RuntimeEvent`; a submitted command (one of `Command`) that finished arrives as `CommandDone`, or as
the typed message of its own kind when the app reads its result (`PairDone`, `ProbeDone`, `ChatArmsReady`); one that
raised arrives as `CommandFailed`, its line from `one_line` (the console's own description of a failure,
`console.core.exits.describe`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from textual.message import Message

from console.core.exits import describe, exit_code
from console.core.run.events import Event

if TYPE_CHECKING:
    from console.core.run.chat import ChatSession
    from console.core.run.pair import PairResult
    from console.core.run.probe import ProbeResult

ONE_LINE_LIMIT = 600


class Command(StrEnum):
    """What the app submits to the I/O thread (the label a failure's notification carries)."""

    START = "start"
    ANCHOR = "anchor"
    CELL = "cell"
    FLIP = "flip"
    PROBE = "probe"
    PAIR = "pair"
    CHAT = "chat"
    CHAT_BOTH = "chat_both"
    CHAT_CLOSE = "chat_close"


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

    what: Command | str
    text: str
    code: int | None = None
    """The documented exit code of this failure (console.core.exits), None for an unexpected error."""

    @classmethod
    def of(cls, what: Command | str, exc: BaseException) -> CommandFailed:
        return cls(what, one_line(exc), exit_code(exc))


@dataclass
class CommandDone(Message, bubble=False):
    """A submitted command finished; its result, when the app reads one, comes in the message of its kind below."""

    what: Command | str


@dataclass
class PairDone(CommandDone):
    """The pair recorder's run finished (None: cancelled)."""

    result: PairResult | None = None


@dataclass
class ProbeDone(CommandDone):
    """The verify-tax probe finished (None: cancelled)."""

    result: ProbeResult | None = None


@dataclass
class ChatArmsReady(CommandDone):
    """Both arms of a two-arm chat are connected (A and B, in that order)."""

    sessions: list[ChatSession] | None = None
