"""Startup phases and the first real error line, on SGLang 0.5.23 launch logs (TP=4, ranks interleaved,
tqdm redraws with \\r, a record landing mid-bar)."""

import random

import pytest

from console.core.launch.logparse import PHASE_KEYS, StartupParser, first_error_line
from tests.conftest import fixture_bytes


def parse(name, tp=4, has_draft=True, pieces=None):
    text = fixture_bytes(name).decode()
    sp = StartupParser(tp=tp, has_draft=has_draft, clock=iter(range(10_000)).__next__)
    seen = []
    if pieces is None:
        sp.feed(text)
    else:  # arrive in random pieces, as a growing log file is read
        rng = random.Random(pieces)
        i = 0
        while i < len(text):
            n = rng.randint(1, 400)
            prog = sp.feed(text[i:i + n])
            cur = prog.current
            if cur and (not seen or seen[-1] != cur.key):
                seen.append(cur.key)
            i += n
    sp.finish()
    return sp.progress, seen


@pytest.mark.parametrize("pieces", [None, 1, 2, 3])
def test_eagle3_startup_walks_every_phase_in_order(pieces):
    p, seen = parse("launch_eagle3_tp4.log", pieces=pieces)
    assert p.ready and p.error_line is None
    assert all(ph.status == "done" for ph in p.phases)
    assert p.weights_pct == 100.0 and p.draft_weights_pct == 100.0
    assert p.shards is not None and p.shards[0] == p.shards[1]
    assert p.max_total_num_tokens == 336000
    assert p.max_running_requests == 48 and p.context_len == 262144
    assert p.kv_tokens is not None and p.kv_tokens >= 336000
    if pieces is not None:  # phases were entered in SGLang's order, never backwards
        assert [PHASE_KEYS.index(k) for k in seen] == sorted(PHASE_KEYS.index(k) for k in seen)
        assert "weights" in seen and "graphs" in seen


def test_dflash_startup():
    p, _ = parse("launch_dflash_tp4.log")
    assert p.ready and p.max_total_num_tokens == 295000


def test_weights_percentage_is_read_mid_bar():
    text = fixture_bytes("launch_eagle3_tp4.log").decode()
    i = text.index("Multi-thread loading shards:  50%")
    sp = StartupParser(tp=4, has_draft=True)
    sp.feed(text[: i + 60])
    assert sp.progress.current.key == "weights"
    assert 40 <= sp.progress.weights_pct <= 60
    assert 0.2 < sp.progress.fraction() < 0.6


def test_compressed_tensors_crash_names_the_exception_and_where():
    p, _ = parse("launch_crash_compressed_tensors.log")
    assert not p.ready
    assert p.error_line == "pydantic_core._pydantic_core.ValidationError: 2 validation errors for QuantizationArgs"
    assert p.error_where == ("sglang/srt/layers/quantization/compressed_tensors/compressed_tensors.py:367 "
                             "in _quantization_scheme_map_from_config")
    one = first_error_line(fixture_bytes("launch_crash_compressed_tensors.log").decode())
    assert "ValidationError" in one and "\n" not in one


def test_cuda_oom_crash():
    p, _ = parse("launch_crash_cuda_oom.log")
    assert not p.ready
    assert p.error_line.startswith("torch.OutOfMemoryError: CUDA out of memory.")
    assert p.error_where.startswith("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py")
