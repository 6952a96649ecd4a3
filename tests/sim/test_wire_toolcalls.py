"""Tool calls and reasoning on a twin launched with `--tool-call-parser kimi_k2 --reasoning-parser kimi_k2`, as
SGLang 0.5.23 serves them (serving_chat.py, function_call/kimik2_detector.py, parser/reasoning_parser.py): the
answer's shape streamed and not, call ids, argument fragments that add up to JSON valid against the tool's schema,
finish_reason tool_calls, reasoning_content and its switches, the openai SDK's view. The parsing itself is checked
against SGLang's detectors in tests/contract/test_kimi_k2_contract.py."""

from __future__ import annotations

import json
import re

import httpx
import openai
import pytest

from .twin_process import FAST, MODEL, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + ["--mem-fraction-static", "0.96", "--sim-seed", "4", "--tool-call-parser", "kimi_k2",
                       "--reasoning-parser", "kimi_k2"]
CHAT = "/v1/chat/completions"
WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Current weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]},
                                     "days": {"type": "integer", "minimum": 1, "maximum": 7}},
    "required": ["city", "unit"]}}}
SEARCH = {"type": "function", "function": {"name": "search_web", "parameters": {
    "type": "object", "properties": {"query": {"type": "string"}, "top_k": {"type": "integer", "minimum": 1,
                                                                            "maximum": 10}},
    "required": ["query"]}}}
ASK = [{"role": "user", "content": "What is the weather in Paris? Use the tools."}]
NO_THINK = {"chat_template_kwargs": {"thinking": False}}
CALL_ID = re.compile(r"^functions\.(get_weather|search_web):(\d+)$")


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def post(twin, **body) -> httpx.Response:
    return httpx.post(twin.url + CHAT, json={"model": "m", "messages": ASK, "max_tokens": 2000, **body}, timeout=60)


def check_arguments(name: str, arguments: str) -> None:
    args = json.loads(arguments)
    assert isinstance(args, dict)
    if name == "get_weather":
        assert isinstance(args["city"], str) and args["unit"] in ("c", "f")
        assert set(args) <= {"city", "unit", "days"}
        assert "days" not in args or (isinstance(args["days"], int) and 1 <= args["days"] <= 7)
    else:
        assert isinstance(args["query"], str) and set(args) <= {"query", "top_k"}
        assert "top_k" not in args or 1 <= args["top_k"] <= 10


def test_required_tool_call_non_stream(twin):
    b = post(twin, tools=[WEATHER, SEARCH], tool_choice="required", **NO_THINK).json()
    (c,) = b["choices"]
    assert list(c["message"]) == ["role", "content", "reasoning_content", "tool_calls"]
    assert c["message"]["content"] == "" and c["message"]["reasoning_content"] is None
    assert c["finish_reason"] == "tool_calls" and c["matched_stop"] is None
    calls = c["message"]["tool_calls"]
    assert calls and [t["index"] for t in calls] == list(range(len(calls)))
    for i, t in enumerate(calls):
        assert list(t) == ["id", "index", "type", "function"] and t["type"] == "function"
        m = CALL_ID.match(t["id"])
        assert m and m.group(1) == t["function"]["name"] and int(m.group(2)) == i
        check_arguments(t["function"]["name"], t["function"]["arguments"])


def test_named_tool_choice_calls_that_tool(twin):
    b = post(twin, tools=[WEATHER, SEARCH], tool_choice={"type": "function", "function": {"name": "search_web"}},
             **NO_THINK).json()
    calls = b["choices"][0]["message"]["tool_calls"]
    assert [t["function"]["name"] for t in calls] == ["search_web"]


