"""Pair statistics on hand-made rows: bootstrap CI, verdicts, drift flag."""

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
    assert ps.effect.resolved and ps.verdict.startswith("B faster by ")
    assert "(95% CI)" in ps.verdict and ps.a.n == 16 and ps.b.n == 16 and ps.a.legs == 2


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


@pytest.mark.parametrize("bad", ["BA", "AAB", "", "XYZ"])
def test_order_validation(bad):
    with pytest.raises(ValueError, match="use AB, ABA"):
        pairs.parse_order(bad)
