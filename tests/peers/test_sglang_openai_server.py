"""SGLang's own OpenAI-server tests (test/srt/openai_server/, pinned in sglang_openai_server/MANIFEST.json) against
the twin, adapted to a base URL by sglang_openai_server/shim.py and run by the real env's interpreter
(sglang_openai_server/runner.py): each selected SGLang test is one item here and passes only if it passed there.

Against the twin the shim launches `python -m console.sim` with the reference deployment's argv (Kimi-K2.6,
EAGLE-3 depth 6, time-scaled) plus each SGLang class's own server flags. `SC_PEERS_REAL=launch` (a real SGLang CPU
server per class, with its flags) or `SC_PEERS_REAL=url:http://127.0.0.1:PORT` (a running one; classes needing
other flags fail naming them) adds the same items against a real server: the evidence that the selection is
passable (docs/real-sglang.md records the last run). Without it those items are not generated, and the session
header says so.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.peers.conftest import SGLANG_TESTS, WITHOUT_SGLANG_TESTS, how_to_set_up
from tests.peers.sglang_openai_server import selection
from tests.peers.twin_argv import twin_args
from tests.real_sglang.conftest import ENV_PY, MODEL, REPO, SERVER_ENV, SERVER_FLAGS
from tests.sim.twin_process import PAGE_1

pytestmark = pytest.mark.real_sglang

HERE = Path(__file__).resolve().parent / "sglang_openai_server"
MANIFEST = json.loads((HERE / "MANIFEST.json").read_text())
RUNNER = HERE / "runner.py"
REAL = os.environ.get("SC_PEERS_REAL", "")
#: the reference deployment's default arm (docs/reference-deployment.md), as its profile launches it
PROFILE = "k26-eagle3-d6"
KINDS = ("not-chat:", "model-bound:", "real-env:", "not-in-0.5.23:", "upstream-bug:", "no-op:")
TARGETS = ["twin"] + (["real"] if REAL else [])


def _src(rel: str) -> Path:
    return SGLANG_TESTS / selection.SOURCE_DIR / rel


def _test_methods(rel: str) -> dict[str, list[str]]:
    """CLASS -> its test methods (own and inherited from classes of the same module), from the source (no import)."""
    tree = ast.parse(_src(rel).read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def methods(name: str, seen=()) -> list[str]:
        node = classes[name]
        own = [f.name for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
               and f.name.startswith("test")]  # unittest collects an async def too
        for b in node.bases:
            if isinstance(b, ast.Name) and b.id in classes and b.id not in seen:
                own += [m for m in methods(b.id, seen + (name,)) if m not in own]
        return own

    return {c: methods(c) for c in classes if methods(c)}


def test_pinned_files_in_place(peer_env):
    for rel, pin in MANIFEST["files"].items():
        p = _src(rel)
        assert p.exists(), f"{p} missing: {how_to_set_up()}"
        got = hashlib.sha256(p.read_bytes()).hexdigest()
        assert got == pin["sha256"], f"{p}: sha256 {got}, pinned {pin['sha256']} (commit {pin['commit']})"


def test_selection_covers_every_test_and_every_exclusion_exists(peer_env):
    selected, excluded = set(selection.SELECTED), selection.EXCLUDED
    assert len(selected) == len(selection.SELECTED), "a test is selected twice"
    for key, reason in excluded.items():
        assert reason.startswith(KINDS), f"{key}: the reason must start with one of {KINDS}: {reason!r}"
        rel = key.split("::")[0]
        assert rel in MANIFEST["listing"], f"excluded {key}: no such file in SGLang's {selection.SOURCE_DIR}"
        if rel not in MANIFEST["files"]:
            assert key == rel, f"{key}: a class or method can be excluded only in a file that is materialized"
            continue
        parts = key.split("::")
        tm = _test_methods(rel)
        if len(parts) >= 2:
            assert parts[1] in tm, f"excluded {key}: no test class {parts[1]} in {rel} any more"
        if len(parts) == 3:
            assert parts[2] in tm[parts[1]], f"excluded {key}: no method {parts[2]} in {rel}::{parts[1]} any more"
    for rel in MANIFEST["files"]:
        for cls, meths in _test_methods(rel).items():
            for m in meths:
                tid = f"{rel}::{cls}::{m}"
                ex = [k for k in (rel, f"{rel}::{cls}", tid) if k in excluded]
                assert (tid in selected) != bool(ex), (f"{tid}: {'both selected and excluded' if ex else 'neither'}"
                                                       " selected nor excluded")
    for tid, reason in selection.TWIN_ONLY.items():
        assert tid in selected, f"twin-only {tid} is not selected"
        assert reason.startswith("model-bound:"), f"{tid}: a twin-only test is one the real model cannot pass"
    for key, reason in selection.TWIN_AT_MODELLED_SPEED.items():
        assert any(t.startswith(key + "::") for t in selected), f"{key}: served at the modelled speed, not selected"
        assert reason.startswith("wall-clock:"), f"{key}: the reason must say what it measures in wall time"
    for tid in selected:
        rel, cls, m = tid.split("::")
        assert m in _test_methods(rel).get(cls, []), f"selected {tid} does not exist in the pinned file"
    # the reason given for the custom-logit-processor class: the name it subclasses is bound nowhere in the module
    tree = ast.parse(_src("basic/test_openai_server.py").read_text())
    bound = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    bound |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert "CustomLogitProcessor" not in bound
    # whole-file exclusions cover the listing: every SGLang file is materialized or excluded with a reason
    for rel in MANIFEST["listing"]:
        assert rel in MANIFEST["files"] or rel in excluded, f"{rel}: neither materialized nor excluded"


def _run(target: str, out_dir: Path, twin_extra: list[str] = (), runner_args: list[str] = ()) -> dict:
    """One runner process against `target` (its results JSON); `twin_extra`: flags after the twin's argv,
    `runner_args`: more runner options (--only, --test-timeout)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SC_PEER")}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "SGLANG_TEST_MAX_RETRY": "0",
            "PYTHONPATH": str(REPO)}
    if target == "twin":
        spec = "twin"
        env |= {"SC_PEER_TWIN_PYTHON": sys.executable,
                "SC_PEER_TWIN_ARGS": json.dumps(twin_args(PROFILE) + PAGE_1 + list(twin_extra))}
    elif REAL == "launch":
        spec = "real"
        env |= {"SC_PEER_REAL_PYTHON": str(ENV_PY), "SC_PEER_REAL_MODEL": str(MODEL),
                "SC_PEER_REAL_FLAGS": json.dumps(SERVER_FLAGS), "SC_PEER_REAL_ENV": json.dumps(SERVER_ENV)}
    else:
        spec = REAL
        env |= {"SC_PEER_URL_TOKENIZER": str(MODEL)}
    out = out_dir / f"{target}.json"
    proc = subprocess.run([str(ENV_PY), str(RUNNER), "--tests-dir", str(SGLANG_TESTS), "--target", spec,
                           "--out", str(out), "--log-dir", str(out_dir), *runner_args], cwd=out_dir, env=env,
                          capture_output=True, text=True, timeout=3000, stdin=subprocess.DEVNULL)
    sys.stderr.write("\n".join(ln for ln in proc.stderr.splitlines() if "::" in ln and " s, " in ln) + "\n")
    assert proc.returncode == 0 and out.exists(), f"runner failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return json.loads(out.read_text())


