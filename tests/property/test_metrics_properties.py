"""Property tests of the /metrics reader (console/core/engine/metrics.py) on expositions in SGLang 0.5.23's
multiprocess shape: per-rank constants (take tp_rank 0, never sum), rank-0-only load and speculative gauges,
`pid`-labelled gauges (max across pids), labelled counters (summed), NaN as absent; and on arbitrary text, which
either parses or raises ValueError with one line."""

from __future__ import annotations

import math
import random

import pytest

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from console.core.engine import metrics
from tests.conftest import fixture_bytes

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: snapshot field -> metric name (without the sglang: prefix)
RANK_CONSTANTS = {
    "max_total_num_tokens": "max_total_num_tokens", "weight_memory_gb": "weight_memory_usage_gb",
    "kv_cache_memory_gb": "kv_cache_memory_usage_gb", "context_len": "context_len",
    "startup_available_gpu_memory_gb": "startup_available_gpu_memory_gb",
}
RANK0_GAUGES = {
    "num_running_reqs": "num_running_reqs", "num_queue_reqs": "num_queue_reqs", "gen_throughput": "gen_throughput",
    "token_usage": "token_usage", "num_used_tokens": "num_used_tokens", "spec_accept_length": "spec_accept_length",
    "spec_accept_rate": "spec_accept_rate", "spec_num_steps": "spec_num_steps",
    "spec_num_draft_tokens": "spec_num_draft_tokens", "cache_hit_rate": "cache_hit_rate",
}
COUNTERS = {
    "generation_tokens_total": "generation_tokens_total", "prompt_tokens_total": "prompt_tokens_total",
    "spec_verify_calls_total": "spec_verify_calls_total", "num_requests_total": "num_requests_total",
}
PHASES = ("prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend")

NAN = float("nan")
HELPS = ("", "Help text.", "escaped \\\\ backslash and \\n newline")
number = st.floats(allow_nan=False, width=64) | st.integers(0, 10**9).map(float)
maybe_nan = number | st.just(NAN)


