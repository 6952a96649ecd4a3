"""Traffic-domain detection: which of tool / math / code / chat a prompt belongs to.

The rule is deterministic and reads the first 4,000 and the last 8,000 characters of the prompt text (system
prompt and question; long contexts in between are skipped). Three scores are counted:

- **tool**: the request declares `tools`/`functions` (wins outright); else 2 per tool-call marker
  (`<tool_call>`, `"tool_calls"`, `"function":`, `"arguments":`, `"parameters":`, `functions.`, `<|tool_call`,
  `tool_call_id`, "call the tool", "tool call(s)", "function call(s)") + 1 per other mention of "tool(s)".
- **code**: 3 per code fence (```), 1 per line that looks like code (starts with def/class/import/#include/
  function/const/let/var/return/..., or ends in `{`, `}`, `;`), 2 per request to write code ("write a
  function/program/script/class/method/query"), 1 per language or code word (python, javascript, rust, "in C",
  struct, compile, implement, ...).
- **math**: 3 per LaTeX command (\\frac, \\sum, \\int, ...), 1 per inline-math delimiter (`$`, `\\(`), 2 per
  arithmetic expression or power (`x^2 - 7x + 10 = 0`), 1 per math word (prove, theorem, integral, equation,
  solve, roots, average, probability, ...) and per quantity with a unit (`318 km`, `72 km/h`, `12 minutes`).

The domain is tool if its score is at least 3; otherwise code or math, whichever is larger if it is at least 2
(code wins ties); otherwise chat.
"""

from __future__ import annotations

import re

HEAD_CHARS, TAIL_CHARS = 4_000, 8_000
_TOOL_STRONG = re.compile(
    r"<tool_call>|\"tool_calls\"|\"function\"\s*:|\"arguments\"\s*:|\"parameters\"\s*:|\bfunctions\.|<\|tool_call|"
    r"tool_call_id|call the tool|\btool calls?\b|\bfunction calls?\b", re.IGNORECASE)
_TOOL_WEAK = re.compile(r"\btools?\b", re.IGNORECASE)
_CODE_LINE = re.compile(
    r"^\s*(def |class |import |from \S+ import|#include|function |const |let |var |public |private |return\b|"
    r"for \(|while \(|if \(|fn |package |using |SELECT |CREATE )|[{};]\s*$", re.MULTILINE)
_CODE_ASK = re.compile(r"\bwrite (a|an|the)?\s*(\w+\s)?(function|program|script|class|method|query|test)s?\b",
                       re.IGNORECASE)
_CODE_WORDS = re.compile(
    r"\b(python|javascript|typescript|rust|golang|java|kotlin|swift|c\+\+|sql|bash|struct|compile[rsd]?|"
    r"implement(ation)?|refactor|debug|stack trace|linked list|regex|api)\b|\bin C\b", re.IGNORECASE)
_LATEX = re.compile(r"\\(frac|sum|int|sqrt|cdot|leq|geq|times|binom|prod|lim|infty|alpha|beta|theta|pi|mathbb)\b")
_ARITH = re.compile(r"\b\d*[a-z]?\^\d+|\d+\s*[a-z]?\s*[-+*/]\s*\d*\s*[a-z]?\s*=\s*-?\d+")
_MATH_WORDS = re.compile(
    r"\b(prove|proof|theorem|lemma|integral|derivative|equation|solve|roots?|coefficients?|probability|"
    r"polynomial|matrix|prime|modulo|inequality|real numbers?|integers?|average|compute|calculate)\b",
    re.IGNORECASE)
_UNITS = re.compile(r"\b\d+(\.\d+)?\s*(km/h|km|kg|mph|miles|minutes|hours|seconds|cm|mm|%)(?![\w/])",
                    re.IGNORECASE)


def domain_scores(text: str) -> dict[str, int]:
    """The tool / code / math scores of a prompt text (see the module docstring)."""
    t = text if len(text) <= HEAD_CHARS + TAIL_CHARS else text[:HEAD_CHARS] + "\n" + text[-TAIL_CHARS:]
    strong = len(_TOOL_STRONG.findall(t))
    tool = 2 * strong + max(0, len(_TOOL_WEAK.findall(t)) - strong)
    code = (3 * t.count("```") + len(_CODE_LINE.findall(t)) + 2 * len(_CODE_ASK.findall(t))
            + len(_CODE_WORDS.findall(t)))
    math = (3 * len(_LATEX.findall(t)) + t.count("$") + t.count("\\(") + 2 * len(_ARITH.findall(t))
            + len(_MATH_WORDS.findall(t)) + len(_UNITS.findall(t)))
    return {"tool": tool, "code": code, "math": math}


def detect_domain(text: str, has_tools: bool = False) -> str:
    """The traffic domain of a prompt: "tool", "math", "code" or "chat"."""
    if has_tools:
        return "tool"
    s = domain_scores(text)
    if s["tool"] >= 3:
        return "tool"
    if max(s["code"], s["math"]) < 2:
        return "chat"
    return "code" if s["code"] >= s["math"] else "math"
