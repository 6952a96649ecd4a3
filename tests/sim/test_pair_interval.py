"""The pair interval on the twin, short and seeded (the full measurement: tests/bench/test_pair_calibration.py).

Pairs are played as the console runs them (tests/sim/twin_pairs.py) with the twin's launch-level variation on, on
a shorter cell than the bench's (tool, 4k in / 384 out, 16 per leg) so the default suite stays quick. Every seed is
pinned, so each assertion has one fixed outcome; the bounds are set where a correct interval lands with room (the
bench's rates: ≤ 5% false positives), and where the request-only interval pairs used before fails."""

from console.core.measure import pairs
from tests.sim.twin_pairs import TwinSession

CELL = dict(prompt_tokens=4000, max_tokens=384, n=16)
RECORD = 10


def _record(arm, k):
    return [TwinSession(arm, r, **CELL).pair("ABA").reading(seed=r) for r in range(k)]


def test_self_pairs_rarely_flag_and_the_request_only_interval_flags_more():
    rec = _record("nospec", RECORD)
    ours = old = 0
    mdes = []
    for r in range(RECORD, RECORD + 24):
        p = TwinSession("nospec", r, **CELL).pair("ABA")
        ps = p.stats(record=rec[-RECORD:], seed=r)
        ours += ps.effect.resolved
        old += pairs.pair_stats(p.a_legs, p.b_legs, seed=r).effect.resolved
        mdes.append(ps.effect.mde_pct)
        rec.append(p.reading(seed=r))
        assert pairs.VERDICT_RE and " · MDE " in ps.verdict
    print(f"\nno-spec self-pairs: {ours}/24 flagged (request-only interval: {old}/24); MDE "
          f"{min(mdes):.1f}–{max(mdes):.1f}%")
    assert ours <= 2  # ~5% of 24 is 1.2
    assert old >= 6  # the no-spec requests are nearly identical: a request-only interval cannot see the launches


def test_a_true_ten_percent_is_resolved_and_lies_inside_the_interval():
    rec = [x for x in _record("eagle3-d6", RECORD) if x is not None]
    hits = covered = 0
    for r in range(100, 116):
        ps = TwinSession("eagle3-d6", r, b_speed=1.10, **CELL).pair("ABA").stats(record=rec, seed=r)
        hits += ps.effect.resolved and ps.effect.point_pct > 0
        covered += ps.effect.low_pct <= 10.0 <= ps.effect.high_pct
    print(f"\ntrue +10%: resolved faster in {hits}/16, the CI holds +10% in {covered}/16")
    assert hits >= 13 and covered >= 13


def test_more_launches_narrow_the_interval():
    rec = [x for x in _record("eagle3-d6", RECORD) if x is not None]
    s = TwinSession("eagle3-d6", 200, **CELL)
    w = [s.pair(o).stats(record=rec, seed=1).effect.half_width_pct for o in ("ABA", "ABABA", "ABABABA")]
    print(f"\nhalf-widths ABA / ABABA / ABABABA: {', '.join(f'±{x:.2f}%' for x in w)}")
    assert w[0] > w[1] > w[2]


def test_until_mde_five_sees_a_true_five_percent_that_aba_misses():
    """The sequential MDE rule (`pair --until-mde 5`): A B A at n = 16 resolves a true +5% only now and then; adding
    B A rounds until the pair's MDE is ≤ 5% resolves it in most pairs, and self-pairs stay quiet (seeded)."""
    from tests.sim.twin_pairs import sequential
    rec = [x for x in _record("eagle3-d6", RECORD) if x is not None]
    aba = seq = fp = 0
    rounds = []
    for r in range(300, 310):
        s = TwinSession("eagle3-d6", r, b_speed=1.05, **CELL)
        aba += s.pair("ABA").stats(record=rec, seed=r).effect.resolved
        ps, k = sequential(s, 5.0, rec, seed=r, quantity="mde")
        seq += ps.effect.resolved and ps.effect.point_pct > 0
        rounds.append(k)
        ps0, _ = sequential(TwinSession("eagle3-d6", r), 5.0, rec, seed=r, quantity="mde")
        fp += ps0.effect.resolved
    print(f"\ntrue +5%: ABA resolved {aba}/10, --until-mde 5 {seq}/10 (rounds {rounds}); self-pairs flagged {fp}/10")
    assert seq >= 7 and seq > aba + 3 and fp <= 1
