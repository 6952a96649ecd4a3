"""A verify that raises inside the real scheduler (issue #25 §6): the stand-in's verify_tree_greedy_cpu made to fail on
purpose at its 45th call (SC_STANDIN_FAIL, scripts/real_sglang/sgl_kernel_standin/sgl_kernel/_inject.py) in the middle
of a cell on the real STANDALONE server. The call is placed so the outcome does not depend on acceptance: SGLang's
own startup warm-up (8 tokens) takes at most 7 verify calls and the first 32-token request at most 31 (τ 1), so it
finishes before call 45; six requests take at least 2 + 6 × 8 = 50 calls (τ 4, the most depth 3 verifies), so the
failure lands inside the cell. (At call 20 a first request with low acceptance could meet it: seen once in CI.) SGLang's scheduler dies as it does on a GPU node; the console prints the
engine's root-cause line, exits 3, and keeps the rows it recorded before."""

from __future__ import annotations

import json

import pytest

from tests.real_sglang.conftest import run_cli
from tests.real_sglang.spec import SPEC, cpu_profiles

pytestmark = pytest.mark.real_sglang


def test_a_verify_that_raises_in_the_real_scheduler_is_exit_3_with_its_root_cause(real_env, tmp_path):
    profiles = cpu_profiles(tmp_path / "profiles")
    prof = profiles / f"{SPEC}.toml"
    prof.write_text(prof.read_text().replace('[env]\n', '[env]\nSC_STANDIN_FAIL = "verify_tree_greedy_cpu@45"\n'))
    sessions = tmp_path / "s"
    p = run_cli(["bench", "--profile", SPEC, "--prompts", "health", "--n", "6", "--max-tokens", "32", "--warmup", "0",
                 "--sessions", str(sessions)], timeout=600, env={"SERVING_CONSOLE_PROFILES": str(profiles)})
    assert p.returncode == 3, (p.returncode, p.stderr[-3000:])
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    # the engine's own root cause, named (the stand-in's exception as SGLang's scheduler logged it)
    assert "verify_tree_greedy_cpu failed on purpose at call 45" in p.stderr, p.stderr[-3000:]
    (cell_dir,) = sessions.glob("*/cell-*")
    rows = [json.loads(x) for x in (cell_dir / "rows.jsonl").read_text().splitlines() if x.strip()]
    done = [r for r in rows if r["error"] is None]
    assert done and done[0]["completion_tokens"] == 32 and done[0]["spec_verify_ct"] < 45, rows  # kept as recorded
    assert any(r["error"] for r in rows) or len(rows) < 6
    log = next(sessions.glob("*/engine-*.log")).read_text()
    assert "failed on purpose" in log  # the engine log is kept beside the cell
