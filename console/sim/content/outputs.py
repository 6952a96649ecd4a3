"""What a generation request's answer will be made of, decided from its body before it is decoded: reasoning
(`--reasoning-parser`), a tool call (`--tool-call-parser kimi_k2`), constrained text (`regex`, `json_schema`,
`response_format`), logprobs, and how the server parses the result. The decided text is a `ScriptedStream` in
front of the request's free text (console/sim/content/scripted.py), built per request from its seed key.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .constrained import constrained_text, constraint_of, stop_regexes
from .hidden import check as check_hidden
from .scripted import ScriptedStream, Segment
from .toolcalls import SPECIAL_IDS, THINK_END, history_calls, parsing_active, plan_tool_calls, section_text, thinking_on

#: reasoning blocks: log-normal token count whose median grows with the prompt (a one-line question thinks a few
#: dozen tokens, a 10k-token task ~160), clamped
REASONING_PER_PROMPT_TOKEN, REASONING_MEDIAN_MIN, REASONING_MEDIAN_MAX = 1.5, 24, 160
REASONING_SIGMA, REASONING_MIN, REASONING_MAX = 0.45, 8, 1500


#: before a tool call the model reasons briefly (a sentence or two on which tool and why)
REASONING_BEFORE_CALL_MEDIAN = 40


def reasoning_median(prompt_tokens: int) -> float:
    return min(REASONING_MEDIAN_MAX, max(REASONING_MEDIAN_MIN, REASONING_PER_PROMPT_TOKEN * prompt_tokens))


@dataclass(frozen=True)
class OutputPlan:
    """How the server treats one chat request's output."""

    thinking: bool = False  #: the model writes a reasoning block (a reasoning parser is set, thinking on)
    reasoning: bool = False  #: ... and the server splits it off into reasoning_content (separate_reasoning)
    stream_reasoning: bool = True
    tools: bool = False  #: tool-call parsing active (a tool parser, tools, tool_choice not "none")
    history: int = 0  #: tool calls earlier in the conversation (Kimi's call ids count from there)
    logprobs: bool = False
    top_logprobs: int = 0

    @property
    def parsing(self) -> bool:
        """The output goes through the reasoning / tool-call parsers (their chunk shapes)."""
        return self.reasoning or self.tools


Factory = Callable[[str, Any], Any]


def _factory(*, thinking: bool, constraint: tuple[str, Any] | None, body: dict[str, Any] | None, domain: str,
             tools: bool, history: int, prompt_tokens: int = 0) -> Factory | None:
    if not (thinking or constraint or tools):
        return None

    def build(key: str, free: Any) -> Any:
        rng = random.Random(f"script:{key}")
        calls = plan_tool_calls(body, domain, rng) if tools and body is not None and constraint is None else []
        segments: list[Segment] = []
        used = reasoning_tokens = 0
        if thinking:
            median = REASONING_BEFORE_CALL_MEDIAN if calls else reasoning_median(prompt_tokens)
            n = int(min(REASONING_MAX, max(REASONING_MIN, rng.lognormvariate(math.log(median), REASONING_SIGMA))))
            free.ensure(n)
            segments.append(Segment(list(free.pieces[:n]), list(free.ids[:n])))
            segments.append(Segment.special(THINK_END, SPECIAL_IDS[THINK_END]))
            used, reasoning_tokens = n, n + 1
        end = False
        if constraint is not None:
            segments.append(Segment.text(constrained_text(constraint, rng)))
            end = True
        elif calls:
            for text, special in section_text(calls, history):
                segments.append(Segment.special(text, SPECIAL_IDS[text]) if special else Segment.text(text))
            end = True
        return ScriptedStream(segments, free, end=end, reasoning_tokens=reasoning_tokens, free_offset=used)

    return build


def plan_chat(body: dict[str, Any], args: dict[str, Any], domain: str,
              prompt_tokens: int = 0) -> tuple[OutputPlan, Factory | None, tuple[str, ...]]:
    """(the plan, the words factory or None, stop_regex patterns) of a chat request; ValueError with SGLang's
    message for a bad constraint."""
    check_hidden(body.get("return_hidden_states"), args)  # the tokenizer manager's ceiling (hidden.py)
    tool_parser, reasoning_parser = args.get("tool_call_parser"), args.get("reasoning_parser")
    tools = parsing_active(tool_parser, body)
    thinking = bool(reasoning_parser) and thinking_on(body, str(reasoning_parser))
    top = body.get("top_logprobs")
    plan = OutputPlan(thinking=thinking, reasoning=thinking and body.get("separate_reasoning", True) is not False,
                      stream_reasoning=body.get("stream_reasoning", True) is not False, tools=tools,
                      history=history_calls(body.get("messages") or []), logprobs=bool(body.get("logprobs")),
                      top_logprobs=int(top) if isinstance(top, int) and not isinstance(top, bool) else 0)
    constraint = constraint_of(body)
    factory = _factory(thinking=thinking, constraint=constraint, body=body, domain=domain,
                       tools=tools and tool_parser == "kimi_k2", history=plan.history, prompt_tokens=prompt_tokens)
    return plan, factory, stop_regexes(body.get("stop_regex"))


def plan_plain(params: dict[str, Any]) -> tuple[Factory | None, tuple[str, ...]]:
    """/v1/completions and /generate (sampling_params): constrained text and stop_regex only."""
    constraint = constraint_of(params)
    return (_factory(thinking=False, constraint=constraint, body=None, domain="chat", tools=False, history=0),
            stop_regexes(params.get("stop_regex")))
