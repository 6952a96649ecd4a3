"""`serving-console prompts build`: regenerate the pinned prompt sets deterministically.

The `health` set is the anchor: eight short prompts, two per traffic domain, with short outputs, run on
every arm right after launch. Its text is fixed here, so a rebuild produces the same bytes and
`SHA256SUMS` only changes when this file does.

The workload sets, 16 prompts each, one per traffic domain of the leaderboard (DOMAIN brief §1):

| set | prompts | o200k tokens | header window | built from |
|---|---|---|---|---|
| `tool`, `math`, `code`, `chat` | 16 | 10,050-10,250 | 9,900-10,400 | see below |
| `tool-short`, `math-short`, `code-short`, `chat-short` | 16 | 450-550 | 400-600 | same sources, short form |

- `tool`: seeded generator (`gen_tool`): JSON tool schemas, multi-turn trajectories of tool calls and results.
- `math`: seeded generator (`gen_math`): problems with definitions, lemmas, computed tables, a question.
- `code`: source files of installed packages (`material_code`) framed as review / refactor / test requests.
- `chat`: documents shipped by installed packages (`material_chat`): conversations that end in an open question.

Every prompt carries its provenance (generator + seed, or package + version + path + SHA-256). The generated
sets are the same on every machine. The material sets depend on the installed distributions: the versions they
were committed with are pinned in `material_source.PINS`; when the installed ones differ, `build` says so in one
line and keeps each affected set's committed file (it stays authoritative) if it is still intact, else builds it
from what is installed (those bytes will not match the committed ones).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from console.core.workload import gen_math, gen_tool, material_chat, material_code
from console.core.workload.gen_fit import LONG_WINDOW, SHORT_WINDOW
from console.core.workload.material_source import mismatches
from console.core.workload.prompts import SUMS, PromptSetError, file_sha256, read_sums, write_set, write_sums

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


def material_mismatches() -> dict[str, list[str]]:
    """Set name -> the pinned material distributions whose installed version differs (material sets only)."""
    out = {}
    for name, (_fn, _w, pkgs) in SETS.items():
        if pkgs and (bad := mismatches(pkgs)):
            out[name] = bad
    return out


def _intact(directory: Path, name: str) -> bool:
    """The set file exists and matches its pin in the directory's current SHA256SUMS."""
    path = directory / f"{name}.jsonl"
    try:
        return path.exists() and read_sums(directory).get(path.name) == file_sha256(path)
    except (PromptSetError, OSError):  # no or unreadable SHA256SUMS: nothing committed to keep
        return False


def build_all(directory: Path, say: Callable[[str], None] | None = None) -> list[Path]:
    """Rebuild every set and re-pin SHA256SUMS.

    When installed material distributions are not the pinned ones, `say` (default: standard error) receives one
    line naming them, the sets kept as committed and the sets built from the installed versions.
    """
    say = say or (lambda line: print(line, file=sys.stderr))
    directory.mkdir(parents=True, exist_ok=True)
    bad = material_mismatches()
    keep = {name for name in bad if _intact(directory, name)}  # decided before anything is rewritten
    paths = [build_health(directory)]
    for name, (fn, window, _pkgs) in SETS.items():
        if name in keep:
            paths.append(directory / f"{name}.jsonl")
        else:
            paths.append(write_set(directory, name, fn(), window=window))
    write_sums(directory)
    if bad:
        built = [n for n in SETS if n in bad and n not in keep]
        parts = [f"prompts build: installed material is not the pinned one "
                 f"({'; '.join(sorted({m for v in bad.values() for m in v}))})"]
        if keep:
            parts.append(f"kept {', '.join(n + '.jsonl' for n in SETS if n in keep)} as committed")
        if built:
            parts.append(f"built {', '.join(n + '.jsonl' for n in built)} from it: their bytes differ from the "
                         "committed sets, which stay authoritative")
        say("; ".join(parts))
    return paths


__all__ = ["HEALTH", "SETS", "SUMS", "build_all", "build_health", "material_mismatches"]
