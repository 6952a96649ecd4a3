"""Kimi-K2's tool-call and reasoning format as SGLang 0.5.23 parses it, written down from its source
(function_call/kimik2_detector.py: the section/call/argument tokens, `functions.NAME:IDX` ids, streamed items
(tool_index, name once, argument diffs), special tokens stripped from text; parser/reasoning_parser.py
KimiK2Detector: `<think>`/`</think>`, reasoning forced on, the tool section ending reasoning; serving_chat.py: call
ids `functions.NAME:history+index`, finish_reason tool_calls). The twin's parser (console/sim/content/toolcalls.py) must
give these exact items; tests/real_sglang/test_kimi_parsers_real.py checks it against SGLang's parsers themselves.
"""

from __future__ import annotations

from console.sim.content.toolcalls import KimiStreamParser, parse_final

SB, SE = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CB, CE, AB = "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>"

#: token by token, as the model emits them (special tokens are single tokens)
ONE_CALL = [SB, CB, "functions", ".get", "_weather", ":", "0", AB, '{"', "city", '":', ' "', "Paris", '"}', CE, SE]


def stream(chunks: list[str], **kw) -> list[tuple[str, object]]:
    p = KimiStreamParser(**kw)
    out = []
    for i, c in enumerate(chunks):
        for kind, v in p.feed(c, i == len(chunks) - 1):
            out.append((kind, (v.index, v.id, v.name, v.arguments) if kind == "call" else v))
    return out


def test_one_call_streamed_token_by_token():
    # nothing until the header closes with <|tool_call_argument_begin|>; then the name with an empty argument
    # diff, then one diff per argument token; the section tokens never reach the text
    assert stream(ONE_CALL, reasoning=False, stream_reasoning=True, tools=True) == [
        ("call", (0, "functions.get_weather:0", "get_weather", "")),
        ("call", (0, None, None, '{"')), ("call", (0, None, None, "city")), ("call", (0, None, None, '":')),
        ("call", (0, None, None, ' "')), ("call", (0, None, None, "Paris")), ("call", (0, None, None, '"}'))]


def test_text_before_the_section_is_content():
    chunks = ["Let", " me", " check", "."] + ONE_CALL
    ev = stream(chunks, reasoning=False, stream_reasoning=True, tools=True)
    assert "".join(v for k, v in ev if k == "content") == "Let me check."
    assert [v[2] for k, v in ev if k == "call" and v[2]] == ["get_weather"]


def test_two_calls_count_on_from_the_history():
    second = [CB, "functions", ".search", ":", "1", AB, '{"q": "x"}', CE]
    chunks = ONE_CALL[:-1] + second + [SE]
    ev = stream(chunks, reasoning=False, stream_reasoning=True, tools=True, history=3)
    named = [v for k, v in ev if k == "call" and v[2]]
    assert named == [(0, "functions.get_weather:3", "get_weather", ""), (1, "functions.search:4", "search", "")]
    reasoning, text, calls = parse_final("".join(chunks), reasoning=False, tools=True, history=3)
    assert text == "" and reasoning is None
    assert calls == [{"id": "functions.get_weather:3", "index": 0, "type": "function",
                      "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                     {"id": "functions.search:4", "index": 1, "type": "function",
                      "function": {"name": "search", "arguments": '{"q": "x"}'}}]


def test_reasoning_forced_then_answer():
    chunks = ["The", " user", " asks", ".", "</think>", "Hello", " there"]
    ev = stream(chunks, reasoning=True, stream_reasoning=True, tools=False)
    assert ev == [("reasoning", "The"), ("reasoning", " user"), ("reasoning", " asks"), ("reasoning", "."),
                  ("content", "Hello"), ("content", " there")]
    assert parse_final("".join(chunks), reasoning=True, tools=False, history=0) == ("The user asks.", "Hello there",
                                                                                      [])


def test_reasoning_held_back_without_stream_reasoning():
    chunks = ["The", " user", "</think>", "Hi"]
    assert stream(chunks, reasoning=True, stream_reasoning=False, tools=False) == [
        ("reasoning", "The user"), ("content", "Hi")]


def test_the_tool_section_ends_reasoning():
    chunks = ["Need", " a", " tool"] + ONE_CALL
    ev = stream(chunks, reasoning=True, stream_reasoning=True, tools=True)
    assert "".join(v for k, v in ev if k == "reasoning") == "Need a tool"
    assert [v for k, v in ev if k == "call"][0] == (0, "functions.get_weather:0", "get_weather", "")
    reasoning, text, calls = parse_final("".join(chunks), reasoning=True, tools=True, history=0)
    assert reasoning == "Need a tool" and text == "" and calls[0]["function"]["arguments"] == '{"city": "Paris"}'


def test_truncated_reasoning_is_all_reasoning():
    assert parse_final("still thinking", reasoning=True, tools=True, history=0) == ("still thinking", "", [])


def test_an_incomplete_call_is_dropped_from_the_answer():
    # max_tokens cut the arguments: no complete call, the text before the section stays
    text = "Ok" + "".join(ONE_CALL[:11])
    assert parse_final(text, reasoning=False, tools=True, history=0) == (None, "Ok", [])
