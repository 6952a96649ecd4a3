"""Tool calls and reasoning in Kimi-K2's format, as `--tool-call-parser kimi_k2` / `--reasoning-parser kimi_k2`
serve them (SGLang 0.5.23: function_call/kimik2_detector.py, parser/reasoning_parser.py KimiK2Detector,
entrypoints/openai/serving_chat.py).

What the model writes (the twin scripts it, console/sim/content/scripted.py): with thinking on, a reasoning block
that the template opened (`<think>` is in the prompt, so the output starts inside it) closed by `</think>`; then
either an answer or a tool-call section

    <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}
    <|tool_call_end|><|tool_calls_section_end|>

(no line breaks) and EOS. IDX counts the conversation's calls (assistant tool_calls in the history + this one).

What the server makes of it (`KimiStreamParser`, `parse_final`): the reasoning parser splits the reasoning off
(streamed as it arrives, holding back a tail that could begin `</think>` or the section token; not at all with
`stream_reasoning: false` until it ends; left in the content with `separate_reasoning: false`); the tool parser
emits text before a call as content with Kimi's special tokens stripped, then one tool-call delta when a call's
header is complete (id `functions.NAME:IDX`, name, the arguments so far), then the arguments as they arrive (no id,
no name), and finish_reason `tool_calls` (streamed: `matched_stop` stays the EOS id; not streamed: null).

Which requests call a tool (`plan_tool_calls`): tools given, tool_choice not "none": "required" and a named tool
always call (the named one); "auto" calls with a seeded probability (0.7 in the tool domain, 0.35 elsewhere, 0.2
when the last message is a tool result), one call, two with parallel_tool_calls 20% of the time; arguments drawn
valid against the tool's parameters schema (console/sim/content/constrained.py).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from .constrained import schema_sample

SECTION_BEGIN = "<|tool_calls_section_begin|>"
SECTION_END = "<|tool_calls_section_end|>"
CALL_BEGIN = "<|tool_call_begin|>"
CALL_END = "<|tool_call_end|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
THINK_START = "<think>"
THINK_END = "</think>"
#: the twin's ids for Kimi's special tokens (above its word vocabulary; one token each)
SPECIAL_IDS = {SECTION_BEGIN: 163_595, SECTION_END: 163_596, CALL_BEGIN: 163_597, ARG_BEGIN: 163_598,
               CALL_END: 163_599, THINK_START: 163_606, THINK_END: 163_607}
_KIMI_SPECIALS = (SECTION_BEGIN, SECTION_END, CALL_BEGIN, CALL_END, ARG_BEGIN)
_CALL_ID = re.compile(r"^(?:functions\.)?(?P<name>[\w.\-]+):(?P<index>\d+)$")
_CALL = re.compile(re.escape(CALL_BEGIN) + r"\s*(?P<id>[^\s<|]+)\s*" + re.escape(ARG_BEGIN)
                   + r"\s*(?P<args>\{.*?\})\s*" + re.escape(CALL_END), re.DOTALL)

#: probability that a tool-choice "auto" request calls a tool
P_CALL_TOOL_DOMAIN, P_CALL_OTHER, P_CALL_AFTER_RESULT, P_TWO_CALLS = 0.7, 0.35, 0.2, 0.2


def tools_of(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's function tools as {"name", "parameters"}."""
    out = []
    for t in body.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            out.append({"name": fn["name"], "parameters": fn.get("parameters") or {"type": "object"}})
    return out


def history_calls(messages: list[Any]) -> int:
    """Tool calls of the assistant turns so far (`_get_history_tool_calls_cnt`)."""
    return sum(len(m.get("tool_calls") or []) for m in messages
               if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list))


def parsing_active(parser: str | None, body: dict[str, Any]) -> bool:
    """`_tool_call_parsing_active`: a tool parser, declared tools and tool_choice other than "none" (a JSON
    response_format turns it off)."""
    rf = body.get("response_format")
    if not parser or (isinstance(rf, dict) and rf.get("type") in ("json_object", "json_schema")):
        return False
    return bool(tools_of(body)) and body.get("tool_choice", "auto") != "none"


