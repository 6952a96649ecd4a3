"""The stand-in ops reached through SGLang 0.5.23's own CPU wrappers, exactly as its speculative path calls them
(argument order, keywords, dtypes the wrappers build): sglang.kernels.ops.speculative.{cache_locs, eagle,
spec_tree}, sglang.srt.mem_cache.allocation, sglang.srt.speculative.eagle_utils (organize_draft_results,
build_tree_kernel_efficient) and sglang.kernels.ops.kvcache.cache_move. The per-op modules check the semantics in
detail; these check that the real callers and the stand-in agree on the calling convention. References as there;
integer results compared exactly."""

from __future__ import annotations

import importlib

import pytest
import torch
from standin_refs import (
    parents_from_selection,
    scattered_pool,
    tree_reference,
    verify_greedy_reference,
)

#: every module of the CPU speculative path that imports sgl_kernel names at module level
SPEC_MODULES = [
    "sglang.kernels.ops.speculative.cache_locs",
    "sglang.kernels.ops.speculative.eagle",
    "sglang.kernels.ops.speculative.spec_tree",
    "sglang.kernels.ops.speculative.multi_layer_eagle",
    "sglang.kernels.ops.speculative.reconstruct_tree",
    "sglang.kernels.ops.kvcache.cache_move",
    "sglang.srt.mem_cache.allocation",
    "sglang.srt.speculative.eagle_utils",
    "sglang.srt.speculative.ngram_worker",
    "sglang.srt.layers.attention.intel_amx_backend",
]


@pytest.mark.parametrize("module", SPEC_MODULES)
def test_spec_modules_import_with_the_standin(sk, module):
    """`from sgl_kernel import X` at module level must succeed for every X (a missing op fails when called)."""
    importlib.import_module(module)


def test_cache_locs_wrappers(sk):
    from sglang.kernels.ops.speculative import cache_locs

    bs, ndt, topk, steps = 3, 4, 2, 3
    seq_lens = torch.tensor([5, 9, 2], dtype=torch.int64)
    rows = torch.tensor([2, 0, 4], dtype=torch.int64)
    reserve = topk * steps
    rtt = scattered_pool([int(s) + max(ndt, reserve) for s in seq_lens], rows.tolist(), 6, 32, 120)

    # target verify window (ngram_worker / eagle_utils on CPU)
    got = cache_locs.assign_extend_cache_locs_func(rows, rtt, seq_lens, seq_lens + ndt, bs, ndt, "cpu")
    want = torch.cat([rtt[r, s:s + ndt].long() for r, s in zip(rows.tolist(), seq_lens.tolist())])
    assert torch.equal(got, want)

    positions = torch.empty(bs, ndt, dtype=torch.int64)
    got = cache_locs.assign_extend_cache_locs_uniform_func(rows, rtt, seq_lens, bs, ndt, "cpu",
                                                           positions_out=positions)
    assert torch.equal(got, want)
    assert torch.equal(positions, seq_lens[:, None] + torch.arange(ndt))

    # draft slots (eagle_worker_common: num_cols = num_steps on CPU)
    out = torch.empty(bs * topk * steps, dtype=torch.int64)
    cache_locs.assign_draft_cache_locs_contiguous_func(rows, rtt, seq_lens, out, topk, steps)
    assert torch.equal(out, torch.cat([rtt[r, s:s + reserve].long() for r, s in zip(rows.tolist(),
                                                                                   seq_lens.tolist())]))

    # accepted-prefix targets (spec_utils.move_accept_tokens): int32 counts, tail stays 0
    window = torch.randperm(500)[:bs * ndt].long() + 1
    num_front = torch.tensor([1, 4, 2], dtype=torch.int32)
    front = torch.zeros(bs * ndt, dtype=torch.int64)
    cache_locs.fill_front_out_cache_loc_func(num_front, window, front)
    w = window.view(bs, ndt)
    assert torch.equal(front, torch.cat([w[0, :1], w[1, :4], w[2, :2], torch.zeros(5, dtype=torch.int64)]))


