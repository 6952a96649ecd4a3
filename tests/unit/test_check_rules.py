"""check_profile: the target engine's catalogue (introspected with a fake interpreter, cached, or pinned) and the
per-version rules, each triggering with its one line naming the profile field."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Callable

import pytest

from console.core.launch.flags import FlagCatalogue, pinned_catalogue
from console.core.launch.catalogue_cache import cache_file, resolve_catalogue
from console.core.launch.check import check_profile
from console.core.launch.profile import Drafter, Profile
from console.core.launch.rules import (
    RULES, VersionRange, known_algorithms, parse_version, rules_for, rules_table,
)

PINNED_JSON = json.loads(resources.files("console.data").joinpath("sglang-0.5.23-flags.json").read_text())

EAGLE = Drafter(family="eagle3", model="lightseekorg/kimi-k2.6-eagle3", steps=6, topk=1, draft_tokens=7)
DFLASH = Drafter(family="dflash", model="z-lab/Kimi-K2.6-DFlash", draft_tokens=16)


def prof(drafter: Drafter = EAGLE, extra: tuple[str, ...] = (), **kw) -> Profile:
    """A hand-written profile (the dataclass, bypassing load-time validation so each rule can be reached)."""
    return Profile(name="t", path=None, model_path="moonshotai/Kimi-K2.6", tp=4, trust_remote_code=True,
                   drafter=drafter, mem_fraction_static=0.96, extra_args=tuple(extra), **kw)


def only_error(r) -> str:
    assert not r.ok, r.message
    assert len(r.errors) == 1, r.errors
    line = r.errors[0]
    assert "\n" not in line
    return line


# --- a clean profile passes ------------------------------------------------------------------------------

@pytest.mark.parametrize("d", [EAGLE, DFLASH, Drafter(), replace(EAGLE, steps=3, topk=4, draft_tokens=8)])
def test_clean_profiles_pass_without_errors_or_warnings(d):
    r = check_profile(prof(d))
    assert r.ok and r.errors == [] and r.warnings == [], r.message
    assert r.source == "pinned" and "twin parses" in r.source_reason
    assert r.message.startswith("t: argv accepted by the pinned sglang 0.5.23 flag catalogue")


# --- each rule: one line, naming the field and the fix ----------------------------------------------------

@pytest.mark.parametrize("p,field,needle", [
    # topk = 1 => draft tokens = steps + 1
    (prof(replace(EAGLE, draft_tokens=6)), "drafter.draft_tokens", "steps + 1 = 7"),
    # topk > 1 => draft tokens ≥ steps + 1 (the real CPU server's scheduler died at the first verify of 3 · 2 · 2)
    (prof(replace(EAGLE, steps=3, topk=2, draft_tokens=2)), "drafter.draft_tokens",
     "draft tokens = 2 < steps + 1 = 4 with topk = 2: sglang's EAGLE worker moves the accepted path"),
    # steps unset => topk and draft tokens unset
    (prof(replace(EAGLE, steps=None, draft_tokens=4)), "drafter.steps",
     "sglang asserts steps, topk and draft tokens are all set or all unset"),
    # trtllm_mha needs topk = 1
    (prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8), ("--attention-backend", "trtllm_mha")), "drafter.topk",
     "trtllm_mha supports only topk = 1"),
    # topk > 1 with paged KV needs flashinfer / fa3 / triton
    (prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8), ("--page-size", "64", "--attention-backend", "trtllm_mla")),
     "drafter.topk", "needs attention backend flashinfer, fa3 or triton"),
    # ... and trtllm_mla pages by 32/64 whatever --page-size says: page 1 is no way out there
    (prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8), ("--page-size", "1", "--attention-backend", "trtllm_mla")),
     "drafter.topk", "trtllm_mla pages KV by 32 or 64 tokens whatever --page-size says"),
    (prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8), ("--page-size", "16", "--attention-backend", "torch_native")),
     "drafter.topk", "set drafter.topk = 1, --page-size 1, or one of those backends"),
    # rejection sampling: topk = 1
    (prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8), ("--speculative-use-rejection-sampling",)),
     "drafter.topk", "requires topk = 1"),
    # block verification: not for NGRAM
    (prof(Drafter(family="ngram", steps=3, draft_tokens=12), ("--speculative-use-block-verification",)),
     "server.extra_args", "--speculative-use-block-verification supports EAGLE"),
    # unknown algorithm name (no argparse choices upstream)
    (prof(Drafter(), ("--speculative-algorithm", "MEDUSA")), "server.extra_args",
     "is not a built-in algorithm of sglang 0.5.23"),
    # DFLASH forces steps = topk = 1
    (prof(DFLASH, ("--speculative-num-steps", "3")), "server.extra_args", "DFLASH forces steps = 1"),
    # DFLASH: block size and draft tokens are one number
    (prof(DFLASH, ("--speculative-num-draft-tokens", "8")), "server.extra_args",
     "differs from --speculative-dflash-block-size 16"),
    (prof(DFLASH, ("--speculative-draft-window-size", "8")), "server.extra_args",
     "smaller than the block size 16"),
    (prof(replace(DFLASH, model=None)), "drafter.model", "DFLASH needs a draft model"),
    (prof(DFLASH, ("--pp-size", "2")), "server.extra_args", "DFLASH supports only --pp-size 1"),
    (prof(DFLASH, ("--attn-dp-size", "4")), "server.extra_args", "requires --enable-dp-lm-head"),
    # NGRAM: topk is the BFS breadth; no attention DP; SAM budget
    (prof(Drafter(family="ngram", steps=3, topk=4, draft_tokens=12)), "drafter.topk",
     "NGRAM replaces topk with --speculative-ngram-max-bfs-breadth (10)"),
    (prof(Drafter(family="ngram", steps=3, draft_tokens=12), ("--attn-dp-size", "2")), "server.extra_args",
     "NGRAM does not support attention DP"),
    (prof(Drafter(family="ngram", steps=3, draft_tokens=12),
          ("--speculative-ngram-external-corpus-path", "c.txt", "--speculative-ngram-external-sam-budget", "20")),
     "server.extra_args", "exceeds draft tokens - 1 = 11"),
    # adaptive depth
    (prof(replace(EAGLE, steps=4, draft_tokens=5), ("--speculative-adaptive",)), "drafter.steps",
     "steps = 4 is not one of the adaptive config's candidate_steps [0, 1, 3, 5, 7]"),
    (prof(replace(EAGLE, steps=5, topk=2, draft_tokens=8), ("--speculative-adaptive",)), "drafter.topk",
     "--speculative-adaptive needs topk = 1"),
    (prof(DFLASH, ("--speculative-adaptive",)), "server.extra_args",
     "--speculative-adaptive supports only EAGLE / EAGLE3 (got DFLASH)"),
    # removed flags name their replacement
    (prof(EAGLE, ("--cuda-graph-max-bs", "64")), "server.extra_args",
     "--cuda-graph-max-bs was removed in sglang 0.5.20"),
    (prof(EAGLE, ("--cuda-graph-bs", "1", "2", "4")), "server.extra_args", "use --cuda-graph-bs-decode"),
    (prof(EAGLE, ("--piecewise-cuda-graph-max-tokens", "4096")), "server.extra_args",
     "use --cuda-graph-max-bs-prefill"),
    # a flag a field emits, repeated in extra_args
    (prof(EAGLE, ("--speculative-num-steps", "6")), "server.extra_args", "also set by drafter.steps"),
    # unique prefixes are refused
    (prof(EAGLE, ("--enable-metrics-for-all",)), "server.extra_args",
     "abbreviation of --enable-metrics-for-all-schedulers"),
    (prof(EAGLE, ("--speculative-num-stepz", "3")), "server.extra_args", "did you mean --speculative-num-steps?"),
    (prof(EAGLE, ("--kv-cache-dtype", "fp9")), "server.extra_args", "invalid choice: 'fp9'"),
])
def test_each_rule_fails_with_one_line_naming_the_field(p, field, needle):
    line = only_error(check_profile(p))
    assert line.startswith(field + ": "), line
    assert needle in line, line


def test_removed_flag_line_names_the_replacement_and_quotes_the_parser():
    line = only_error(check_profile(prof(EAGLE, ("--cuda-graph-max-bs", "64"))))
    assert "ambiguous option: --cuda-graph-max-bs could match" in line
    assert line.endswith("use --cuda-graph-max-bs-decode N (prefill graphs: --cuda-graph-max-bs-prefill)")


def test_all_rejections_are_collected_not_just_the_first():
    r = check_profile(prof(replace(EAGLE, steps=3, topk=4, draft_tokens=8),
                           ("--cuda-graph-max-bs", "64", "--enable-metric", "--speculative-num-stepz", "3",
                            "--attention-backend", "trtllm_mha")))
    text = "\n".join(r.errors)
    for needle in ("removed in sglang 0.5.20", "ambiguous option: --enable-metric", "unrecognized arguments",
                   "trtllm_mha supports only topk = 1"):
        assert needle in text
    assert len(r.errors) == 4 and all("\n" not in e for e in r.errors)
    assert r.message.count("\n  error: ") == 4


@pytest.mark.parametrize("p,field,needle", [
    (prof(EAGLE, ("--disable-cuda-graph",)), "server.extra_args",
     "--disable-cuda-graph is deprecated in sglang 0.5.23 (it still works, with a warning, and will be removed); "
     "use --cuda-graph-backend-decode=disabled --cuda-graph-backend-prefill=disabled"),
    (prof(EAGLE, ("--enable-dp-attention",)), "server.extra_args", "use --attn-dp-size <dp-size>"),
    (prof(EAGLE, ("--enable-flashinfer-allreduce-fusion",)), "server.extra_args",
     "use --flashinfer-allreduce-fusion-backend=auto"),
    (prof(replace(DFLASH, draft_tokens=None)), "drafter.draft_tokens", "falls back to 16"),
    (prof(Drafter(family="ngram", model="x/y", steps=3, draft_tokens=12)), "drafter.model", "the draft model is ignored"),
    (prof(Drafter(family="ngram")), "drafter.draft_tokens", "NGRAM defaults to 12 draft tokens"),
    (prof(EAGLE, ("--cuda-graph-config", '{"decode": {"max_bs": 64}}', "--cuda-graph-max-bs-decode", "32")),
     "server.extra_args", "--cuda-graph-config JSON wins over --cuda-graph-max-bs-decode"),
])
def test_warnings_are_separate_from_errors(p, field, needle):
    r = check_profile(p)
    assert r.ok and r.errors == [], r.message
    assert len(r.warnings) == 1 and r.warnings[0].startswith(field + ": ") and needle in r.warnings[0], r.warnings
    assert "\n  warning: " in r.message


# --- version-keyed rules ---------------------------------------------------------------------------------

def catalogue_of(version: str, add: list[dict] = (), drop: tuple[str, ...] = ()) -> FlagCatalogue:
    data = json.loads(json.dumps(PINNED_JSON))
    data["version"] = version
    data["options"] = [o for o in data["options"] if not set(o["flags"]) & set(drop)] + list(add)
    return FlagCatalogue.from_json(data, source=f"test sglang {version}")


OLD_FLAGS = [
    {"flags": ["--cuda-graph-max-bs"], "dest": "cuda_graph_max_bs_decode", "action": "DeprecatedAliasStoreAction",
     "type": "int", "nargs": None, "default": None, "choices": None, "deprecated": True},
    {"flags": ["--cuda-graph-bs"], "dest": "cuda_graph_bs", "action": "DeprecatedAliasStoreAction",
     "type": "int", "nargs": "+", "default": None, "choices": None, "deprecated": True},
]


def test_capture_multiple_of_1_plus_k_holds_only_for_old_versions():
    old = catalogue_of("0.5.14", add=OLD_FLAGS)
    r = check_profile(prof(EAGLE, ("--cuda-graph-bs", "1", "2", "7", "14")), old)
    assert r.ok and r.version == "0.5.14"
    hits = [w for w in r.warnings if "multiples of 1 + steps = 7" in w]
    assert hits == ["server.extra_args: capture sizes [1, 2] are not multiples of 1 + steps = 7, which sglang 0.5.14 "
                    "required for speculative runs; use multiples of 7"]
    # 0.5.14 still accepts the old spelling: a deprecation warning naming the new one, not an error
    assert any("--cuda-graph-bs is deprecated in sglang 0.5.14" in w and "--cuda-graph-bs-decode" in w
               for w in r.warnings)
    # 0.5.23: no such rule, and the per-phase flag takes any sizes
    r = check_profile(prof(EAGLE, ("--cuda-graph-bs-decode", "1", "2", "7", "14")))
    assert r.ok and r.warnings == [] and r.errors == []


def test_rules_table_is_keyed_by_version():
    ids = lambda v: {r.id for r in rules_for(parse_version(v))}  # noqa: E731
    assert "capture-multiple-of-1+k" in ids("0.5.14") and "capture-multiple-of-1+k" not in ids("0.5.23")
    assert "topk1-draft-tokens" in ids("0.5.14") and "topk1-draft-tokens" in ids("0.5.23")
    assert "UNO" in known_algorithms(parse_version("0.5.23")) and "UNO" not in known_algorithms(parse_version("0.5.19"))
    assert "DSPARK" in known_algorithms(parse_version("0.5.19")) and "DSPARK" not in known_algorithms((0, 5, 14))
    r = check_profile(prof(Drafter(), ("--speculative-algorithm", "UNO", "--uno-lora-path", "l")),
                      catalogue_of("0.5.19"))
    assert "is not a built-in algorithm of sglang 0.5.19" in only_error(r)
    rows = rules_table()
    assert {r["id"] for r in rows} >= {r.id for r in RULES} | {"removed-flag", "deprecated-flag"}
    assert all(r["severity"] in ("error", "warning") for r in rows)


def test_version_parsing_and_ranges():
    assert parse_version("0.5.23") == (0, 5, 23)
    assert parse_version("0.5.15.post1") == (0, 5, 15)
    assert parse_version("0.5.24.dev3+gabc") == (0, 5, 24)
    assert parse_version("unknown") is None
    r = VersionRange("0.5.15", "0.5.20")
    assert r.contains((0, 5, 15)) and r.contains((0, 5, 19, 1)) and not r.contains((0, 5, 20))
    assert not r.contains((0, 5, 14)) and str(r) == ">=0.5.15, <0.5.20"
    assert VersionRange(until="0.5.15").contains((0, 4, 10)) and str(VersionRange()) == "all"


def test_removed_flag_still_present_in_an_older_catalogue_is_a_warning():
    r = check_profile(prof(EAGLE, ("--cuda-graph-max-bs", "64")), catalogue_of("0.5.19", add=OLD_FLAGS))
    assert r.ok, r.message
    assert any("--cuda-graph-max-bs is deprecated in sglang 0.5.19" in w for w in r.warnings)


# --- the target engine's catalogue: introspection with a fake interpreter, cache, fallback ---------------

FAKE = r'''#!{python}
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
state = json.load(open(os.path.join(here, "state.json")))
code = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == "-c" else ""
kind = "probe" if "find_spec" in code else "introspect" if "add_cli_args" in code else "other"
with open(os.path.join(here, "calls.log"), "a") as f:
    f.write(kind + "\n")
if kind == "probe":
    if state["mode"] == "absent":
        print(json.dumps({{"executable": sys.argv[0], "prefix": here, "version": None, "location": None,
                          "install_mtime_ns": None}}))
    else:
        print(json.dumps({{"executable": sys.argv[0], "prefix": here, "version": state["version"],
                          "location": here + "/sglang", "install_mtime_ns": state["mtime"]}}))
elif kind == "introspect":
    if state["mode"] == "fail":
        sys.stderr.write("Traceback (most recent call last):\n  File \"x\", line 1\n"
                         "ModuleNotFoundError: No module named 'torch'\n")
        sys.exit(1)
    if state["mode"] == "hang":
        time.sleep(30)
    print("[2026-10-30 12:00:00] some import-time log line on stdout")
    print(open(os.path.join(here, "catalogue.json")).read().replace("\n", " "))
'''

NEW_FLAG = {"flags": ["--speculative-fancy-new-flag"], "dest": "speculative_fancy_new_flag", "action": "_StoreAction",
            "type": "int", "nargs": None, "default": None, "choices": None, "deprecated": False}


@pytest.fixture
def fake_python(tmp_path):
    d = tmp_path / "engine" / "bin"
    d.mkdir(parents=True)
    py = d / "python"
    py.write_text(FAKE.format(python=sys.executable))
    py.chmod(py.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    cat = json.loads(json.dumps(PINNED_JSON))
    cat["version"] = "0.5.24"
    cat["options"].append(NEW_FLAG)
    (d / "catalogue.json").write_text(json.dumps(cat, indent=1))

    def set_state(mode="ok", version="0.5.24", mtime=1):
        (d / "state.json").write_text(json.dumps({"mode": mode, "version": version, "mtime": mtime}))

    def calls() -> list[str]:
        p = d / "calls.log"
        out = p.read_text().split() if p.exists() else []
        p.unlink(missing_ok=True)
        return out

    set_state()
    return FakePython(py, set_state, calls)


@dataclass
class FakePython:
    path: Path
    set_state: Callable[..., None]
    calls: Callable[[], list[str]]

    def __str__(self) -> str:
        return str(self.path)

    def __fspath__(self) -> str:
        return str(self.path)


def engine_prof(python, extra=("--speculative-fancy-new-flag", "3")) -> Profile:
    return replace(prof(EAGLE, extra), engine_python=str(python))


def test_introspection_uses_the_target_catalogue_and_caches_it(fake_python, tmp_path):
    cache = tmp_path / "cache"
    r = check_profile(engine_prof(fake_python), cache_dir=cache)
    assert r.ok, r.message
    assert r.source == "introspected" and r.version == "0.5.24"
    assert r.catalogue == f"the sglang 0.5.24 flag catalogue introspected from {fake_python}"
    assert f"catalogue: introspected sglang 0.5.24 in {fake_python}" in r.message
    assert fake_python.calls() == ["probe", "introspect"]
    cached = cache_file(cache, str(fake_python), "0.5.24")
    assert cached.exists() and cached.parent == cache / "catalogues" and cached.name.startswith("sglang-0.5.24-")
    # the same interpreter and install: the cache answers, no second introspection
    r = check_profile(engine_prof(fake_python), cache_dir=cache)
    assert r.ok and r.source == "cache" and "(cached)" in r.catalogue
    assert fake_python.calls() == ["probe"]
    # a reinstall (new install mtime) invalidates it
    fake_python.set_state(mtime=2)
    r = check_profile(engine_prof(fake_python), cache_dir=cache)
    assert r.source == "introspected" and fake_python.calls() == ["probe", "introspect"]
    # an upgrade is cached under its own version
    fake_python.set_state(version="0.5.25", mtime=3)
    check_profile(engine_prof(fake_python), cache_dir=cache)
    assert cache_file(cache, str(fake_python), "0.5.25").exists()
    # a corrupt cache file is ignored and rewritten
    cache_file(cache, str(fake_python), "0.5.25").write_text("{not json")
    assert check_profile(engine_prof(fake_python), cache_dir=cache).source == "introspected"
    # the pinned catalogue does not know the target engine's new flag: proof the target's was used above
    assert "unrecognized arguments: --speculative-fancy-new-flag" in only_error(
        check_profile(engine_prof(fake_python), pinned_catalogue()))


def test_failed_introspection_falls_back_to_pinned_and_says_why(fake_python, tmp_path):
    fake_python.set_state(mode="fail")
    r = check_profile(engine_prof(fake_python, extra=()), cache_dir=tmp_path / "c")
    assert r.ok and r.source == "pinned" and r.version == "0.5.23"
    assert "No module named 'torch'" in r.source_reason and "needs torch" in r.source_reason
    assert "catalogue: pinned sglang 0.5.23 because introspecting sglang 0.5.24" in r.message
    # the installed version differs from the pinned one: a warning says the check may not match it
    assert len(r.warnings) == 1 and r.warnings[0].startswith("engine.python: ") and "sglang 0.5.24" in r.warnings[0]
    assert not (tmp_path / "c" / "catalogues").exists() or not list((tmp_path / "c" / "catalogues").iterdir())


def test_introspection_timeout_falls_back(fake_python, tmp_path):
    fake_python.set_state(mode="hang")
    res = resolve_catalogue(str(fake_python), cache_dir=tmp_path / "c", timeout_s=1.0)
    assert res.source == "pinned" and "took over 1 s" in res.reason


def test_no_sglang_or_no_interpreter_falls_back(fake_python, tmp_path):
    fake_python.set_state(mode="absent")
    res = resolve_catalogue(str(fake_python), cache_dir=tmp_path)
    assert res.source == "pinned" and res.reason == f"sglang is not installed in {fake_python}"
    assert fake_python.calls() == ["probe"]
    res = resolve_catalogue(str(tmp_path / "nope" / "python"), cache_dir=tmp_path)
    assert res.source == "pinned" and "is not an executable here" in res.reason
    r = check_profile(replace(prof(), engine_python="no-such-python-xyz"), cache_dir=tmp_path)
    assert r.ok and r.source == "pinned" and "'no-such-python-xyz' is not an executable here" in r.message


def test_sim_and_explicit_catalogues_skip_introspection(tmp_path):
    r = check_profile(prof())
    assert r.source == "pinned" and r.catalogue == "the pinned sglang 0.5.23 flag catalogue"
    r = check_profile(replace(prof(), engine_python=sys.executable), introspect=False)
    assert r.source == "pinned" and "switched off" in r.source_reason
    r = check_profile(prof(), pinned_catalogue())
    assert r.source == "given"


def test_the_probe_runs_in_a_real_interpreter_without_sglang(tmp_path):
    """The real probe script in a real interpreter that has no sglang, whatever this venv holds (the console may be
    installed beside sglang): this Python without site-packages. It says so, and nothing is imported here."""
    from tests.conftest import python_without_site
    py = python_without_site(tmp_path / "bin")
    res = resolve_catalogue(str(py), cache_dir=tmp_path)
    assert res.source == "pinned" and res.reason == f"sglang is not installed in {py}", res.reason
    assert "sglang" not in sys.modules  # never imported into the console's process


def test_env_of_the_profile_reaches_the_engine_interpreter(fake_python, tmp_path):
    seen = {}

    def runner(argv, **kw):
        seen.update(kw["env"])
        import subprocess
        return subprocess.run(argv, **kw)

    resolve_catalogue(str(fake_python), cache_dir=tmp_path, env={"SGLANG_TEST_FLAG": "1"}, runner=runner)
    assert seen.get("SGLANG_TEST_FLAG") == "1" and os.environ.get("SGLANG_TEST_FLAG") is None


def test_check_message_documents_exit_codes_in_the_module():
    import console.core.launch.check as check
    doc = textwrap.dedent(check.__doc__ or "")
    assert "0  accepted" in doc and "2  rejected" in doc
