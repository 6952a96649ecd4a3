"""KV-pool row copies: moving accepted draft tokens' KV rows (copy_all_layer_kv_cache_cpu) and the AMX pool's
store (store_cache_cpu).

Semantics: sgl-kernel/csrc/cpu/kvcache.cpp (copy_all_layer_kv_cache_cpu: for every buffer b,
buf_b[tgt_loc[i]] = buf_b[src_loc[i]], all sources read before any target is written, so overlapping
tgt/src are safe; store_cache_cpu: k_cache[indices[i]] = k[i], v likewise) and the Triton
copy_all_layer_kv_cache_tiled in SGLang 0.5.23's kernels/ops/kvcache/cache_move.py. Call sites:
MHATokenToKVPool._init_data_ptrs_and_strides / move_kv_cache (data_ptrs: uint64 base addresses of every layer's K
then V buffer (then any scale buffers); data_strides: int64 bytes per slot row) and _set_kv_buffer_impl
(store_cache_cpu, only with AMX). Raw bytes are copied: compared exactly."""

from __future__ import annotations

import pytest
import torch

ROWS = 24  # pool size + page_size; slot 0 is the padding slot


def _pool():
    """Three layers of K [rows, 2, 8] and V [rows, 2, 4] bf16 buffers plus a pair of fp32 [rows, 1, 3] scale-like
    buffers (12-byte rows), and one buffer that is not registered (must never change)."""
    k = [torch.randn(ROWS, 2, 8).to(torch.bfloat16) for _ in range(3)]
    v = [torch.randn(ROWS, 2, 4).to(torch.bfloat16) for _ in range(3)]
    scales = [torch.randn(ROWS, 1, 3) for _ in range(2)]
    bufs = [*k, *v, *scales]
    data_ptrs = torch.tensor([b.data_ptr() for b in bufs], dtype=torch.uint64)
    strides = torch.tensor([b.stride(0) * b.dtype.itemsize for b in bufs])
    assert strides.dtype == torch.int64
    bystander = torch.randn(ROWS, 2, 8).to(torch.bfloat16)
    return bufs, data_ptrs, strides, bystander


MOVES = {  # id: (tgt_loc, src_loc)
    "shift-down": ([4, 5, 6, 7], [5, 6, 7, 8]),
    "shift-up": ([5, 6, 7, 8], [4, 5, 6, 7]),
    "swap": ([9, 2], [2, 9]),
    "accept-compaction": ([10, 11, 12, 20, 21, 0, 0, 0], [10, 13, 15, 22, 23, 0, 0, 0]),
    "permutation-cycle": ([3, 17, 11, 5, 19], [17, 11, 5, 19, 3]),
}


@pytest.mark.parametrize("loc_dtype", [torch.int64, torch.int32])
@pytest.mark.parametrize("move", list(MOVES))
def test_copy_all_layer_kv_cache_moves_rows_of_every_buffer(sk, move, loc_dtype):
    bufs, data_ptrs, strides, bystander = _pool()
    tgt, src = MOVES[move]
    old = [b.clone() for b in bufs]
    old_bystander = bystander.clone()

    sk.copy_all_layer_kv_cache_cpu(data_ptrs, strides, torch.tensor(tgt, dtype=loc_dtype),
                                   torch.tensor(src, dtype=loc_dtype))

    for n, (got, was) in enumerate(zip(bufs, old)):
        want = was.clone()
        want[torch.tensor(tgt)] = was[torch.tensor(src)]
        assert torch.equal(got, want), f"buffer {n}"
    assert torch.equal(bystander, old_bystander)


def test_copy_all_layer_kv_cache_empty_is_a_no_op(sk):
    """cache_move.copy_all_layer_kv_cache_func passes tgt_loc[:num_locs]; num_locs may be 0."""
    bufs, data_ptrs, strides, _ = _pool()
    old = [b.clone() for b in bufs]
    empty = torch.zeros(0, dtype=torch.int64)
    sk.copy_all_layer_kv_cache_cpu(data_ptrs, strides, empty, empty)
    assert all(torch.equal(a, b) for a, b in zip(bufs, old))


def test_store_cache_cpu_is_not_stood_in_and_is_never_reached_without_amx(sk):
    """torch.ops.sgl_kernel.store_cache_cpu (k_cache[indices[i]] = k[i], kvcache.cpp) is called by SGLang 0.5.23 only
    when cpu_has_amx_support() (memory_pool._set_kv_buffer_impl), which needs sgl_kernel's convert_weight_packed: the
    stand-in defines neither, so that path is never taken, and were it taken it would fail loudly (no such op)."""
    import pytest
    from sglang.srt.utils.common import cpu_has_amx_support
    assert not cpu_has_amx_support()
    assert not hasattr(torch.ops.sgl_kernel, "convert_weight_packed")
    with pytest.raises(AttributeError):
        torch.ops.sgl_kernel.store_cache_cpu
