"""torch.ops.sgl_kernel.extend_attention_cpu: new tokens of each request against its cached prefix and each other,
as IntelAMXAttnBackend.forward_extend calls it in SGLang 0.5.23 (22 positional arguments):

    (q [T, H, D], k [T, Hkv, D], v [T, Hkv, Dv], o [T, H, Dv], key_buffer, value_buffer, k_scale, v_scale,
     req_to_token int32, req_pool_indices int64, seq_lens int64 (prefix + extend), extend_seq_lens int32,
     extend_start_loc int32, max_len_extend, sm_scale, logit_cap, is_cross_attention,
     sliding_window_size + 1, encoder_lens, sinks, tree_mask, is_causal)

forward_extend has already stored k/v at out_cache_loc (set_kv_buffer) when the kernel runs. TARGET_VERIFY
(_build_extend_metadata): every request extends by num_draft_tokens, extend_start_loc = arange * ndt,
seq_lens = committed + ndt, max_len_extend = ndt, and a tree mask only when spec_info.tree_topk != 1 (EAGLE topk > 1,
NGRAM): spec_info.custom_mask, which on CPU is the QLEN_ONLY layout [bs * ndt * ndt] bool (default_tree_mask_mode();
draft token i may see draft token j iff mask[b, i, j]; the committed prefix is visible to every draft token).

Semantics: sgl-kernel/csrc/cpu/extend.cpp (extend_attention_cpu: stage 1 = prefix keys read through req_to_token,
stage 2 = extend keys from k/v with the causal mask, or the tree mask when given; the sliding window keeps key k for
query q iff q - sliding_window_size < k <= q, by absolute position; logit cap as in decode) and SGLang's Triton
extend_attention_fwd (custom_mask path for TARGET_VERIFY).

Reference: per request, standin_refs.attention_reference over [prefix keys, extend keys] with an explicit boolean
mask. Tolerances: bf16 atol = rtol = 2e-2; fp32 atol = rtol = 1e-4."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import torch
from standin_refs import (
    attention_reference,
    chain_parents,
    eagle_draft_tree,
    fused_qkv,
    qlen_mask,
    random_tree_parents,
    scattered_pool,
    tree_reference,
    window_visible,
)

H, HKV, D, DV = 6, 2, 64, 64
MAX_REQS, POOL_LEN, SLOTS = 6, 48, 160
TOL = {torch.bfloat16: 2e-2, torch.float32: 1e-4}
DTYPES = [pytest.param(torch.bfloat16, id="bf16"), pytest.param(torch.float32, id="fp32")]
SM_SCALE = D ** -0.5


@dataclass
class Batch:
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    k_buf: torch.Tensor
    v_buf: torch.Tensor
    rtt: torch.Tensor
    rpi: torch.Tensor
    prefix: list[int]
    extend: list[int]

    @property
    def seq_lens(self):
        return torch.tensor([p + e for p, e in zip(self.prefix, self.extend)], dtype=torch.int64)

    @property
    def starts(self):
        return [sum(self.extend[:i]) for i in range(len(self.extend))]


def _batch(prefix, extend, rows, dtype, q_scale=1.0) -> Batch:
    """Requests in scattered pool rows/slots; their new tokens' k/v already stored at their slots."""
    rtt = scattered_pool([p + e for p, e in zip(prefix, extend)], rows, MAX_REQS, POOL_LEN, SLOTS)
    k_buf = torch.randn(SLOTS, HKV, D).to(dtype)
    v_buf = torch.randn(SLOTS, HKV, DV).to(dtype)
    q, k, v = fused_qkv(sum(extend), H, HKV, D, DV, dtype, q_scale)
    at = 0
    for r, p, e in zip(rows, prefix, extend):
        out_cache_loc = rtt[r, p:p + e].long()
        k_buf[out_cache_loc] = k[at:at + e]
        v_buf[out_cache_loc] = v[at:at + e]
        at += e
    return Batch(q, k, v, k_buf, v_buf, rtt, torch.tensor(rows, dtype=torch.int64), list(prefix), list(extend))


def _extend(bt: Batch, *, logit_cap=0.0, sws=0, tree_mask=None, is_causal=True):
    o = torch.full((bt.q.shape[0], H, DV), float("nan"), dtype=bt.q.dtype)
    ext_lens = torch.tensor(bt.extend, dtype=torch.int32)
    ext_start = torch.tensor(bt.starts, dtype=torch.int32)
    torch.ops.sgl_kernel.extend_attention_cpu(bt.q, bt.k, bt.v, o, bt.k_buf, bt.v_buf, 1.0, 1.0, bt.rtt, bt.rpi,
                                              bt.seq_lens, ext_lens, ext_start, max(bt.extend), SM_SCALE, logit_cap,
                                              False, sws, None, None, tree_mask, is_causal)
    return o


