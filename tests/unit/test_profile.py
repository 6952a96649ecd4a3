import textwrap
from pathlib import Path

import pytest

from console.core.launch.check import check_profile
from console.core.launch.profile import ProfileError, load_profile, resolve_profile
from console.core.redaction import redact_argv

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "p.toml"
    p.write_text(textwrap.dedent(body))
    return p


BASE = """
[model]
path = "moonshotai/Kimi-K2.6"
tp = 4
[drafter]
family = "eagle3"
model = "d"
steps = 6
topk = 1
draft_tokens = 7
"""


def test_reference_profile_compiles_to_the_documented_argv():
    p = resolve_profile(str(REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml"))
    argv = p.argv()
    assert argv[:3] == ["python3", "-m", "sglang.launch_server"]
    flags = argv[3:]
    pairs = {flags[i]: flags[i + 1] for i in range(len(flags) - 1) if flags[i].startswith("--")}
    assert pairs["--tp-size"] == "4"
    assert pairs["--speculative-algorithm"] == "EAGLE3"
    assert pairs["--speculative-num-steps"] == "6"
    assert pairs["--speculative-eagle-topk"] == "1"
    assert pairs["--speculative-num-draft-tokens"] == "7"
    assert "--enable-metrics" in flags and "--trust-remote-code" in flags
    assert check_profile(p).ok


def test_sim_argv_runs_the_twin_with_the_same_flags():
    p = resolve_profile(str(REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml"))
    real, sim = p.argv(), p.argv(sim=True)
    assert sim[1:3] == ["-m", "console.sim"]
    assert sim[3:] == real[3:]


@pytest.mark.parametrize("body,needle", [
    (BASE + "\n[drafter2]\nx=1\n", "unknown section [drafter2]"),
    (BASE.replace("tp = 4", "tp = \"4\""), "model.tp must be an integer"),
    (BASE.replace("steps = 6", "stepz = 6"), "unknown field drafter.stepz"),
    (BASE.replace("draft_tokens = 7", "draft_tokens = 6"), "draft_tokens must be steps + 1 = 7"),
    (BASE.replace("family = \"eagle3\"", "family = \"medusa\""), "drafter.family 'medusa' is not one of"),
    (BASE + "\n[kv]\ndtype = \"fp8\"\n", "kv.dtype 'fp8' is not one of"),
    (BASE + "\n[server]\napi_key = \"sk-123\"\n", "must not be inline"),
    (BASE + "\n[kv]\nmem_fraction_static = 1.5\n", "mem_fraction_static must be in (0, 1)"),
    (BASE.replace("path = \"moonshotai/Kimi-K2.6\"", ""), "model.path is required"),
    ("[model\n", "not valid TOML"),
    (BASE + "\n[probe]\nwidths = \"4,x\"\n", "probe.widths must list verify widths like \"4,10\", got '4,x'"),
    (BASE + "\n[probe]\nn = 0\n", "probe.n must be ≥ 1, got 0"),
    (BASE + "\n[probe]\nchain = \"no\"\n", "probe.chain must be true or false"),
])
def test_bad_profiles_fail_with_one_line_naming_the_field(tmp_path, body, needle):
    with pytest.raises(ProfileError) as ei:
        load_profile(write(tmp_path, body))
    msg = str(ei.value)
    assert needle in msg and "\n" not in msg and str(tmp_path / "p.toml") in msg


def test_dflash_forces_steps_and_topk(tmp_path):
    body = BASE.replace('family = "eagle3"', 'family = "dflash"').replace("draft_tokens = 7", "draft_tokens = 16")
    with pytest.raises(ProfileError, match="DFLASH forces steps = topk = 1"):
        load_profile(write(tmp_path, body))


def test_check_rejects_removed_and_misspelled_flags(tmp_path):
    p = load_profile(write(tmp_path, BASE + '\n[server]\nextra_args = ["--cuda-graph-max-bs", "64"]\n'))
    r = check_profile(p)
    assert not r.ok and "ambiguous option: --cuda-graph-max-bs" in r.message and "server.extra_args" in r.message
    p = load_profile(write(tmp_path, BASE + '\n[server]\nextra_args = ["--enable-metric"]\n'))
    assert "ambiguous option: --enable-metric could match" in check_profile(p).message
    # sglang's parser accepts a unique prefix, but a later flag can make it ambiguous: refuse it
    p = load_profile(write(tmp_path, BASE + '\n[server]\nextra_args = ["--enable-metrics-for-all"]\n'))
    r = check_profile(p)
    assert not r.ok and "abbreviation of --enable-metrics-for-all-schedulers" in r.message
    p = load_profile(write(tmp_path, BASE + '\n[server]\nextra_args = ["--speculative-num-stepz", "3"]\n'))
    assert "unrecognized arguments: --speculative-num-stepz" in check_profile(p).message


def test_api_key_from_env_and_redaction(tmp_path, monkeypatch):
    monkeypatch.delenv("SC_TEST_KEY", raising=False)  # "unset" must not depend on the caller's shell
    p = load_profile(write(tmp_path, BASE + '\n[server]\napi_key_env = "SC_TEST_KEY"\n'))
    with pytest.raises(ProfileError, match=r"\$SC_TEST_KEY, which is unset"):
        p.api_key()
    monkeypatch.setenv("SC_TEST_KEY", "sk-secret")
    argv = p.argv(api_key=p.api_key())
    assert "sk-secret" in argv
    red = redact_argv(argv)
    assert "sk-secret" not in red and "<redacted>" in red
    assert redact_argv(["--api-key=sk-1", "x"]) == ["--api-key=<redacted>", "x"]


def test_unknown_profile_name_lists_known(monkeypatch, tmp_path):
    monkeypatch.setenv("SERVING_CONSOLE_PROFILES", str(REPO / "console" / "shipped" / "profiles"))
    with pytest.raises(ProfileError, match="known: .*k26-eagle3-d6"):
        resolve_profile("nope")
