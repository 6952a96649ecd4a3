import pytest

from console.core.measure import forecast as fcm


def test_extend_positions_continues_with_the_mean_of_the_last_two_conditionals():
    p = [0.9, 0.72, 0.54]  # conditionals 0.9, 0.8, 0.75
    ext = fcm.extend_positions(p, 5)
    c = (0.8 + 0.75) / 2
    assert ext == pytest.approx([0.9, 0.72, 0.54, 0.54 * c, 0.54 * c * c])
    assert fcm.extend_positions(p, 2) == [0.9, 0.72]


def test_forecast_hand_computed():
    p = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]  # depth 6, τ = 4.9
    fc = fcm.forecast(p, base_depth=6, base_tok_s=490.0, base_tau=4.9, depths=[5, 6, 7])
    assert fc.base_step_ms == pytest.approx(10.0)
    six, seven, five = fc.at(6), fc.at(7), fc.at(5)
    assert six.tok_s == pytest.approx(490.0) and six.extrapolated_positions == 0
    assert five.tau == pytest.approx(4.5) and five.step_ms == pytest.approx(10.0 - 0.397)
    c = (0.5 / 0.6 + 0.4 / 0.5) / 2
    assert seven.tau == pytest.approx(4.9 + 0.4 * c)
    assert seven.step_ms == pytest.approx(10.397)
    assert seven.tok_s == pytest.approx(1000 * (4.9 + 0.4 * c) / 10.397)
    assert seven.extrapolated_positions == 1
    assert fc.tax.source == "published" and fc.tax_source.startswith("published (chain drafting")


def _cell(width, step_ms, n=16, spread=0.02, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed + width)
    return (width, list(step_ms * (1 + spread * rng.standard_normal(n))))


def test_a_fit_needs_two_widths_and_a_resolved_positive_slope():
    tax, why = fcm.fit_verify_tax([_cell(7, 10.0)])
    assert tax is None and "one verify width" in why
    # 10.0 ms at 7 verified tokens, 10.4 ms at 8, 10.8 ms at 9: 0.4 ms per token, tight CI
    tax, why = fcm.fit_verify_tax([_cell(7, 10.0), _cell(8, 10.4), _cell(9, 10.8)], what=" on tool")
    assert tax is not None and tax.source == "fitted" and tax.ms == pytest.approx(0.4, abs=0.05)
    assert tax.ci_ms[0] > 0 and "fitted in this session" in tax.text and "on tool" in tax.text
    assert fcm.choose_verify_tax(None, (tax, why)) is tax


def test_two_noisy_anchors_with_a_negative_slope_are_refused_and_the_forecast_says_why():
    """Issue #13: the flip box priced depth 6 with '-0.219 ms/token: measured in this session across 2 depths',
    and a forecast from two anchors of different launches (279.6 vs 288.5 tok/s) fitted -0.301 ms, pushing the
    operator toward deeper drafts. A non-physical fit is never used; the published tax is, with the reason."""
    # anchors of 8 short rows: steps 13.2 ms at 6 verified tokens, 12.9 at 7 (the second launch drew a faster node)
    noisy = [_cell(6, 13.2, n=8, spread=0.05), _cell(7, 12.9, n=8, spread=0.05, seed=1)]
    fit = fcm.fit_verify_tax(noisy)
    assert fit[0] is None and ("not physical" in fit[1] or "not resolved" in fit[1])
    tax = fcm.choose_verify_tax(None, fit)
    assert tax.source == "published" and tax.ms == pytest.approx(0.397) and fit[1] in tax.text
    fc = fcm.forecast([0.9, 0.8, 0.7, 0.6, 0.5, 0.4], 6, 490.0, 4.9, [7, 8], tax=tax)
    assert fc.at(8).step_ms > fc.at(7).step_ms > fc.base_step_ms, "deeper drafts cost more, never less"
    # a positive but unresolved fit (CI includes 0) is refused too
    loose = [_cell(6, 13.0, n=8, spread=0.08), _cell(7, 13.05, n=8, spread=0.08, seed=3)]
    t2, why2 = fcm.fit_verify_tax(loose)
    assert t2 is None, why2
    # a probed tax wins over everything
    probed = fcm.VerifyTax(0.41, "probed", "probed 0.41 ms [0.39, 0.43]", (0.39, 0.43))
    assert fcm.choose_verify_tax(probed, fit) is probed


def test_compare():
    fc = fcm.forecast([0.9, 0.8], 2, 300.0, 2.7, [3])
    cmp = fcm.compare(fc, 3, measured_tok_s=fc.at(3).tok_s * 1.02, measured_tau=None)
    assert cmp.error_pct == pytest.approx(100 * (1 / 1.02 - 1))
    with pytest.raises(ValueError):
        fcm.compare(fc, 9, 1.0, None)


def test_dflash_depth_is_the_block_and_positions_are_block_minus_one():
    # a block of 4 verifies 3 drafted tokens: p_1..p_3 measured; block 5 needs one extrapolated position
    p = [0.8, 0.6, 0.4]
    fc = fcm.forecast(p, base_depth=4, base_tok_s=300.0, base_tau=2.8, depths=[4, 5], family="dflash")
    assert fc.at(4).tau == pytest.approx(2.8) and fc.at(4).extrapolated_positions == 0
    assert fc.at(4).step_ms == pytest.approx(fc.base_step_ms)
    assert fc.at(5).extrapolated_positions == 1 and fc.at(5).step_ms == pytest.approx(fc.base_step_ms + 0.397)
    assert fcm.draft_positions("dflash", 16) == 15 and fcm.draft_positions("eagle3", 6) == 6