def assemble(evs: list[dict]) -> tuple[dict[int, dict], str, str]:
    """(calls by index, content, reasoning) from a chat stream, checking each tool-call chunk's shape."""
    calls: dict[int, dict] = {}
    content = reasoning = ""
    for e in evs:
        if not e["choices"]:
            continue
        d = e["choices"][0]["delta"]
        if "tool_calls" in d:
            assert list(d) == ["role", "content", "reasoning_content", "tool_calls"] and "usage" in e
            (t,) = d["tool_calls"]
            if t["index"] not in calls:  # the first delta of a call names it
                assert CALL_ID.match(t["id"]) and t["function"]["name"]
                calls[t["index"]] = {"id": t["id"], "name": t["function"]["name"], "arguments": ""}
            else:
                assert t["id"] is None and t["function"]["name"] is None
            calls[t["index"]]["arguments"] += t["function"]["arguments"]
        content += d.get("content") or ""
        reasoning += d.get("reasoning_content") or ""
    return calls, content, reasoning


def test_required_tool_call_stream(twin):
    r = post(twin, tools=[WEATHER, SEARCH], tool_choice="required", stream=True)
    evs = sse_json(r.text)
    calls, content, reasoning = assemble(evs)
    assert calls and content == "" and reasoning  # thinking on by default: reasoning first
    first_call = next(i for i, e in enumerate(evs) if e["choices"] and "tool_calls" in e["choices"][0]["delta"])
    assert all("tool_calls" not in e["choices"][0]["delta"] for e in evs[:first_call])
    for c in calls.values():
        check_arguments(c["name"], c["arguments"])
    fin = evs[-1]["choices"][0]
    assert fin["finish_reason"] == "tool_calls" and isinstance(fin["matched_stop"], int)  # streamed: the EOS id


def test_auto_tool_choice_is_a_seeded_fraction(twin):
    prompts = [f"Look up the forecast for city number {i} with the weather tool." for i in range(24)]

    def decisions() -> list[bool]:
        out = []
        for p in prompts:
            b = post(twin, messages=[{"role": "user", "content": p}], tools=[WEATHER], temperature=0,
                     **NO_THINK).json()
            c = b["choices"][0]
            out.append("tool_calls" in c["message"])
            assert (c["finish_reason"] == "tool_calls") == out[-1]
        return out

    first = decisions()
    assert 0.3 <= sum(first) / len(first) <= 0.95, first
    assert decisions() == first  # greedy requests decide the same way again


def test_tool_choice_none_and_no_tools_answer_in_text(twin):
    for body in ({"tools": [WEATHER], "tool_choice": "none"}, {}):
        c = post(twin, max_tokens=20, **body, **NO_THINK).json()["choices"][0]
        assert "tool_calls" not in c["message"] and c["message"]["content"]
        assert c["finish_reason"] in ("stop", "length")


def test_call_ids_count_the_conversation(twin):
    history = ASK + [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "functions.get_weather:0", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"unit\": \"c\"}"}}]},
        {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "18 C"},
        {"role": "user", "content": "And in Rome?"}]
    b = post(twin, messages=history, tools=[WEATHER], tool_choice="required", **NO_THINK).json()
    calls = b["choices"][0]["message"]["tool_calls"]
    assert [t["id"] for t in calls] == [f"functions.{t['function']['name']}:{1 + i}" for i, t in enumerate(calls)]


def test_reasoning_non_stream_and_usage(twin):
    b = post(twin, max_tokens=4000, messages=[{"role": "user", "content": "Why is the sky blue?"}]).json()
    m = b["choices"][0]["message"]
    assert m["reasoning_content"] and m["content"] and "</think>" not in m["content"] + m["reasoning_content"]
    u = b["usage"]
    assert u["reasoning_tokens"] > 0 and u["completion_tokens_details"] == {"reasoning_tokens": u["reasoning_tokens"]}
    assert u["reasoning_tokens"] < u["completion_tokens"]


def test_reasoning_stream_comes_first(twin):
    r = post(twin, max_tokens=4000, stream=True, messages=[{"role": "user", "content": "Why is the sky blue?"}])
    evs = [e for e in sse_json(r.text) if e["choices"]]
    kinds = ["reasoning" if e["choices"][0]["delta"].get("reasoning_content") else
             "content" if e["choices"][0]["delta"].get("content") else "other" for e in evs]
    assert kinds.count("reasoning") > 1  # streamed as it arrives
    assert max(i for i, k in enumerate(kinds) if k == "reasoning") < min(i for i, k in enumerate(kinds)
                                                                         if k == "content")
    for e in evs:
        d = e["choices"][0]["delta"]
        if d.get("reasoning_content"):
            assert d == {"reasoning_content": d["reasoning_content"]}  # the msgspec chunk: no role, no content


