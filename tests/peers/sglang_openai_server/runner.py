"""Run selected SGLang OpenAI-server tests against a target; one JSON result per test.

    ENV_PY tests/peers/sglang_openai_server/runner.py --tests-dir DIR --target twin|real|url:URL \
        --out results.json [--only FILE::CLASS::METHOD ...]

Runs in the real-sglang environment's interpreter (SGLang's tests import sglang); the console never imports it.
The shim (shim.py) is installed before any test module is imported. Each selected class runs as a unit (its
setUpClass launches the target with the class's flags), its selected methods in file order. A result is
`pass`, `fail` or `error` with the last lines of the traceback; a class whose setUpClass fails records that
error for each of its selected methods.

A test that runs past `--test-timeout` seconds (default 120 against the twin, whose slowest selected test takes
~5 s; 900 against a real CPU server) is a `timeout`: the watchdog asks a twin for its state and task stacks
(SIGUSR1, console/sim/ops/stacks.py, written to the server log), kills the servers this shim started and raises in
the test, so the run goes on to the next class instead of hanging CI.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import signal
import sys
import time
import traceback
import unittest
from contextlib import redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import selection  # noqa: E402  (this directory)
import shim as shim_mod  # noqa: E402


class TestTimeout(Exception):
    """Raised in the test by the watchdog's SIGALRM: the test ran past --test-timeout."""


class Watchdog:
    """Ends a test that runs past `limit` seconds (see the module doc): a SIGALRM timer armed per test, whose
    handler (in the main thread, where the test runs) stops the target and raises TestTimeout in the test. A
    test blocked in a request sees the connection drop; one polling in a loop of its own (test_large_max_new_tokens
    waits for a log line with no deadline) is broken out of by the exception."""

    def __init__(self, shim, limit: float) -> None:
        self.shim, self.limit = shim, limit
        self.current: str | None = None
        self.timed_out: dict[str, str] = {}  # test id -> what the watchdog did
        signal.signal(signal.SIGALRM, self._fire)

    def arm(self, tid: str) -> None:
        self.current = tid
        signal.setitimer(signal.ITIMER_REAL, self.limit)

    def disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.current = None

    def _fire(self, signum, frame) -> None:
        tid = self.current
        if tid is None or tid in self.timed_out:
            return
        self.timed_out[tid] = self.shim.stop_stalled(self.limit)
        raise TestTimeout(f"{tid}: ran past {self.limit:.0f} s")


class Collect(unittest.TestResult):
    def __init__(self, watchdog: Watchdog | None = None) -> None:
        super().__init__()
        self.out: dict[str, dict] = {}
        self.t0: dict[str, float] = {}
        self.class_errors: dict[str, str] = {}
        self.watchdog = watchdog

    def startTest(self, test) -> None:
        super().startTest(test)
        self.t0[test.id()] = time.monotonic()
        if self.watchdog is not None:
            self.watchdog.arm(test.id())

    def stopTest(self, test) -> None:
        if self.watchdog is not None:
            self.watchdog.disarm()
        super().stopTest(test)

    def _put(self, test, outcome: str, err=None) -> None:
        detail = ""
        if err is not None:
            exc = err[1]
            # CustomTestCase runs each method through sglang's retry(), which re-raises any failure as a bare
            # "retry() exceed maximum number of retries." (SGLANG_TEST_MAX_RETRY=0: one try): report the original
            if str(exc).startswith("retry()") and exc.__context__ is not None:
                exc = exc.__context__
                outcome = "fail" if isinstance(exc, AssertionError) else "error"
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-2500:]
        tid = test.id()
        if self.watchdog is not None and tid in self.watchdog.timed_out:
            outcome, detail = "timeout", self.watchdog.timed_out[tid] + "\n--- the test's own error:\n" + detail
        if isinstance(test, unittest.suite._ErrorHolder):  # setUpClass / tearDownClass failure
            self.class_errors[test.description] = detail
            return
        self.out[tid] = {"outcome": outcome, "seconds": round(time.monotonic() - self.t0.get(tid, time.monotonic()), 2),
                         "detail": detail}

    def addSuccess(self, test) -> None:
        self._put(test, "pass")

    def addFailure(self, test, err) -> None:
        self._put(test, "fail", err)

    def addError(self, test, err) -> None:
        self._put(test, "error", err)

    def addSkip(self, test, reason) -> None:
        self.out[test.id()] = {"outcome": "skip", "seconds": 0.0, "detail": reason}


