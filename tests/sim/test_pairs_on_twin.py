"""Statistical properties of pairs and forecasts on the twin's engine in virtual time (seeded, no server).

Every leg is a fresh launch on the repeat's node with the same pinned prompts (`calibrate.session_legs`), so the
twin's own variation applies: the node draw (shared by a session's legs), each launch's factor and drift phase,
the per-prompt acceptance (shared), each launch's acceptance draws. A profile paired with itself resolves "no
difference" in the large majority of repeats but not in all of them, and its A legs drift; the depth-7 forecast
from a depth-6 cell lands within ±5% of a depth-7 leg measured in another launch, without reading exactly 0.
The full false-positive measurement (≥ 40 repeats of the reference cell) is tests/bench/test_twin_variation.py."""

import statistics

from console.core.measure import forecast as fcm, pairs, stats
from console.core.measure.records import RequestRecord
from console.sim.model.calibrate import run_cell, session_legs


def as_rows(res, tag):
    out = []
    for i, (s, ttft, h, f, n) in enumerate(zip(res.tok_s, res.ttft_ok, res.hists, res.first_tokens,
                                               res.completion_tokens)):
        span = (n - f) / s
        out.append(RequestRecord(request_id=f"{tag}{i}", t_first_s=ttft, t_last_s=ttft + span, t_end_s=ttft + span,
                                 first_chunk_tokens=f, completion_tokens=n, spec_histogram=h,
                                 spec_verify_ct=sum(h), spec_num_correct_drafts=sum(k * c for k, c in enumerate(h))))
    return out


def self_pairs(repeats: int, start: int = 0, **cell):
    """(pair stats of each repeat) for A B A self-pairs of EAGLE-3 depth 6."""
    out = []
    for r in range(start, start + repeats):
        legs = [as_rows(c, f"{r}-{k}-") for k, c in enumerate(session_legs("eagle3-d6", "tool", repeat=r, **cell))]
        out.append(pairs.pair_stats([legs[0], legs[2]], [legs[1]], seed=r))
    return out


def test_self_pairs_resolve_no_difference_in_the_large_majority_and_legs_drift():
    ps = self_pairs(24, prompt_tokens=4000, max_tokens=384, n=16)
    resolved = sum(p.effect.resolved for p in ps)
    deltas = [p.effect.point_pct for p in ps]
    drifts = [abs(p.drift.point_pct) for p in ps]
    print(f"\nself-pairs: {resolved}/{len(ps)} resolved a difference (false positives); Δ sd "
          f"{statistics.pstdev(deltas):.2f}%, A-leg drift median {statistics.median(drifts):.2f}%")
    assert resolved <= 3  # 95% CIs: ~1 in 20 expected; "large majority" = at least 21 of 24 say no difference
    assert statistics.pstdev(deltas) >= 1.0  # legs are not bit-identical
    assert statistics.median(drifts) >= 0.3 and max(drifts) < 10


def test_depth7_forecast_from_a_depth6_cell_within_5_percent():
    d6 = as_rows(run_cell("eagle3-d6", "tool", prompt_tokens=10_000, max_tokens=2048, n=16, seed=11, node_seed=4,
                          launch_seed=1, prompt_set=4), "a")
    d7 = as_rows(run_cell("eagle3-d7", "tool", prompt_tokens=10_000, max_tokens=2048, n=16, seed=11, node_seed=4,
                          launch_seed=2, prompt_set=4), "b")
    s6 = stats.summarize(d6, num_draft_tokens=7)
    s7 = stats.summarize(d7, num_draft_tokens=8)
    fc = fcm.forecast(s6.per_position_acceptance, 6, s6.median_tok_s, s6.tau, [7])
    cmp = fcm.compare(fc, 7, s7.median_tok_s, s7.tau)
    print(f"\nforecast d7 {cmp.predicted_tok_s:.1f} tok/s (τ {cmp.predicted_tau:.2f}) vs measured "
          f"{cmp.measured_tok_s:.1f} (τ {cmp.measured_tau:.2f}): {cmp.error_pct:+.1f}%")
    assert abs(cmp.error_pct) <= 5.0
    assert abs(cmp.error_pct) >= 0.05  # another launch: not a perfect read


def test_d6_vs_d7_pair_on_tool_traffic_reads_as_the_report_says():
    a1, b1, a2 = session_legs("eagle3-d6", "tool", repeat=1, b_arm="eagle3-d7", max_tokens=1024)
    legs = {k: as_rows(c, k) for k, c in (("A1", a1), ("B1", b1), ("A2", a2))}
    ps = pairs.pair_stats([legs["A1"], legs["A2"]], [legs["B1"]], seed=0, a_ndt=7, b_ndt=8)
    print(f"\nd6 vs d7 (tool, 10k): {ps.verdict}; A {ps.a.median_tok_s:.1f} B {ps.b.median_tok_s:.1f}")
    assert ps.b.tau > ps.a.tau and ps.b.implied_step_ms > ps.a.implied_step_ms
