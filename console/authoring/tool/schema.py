"""Tool schemas (OpenAI function format), scenario steps, and rendering a scenario into chat messages."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from console.authoring.gen_fit import Messages

# --------------------------------------------------------------------------------------------- scenario model

def tool(name: str, description: str, props: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": props, "required": required, "additionalProperties": False}}}


def s(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "string", "description": desc, **kw}


def i(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "integer", "description": desc, **kw}


def n_(desc: str, **kw: Any) -> dict[str, Any]:
    return {"type": "number", "description": desc, **kw}


def b(desc: str) -> dict[str, Any]:
    return {"type": "boolean", "description": desc}


def arr(desc: str, items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "description": desc, "items": items}


def obj(desc: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "description": desc, "properties": props}


@dataclass
class Step:
    thought: str
    name: str
    args: dict[str, Any]
    n_items: int
    result: Callable[..., Any]
    """k (1..n_items) -> the JSON payload with its first k items. (Typed `...`: the families bind loop values as
    default arguments, `lambda k, r=rows: ...`, which mypy cannot infer against Callable[[int], Any].)"""


@dataclass
class Scenario:
    family: str
    org: str
    role: str
    tools: list[dict[str, Any]]
    task: str
    steps: list[Step]
    final: str
    rules: list[str] = field(default_factory=list)
    pretty: bool = False
    compact: bool = False
    """The short form's system prompt: tool schemas and the call syntax only."""


COMMON_RULES = [
    "Call exactly one tool per turn and wait for its result before deciding the next step.",
    "Never invent identifiers: only use ids, paths and names that appeared in earlier tool results.",
    "Arguments must be valid JSON matching the tool's schema; omit optional fields you do not need.",
    "Before any action that changes state (refunds, rollbacks, bookings, emails), state what you expect it to do.",
    "Prefer narrow queries (short time windows, explicit limits) over broad ones.",
    "If a result is truncated or ambiguous, refine the query instead of guessing.",
    "Keep your reasoning between calls to two or three sentences.",
    "Timestamps are UTC unless a tool result says otherwise.",
    "Ask the user before spending money or contacting anyone outside the organisation.",
    "Summarise what you found when the task is complete, citing the tool results you relied on.",
]


def render(sc: Scenario, n_units: int) -> Messages:
    """System + task + as many steps as `n_units` result items allow (the last step may be cut short)."""
    sep = ",\n" if sc.pretty else "\n"
    schemas = sep.join(json.dumps(t, indent=2 if sc.pretty else None, ensure_ascii=False) for t in sc.tools)
    rules = "\n".join(f"- {r}" for r in sc.rules)
    if sc.compact:
        system = (f"You are {sc.role} at {sc.org}. Available tools (JSON schemas):\n<tools>\n{schemas}\n</tools>\n"
                  "Call a tool with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>; results come back "
                  "in <tool_response> blocks." + (f"\n{rules}" if rules else ""))
    else:
        system = (f"You are {sc.role} at {sc.org}. You solve tasks by calling tools.\n\n"
                  f"# Tools\n\nYou may call one or more of the following functions. Their JSON schemas are "
                  f"listed inside <tools></tools>:\n<tools>\n{schemas}\n</tools>\n\n"
                  "To call a function, write a JSON object with the function name and its arguments inside "
                  "<tool_call></tool_call> tags, for example:\n<tool_call>\n"
                  '{"name": "<function-name>", "arguments": {"<arg>": "<value>"}}\n</tool_call>\n'
                  "Each result comes back in a <tool_response></tool_response> block.\n\n"
                  f"# Rules\n\n{rules}")
    msgs: Messages = [{"role": "system", "content": system}, {"role": "user", "content": sc.task}]
    left = n_units
    for st in sc.steps:
        if left <= 0:
            break
        k = min(left, st.n_items)
        left -= k
        call = json.dumps({"name": st.name, "arguments": st.args}, ensure_ascii=False)
        msgs.append({"role": "assistant", "content": f"{st.thought}\n<tool_call>\n{call}\n</tool_call>"})
        payload = json.dumps(st.result(k), ensure_ascii=False, indent=2 if sc.pretty else None)
        msgs.append({"role": "user", "content": f"<tool_response>\n{payload}\n</tool_response>"})
    msgs[-1] = {"role": "user", "content": msgs[-1]["content"] + "\n\n" + sc.final}
    return msgs


def _capacity(sc: Scenario) -> int:
    return sum(st.n_items for st in sc.steps)
