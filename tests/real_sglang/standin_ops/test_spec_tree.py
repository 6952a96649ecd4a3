"""Draft-tree ops: building the verify tree (mask, positions, retrieve linkage) and greedy verification.

Semantics: sgl-kernel/csrc/cpu/spec.cpp (build_tree_kernel_efficient_cpu, verify_tree_greedy_cpu) and the Triton
twins in SGLang 0.5.23's kernels/ops/speculative/spec_tree.py (sgl_build_tree_kernel_efficient_triton,
verify_tree_greedy_kernel_triton), and reconstruct_indices_from_tree_mask_cpu (NGRAM; SGLang imports it as
sgl_kernel.speculative.reconstruct_indices_from_tree_mask, contract in kernels/ops/speculative/reconstruct_tree.py);
argument shapes/dtypes as srt/speculative/eagle_utils.py builds them
(build_tree_kernel_efficient, verify): int64 tree inputs, retrieve_* pre-filled with -1, int32 predict /
accept_index / accept_token_num, verify called with keyword arguments (`retrive_*`). On CPU the tree mask mode is
QLEN_ONLY (default_tree_mask_mode); FULL_MASK is the GPU layout. References: standin_refs.tree_reference /
verify_greedy_reference. Integer and bool results: compared exactly."""

from __future__ import annotations

import pytest
import torch
from standin_refs import (
    DraftTree,
    chain_parents,
    eagle_draft_tree,
    random_tree_parents,
    tree_reference,
    verify_greedy_reference,
)

FULL_MASK, QLEN_ONLY, QLEN_ONLY_BITPACKING = 0, 1, 2

CASES = {  # id: (bs, topk, num_steps, num_draft_tokens, seq_lens)
    "chain-topk1": (2, 1, 3, 4, [7, 12]),
    "tree-topk2": (2, 2, 4, 6, [5, 1]),
    "tree-topk4": (3, 4, 3, 8, [9, 3, 21]),
}


def _run_build(sk, tree: DraftTree, seq_lens, topk, num_steps, ndt, mode, mask):
    bs = len(seq_lens)
    positions = torch.full((bs * ndt,), -99, dtype=torch.int64)  # torch.empty in SGLang
    retrieve_index, next_token, next_sibling = torch.full((3, bs, ndt), -1, dtype=torch.int64)
    sk.build_tree_kernel_efficient_cpu(tree.parent_list, tree.selected, torch.tensor(seq_lens, dtype=torch.int64),
                                       mask, positions, retrieve_index, next_token, next_sibling, topk, num_steps,
                                       ndt, mode)
    return positions, retrieve_index, next_token, next_sibling


def _check_linkage(tree, seq_lens, ndt, positions, retrieve_index, next_token, next_sibling):
    for b, sl in enumerate(seq_lens):
        ref = tree_reference(tree.parents[b], b)
        assert retrieve_index[b].tolist() == ref.retrieve_index, f"retrieve_index, request {b}"
        assert next_token[b].tolist() == ref.next_token, f"retrieve_next_token, request {b}"
        assert next_sibling[b].tolist() == ref.next_sibling, f"retrieve_next_sibling, request {b}"
        assert positions[b * ndt:(b + 1) * ndt].tolist() == [sl + d for d in ref.depth], f"positions, request {b}"


@pytest.mark.parametrize("case", list(CASES))
def test_build_tree_qlen_only(sk, case):
    """QLEN_ONLY: mask [bs * n * n], row i of request b = node i sees the root, itself and its ancestors (every
    cell written; SGLang pre-fills it with True); positions = seq_len + depth; retrieve_index[b, i] = b*n + i;
    next_token = lowest-numbered child; next_sibling = next higher-numbered node with the same parent."""
    bs, topk, num_steps, ndt, seq_lens = CASES[case]
    tree = eagle_draft_tree(bs, topk, num_steps, ndt)
    if topk > 1:
        assert any(p.count(0) > 1 for p in tree.parents), "random tree did not branch: pick another seed"
    mask = torch.randint(0, 2, (bs * ndt * ndt,), dtype=torch.bool)  # whatever is there must be overwritten

    out = _run_build(sk, tree, seq_lens, topk, num_steps, ndt, QLEN_ONLY, mask)

    _check_linkage(tree, seq_lens, ndt, *out)
    want = torch.tensor([tree_reference(p, b).mask for b, p in enumerate(tree.parents)], dtype=torch.bool)
    assert torch.equal(mask.view(bs, ndt, ndt), want)
    if topk == 1:
        assert torch.equal(want[0], torch.ones(ndt, ndt, dtype=torch.bool).tril())


