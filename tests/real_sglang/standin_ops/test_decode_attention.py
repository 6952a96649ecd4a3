"""torch.ops.sgl_kernel.decode_attention_cpu: one query token per row against the KV pool, as
IntelAMXAttnBackend.forward_decode calls it in SGLang 0.5.23 (19 positional arguments):

    (q [T, H, D], key_buffer, value_buffer, k_scale, v_scale, o [T, H, Dv], k [T, Hkv, D] | None, v | None,
     cache_loc [T] int64, attn_logits [T, H, 8, Dv + 1] f32, req_to_token int32, req_pool_indices int64,
     seq_lens int64, sm_scale, logit_cap, is_cross_attention, sliding_window_size + 1, encoder_lens, sinks)

Semantics: sgl-kernel/csrc/cpu/decode.cpp (decode_attention_cpu: when k/v are given they are first stored at
key_buffer[cache_loc] / value_buffer[cache_loc]; row b then attends to the slots req_to_token[req_pool_indices[b],
:seq_lens[b]] (the new token included), only the last `sliding_window_size` of them when that is > 0; scores are
q.k * sm_scale, then logit_cap * tanh(s / logit_cap) when logit_cap > 0; query head h reads KV head h // (H/Hkv);
attn_logits is scratch the kernel fully writes before reading) and SGLang's Triton decode_attention_fwd.
Also the multi-step draft decode of IntelAMXMultiStepDraftBackend (one row per (request, branch), expanded
req_to_token, seq_lens + step + 1).

Reference: standin_refs.attention_reference (float64 softmax with an explicit boolean mask). Tolerances: bf16
atol = rtol = 2e-2 (bf16 inputs/outputs, the kernel rounds probabilities to bf16); fp32 atol = rtol = 1e-4.
KV stores are exact."""

from __future__ import annotations

import pytest
import torch
from standin_refs import attention_reference, fused_qkv, scattered_pool, window_visible

H, HKV, D, DV = 6, 2, 64, 64  # GQA groups of 3: a wrong head mapping changes every output
NUM_KV_SPLITS = 8  # IntelAMXAttnBackend.num_kv_splits
MAX_REQS, POOL_LEN, SLOTS = 6, 48, 96
TOL = {torch.bfloat16: 2e-2, torch.float32: 1e-4}
DTYPES = [pytest.param(torch.bfloat16, id="bf16"), pytest.param(torch.float32, id="fp32")]
SM_SCALE = D ** -0.5


def _decode(q, k_buf, v_buf, o, k, v, loc, attn_logits, rtt, rpi, seq_lens, logit_cap=0.0, sws=0):
    torch.ops.sgl_kernel.decode_attention_cpu(q, k_buf, v_buf, 1.0, 1.0, o, k, v, loc, attn_logits, rtt, rpi,
                                              seq_lens, SM_SCALE, logit_cap, False, sws, None, None)


def _expected(q, k_buf, v_buf, rtt, rpi, seq_lens, logit_cap=0.0, sws=0):
    out = []
    for b in range(q.shape[0]):
        sl = int(seq_lens[b])
        slots = rtt[int(rpi[b]), :sl].long()
        vis = window_visible(torch.tensor([sl - 1]), torch.arange(sl), sws)
        out.append(attention_reference(q[b:b + 1], k_buf[slots], v_buf[slots], SM_SCALE, vis, logit_cap)[0])
    return torch.stack(out)


def _close(got, want, dtype):
    torch.testing.assert_close(got.double(), want, atol=TOL[dtype], rtol=TOL[dtype])


