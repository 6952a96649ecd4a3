"""`serving-console prompts build`: regenerate the pinned prompt sets deterministically.

The `health` set is the anchor: eight short prompts, two per traffic domain, with short outputs, run on
every arm right after launch. Its text is fixed here, so a rebuild produces the same bytes and
`SHA256SUMS` only changes when this file does.

The workload sets, 16 prompts each, one per traffic domain of the leaderboard (docs/reference-deployment.md §1):

| set | prompts | o200k tokens | header window | built from |
|---|---|---|---|---|
| `tool`, `math`, `code`, `chat` | 16 | 10,050-10,250 | 9,900-10,400 | see below |
| `tool-short`, `math-short`, `code-short`, `chat-short` | 16 | 450-550 | 400-600 | same sources, short form |

- `tool`: seeded generator (`gen_tool`): JSON tool schemas, multi-turn trajectories of tool calls and results.
- `math`: seeded generator (`gen_math`): problems with definitions, lemmas, computed tables, a question.
- `code`: source files of pinned distributions (`material_code`) framed as review / refactor / test requests.
- `chat`: documents shipped by pinned distributions (`material_chat`): conversations that end in an open question.

Every prompt carries its provenance (generator + seed, or package + version + path + SHA-256). Every set is the
same on every machine: the generated sets by their seeds, the material sets because their material is committed
under `prompt-material/` (SHA-256-pinned in its MANIFEST) and never taken from what happens to be installed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from console.authoring import gen_math, material_chat, material_code
from console.authoring.gen_fit import LONG_WINDOW, SHORT_WINDOW
from console.authoring.tool import build as gen_tool
from console.core.workload.prompts import SUMS, write_set, write_sums

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


# name -> (builder, header window, distributions it reads or None for a generated set); build order = this order
SETS: dict[str, tuple[Callable[[], list[dict[str, Any]]], tuple[int, int], set[str] | None]] = {
    "tool": (gen_tool.build_long, LONG_WINDOW, None),
    "tool-short": (gen_tool.build_short, SHORT_WINDOW, None),
    "math": (gen_math.build_long, LONG_WINDOW, None),
    "math-short": (gen_math.build_short, SHORT_WINDOW, None),
    "code": (material_code.build_long, LONG_WINDOW, material_code.long_packages()),
    "code-short": (material_code.build_short, SHORT_WINDOW, material_code.short_packages()),
    "chat": (material_chat.build_long, LONG_WINDOW, material_chat.long_packages()),
    "chat-short": (material_chat.build_short, SHORT_WINDOW, material_chat.short_packages()),
}


def build_all(directory: Path) -> list[Path]:
    """Rebuild every set from its seeds and the committed material, and re-pin SHA256SUMS."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = [build_health(directory)]
    for name, (fn, window, _pkgs) in SETS.items():
        paths.append(write_set(directory, name, fn(), window=window))
    write_sums(directory)
    return paths


__all__ = ["HEALTH", "SETS", "SUMS", "build_all", "build_health"]
