"""Pair statistics on hand-made rows: bootstrap CI, verdicts, drift flag."""

import re

import numpy as np
import pytest

from console.core.measure import pairs
from console.core.measure.records import RequestRecord


def rows(speeds, prefix="r"):
    # 101 tokens, first chunk 1 token: tok/s = 100 / (t_last - t_first)
    return [RequestRecord(request_id=f"{prefix}{i}", t_first_s=0.2, t_last_s=0.2 + 100 / s, t_end_s=0.3 + 100 / s,
                          first_chunk_tokens=1, completion_tokens=101) for i, s in enumerate(speeds)]


def test_bootstrap_is_seeded_and_brackets_the_point():
    a = [480, 490, 500, 505, 510, 495, 488, 502]
    b = [x * 1.06 for x in a]
    i1 = pairs.bootstrap_ratio(a, b, seed=7)
    i2 = pairs.bootstrap_ratio(a, b, seed=7)
    assert i1 == i2
    assert i1.point_pct == pytest.approx(6.0)
    assert i1.low_pct <= i1.point_pct <= i1.high_pct and i1.resolved


def test_clear_effect_resolves_and_reads_plainly():
    rng = np.random.default_rng(0)
    a = list(rng.normal(490, 10, 16))
    b = list(rng.normal(520, 10, 16))
    ps = pairs.pair_stats([rows(a[:8], "a"), rows(a[8:], "c")], [rows(b, "b")], seed=1)
    assert ps.effect.resolved and re.fullmatch(pairs.VERDICT_RE, ps.verdict), ps.verdict
    assert ps.verdict.startswith("B faster by ") and ps.a.n == 16 and ps.b.n == 16 and ps.a.legs == 2


def test_identical_arms_resolve_no_difference():
    rng = np.random.default_rng(3)
    a = list(rng.normal(490, 15, 32))
    ps = pairs.pair_stats([rows(a[:16])], [rows(a[16:])], order="AB", seed=0)
    assert not ps.effect.resolved and ps.verdict.startswith("no difference resolved")
    assert ps.drift is None


def test_drift_as_large_as_the_effect_is_flagged():
    a1 = [480, 482, 479, 481, 483, 478, 480, 481]
    b = [500, 502, 499, 501, 503, 498, 500, 501]
    a2 = [520, 522, 519, 521, 523, 518, 520, 521]  # A itself moved more than B differs
    ps = pairs.pair_stats([rows(a1, "x"), rows(a2, "z")], [rows(b, "y")], seed=0)
    assert ps.drift_flag and "as large as the effect" in ps.drift_flag
    assert ps.verdict.endswith("drift flagged")


def test_too_few_rows_gives_no_verdict():
    ps = pairs.pair_stats([rows([500])], [rows([510])], order="AB")
    assert ps.verdict.startswith("no verdict")


def test_flagged_rows_are_excluded():
    r = rows([500, 505, 9999])
    r[2].flags.append("short")
    assert pairs.speeds(r) == pytest.approx([500, 505])


@pytest.mark.parametrize("bad", ["", "XYZ", "A", "BBB", "ABC", "AB" * 8])
def test_order_validation(bad):
    with pytest.raises(ValueError, match="use A and B legs, both present, at most 15"):
        pairs.parse_order(bad)


@pytest.mark.parametrize("good", ["AB", "ABA", "ABAB", "ABBA", "BAB", "ABABA", "ABABABA"])
def test_orders_the_sequential_mode_makes_are_valid(good):
    assert pairs.parse_order(good.lower()) == list(good)


def test_launch_ids_follow_relaunches():
    assert pairs.launch_ids("ABA") == ([0, 2], [1])
    assert pairs.launch_ids("ABBA") == ([0, 2], [1, 1])  # consecutive B legs share their launch
    assert pairs.launch_ids("ABABA") == ([0, 2, 4], [1, 3])
    assert pairs.launch_ids("ABA", interleaved=True) == ([0, 0], [0])


def test_launch_share():
    assert pairs.launch_share([0, 2], [16, 16]) == pytest.approx(0.5)
    assert pairs.launch_share([1, 1], [16, 16]) == pytest.approx(1.0)
    assert pairs.launch_share([0, 2, 4], [16, 16, 16]) == pytest.approx(1 / 3)
    assert pairs.launch_share([0, 2], [30, 10]) == pytest.approx(0.75 ** 2 + 0.25 ** 2)


