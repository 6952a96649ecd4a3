"""Statistical properties of pairs and forecasts on the twin's engine in virtual time (seeded, no server):
a profile paired with itself resolves "no difference" in the large majority of repeats; the depth-7
forecast from a depth-6 cell lands within ±5% of the measured depth-7 arm."""

from console.core.measure import forecast as fcm
from console.core.measure import pairs, stats
from console.core.measure.records import RequestRecord
from console.sim.calibrate import run_cell


def as_rows(res, tag):
    out = []
    for i, (s, ttft, h, f, n) in enumerate(zip(res.tok_s, res.ttft_s, res.hists, res.first_tokens,
                                               res.completion_tokens)):
        span = (n - f) / s
        out.append(RequestRecord(request_id=f"{tag}{i}", t_first_s=ttft, t_last_s=ttft + span, t_end_s=ttft + span,
                                 first_chunk_tokens=f, completion_tokens=n, spec_histogram=h,
                                 spec_verify_ct=sum(h), spec_num_correct_drafts=sum(k * c for k, c in enumerate(h))))
    return out


def test_self_pairs_resolve_no_difference_in_the_large_majority():
    repeats, resolved = 24, 0
    for r in range(repeats):
        legs = [as_rows(run_cell("eagle3-d6", "tool", prompt_tokens=4000, max_tokens=384, n=16, seed=1000 * r + k,
                                 node_seed=r), f"{r}-{k}-") for k in range(3)]
        ps = pairs.pair_stats([legs[0], legs[2]], [legs[1]], seed=r)
        resolved += ps.effect.resolved
    print(f"\nself-pairs: {resolved}/{repeats} resolved a difference (false positives)")
    assert resolved <= 3  # 95% CIs: ~1 in 20 expected; "large majority" = at least 21 of 24 say no difference


def test_depth7_forecast_from_a_depth6_cell_within_5_percent():
    d6 = as_rows(run_cell("eagle3-d6", "tool", prompt_tokens=10_000, max_tokens=2048, n=16, seed=11), "a")
    d7 = as_rows(run_cell("eagle3-d7", "tool", prompt_tokens=10_000, max_tokens=2048, n=16, seed=12), "b")
    s6 = stats.summarize(d6, num_draft_tokens=7)
    s7 = stats.summarize(d7, num_draft_tokens=8)
    fc = fcm.forecast(s6.per_position_acceptance, 6, s6.median_tok_s, s6.tau, [7])
    cmp = fcm.compare(fc, 7, s7.median_tok_s, s7.tau)
    print(f"\nforecast d7 {cmp.predicted_tok_s:.1f} tok/s (τ {cmp.predicted_tau:.2f}) vs measured "
          f"{cmp.measured_tok_s:.1f} (τ {cmp.measured_tau:.2f}): {cmp.error_pct:+.1f}%")
    assert abs(cmp.error_pct) <= 5.0


def test_d6_vs_d7_pair_on_tool_traffic_reads_as_the_report_says():
    legs = {k: as_rows(run_cell(arm, "tool", prompt_tokens=10_000, max_tokens=1024, n=16, seed=s, node_seed=1), k)
            for k, arm, s in (("A1", "eagle3-d6", 1), ("B1", "eagle3-d7", 2), ("A2", "eagle3-d6", 3))}
    ps = pairs.pair_stats([legs["A1"], legs["A2"]], [legs["B1"]], seed=0, a_ndt=7, b_ndt=8)
    print(f"\nd6 vs d7 (tool, 10k): {ps.verdict}; A {ps.a.median_tok_s:.1f} B {ps.b.median_tok_s:.1f}")
    assert ps.b.tau > ps.a.tau and ps.b.implied_step_ms > ps.a.implied_step_ms