@pytest.mark.parametrize("case", list(CASES))
def test_build_tree_full_mask(sk, case):
    """FULL_MASK: request b owns n rows of (seq_len_b + n) cells, starting at sum_{b'<b} n*(seq_len_b' + n); the
    kernel writes the n tree columns of each row and leaves the seq_len prefix columns as the caller filled them."""
    bs, topk, num_steps, ndt, seq_lens = CASES[case]
    tree = eagle_draft_tree(bs, topk, num_steps, ndt)
    total = sum(seq_lens) * ndt + bs * ndt * ndt
    mask = torch.randint(0, 2, (total,), dtype=torch.bool)
    before = mask.clone()

    out = _run_build(sk, tree, seq_lens, topk, num_steps, ndt, FULL_MASK, mask)

    _check_linkage(tree, seq_lens, ndt, *out)
    at = 0
    for b, sl in enumerate(seq_lens):
        got = mask[at:at + ndt * (sl + ndt)].view(ndt, sl + ndt)
        was = before[at:at + ndt * (sl + ndt)].view(ndt, sl + ndt)
        assert torch.equal(got[:, :sl], was[:, :sl]), f"prefix columns of request {b} were touched"
        assert torch.equal(got[:, sl:], torch.tensor(tree_reference(tree.parents[b], b).mask)), f"request {b}"
        at += ndt * (sl + ndt)


def test_build_tree_bitpacking_rejected_or_packed(sk):
    """QLEN_ONLY_BITPACKING has no CPU producer: the C++ kernel rejects it (TORCH_CHECK -> RuntimeError). A stand-in
    may instead implement the CUDA layout (one uint8 per row for n <= 8, bit j = node j visible); anything else is
    wrong. The op must work for QLEN_ONLY first, so a missing op does not pass this test."""
    bs, topk, num_steps, ndt, seq_lens = CASES["tree-topk4"]
    tree = eagle_draft_tree(bs, topk, num_steps, ndt)
    _run_build(sk, tree, seq_lens, topk, num_steps, ndt, QLEN_ONLY, torch.ones(bs * ndt * ndt, dtype=torch.bool))
    packed = torch.zeros(bs * ndt, dtype=torch.uint8)
    try:
        out = _run_build(sk, tree, seq_lens, topk, num_steps, ndt, QLEN_ONLY_BITPACKING, packed)
    except RuntimeError:
        return
    _check_linkage(tree, seq_lens, ndt, *out)
    want = [sum(1 << j for j, on in enumerate(row) if on)
            for b, p in enumerate(tree.parents) for row in tree_reference(p, b).mask]
    assert packed.tolist() == want


# --- verify_tree_greedy_cpu ------------------------------------------------------------------------------------

def _verify(sk, candidates, ri, nt, ns, target, steps):
    bs, ndt = candidates.shape
    predicts = torch.zeros(bs * ndt, dtype=torch.int32)
    accept_index = torch.full((bs, steps), -1, dtype=torch.int32)
    accept_num = torch.full((bs,), -9, dtype=torch.int32)  # torch.empty in SGLang
    sk.verify_tree_greedy_cpu(predicts=predicts, accept_index=accept_index, accept_token_num=accept_num,
                              candidates=candidates, retrive_index=ri, retrive_next_token=nt,
                              retrive_next_sibling=ns, target_predict=target)
    return predicts, accept_index, accept_num


def _linkage_tensors(parents_per_req):
    refs = [tree_reference(p, b) for b, p in enumerate(parents_per_req)]
    as_t = lambda f: torch.tensor([f(r) for r in refs], dtype=torch.int64)
    return as_t(lambda r: r.retrieve_index), as_t(lambda r: r.next_token), as_t(lambda r: r.next_sibling)


def test_verify_tree_greedy_hand_case(sk):
    """Request 0: root's children 1 (tok 10), 2 (tok 20); node 1's child 3; node 2's children 4 (40), 5 (50).
    The target says 20 after the root -> node 1 rejected, node 2 accepted (a sibling hop); 50 after node 2 ->
    node 5 accepted; node 5 is a leaf -> stop, bonus = target at node 5 (77). Request 1 rejects at the root."""
    parents = [[-1, 0, 0, 1, 2, 2], [-1, 0, 0, 1, 2, 2]]
    ri, nt, ns = _linkage_tensors(parents)
    assert nt[0].tolist() == [1, 3, 4, -1, -1, -1] and ns[0].tolist() == [-1, 2, -1, -1, 5, -1]
    candidates = torch.tensor([[5, 10, 20, 30, 40, 50], [5, 10, 20, 30, 40, 50]], dtype=torch.int64)
    target = torch.tensor([[20, 1, 50, 1, 1, 77], [99, 1, 1, 1, 1, 1]], dtype=torch.int64)

    predicts, accept_index, accept_num = _verify(sk, candidates, ri, nt, ns, target, 4)

    assert accept_num.tolist() == [2, 0]
    assert accept_index.tolist() == [[0, 2, 5, -1], [6, -1, -1, -1]]
    assert predicts.tolist() == [20, 0, 50, 0, 0, 77, 99, 0, 0, 0, 0, 0]


