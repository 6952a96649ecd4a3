"""Chat end to end: the console attaches to the engine twin (a separate process speaking SGLang 0.5.23's wire
format) and chats through the official openai SDK; the turn carries TTFT, tok/s, τ and p_i, and saves."""

from __future__ import annotations

import json

import pytest

from console.core.engine.chat import ChatSession, send_to_arms
from console.core.runtime import Runtime
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
        s = ChatSession.from_runtime(rt, max_tokens=96, system_prompt="Answer briefly.")
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
        other = ChatSession.from_runtime(rt, max_tokens=32)
        turns = await send_to_arms([s, other], "And in Rust?")
        assert [t.error for t in turns] == [None, None] and all(t.stats.tau for t in turns)
        assert len(s.messages()) == 5  # system, 2 × (user, assistant)
        j, m = s.save(rt.session.dir)
        assert j.parent == rt.session.dir and "e2e-chat-key" not in j.read_text() + m.read_text()
        assert json.loads(j.read_text())["server"]["spec_label"].startswith("EAGLE3 depth 6")
        await s.aclose()
        await other.aclose()
    finally:
        await rt.stop()


async def test_wrong_key_is_one_line(twin):
    s = ChatSession(twin.url, "not-the-key", max_tokens=8)
    turn = await s.stream_turn("hi")
    assert turn.error.startswith("HTTP 401") and "\n" not in turn.error
    await s.aclose()
