"""The launch part of a pair's interval (console/core/measure/launches.py, pairs.compare_legs) against references
written here: exact arithmetic, launches whose offsets are known exactly, and seeded Monte Carlo of the model
level(leg) = μ(arm) + L(launch) + w the docs state (docs/measurement.md#launch-variance)."""

import math

import numpy as np
import pytest

from console.core.measure import launches as lv, pairs
from console.core.measure.records import RequestRecord


def cell(speeds, tag, prompts=None):
    """Rows with tok/s = speeds (101 tokens, first chunk 1), prompt ids p0, p1, … unless `prompts`."""
    ids = prompts if prompts is not None else [f"p{i}" for i in range(len(speeds))]
    return [RequestRecord(request_id=f"{tag}{i}", prompt_id=pid, t_first_s=0.2, t_last_s=0.2 + 100 / s,
                          t_end_s=0.3 + 100 / s, first_chunk_tokens=1, completion_tokens=101)
            for i, (s, pid) in enumerate(zip(speeds, ids, strict=True))]


def test_pooled_is_the_prior_weighted_mean_of_the_readings():
    r = [lv.LaunchReading("x", 0.0002, 1), lv.LaunchReading("y", 0.0001, 1)]
    got = lv.pooled(r, prior_sd_pct=3.2, prior_df=1)
    assert got.df == 3
    assert got.sd_pct == pytest.approx(100 * math.sqrt((0.032 ** 2 + 0.0003) / 3))
    assert lv.pooled([], 2.0, 4).sd_pct == pytest.approx(2.0)  # no readings: the prior
    assert lv.pooled([lv.LaunchReading("z", -0.01, 5)], 0.5, 1).sd_pct == lv.FLOOR_SD_PCT  # floored, never negative


def test_reading_json_round_trip():
    r = lv.LaunchReading("s/pair.json", 1.5e-4, 2, {"A": 3})
    assert lv.LaunchReading.from_json(r.to_json()) == r


def test_launch_offsets_known_exactly_are_recovered():
    # every prompt's speed in launch j is p_i · exp(L_j): the prompts' spread cancels in the paired bootstrap, so
    # the sampling part is 0 and the excess is exactly Σ (L_j − L̄)²
    base = np.linspace(400, 560, 16)
    offs = [0.012, -0.018, 0.004]
    cells = [cell(list(base * math.exp(o)), f"l{j}-") for j, o in enumerate(offs)]
    excess, df = lv.arm_excess(cells, [None] * 3, seed=1)
    assert df == 2
    assert excess == pytest.approx(sum((o - np.mean(offs)) ** 2 for o in offs), rel=1e-9)


def test_without_prompt_ids_the_prompt_spread_is_not_mistaken_for_launch_variance():
    # the same cells with their prompts unnamed: resampled on their own, the sampling part is the prompts' spread
    # (large) and the excess goes negative instead of reading it as launches
    base = np.linspace(400, 560, 16)
    cells = [cell(list(base), f"l{j}-", prompts=[None] * 16) for j in range(2)]
    excess, df = lv.arm_excess(cells, [None, None], seed=1)
    assert df == 1 and excess < 0


def _arm(rng, sigma_l, m, n=16, prompt_sd=0.08, request_sd=0.03):
    prompt = rng.normal(0, prompt_sd, n)
    return [cell(list(500 * np.exp(prompt + rng.normal(0, sigma_l) + rng.normal(0, request_sd, n))), f"l{j}-")
            for j in range(m)]


def test_the_excess_is_unbiased_for_the_launch_variance():
    # seeded Monte Carlo of the model: 300 arms of 2 launches, σ_L = 2%, prompts 8% (shared), requests 3%.
    # E[excess] = σ_L²; the sd of the mean of 300 is ≈ 0.09 σ_L², so ±35% is ~4 sd (deterministic with the seed)
    rng = np.random.default_rng(20261203)
    ex = [lv.arm_excess(_arm(rng, 0.02, 2), [None, None], seed=k)[0] for k in range(300)]
    assert np.mean(ex) == pytest.approx(0.02 ** 2, rel=0.35)
    # and with no launch variance at all the mean excess is about 0, not the request spread
    ex0 = [lv.arm_excess(_arm(rng, 0.0, 2), [None, None], seed=k)[0] for k in range(300)]
    assert abs(np.mean(ex0)) < 0.25 * 0.02 ** 2


