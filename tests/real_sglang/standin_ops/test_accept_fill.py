"""Post-verify compaction ops: the accepted tokens' KV slots and each request's bonus token.

Semantics: sgl-kernel/csrc/cpu/spec.cpp (fill_accept_out_cache_loc_cpu, fill_bonus_tokens_cpu) and the Triton
kernels they replace, kernels/ops/speculative/eagle.py (fill_accept_out_cache_loc, fill_bonus_tokens); SGLang
0.5.23 calls them from fill_accept_out_cache_loc_func (3 arguments: size is accept_index's element count) and
fill_bonus_tokens_func. Integer results: compared exactly."""

from __future__ import annotations

import pytest
import torch


def _accept_index(bs: int, steps: int, num_draft_tokens: int, accepted: list[int]) -> torch.Tensor:
    """[bs, steps] int32 flat draft indices, -1 padded: request b accepted `accepted[b]` nodes of its tree (root
    first, then increasing node numbers drawn at random), as verify_tree_greedy leaves it."""
    out = torch.full((bs, steps), -1, dtype=torch.int32)
    for b, n in enumerate(accepted):
        nodes = [0] + sorted(torch.randperm(num_draft_tokens - 1)[:n - 1].add(1).tolist())
        out[b, :n] = torch.tensor(nodes, dtype=torch.int32) + b * num_draft_tokens
    return out


@pytest.mark.parametrize("accepted", [[2, 4, 1], [4, 4, 4], [1, 1, 1]], ids=["mixed", "all", "none"])
def test_fill_accept_out_cache_loc_compacts_accepted_slots(sk, accepted):
    """accept_out[k] = out_cache_loc[the k-th non-negative entry of accept_index (row-major)]; entries past the
    number accepted keep their value (move_kv_cache then copies slot 0 onto itself for them)."""
    bs, steps, ndt = 3, 4, 8
    accept_index = _accept_index(bs, steps, ndt, accepted)
    out_cache_loc = torch.randperm(500)[:bs * ndt].to(torch.int64) + 1
    accept_out = torch.zeros(bs * steps, dtype=torch.int64)

    sk.fill_accept_out_cache_loc_cpu(accept_index, out_cache_loc, accept_out)

    flat = [i for i in accept_index.flatten().tolist() if i >= 0]
    expect = torch.zeros(bs * steps, dtype=torch.int64)
    expect[:len(flat)] = out_cache_loc[torch.tensor(flat, dtype=torch.int64)]
    assert torch.equal(accept_out, expect)


def test_fill_accept_out_cache_loc_holes_inside_rows(sk):
    """A -1 in the middle of the flat index (any row end) is skipped, not copied and not counted."""
    accept_index = torch.tensor([[0, -1, 3], [-1, -1, -1], [6, 7, -1]], dtype=torch.int32)
    out_cache_loc = torch.arange(100, 109, dtype=torch.int64)
    accept_out = torch.full((9,), -5, dtype=torch.int64)
    sk.fill_accept_out_cache_loc_cpu(accept_index, out_cache_loc, accept_out)
    assert accept_out.tolist() == [100, 103, 106, 107, -5, -5, -5, -5, -5]


def test_fill_bonus_tokens_picks_last_accepted_token(sk):
    """bonus[b] = accept_tokens[b, accept_lens[b] - 1], accept_tokens read as a flat buffer with row stride
    `accept_stride` (= accept_index.shape[1], not num_draft_tokens)."""
    bs, stride = 4, 5
    accept_tokens = torch.randint(0, 32000, (bs, stride), dtype=torch.int32)
    accept_lens = torch.tensor([1, 5, 3, 2], dtype=torch.int32)
    bonus = torch.full((bs,), -1, dtype=torch.int32)

    sk.fill_bonus_tokens_cpu(accept_tokens, accept_lens, bonus, stride)

    assert bonus.tolist() == [int(accept_tokens[b, int(accept_lens[b]) - 1]) for b in range(bs)]

