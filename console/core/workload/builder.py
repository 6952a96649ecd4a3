"""`serving-console prompts build`: regenerate the pinned prompt sets deterministically.

The `health` set is the anchor: eight short prompts, two per traffic domain, with short outputs, run on
every arm right after launch. Its text is fixed here, so a rebuild produces the same bytes and
`SHA256SUMS` only changes when this file does.
"""

from __future__ import annotations

from pathlib import Path

from console.core.workload.prompts import write_set, write_sums

_SYSTEM = "You are a precise assistant. Answer directly."

HEALTH: list[tuple[str, str, str]] = [
    ("health-tool-1", "tool",
     "You can call the tool `get_weather(city: string, unit: \"C\" | \"F\")`. The user asks: \"Is it warmer in "
     "Lisbon or in Oslo right now, in Celsius?\" Reply with the JSON tool calls you would make, one per line, "
     "then one sentence on how you would compare the results."),
    ("health-tool-2", "tool",
     "Tools: `search_flights(origin, destination, date)` and `book_flight(flight_id, passenger)`. The user wants "
     "the cheapest flight from Paris to Tokyo on 2026-03-14 booked for Ana Silva. Write the sequence of tool "
     "calls as JSON objects and say what you would check between them."),
    ("health-math-1", "math",
     "A train leaves at 09:40 and travels 318 km at an average of 106 km/h, then waits 12 minutes and travels "
     "a further 84 km at 72 km/h. At what time does it arrive? Show the steps."),
    ("health-math-2", "math",
     "Find all real x with x^2 - 7x + 10 = 0 and verify each root by substitution. Then give the sum and the "
     "product of the roots and relate them to the coefficients."),
    ("health-code-1", "code",
     "Write a Python function `median(xs: list[float]) -> float` that returns the interpolated median of a "
     "non-empty list without importing anything, and two asserts that test it."),
    ("health-code-2", "code",
     "In C, write a function that reverses a singly linked list in place and returns the new head. Define the "
     "node struct and explain the loop invariant in one comment."),
    ("health-chat-1", "chat",
     "In three short paragraphs, explain to a new colleague why a long-running benchmark should be warmed up "
     "before measuring, and what can go wrong otherwise."),
    ("health-chat-2", "chat",
     "Summarise the trade-offs of renting a GPU node by the hour versus buying one, for a small team that "
     "serves one large model, in five bullet points."),
]
HEALTH_MAX_TOKENS = 128


def build_health(directory: Path) -> Path:
    prompts = [
        {"id": pid, "domain": dom, "max_tokens": HEALTH_MAX_TOKENS,
         "messages": [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": text}]}
        for pid, dom, text in HEALTH
    ]
    return write_set(directory, "health", prompts, window=None)


def build_all(directory: Path) -> list[Path]:
    """Rebuild every set and re-pin SHA256SUMS."""
    paths = [build_health(directory)]
    write_sums(directory)
    return paths
