"""Pilot tests of the chat screen: real `ChatSession`s whose openai SDK is served SGLang 0.5.23 wire fixtures by a
mock transport (paced, so streaming can be watched and stopped), run in a real I/O thread like the app's; plus
SVG snapshots at 80×24 and 160×48 from a deterministic history."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from textual.app import App

from console.core.run.chat import ChatSession
from console.ui.iothread import IoThread
from console.ui.screens.chat import ChatColumn, ChatScreen, ChatSettingsScreen
from tests.conftest import fixture_bytes
from tests.ui.waits import notes, wait_until

EAGLE3 = fixture_bytes("chat_stream_eagle3.sse")
STOP = fixture_bytes("chat_stream_eagle3_stop.sse")
FULL = ("Speculative decoding speeds up generation by letting a small draft model guess several tokens ahead, "
        "which the large target model then checks in one forward pass.")


class Paced(httpx.AsyncByteStream):
    """SSE events one by one, `delay` s apart; waits on `gate` (a threading.Event) before event `hold_after`."""

    def __init__(self, data: bytes, delay: float = 0.0, gate=None, hold_after: int = 0) -> None:
        self.events = [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]
        self.delay, self.gate, self.hold_after = delay, gate, hold_after

    async def __aiter__(self):
        for i, ev in enumerate(self.events):
            if self.gate is not None and i == self.hold_after:
                while not self.gate.is_set():
                    await asyncio.sleep(0.005)
            if self.delay:
                await asyncio.sleep(self.delay)
            yield ev


class Clock:
    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        self.t += 10_000_000
        return self.t


def make_session(data: bytes = EAGLE3, *, status: int = 200, seen: list | None = None, label: str | None = None,
                 **paced) -> ChatSession:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(json.loads(request.content))
        if status != 200:
            return httpx.Response(status, content=fixture_bytes("unauthorized.json"),
                                  headers={"content-type": "application/json"})
        return httpx.Response(200, stream=Paced(data, **paced), headers={"content-type": "text/event-stream"})

    return ChatSession("http://sglang.test:30000", "sk-ui-secret", model="sim:moonshotai/Kimi-K2.6",
                       spec_label="EAGLE3 depth 6 topk 1 (7 draft tokens)", num_draft_tokens=7, simulated=True,
                       label=label, http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler)),
                       clock=Clock())


class Host(App):
    """A bare app that pushes the chat screen over its default screen (as the console's app does)."""

    def __init__(self, sessions, submit, session_dir=None) -> None:
        super().__init__()
        self._args = (sessions, submit, session_dir)

    def on_mount(self) -> None:
        self.push_screen(ChatScreen(*self._args))


@pytest.fixture
def io():
    t = IoThread("chat-test-io")
    yield t
    t.close(timeout_s=5)


def submitter(io: IoThread):
    return lambda what, coro: io.submit(coro)


def text_of(app, selector: str) -> str:
    region = app.screen.query_one(selector).region
    lines = [s.text for s in app.screen._compositor.render_strips()]
    return "\n".join(ln[region.x:region.right] for ln in lines[region.y:region.bottom])


async def type_and_send(pilot, text: str) -> None:
    """Type key by key (what a user does), then Enter."""
    for ch in text:
        await pilot.press("space" if ch == " " else ch)
    await pilot.press("enter")


async def send_line(pilot, text: str) -> None:
    """Fill the input line at once, then Enter (faster than typing)."""
    pilot.app.screen.query_one("#chat-input").value = text
    await pilot.press("enter")


async def test_type_send_stream_then_stats_line(io):
    import threading
    gate = threading.Event()
    s = make_session(gate=gate, hold_after=4)  # the stream pauses after 4 chunks until the gate opens
    app = Host(s, submitter(io))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await type_and_send(pilot, "hi there")
        col = app.screen.query_one(ChatColumn)
        await wait_until(pilot, lambda: "Speculative" in (col.md.source if col.md else ""))
        partial = col.md.source
        assert len(partial) < len(FULL)  # seen while still streaming
        assert "streaming" in text_of(app, "#chat-status")
        gate.set()
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await wait_until(pilot, lambda: "τ 3.92" in text_of(app, "#chat-col-0"), what="the turn's figures line")
        shown = text_of(app, "#chat-col-0")
        assert "› hi there" in shown and "Speculative decoding speeds up" in shown
        assert "TTFT 0.02 s" in shown and "427.3 tok/s" in shown and "48 tok" in shown and "τ 3.92" in shown
        assert "0.92 0.75 0.50 0.33 0.25 0.17" in shown  # wide figures at 160 columns
        assert s.history[0].assistant.startswith(FULL) and app.screen.query_one("#chat-input").value == ""


async def test_stop_keeps_partial_answer_and_marks_it(io):
    import threading
    gate = threading.Event()
    s = make_session(gate=gate, hold_after=4)
    app = Host(s, submitter(io))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await send_line(pilot, "go")
        col = app.screen.query_one(ChatColumn)
        await wait_until(pilot, lambda: "small draft model" in (col.md.source if col.md else ""))
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await wait_until(pilot, lambda: "τ — (stopped before the spec details)" in text_of(app, "#chat-col-0"),
                         what="the stopped turn's figures line")
        turn = s.history[0]
        assert turn.stopped and turn.assistant.endswith("small draft model")
        shown = text_of(app, "#chat-col-0")
        assert "stopped" in shown and "τ — (stopped before the spec details)" in shown
        assert "small draft model" in shown
        # escape when idle goes back
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChatScreen), what="the chat screen closed")
    gate.set()