def test_assign_req_to_token_pool_wrapper(sk):
    from sglang.srt.mem_cache.allocation import assign_req_to_token_pool_func

    rtt = scattered_pool([4, 6], [1, 3], 5, 16, 64)
    before = rtt.clone()
    rows = torch.tensor([1, 3])
    cur = torch.tensor([4, 6])
    nxt = torch.tensor([7, 8])
    locs = torch.tensor([41, 42, 43, 50, 51], dtype=torch.int64)
    assign_req_to_token_pool_func(rows, rtt, cur, nxt, locs, 2)
    before[1, 4:7] = torch.tensor([41, 42, 43], dtype=torch.int32)
    before[3, 6:8] = torch.tensor([50, 51], dtype=torch.int32)
    assert torch.equal(rtt, before)


def test_eagle_fill_wrappers(sk):
    from sglang.kernels.ops.speculative import eagle

    bs, steps, ndt = 2, 4, 6
    predict = torch.randint(0, 1000, (bs * ndt,), dtype=torch.int32)
    accept_index = torch.tensor([[0, 2, 5, -1], [6, -1, -1, -1]], dtype=torch.int32)
    accept_lens = torch.tensor([3, 1], dtype=torch.int32)  # num_correct_drafts + 1
    accept_tokens = predict[accept_index]
    bonus = torch.empty_like(accept_lens, dtype=torch.int32)
    eagle.fill_bonus_tokens_func(accept_tokens, accept_lens, bonus, accept_index.shape[1], bs)
    assert bonus.tolist() == [int(predict[5]), int(predict[6])]

    out_cache_loc = torch.randperm(300)[:bs * ndt].long() + 1
    accept_out = torch.zeros(bs * steps, dtype=torch.int64)
    eagle.fill_accept_out_cache_loc_func(accept_index, out_cache_loc, accept_out, bs * steps)
    assert accept_out.tolist() == [int(out_cache_loc[i]) for i in (0, 2, 5, 6)] + [0] * 4


def _draft_lists(bs, topk, num_steps, vocab=50):
    """score_list / token_list / parents_list in the layout select_top_k_tokens produces (spec_utils)."""
    scores = torch.rand(bs, topk, dtype=torch.float32) * 0.9 + 0.05
    score_list = [scores.unsqueeze(1)]
    token_list = [torch.randint(0, vocab, (bs, topk))]
    parents_list = [torch.arange(-1, topk).expand(bs, -1)]
    cum = scores
    for i in range(1, num_steps):
        expand = cum.unsqueeze(2) * (torch.rand(bs, topk, topk) * 0.9 + 0.05)
        cum, idx = torch.topk(expand.flatten(1), topk, dim=-1)
        score_list.append(expand)
        token_list.append(torch.randint(0, vocab, (bs, topk * topk)))
        parents_list.append(idx + (topk * topk * (i - 1) + topk))
    return score_list, token_list, parents_list


@pytest.mark.parametrize("mode", ["QLEN_ONLY", "FULL_MASK"])
def test_eagle_utils_build_tree_and_verify(sk, mode):
    """organize_draft_results -> build_tree_kernel_efficient (as EagleWorkerV2's draft tail calls it) ->
    verify_tree_greedy_func (keyword call, int32 outputs), checked against the references."""
    from sglang.kernels.ops.speculative.spec_tree import (
        TreeMaskMode,
        verify_tree_greedy_func,
    )
    from sglang.srt.speculative.eagle_utils import (
        build_tree_kernel_efficient,
        organize_draft_results,
    )

    bs, topk, num_steps, ndt = 2, 4, 3, 8
    seq_lens = torch.tensor([9, 4], dtype=torch.int64)
    parent_list, top_scores_index, draft_tokens = organize_draft_results(*_draft_lists(bs, topk, num_steps), ndt)
    bonus = torch.tensor([7, 8], dtype=torch.int32)
    tree_mask, positions, ri, nt, ns, flat_tokens = build_tree_kernel_efficient(
        bonus, parent_list, top_scores_index, draft_tokens, seq_lens, int(seq_lens.sum()), topk, num_steps, ndt,
        TreeMaskMode[mode])

    at = 0
    for b in range(bs):
        parents = parents_from_selection(parent_list[b].tolist(), top_scores_index[b].tolist(), topk)
        ref = tree_reference(parents, b)
        assert (ri[b].tolist(), nt[b].tolist(), ns[b].tolist()) == (ref.retrieve_index, ref.next_token,
                                                                    ref.next_sibling)
        assert positions[b * ndt:(b + 1) * ndt].tolist() == [int(seq_lens[b]) + d for d in ref.depth]
        sl = int(seq_lens[b]) if mode == "FULL_MASK" else 0
        rows = tree_mask[at:at + ndt * (sl + ndt)].view(ndt, sl + ndt)
        assert rows[:, :sl].all() and torch.equal(rows[:, sl:], torch.tensor(ref.mask))
        at += ndt * (sl + ndt)

    candidates = flat_tokens.reshape(bs, ndt)
    target = candidates.clone().roll(-1, dims=1)  # the target agrees with some drafts (greedy path on CPU)
    predict = torch.zeros(bs * ndt, dtype=torch.int32)
    accept_index = torch.full((bs, num_steps + 1), -1, dtype=torch.int32)
    num_correct = torch.empty((bs,), dtype=torch.int32)
    predict, accept_index, num_correct = verify_tree_greedy_func(
        predicts=predict, accept_index=accept_index, accept_token_num=num_correct, candidates=candidates,
        retrieve_index=ri, retrieve_next_token=nt, retrieve_next_sibling=ns, target_predict=target, topk=topk)
    want = verify_greedy_reference(candidates, ri, nt, ns, target, num_steps + 1,
                                   torch.zeros(bs * ndt, dtype=torch.int32))
    for g, w, name in zip((predict, accept_index, num_correct), want, ["predict", "accept_index", "num_correct"]):
        assert torch.equal(g, w), name