def load(tests_dir: Path, rel: str):
    path = tests_dir / selection.SOURCE_DIR / rel
    name = "sglang_peer_" + rel.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests-dir", required=True, type=Path)
    ap.add_argument("--target", required=True)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--log-dir", type=Path, default=None)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--test-timeout", type=float, default=None,
                    help="seconds one test may run before the target is stopped (default 120 twin, 900 real)")
    a = ap.parse_args()
    log_dir = a.log_dir or a.out.parent
    log_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SGLANG_TEST_MAX_RETRY", "0")  # a failure is reported, not retried
    os.environ.pop("SGLANG_IS_IN_CI", None)
    shim = shim_mod.install(a.target, log_dir)
    watchdog = Watchdog(shim, a.test_timeout or (120.0 if a.target == "twin" else 900.0))

    wanted = list(a.only) if a.only else [t for t in selection.SELECTED
                                          if a.target == "twin" or t not in selection.TWIN_ONLY]
    by_file: dict[str, dict[str, list[str]]] = {}
    for tid in wanted:
        rel, cls, meth = tid.split("::")
        by_file.setdefault(rel, {}).setdefault(cls, []).append(meth)

    results: dict[str, dict] = {}
    t_start = time.monotonic()

    def write(res: dict, done: bool = False) -> None:
        a.out.write_text(json.dumps({"target": a.target, "served_model": shim.served, "url": shim.url,
                                     "seconds": round(time.monotonic() - t_start, 1), "complete": done,
                                     "launches": shim.launches, "results": res}, indent=1))

    for rel, classes in by_file.items():
        try:
            mod = load(a.tests_dir, rel)
        except Exception:
            tb = traceback.format_exc()[-2500:]
            for cls, meths in classes.items():
                for m in meths:
                    results[f"{rel}::{cls}::{m}"] = {"outcome": "error", "seconds": 0.0, "detail": "import: " + tb}
            continue
        for cls, meths in classes.items():
            suite = unittest.TestSuite(getattr(mod, cls)(m) for m in meths)
            shim.extra_twin_args = (["--sim-time-scale", "1"] if f"{rel}::{cls}" in selection.TWIN_AT_MODELLED_SPEED
                                    else [])
            res = Collect(watchdog)
            buf = io.StringIO()
            t0 = time.monotonic()
            with redirect_stdout(buf):
                suite.run(res)  # top level: runs setUpClass before and tearDownClass after
            class_err = "\n".join(f"{k}: {v}" for k, v in res.class_errors.items())
            for m in meths:
                tid = f"{rel}::{cls}::{m}"
                r = next((v for k, v in res.out.items() if k.endswith(f".{cls}.{m}")), None)
                if r is None:
                    r = {"outcome": "error", "seconds": 0.0, "detail": class_err or "not run"}
                elif class_err and r["outcome"] == "pass":
                    r = {**r, "outcome": "error", "detail": class_err}
                r["stdout_tail"] = buf.getvalue()[-1500:]
                results[tid] = r
            write(results)  # after each class: a run cut short keeps what it finished
            sys.stderr.write(f"{rel}::{cls}: {time.monotonic() - t0:.1f} s, "
                             f"{sum(results[f'{rel}::{cls}::{m}']['outcome'] == 'pass' for m in meths)}/{len(meths)} pass\n")
    write(results, done=True)
    left = [pid for pid in shim.ours]
    for pid in left:
        shim.kill_process_tree(pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
