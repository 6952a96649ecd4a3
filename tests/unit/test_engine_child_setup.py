"""The engine child's set-up between fork and exec (console/core/launch/process.py `_child_setup`): its own
session, PR_SET_PDEATHSIG(SIGTERM), and no engine at all when the console died before the signal was armed
(Linux, as the product)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from console.core.launch.process import _child_setup

def test_a_child_whose_console_is_gone_exits_before_exec():
    # a parent pid that is not ours stands for a console killed between the fork and the prctl: the child must
    # not exec the engine (it would never be told to stop)
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], preexec_fn=_child_setup(1),
                         stdin=subprocess.DEVNULL)
    assert p.wait(timeout=10) == 1


def test_a_child_of_a_live_console_gets_its_own_session_and_the_signal():
    code = ("import ctypes, os, signal; sig = ctypes.c_int(); "
            "ctypes.CDLL('libc.so.6').prctl(2, ctypes.byref(sig)); "  # PR_GET_PDEATHSIG
            "print(sig.value, os.getsid(0) == os.getpid())")
    out = subprocess.run([sys.executable, "-c", code], preexec_fn=_child_setup(os.getpid()), capture_output=True,
                         text=True, timeout=30)
    assert out.stdout.split() == [str(int(signal.SIGTERM)), "True"]