def test_anchors_are_one_more_reading_of_the_same_launch():
    # anchors carry the same offsets: with noisy legs and quiet anchors the combined reading is closer to the
    # launches' true spread than the legs alone (seeded, one fixed draw)
    rng = np.random.default_rng(5)
    offs = [0.02, -0.02]
    legs = [cell(list(500 * np.exp(o + rng.normal(0, 0.06, 16))), f"l{j}-") for j, o in enumerate(offs)]
    anchors = [cell(list(300 * np.exp(o + rng.normal(0, 0.002, 8))), f"a{j}-") for j, o in enumerate(offs)]
    truth = sum((o - np.mean(offs)) ** 2 for o in offs)
    legs_only, _ = lv.arm_excess(legs, [None, None], seed=2)
    both, _ = lv.arm_excess(legs, anchors, seed=2)
    assert abs(both - truth) < abs(legs_only - truth)
    assert both == pytest.approx(truth, rel=0.25)


def test_reading_needs_a_repeated_launch():
    a = [cell([500] * 4, "a")]
    assert lv.reading({"A": (a, [None]), "B": (a, [None])}) is None
    r = lv.reading({"A": (a + a, [None, None]), "B": (a, [None])})
    assert r is not None and r.df == 1 and r.launches == {"A": 2}


def test_launch_part_widens_the_interval_by_the_stated_amount():
    # identical per-prompt speeds in every leg: the request part is exactly 0, so the interval is the launch part
    # alone: σ_L √(½ + 1) times Student's t quantiles with ν degrees of freedom
    base = list(np.linspace(400, 560, 16))
    a_legs, b_legs = [cell(base, "a1-"), cell(base, "a2-")], [cell(base, "b1-")]
    var = lv.pooled([], prior_sd_pct=2.0, prior_df=1000)
    iv = pairs.compare_legs(a_legs, b_legs, seed=3, n_boot=20000, launch=var, a_launches=[0, 2], b_launches=[1])
    x = 0.02 * math.sqrt(1.5) * 1.962  # on the log scale, symmetric; as % the bounds are expm1(±x)
    assert iv.point_pct == 0 and iv.resampled == "prompts"
    assert iv.high_pct == pytest.approx(100 * math.expm1(x), rel=0.03)
    assert iv.low_pct == pytest.approx(100 * math.expm1(-x), rel=0.03)
    # one server for both arms: the launch part cancels
    one = pairs.compare_legs(a_legs, b_legs, seed=3, launch=var, a_launches=[0, 0], b_launches=[0])
    assert one.low_pct == one.high_pct == 0 and one.launch_sd_pct is None


def test_mde_is_the_half_width_plus_the_power_quantile():
    # normal draws only (the launch part, ν large): MDE = (1.96 + 0.8416) σ_Δ
    base = list(np.linspace(400, 560, 16))
    var = lv.pooled([], prior_sd_pct=1.0, prior_df=1000)
    iv = pairs.compare_legs([cell(base, "a")], [cell(base, "b")], seed=4, n_boot=40000, launch=var,
                            a_launches=[0], b_launches=[1])
    sd = 0.01 * math.sqrt(2)
    assert iv.mde_pct == pytest.approx(100 * math.expm1((1.96 + 0.8416) * sd), rel=0.03)


def test_pair_interval_holds_its_nominal_rate_in_the_model():
    # seeded Monte Carlo of whole A B A self-pairs from the model (σ_L 1.5%, prompts shared, requests 3%), each
    # analysed with a record of 20 earlier pairs' readings: the false-positive rate is about 5%. 300 pairs: a
    # binomial(300, 0.05) exceeds 27 with probability < 0.1%; the seed makes the outcome fixed
    rng = np.random.default_rng(7)
    record, flagged = [], 0
    for k in range(320):
        prompt = rng.normal(0, 0.08, 16)

        def leg(tag, prompt=prompt):
            return cell(list(500 * np.exp(prompt + rng.normal(0, 0.015) + rng.normal(0, 0.03, 16))), tag)
        a1, b1, a2 = leg("a1"), leg("b1"), leg("a2")
        plan = pairs.LaunchPlan([0, 2], [1], record=record[-20:])
        ps = pairs.pair_stats([a1, a2], [b1], seed=k, n_boot=1000, launches=plan)
        record.append(lv.LaunchReading(f"pair{k}", ps.launch.readings[-1].excess, 1))
        if k >= 20:
            flagged += ps.effect.resolved
    assert flagged <= 27
