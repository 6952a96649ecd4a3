"""KV-slot book-keeping ops: which pool slots a request's tokens live in.

Semantics: sgl-kernel/csrc/cpu/spec.cpp (assign_req_to_token_pool_cpu, assign_extend_cache_locs_cpu,
assign_draft_cache_locs_contiguous_cpu, build_draft_decode_metadata_cpu); call sites in SGLang 0.5.23:
srt/mem_cache/allocation.py (assign_req_to_token_pool_func), kernels/ops/speculative/cache_locs.py
(assign_extend_cache_locs_func, fill_front_out_cache_loc_func, assign_draft_cache_locs_contiguous_func),
srt/layers/attention/intel_amx_backend.py (IntelAMXMultiStepDraftBackend.init_forward_metadata).
All results are integers: compared exactly."""

from __future__ import annotations

import pytest
import torch
from standin_refs import scattered_pool

MAX_REQS, POOL_LEN, SLOTS = 6, 40, 200


def _rows(values, dtype=torch.int64):
    return torch.tensor(values, dtype=dtype)


# --- assign_req_to_token_pool_cpu ------------------------------------------------------------------------------

@pytest.mark.parametrize("rpi_dtype,off_dtype", [(torch.int64, torch.int64), (torch.int32, torch.int32),
                                                 (torch.int64, torch.int32)],
                         ids=["i64", "i32", "i64-rows-i32-lens"])
def test_assign_req_to_token_pool_writes_each_requests_run(sk, rpi_dtype, off_dtype):
    """req_to_token[rpi[i], start[i]:end[i]] = the i-th consecutive run of out_cache_loc; nothing else changes.
    (spec decode allocates [seq_len, seq_len + reserve) per request; int64 rows with int32 lens also occur)."""
    table = scattered_pool([9, 4, 14, 2], [4, 0, 2, 5], MAX_REQS, POOL_LEN, SLOTS)
    before = table.clone()
    rpi = _rows([4, 0, 2, 5], rpi_dtype)
    start = _rows([9, 4, 14, 2], off_dtype)
    end = _rows([13, 4, 20, 9], off_dtype)  # request 1 allocates nothing
    out_cache_loc = torch.randperm(SLOTS)[:int((end - start).sum())].to(torch.int64)

    sk.assign_req_to_token_pool_cpu(rpi, table, start, end, out_cache_loc, table.shape[1])

    expect = before.clone()
    at = 0
    for r, s, e in zip(rpi.tolist(), start.tolist(), end.tolist()):
        for j in range(s, e):
            expect[r, j] = int(out_cache_loc[at])
            at += 1
    assert table.dtype == torch.int32
    assert torch.equal(table, expect)


# --- assign_extend_cache_locs_cpu ------------------------------------------------------------------------------

def test_assign_extend_cache_locs_gathers_ranges_in_batch_order(sk):
    """out[prefix_i : prefix_i + (end_i - start_i)] = req_to_token[rpi[i], start_i:end_i], prefix_i the sum of the
    earlier ranges (the verify window of each request: start = seq_lens, end = seq_lens + num_draft_tokens)."""
    lens = [12, 5, 20]
    table = scattered_pool(lens, [3, 5, 1], MAX_REQS, POOL_LEN, SLOTS)
    rpi = _rows([3, 5, 1])
    start = _rows([8, 0, 16])
    end = _rows([12, 4, 20])
    out = torch.full((12,), -7, dtype=torch.int64)

    sk.assign_extend_cache_locs_cpu(rpi, table, start, end, out, table.shape[1])

    expect = torch.cat([table[r, s:e].to(torch.int64) for r, s, e in zip([3, 5, 1], [8, 0, 16], [12, 4, 20])])
    assert torch.equal(out, expect)