_RUNS: dict[str, dict] = {}


@pytest.fixture(scope="module")
def runs(peer_env, tmp_path_factory):
    missing = [rel for rel in MANIFEST["files"] if not _src(rel).exists()]
    if missing:
        pytest.fail(f"{len(missing)} pinned SGLang test files missing under {SGLANG_TESTS} (first: {missing[0]}): "
                    f"{how_to_set_up()}, with SGLANG_CHECKOUT=DIR where GitHub is unreachable; on a machine that "
                    f"cannot have them, {WITHOUT_SGLANG_TESTS}=1 leaves these tests out, out loud", pytrace=False)
    return _RUNS


@pytest.mark.parametrize("tid, target", [(t, g) for g in TARGETS for t in selection.SELECTED
                                          if g == "twin" or t not in selection.TWIN_ONLY])
def test_sglang_openai_server(runs, tid, target, tmp_path_factory):
    if target not in runs:  # one runner process per target, the first item of it pays for the whole run
        runs[target] = _run(target, tmp_path_factory.mktemp(f"sglang-tests-{target}"))
    run = runs[target]
    r = run["results"].get(tid)
    assert r is not None, f"{tid}: not run"
    assert r["outcome"] == "pass", (f"{tid} against {target} ({run['served_model']} at {run['url']}): "
                                    f"{r['outcome']}\n{r['detail']}\nstdout: {r.get('stdout_tail', '')[-800:]}")


