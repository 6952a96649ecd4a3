"""The acceptance rules (console/core/measure/health.py) on constructed requests: each alarm is raised by what it
describes and not by its near miss, says what it saw and its likely causes, clears, and can be acknowledged."""

from __future__ import annotations

import pytest

from console.core.measure import health
from console.core.measure.health import HealthMonitor, Observation, Reading, Rules
from console.core.measure.records import RequestRecord


def obs(i: int, hist, key: str = "tool-short · tool", tok_s: float = 300.0, verify: int | None = None) -> Observation:
    v = sum(hist) if verify is None else verify
    return Observation(key=key, t_s=float(i), index=i, hist=tuple(hist) if hist else None, verify_ct=v,
                       correct=sum(k * c for k, c in enumerate(hist)) if hist else 0,
                       completion_tokens=256, tok_s=tok_s)


GOOD = [10, 10, 10, 10, 30]  # τ 3.57, p_1 6/7
HALF = [30, 15, 8, 4, 3]  # τ 1.92: 46% under GOOD
NEAR = [12, 11, 10, 10, 27]  # τ 3.43: 4% under GOOD
DUMMY = [60]  # every draft rejected: τ 1, p_1 0


def feed(m: HealthMonitor, hists, start: int = 0, **kw) -> list[health.Alarm]:
    out = []
    for i, h in enumerate(hists):
        out += m.feed(obs(start + i, h, **kw))
    return out


def test_dummy_weights_alarm_within_four_requests_and_say_so():
    m = HealthMonitor("EAGLE3")
    raised = feed(m, [DUMMY] * 4)
    assert [a.kind for a in raised] == ["dummy"] and raised[0].since_index == 3
    a = raised[0]
    assert "τ 1.00, p_1 0.00 over the last 4 requests" in a.saw and "random draft weights" in a.saw
    assert "dummy draft checkpoint" in a.causes
    assert feed(HealthMonitor("EAGLE3"), [GOOD] * 12) == []


def test_ngram_proposing_nothing_is_not_a_dummy_drafter():
    assert feed(HealthMonitor("NGRAM"), [DUMMY] * 8) == []


def test_no_verify_steps_on_a_speculative_server_alarm():
    m = HealthMonitor("EAGLE3")
    raised = []
    for i in range(3):
        raised += m.feed(obs(i, None, verify=0))
    assert [a.kind for a in raised] == ["no-spec"] and "3 requests in a row report no verify step" in raised[0].saw
    m2 = HealthMonitor(None)
    assert m2.server(None, "EAGLE3")[0].kind == "no-spec"
    assert HealthMonitor(None).server("EAGLE3", "EAGLE3") == []


def test_a_sustained_drop_alarms_and_a_small_one_does_not():
    m = HealthMonitor("EAGLE3")
    feed(m, [GOOD] * 8)  # the baseline window
    assert feed(m, [HALF] * 9, start=8) == []  # a window clear of the baseline's, then `persist` of them
    raised = feed(m, [HALF], start=17)
    assert [a.kind for a in raised] == ["drop"]
    assert "τ 1.92 against 3.57 (-46%)" in raised[0].saw and "≥ 20% below" in raised[0].saw
    m2 = HealthMonitor("EAGLE3")
    feed(m2, [GOOD] * 8)
    assert feed(m2, [NEAR] * 16, start=8) == []


def test_a_drop_clears_once_acceptance_is_back_and_an_ack_keeps_it_listed():
    m = HealthMonitor("EAGLE3")
    feed(m, [GOOD] * 8)
    feed(m, [HALF] * 10, start=8)
    assert [a.kind for a in m.unacked()] == ["drop"]
    assert [a.kind for a in m.acknowledge()] == ["drop"] and m.unacked() == [] and m.active()
    cleared = feed(m, [GOOD] * 12, start=18)
    assert [a.kind for a in cleared] == ["drop"] and m.active() == [] and len(m.alarms) == 1
    assert "cleared" in m.alarms[0].line()


def test_a_given_baseline_catches_a_drop_from_the_first_window():
    base = health.pooled([obs(i, GOOD) for i in range(8)])
    m = HealthMonitor("EAGLE3", baselines={"tool-short · tool": base})
    assert [a.kind for a in feed(m, [HALF] * 10)] == ["drop"]


def test_net_negative_against_the_recorded_no_spec_figure():
    key = "tool-short · tool"
    m = HealthMonitor("EAGLE3", nospec_tok_s={key: 320.0})
    raised = feed(m, [GOOD] * 12, tok_s=300.0)
    assert [a.kind for a in raised] == ["net-negative"]
    assert "6.2% under the no-spec 320.0 tok/s" in raised[0].saw and "plausible τ 3.57" in raised[0].saw
    assert feed(HealthMonitor("EAGLE3", nospec_tok_s={key: 305.0}), [GOOD] * 12, tok_s=300.0) == []  # within 3%


def test_anchor_drift_beyond_the_launch_spread():
    m = HealthMonitor("EAGLE3")
    first = Reading(3.0, 0.8, 0.02, 0.01, 400, 8)
    assert m.anchor("anchor", Reading(2.95, 0.79, 0.02, 0.01, 400, 8), first, 1.0, 8) == []
    raised = m.anchor("anchor", Reading(2.55, 0.7, 0.02, 0.01, 400, 8), first, 2.0, 16)
    assert [a.kind for a in raised] == ["drift"] and "anchor τ 2.55 against the arm's first anchor 3.00" in raised[0].saw


def test_observe_skips_what_the_statistic_skips_and_replay_reads_rows():
    rec = RequestRecord(request_id="a", prompt_id="p", t_first_s=0.1, t_last_s=1.1, t_end_s=1.1, first_chunk_tokens=1,
                        completion_tokens=101, spec_histogram=DUMMY, spec_verify_ct=60, spec_num_correct_drafts=0)
    assert health.observe(rec, "k", 1.0, 0) is not None
    flagged = RequestRecord(**{**rec.__dict__, "flags": ["short"]})
    assert health.observe(flagged, "k", 1.0, 0) is None
    m = health.replay([(rec, "k", float(i)) for i in range(4)], "DFLASH")
    assert [a.kind for a in m.alarms] == ["dummy"]


def test_pooled_reading_and_its_sampling_sd():
    r = health.pooled([obs(0, [1, 1]), obs(1, [1, 1])])
    assert r.tau == pytest.approx(1.5) and r.p1 == pytest.approx(0.5) and r.steps == 4
    assert r.tau_sd == pytest.approx((1 / 3) ** 0.5 / 2)  # sd of k (n-1) over √steps
    assert health.pooled([obs(0, None, verify=10)]).tau == pytest.approx(1.0)


def test_rules_are_one_place():
    assert Rules().drop_frac == 0.20 and set(health.CAUSES) == set(health.KINDS)
