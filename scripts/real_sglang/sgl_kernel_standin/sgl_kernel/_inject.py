"""A failure on purpose, for the lane's bad-input tests: `SC_STANDIN_FAIL=op[,op…]` in the server's environment makes
those stand-in ops raise inside the real scheduler (as a broken kernel would), so the console's handling of an engine
that dies mid-request is tested against SGLang's own crash path. Unset (always, outside those tests): no effect."""

from __future__ import annotations

import functools
import os


def injectable(fn):
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*a, **k):
        if name in os.environ.get("SC_STANDIN_FAIL", "").split(","):
            raise RuntimeError(f"sgl_kernel stand-in: {name} failed on purpose (SC_STANDIN_FAIL={name})")
        return fn(*a, **k)

    return wrapper
