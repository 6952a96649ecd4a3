"""Acceptance alarms on the real SGLang 0.5.23 speculative server (issue #28): the shipped STANDALONE arm with its
partial (4-bit) drafter raises nothing, while the same arm launched with dummy draft weights
(`--speculative-draft-load-format dummy`, SGLang's own random-weights loader) raises the dummy alarm — live, in the
session's alarms.jsonl and in `bench --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.real_sglang.conftest import run_cli
from tests.real_sglang.spec import SPEC, cpu_profiles

pytestmark = pytest.mark.real_sglang


def _bench(profiles: Path, name: str, sessions: Path) -> tuple[dict, Path]:
    p = run_cli(["bench", "--profile", name, "--prompts", "health", "--n", "6", "--max-tokens", "40", "--json",
                 "--sessions", str(sessions)], timeout=900, env={"SERVING_CONSOLE_PROFILES": str(profiles)})
    assert p.returncode == 0, p.stderr[-3000:]
    cell = json.loads(p.stdout)["cell"]
    assert cell["simulated"] is False and cell["speculative_algorithm"] == "STANDALONE"
    return cell, Path(cell["rows_path"]).parents[1]


def test_the_partial_drafter_is_healthy_and_dummy_weights_alarm(real_env, tmp_path):
    profiles = cpu_profiles(tmp_path / "profiles")
    good, s_good = _bench(profiles, SPEC, tmp_path / "good")
    assert good["alarm"] is False and good["alarms"] == [], good["alarms"]
    assert not (s_good / "alarms.jsonl").exists()
    text = (profiles / f"{SPEC}.toml").read_text()
    text = text.replace('extra_args = ["--device", "cpu",',
                        'extra_args = ["--speculative-draft-load-format", "dummy", "--device", "cpu",')
    assert "--speculative-draft-load-format" in text
    (profiles / "cpu-smollm2-standalone-d3-dummy.toml").write_text(text)
    bad, s_bad = _bench(profiles, "cpu-smollm2-standalone-d3-dummy", tmp_path / "bad")
    assert bad["tau"] is not None and bad["tau"] < 1.1, bad["tau"]
    assert bad["alarm"] is True and [a["kind"] for a in bad["alarms"]] == ["dummy"]
    raised = [json.loads(x) for x in (s_bad / "alarms.jsonl").read_text().splitlines()]
    assert raised[0]["event"] == "raised" and raised[0]["alarm"]["kind"] == "dummy"
    print(f"\nreal STANDALONE d3: partial drafter τ {good['tau']:.2f}, no alarm; dummy weights τ {bad['tau']:.2f}: "
          f"{raised[0]['alarm']['saw']} (raised at request {raised[0]['alarm']['since_index'] + 1})")