VARIANTS = {  # id: (logit_cap, sliding_window_size as passed = layer window + 1, q scale)
    "plain": (0.0, 0, 1.0),
    "logit-cap": (1.5, 0, 3.0),  # scores of a few units, so the tanh cap changes them
    "sliding-window": (0.0, 5, 1.0),  # layer.sliding_window_size 4
}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_decode_stores_new_kv_then_attends(sk, dtype, variant):
    """Three requests in scattered pool rows/slots (seq_lens 9, 17 and 3: the last is shorter than the 8 KV
    splits); the new token's slot holds stale data before the call; attn_logits and o start as NaN."""
    logit_cap, sws, q_scale = VARIANTS[variant]
    seq_lens = torch.tensor([9, 17, 3], dtype=torch.int64)
    rpi = torch.tensor([4, 1, 2], dtype=torch.int64)
    rtt = scattered_pool(seq_lens.tolist(), rpi.tolist(), MAX_REQS, POOL_LEN, SLOTS)
    k_buf = torch.randn(SLOTS, HKV, D).to(dtype)
    v_buf = torch.randn(SLOTS, HKV, DV).to(dtype)
    q, k, v = fused_qkv(3, H, HKV, D, DV, dtype, q_scale)
    loc = torch.stack([rtt[int(r), int(s) - 1] for r, s in zip(rpi, seq_lens)]).long()
    k_buf[loc] = 50.0
    v_buf[loc] = -50.0
    untouched = torch.ones(SLOTS, dtype=torch.bool)
    untouched[loc] = False
    k_before, v_before = k_buf.clone(), v_buf.clone()
    o = torch.full((3, H, DV), float("nan"), dtype=dtype)
    attn_logits = torch.full((3, H, NUM_KV_SPLITS, DV + 1), float("nan"))

    _decode(q, k_buf, v_buf, o, k, v, loc, attn_logits, rtt, rpi, seq_lens, logit_cap, sws)

    assert torch.equal(k_buf[loc], k) and torch.equal(v_buf[loc], v), "new k/v not stored at cache_loc"
    assert torch.equal(k_buf[untouched], k_before[untouched]) and torch.equal(v_buf[untouched], v_before[untouched])
    _close(o, _expected(q, k_buf, v_buf, rtt, rpi, seq_lens, logit_cap, sws), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_decode_without_new_kv_reads_the_pool_only(sk, dtype):
    """k = v = None (the fp8 path stores first; KV-shared layers): nothing is written, the pool is read as is."""
    seq_lens = torch.tensor([12, 5], dtype=torch.int64)
    rpi = torch.tensor([0, 3], dtype=torch.int64)
    rtt = scattered_pool(seq_lens.tolist(), rpi.tolist(), MAX_REQS, POOL_LEN, SLOTS)
    k_buf = torch.randn(SLOTS, HKV, D).to(dtype)
    v_buf = torch.randn(SLOTS, HKV, DV).to(dtype)
    k_before, v_before = k_buf.clone(), v_buf.clone()
    q, _, _ = fused_qkv(2, H, HKV, D, DV, dtype)
    loc = torch.stack([rtt[int(r), int(s) - 1] for r, s in zip(rpi, seq_lens)]).long()
    o = torch.full((2, H, DV), float("nan"), dtype=dtype)
    attn_logits = torch.zeros(2, H, NUM_KV_SPLITS, DV + 1)

    _decode(q, k_buf, v_buf, o, None, None, loc, attn_logits, rtt, rpi, seq_lens)

    assert torch.equal(k_buf, k_before) and torch.equal(v_buf, v_before)
    _close(o, _expected(q, k_buf, v_buf, rtt, rpi, seq_lens), dtype)


@pytest.mark.parametrize("topk", [1, 3], ids=["chain", "tree"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_step_draft_decode(sk, dtype, topk):
    """IntelAMXMultiStepDraftBackend: at draft step s (0 <= s < num_steps - 1) row b*topk + tk is branch tk of
    request b, reading the expanded table row [prefix slots, branch tk's draft slots], seq_len = prefix + s + 1,
    and storing its new k/v at branch tk's step-s slot (per_step_draft_out_cache_loc). A branch must see its own
    earlier draft tokens and never another branch's."""
    num_steps = 3
    prefix = [6, 11]
    rows = [2, 5]
    n_seqs, bs = len(prefix), len(prefix) * topk
    rtt = scattered_pool([p + topk * num_steps for p in prefix], rows, MAX_REQS, POOL_LEN, SLOTS)
    expanded = torch.zeros(bs, POOL_LEN, dtype=torch.int32)  # built here, not by build_draft_decode_metadata_cpu
    for b in range(n_seqs):
        for tk in range(topk):
            sl = prefix[b]
            expanded[b * topk + tk, :sl + num_steps] = torch.cat(
                [rtt[rows[b], :sl], rtt[rows[b], sl + tk * num_steps: sl + (tk + 1) * num_steps]])
    k_buf = torch.randn(SLOTS, HKV, D).to(dtype)
    v_buf = torch.randn(SLOTS, HKV, DV).to(dtype)
    rpi = torch.arange(bs, dtype=torch.int64)
    base = torch.tensor(prefix, dtype=torch.int64).repeat_interleave(topk)

    for step in range(num_steps - 1):
        seq_lens = base + step + 1
        loc = torch.stack([expanded[r, int(seq_lens[r]) - 1] for r in range(bs)]).long()
        q, k, v = fused_qkv(bs, H, HKV, D, DV, dtype)
        o = torch.full((bs, H, DV), float("nan"), dtype=dtype)
        attn_logits = torch.zeros(bs, H, NUM_KV_SPLITS, DV + 1)

        _decode(q, k_buf, v_buf, o, k, v, loc, attn_logits, expanded, rpi, seq_lens)

        assert torch.equal(k_buf[loc], k) and torch.equal(v_buf[loc], v), f"step {step}"
        _close(o, _expected(q, k_buf, v_buf, expanded, rpi, seq_lens), dtype)