def fmt(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(v)


def esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def labels(d: dict[str, str]) -> str:
    return "{" + ",".join(f'{k}="{esc(v)}"' for k, v in sorted(d.items())) + "}"


@st.composite
def exposition(draw):
    """(text, expected snapshot fields) for a random SGLang-shaped page."""
    tp = draw(st.integers(1, 8))
    model = draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20))
    rng = random.Random(draw(st.integers(0, 2**32)))
    base = {"engine_type": "unified", "model_name": model, "moe_ep_rank": "0", "pp_rank": "0"}
    families: list[list[str]] = []
    want: dict[str, object] = {}

    def family(name: str, typ: str, lines: list[str]) -> None:
        help_text = draw(st.sampled_from(HELPS))
        families.append([f"# HELP sglang:{name} {help_text}",
                         f"# TYPE sglang:{name} {typ}", *lines])

    for field, name in RANK_CONSTANTS.items():
        if not draw(st.booleans()):
            want[field] = None
            continue
        vals = [draw(number) for _ in range(tp)]
        ranks = list(range(tp))
        rng.shuffle(ranks)  # exposition order of ranks is arbitrary (multiprocess files)
        family(name, "gauge", [f"sglang:{name}{labels({**base, 'tp_rank': str(r)})} {fmt(vals[r])}" for r in ranks])
        want[field] = vals[0]
    for field, name in RANK0_GAUGES.items():
        mode = draw(st.sampled_from(["absent", "plain", "pid"]))
        if mode == "absent":
            want[field] = None
        elif mode == "plain":
            v = draw(maybe_nan)
            family(name, "gauge", [f"sglang:{name}{labels({**base, 'tp_rank': '0'})} {fmt(v)}"])
            want[field] = None if math.isnan(v) else v
        else:  # multiprocess mode 'all': one series per pid, the reader takes the max of the non-NaN ones
            vals = draw(st.lists(maybe_nan, min_size=1, max_size=4))
            family(name, "gauge", [f"sglang:{name}{labels({**base, 'pid': str(1000 + i), 'tp_rank': '0'})} {fmt(v)}"
                                   for i, v in enumerate(vals)])
            finite = [v for v in vals if not math.isnan(v)]
            want[field] = max(finite) if finite else None
    for field, name in COUNTERS.items():
        sets = draw(st.lists(st.sampled_from(["true", "false"]), unique=True, max_size=2))
        vals = [draw(st.integers(0, 10**12).map(float)) for _ in sets]
        if sets:
            family(name, "counter", [f"sglang:{name}{labels({**base, 'is_streaming': s})} {fmt(v)}"
                                     for s, v in zip(sets, vals)])
        want[field] = sum(vals) if sets else None
    phases = draw(st.lists(st.sampled_from(PHASES), unique=True, max_size=len(PHASES)))
    if phases:
        per = {(ph, r): draw(number) for ph in phases for r in range(tp)}
        family("graph_memory_usage_gb", "gauge",
               [f"sglang:graph_memory_usage_gb{labels({**base, 'phase': ph, 'tp_rank': str(r)})} {fmt(per[ph, r])}"
                for r in range(tp) for ph in phases])
    want["graph_memory_gb"] = {ph: per[ph, 0] for ph in phases}
    if draw(st.booleans()):  # a histogram, as SGLang's latency families
        b = base | {"is_streaming": "true"}
        cum = sorted(draw(st.lists(st.integers(0, 1000), min_size=3, max_size=3)))
        family("e2e_request_latency_seconds", "histogram", [
            *(f"sglang:e2e_request_latency_seconds_bucket{labels(b | {'le': le})} {float(c)}"
              for le, c in zip(("0.1", "1.0", "+Inf"), cum)),
            f"sglang:e2e_request_latency_seconds_sum{labels(b)} 1.5",
            f"sglang:e2e_request_latency_seconds_count{labels(b)} {float(cum[-1])}"])
    rng.shuffle(families)
    text = "\n".join(line for fam in families for line in fam) + "\n"
    any_series = bool(families)
    want["model_name"] = model if any_series else None
    return text, want


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


@SETTINGS
@given(exposition())
def test_generated_sglang_expositions_read_to_the_right_gauges(case):
    text, want = case
    snap = metrics.snapshot(text)
    for field, v in want.items():
        assert same(getattr(snap, field), v), (field, getattr(snap, field), v)


def one_line_value_error(text: str) -> None:
    try:
        metrics.snapshot(text)
    except ValueError as e:
        msg = str(e)
        assert msg.startswith("/metrics: ")
        assert "\n" not in msg, repr(msg)
    # any other exception fails the test


@SETTINGS
@given(st.text(max_size=400))
@example('sglang:x{a="1" 1\n')
@example("# TYPE x gauge\nx 1\nx{le=} 2\n")
def test_arbitrary_text_parses_or_raises_one_line_value_error(text):
    one_line_value_error(text)


@SETTINGS
@given(st.integers(0, 2**32), st.integers(1, 5), st.text(max_size=30))
def test_a_damaged_real_page_parses_or_raises_one_line_value_error(seed, n_cuts, junk):
    """The fixture page with random lines cut short, duplicated or replaced by junk."""
    rng = random.Random(seed)
    lines = fixture_bytes("metrics_eagle3_tp4.txt").decode().splitlines()
    for _ in range(n_cuts):
        i = rng.randrange(len(lines))
        op = rng.choice(["cut", "dup", "junk", "drop"])
        if op == "cut":
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "junk":
            lines[i] = junk
        else:
            del lines[i]
    one_line_value_error("\n".join(lines) + "\n")


def test_the_error_line_carries_no_carriage_return():
    with pytest.raises(ValueError) as ei:
        metrics.snapshot("0\r0")
    assert "\r" not in str(ei.value)
