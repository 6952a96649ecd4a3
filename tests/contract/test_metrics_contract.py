"""The /metrics reader on SGLang 0.5.23 multiprocess expositions (TP=4)."""

import math

import pytest

from console.core.engine import metrics
from tests.conftest import fixture_bytes


def text(name):
    return fixture_bytes(name).decode()


def test_selects_rank_zero_and_never_sums_constants_across_ranks():
    s = metrics.snapshot(text("metrics_eagle3_tp4.txt"))
    assert s.max_total_num_tokens == 336000.0  # 4 ranks carry it; summing would give 1,344,000
    assert s.weight_memory_gb == pytest.approx(110.78125762939453)
    assert s.graph_memory_gb["target_verify"] == pytest.approx(1.152)  # tp_rank 0's value
    assert s.model_name == "moonshotai/Kimi-K2.6"


def test_load_and_spec_gauges_from_rank_zero():
    s = metrics.snapshot(text("metrics_eagle3_tp4.txt"))
    assert s.num_running_reqs == 1.0
    assert s.num_queue_reqs == 0.0
    assert s.token_usage == pytest.approx(0.01)
    assert s.num_used_tokens == 1984.0
    assert s.spec_accept_length == pytest.approx(3.35)
    assert s.spec_accept_rate == pytest.approx(0.39166666666666666)
    assert s.gen_throughput == pytest.approx(212.38978102213517)


def test_counters_sum_over_label_sets():
    s = metrics.snapshot(text("metrics_eagle3_tp4.txt"))
    assert s.generation_tokens_total == 42.0 + 117.0  # is_streaming false + true
    assert s.spec_verify_calls_total == 44.0


def test_fresh_server_has_no_load_series_but_constants():
    s = metrics.snapshot(text("metrics_fresh_tp4.txt"))
    assert s.max_total_num_tokens == 336000.0
    assert s.generation_tokens_total is None  # labelled counters appear only after first use


def test_nan_reads_as_absent():
    samples = metrics.parse_samples(text("metrics_eagle3_tp4.txt"))
    occ = [x for x in samples if x.name == "sglang:fwd_occupancy"]
    assert occ and math.isnan(occ[0].value)
    assert metrics._pick(samples, "sglang:fwd_occupancy") is None


def test_pid_labelled_gauge_reduces_by_max():
    samples = metrics.parse_samples(text("metrics_eagle3_tp4.txt"))
    assert any("pid" in x.labels for x in samples if x.name == "sglang:num_retracted_reqs")
    assert metrics._pick(samples, "sglang:num_retracted_reqs") == 0.0


def test_malformed_exposition_is_one_line():
    with pytest.raises(ValueError) as ei:
        metrics.snapshot('sglang:x{a="1" 1\n')
    assert "/metrics: not a Prometheus text exposition" in str(ei.value) and "\n" not in str(ei.value)
