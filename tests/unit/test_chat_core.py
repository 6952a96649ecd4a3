"""The core chat client (`console.core.run.chat`) through the real openai SDK, served SGLang 0.5.23 wire
fixtures by an httpx MockTransport: spec figures from the sglext chunk, stop, cancel, errors, save, both arms."""

from __future__ import annotations

import asyncio
import json
import types
from pathlib import Path

import httpx
import pytest

from console.core.run import chat as chatmod
from console.core.run.chat import ChatSession, ChatUnavailable, format_stats, send_to_arms, spec_details, stop_all
from console.core.measure import stats
from tests.conftest import ChunkedStream, fixture_bytes

EAGLE3 = fixture_bytes("chat_stream_eagle3.sse")
EAGLE3_TEXT = ("Speculative decoding speeds up generation by letting a small draft model guess several tokens ahead, "
               "which the large target model then checks in one forward pass. Every accepted guess saves a full "
               "decoding step, so the answer arrives sooner while staying exactly what the target")
H = [1, 2, 3, 2, 1, 1, 2]


class Clock:
    """perf_counter_ns stand-in: +10 ms per reading (the figures become exact)."""

    def __init__(self) -> None:
        self.t = 0

    def __call__(self) -> int:
        self.t += 10_000_000
        return self.t


class SlowStream(httpx.AsyncByteStream):
    """Replays SSE events one by one, `delay` s apart; `gate` (if given) holds the stream after `hold_after`."""

    def __init__(self, data: bytes, delay: float = 0.01, gate: asyncio.Event | None = None, hold_after: int = 0,
                 started: list | None = None) -> None:
        self.events = [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]
        self.delay, self.gate, self.hold_after, self.started = delay, gate, hold_after, started
        self.seen = False

    async def __aiter__(self):
        if self.started is not None and not self.seen:  # the SDK may drain the body again after [DONE]
            self.started.append(asyncio.get_running_loop().time())
        self.seen = True
        for i, ev in enumerate(self.events):
            if self.gate is not None and i == self.hold_after:
                await self.gate.wait()
            await asyncio.sleep(self.delay)
            yield ev


