"""Fitting a generated prompt into its token window (o200k count of all message contents).

Every set builder renders a prompt from a *fill level* `n` (table rows, source lines, result items, ...)
whose token count grows with `n`; `fit` binary-searches the level whose count lands closest to the middle
of the window and refuses (one line) when no level lands inside it, so a set is never written off-window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from console.core.workload.prompts import PromptSetError, messages_tokens

Messages = list[dict[str, str]]

LONG_WINDOW = (9900, 10400)
"""The cell window a long set's header carries (docs/measurement.md#cells-anchors-pairs)."""
LONG_FIT = (10050, 10250)
"""Where a long prompt's o200k count must land: inside the cell window with margin for the served model's own
tokenizer and chat template."""
SHORT_WINDOW = (400, 600)
SHORT_FIT = (450, 550)


class FitError(PromptSetError):
    """A prompt could not be brought into its token window (one line naming the prompt)."""


def fit(pid: str, render: Callable[..., Messages], n_max: int, window: tuple[int, int],
        n_min: int = 1) -> tuple[Messages, int, int]:
    """(messages, tokens, level) of the fill level in [n_min, n_max] whose token count is closest to the middle
    of the window.

    `render(n)` must be (close to) non-decreasing in tokens as `n` grows. (Typed `...`: callers bind loop values
    as default arguments, `lambda n, sc=sc: ...`, which mypy cannot infer against Callable[[int], Messages].)
    """
    lo, hi = window
    target = (lo + hi) // 2
    cache: dict[int, tuple[Messages, int]] = {}

    def at(n: int) -> tuple[Messages, int]:
        if n not in cache:
            msgs = render(n)
            cache[n] = (msgs, messages_tokens(msgs))
        return cache[n]

    if at(n_max)[1] < lo:
        raise FitError(f"{pid}: only {at(n_max)[1]} tokens of material at the largest fill level {n_max}; "
                       f"the window is {lo}-{hi}")
    a, b = n_min, n_max
    while a < b:  # smallest n with tokens >= target
        m = (a + b) // 2
        if at(m)[1] >= target:
            b = m
        else:
            a = m + 1
    best: tuple[int, int] | None = None
    for n in range(max(n_min, a - 3), min(n_max, a + 3) + 1):
        tok = at(n)[1]
        if lo <= tok <= hi and (best is None or abs(tok - target) < abs(best[1] - target)):
            best = (n, tok)
    if best is None:
        near = ", ".join(f"{n}:{at(n)[1]}" for n in range(max(n_min, a - 2), min(n_max, a + 2) + 1))
        raise FitError(f"{pid}: no fill level lands in {lo}-{hi} tokens (level:tokens {near}); "
                       "the material's units are too coarse")
    return at(best[0])[0], best[1], best[0]


def pick(rng: Any, pool: list[Any], k: int | None = None) -> Any:
    """One item (or k distinct items, in pool order) of `pool`, by `rng`."""
    if k is None:
        return pool[rng.randrange(len(pool))]
    idx = sorted(rng.sample(range(len(pool)), k))
    return [pool[i] for i in idx]
