import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from console.core.launch import flips
from console.core.launch.profile import Drafter, load_profile

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def d6():
    return load_profile(REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml")


def test_depth_plus_and_minus_keep_draft_tokens_steps_plus_one(d6):
    f = flips.flip_depth(d6, +1)
    assert f.after.name == "k26-eagle3-d7"  # the profile of that arm in profiles/
    assert (f.after.drafter.steps, f.after.drafter.topk, f.after.drafter.draft_tokens) == (7, 1, 8)
    g = flips.flip_depth(f.after, -1)
    assert g.after.name == "k26-eagle3-d6" and g.after.drafter.draft_tokens == 7  # the same arm is the same arm
    assert flips.profile_diff(d6, f.after) == [("drafter.steps", 6, 7), ("drafter.draft_tokens", 7, 8)]
    gone, new = flips.argv_diff(d6, f.after)
    assert gone == ["--speculative-num-steps 6", "--speculative-num-draft-tokens 7"]
    assert new == ["--speculative-num-steps 7", "--speculative-num-draft-tokens 8"]


def test_depth_limits_and_no_drafter(d6):
    with pytest.raises(flips.FlipError, match="outside 1..10"):
        flips.flip_depth(replace(d6, drafter=replace(d6.drafter, steps=1, draft_tokens=2)), -1)
    with pytest.raises(flips.FlipError, match="runs no drafter: flip the family first"):
        flips.flip_depth(replace(d6, drafter=Drafter()), +1)


def test_dflash_block_ladder(d6):
    dfl = replace(d6, drafter=Drafter(family="dflash", model="z/dflash", draft_tokens=16))
    assert flips.flip_depth(dfl, +1).after.drafter.draft_tokens == 32
    assert flips.flip_depth(dfl, -1).after.drafter.draft_tokens == 8
    with pytest.raises(flips.FlipError, match="already the largest"):
        flips.flip_depth(replace(dfl, drafter=replace(dfl.drafter, draft_tokens=32)), +1)


def test_family_cycle_uses_a_sibling_profiles_drafter(tmp_path, d6):
    shutil.copy(REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml", tmp_path / "a.toml")
    (tmp_path / "b.toml").write_text(textwrap.dedent("""
        [model]
        path = "moonshotai/Kimi-K2.6"
        tp = 4
        [drafter]
        family = "dflash"
        model = "z-lab/Kimi-K2.6-DFlash"
        draft_tokens = 16
    """))
    f = flips.flip_family(d6, tmp_path)
    assert f.after.drafter.family == "dflash" and f.after.drafter.model == "z-lab/Kimi-K2.6-DFlash"
    assert f.after.name == "b"  # the sibling profile that runs this arm
    g = flips.flip_family(f.after, tmp_path)
    assert g.after.drafter.family == "none" and g.after.name == "b-nospec"  # b names no arm: all of it is the tag
    h = flips.flip_family(g.after, tmp_path)
    assert h.after.drafter == d6.drafter


def test_family_cycle_visits_the_families_this_models_profiles_run(tmp_path, d6):
    """Beside no other drafter family, d6's family flip goes to no speculation and back; a no-spec profile with no
    drafting sibling says what to add."""
    shutil.copy(REPO / "console" / "shipped" / "profiles" / "k26-eagle3-d6.toml", tmp_path / "k26-eagle3-d6.toml")
    f = flips.flip_family(d6, tmp_path)
    assert f.after.drafter.family == "none"
    assert flips.flip_family(f.after, tmp_path).after.drafter == d6.drafter
    with pytest.raises(flips.FlipError, match="no profile in .* runs moonshotai/Kimi-K2.6 with a drafter; add one"):
        flips.flip_family(f.after, tmp_path / "nothing-here")
    # the CPU lane's model: none → STANDALONE (its sibling's 4-bit drafter) → NGRAM → none
    cpu = REPO / "console" / "shipped" / "profiles"
    nospec = load_profile(cpu / "cpu-smollm2-nospec.toml")
    assert flips.family_cycle(nospec) == ["none", "standalone", "ngram"]
    g = flips.flip_family(nospec)
    assert g.after.drafter.family == "standalone" and g.after.name.startswith("cpu-smollm2-standalone-d")
    h = flips.flip_family(g.after)
    assert h.after.name == "cpu-smollm2-ngram" and flips.flip_family(h.after).after.name == "cpu-smollm2-nospec"


def test_kv_cycle(d6):
    f = flips.flip_kv(d6)
    assert f.after.kv_cache_dtype == "fp8_e4m3" and "--kv-cache-dtype fp8_e4m3" in flips.argv_diff(d6, f.after)[1]
    assert flips.flip_kv(f.after).after.kv_cache_dtype == "auto"


def test_flipped_arms_are_named_for_what_they_are_f_k_minus_plus(d6):
    """Issue #13: after f then k the arm was called k26-eagle3-d6~kv-fp8_e4m3 while it served DFlash block 16."""
    names = []
    p = d6
    for step in ("f", "k", "-", "+"):
        flip = {"f": flips.flip_family, "k": flips.flip_kv, "-": lambda q: flips.flip_depth(q, -1),
                "+": lambda q: flips.flip_depth(q, +1)}[step](p)
        p = flip.after
        names.append(p.name)
        assert p.name.endswith(p.arm.slug()) or p.name in {"k26-dflash-b16", "k26-dflash-b8"}, (step, p.name)
    fam = names[0]  # the DFlash profile of profiles/ the family flip took its drafter from
    block = int(fam.rsplit("-b", 1)[1])
    assert names[1] == f"k26-dflash-b{block}-fp8kv"
    lower = {16: 8, 8: 4}[block]
    assert names[2] == f"k26-dflash-b{lower}-fp8kv"
    assert names[3] == names[1], "back to the same configuration: the same name"


def test_arm_slug_and_labels():
    from console.core.arm import Arm
    a = Arm.from_drafter("eagle3", model="m", steps=6, topk=1)
    assert (a.draft_tokens, a.verify_tokens, a.draft_positions, a.depth) == (7, 7, 6, 6)
    assert a.slug() == "eagle3-d6" and a.short() == "EAGLE-3 d6"
    assert a.label() == "EAGLE-3 depth 6 · topk 1 · 7 draft tokens"
    b = Arm.from_drafter("dflash", model="z", draft_tokens=16, kv_dtype="fp8_e4m3")
    assert (b.depth, b.verify_tokens, b.draft_positions) == (16, 16, 15)
    assert b.slug() == "dflash-b16-fp8kv" and b.label() == "DFlash block 16 (15 draft positions) · KV fp8_e4m3"
    t = Arm.from_drafter("eagle3", model="m", steps=6, topk=4, draft_tokens=16)
    assert t.slug() == "eagle3-d6-k4-t16" and (t.verify_tokens, t.draft_positions) == (16, 6)
    assert Arm().slug() == "nospec" and Arm().verify_tokens == 1 and Arm().label() == "no speculation"
    assert Arm.from_json(b.to_json()) == b
    srv = {"speculative_algorithm": "DFLASH", "speculative_num_draft_tokens": 16, "speculative_dflash_block_size": 16,
           "speculative_draft_model_path": "z", "kv_cache_dtype": "fp8_e4m3"}
    assert Arm.from_server_info(srv) == b