def test_wall_clock_classes_ran_at_the_modelled_speed(runs, tmp_path_factory):
    """Each TWIN_AT_MODELLED_SPEED class's twin was launched with --sim-time-scale 1 (the last value given wins,
    as argparse takes it), every other class's fast-forwarded."""
    if "twin" not in runs:
        runs["twin"] = _run("twin", tmp_path_factory.mktemp("sglang-tests-twin"))
    launches = runs["twin"]["launches"]
    slow = [ln for ln in launches if ln.get("argv") and _scale(ln["argv"]) == "1"]
    assert len(slow) == len(selection.TWIN_AT_MODELLED_SPEED), [ln.get("other_args") for ln in slow]
    assert any("--max-total-token" in ln["other_args"] for ln in slow)  # TestLargeMaxNewTokens' own flags
    assert all(_scale(ln["argv"]) == "20" for ln in launches if ln.get("argv") and ln not in slow)


def _scale(argv: list[str]) -> str:
    return [argv[i + 1] for i, a in enumerate(argv) if a == "--sim-time-scale"][-1]


@pytest.mark.parametrize("tid, nxt, extra", [
    # blocked in a request: a stream that stops sending and never resumes (the stall fault)
    ("basic/test_openai_server.py::TestOpenAIServer::test_chat_completion_stream",
     "basic/test_openai_server.py::TestOpenAIServer::test_model_list",
     ["--sim-fault", "stall:after_tokens=1,seconds=inf"]),
    # looping on its own: test_large_max_new_tokens polls the server log every 5 s, with no deadline, for a decode
    # line with its 4 requests running at once, which a one-request scheduler never logs (the CI hang of 2026-12-01)
    ("validation/test_large_max_new_tokens.py::TestLargeMaxNewTokens::test_chat_completion",
     "validation/test_matched_stop.py::TestMatchedStop::test_finish_stop_str",
     ["--max-running-requests", "1"]),
], ids=["blocked-in-a-request", "polling-the-log"])
def test_a_stalled_target_is_a_timeout_not_a_hang(peer_env, tmp_path, tid, nxt, extra):
    """The runner's watchdog: a test that runs past --test-timeout is a `timeout` within seconds of it, with the
    twin's state report in its log and its result, and the run goes on."""
    run = _run("twin", tmp_path, twin_extra=extra, runner_args=["--test-timeout", "8", "--only", tid, nxt])
    r = run["results"][tid]
    assert r["outcome"] == "timeout", r
    assert r["detail"].startswith("timed out after 8 s: stopped twin pid "), r["detail"][:300]
    assert 8 <= r["seconds"] < 30, r["seconds"]
    log = Path(r["detail"].split("log ", 1)[1].split(",", 1)[0])
    if log.name == "server-stderr.txt":  # the class's own log (return_stdout_stderr), removed by its tearDownClass
        assert not log.exists()
    else:
        report = log.read_text()
        assert "=== twin state (SIGUSR1) ===" in report and "--- task sim-engine" in report, report[-2000:]
    # the report is in the result too (a CI log shows the failed test's message, not the server's log)
    assert "=== twin state (SIGUSR1) === engine task running" in r["detail"] and "runtime.py" in r["detail"]
    assert "site-packages" not in r["detail"].split("=== twin state", 1)[1].split("--- the test's own error:", 1)[0]
    # the run went on: the next test ran (a test of the same class finds its server gone and errors; one of the
    # next class gets a server of its own and passes)
    assert run["complete"] is True and run["results"][nxt]["outcome"] != "timeout"
    if nxt.split("::")[1] != tid.split("::")[1]:
        assert run["results"][nxt]["outcome"] == "pass", run["results"][nxt]