def _expected(bt: Batch, visible_of, logit_cap=0.0):
    """visible_of(b, p, e) -> [e, p + e] bool over (prefix keys, extend keys) of request b."""
    out = []
    for b, (p, e, s) in enumerate(zip(bt.prefix, bt.extend, bt.starts)):
        slots = bt.rtt[int(bt.rpi[b]), :p + e].long()
        out.append(attention_reference(bt.q[s:s + e], bt.k_buf[slots], bt.v_buf[slots], SM_SCALE,
                                       visible_of(b, p, e), logit_cap))
    return torch.cat(out)


def _causal(sws=0):
    return lambda b, p, e: window_visible(torch.arange(p, p + e), torch.arange(p + e), sws)


def _close(got, want, dtype):
    torch.testing.assert_close(got.double(), want, atol=TOL[dtype], rtol=TOL[dtype])


# --- ordinary extend (prefill with a cached prefix, draft extend) ----------------------------------------------

VARIANTS = {  # id: (logit_cap, sliding_window_size as passed, q scale)
    "plain": (0.0, 0, 1.0),
    "logit-cap": (1.5, 0, 3.0),
    "sliding-window": (0.0, 4, 1.0),  # layer.sliding_window_size 3: windows cut into prefix and extend parts
}


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_extend_with_prefix(sk, dtype, variant):
    """Prefixes 0, 5, 12 and uneven extends 7, 3, 1 (max_len_extend 7), causal."""
    logit_cap, sws, q_scale = VARIANTS[variant]
    bt = _batch([0, 5, 12], [7, 3, 1], [3, 0, 5], dtype, q_scale)
    o = _extend(bt, logit_cap=logit_cap, sws=sws)
    _close(o, _expected(bt, _causal(sws), logit_cap), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_extend_not_causal(sk, dtype):
    """is_causal = False (encoder-only layers): every new token sees all new tokens of its request."""
    bt = _batch([0, 0], [5, 3], [1, 4], dtype)
    o = _extend(bt, is_causal=False)
    _close(o, _expected(bt, lambda b, p, e: torch.ones(e, p + e, dtype=torch.bool)), dtype)


# --- TARGET_VERIFY -----------------------------------------------------------------------------------------------

COMMITTED = [13, 7, 21]  # committed seq_lens of the three requests being verified
ROWS = [4, 0, 2]


def _verify_batch(ndt, dtype):
    return _batch(COMMITTED, [ndt] * len(COMMITTED), ROWS, dtype)


def _tree_visible(parents_per_req):
    def visible(b, p, e):
        tree = torch.tensor(tree_reference(parents_per_req[b], b).mask, dtype=torch.bool)
        return torch.cat([torch.ones(e, p, dtype=torch.bool), tree], dim=1)
    return visible


@pytest.mark.parametrize("dtype", DTYPES)
def test_target_verify_chain_without_mask(sk, dtype):
    """topk == 1: the backend passes no tree mask; the draft chain is plain causal after the full prefix."""
    ndt = 4
    bt = _verify_batch(ndt, dtype)
    o = _extend(bt)
    _close(o, _expected(bt, _causal()), dtype)


@pytest.mark.parametrize("topk,num_steps,ndt", [(2, 4, 6), (4, 3, 8)], ids=["topk2", "topk4"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_target_verify_eagle_tree_mask(sk, dtype, topk, num_steps, ndt):
    """topk > 1: a draft token sees the whole prefix, the root, itself and its ancestors only; different requests
    have different trees (the mask is per request)."""
    tree = eagle_draft_tree(len(COMMITTED), topk, num_steps, ndt)
    assert len({tuple(p) for p in tree.parents}) > 1, "identical trees would not show a per-request mix-up"
    bt = _verify_batch(ndt, dtype)
    o = _extend(bt, tree_mask=qlen_mask(tree.parents))
    _close(o, _expected(bt, _tree_visible(tree.parents)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_target_verify_ngram_irregular_tree(sk, dtype):
    """NGRAM (tree_topk -1): an irregular trie in draft order, mask always passed."""
    ndt = 8
    parents = [random_tree_parents(ndt) for _ in COMMITTED]
    bt = _verify_batch(ndt, dtype)
    o = _extend(bt, tree_mask=qlen_mask(parents))
    _close(o, _expected(bt, _tree_visible(parents)), dtype)


def test_target_verify_chain_mask_equals_causal(sk):
    """A lower-triangular tree mask (a chain passed explicitly, as NGRAM can) gives the causal result."""
    ndt = 5
    parents = [chain_parents(ndt)] * len(COMMITTED)
    bt = _verify_batch(ndt, torch.bfloat16)
    with_mask = _extend(bt, tree_mask=qlen_mask(parents))
    without = _extend(bt)
    _close(with_mask, _expected(bt, _causal()), torch.bfloat16)
    _close(without, _expected(bt, _causal()), torch.bfloat16)
