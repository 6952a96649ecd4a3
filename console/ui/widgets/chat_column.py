"""One chat transcript column: per turn the user line, the answer (Markdown, streamed by appends) and its figures
line (`StatsLine`). The chat screen owns the columns (one, or two for both arms) and drains their `pending` deltas."""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Collapsible, Markdown, Static

from console.core.run.chat import ChatTurn


class StatsLine(Static):
    """The figures under an answer: the wide form (p_i values, Σp/K check) when it fits the width, else compact."""

    def __init__(self, **kw: Any) -> None:
        super().__init__("", **kw)
        self.turn: ChatTurn | None = None

    def show_live(self, text: str) -> None:
        self.turn = None
        self.update(Text(text, style="italic"))

    def show_turn(self, turn: ChatTurn) -> None:
        self.turn = turn
        self.set_class(bool(turn.error), "error")
        self._render_turn()

    def _render_turn(self) -> None:
        if self.turn is None:
            return
        wide = self.turn.stats_line(wide=True)
        width = self.content_size.width or self.size.width
        self.update(Text(wide if 0 < len(wide) <= width else self.turn.stats_line(wide=False)))

    def on_resize(self) -> None:
        self._render_turn()


class ChatColumn(Vertical):
    """One session's transcript: per turn the user line, the answer (Markdown) and its figures line."""

    DEFAULT_CSS = """
    ChatColumn { width: 1fr; height: 1fr; }
    ChatColumn .col-title { height: 1; padding: 0 1; background: $boost; text-style: bold; text-wrap: nowrap;
                            text-overflow: ellipsis; }
    ChatColumn > VerticalScroll { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    ChatColumn .user { margin-top: 1; color: $text-accent; text-style: bold; }
    ChatColumn Markdown { margin: 0; padding: 0; }
    ChatColumn Markdown > *:last-child { margin-bottom: 0; }
    ChatColumn .stats { color: $text-muted; }
    ChatColumn .stats.error { color: $error; }
    ChatColumn Collapsible { padding: 0; margin: 0; border: none; }
    """

    def __init__(self, index: int, title: str | None, **kw: Any) -> None:
        super().__init__(**kw)
        self.index = index
        self.title = title
        self.pending: deque[str] = deque()
        """Deltas appended by the I/O thread, drained by the screen's flush timer."""
        self.md: Markdown | None = None
        self.live: StatsLine | None = None
        self.shown = ""
        self.streaming = False

    def compose(self) -> ComposeResult:
        if self.title:
            yield Static(Text(self.title, no_wrap=True, overflow="ellipsis"), classes="col-title")
        scroll = VerticalScroll(classes="transcript")
        scroll.can_focus = False
        yield scroll

    @property
    def transcript(self) -> VerticalScroll:
        return self.query_one(VerticalScroll)

    def on_mount(self) -> None:
        # Textual's anchor keeps the view at the end as the answer grows, until the reader scrolls up (and again
        # once they scroll back to the end). Deciding "at the bottom?" per flush instead raced the deferred
        # scroll_end of fast streams: a large append could land before the previous scroll did, and the view
        # then stopped following (seen as a missing figures line under a finished answer).
        self.transcript.anchor()

    async def add_finished(self, turn: ChatTurn) -> None:
        """A turn from the history (shown whole)."""
        await self.transcript.mount_all(self._turn_widgets(turn.user))
        await self._complete(turn)

    def _turn_widgets(self, user: str) -> list:
        self.md = Markdown("", classes="answer")
        self.live = StatsLine(classes="stats")
        self.shown = ""
        return [Static(Text("› " + user), classes="user"), self.md, self.live]

    async def begin(self, user: str) -> None:
        self.pending.clear()
        self.streaming = True
        await self.transcript.mount_all(self._turn_widgets(user))
        assert self.live is not None  # _turn_widgets made it
        self.live.show_live("waiting for the first token…")
        self.transcript.anchor()  # a new question: follow its answer

    async def flush(self, live_line: str | None = None) -> None:
        if self.pending and self.md is not None:
            parts = []
            while self.pending:
                parts.append(self.pending.popleft())
            text = "".join(parts)
            self.shown += text
            await self.md.append(text)
        if live_line is not None and self.live is not None and self.streaming:
            self.live.show_live(live_line)

    async def finish(self, turn: ChatTurn) -> None:
        self.streaming = False
        await self.flush()
        await self._complete(turn)

    async def _complete(self, turn: ChatTurn) -> None:
        if self.md is None or self.live is None:
            return
        if self.shown != turn.assistant:
            self.shown = turn.assistant
            await self.md.update(turn.assistant)
        if turn.reasoning.strip():
            coll = Collapsible(Static(Text(turn.reasoning.strip())), title=f"reasoning ({len(turn.reasoning):,} chars)")
            await self.transcript.mount(coll, before=self.md)
        self.live.show_turn(turn)

    async def fail(self, text: str) -> None:
        """The submitted send raised: the streaming turn stops where it is, its figures line says why."""
        if not self.streaming:
            return
        self.streaming = False
        await self.flush()
        if self.live is not None:
            self.live.update(Text(f"error: {text}"))
            self.live.add_class("error")

    async def clear(self) -> None:
        self.pending.clear()
        self.md = self.live = None
        self.shown = ""
        await self.transcript.remove_children()
