"""Chat with the served model (core: `console.core.run.chat`, through the official openai SDK).

The screen takes the core objects it needs: a `ChatSession` (or two, for the "both arms" mode: answers side by
side), or a factory that makes them, and the app's `submit(what, coroutine)` that runs a coroutine in the
runtime's I/O thread. Network work never runs here: deltas arrive from the I/O thread into a queue that a
15 Hz timer drains into the transcript (never a repaint per token), finished turns arrive as messages.

Keys: Enter sends · Ctrl+S or Escape stops the running reply (Escape when idle goes back) · Ctrl+L clears the
history · Ctrl+O sets system prompt / temperature / max tokens · F2 saves chat-<n>.json + .md into the session
· Ctrl+Y copies the transcript as Markdown. The same as slash commands: /system, /temp, /max, /clear, /save,
/copy, /help.

The forms (settings, both arms) are in `chat_forms`, the transcript column in `console.ui.widgets.chat_column`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from console.core.run.chat import ChatSession, ChatTurn, ChatUnavailable, send_to_arms, stop_all
from console.ui.messages import Command, CommandFailed, one_line
from console.ui.screens.chat_forms import BothArmsScreen, ChatSettingsScreen
from console.ui.widgets.chat_column import ChatColumn
from console.ui.widgets.footer import ConsoleFooter

# The forms and the column are re-exported: `from console.ui.screens.chat import BothArmsScreen` keeps working.
__all__ = ["BothArmsScreen", "ChatColumn", "ChatScreen", "ChatSettingsScreen", "ChatTurnFinished"]

Submit = Callable[[Command, Coroutine[Any, Any, Any]], "concurrent.futures.Future | None"]

FLUSH_HZ = 15
HELP = ("Enter sends · Ctrl+S/Escape stops · Ctrl+L clears · Ctrl+O settings · F2 saves · Ctrl+Y copies · "
        "/system TEXT · /temp T · /max N · /clear · /save · /copy")


@dataclass
class ChatTurnFinished(Message, bubble=False):
    """A column's reply finished (done, stopped or failed); posted from the I/O thread."""

    column: int
    turn: ChatTurn


# --- the screen ----------------------------------------------------------------------------------

_RUNTIME_SESSIONS: weakref.WeakKeyDictionary[Any, ChatSession] = weakref.WeakKeyDictionary()


class ChatScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "stop_or_back", "stop/back"),
        Binding("ctrl+s", "stop", "stop"),
        Binding("ctrl+l", "clear", "clear"),
        Binding("ctrl+o", "settings", "settings"),
        Binding("f2", "save", "save"),
        Binding("ctrl+y", "copy", "copy md"),
        Binding("ctrl+b", "both_arms", "both arms"),
    ]
    DEFAULT_CSS = """
    ChatScreen { layout: vertical; }
    ChatScreen #chat-status { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
    ChatScreen #chat-columns { height: 1fr; }
    ChatScreen #chat-columns ChatColumn.second { border-left: vkey $primary 50%; }
    ChatScreen #chat-error { height: 1; color: $error; padding: 0 1; display: none; text-wrap: nowrap;
                             text-overflow: ellipsis; }
    ChatScreen #chat-error.shown { display: block; }
    ChatScreen #chat-input { margin: 0 0; }
    """

    def __init__(self, sessions: Any, submit: Submit, session_dir: str | Path | Callable[[], Any] | None = None,
                 *, columns: int | None = None, close_on_exit: bool = False) -> None:
        """`sessions`: a ChatSession, a sequence of two (both arms, side by side), or a zero-argument factory
        of either (called on mount, and again on send while it raises `ChatUnavailable`). `columns`: how
        many columns to lay out when `sessions` is a factory (default 1). `close_on_exit`: the screen owns the
        sessions and closes their SDK clients when it goes (the both-arms chat; the one-column chat is kept)."""
        super().__init__()
        self._close_on_exit = close_on_exit
        self._sessions_arg = sessions
        self._submit = submit
        self._session_dir = session_dir
        self.sessions: list[ChatSession] = []
        if not callable(sessions):
            self.sessions = [sessions] if isinstance(sessions, ChatSession) else list(sessions)
        self.n_columns = len(self.sessions) if self.sessions else (columns or 1)
        if not 1 <= self.n_columns <= 2:
            raise ValueError("the chat screen shows one session or two (both arms)")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streaming: set[int] = set()
        self._future: concurrent.futures.Future | None = None

    @classmethod
    def for_runtime(cls, runtime: Any, submit: Submit, **session_kw: Any) -> ChatScreen:
        """The chat on the runtime's current server. The conversation is kept for the runtime while the arm
        (URL, model, speculative configuration) stays the same, so closing and reopening the screen resumes it."""

        def factory() -> ChatSession:
            fresh = ChatSession.on_server(runtime.chat_target(), **session_kw)
            old = _RUNTIME_SESSIONS.get(runtime)
            if old is not None and (old.base_url, old.model, old.spec_label) == (fresh.base_url, fresh.model,
                                                                                 fresh.spec_label):
                return old
            if old is not None:
                fresh.system_prompt, fresh.temperature, fresh.max_tokens = old.system_prompt, old.temperature, \
                    old.max_tokens
            _RUNTIME_SESSIONS[runtime] = fresh
            return fresh

        return cls(factory, submit, lambda: getattr(runtime.state, "session_dir", None))

    # --- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static("", id="chat-status")
        with Horizontal(id="chat-columns"):
            for i in range(self.n_columns):
                yield ChatColumn(i, self._column_title(i), id=f"chat-col-{i}", classes="second" if i else "")
        yield Static("", id="chat-error")
        yield Input(placeholder="message · Enter sends · /help", id="chat-input")
        yield ConsoleFooter()

    def _column_title(self, i: int) -> str | None:
        """'B · T 0.9 · EAGLE3 depth 6 …': the temperature first, so a narrow column's ellipsis never hides it."""
        if self.n_columns == 1:
            return None
        s = self.sessions[i] if i < len(self.sessions) else None
        name = "AB"[i]
        if s is None:
            return name
        label = s.label or ""
        head, sep, tail = label.rpartition(" · T ")
        if sep and tail.replace(".", "", 1).isdigit():  # the label's own 'T 0.6' goes: the title leads with T
            label = head
        return f"{name} · T {s.temperature:g}" + (f" · {label}" if label else "")

    def _refresh_titles(self) -> None:
        if self.n_columns != 2:
            return
        for col, i in zip(self.columns(), range(2), strict=False):
            title = col.query(".col-title")
            if title:
                title.first(Static).update(Text(self._column_title(i) or "", no_wrap=True, overflow="ellipsis"))

    def columns(self) -> list[ChatColumn]:
        return list(self.query(ChatColumn))

    async def on_mount(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._resolve_sessions()
        for col, s in zip(self.columns(), self.sessions, strict=False):
            for turn in list(s.history):
                await col.add_finished(turn)
        self._refresh_status()
        self.set_interval(1 / FLUSH_HZ, self._flush)
        self.query_one("#chat-input", Input).focus()

    def on_unmount(self) -> None:
        if self._streaming:
            stop_all(self.sessions)
        if self._close_on_exit and self.sessions:
            sessions = list(self.sessions)

            async def close() -> None:
                for s in sessions:
                    await s.aclose()

            self._submit(Command.CHAT_CLOSE, close())  # the SDK clients live on the I/O thread's loop

    def _resolve_sessions(self) -> bool:
        """Call the factory until it gives sessions; its `ChatUnavailable` is the one line shown meanwhile."""
        if self.sessions:
            return True
        try:
            got = self._sessions_arg()
        except ChatUnavailable as e:
            self.show_error(f"{e} (sending retries)")
            return False
        self.sessions = [got] if isinstance(got, ChatSession) else list(got)[: self.n_columns]
        self._refresh_titles()
        self.show_error("")
        return True

    def _refresh_status(self) -> None:
        status = self.query_one("#chat-status", Static)
        if not self.sessions:
            status.update(Text("chat · no server yet", style="bold"))
            return
        s = self.sessions[0]
        t = Text()
        t.append("chat ", style="bold")
        t.append(s.model, style="bold")
        if self.n_columns == 1 and s.spec_label:
            t.append(f" · {s.spec_label}")
        if any(x.simulated for x in self.sessions):
            t.append(" SIMULATED ", style="bold black on yellow")
        t.append(f" · T {s.temperature:g} · max {s.max_tokens}")
        sp = " ".join(s.system_prompt.split())
        t.append(f" · system: {sp[:40] + '…' if len(sp) > 40 else sp}" if sp else " · no system prompt", style="dim")
        if self._streaming:
            t.append(" · streaming", style="bold green")
        t.no_wrap = True
        t.overflow = "ellipsis"
        status.update(t)

    def show_error(self, text: str) -> None:
        err = self.query_one("#chat-error", Static)
        err.update(Text(text, no_wrap=True, overflow="ellipsis"))
        err.set_class(bool(text), "shown")

    # --- streaming -------------------------------------------------------------------------

    def _post(self, msg: Message) -> None:
        """From the I/O thread: hand a message to this screen's loop without blocking."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.post_message, msg)
            except RuntimeError:
                pass

    def _on_text(self, i: int, delta: str) -> None:  # I/O thread
        cols = self._cols
        if i < len(cols):
            cols[i].pending.append(delta)

    def _on_done(self, i: int, turn: ChatTurn) -> None:  # I/O thread
        self._post(ChatTurnFinished(i, turn))

    async def send(self, text: str) -> None:
        """Send `text` to every column's session (both arms at once in the two-column mode)."""
        if self._streaming:
            self.show_error("a reply is streaming: Ctrl+S or Escape stops it")
            return
        if not self._resolve_sessions():
            return
        self.show_error("")
        self._cols = self.columns()
        for col in self._cols:
            await col.begin(text)
        self._streaming = set(range(len(self.sessions)))
        self._refresh_status()
        fut = self._submit(Command.CHAT, send_to_arms(self.sessions, text, self._on_text, self._on_done))
        if fut is None:
            self._streaming.clear()
            self.show_error("no I/O loop to send on (the console is shutting down)")
            return
        self._future = fut

        def done(f: concurrent.futures.Future) -> None:  # I/O thread (or immediately on cancel)
            if f.cancelled():
                return
            exc = f.exception()
            if exc is not None:
                self._post(CommandFailed.of(Command.CHAT, exc))

        fut.add_done_callback(done)

    _cols: list[ChatColumn] = []

    async def _flush(self) -> None:
        if not self._streaming:
            return
        for col in self._cols:
            s = self.sessions[col.index] if col.index < len(self.sessions) else None
            await col.flush(self._live_line(s) if s is not None else None)

    @staticmethod
    def _live_line(s: ChatSession) -> str:
        live, cur = s.live, s.current
        if live is None or live.done:
            return "…"
        if live.t_first_ns is None:
            if cur is not None and cur.reasoning:
                return f"thinking… {len(cur.reasoning):,} chars"
            return "waiting for the first token…"
        rate = live.live_tok_s()
        tail = f" · {rate:.0f} tok/s" if rate is not None else ""
        return f"streaming · {live.tokens} tok{tail}"

    async def on_chat_turn_finished(self, msg: ChatTurnFinished) -> None:
        cols = self._cols or self.columns()
        if msg.column < len(cols):
            await cols[msg.column].finish(msg.turn)
        self._streaming.discard(msg.column)
        if msg.turn.error:
            prefix = f"{'AB'[msg.column]}: " if self.n_columns == 2 else ""
            self.show_error(prefix + msg.turn.error)
        self._refresh_status()

    async def on_command_failed(self, msg: CommandFailed) -> None:
        """The submitted send raised (posted to this screen only; the console app's submit also notifies it)."""
        for col in self._cols:
            await col.fail(msg.text)
        self._streaming.clear()
        self.show_error(msg.text)
        self._refresh_status()

    # --- input -----------------------------------------------------------------------------

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "chat-input":
            return
        event.stop()
        text = event.value.strip()
        if not text:
            return
        event.input.value = ""
        if text.startswith("/"):
            await self._command(text)
        else:
            await self.send(text)

    async def _command(self, text: str) -> None:
        cmd, _, arg = text[1:].partition(" ")
        arg = arg.strip()
        cmd = cmd.lower()
        if cmd in ("system", "sys"):
            self._apply({"system_prompt": arg})
        elif cmd in ("temp", "temperature", "t"):
            try:
                t = float(arg)
            except ValueError:
                self.show_error(f"/temp: {arg!r} is not a number")
                return
            if not 0 <= t <= 2:
                self.show_error("/temp: temperature must be between 0 and 2")
                return
            self._apply({"temperature": t})
        elif cmd in ("max", "max_tokens"):
            try:
                m = int(arg)
            except ValueError:
                self.show_error(f"/max: {arg!r} is not a whole number")
                return
            if m < 1:
                self.show_error("/max: max tokens must be ≥ 1")
                return
            self._apply({"max_tokens": m})
        elif cmd == "clear":
            await self.action_clear()
        elif cmd == "save":
            self.action_save()
        elif cmd == "copy":
            self.action_copy()
        elif cmd in ("help", "?"):
            self.notify(HELP, title="chat", timeout=12)
        else:
            self.show_error(f"unknown command /{cmd} (try /help)")

    def _apply(self, values: dict[str, Any] | None) -> None:
        if not values or not self._resolve_sessions():
            return
        for s in self.sessions:
            for k, v in values.items():
                setattr(s, k, v)
        self.show_error("")
        self._refresh_titles()
        self._refresh_status()

    # --- actions ---------------------------------------------------------------------------

    def action_stop(self) -> None:
        if not self._streaming:
            self.notify("nothing is streaming", timeout=3)
            return
        stop_all(self.sessions)
        self.notify("stopping the reply (the partial answer is kept)", timeout=3)

    def action_stop_or_back(self) -> None:
        if self._streaming:
            self.action_stop()
        else:
            self.app.pop_screen()

    async def action_clear(self) -> None:
        if self._streaming:
            self.show_error("a reply is streaming: stop it before clearing")
            return
        for s in self.sessions:
            s.clear()
        for col in self.columns():
            await col.clear()
        self.show_error("")
        self.notify("history cleared (system prompt and settings kept)", timeout=3)

    def action_settings(self) -> None:
        if not self._resolve_sessions():
            return
        s = self.sessions[0]
        self.app.push_screen(ChatSettingsScreen(s.system_prompt, s.temperature, s.max_tokens), self._apply)

    def _dir(self) -> Path | None:
        d = self._session_dir() if callable(self._session_dir) else self._session_dir
        return Path(d) if d else None

    def action_save(self) -> None:
        d = self._dir()
        if d is None:
            self.show_error("no session directory to save into")
            return
        if not self.sessions or not any(s.history for s in self.sessions):
            self.notify("nothing to save yet", timeout=3)
            return
        saved = []
        try:
            for s in self.sessions:
                saved.append(s.save(d)[0])
        except OSError as e:
            self.show_error(f"save failed: {one_line(e)}")
            return
        names = " and ".join(p.with_suffix("").name + ".{json,md}" for p in saved)
        self.notify(f"saved {names} in {d}", title="chat saved", timeout=8)

    def action_copy(self) -> None:
        if not self.sessions or not any(s.history for s in self.sessions):
            self.notify("nothing to copy yet", timeout=3)
            return
        md = "\n\n---\n\n".join(s.to_markdown() for s in self.sessions)
        self.app.copy_to_clipboard(md)
        self.notify(f"copied the transcript as Markdown ({len(md):,} chars)", timeout=4)

    def action_both_arms(self) -> None:
        """Open a side-by-side chat: this server (A) and arm B (the app asks where B answers)."""
        fn = getattr(self.app, "action_chat_both", None)
        if fn is not None:
            fn()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "both_arms":  # only from a one-column chat inside the console app
            return self.n_columns == 1 and hasattr(self.app, "action_chat_both")
        return True