def test_verify_tree_greedy_chain_every_accept_count(sk):
    """topk 1 chain of 4 nodes, 4 requests forced to accept 0, 1, 2 and 3 drafts."""
    bs, ndt, steps = 4, 4, 4
    ri, nt, ns = _linkage_tensors([[-1, 0, 1, 2]] * bs)
    target = torch.randint(0, 1000, (bs, ndt), dtype=torch.int64)
    candidates = torch.randint(0, 1000, (bs, ndt), dtype=torch.int64)
    for b in range(bs):
        for i in range(1, ndt):
            candidates[b, i] = target[b, i - 1] if i <= b else target[b, i - 1] + 1
    got = _verify(sk, candidates, ri, nt, ns, target, steps)
    want = verify_greedy_reference(candidates, ri, nt, ns, target, steps, torch.zeros(bs * ndt, dtype=torch.int32))
    assert got[2].tolist() == [0, 1, 2, 3]
    for g, w, name in zip(got, want, ["predicts", "accept_index", "accept_token_num"]):
        assert torch.equal(g, w), name


def test_verify_tree_greedy_stops_after_num_spec_step_levels(sk):
    """accept_index's width caps the walk: at most num_spec_step - 1 drafts are accepted even when more match."""
    ndt, steps = 6, 3
    ri, nt, ns = _linkage_tensors([chain_parents(ndt)])
    target = torch.tensor([[11, 12, 13, 14, 15, 16]], dtype=torch.int64)
    candidates = torch.tensor([[10, 11, 12, 13, 14, 15]], dtype=torch.int64)  # every draft matches
    predicts, accept_index, accept_num = _verify(sk, candidates, ri, nt, ns, target, steps)
    assert accept_num.tolist() == [2]
    assert accept_index.tolist() == [[0, 1, 2]]
    assert predicts.tolist() == [11, 12, 13, 0, 0, 0]


@pytest.mark.parametrize("topk,num_steps,ndt", [(2, 4, 6), (4, 3, 8)])
def test_verify_tree_greedy_random_trees(sk, topk, num_steps, ndt):
    """EAGLE-shaped random trees, a 3-token vocabulary so accepts, rejects and sibling hops all happen."""
    bs = 6
    tree = eagle_draft_tree(bs, topk, num_steps, ndt)
    ri, nt, ns = _linkage_tensors(tree.parents)
    assert int((ns != -1).sum()) > 0
    candidates = torch.randint(0, 3, (bs, ndt), dtype=torch.int64)
    target = torch.randint(0, 3, (bs, ndt), dtype=torch.int64)
    steps = num_steps + 1

    got = _verify(sk, candidates, ri, nt, ns, target, steps)

    want = verify_greedy_reference(candidates, ri, nt, ns, target, steps, torch.zeros(bs * ndt, dtype=torch.int32))
    assert int(want[2].sum()) > 0 and int((want[2] == 0).sum()) > 0, "seed gives no mix of accepts and rejects"
    for g, w, name in zip(got, want, ["predicts", "accept_index", "accept_token_num"]):
        assert torch.equal(g, w), name


# --- reconstruct_indices_from_tree_mask (NGRAM) ----------------------------------------------------------------

@pytest.mark.parametrize("shape", ["ngram-trie", "chain", "eagle-tree"])
def test_reconstruct_indices_from_tree_mask(sk, shape):
    """From a QLEN tree mask alone (node i's row marks the root, its ancestors and itself): positions =
    seq_len + #ancestors, retrieve_index = b*n + i, next_token = first child, next_sibling = next node with the same
    parent (-1 for the root). Outputs are preallocated torch.empty buffers in NgramWorker: every entry written."""
    from sgl_kernel.speculative import reconstruct_indices_from_tree_mask

    bs, n = 3, 8
    if shape == "ngram-trie":
        parents = [random_tree_parents(n) for _ in range(bs)]
    elif shape == "chain":
        parents = [chain_parents(n)] * bs
    else:
        parents = eagle_draft_tree(bs, 4, 3, n).parents
    refs = [tree_reference(p, b) for b, p in enumerate(parents)]
    mask = torch.tensor([r.mask for r in refs], dtype=torch.bool).flatten()
    seq_lens = torch.tensor([9, 4, 30], dtype=torch.int64)
    positions = torch.full((bs * n,), -77, dtype=torch.int64)
    ri, nt, ns = torch.full((3, bs, n), -77, dtype=torch.int64)

    reconstruct_indices_from_tree_mask(mask, seq_lens, positions, ri, nt, ns, bs, n)

    for b, ref in enumerate(refs):
        assert ri[b].tolist() == ref.retrieve_index, f"retrieve_index, request {b}"
        assert nt[b].tolist() == ref.next_token, f"retrieve_next_token, request {b}"
        assert ns[b].tolist() == ref.next_sibling, f"retrieve_next_sibling, request {b}"
        assert positions[b * n:(b + 1) * n].tolist() == [int(seq_lens[b]) + d for d in ref.depth], f"request {b}"
