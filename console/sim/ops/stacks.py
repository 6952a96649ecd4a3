"""`kill -USR1 <twin pid>`: the twin writes its scheduler state and every asyncio task's stack to its stderr (the
server log) and keeps serving. For a twin that stops answering: which requests the engine holds, what step is in
flight, whether the engine task is alive, and where each HTTP handler waits. SGLang has no such signal; this is the
twin's own debugging aid, named in docs/twin.md."""

from __future__ import annotations

import asyncio
import io
import signal
import sys
from typing import Any


def _req_line(r: Any) -> str:
    return (f"  {r.rid[:12]} phase={r.phase} prompt={r.prompt_tokens} prefilled={r.prefilled}/{r.prefill_target} "
            f"out={r.n_out}/{r.max_new_tokens} eos={r.eos} natural_len={r.natural_len} "
            f"finish={r.finish_reason and r.finish_reason.get('type')}")


def state_report(runtime: Any) -> str:
    """The engine's queues, the step in flight and each asyncio task's stack, as text."""
    eng = runtime.engine
    out = io.StringIO()
    task = runtime._task
    alive = "none" if task is None else ("done" if task.done() else "running")
    out.write(f"=== twin state (SIGUSR1) === engine task {alive}; failed={runtime.failed!r}; "
              f"clock={eng.clock:.6f} s model, now={runtime.model_now():.6f} s model; "
              f"inflight={getattr(runtime.inflight, 'kind', None)}; forwards={runtime.forwards}\n")
    for name, items in (("waiting", list(eng.waiting)), ("running", list(eng.running)),
                        ("chunked", [eng.chunked] if eng.chunked is not None else [])):
        out.write(f"{name}: {len(items)}\n")
        for r in items:
            out.write(_req_line(r) + "\n")
    for t in asyncio.all_tasks():
        out.write(f"--- task {t.get_name()}\n")
        for line in await_chain(t.get_coro()):
            out.write(f"  {line}\n")
    return out.getvalue()


def await_chain(coro: Any, limit: int = 40) -> list[str]:
    """Where a suspended coroutine waits: each frame of its await chain (outermost first), as `file:line in name`.
    Task.print_stack shows only the outermost frame of a suspended task."""
    lines: list[str] = []
    while coro is not None and len(lines) < limit:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None) or getattr(coro, "ag_frame", None)
        if frame is not None:
            lines.append(f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}")
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None) or getattr(coro, "ag_await", None)
    if coro is not None:
        lines.append("...")
    return lines


def install(runtime: Any) -> None:
    """Answer SIGUSR1 with state_report on stderr (on the running loop; a no-op where signals cannot be added)."""
    def dump() -> None:
        sys.stderr.write(state_report(runtime))
        sys.stderr.flush()

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals here
        pass