async def test_escape_stops_a_running_reply(io):
    import threading
    gate = threading.Event()
    s = make_session(gate=gate, hold_after=4)
    app = Host(s, submitter(io))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await send_line(pilot, "go")
        await wait_until(pilot, lambda: s.live is not None and s.live.n_chunks >= 2)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        assert isinstance(app.screen, ChatScreen) and s.history[0].stopped
    gate.set()


async def test_save_writes_into_the_session_and_notifies_the_path(io, tmp_path: Path):
    s = make_session()
    app = Host(s, submitter(io), tmp_path)
    messages = []
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await pilot.press("f2")
        assert not (tmp_path / "chat-1.json").exists()  # nothing to save yet
        await send_line(pilot, "q")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await pilot.press("f2")
        await wait_until(pilot, lambda: any("chat-1.{json,md}" in n for n in notes(messages)),
                         what="the 'chat saved' toast")
    obj = json.loads((tmp_path / "chat-1.json").read_text())
    assert obj["turns"][0]["stats"]["histogram"] == [1, 2, 3, 2, 1, 1, 2]
    assert "sk-ui-secret" not in (tmp_path / "chat-1.json").read_text() + (tmp_path / "chat-1.md").read_text()
    assert any("chat-1.{json,md}" in n and str(tmp_path) in n for n in notes(messages))


async def test_401_and_server_gone_show_one_line(io):
    s = make_session(status=401)
    app = Host(s, submitter(io))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await send_line(pilot, "hi")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await wait_until(pilot, lambda: text_of(app, "#chat-error").strip(), what="the error line")
        err = text_of(app, "#chat-error")
        assert err.strip().startswith("HTTP 401: Unauthorized") and "Traceback" not in err
        assert app.screen.query_one("#chat-error").region.height == 1


async def test_settings_form_and_slash_commands_change_the_next_request(io):
    seen: list = []
    s = make_session(seen=seen)
    app = Host(s, submitter(io))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatSettingsScreen), what="the settings form")
        app.screen.query_one("#temperature").value = "hot"
        await pilot.click("#apply")
        await wait_until(pilot, lambda: str(app.screen.query_one("#settings-error").render()).strip(),
                         what="the settings form's error line")
        assert "temperature: 'hot' is not a number" in str(app.screen.query_one("#settings-error").render())
        app.screen.query_one("#temperature").value = "0.2"
        app.screen.query_one("#system_prompt").value = "Answer in one sentence."
        app.screen.query_one("#max_tokens").focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen) and "T 0.2" in text_of(app, "#chat-status"),
                         what="the chat screen back, its status line with the new settings")
        assert (s.temperature, s.system_prompt) == (0.2, "Answer in one sentence.")
        assert "T 0.2" in text_of(app, "#chat-status") and "system: Answer" in text_of(app, "#chat-status")
        await send_line(pilot, "/max 64")
        await send_line(pilot, "/temp 9")
        assert "between 0 and 2" in text_of(app, "#chat-error")
        await send_line(pilot, "hello")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
    body = seen[0]
    assert (body["temperature"], body["max_tokens"]) == (0.2, 64)
    assert body["messages"][0] == {"role": "system", "content": "Answer in one sentence."}


async def test_clear_empties_transcript_and_history(io):
    s = make_session()
    app = Host(s, submitter(io))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await send_line(pilot, "one")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await pilot.press("ctrl+l")
        await wait_until(pilot, lambda: not app.screen.query_one(ChatColumn).transcript.children,
                         what="the transcript emptied")
        assert s.history == []


async def test_both_arms_side_by_side(io):
    a, b = make_session(label="k26-eagle3-d6"), make_session(STOP, label="k26-eagle3-d7")
    app = Host([a, b], submitter(io))
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        cols = app.screen.query(ChatColumn)
        assert len(cols) == 2
        await send_line(pilot, "same")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await wait_until(pilot, lambda: "τ 3.92" in text_of(app, "#chat-col-0") and "34 tok" in text_of(app, "#chat-col-1"),
                         what="both columns' figures lines")
        left, right = text_of(app, "#chat-col-0"), text_of(app, "#chat-col-1")
        assert "A · T 0.6 · k26-eagle3-d6" in left and "B · T 0.6 · k26-eagle3-d7" in right
        assert "τ 3.92" in left and "48 tok" in left
        assert "34 tok" in right and "stop" in right
    assert len(a.history) == len(b.history) == 1


