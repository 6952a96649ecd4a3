"""A failure on purpose, for the lane's bad-input tests: `SC_STANDIN_FAIL=op[@N][,…]` in the server's environment makes
that stand-in op raise inside the real scheduler (as a broken kernel would) from its N-th call on (default: the
first), so the console's handling of an engine that dies mid-cell is tested against SGLang's own crash path. Unset
(always, outside those tests): no effect."""

from __future__ import annotations

import functools
import os

_calls: dict[str, int] = {}


def _armed(name: str) -> int | None:
    for item in os.environ.get("SC_STANDIN_FAIL", "").split(","):
        op, _, n = item.strip().partition("@")
        if op == name:
            return int(n) if n else 1
    return None


def injectable(fn):
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*a, **k):
        at = _armed(name)
        if at is not None:
            _calls[name] = _calls.get(name, 0) + 1
            if _calls[name] >= at:
                raise RuntimeError(f"sgl_kernel stand-in: {name} failed on purpose at call {_calls[name]} "
                                   f"(SC_STANDIN_FAIL={os.environ['SC_STANDIN_FAIL']})")
        return fn(*a, **k)

    return wrapper