#: how a reasoning parser's model turns thinking on (reasoning_parser.py `reasoning_default`): a template kwarg
#: that is on unless false, or "always"; parsers not listed read Kimi's
THINKING_TOGGLE = {"kimi_k2": "thinking", "kimi": "thinking", "qwen3": "enable_thinking", "glm45": "enable_thinking",
                   "deepseek-r1": "always", "step3": "always"}


def thinking_on(body: dict[str, Any], parser: str = "kimi_k2") -> bool:
    """Whether the model writes a reasoning block: Kimi-K2's default ("thinking") is on unless
    chat_template_kwargs says thinking false; reasoning_effort "none" defaults it to false."""
    mode = THINKING_TOGGLE.get(parser, "thinking")
    if mode == "always":
        return True
    ctk = body["chat_template_kwargs"] if isinstance(body.get("chat_template_kwargs"), dict) else {}
    if mode in ctk:
        return ctk[mode] is not False
    return body.get("reasoning_effort") != "none"


@dataclass(frozen=True)
class PlannedCall:
    name: str
    arguments: str  #: JSON text, as the model writes it


def plan_tool_calls(body: dict[str, Any], domain: str, rng: random.Random) -> list[PlannedCall]:
    """The calls this request's answer makes (empty: it answers in text)."""
    tools = tools_of(body)
    choice = body.get("tool_choice", "auto")
    if not tools or choice == "none":
        return []
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if named is None and choice != "required":
        messages = body.get("messages") or []
        last = messages[-1].get("role") if messages and isinstance(messages[-1], dict) else None
        p = P_CALL_AFTER_RESULT if last == "tool" else P_CALL_TOOL_DOMAIN if domain == "tool" else P_CALL_OTHER
        if rng.random() >= p:
            return []
    pool = [t for t in tools if t["name"] == named] or tools
    n = 2 if body.get("parallel_tool_calls", True) and named is None and rng.random() < P_TWO_CALLS else 1
    calls = []
    for _ in range(n):
        t = rng.choice(pool)
        calls.append(PlannedCall(t["name"], json.dumps(schema_sample(t["parameters"], rng), ensure_ascii=False)))
    return calls


def section_text(calls: list[PlannedCall], first_index: int) -> list[tuple[str, bool]]:
    """The tool-call section as (text, is_special_token) runs."""
    runs: list[tuple[str, bool]] = [(SECTION_BEGIN, True)]
    for i, c in enumerate(calls):
        runs += [(CALL_BEGIN, True), (f"functions.{c.name}:{first_index + i}", False), (ARG_BEGIN, True),
                 (c.arguments, False), (CALL_END, True)]
    runs.append((SECTION_END, True))
    return runs


def strip_specials(text: str) -> str:
    for t in _KIMI_SPECIALS:
        text = text.replace(t, "")
    return text


def _partial_suffix(text: str, tokens: tuple[str, ...]) -> int:
    """Length of the longest tail of `text` that is a proper prefix of one of `tokens`."""
    best = 0
    for tok in tokens:
        for n in range(min(len(text), len(tok) - 1), 0, -1):
            if tok.startswith(text[-n:]):
                best = max(best, n)
                break
    return best


@dataclass
class CallDelta:
    """One streamed tool-call delta (ToolCall in a DeltaMessage)."""

    index: int
    id: str | None
    name: str | None
    arguments: str


