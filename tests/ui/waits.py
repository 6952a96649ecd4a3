"""Waiting in Pilot tests on what the test then asserts (a widget's text, a screen, a message, a runtime field),
never on a fixed delay: a loaded machine makes any fixed delay too short sometimes, an idle one makes it slow."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Iterable

from textual.notifications import Notify


def screen_text(app) -> str:
    """Every line the current screen shows."""
    return "\n".join(s.text for s in app.screen._compositor.render_strips())


async def wait_until(pilot, cond: Callable[[], Any], timeout: float = 20.0, what: str = "the condition") -> None:
    """Let the app run (one `pilot.pause()`, i.e. until it is idle, at a time) until `cond()` is true.

    `cond` may raise while the screen is still being built (NoMatches, an assert in a check function): that
    counts as not yet. After `timeout` seconds the test FAILS with `what`, the last error and the screen."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    last: BaseException | None = None
    while True:
        try:
            if cond():
                return
            last = None
        except Exception as e:  # not there yet
            last = e
        if loop.time() > end:
            try:
                shown = screen_text(pilot.app)
            except Exception as e:  # no screen left to read
                shown = f"(no screen: {e!r})"
            why = f"; last error: {last!r}" if last is not None else ""
            raise AssertionError(f"{what}: not within {timeout:g} s{why}\nscreen:\n{shown}")
        await pilot.pause()


def notes(messages: Iterable[object]) -> list[str]:
    """The notifications (toasts) the app posted, from a `message_hook` list."""
    return [m.notification.message for m in messages if isinstance(m, Notify)]


def notified(messages: Iterable[object], text: str) -> bool:
    """Whether a toast said `text` (the console wraps toasts to their width, so line breaks are not compared)."""
    want = "".join(text.split())
    return any(want in "".join(n.split()) for n in notes(messages))