def test_reasoning_switches(twin):
    q = [{"role": "user", "content": "Why is the sky blue?"}]
    off = post(twin, max_tokens=50, messages=q, **NO_THINK).json()
    assert off["choices"][0]["message"]["reasoning_content"] is None and off["usage"]["reasoning_tokens"] == 0
    kept = post(twin, max_tokens=4000, messages=q, separate_reasoning=False).json()
    m = kept["choices"][0]["message"]
    assert m["reasoning_content"] is None and "</think>" in m["content"]
    r = post(twin, max_tokens=4000, messages=q, stream=True, stream_reasoning=False)
    chunks = [e for e in sse_json(r.text) if e["choices"] and e["choices"][0]["delta"].get("reasoning_content")]
    assert len(chunks) == 1  # held back until the block ended


def test_openai_sdk_sees_tool_calls_and_reasoning(twin):
    client = openai.OpenAI(base_url=twin.url + "/v1", api_key="none")
    res = client.chat.completions.create(model="m", messages=ASK, tools=[WEATHER], tool_choice="required",
                                         max_tokens=2000)
    call = res.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather" and res.choices[0].finish_reason == "tool_calls"
    check_arguments(call.function.name, call.function.arguments)
    assert res.choices[0].message.model_extra.get("reasoning_content")
    stream = client.chat.completions.create(model="m", messages=ASK, tools=[WEATHER], tool_choice="required",
                                            max_tokens=2000, stream=True)
    args, finish = "", None
    for ch in stream:
        for c in ch.choices:
            for t in c.delta.tool_calls or []:
                args += t.function.arguments or ""
            finish = c.finish_reason or finish
    check_arguments("get_weather", args)
    assert finish == "tool_calls"


def test_short_question_thinks_briefly_like_sglangs_reasoning_test(twin):
    # test/srt/openai_server/features/test_reasoning_content.py: "What is 1+3?" with max_tokens 100 gets both a
    # reasoning_content and a content (the twin's reasoning grows with the prompt: a few dozen tokens here)
    for i in range(12):
        b = post(twin, max_tokens=100, messages=[{"role": "user", "content": f"What is {i}+3?"}]).json()
        m = b["choices"][0]["message"]
        assert m["reasoning_content"] and m["content"], (i, b["usage"])


def test_thinking_toggles_per_reasoning_parser():
    from console.sim.content.toolcalls import thinking_on
    assert thinking_on({}, "kimi_k2") and not thinking_on({"chat_template_kwargs": {"thinking": False}}, "kimi_k2")
    assert not thinking_on({"chat_template_kwargs": {"enable_thinking": False}}, "qwen3")
    assert thinking_on({"chat_template_kwargs": {"thinking": False}}, "qwen3")  # not qwen3's switch
    assert thinking_on({"chat_template_kwargs": {"thinking": False}}, "deepseek-r1")  # R1 always thinks
    assert not thinking_on({"reasoning_effort": "none"}, "kimi_k2")


def test_required_and_named_fit_a_short_budget_like_sglangs_tool_choice_test(twin):
    # test/srt/openai_server/function_call/test_tool_choice.py asks with max_tokens 200-400 and a long agent
    # prompt (thinking on here): the brief reasoning before a call leaves room for the call
    prompt = ("Answer the following questions as best you can. You will be given a trace of thinking process. "
              * 12)
    for i in range(8):
        for choice in ("required", {"type": "function", "function": {"name": "get_weather"}}):
            b = post(twin, max_tokens=200, tool_choice=choice, tools=[WEATHER, SEARCH],
                     messages=[{"role": "user", "content": f"{prompt} Question {i}: the weather in the top cities?"}]
                     ).json()
            calls = b["choices"][0]["message"].get("tool_calls")
            assert calls, (i, choice, b["usage"])
            if isinstance(choice, dict):
                assert {t["function"]["name"] for t in calls} == {"get_weather"}
