"""Chat turns through the openai SDK at sglang's own pin (2.8.0), with the console installed in the sglang
environment: each answer carries its figures line (TTFT, tok/s, tokens, finish reason; no τ without speculation)."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from tests.real_sglang.conftest import ENV_PY, HERE, REPO

pytestmark = pytest.mark.real_sglang


def test_chat_turns_through_openai_2_8_0_beside_sglang(server):
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # this checkout's console, whatever the env's install points at
    p = subprocess.run([str(ENV_PY), str(HERE / "chat_probe.py"), server.url], capture_output=True, text=True,
                       timeout=300, cwd=REPO, env=env, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    # the console beside sglang: one interpreter, sglang's pins kept, and the console never imports sglang
    assert out["openai"] == "2.8.0" and out["sglang_dist"] == "0.5.23" and out["console_dist"]
    assert out["console_file"].startswith(str(REPO)) and out["python"].startswith(str(ENV_PY.parent))
    assert out["sglang_imported"] is False
    assert out["engine_version"] == "0.5.23" and out["simulated"] is False
    assert out["model"] == server.info["served_model_name"]
    t1, t2 = out["turns"]
    for t in (t1, t2):
        assert t["error"] is None and t["assistant"].strip(), t
        st = t["stats"]
        assert st["ttft_s"] > 0 and st["tok_s"] > 0 and 0 < st["completion_tokens"] <= 40, st
        assert st["first_chunk_tokens"] == 1 and st["tau"] is None and st["histogram"] is None
        assert st["finish_reason"] in ("stop", "length")
        # the figures line: `TTFT 0.21 s · 14.2 tok/s · 40 tok · length`, no τ on a server without speculation
        assert re.fullmatch(r"TTFT \d+\.\d\d s · \d+\.\d tok/s · \d+ tok · (stop|length)", t["line"]), t["line"]
        assert "τ" not in t["wide"]
    assert out["streamed_equals_answer"] and out["n_messages"] == 5  # system + 2 × (user, assistant)