async def until(pred, timeout_s: float = 20.0) -> None:
    """Wait for `pred` (no fall-through: a condition not reached within the generous bound fails the test)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while not pred():
        assert loop.time() < end, "condition not reached"
        await asyncio.sleep(0.005)


def sse_transport(body_for, seen: list | None = None, status: int = 200) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append((request, json.loads(request.content)))
        if status != 200:
            return httpx.Response(status, content=fixture_bytes("unauthorized.json"),
                                  headers={"content-type": "application/json"})
        return httpx.Response(200, stream=body_for(), headers={"content-type": "text/event-stream"})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def session(body_for=lambda: ChunkedStream(EAGLE3, seed=1), seen=None, **kw) -> ChatSession:
    kw.setdefault("num_draft_tokens", 7)
    kw.setdefault("spec_label", "EAGLE3 depth 6 topk 1 (7 draft tokens)")
    kw.setdefault("model", "moonshotai/Kimi-K2.6")
    return ChatSession("http://sglang.test:30000", "sk-secret-123", http_client=sse_transport(body_for, seen), **kw)


async def test_fixture_stream_parses_through_the_sdk_and_figures_match_the_histogram():
    seen, deltas = [], []
    s = session(seen=seen, clock=Clock())
    turn = await s.stream_turn("Explain speculative decoding.", deltas.append)
    await s.aclose()
    assert turn.error is None and not turn.stopped
    assert turn.assistant == EAGLE3_TEXT == "".join(deltas)
    # the request: SDK path, bearer key, SGLang extensions in the body
    req, body = seen[0]
    assert req.url.path == "/v1/chat/completions" and req.headers["authorization"] == "Bearer sk-secret-123"
    assert body["return_spec_tokens_details"] is True and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True, "continuous_usage_stats": True}
    assert body["messages"] == [{"role": "user", "content": "Explain speculative decoding."}]
    rec, st = turn.record, turn.stats
    assert rec.rid == "5f0c2b9e4a7d4c1f9b3e8d6a2c7f1e04"
    assert rec.spec_histogram == H and rec.spec_verify_ct == 12 and rec.spec_num_correct_drafts == 35
    assert (rec.completion_tokens, rec.prompt_tokens, rec.first_chunk_tokens, rec.n_content_chunks) == (48, 27, 1, 12)
    assert rec.finish_reason == "length"
    # figures come from core's definitions
    assert st.tau == pytest.approx(1 + 35 / 12) == stats.histogram_tau(H)
    assert st.per_position == pytest.approx(stats.per_position_acceptance(H, 6))
    assert st.per_position == pytest.approx([11 / 12, 9 / 12, 6 / 12, 4 / 12, 3 / 12, 2 / 12])
    assert st.accept_rate_check == pytest.approx(35 / 72) == st.server_accept_rate
    # clock: t0 = 10 ms, role chunk 20 ms, first content 30 ms, 12th content 140 ms
    assert st.ttft_s == pytest.approx(0.020)
    assert st.tok_s == pytest.approx((48 - 1) / 0.110) == stats.output_tok_s(rec)
    line = format_stats(st)
    assert line.startswith("TTFT 0.02 s · 427.3 tok/s · 48 tok · τ 3.92 · p ") and line.endswith("length")
    assert "0.92 0.75 0.50 0.33 0.25 0.17" in format_stats(st, wide=True)
    assert s.history == [turn] and s.live.done


async def test_spec_details_read_from_dicts_models_attributes_and_lists():
    d = {"spec_verify_ct": 3, "spec_correct_drafts_histogram": [1, 1, 1]}
    assert spec_details({"sglext": {"spec_tokens_details": d}}) == d
    assert spec_details({"sglext": {"spec_tokens_details": [d, {"spec_verify_ct": 9}]}}) == d
    assert spec_details(types.SimpleNamespace(sglext=types.SimpleNamespace(spec_tokens_details=d))) == d
    assert spec_details(types.SimpleNamespace(sglext=None, model_extra={"sglext": {"spec_tokens_details": d}})) == d
    from openai.types.chat import ChatCompletionChunk
    chunk = ChatCompletionChunk.construct(id="x", choices=[], created=1, model="m", object="chat.completion.chunk",
                                          sglext={"spec_tokens_details": d})
    assert spec_details(chunk) == d
    assert spec_details({"choices": []}) is None


async def test_multi_turn_history_system_prompt_and_sampling_are_sent():
    seen = []
    s = session(seen=seen, system_prompt="Be brief.", temperature=0.3, max_tokens=48)
    await s.stream_turn("first")
    await s.stream_turn("second")
    await s.aclose()
    body = seen[1][1]
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "first"},
                                {"role": "assistant", "content": EAGLE3_TEXT}, {"role": "user", "content": "second"}]
    assert (body["temperature"], body["max_tokens"], body["model"]) == (0.3, 48, "moonshotai/Kimi-K2.6")
    assert [t.index for t in s.history] == [1, 2]
    s.clear()
    assert s.history == [] and s.messages("x")[0] == {"role": "system", "content": "Be brief."}


async def test_stop_keeps_the_partial_answer_marked_stopped_and_returns():
    gate = asyncio.Event()
    s = session(lambda: SlowStream(EAGLE3, delay=0.001, gate=gate, hold_after=5))
    task = asyncio.create_task(s.stream_turn("go"))
    await until(lambda: s.live is not None and s.live.n_chunks >= 4)  # every event before the gate is in
    assert s.busy and s.stop()
    turn = await asyncio.wait_for(task, 2)
    assert turn.stopped and turn.error is None and turn.done
    assert turn.assistant == "Speculative decoding speeds up generation by letting a small draft model guess several tokens"
    assert turn.stats.completion_tokens == 14 and turn.stats.tok_s is not None and turn.stats.tau is None
    assert "stopped" in turn.stats_line() and "τ —" in turn.stats_line()
    assert turn.record.error == "stopped by the user"
    assert s.history == [turn] and not s.busy and not s.stop()
    # the partial answer stays in context
    assert s.messages("next")[-2] == {"role": "assistant", "content": turn.assistant}
    await s.aclose()


async def test_cancelling_the_task_keeps_the_partial_turn_and_propagates():
    gate = asyncio.Event()
    s = session(lambda: SlowStream(EAGLE3, delay=0.001, gate=gate, hold_after=3))
    task = asyncio.create_task(s.stream_turn("go"))
    await until(lambda: s.live is not None and s.live.n_chunks >= 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (turn,) = s.history
    assert turn.stopped and turn.assistant.startswith("Speculative decoding")
    await s.aclose()


async def test_stop_from_another_thread():
    gate = asyncio.Event()
    s = session(lambda: SlowStream(EAGLE3, delay=0.001, gate=gate, hold_after=4))
    task = asyncio.create_task(s.stream_turn("go"))
    await until(lambda: s.live is not None and s.live.n_chunks >= 2)
    assert await asyncio.to_thread(s.stop)
    turn = await asyncio.wait_for(task, 2)
    assert turn.stopped
    await s.aclose()


async def test_401_is_one_line_with_a_hint():
    s = ChatSession("http://sglang.test:30000", None, http_client=sse_transport(lambda: None, status=401))
    turn = await s.stream_turn("hi")
    assert turn.error.startswith("HTTP 401: Unauthorized (the server wants an API key")
    assert "\n" not in turn.error and turn.stats is None and turn.stats_line().startswith("error: HTTP 401")
    assert s.messages("x") == [{"role": "user", "content": "x"}]  # a failed turn is not context
    await s.aclose()


async def test_server_gone_is_one_line():
    from console.core.launch.ports import free_port
    s = ChatSession(f"http://127.0.0.1:{free_port()}", None, stall_timeout_s=2)
    turn = await s.stream_turn("hi")
    assert turn.error.startswith("server unreachable") and "\n" not in turn.error
    await s.aclose()


async def test_in_band_error_and_truncated_stream():
    err = b'data: {"error":{"message":"The input is longer than the model\'s context length.","code":400}}\n\n'
    s = session(lambda: ChunkedStream(err + b"data: [DONE]\n\n"))
    turn = await s.stream_turn("hi")
    assert turn.error.startswith("server error in stream: The input is longer") and turn.assistant == ""
    await s.aclose()


async def test_a_stream_cut_mid_answer_keeps_the_text_and_says_truncated():
    cut = EAGLE3[: EAGLE3.index(b" then checks")]
    cut = cut[: cut.rindex(b"\n\n") + 2]
    s = session(lambda: ChunkedStream(cut))
    turn = await s.stream_turn("hi")
    assert turn.error == "the stream ended without a finish reason (truncated)"
    assert turn.assistant.endswith("which the large target model") and turn.stats.tok_s is not None
    assert s.messages("x") == [{"role": "user", "content": "x"}]
    await s.aclose()


class Dropping(httpx.AsyncByteStream):
    async def __aiter__(self):
        yield EAGLE3[:EAGLE3.index(b"data:", EAGLE3.index(b" decoding speeds up"))]
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


async def test_connection_dropped_mid_stream_is_one_line():
    s = session(Dropping)
    turn = await s.stream_turn("hi")
    assert turn.error == "connection lost mid-answer: peer closed connection without sending complete message body"
    assert turn.assistant == "Speculative decoding speeds up generation" and turn.stats.ttft_s is not None
    await s.aclose()


async def test_reasoning_deltas_are_kept_apart_and_never_sent_back():
    def ev(delta: dict, n: int | None = None, finish: str | None = None) -> bytes:
        obj = {"id": "r", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish,
                            "matched_stop": None}]}
        if n is not None:
            obj["usage"] = {"prompt_tokens": 5, "total_tokens": 5 + n, "completion_tokens": n}
        return b"data: " + json.dumps(obj).encode() + b"\n\n"

    body = (ev({"reasoning_content": None, "role": "assistant", "content": ""})
            + ev({"reasoning_content": "Let me think."}, 1) + ev({"reasoning_content": " Done."}, 4)
            + ev({"reasoning_content": None, "content": "42"}, 5) + ev({"reasoning_content": None}, None, "stop")
            + b"data: [DONE]\n\n")
    s = session(lambda: ChunkedStream(body), clock=Clock())
    thoughts: list[str] = []
    turn = await s.stream_turn("q", None, thoughts.append)
    assert (turn.reasoning, turn.assistant, "".join(thoughts)) == ("Let me think. Done.", "42", "Let me think. Done.")
    assert turn.stats.ttft_s == pytest.approx(0.02) and turn.stats.first_chunk_tokens == 1  # reasoning counts
    assert turn.stats.tau is None and turn.error is None
    assert s.messages() == [{"role": "user", "content": "q"}, {"role": "assistant", "content": "42"}]
    assert "<details><summary>reasoning</summary>" in s.to_markdown()
    await s.aclose()


async def test_save_writes_json_and_markdown_without_the_key(tmp_path: Path):
    s = session(clock=Clock(), system_prompt="You are terse. sk-secret-123 must not leak.")
    await s.stream_turn("Explain speculative decoding.")
    j, m = s.save(tmp_path)
    assert (j.name, m.name) == ("chat-1.json", "chat-1.md")
    for p in (j, m):
        assert "sk-secret-123" not in p.read_text()
    obj = json.loads(j.read_text())
    assert obj["model"] == "moonshotai/Kimi-K2.6" and obj["kind"] == "chat"
    assert obj["server"]["spec_label"] == "EAGLE3 depth 6 topk 1 (7 draft tokens)"
    assert [x["role"] for x in obj["messages"]] == ["system", "user", "assistant"]
    t = obj["turns"][0]
    assert t["stats"]["histogram"] == H and t["stats"]["tau"] == pytest.approx(1 + 35 / 12)
    assert t["record"]["spec_histogram"] == H and "openai SDK" in obj["timing"]
    md = m.read_text()
    assert "## Turn 1" in md and "τ 3.92" in md and EAGLE3_TEXT in md and "timed by the openai SDK" in md
    assert s.save(tmp_path)[0].name == "chat-1.json"  # same conversation, same file
    s.clear()
    await s.stream_turn("again")
    assert s.save(tmp_path)[0].name == "chat-2.json"
    await s.aclose()


async def test_send_to_arms_streams_both_concurrently():
    started: list = []
    both = asyncio.Event()

    class Gated(SlowStream):
        """Holds after its first event until the other arm's stream has started: arms sent one after the other
        never get past it (the first waits for a stream that has not been requested): the wait_for below fails."""

        async def __aiter__(self):
            if len(started) == 1 and not self.seen:
                both.set()  # the second stream starts while the first is held: both are in flight
            async for ev in super().__aiter__():
                yield ev

    a = session(lambda: Gated(EAGLE3, delay=0.001, gate=both, hold_after=1, started=started), label="A")
    b = session(lambda: Gated(fixture_bytes("chat_stream_eagle3_stop.sse"), delay=0.001, gate=both, hold_after=1,
                              started=started), label="B")
    got: dict[int, list[str]] = {0: [], 1: []}
    done: list[int] = []
    turns = await asyncio.wait_for(send_to_arms([a, b], "same question", lambda i, d: got[i].append(d),
                                                lambda i, t: done.append(i)), 30)
    assert len(started) == 2 and both.is_set()  # both in flight at once: neither passed its first event alone
    assert [t.error for t in turns] == [None, None] and sorted(done) == [0, 1]
    assert "".join(got[0]) == turns[0].assistant == EAGLE3_TEXT
    assert turns[1].record.finish_reason == "stop" and turns[1].stats.histogram == [2, 2, 1, 2, 2, 1]
    assert turns[1].stats.completion_tokens == 34
    assert stop_all([a, b]) == 0
    await a.aclose()
    await b.aclose()


def test_a_chat_on_the_runtimes_server_takes_url_key_model_and_spec(monkeypatch):
    """The chat is handed a URL and a key (Runtime.chat_target), never the runtime itself."""
    from tests.ui.fake_runtime import FakeRuntime
    rt = FakeRuntime(lambda e: None)
    rt._api_key = "k"
    target = rt.chat_target()
    assert (target.url, target.api_key, target.simulated) == ("http://127.0.0.1:30000", "k", True)
    s = ChatSession.on_server(target, temperature=0.2)
    assert s.base_url == "http://127.0.0.1:30000" and s._api_key == "k"
    assert s.model == "sim:moonshotai/Kimi-K2.6" and s.num_draft_tokens == 7 and s.simulated
    assert s.spec_label == rt.state.server.arm.label() and s.temperature == 0.2
    rt.state.phase = "launching"
    with pytest.raises(ChatUnavailable, match="no server to chat with yet"):
        rt.chat_target()


def test_describe_error_never_multiline():
    assert chatmod.describe_error(ValueError("a\nb")) == "ValueError: a b"


async def test_building_the_sdk_client_is_not_counted_in_ttft():
    """The first turn imports openai and builds the client (hundreds of ms on a cold process): that is the
    console's cost, not the server's, so the clock starts after it."""
    clock = Clock()
    s = session(clock=clock)
    real = ChatSession._sdk

    def slow_sdk(self):
        if self._client is None:
            clock.t += 5_000_000_000  # 5 s spent building the client
        return real(self)

    s._sdk = types.MethodType(slow_sdk, s)
    turn = await s.stream_turn("hi")
    await s.aclose()
    assert turn.error is None and turn.stats.ttft_s < 1.0, turn.stats.ttft_s