# --- the one verdict format (measure/pairs.verdict), seeded inputs for each outcome ---------------------------------

def _pair(a_mean, b_mean, sd, seed):
    rng = np.random.default_rng(seed)
    return pairs.pair_stats([rows(list(rng.normal(a_mean, sd, 16)), "a")], [rows(list(rng.normal(b_mean, sd, 16)), "b")],
                            order="AB", seed=seed, b_name="k26-eagle3-d7")


def _sizes(verdict: str) -> tuple[str, float, float, float]:
    m = re.fullmatch(r"k26-eagle3-d7 (faster|slower) by (\d+\.\d)% \(95% CI (\d+\.\d) to (\d+\.\d)% \1\)", verdict)
    assert m, verdict
    return m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))


def test_verdict_resolved_faster_states_sizes_of_one_sign():
    ps = _pair(500, 560, 10, seed=11)
    word, size, lo, hi = _sizes(ps.verdict)
    assert word == "faster" and ps.effect.resolved and 0 < lo <= size <= hi
    assert (lo, hi) == (round(ps.effect.low_pct, 1), round(ps.effect.high_pct, 1))


def test_verdict_resolved_slower_states_sizes_of_one_sign():
    ps = _pair(560, 470, 10, seed=12)  # the slower-by-17% case of issue #24: never "slower by 17.1% [-28.4, -1.9]"
    word, size, lo, hi = _sizes(ps.verdict)
    assert word == "slower" and ps.effect.resolved and 0 < lo <= size <= hi
    assert (lo, hi) == (round(-ps.effect.high_pct, 1), round(-ps.effect.low_pct, 1))
    assert "[-" not in ps.verdict and "-" not in ps.verdict.replace("k26-eagle3-d7", "")


def test_verdict_unresolved_is_a_signed_delta_whose_interval_holds_zero():
    ps = _pair(500, 500, 40, seed=13)
    assert not ps.effect.resolved
    m = re.fullmatch(r"no difference resolved: Δ ([+-]\d+\.\d)% \[([+-]\d+\.\d), ([+-]\d+\.\d)\] \(95% CI includes 0\)",
                     ps.verdict)
    assert m, ps.verdict
    point, lo, hi = map(float, m.groups())
    assert lo <= 0 <= hi and lo <= point <= hi


def test_verdict_forms_match_the_published_pattern_and_name_the_baseline():
    iv = pairs.Interval(-17.1, -28.4, -1.9)
    assert pairs.verdict(iv, "d7") == "d7 slower by 17.1% (95% CI 1.9 to 28.4% slower)"
    assert pairs.verdict(iv, "d7", than="d6", quantity="aggregate tok/s") == \
        "d7 slower than d6 by 17.1% in aggregate tok/s (95% CI 1.9 to 28.4% slower)"
    assert pairs.verdict(pairs.Interval(2.0, -4.1, 7.7), "d6", than="nospec") == \
        "no difference resolved: d6 vs nospec: Δ +2.0% [-4.1, +7.7] (95% CI includes 0)"
    assert pairs.verdict(pairs.Interval(None, None, None)).startswith("no verdict")
    for v in (pairs.verdict(iv, "d7"), pairs.verdict(pairs.Interval(2.0, -4.1, 7.7)),
              pairs.verdict(pairs.Interval(None, None, None))):
        assert re.fullmatch(pairs.VERDICT_RE, v), v


def test_the_sequential_note_names_its_rule():
    """interval_notes says which width the sequential rounds stopped on: the CI's half-width or the MDE."""
    ps = pairs.pair_stats([rows([500, 505, 510, 498])], [rows([530, 526, 540, 528])], seed=1)
    ci = pairs.interval_notes(ps, {"target_half_width_pct": 3.0, "stopped": "round cap", "rounds_added": 1,
                                   "half_widths_pct": [4.2, 3.5]})[-1]
    assert ci == "sequential to ±3%: round cap after 1 added B A round(s) (half-widths ±4.2%, ±3.5%)"
    mde = pairs.interval_notes(ps, {"target_mde_pct": 5.0, "stopped": "target reached", "rounds_added": 2,
                                    "half_widths_pct": [4.2, 3.5, 3.0], "mdes_pct": [7.1, 5.6, 4.8]})[-1]
    assert mde == ("sequential to an MDE of 5%: target reached after 2 added B A round(s) (MDEs 7.1%, 5.6%, "
                   "4.8%)")