async def test_in_the_console_app_through_its_submit_with_no_server_reachable():
    """The lead's wiring: `ChatScreen.for_runtime(app.runtime, app.submit)` over the dashboard."""
    from console.core.launch.ports import free_port
    from tests.ui.test_app import app_with_fake
    app, holder = app_with_fake()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: holder and app.runtime is holder[0] and "READY" in text_of(app, "#server"),
                         what="the dashboard over the fake runtime")
        holder[0].state.base_url = f"http://127.0.0.1:{free_port()}"
        app.push_screen(ChatScreen.for_runtime(app.runtime, app.submit))
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen)
                         and "sim:moonshotai/Kimi-K2.6" in text_of(app, "#chat-status"), what="the chat's status line")
        await send_line(pilot, "hi")
        await wait_until(pilot, lambda: not app.screen._streaming, what="the reply over")
        await wait_until(pilot, lambda: text_of(app, "#chat-error").strip(), what="the error line")
        assert text_of(app, "#chat-error").strip().startswith("server unreachable")
        first = app.screen.sessions[0]
        ticks = []
        real_refresh = app._refresh_state
        app._refresh_state = lambda: (ticks.append(1), real_refresh())[1]
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ChatScreen), what="the dashboard back")
        back = len(ticks)
        await wait_until(pilot, lambda: len(ticks) >= back + 2, what="the dashboard refreshing (two ticks)")
        app.push_screen(ChatScreen.for_runtime(app.runtime, app.submit))
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen) and "› hi" in text_of(app, "#chat-col-0"),
                         what="the chat screen again, its transcript")
        assert app.screen.sessions[0] is first and "› hi" in text_of(app, "#chat-col-0")  # same arm: resumed


# --- snapshots ----------------------------------------------------------------------------------


def finished_session(label: str | None = None, data: bytes = EAGLE3) -> ChatSession:
    s = make_session(data, label=label)
    s.system_prompt = "You are a concise assistant for GPU operators."

    async def run() -> None:
        await s.stream_turn("What does speculative decoding buy me?")
        await s.stream_turn("And in one more sentence?")
    asyncio.run(run())
    return s


def no_submit(what, coro):
    coro.close()
    return None


async def settle(pilot) -> None:
    """Every column shows its last turn's figures line (the transcript is mounted and laid out at its end)."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ChatScreen) and all(
        "tok/s" in text_of(pilot.app, f"#chat-col-{i}") for i in range(pilot.app.screen.n_columns)),
        what="every column's last figures line")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_chat_snapshot(snap_compare, size):
    app = Host(finished_session(), no_submit)
    assert snap_compare(app, terminal_size=size, run_before=settle)


def test_chat_both_arms_snapshot(snap_compare):
    app = Host([finished_session("k26-eagle3-d6"), finished_session("k26-eagle3-d7", STOP)], no_submit)
    assert snap_compare(app, terminal_size=(160, 48), run_before=settle)


async def test_a_long_fast_answer_keeps_the_view_at_its_figures_line(io):
    """A reply far taller than the column, streamed fast: when it ends, the figures line is on screen (the view
    followed the whole answer); after the reader scrolls up, a new chunk does not pull the view back down."""
    long = b"\n\n".join(
        b'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,'
        b'"delta":{"content":"word %d, and another line of words to fill the column.\\n\\n"},"finish_reason":null}]}'
        % i for i in range(300))
    tail = EAGLE3.split(b"\n\n", 1)[1]  # the fixture's remaining chunks: text, sglext, usage, [DONE]
    s = make_session(long + b"\n\n" + tail, delay=0.0005)
    app = Host(s, submitter(io))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat screen")
        await type_and_send(pilot, "go")
        await wait_until(pilot, lambda: s.history and not s.busy, 30, what="the long answer finished")
        col = app.screen.query_one(ChatColumn)
        await wait_until(pilot, lambda: "TTFT" in text_of(app, "ChatColumn"), what="the figures line on screen")
        assert col.transcript.max_scroll_y > 20  # the answer is much taller than the view
        assert "tok/s" in text_of(app, "ChatColumn") and "TTFT" in text_of(app, "ChatColumn")
        col.transcript.scroll_home(animate=False)  # the reader scrolls up to read the start
        col.transcript.release_anchor()
        await wait_until(pilot, lambda: col.transcript.scroll_y == 0, what="the view at the answer's start")
        height = col.transcript.virtual_size.height
        col.pending.append("one more line, after the reader scrolled up.\n\n")  # a new chunk arrives
        await col.flush("live")
        await wait_until(pilot, lambda: col.transcript.virtual_size.height > height,
                         what="the transcript laid out with the new chunk")
        await pilot.pause()
        assert col.transcript.scroll_y < col.transcript.max_scroll_y - 5