@dataclass
class KimiStreamParser:
    """One choice's stream: raw text deltas in, (kind, payload) events out — ("reasoning", text),
    ("content", text), ("call", CallDelta)."""

    reasoning: bool  #: the reasoning parser splits reasoning off (parser set, separate_reasoning, thinking on)
    stream_reasoning: bool
    tools: bool  #: tool-call parsing active
    history: int = 0
    in_reasoning: bool = True
    _rbuf: str = ""
    _tbuf: str = ""
    _name: str | None = None
    _last_args: str = ""
    _tool_id: int = 0
    has_calls: bool = False
    _events: list[tuple[str, Any]] = field(default_factory=list)

    def feed(self, delta: str, final: bool) -> list[tuple[str, Any]]:
        self._events = []
        normal = self._reason(delta, final) if self.reasoning else delta
        if self.tools:
            self._tool(normal)
        elif normal:
            self._events.append(("content", normal))
        return self._events

    # ---- reasoning (BaseReasoningFormatDetector with force_reasoning: the output starts inside the block)
    def _reason(self, delta: str, final: bool) -> str:
        if not self.in_reasoning:
            return delta
        self._rbuf += delta
        buf = self._rbuf
        if buf.startswith(THINK_START):
            buf = buf[len(THINK_START):]
        cut = [i for i in (buf.find(THINK_END), buf.find(SECTION_BEGIN)) if i >= 0]
        if cut:
            i = min(cut)
            reasoning = buf[:i]
            rest = buf[i + len(THINK_END):] if buf.startswith(THINK_END, i) else buf[i:]
            self._rbuf, self.in_reasoning = "", False
            if reasoning:
                self._events.append(("reasoning", reasoning))
            return rest
        if final:
            self._rbuf = ""
            if buf:
                self._events.append(("reasoning", buf))
            return ""
        if self.stream_reasoning:
            hold = _partial_suffix(buf, (THINK_END, SECTION_BEGIN, THINK_START))
            out, self._rbuf = buf[:len(buf) - hold], buf[len(buf) - hold:]
            if out:
                self._events.append(("reasoning", out))
        else:
            self._rbuf = buf
        return ""

    # ---- tool calls (KimiK2Detector.parse_streaming_increment)
    def _tool(self, delta: str) -> None:
        self._tbuf += delta
        content: list[str] = []
        calls: list[tuple[str, Any]] = []
        while True:
            buf = self._tbuf
            begin = buf.find(CALL_BEGIN)
            if begin < 0:
                if self._name is None:
                    hold = _partial_suffix(buf, (SECTION_BEGIN, CALL_BEGIN))
                    emit, self._tbuf = buf[:len(buf) - hold], buf[len(buf) - hold:]
                    if emit:
                        content.append(strip_specials(emit))
                break
            if begin > 0:
                content.append(strip_specials(buf[:begin]))
                buf = self._tbuf = buf[begin:]
            arg = buf.find(ARG_BEGIN)
            if arg < 0:
                break  # the header is still arriving
            end = buf.find(CALL_END)
            args_start = arg + len(ARG_BEGIN)
            just_named = False
            if self._name is None:
                m = _CALL_ID.match(buf[len(CALL_BEGIN):arg].strip())
                if m is None:  # an id the parser cannot resolve: the section is skipped
                    if end < 0:
                        break
                    self._tbuf = buf[end + len(CALL_END):]
                    continue
                self._name, just_named = m.group("name"), True
            args = buf[args_start:end] if end >= 0 else buf[args_start:]
            diff = args[len(self._last_args):]
            if diff or just_named:
                self.has_calls = True
                calls.append(("call", CallDelta(
                    self._tool_id, f"functions.{self._name}:{self.history + self._tool_id}" if just_named else None,
                    self._name if just_named else None, diff)))
                self._last_args += diff
            if end < 0:
                break
            self._tbuf = buf[end + len(CALL_END):]
            self._tool_id += 1
            self._name, self._last_args = None, ""
        text = "".join(content)  # a step's text before its calls, as serving_chat yields them
        if text:
            self._events.append(("content", text))
        self._events.extend(calls)


def parse_final(text: str, *, reasoning: bool, tools: bool, history: int) -> tuple[str | None, str, list[dict]]:
    """A whole answer as the non-streaming path parses it: (reasoning_content, content, tool_calls)."""
    reasoning_text = None
    if reasoning:
        body = text[len(THINK_START):] if text.startswith(THINK_START) else text
        if THINK_END in body:
            reasoning_text, text = body.split(THINK_END, 1)
        elif SECTION_BEGIN in body:
            i = body.find(SECTION_BEGIN)
            reasoning_text, text = body[:i], body[i:]
        else:
            reasoning_text, text = body, ""
    calls: list[dict] = []
    if tools and SECTION_BEGIN in text:
        found = []
        for m in _CALL.finditer(text):
            idm = _CALL_ID.match(m.group("id"))
            if idm is not None:
                found.append((idm.group("name"), m.group("args")))
        text = text[:text.find(SECTION_BEGIN)]
        for i, (name, args) in enumerate(found):
            calls.append({"id": f"functions.{name}:{history + i}", "index": i, "type": "function",
                          "function": {"name": name, "arguments": args}})
    return (reasoning_text or None), text, calls