def test_cache_move_wrapper_uses_only_num_locs(sk):
    """copy_all_layer_kv_cache_func hands the CPU op tgt_loc[:num_locs] / src_loc[:num_locs]; entries past
    num_locs (the Triton path's padding) must not be copied."""
    from sglang.kernels.ops.kvcache.cache_move import copy_all_layer_kv_cache_func

    bufs = [torch.randn(16, 2, 8).to(torch.bfloat16) for _ in range(4)]
    data_ptrs = torch.tensor([b.data_ptr() for b in bufs], dtype=torch.uint64)
    strides = torch.tensor([b.stride(0) * b.dtype.itemsize for b in bufs])
    old = [b.clone() for b in bufs]
    tgt = torch.tensor([3, 4, 5, 9, 9], dtype=torch.int64)
    src = torch.tensor([4, 5, 6, 1, 2], dtype=torch.int64)
    copy_all_layer_kv_cache_func(data_ptrs, strides, tgt, src, 3, 4, {})
    for got, was in zip(bufs, old):
        want = was.clone()
        want[torch.tensor([3, 4, 5])] = was[torch.tensor([4, 5, 6])]
        assert torch.equal(got, want)



def test_ngram_and_mtp_wrappers(sk):
    """NgramWorker's reconstruct_indices_from_tree_mask_func and multi-layer EAGLE's rotate_input_ids (CPU
    branches)."""
    from sglang.kernels.ops.speculative.multi_layer_eagle import rotate_input_ids
    from sglang.kernels.ops.speculative.reconstruct_tree import (
        reconstruct_indices_from_tree_mask_func,
    )

    bs, n = 2, 6
    parents = [[-1, 0, 0, 1, 1, 2], [-1, 0, 1, 2, 3, 4]]
    refs = [tree_reference(p, b) for b, p in enumerate(parents)]
    mask = torch.tensor([r.mask for r in refs], dtype=torch.bool).flatten()
    seq_lens = torch.tensor([5, 8])
    positions = torch.empty(bs * n, dtype=torch.int64)
    ri, nt, ns = (torch.empty(bs, n, dtype=torch.int64) for _ in range(3))
    reconstruct_indices_from_tree_mask_func(mask, seq_lens, positions, ri, nt, ns, bs, n)
    for b, ref in enumerate(refs):
        assert (ri[b].tolist(), nt[b].tolist(), ns[b].tolist()) == (ref.retrieve_index, ref.next_token,
                                                                    ref.next_sibling)
        assert positions[b * n:(b + 1) * n].tolist() == [int(seq_lens[b]) + d for d in ref.depth]

    ids = torch.arange(10, 17, dtype=torch.int64)
    out = rotate_input_ids(ids, torch.tensor([0, 4], dtype=torch.int32), torch.tensor([4, 3], dtype=torch.int32),
                           torch.tensor([[90], [91]], dtype=torch.int64))
    assert out is ids and ids.tolist() == [11, 12, 13, 90, 15, 16, 91]
