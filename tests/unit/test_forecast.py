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
    assert "report default" in fc.tax_source


def test_session_verify_tax_needs_two_depths():
    tax, src = fcm.session_verify_tax([(7, 4.9, 490.0)])
    assert tax is None and "report default" in src
    # steps 10.0 ms at 7 verified tokens and 10.4 ms at 8 → 0.4 ms/token
    tax, src = fcm.session_verify_tax([(7, 4.9, 490.0), (8, 5.2, 500.0)])
    assert tax == pytest.approx(0.4) and "measured in this session" in src


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
