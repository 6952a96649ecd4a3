"""The twin's Kimi-K2 parsing against SGLang's own parsers: the twin's scripted answers (reasoning, tool-call
sections, answers; console/sim/content/outputs.py) cut into token-aligned chunks of 1-4 tokens, parsed by the twin
(console/sim/content/toolcalls.py) and by SGLang 0.5.23's ReasoningParser("kimi_k2") + FunctionCallParser(tools,
"kimi_k2") run in the real-sglang environment, the way serving_chat chains them (reasoning first, its stream end
flushed at the finish, then the tool parser, flushed too). Every chunk's reasoning text, content text and tool-call
items (index, name, argument fragment) must agree, and so must the non-streaming parse."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from console.sim.content.outputs import plan_chat
from console.sim.content.text import TextStream
from console.sim.content.toolcalls import KimiStreamParser, parse_final

from .conftest import ENV_PY, how_to_build

pytestmark = pytest.mark.real_sglang

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]},
                                     "days": {"type": "integer", "minimum": 1, "maximum": 7}},
    "required": ["city"]}}},
         {"type": "function", "function": {"name": "search_web", "parameters": {
             "type": "object", "properties": {"query": {"type": "string"},
                                              "filters": {"type": "array", "items": {"type": "string"}}},
             "required": ["query"]}}}]
ARGS = {"tool_call_parser": "kimi_k2", "reasoning_parser": "kimi_k2"}

SGLANG_SIDE = r"""
import json, sys
from sglang.srt.entrypoints.openai.protocol import Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import ReasoningParser

out = []
for case in json.load(sys.stdin):
    tools = [Tool(**t) for t in case["tools"]]
    rp = ReasoningParser("kimi_k2", stream_reasoning=case["stream_reasoning"], force_reasoning=True) \
        if case["reasoning"] else None
    fp = FunctionCallParser(tools, "kimi_k2") if case["tools_active"] else None
    steps = []
    for i, delta in enumerate(case["chunks"]):
        final = i == len(case["chunks"]) - 1
        reasoning, normal = "", delta
        if rp is not None:
            r, n = rp.parse_stream_chunk(delta)
            reasoning, normal = r or "", n or ""
            if final:
                r2, n2 = rp.parse_stream_end()
                reasoning += r2 or ""
                normal += n2 or ""
        calls, content = [], normal
        if fp is not None:
            content, items = fp.parse_stream_chunk(normal)
            if final:
                t2, c2 = fp.parse_stream_end()
                content += t2
                items = list(items) + list(c2)
            calls = [[c.tool_index, c.name, c.parameters] for c in items]
        steps.append({"reasoning": reasoning, "content": content, "calls": calls})
    text = "".join(case["chunks"])
    reasoning_text = None
    if case["reasoning"]:
        reasoning_text, text = ReasoningParser("kimi_k2", stream_reasoning=False, force_reasoning=True) \
            .parse_non_stream(text)
        text = text or ""
    final_calls = []
    if case["tools_active"]:
        p = FunctionCallParser(tools, "kimi_k2")
        if p.has_tool_call(text):
            text, items = p.parse_non_stream(text)
            final_calls = [[c.tool_index, c.name, c.parameters] for c in items]
    out.append({"steps": steps, "final": [reasoning_text or None, text, final_calls]})
json.dump(out, sys.stdout)
"""


def _cases(n: int) -> list[dict]:
    cases = []
    for i in range(n):
        rng = random.Random(f"case:{i}")
        body = {"messages": [{"role": "user", "content": f"Question {i}: the weather, or search?"}],
                "tools": TOOLS, "tool_choice": rng.choice(["auto", "required", "auto"]),
                "chat_template_kwargs": {"thinking": rng.random() < 0.7},
                "stream_reasoning": rng.random() < 0.8}
        plan, factory, _ = plan_chat(body, ARGS, "tool")
        key = f"req:77:{i}"
        free = TextStream(key, "tool")
        words = factory(key, free) if factory is not None else free
        total = (words.eos_at if getattr(words, "eos_at", None) is not None else
                 getattr(words, "free_from", 0) + rng.randint(5, 60))
        words.ensure(total)
        pieces, chunks, j = words.pieces[:total], [], 0
        while j < len(pieces):
            k = rng.randint(1, 4)
            chunks.append("".join(pieces[j:j + k]))
            j += k
        cases.append({"plan": plan, "chunks": chunks, "tools": TOOLS, "reasoning": plan.reasoning,
                      "stream_reasoning": plan.stream_reasoning, "tools_active": plan.tools})
    return cases


def _twin_side(case: dict) -> dict:
    plan = case["plan"]
    p = KimiStreamParser(reasoning=plan.reasoning, stream_reasoning=plan.stream_reasoning, tools=plan.tools)
    steps = []
    for i, delta in enumerate(case["chunks"]):
        events = p.feed(delta, i == len(case["chunks"]) - 1)
        steps.append({"reasoning": "".join(v for k, v in events if k == "reasoning"),
                      "content": "".join(v for k, v in events if k == "content"),
                      "calls": [[v.index, v.name, v.arguments] for k, v in events if k == "call"]})
    reasoning, text, calls = parse_final("".join(case["chunks"]), reasoning=plan.reasoning, tools=plan.tools,
                                         history=0)
    return {"steps": steps, "final": [reasoning, text, [[c["index"], c["function"]["name"],
                                                          c["function"]["arguments"]] for c in calls]]}


def test_twin_parses_kimi_output_as_sglang_does():
    if not ENV_PY.exists():
        pytest.fail(f"no real-sglang environment: {how_to_build()}", pytrace=False)
    cases = _cases(40)
    assert sum(1 for c in cases if "<|tool_call_begin|>" in "".join(c["chunks"])) >= 10  # calls are exercised
    assert sum(1 for c in cases if c["reasoning"]) >= 10
    payload = json.dumps([{k: v for k, v in c.items() if k != "plan"} for c in cases])
    run = subprocess.run([str(ENV_PY), "-c", SGLANG_SIDE], input=payload, capture_output=True, text=True,
                         timeout=300, env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr[-3000:]
    real = json.loads(run.stdout)
    for i, (case, want) in enumerate(zip(cases, real)):
        got = _twin_side(case)
        assert got["final"] == want["final"], (i, case["chunks"])
        for j, (g, w) in enumerate(zip(got["steps"], want["steps"])):
            assert g == w, (i, j, case["chunks"][max(0, j - 2):j + 1])