def test_assign_extend_cache_locs_uneven_ranges_and_short_output(sk):
    """Uneven and empty ranges pack back to back; an output longer than the total keeps its tail untouched
    (fill_front_out_cache_loc_func's shape: int32 offsets, an int32 window as req_to_token, int64 row ids)."""
    bs, width = 3, 6
    window = torch.randperm(SLOTS)[:bs * width].to(torch.int64)  # batch.out_cache_loc, [bs * width]
    num_front = _rows([3, 1, 6], torch.int32)  # num_correct_drafts + 1
    rows = torch.arange(bs)
    starts = torch.zeros_like(num_front)
    front = torch.full((bs * width,), -7, dtype=torch.int64)  # SGLang passes zeros; -7 shows what is written

    sk.assign_extend_cache_locs_cpu(rows, window.view(bs, width).int(), starts, num_front, front, width)

    w = window.view(bs, width)
    packed = torch.cat([w[0, :3], w[1, :1], w[2, :6]])
    assert torch.equal(front[:10], packed)
    assert torch.equal(front[10:], torch.full((bs * width - 10,), -7)), "tail beyond the runs written"


def test_assign_extend_cache_locs_zero_length_range(sk):
    table = scattered_pool([6, 6], [0, 1], MAX_REQS, POOL_LEN, SLOTS)
    out = torch.full((3,), -7, dtype=torch.int64)
    sk.assign_extend_cache_locs_cpu(_rows([0, 1]), table, _rows([6, 2]), _rows([6, 5]), out, table.shape[1])
    assert torch.equal(out, table[1, 2:5].to(torch.int64))


# --- assign_draft_cache_locs_contiguous_cpu --------------------------------------------------------------------

@pytest.mark.parametrize("topk,num_steps", [(1, 3), (4, 2)], ids=["chain", "tree"])
@pytest.mark.parametrize("lens_dtype", [torch.int64, torch.int32])
def test_assign_draft_cache_locs_contiguous_reads_reserved_draft_slots(sk, topk, num_steps, lens_dtype):
    """out[b*topk*num_steps : (b+1)*topk*num_steps] = req_to_token[rpi[b], seq_lens[b] : + topk*num_steps]: the
    slots reserved for the draft branches right after the committed tokens (page_size 1 / topk 1 layout)."""
    seq_lens = [5, 0, 17]
    copy_len = topk * num_steps
    table = scattered_pool([s + copy_len for s in seq_lens], [4, 0, 2], MAX_REQS, POOL_LEN, SLOTS)
    rpi = _rows([4, 0, 2])
    out = torch.full((3 * copy_len,), -7, dtype=torch.int64)

    sk.assign_draft_cache_locs_contiguous_cpu(rpi, table, _rows(seq_lens, lens_dtype), out, table.shape[1], topk,
                                              num_steps)

    expect = torch.cat([table[r, s:s + copy_len].to(torch.int64) for r, s in zip([4, 0, 2], seq_lens)])
    assert torch.equal(out, expect)


# --- build_draft_decode_metadata_cpu ---------------------------------------------------------------------------

@pytest.mark.parametrize("topk,num_steps", [(1, 3), (3, 4)], ids=["chain", "tree"])
@pytest.mark.parametrize("lens_dtype", [torch.int64, torch.int32])
def test_build_draft_decode_metadata_expands_one_row_per_branch(sk, topk, num_steps, lens_dtype):
    """Returns a fresh [num_seqs * topk, pool_len] table of req_to_token's dtype; row b*topk + tk holds request b's
    committed prefix followed by branch tk's draft slots (source positions sl + tk*num_steps + s). Only the first
    seq_lens[b] + num_steps entries of a row are defined; the source table is not modified."""
    seq_lens = [6, 11]
    rows = [3, 1]
    table = scattered_pool([s + topk * num_steps for s in seq_lens], rows, MAX_REQS, POOL_LEN, SLOTS)
    before = table.clone()

    got = sk.build_draft_decode_metadata_cpu(table, _rows(rows), _rows(seq_lens, lens_dtype), topk, num_steps,
                                             table.shape[1])

    assert got.shape == (len(seq_lens) * topk, POOL_LEN) and got.dtype == torch.int32
    assert torch.equal(table, before)
    for b, (r, sl) in enumerate(zip(rows, seq_lens)):
        for tk in range(topk):
            want = torch.cat([table[r, :sl], table[r, sl + tk * num_steps: sl + (tk + 1) * num_steps]])
            assert torch.equal(got[b * topk + tk, :sl + num_steps], want), (b, tk)
