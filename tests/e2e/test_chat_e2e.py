"""Chat end to end: the console attaches to the engine twin (a separate process speaking SGLang 0.5.23's wire
format) and chats through the official openai SDK; the turn carries TTFT, tok/s, τ and p_i, and saves."""

from __future__ import annotations

import asyncio
import json

import pytest

from console.core.run.chat import ChatSession, send_to_arms
from console.core.run.runtime import Runtime
from tests.sim.twin_process import EAGLE3_D6, FAST, MODEL, start_twin, stop_twin

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    t = start_twin(MODEL + EAGLE3_D6 + FAST + ["--mem-fraction-static", "0.96", "--api-key", "e2e-chat-key"], tmp_path_factory.mktemp("chat-twin"))
    yield t
    stop_twin(t)


async def test_one_turn_through_the_sdk_has_tau_and_tok_s(twin, tmp_path):
    rt = Runtime(attach_url=twin.url, api_key="e2e-chat-key", sessions=tmp_path)
    try:
        await rt.start()
        s = ChatSession.on_server(rt.chat_target(), max_tokens=96, system_prompt="Answer briefly.")
        assert s.model == "sim:moonshotai/Kimi-K2.6" and s.num_draft_tokens == 7
        deltas: list[str] = []
        turn = await s.stream_turn("Write a Python function that reverses a list.", deltas.append)
        assert turn.error is None and turn.assistant and "".join(deltas) == turn.assistant
        st = turn.stats
        assert st.completion_tokens and st.completion_tokens <= 96 and st.first_chunk_tokens == 1
        assert st.tok_s is not None and st.tok_s > 0 and st.ttft_s is not None and st.ttft_s > 0
        assert st.tau is not None and 1.0 <= st.tau <= 7.0
        assert sum(st.histogram) == st.verify_ct and len(st.per_position) == 6
        assert all(a >= b for a, b in zip(st.per_position, st.per_position[1:]))
        assert st.accept_rate_check == pytest.approx(st.server_accept_rate, abs=1e-9)
        assert "τ " in turn.stats_line() and "tok/s" in turn.stats_line()
        # a second turn carries the first as context; both arms at once (here: the same server twice)
        other = ChatSession.on_server(rt.chat_target(), max_tokens=32)
        turns = await send_to_arms([s, other], "And in Rust?")
        assert [t.error for t in turns] == [None, None] and all(t.stats.tau for t in turns)
        assert len(s.messages()) == 5  # system, 2 × (user, assistant)
        j, m = s.save(rt.session.dir)
        assert j.parent == rt.session.dir and "e2e-chat-key" not in j.read_text() + m.read_text()
        assert json.loads(j.read_text())["server"]["spec_label"].startswith("EAGLE-3 depth 6")
        await s.aclose()
        await other.aclose()
    finally:
        await rt.stop()


async def test_wrong_key_is_one_line(twin):
    s = ChatSession(twin.url, "not-the-key", max_tokens=8)
    turn = await s.stream_turn("hi")
    assert turn.error.startswith("HTTP 401") and "\n" not in turn.error
    await s.aclose()


async def test_both_arms_from_the_app_answer_side_by_side(twin, tmp_path, monkeypatch):
    """Dashboard → C → B = a server URL (its key from an env var) at temperature 0 → one message, two answers,
    each column with its own stats; then ctrl+b from a one-column chat opens the same dialog."""
    from console.ui.app import make_app
    from console.ui.screens.chat import BothArmsScreen, ChatScreen
    from tests.ui.test_chat_screen import text_of, type_and_send
    from tests.ui.waits import wait_until

    monkeypatch.setenv("SC_E2E_KEY_B", "e2e-chat-key")
    holder = {}

    def factory(observer):
        holder["rt"] = Runtime(attach_url=twin.url, api_key="e2e-chat-key", sessions=tmp_path, observer=observer)
        return holder["rt"]

    app = make_app(factory, auto_anchor=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: "rt" in holder and holder["rt"].state.phase == "attached", 30,
                         what="the runtime attached to the twin")
        await pilot.press("C")
        await wait_until(pilot, lambda: isinstance(app.screen, BothArmsScreen))
        dlg = app.screen
        dlg.query_one("#url").value = "ftp://nowhere"
        dlg.action_submit()
        await wait_until(pilot, lambda: str(dlg.query_one("#both-error").render()).strip(), what="the dialog's error line")
        assert "B server URL" in str(dlg.query_one("#both-error").render())  # one line naming the field
        dlg.query_one("#url").value = twin.url
        dlg.query_one("#api_key_env").value = "SC_E2E_KEY_B"
        dlg.query_one("#temperature").value = "0"
        dlg.action_submit()
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen.n_columns == 2,
                         what="the two-column chat")
        chat = app.screen
        a, b = chat.sessions
        assert (a.temperature, b.temperature) == (0.6, 0.0) and b.model == "sim:moonshotai/Kimi-K2.6"
        assert b.num_draft_tokens == 7 and b.spec_label.startswith("EAGLE-3")
        for s in (a, b):
            s.max_tokens = 48
        await type_and_send(pilot, "Say hello.")
        await wait_until(pilot, lambda: all(s.history and not s.busy for s in (a, b)), 30, what="both answers")
        for i, s in enumerate((a, b)):
            t = s.history[-1]
            assert t.error is None and t.stats.tau is not None and t.stats.tok_s > 0, t.error
        await wait_until(pilot, lambda: "tok/s" in text_of(app, "#chat-col-0") and "tok/s" in text_of(app, "#chat-col-1"),
                       what="both columns' figures lines")
        assert "A ·" in text_of(app, "#chat-col-0") and "B ·" in text_of(app, "#chat-col-1")
        await pilot.press("escape")  # back to the dashboard; the screen closes both arms' SDK clients
        await wait_until(pilot, lambda: a._client is None and b._client is None, what="both SDK clients closed")
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen.n_columns == 1,
                         what="the one-column chat")
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: isinstance(app.screen, BothArmsScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, BothArmsScreen), what="the dialog closed")
        assert isinstance(app.screen, ChatScreen) and app.screen.n_columns == 1
        await asyncio.wrap_future(app._io.submit(holder["rt"].stop()))
