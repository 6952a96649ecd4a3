"""Code prompts: real source files of installed packages framed as review / refactor / bug-hunt / test requests.

Long prompts quote one module from its first line on (cut at a line boundary to fit the window, with the line
range stated); short prompts quote one function or method, chosen as the first in the file whose framed prompt
lands in the short window. The material's package, version, path, line range and SHA-256 go into provenance.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass
from typing import Any

from console.authoring.gen_fit import LONG_FIT, SHORT_FIT, FitError, Messages, fit, pick
from console.authoring.material_source import Source, read
from console.core.workload.prompts import messages_tokens

# the name the committed sets' provenance records (this module's path when they were built)
FRAMING = "console.core.workload.material_code"
SEED_BASE = 6100
SHORT_SEED_BASE = 6300

SYSTEMS = [
    "You are a senior software engineer doing code review. Be specific: cite line numbers, explain the impact of "
    "each issue, and show corrected code.",
    "You are an expert Python and C developer. Answer with working code and concise explanations.",
    "You are a meticulous reviewer on an open-source project. Prefer minimal, well-tested changes and say what "
    "you are unsure about.",
    "You are a helpful programming assistant. When you write code, make it complete and runnable, with type hints "
    "and docstrings.",
    "You are a staff engineer mentoring a teammate. Explain your reasoning, then give the code.",
]

LANG = {".py": "python", ".pyi": "python", ".h": "c", ".c": "c"}


@dataclass(frozen=True)
class Job:
    package: str
    path: str
    ask: str
    ask_first: bool = False
    """Put the request before the code (otherwise after it)."""


# The requests are specific to each module so that no two prompts are templated copies of each other.
LONG: list[Job] = [
    Job("textual", "textual/widgets/_data_table.py",
        "Write a thorough pytest suite for the `DataTable` widget shown above: adding and removing rows and "
        "columns, sorting with a key function, cursor movement in every cursor type, and the row/cell keys staying "
        "stable after sorting. Use Textual's `App.run_test()` pilot, keep each test focused, and explain which "
        "behaviours the current code leaves untested."),
    Job("rich", "rich/console.py",
        "Review this module as if it were a pull request that introduces it. List concrete findings (bugs, "
        "thread-safety problems, surprising behaviour, unclear names), each with the line numbers, why it matters "
        "and a suggested patch. Finish with the three changes you would insist on before merging.", True),
    Job("textual", "textual/screen.py",
        "Users report that after `pop_screen()` the focus sometimes lands on a widget of the screen that was just "
        "removed, and that key bindings of that screen fire once more. Walk through the focus and binding logic in "
        "this code, identify the most likely cause, and propose a fix together with a regression test."),
    Job("httpx", "httpx/_client.py",
        "The sync `Client` and the `AsyncClient` duplicate most of their logic. Propose a refactor that removes "
        "the duplication without changing the public API or slowing down the sync path. Show the new structure "
        "(class layout and the key methods in full) and explain how you would migrate safely.", True),
    Job("numpy", "numpy/_core/include/numpy/ndarraytypes.h",
        "Explain the central data structures declared in this header (`PyArrayObject_fields`, the descriptor, "
        "the flags and the iterator types) and how they relate. Then write a small, complete C extension function "
        "that takes a 2-D C-contiguous float64 array and returns the sum of each row as a new array, using only "
        "the API declared here and in the headers it includes, with correct reference counting."),
    Job("textual", "textual/geometry.py",
        "Profiling shows `Region` and `Offset` operations from this module in the hot path of our layout code "
        "(millions of calls per second). Identify which methods are likely hotspots, propose optimisations that "
        "keep the semantics identical, and give benchmark code (timeit) to prove each improvement."),
    Job("rich", "rich/progress.py",
        "Port the core of this progress-tracking module (tasks, speed estimation, time remaining, and the "
        "refresh thread) to Rust. Keep the same estimation maths, use a trait for columns, and make it safe to "
        "update tasks from several threads. Give the full code for the core types.", True),
    Job("textual", "textual/dom.py",
        "Improve the type annotations and docstrings of this module: find places where `Any`, missing return "
        "types or overly broad unions hide real types, fix them, and document the methods whose behaviour is not "
        "obvious. Show the changed code and explain any annotation that needed a `TypeVar` or an overload."),
    Job("numpy", "numpy/lib/_npyio_impl.py",
        "We get silently wrong results when loading some CSV files with this code: a trailing delimiter, quoted "
        "fields containing the delimiter, and files with a UTF-8 BOM. Trace how each case is handled, say which "
        "ones are bugs and which are documented behaviour, and write minimal reproducers plus fixes for the "
        "bugs."),
    Job("rich", "rich/text.py",
        "Write property-based tests with Hypothesis for the `Text` class in this module: invariants of "
        "`divide`, `split`, `wrap`, `truncate` and style spans under slicing and joining. Explain each "
        "invariant you test and any real bug you expect the tests to find.", True),
    Job("textual", "textual/widgets/_text_area.py",
        "Review the editing and undo logic of this `TextArea` implementation. Look for off-by-one errors in "
        "selections, cases where the undo history can get out of sync with the document, and performance problems "
        "on very large documents. For each problem give the lines involved and a fix."),
    Job("numpy", "numpy/ma/extras.py",
        "Refactor this module for readability: group the functions by responsibility, remove duplicated "
        "mask-handling code into helpers, and modernise the style where it does not change behaviour. Give the "
        "helpers in full and show how three of the existing functions look after the refactor."),
    Job("textual", "textual/widgets/_tree.py",
        "Add multi-selection to this `Tree` widget: shift+click and shift+arrow extend a selection range, "
        "ctrl+click toggles a node, and a new `SelectionChanged` message reports the selected nodes. Implement it "
        "in the style of the existing code and list the edge cases (collapsed parents, removed nodes) you "
        "handled.", True),
    Job("numpy", "numpy/linalg/_linalg.py",
        "Audit the numerical robustness of the functions in this module: ill-conditioned inputs, overflow in "
        "`norm` and `det`, empty and stacked arrays, and dtype promotion. Point out where the code relies on "
        "LAPACK to report errors, and propose tests that pin the current behaviour down."),
    Job("textual", "textual/app.py",
        "Explain the architecture of this module to a new contributor: the App lifecycle from `run()` to exit, "
        "how messages and the event loop are wired, how screens and modes are stacked, and where drivers come in. "
        "Include a sequence diagram in Mermaid syntax and point to the exact methods for each step.", True),
    Job("numpy", "numpy/_core/numeric.py",
        "Reimplement `convolve`, `correlate`, `outer`, `tensordot`, `roll` and `allclose` from this module in "
        "pure Python (lists only, no NumPy), matching NumPy's semantics for 1-D and 2-D inputs, including the "
        "`mode` handling. Then write tests that compare your versions against NumPy on random inputs."),
]

SHORT: list[Job] = [
    Job("textual", "textual/widgets/_input.py", "Review this code and suggest improvements."),
    Job("rich", "rich/table.py", "Write pytest tests that cover the edge cases of this code."),
    Job("httpx", "httpx/_models.py", "Is there a bug in this code? Explain and fix it if so.", True),
    Job("numpy", "numpy/lib/_index_tricks_impl.py", "Explain what this code does, step by step."),
    Job("textual", "textual/command.py", "Simplify this code without changing its behaviour.", True),
    Job("rich", "rich/syntax.py", "Add precise type hints and docstrings to this code."),
    Job("httpx", "httpx/_urlparse.py", "Rewrite this code in Go, keeping the same behaviour.", True),
    Job("textual", "textual/_compositor.py", "What is the time complexity of this code, and can it be improved?"),
    Job("rich", "rich/pretty.py", "Write three unit tests for this code and explain what each one checks."),
    Job("numpy", "numpy/fft/_pocketfft.py", "Review this code for correctness and clarity.", True),
    Job("textual", "textual/color.py", "Port this code to TypeScript."),
    Job("rich", "rich/traceback.py", "Explain this code to a junior developer and suggest one improvement."),
    Job("httpx", "httpx/_config.py", "Find edge cases this code does not handle and fix them.", True),
    Job("textual", "textual/widgets/_option_list.py", "Refactor this code to make it easier to test."),
    Job("rich", "rich/markdown.py", "Write docstrings with examples for this code, then doctests."),
    Job("numpy", "numpy/lib/_arraysetops_impl.py", "Rewrite this code in plain Python without NumPy.", True),
]


def _fence(path: str) -> str:
    return LANG.get(path[path.rfind("."):], "")


def _frame(rng: random.Random, job: Job, src: Source, lines: list[str], first: int, total: int,
           system: str) -> Messages:
    last = first + len(lines) - 1
    span = "the whole file" if (first == 1 and last == total) else f"lines {first}-{last} of {total}"
    intro = pick(rng, [f"Here is `{src.path}` from {src.package} {src.version} ({span}):",
                       f"This is `{src.path}` ({src.package} {src.version}, {span}).",
                       f"Below is the source of `{src.path}` from the {src.package} package, version {src.version} "
                       f"({span})."])
    code = f"```{_fence(src.path)}\n" + "\n".join(lines) + "\n```"
    body = f"{job.ask}\n\n{intro}\n\n{code}" if job.ask_first else f"{intro}\n\n{code}\n\n{job.ask}"
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]


def long_packages() -> set[str]:
    return {j.package for j in LONG}


def short_packages() -> set[str]:
    return {j.package for j in SHORT}


def build_long() -> list[dict[str, Any]]:
    out = []
    for k, job in enumerate(LONG):
        seed = SEED_BASE + k
        src = read(job.package, job.path)
        lines = src.text.rstrip("\n").split("\n")
        system = pick(random.Random(seed), SYSTEMS)
        pid = f"code-{k + 1:02d}"
        msgs, _, n = fit(pid, lambda n, seed=seed, job=job, src=src, lines=lines, system=system: _frame(
                             random.Random(seed), job, src, lines[:n], 1, len(lines), system), len(lines), LONG_FIT)
        out.append({"id": pid, "domain": "code", "messages": msgs,
                    "provenance": {"material": [src.provenance(lines=[1, n])], "framing": FRAMING, "seed": seed}})
    return out


def _functions(text: str) -> list[tuple[int, int, str]]:
    """(first line incl. decorators, last line, qualified name) of every function, in file order."""
    tree = ast.parse(text)
    out: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                out.append((start, child.end_lineno or child.lineno, prefix + child.name))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")

    walk(tree, "")
    return sorted(out)


def build_short() -> list[dict[str, Any]]:
    out = []
    lo, hi = SHORT_FIT
    for k, job in enumerate(SHORT):
        seed = SHORT_SEED_BASE + k
        src = read(job.package, job.path)
        lines = src.text.split("\n")
        total = len(src.text.rstrip("\n").split("\n"))
        system = pick(random.Random(seed), SYSTEMS[1:])
        pid = f"code-short-{k + 1:02d}"
        best = None
        funcs = _functions(src.text)
        ends = sorted({e for _, e, _ in funcs})
        for start, _end, name in funcs:
            # the function (or method) and the definitions right after it, ending where a function ends
            for end in (e for e in ends if e >= _end):
                body = lines[start - 1:end]
                indent = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
                body = [x[indent:] for x in body]
                msgs = _frame(random.Random(seed), job, src, body, start, total, system)
                tok = messages_tokens(msgs)
                if tok > hi - 5:
                    break
                if tok >= lo + 5:
                    best = (msgs, start, end, name)
                    break
            if best is not None:
                break
        if best is None:
            raise FitError(f"{pid}: no function in {src.package} {src.version} {src.path} lands in {lo}-{hi} tokens")
        msgs, start, end, name = best
        out.append({"id": pid, "domain": "code", "messages": msgs,
                    "provenance": {"material": [src.provenance(lines=[start, end], function=name)],
                                   "framing": FRAMING, "seed": seed}})
    return out
