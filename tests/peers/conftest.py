"""Peer clients as tests (issue #14 §4): SGLang's own OpenAI-server tests and SGLang's bench_serving, run by the
real-sglang environment's interpreter against the twin (and the server tests against a real SGLang server).

Opt-in like the real_sglang lane (`pytest -m real_sglang tests/peers`): without `real_sglang` in `-m` these tests
are deselected. They need the real env (scripts/real_sglang/build.sh) plus its peer additions and SGLang's test
files (scripts/peers/setup.sh); a missing piece is a failure that names the command, never a skip.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_sglang.conftest import ENV_PY, HOME, INFO, MODEL, REPO, _opted_in, deselect_unless_opted_in

HERE = Path(__file__).resolve().parent
SETUP = REPO / "scripts" / "peers" / "setup.sh"
PEERS = HOME / "peers"
SGLANG_TESTS = PEERS / "sglang-openai-server"
PEERS_INFO = PEERS / "peers.json"


#: set (to anything but "" or "0") to leave out SGLang's OpenAI-server tests on a machine that cannot have their
#: files (no SGLang checkout, no GitHub: CI reaches only the package registries). Said out loud in the session
#: header and counted as deselected; without it a missing file is a failure that names the set-up command.
WITHOUT_SGLANG_TESTS = "SC_PEERS_WITHOUT_SGLANG_TESTS"
SGLANG_TESTS_MODULE = HERE / "test_sglang_openai_server.py"


def _without_sglang_tests() -> bool:
    import os
    return os.environ.get(WITHOUT_SGLANG_TESTS, "") not in ("", "0")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    deselect_unless_opted_in(config, items, HERE)
    if _without_sglang_tests():
        out = [i for i in items if Path(str(i.fspath)).resolve() == SGLANG_TESTS_MODULE]
        if out:
            config.hook.pytest_deselected(items=out)
            items[:] = [i for i in items if i not in out]
            config._sc_sglang_tests_left_out = len(out)


def how_to_set_up() -> str:
    return (f"set it up with `bash scripts/real_sglang/build.sh && bash {SETUP.relative_to(REPO)}` "
            f"(docs/real-sglang.md, 'Peer clients')")


@pytest.fixture(scope="session")
def peer_env() -> dict:
    """The real env with the peers' additions (datasets for bench_serving) and SGLang's test files in place."""
    if not INFO.exists() or not ENV_PY.exists() or not (MODEL / "model.safetensors").exists():
        pytest.fail(f"no real-sglang environment at {HOME}: {how_to_set_up()}", pytrace=False)
    if not PEERS_INFO.exists():
        pytest.fail(f"no peer set-up at {PEERS} ({PEERS_INFO.name} missing): {how_to_set_up()}", pytrace=False)
    return json.loads(PEERS_INFO.read_text())


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _opted_in(session.config) or not any(HERE in Path(str(i.fspath)).resolve().parents for i in session.items):
        return
    import os
    real = os.environ.get("SC_PEERS_REAL", "")
    left_out = getattr(session.config, "_sc_sglang_tests_left_out", 0)
    if left_out:
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            f"peers: SGLang's OpenAI-server tests NOT RUN: {left_out} items deselected by {WITHOUT_SGLANG_TESTS} "
            "(their files are not on this machine: no SGLang checkout, no GitHub; docs/real-sglang.md, 'Peer clients')",
            yellow=True, bold=True)
        return
    session.config.pluginmanager.get_plugin("terminalreporter").write_line(
        "peers: SGLang's OpenAI-server tests against the twin"
        + (f" and against a real server ({real})" if real else
           "; against a real server: not generated (SC_PEERS_REAL=launch or url:URL adds them)"))
