"""Shared test helpers: SGLang 0.5.23 wire fixtures and a mock transport that replays them; the test
environment, made the same on every machine (see `_hermetic_environment`)."""

from __future__ import annotations

import atexit
import os
import random
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from typing import AsyncIterator, Callable

import httpx
import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "sglang-0.5.23"

#: the console's own settings: an operator's exports must not steer the suite (profiles, prompts, caches)
CONSOLE_VARS = ("SERVING_CONSOLE_PROFILES", "SERVING_CONSOLE_SESSIONS", "SERVING_CONSOLE_PROMPTS",
                "SERVING_CONSOLE_CACHE_DIR", "SERVING_CONSOLE_INTROSPECT_TIMEOUT")
#: terminal styling and size read by rich (in this process and in every CLI child) and by Textual at App start:
#: CI has none of them, a developer's shell may export some
TERMINAL_VARS = ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE",
                 "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES")
#: read by Textual when it is imported (before this file, by the snapshot plugin): they change every rendering
TEXTUAL_RENDER_VARS = ("TEXTUAL_THEME", "TEXTUAL_ANIMATIONS", "TEXTUAL_FILTERS", "TEXTUAL_COLOR_SYSTEM",
                       "TEXTUAL_DIM_FACTOR", "TEXTUAL_DRIVER", "TEXTUAL_PRESS", "TEXTUAL_SCREENSHOT")
#: where a test that forgets its tmp_path would record sessions or cache catalogues: never the checkout's
#: sessions/ (other runs and people use it) nor ~/.cache; `stray_writes` fails the test that wrote here
STRAY = Path(tempfile.mkdtemp(prefix="serving-console-tests-"))
atexit.register(shutil.rmtree, STRAY, ignore_errors=True)


def _hermetic_environment() -> None:
    """Runs at import, before any test module: the suite sees what a fresh CI runner sees."""
    for k in CONSOLE_VARS + TERMINAL_VARS:
        os.environ.pop(k, None)
    os.environ["SERVING_CONSOLE_SESSIONS"] = str(STRAY / "sessions")
    os.environ["SERVING_CONSOLE_CACHE_DIR"] = str(STRAY / "cache")


_hermetic_environment()


def pytest_configure(config: pytest.Config) -> None:
    set_ = [k for k in TEXTUAL_RENDER_VARS if k in os.environ]
    if set_:
        raise pytest.UsageError(f"{', '.join(set_)} set: Textual changes every rendering with it; run the suite "
                                f"with `env -u {' -u '.join(set_)} .venv/bin/python -m pytest`")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skipped test is a failure here (the project forbids silent skips): a test that cannot run says how to make
    it run (pytest.fail with a one-line how-to) or carries a marker deselected in pyproject's addopts."""
    outcome = yield
    rep = outcome.get_result()
    if rep.skipped and not hasattr(rep, "wasxfail"):
        why = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        rep.outcome = "failed"
        rep.longrepr = f"skipped tests are forbidden (fail with a how-to, or a deselected marker): {why}"


@pytest.fixture(autouse=True)
def stray_writes():
    """A test that wrote into the default sessions directory (no --sessions / sessions= given) fails here."""
    yield
    root = STRAY / "sessions"
    found = sorted(str(p.relative_to(root)) for p in root.iterdir()) if root.is_dir() else []
    if found:
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"the test wrote {found[:3]} into the default sessions directory ($SERVING_CONSOLE_SESSIONS, "
                    f"else ./sessions of the checkout): give it tmp_path", pytrace=False)


def python_without_site(d: Path) -> Path:
    """An executable interpreter that sees no site-packages (so never an sglang, whatever this venv holds):
    this Python started with -I -S."""
    d.mkdir(parents=True, exist_ok=True)
    py = d / "python"
    py.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    py.chmod(py.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return py


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


class ChunkedStream(httpx.AsyncByteStream):
    """Replays bytes in pieces cut at random offsets (events split across reads, several per read)."""

    def __init__(self, data: bytes, seed: int = 0, max_piece: int = 700) -> None:
        self.data, self.seed, self.max_piece = data, seed, max_piece

    async def __aiter__(self) -> AsyncIterator[bytes]:
        rng = random.Random(self.seed)
        i = 0
        while i < len(self.data):
            n = rng.randint(1, self.max_piece)
            yield self.data[i:i + n]
            i += n


def replay_transport(routes: dict[str, Callable[[httpx.Request], httpx.Response]]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        fn = routes.get(request.url.path)
        if fn is None:
            return httpx.Response(404, text="Not Found")
        return fn(request)

    return httpx.MockTransport(handler)


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
