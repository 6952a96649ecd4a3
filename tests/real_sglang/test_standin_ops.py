"""The `sgl_kernel` stand-in's own tests (tests/real_sglang/standin_ops/: every op SGLang 0.5.23's CPU speculative
path calls, against an independent reference), run under the real-sglang env's interpreter, the only one with torch.
A failing op fails this test with pytest's own summary of which one and why."""

from __future__ import annotations

import subprocess

import pytest

from tests.real_sglang.conftest import ENV_PY, HERE, REPO

pytestmark = pytest.mark.real_sglang


def test_every_stood_in_op_matches_its_independent_reference(real_env):
    p = subprocess.run([str(ENV_PY), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
                        str(HERE / "standin_ops")], cwd=REPO, capture_output=True, text=True, timeout=600)
    tail = (p.stdout + p.stderr)[-4000:]
    assert p.returncode == 0, tail
    summary = [ln for ln in p.stdout.splitlines() if " passed" in ln][-1]
    assert "failed" not in summary and "error" not in summary, tail
    passed = int(summary.split(" passed")[0].split()[-1])
    assert passed >= 90, f"fewer op tests than written ({summary}): a module was not collected"
    print(summary)
