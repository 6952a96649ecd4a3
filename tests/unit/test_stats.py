"""Every docs/measurement.md definition on hand-computed values."""

import math

import pytest

from console.core.measure import stats
from console.core.measure.records import RequestRecord


def rec(**kw) -> RequestRecord:
    base = dict(request_id="r", t_first_s=0.24, t_last_s=0.44, t_end_s=0.45, first_chunk_tokens=1,
                completion_tokens=101, n_content_chunks=30)
    base.update(kw)
    return RequestRecord(**base)


def test_output_tok_s_excludes_first_chunk_tokens_and_time_to_it():
    # (101 - 1) tokens over (0.44 - 0.24) s = 500 tok/s
    assert stats.output_tok_s(rec()) == pytest.approx(500.0)
    # a first chunk of 3 tokens: 98 / 0.2
    assert stats.output_tok_s(rec(first_chunk_tokens=3)) == pytest.approx(490.0)


@pytest.mark.parametrize("kw", [dict(t_last_s=0.24), dict(completion_tokens=1), dict(completion_tokens=None),
                                dict(t_first_s=None), dict(first_chunk_tokens=None)])
def test_output_tok_s_undefined(kw):
    assert stats.output_tok_s(rec(**kw)) is None


def test_ttft_e2e_tpot():
    r = rec()
    assert stats.ttft_s(r) == 0.24
    assert stats.e2e_s(r) == 0.45
    # (0.45 - 0.24) / (101 - 1) = 2.1 ms
    assert stats.tpot_ms(r) == pytest.approx(2.1)


def test_interpolated_median_and_percentiles():
    assert stats.interp_median([1, 2, 3, 4]) == 2.5
    assert stats.interp_median([3, 1, 2]) == 2.0
    assert stats.percentile([10, 20, 30, 40, 50], 10) == pytest.approx(14.0)
    assert stats.percentile([10, 20, 30, 40, 50], 90) == pytest.approx(46.0)
    assert stats.interp_median([]) is None


def test_tau_from_counters_and_histogram():
    assert stats.tau(12, 4) == 4.0
    assert stats.tau(0, 0) is None
    # h = [1, 2, 3, 4]: Σk·h = 0+2+6+12 = 20 over 10 steps -> τ = 3.0
    assert stats.histogram_tau([1, 2, 3, 4]) == 3.0
    r = rec(spec_histogram=[1, 2, 3, 4])
    assert stats.request_tau(r) == 3.0


def test_per_position_acceptance_and_cross_check():
    h = [1, 2, 3, 4]  # K = 3
    p = stats.per_position_acceptance(h)
    assert p == pytest.approx([0.9, 0.7, 0.4])
    cond = stats.conditional_acceptance(p)
    assert cond == pytest.approx([0.9, 0.7 / 0.9, 0.4 / 0.7])
    # Σp_i/K equals spec_accept_rate = correct / (V·K) = 20 / 30 for chain drafting
    assert stats.mean_accept_rate(p) == pytest.approx(20 / 30)


def test_per_position_with_trimmed_trailing_bins():
    # the server trims trailing zero bins: K = num_draft_tokens - 1 = 6 fills the rest with 0
    assert stats.per_position_acceptance([1, 2, 3, 4], k_max=6) == pytest.approx([0.9, 0.7, 0.4, 0, 0, 0])


def test_conditional_when_a_position_is_never_reached():
    assert stats.conditional_acceptance([0.5, 0.0, 0.0]) == [0.5, 0.0, None]


def test_pool_histograms_variable_length():
    assert stats.pool_histograms([[1, 2], [0, 0, 3], None, []]) == [1, 2, 3]


def test_implied_step_cost_kv_tax():
    assert stats.implied_step_ms(5.0, 500.0) == pytest.approx(10.0)
    # the report: 505.9 tok/s on a $24/h node = $13.18 per M output tokens
    assert stats.cost_per_million_usd(24.0, 505.9) == pytest.approx(13.18, abs=0.005)
    # 336K vs 484K tokens: speculation costs 30.6% of KV capacity
    assert stats.kv_capacity_tax(336_000, 484_000) == pytest.approx(1 - 336 / 484)
    assert stats.kv_capacity_tax(None, 484_000) is None


