"""Book-keeping ops of SGLang's CPU engine and its speculative path: where each request's KV rows live.

Semantics: sgl-kernel's CPU ops (`csrc/cpu/spec.cpp`) as SGLang 0.5.23 calls them (`sglang/srt/mem_cache/allocation.py`,
`sglang/kernels/ops/speculative/{cache_locs,eagle,multi_layer_eagle}.py`, `srt/layers/attention/intel_amx_backend.py`);
the dtype checks are the real op's, so a caller that would make the real kernel refuse fails here too.
"""

from __future__ import annotations

import torch

from sgl_kernel._inject import injectable


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise RuntimeError(f"sgl_kernel stand-in: {what}")


def _runs(start: torch.Tensor, end: torch.Tensor) -> list[tuple[int, int, int]]:
    """(start, end, offset into the packed vector) per request: the exclusive prefix sum of end - start."""
    out, off = [], 0
    for s, e in zip(start.tolist(), end.tolist(), strict=True):
        out.append((s, e, off))
        off += e - s
    return out


@injectable
def assign_req_to_token_pool_cpu(req_pool_indices, req_to_token, start_offset, end_offset, out_cache_loc,
                                 pool_len=None):
    """req_to_token[req_pool_indices[i], start[i]:end[i]] = the i-th run of out_cache_loc (runs packed in order)."""
    _check(req_to_token.dtype == torch.int32, "assign_req_to_token_pool_cpu: req_to_token must be int32")
    _check(out_cache_loc.dtype == torch.int64, "assign_req_to_token_pool_cpu: out_cache_loc must be int64")
    _check(start_offset.dtype == end_offset.dtype, "assign_req_to_token_pool_cpu: start/end dtypes differ")
    for r, (s, e, off) in zip(req_pool_indices.tolist(), _runs(start_offset, end_offset), strict=True):
        if e > s:
            req_to_token[r, s:e] = out_cache_loc[off:off + e - s].to(torch.int32)


@injectable
def assign_extend_cache_locs_cpu(req_pool_indices, req_to_token, start_offset, end_offset, out_cache_loc, pool_len):
    """The inverse gather: out_cache_loc's i-th run = req_to_token[req_pool_indices[i], start[i]:end[i]] (int64)."""
    _check(req_to_token.dtype == torch.int32, "assign_extend_cache_locs_cpu: req_to_token must be int32")
    _check(out_cache_loc.dtype == torch.int64, "assign_extend_cache_locs_cpu: out_cache_loc must be int64")
    _check(start_offset.dtype == end_offset.dtype, "assign_extend_cache_locs_cpu: start/end dtypes differ")
    for r, (s, e, off) in zip(req_pool_indices.tolist(), _runs(start_offset, end_offset), strict=True):
        if e > s:
            out_cache_loc[off:off + e - s] = req_to_token[r, s:e].to(torch.int64)


@injectable
def assign_draft_cache_locs_contiguous_cpu(req_pool_indices, req_to_token, seq_lens, out_cache_loc, pool_len, topk,
                                           num_steps):
    """The draft slots the allocator reserved: out_cache_loc[i*topk*steps : (i+1)*topk*steps] =
    req_to_token[req_pool_indices[i], seq_lens[i] : seq_lens[i] + topk*steps]."""
    _check(req_to_token.dtype == torch.int32, "assign_draft_cache_locs_contiguous_cpu: req_to_token must be int32")
    _check(out_cache_loc.dtype == torch.int64, "assign_draft_cache_locs_contiguous_cpu: out_cache_loc must be int64")
    n = int(topk) * int(num_steps)
    _check(out_cache_loc.numel() == req_pool_indices.numel() * n,
           "assign_draft_cache_locs_contiguous_cpu: out_cache_loc must hold bs * topk * num_steps slots")
    for i, (r, s) in enumerate(zip(req_pool_indices.tolist(), seq_lens.tolist(), strict=True)):
        out_cache_loc[i * n:(i + 1) * n] = req_to_token[r, s:s + n].to(torch.int64)


@injectable
def build_draft_decode_metadata_cpu(req_to_token, req_pool_indices, seq_lens, topk, num_steps, pool_len):
    """A req_to_token for multi-step draft decode: row b*topk + k holds request b's committed prefix, then
    candidate k's draft slots (laid out at seq_len + k*num_steps). Only the first seq_len + num_steps entries of a
    row are defined (the rest are zero here)."""
    _check(req_to_token.dtype == torch.int32, "build_draft_decode_metadata_cpu: req_to_token must be int32")
    topk, num_steps, pool_len = int(topk), int(num_steps), int(pool_len)
    rows = req_pool_indices.tolist()
    out = torch.zeros((len(rows) * topk, pool_len), dtype=torch.int32)
    for b, (r, sl) in enumerate(zip(rows, seq_lens.tolist(), strict=True)):
        for k in range(topk):
            dst = out[b * topk + k]
            dst[:sl] = req_to_token[r, :sl]
            start = sl + k * num_steps
            dst[sl:sl + num_steps] = req_to_token[r, start:start + num_steps]
    return out


@injectable
def fill_bonus_tokens_cpu(accept_tokens, accept_lens, bonus_tokens, accept_stride):
    """bonus_tokens[i] = the last accepted token of request i: accept_tokens.flat[stride*i + accept_lens[i] - 1]."""
    for t, name in ((accept_tokens, "accept_tokens"), (accept_lens, "accept_lens"), (bonus_tokens, "bonus_tokens")):
        _check(t.dtype == torch.int32, f"fill_bonus_tokens_cpu: {name} must be int32")
    flat = accept_tokens.reshape(-1)
    lens = accept_lens.tolist()
    idx = torch.tensor([int(accept_stride) * i + n - 1 for i, n in enumerate(lens)], dtype=torch.int64)
    bonus_tokens[:len(lens)] = flat[idx]


@injectable
def fill_accept_out_cache_loc_cpu(accept_index, out_cache_loc, accept_out_cache_loc, size=None):
    """Compact the accepted tokens' KV slots: accept_out_cache_loc[k] = out_cache_loc[j_k] for the accepted flat
    indices j_0 < j_1 < … of accept_index (rejected entries are -1), in order."""
    _check(out_cache_loc.dtype == torch.int64, "fill_accept_out_cache_loc_cpu: out_cache_loc must be int64")
    _check(accept_out_cache_loc.dtype == torch.int64,
           "fill_accept_out_cache_loc_cpu: accept_out_cache_loc must be int64")
    flat = accept_index.reshape(-1)
    if size is not None:
        flat = flat[:int(size)]
    src = flat[flat > -1].to(torch.int64)
    accept_out_cache_loc[:src.numel()] = out_cache_loc[src]


@injectable
def rotate_input_ids_cpu(input_ids, extend_start_loc, extend_seq_lens, topk_index, select_index=None):
    """Each request's extend segment shifted left by one token, the new draft token written at its end (or at
    select_index[i] when given); in place."""
    _check(input_ids.dtype == torch.int64, "rotate_input_ids_cpu: input_ids must be int64")
    _check(topk_index.dtype == torch.int64, "rotate_input_ids_cpu: topk_index must be int64")
    news = topk_index.reshape(-1).tolist()
    sel = select_index.reshape(-1).tolist() if select_index is not None else None
    for i, (start, n) in enumerate(zip(extend_start_loc.tolist(), extend_seq_lens.tolist(), strict=True)):
        if n > 1:
            input_ids[start:start + n - 1] = input_ids[start + 1:start + n].clone()
        if n > 0:
            input_ids[sel[i] if sel is not None else start + n - 1] = news[i]
