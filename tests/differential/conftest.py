"""Differential wire tests: the same requests to a real SGLang 0.5.23 server and to the engine twin.

Opt-in like the real_sglang lane: `pytest -m real_sglang tests/differential` (the marker is deselected by the
project's addopts). One real server at a time (module scope), and both servers are killed in teardown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.real_sglang.conftest import (
    ENV_PY,
    HOME,
    INFO,
    MODEL,
    how_to_build,
    start_server,
    stop_server,
)
from tests.sim.twin_process import FAST, MODEL as TWIN_MODEL, PAGE_1, start_twin, stop_twin

#: the twin launched like the real server where the flags make sense (no drafter: the real server has none; one-token
#: KV pages, as its torch_native backend: on 64-token pages cached_tokens_details would read null where it hits)
TWIN_ARGS = TWIN_MODEL + FAST + PAGE_1 + ["--mem-fraction-static", "0.96", "--enable-metrics", "--max-total-tokens",
                                          "8192", "--sim-seed", "1"]
#: a real server already running (`SC_DIFF_REAL_URL=http://127.0.0.1:PORT`) to reuse instead of starting one; for
#: developing twin fixes while other work shares the machine (CI never sets it)
SHARED_REAL = "SC_DIFF_REAL_URL"
#: (the twin models a GPU node: the real CPU lane's --mem-fraction-static 0.3 does not fit its Kimi weights)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_sglang: against a real SGLang 0.5.23 CPU server (opt-in)")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """(real, twin): a real SGLang server with --enable-metrics and the twin, both on ephemeral ports."""
    if not INFO.exists() or not ENV_PY.exists() or not (MODEL / "model.safetensors").exists():
        pytest.fail(f"no real-sglang environment at {HOME}: {how_to_build()}", pytrace=False)
    d = tmp_path_factory.mktemp("differential")
    shared = os.environ.get(SHARED_REAL)
    if shared:  # a developer's already-running real server (started like start_server with --enable-metrics)
        try:
            httpx.get(shared + "/ready", timeout=5).raise_for_status()
        except httpx.HTTPError as e:
            pytest.fail(f"${SHARED_REAL}={shared} is not a ready SGLang server ({e}); unset it or start one",
                        pytrace=False)
        twin = start_twin(TWIN_ARGS, d)
        try:
            yield shared, twin.url
        finally:
            stop_twin(twin)
        return
    with real_and_twin(d, TWIN_ARGS, lambda log: start_server(log, ["--enable-metrics"]), "differential") as urls:
        yield urls


@contextmanager
def real_and_twin(d: Path, twin_args: list[str], start_real: Callable[[Path], Any],
                  label: str) -> Iterator[tuple[str, str]]:
    """(real url, twin url): the twin first (it starts in a second, and a bad twin launch costs no real server), then
    the real server; both stopped after, and no real server process may outlive its stop."""
    twin = start_twin(twin_args, d)
    try:
        real = start_real(d / "real.log")
    except BaseException as e:
        stop_twin(twin)
        if isinstance(e, RuntimeError):
            pytest.fail(str(e), pytrace=False)
        raise
    sys.stderr.write(f"\n{label}: real server ready in {real.startup_s:.1f} s\n")
    try:
        yield real.url, twin.url
    finally:
        stop_twin(twin)
        left = stop_server(real)
        assert not left, f"real server processes still alive after the stop: {sorted(left)}"