def test_verify_tax_is_the_least_squares_slope():
    assert stats.verify_tax_ms([(2, 7.0), (4, 7.8), (6, 8.6)]) == pytest.approx(0.4)
    assert stats.verify_tax_ms([(2, 7.0)]) is None


def test_summarize_excludes_flagged_warmup_and_errors():
    rows = [
        rec(request_id="a", spec_histogram=[0, 1, 1], spec_accept_rate=0.75, spec_verify_ct=2),
        rec(request_id="b", t_last_s=0.64, spec_histogram=[1, 0, 1], spec_accept_rate=0.5, spec_verify_ct=2),  # 250 tok/s
        rec(request_id="c", flags=["short"], spec_histogram=[9]),
        rec(request_id="w", warmup=True),
        RequestRecord(request_id="e", error="HTTP 500"),
    ]
    s = stats.summarize(rows, num_draft_tokens=3)
    assert (s.n, s.n_ok, s.n_included, s.n_errors) == (4, 3, 2, 1)
    assert s.median_tok_s == pytest.approx((500 + 250) / 2)
    assert s.histogram == [1, 1, 2]
    assert s.tau == pytest.approx(1 + (1 + 4) / 4)
    assert s.per_position_acceptance == pytest.approx([0.75, 0.5])
    assert s.accept_rate_check == pytest.approx(0.625)
    assert s.server_accept_rate == pytest.approx(0.625)
    assert s.implied_step_ms == pytest.approx(1000 * s.tau / s.median_tok_s)


def test_definitions_cover_design_section_4():
    names = " ".join(d.name for d in stats.DEFINITIONS)
    for q in ("TTFT", "tok/s", "E2E", "TPOT", "median", "τ", "p_i", "implied step", "verify tax", "cost",
              "KV capacity", "KV capacity tax", "forecast"):
        assert q in names, q
    assert not any(math.isnan(0) for _ in stats.DEFINITIONS)


# --- other tools' conventions --------------------------------------------------------------------------------------

def test_the_conventions_convert_both_ways_and_agree_with_a_histogram():
    from console.core.measure import stats as S
    h = [10, 20, 30, 25, 15]  # k = 4 drafts a step
    tau = S.histogram_tau(h)
    p = S.per_position_acceptance(h, 4)
    rate = S.accept_rate_from_tau(tau, 4)
    assert rate == pytest.approx(S.mean_accept_rate(p))  # (τ − 1)/k = Σ p_i / K for a chain
    assert S.tau_from_accept_rate(rate, 4) == pytest.approx(tau)
    # SGLang's per-request spec_accept_length counts the prefill token: completion = correct + verify_ct + 1
    verify = sum(h)
    correct = sum(k * n for k, n in enumerate(h))
    assert S.tau_from_sglang_accept_length((correct + verify + 1) / verify, verify) == pytest.approx(tau)
    # α of the i.i.d. model reproduces τ; with equal conditionals it is each of them
    a = S.alpha_from_tau(tau, 4)
    assert sum(a ** i for i in range(5)) == pytest.approx(tau, abs=1e-9)
    assert S.alpha_from_tau(1 + 0.8 + 0.64 + 0.512, 3) == pytest.approx(0.8, abs=1e-9)
    assert S.alpha_from_tau(1.0, 4) == 0.0 and S.alpha_from_tau(5.0, 4) == 1.0


def test_data_parallel_ranks_pool_by_their_verify_steps_never_rank_zero_alone():
    from console.core.measure import stats as S
    assert S.pool_rank_tau([(4.0, 300), (2.0, 100)]) == pytest.approx(3.5)
    assert S.pool_rank_tau([(4.0, 300), (None, 100), (2.0, 0)]) == pytest.approx(4.0)
    assert S.pool_rank_tau([]) is None
