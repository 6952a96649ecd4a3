"""Every shipped profile: its `launch --dry-run` flags are accepted by the pinned sglang 0.5.23 parser and pass
the 0.5.23 rules.

The pinned catalogue is argparse introspection of the real `ServerArgs.add_cli_args`; on 2026-11-30 it was
re-introspected from a throw-away venv with the released sglang 0.5.23 wheel (torch 2.13.0+cpu, no GPU) and
matched option for option (531 options; the only difference: the order of --sampling-backend's dynamic choices),
and every shipped profile's flags passed sglang's own `prepare_server_args` there. To repeat that proof against a
real install, point SERVING_CONSOLE_SGLANG_PYTHON at its interpreter; the last test then runs sglang's parser in
that interpreter (a subprocess: the console never imports sglang).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from console.cli import main
from console.core.launch.flags import pinned_catalogue
from console.core.launch.check import check_flags, check_profile
from console.core.launch.profile import load_profile

REPO = Path(__file__).resolve().parents[2]
PROFILES = sorted((REPO / "console" / "shipped" / "profiles").glob("*.toml"))
NAMES = [p.stem for p in PROFILES]

EXPECTED = {
    "k26-nospec": ("none", None, None, None, None, "auto"),
    "k26-eagle3-d5": ("eagle3", "lightseekorg/kimi-k2.6-eagle3", 5, 1, 6, "auto"),
    "k26-eagle3-d6": ("eagle3", "lightseekorg/kimi-k2.6-eagle3", 6, 1, 7, "auto"),
    "k26-eagle3-d7": ("eagle3", "lightseekorg/kimi-k2.6-eagle3", 7, 1, 8, "auto"),
    "k26-eagle3-d6-fp8kv": ("eagle3", "lightseekorg/kimi-k2.6-eagle3", 6, 1, 7, "fp8_e4m3"),
    "k26-dflash-b8": ("dflash", "z-lab/Kimi-K2.6-DFlash", None, None, 8, "auto"),
    "k26-dflash-b16": ("dflash", "z-lab/Kimi-K2.6-DFlash", None, None, 16, "auto"),
}

CPU_HOME = "~/.cache/serving-console/real-sglang"
CPU_EXPECTED = {
    "cpu-smollm2-nospec": ("none", None, None, None, None),
    "cpu-smollm2-ngram": ("ngram", None, None, None, 4),
    "cpu-smollm2-standalone-d2": ("standalone", CPU_HOME + "/drafter-q4", 2, 1, 3),
    "cpu-smollm2-standalone-d3": ("standalone", CPU_HOME + "/drafter-q4", 3, 1, 4),
    "cpu-smollm2-standalone-d4": ("standalone", CPU_HOME + "/drafter-q4", 4, 1, 5),
}

# the reference arm's argv must not drift (sessions recorded against it compare like with like)
REFERENCE_D6 = ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-K2.6 --tp-size 4 --trust-remote-code "
                "--speculative-algorithm EAGLE3 --speculative-draft-model-path lightseekorg/kimi-k2.6-eagle3 "
                "--speculative-num-steps 6 --speculative-eagle-topk 1 --speculative-num-draft-tokens 7 "
                "--mem-fraction-static 0.96 --host 127.0.0.1 --port 30000 --enable-metrics")


def dry_run(name: str, capsys, monkeypatch) -> list[str]:
    monkeypatch.setenv("SERVING_CONSOLE_PROFILES", str(REPO / "console" / "shipped" / "profiles"))
    capsys.readouterr()
    rc = main(["launch", name, "--dry-run"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return shlex.split(out.out.strip().splitlines()[-1])


def test_the_deployment_arms_are_all_shipped():
    assert set(EXPECTED) <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_dry_run_flags_pass_the_pinned_parser_and_the_rules(name, capsys, monkeypatch):
    argv = dry_run(name, capsys, monkeypatch)
    assert argv[1:3] == ["-m", "sglang.launch_server"]
    flags = argv[3:]
    ns = check_flags(flags, pinned_catalogue())
    if name.startswith("cpu-"):  # the CPU lane's arms (docs/real-sglang.md): the cached build's model, on this CPU
        assert ns.model_path == os.path.expanduser(CPU_HOME + "/model") and ns.tp_size == 1 and ns.device == "cpu"
        assert ns.attention_backend == "intel_amx"
    else:
        assert ns.model_path == "moonshotai/Kimi-K2.6" and ns.tp_size == 4
    prof = load_profile(REPO / "console" / "shipped" / "profiles" / f"{name}.toml")
    res = check_profile(prof, pinned_catalogue())
    assert res.ok and res.errors == [] and res.warnings == [], res.message
    assert res.argv == flags


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_profile_contents(name):
    p = load_profile(REPO / "console" / "shipped" / "profiles" / f"{name}.toml")
    d = p.drafter
    assert (d.family, d.model, d.steps, d.topk, d.draft_tokens, p.kv_cache_dtype) == EXPECTED[name]
    assert p.model_path == "moonshotai/Kimi-K2.6" and p.tp == 4 and p.trust_remote_code
    assert p.mem_fraction_static == 0.96 and p.node_usd_per_hour == 24.0
    assert p.description.startswith("Kimi-K2.6 · TP4 on 4×B200 · ")
    assert not p.is_sim
    if d.family == "dflash":  # the draft is gated on the hub: the profile must say how to get it
        assert "gated on the hub" in (REPO / "console" / "shipped" / "profiles" / f"{name}.toml").read_text()


@pytest.mark.parametrize("name", sorted(CPU_EXPECTED))
def test_cpu_lane_profile_contents(name):
    """The CPU lane's arms launch the real server the build caches: its interpreter, model and 4-bit drafter, the CPU
    engine and the intel_amx backend (the one that verifies on CPU), a short anchor, no price."""
    p = load_profile(REPO / "console" / "shipped" / "profiles" / f"{name}.toml")
    d = p.drafter
    assert (d.family, d.model, d.steps, d.topk, d.draft_tokens) == CPU_EXPECTED[name]
    assert p.engine_python == CPU_HOME + "/env/bin/python" and p.model_path == CPU_HOME + "/model" and p.tp == 1
    assert p.env == {"SGLANG_USE_CPU_ENGINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    assert p.extra_args[:4] == ("--device", "cpu", "--attention-backend", "intel_amx")
    assert (p.anchor_n, p.anchor_max_tokens, p.node_usd_per_hour) == (2, 32, None) and not p.is_sim
    assert p.input_window is False  # SmolLM2 counts the o200k-windowed prompt sets otherwise


def test_reference_arm_argv_is_unchanged(capsys, monkeypatch):
    assert shlex.join(dry_run("k26-eagle3-d6", capsys, monkeypatch)) == REFERENCE_D6


REAL_PARSE = r"""
import argparse, json, sys
from sglang.srt.server_args import ServerArgs, prepare_server_args
out = {}
for name, flags in json.loads(sys.stdin.read()).items():
    try:
        prepare_server_args(list(flags))
        out[name] = "PASS"
    except BaseException as e:
        out[name] = "FAIL " + type(e).__name__ + ": " + str(e)
print(json.dumps(out))
"""


@pytest.mark.sglang
def test_profiles_pass_the_real_sglang_parser():
    """Opt-in (`pytest -m sglang`): needs an interpreter with sglang 0.5.23 and torch installed."""
    py = os.environ.get("SERVING_CONSOLE_SGLANG_PYTHON")
    if not py:
        pytest.fail("set SERVING_CONSOLE_SGLANG_PYTHON to a python with sglang 0.5.23 (and torch) installed")
    flags = {p.stem: load_profile(p).server_flags() for p in PROFILES}
    proc = subprocess.run([py, "-c", REAL_PARSE], input=json.dumps(flags), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {name: "PASS" for name in flags}
