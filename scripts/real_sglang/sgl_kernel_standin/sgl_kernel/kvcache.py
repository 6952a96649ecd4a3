"""Moving KV rows inside the pool: `copy_all_layer_kv_cache_cpu`.

Semantics: sgl-kernel's CPU op as SGLang 0.5.23 calls it (`sglang/kernels/ops/kvcache/cache_move.py:
copy_all_layer_kv_cache_func`, from `MHATokenToKVPool.move_kv_cache` and its warm-up): for every buffer b (each
layer's K and V), whose rows start at the raw address data_ptrs[b] and are strides[b] bytes apart, row tgt_loc[i]
takes the bytes of row src_loc[i]. All sources are read before any target is written, so overlapping sets copy as
the tiled Triton kernel does (a gather, then a scatter).
"""

from __future__ import annotations

import ctypes

import torch

from sgl_kernel._inject import injectable


@injectable
def copy_all_layer_kv_cache_cpu(data_ptrs, strides, tgt_loc, src_loc):
    if tgt_loc.numel() != src_loc.numel():
        raise RuntimeError("sgl_kernel stand-in: copy_all_layer_kv_cache_cpu: tgt_loc and src_loc differ in length")
    if tgt_loc.numel() == 0:
        return
    tgt = tgt_loc.to(torch.int64)
    src = src_loc.to(torch.int64)
    rows = int(max(int(tgt.max()), int(src.max()))) + 1
    for ptr, stride in zip(data_ptrs.tolist(), strides.tolist(), strict=True):
        # a byte view of the buffer's first `rows` rows, over the memory the pool owns (no copy)
        raw = (ctypes.c_uint8 * (rows * int(stride))).from_address(int(ptr))
        view = torch.frombuffer(raw, dtype=torch.uint8).view(rows, int(stride))
        view[tgt] = view[src]  # advanced indexing gathers the sources into a new tensor first
