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
    return load_profile(REPO / "profiles" / "k26-eagle3-d6.toml")


def test_depth_plus_and_minus_keep_draft_tokens_steps_plus_one(d6):
    f = flips.flip_depth(d6, +1)
    assert f.after.name == "k26-eagle3-d6~d7"
    assert (f.after.drafter.steps, f.after.drafter.topk, f.after.drafter.draft_tokens) == (7, 1, 8)
    g = flips.flip_depth(f.after, -1)
    assert g.after.name == "k26-eagle3-d6~d6" and g.after.drafter.draft_tokens == 7
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
    shutil.copy(REPO / "profiles" / "k26-eagle3-d6.toml", tmp_path / "a.toml")
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
    assert f.after.name == "k26-eagle3-d6~dflash-b16"
    g = flips.flip_family(f.after, tmp_path)
    assert g.after.drafter.family == "none" and g.after.name.endswith("~nospec")
    h = flips.flip_family(g.after, tmp_path)
    assert h.after.drafter == d6.drafter


def test_family_without_a_sibling_names_the_fix(tmp_path, d6):
    with pytest.raises(flips.FlipError, match="no profile in .* runs moonshotai/Kimi-K2.6 with a dflash drafter"):
        flips.flip_family(d6, tmp_path)


def test_kv_cycle(d6):
    f = flips.flip_kv(d6)
    assert f.after.kv_cache_dtype == "fp8_e4m3" and "--kv-cache-dtype fp8_e4m3" in flips.argv_diff(d6, f.after)[1]
    assert flips.flip_kv(f.after).after.kv_cache_dtype == "auto"
