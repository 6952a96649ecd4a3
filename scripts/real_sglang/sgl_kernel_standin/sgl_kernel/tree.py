"""The draft-token tree of EAGLE-style speculation: building it (mask, positions, retrieval links) and greedy
verification, plus NGRAM's reading of a tree back from its mask.

Semantics: sgl-kernel's CPU ops (`csrc/cpu/spec.cpp`: build_tree_kernel_efficient_cpu, verify_tree_greedy_cpu,
reconstruct_indices_from_tree_mask_cpu) and SGLang 0.5.23's Triton references of the same contract
(`sglang/kernels/ops/speculative/spec_tree.py`, `reconstruct_tree.py`). Plain Python loops: a tree has a few
nodes per request.
"""

from __future__ import annotations

import torch

from sgl_kernel._inject import injectable

FULL_MASK, QLEN_ONLY, QLEN_ONLY_BITPACKING = 0, 1, 2


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise RuntimeError(f"sgl_kernel stand-in: {what}")


def _position_of(sel: list[int], token: int) -> int:
    """Index of `token` among the selected tokens, or len(sel) when it is not there."""
    for p, s in enumerate(sel):
        if s == token:
            return p
    return len(sel)


@injectable
def build_tree_kernel_efficient_cpu(parent_list, selected_index, verified_seq_len, tree_mask, positions,
                                    retrive_index, retrive_next_token, retrive_next_sibling, topk, depth,
                                    draft_token_num, tree_mask_mode):
    """Node 0 of request b is its last verified token (the root); node i > 0 is selected_index[b, i-1]. Its parent is
    the node holding parent_list[b, selected_index[b, i-1] // topk] (the root when that quotient is 0).
    Writes, per request:
      retrive_index[b, i] = b*n + i;  retrive_next_token[b, p] = the lowest-numbered child of p (nodes are linked
      from the highest down, each new one becoming the first child) and retrive_next_sibling[b, i] = the next
      higher-numbered child of the same parent (the tensors come pre-filled with -1);  positions[b*n + i] = seq_len + depth of node i;  tree_mask: node i sees the root and its ancestors
      — QLEN_ONLY rows of n columns [bs*n, n], FULL_MASK rows of seq_len + n columns, the prefix part untouched."""
    _check(tree_mask.dtype == torch.bool, "build_tree_kernel_efficient_cpu: tree_mask must be bool")
    _check(int(tree_mask_mode) != QLEN_ONLY_BITPACKING,
           "build_tree_kernel_efficient_cpu: QLEN_ONLY_BITPACKING is not supported on CPU")
    dt = parent_list.dtype
    for t, name in ((selected_index, "selected_index"), (verified_seq_len, "verified_seq_len"),
                    (positions, "positions"), (retrive_index, "retrive_index"),
                    (retrive_next_token, "retrive_next_token"), (retrive_next_sibling, "retrive_next_sibling")):
        _check(t.dtype == dt, f"build_tree_kernel_efficient_cpu: {name} must have parent_list's dtype")
    n, topk, mode = int(draft_token_num), int(topk), int(tree_mask_mode)
    parents = parent_list.tolist()
    sels = selected_index.tolist()
    seq_lens = verified_seq_len.tolist()
    mask = tree_mask.view(-1)
    ri, rnt, rns = retrive_index.view(-1), retrive_next_token.view(-1), retrive_next_sibling.view(-1)
    pos = positions.view(-1)
    full_offset = 0
    for b, (par, sel, sl) in enumerate(zip(parents, sels, seq_lens, strict=True)):
        off = b * n
        pos[off] = sl
        ri[off] = off
        nxt = rnt[off:off + n].tolist()
        sib = rns[off:off + n].tolist()
        for i in range(n - 1, 0, -1):
            ri[off + i] = off + i
            ptb = sel[i - 1] // topk
            pp = 0
            if ptb > 0:
                pp = _position_of(sel, par[ptb]) + 1
                if pp > n - 1:  # a parent outside the selection: the real op skips the node
                    continue
            if nxt[pp] != -1:
                sib[i] = nxt[pp]
            nxt[pp] = i
        rnt[off:off + n] = torch.tensor(nxt, dtype=dt)
        rns[off:off + n] = torch.tensor(sib, dtype=dt)
        if mode == QLEN_ONLY:
            base, row_len = off * n, n
        else:
            base, row_len = b * n * n + full_offset + sl, sl + n
            full_offset += sl * n
        for tid in range(n):
            row = base + tid * row_len
            mask[row] = True
            mask[row + 1:row + n] = False
            if tid == 0:
                continue
            depth_of, cur = 0, tid - 1
            while True:
                depth_of += 1
                mask[row + cur + 1] = True
                ptb = sel[cur] // topk
                if ptb == 0:
                    break
                cur = _position_of(sel, par[ptb])
                if cur >= n - 1:  # no such node: the path ends (the Triton reference stops there too)
                    break
            pos[off + tid] = depth_of + sl


@injectable
def verify_tree_greedy_cpu(predicts, accept_index, accept_token_num, candidates, retrive_index, retrive_next_token,
                           retrive_next_sibling, target_predict):
    """Greedy verification: from the root, repeatedly step to the first child whose draft token equals the target
    model's argmax at the last accepted node (trying siblings in order); stop at the first level without a match.
    accept_index[b, 0..k] = the accepted nodes' flat indices (root first; the rest keep their -1), accept_token_num[b]
    = k accepted drafts (the bonus token excluded), predicts[flat] = the target's token at every accepted node and at
    the last one (the bonus)."""
    for t, name in ((predicts, "predicts"), (accept_index, "accept_index"), (accept_token_num, "accept_token_num")):
        _check(t.dtype == torch.int32, f"verify_tree_greedy_cpu: {name} must be int32")
    _check(candidates.dim() == 2 and accept_index.dim() == 2, "verify_tree_greedy_cpu: candidates and accept_index "
                                                              "must be 2-D")
    dt = retrive_index.dtype
    for t, name in ((candidates, "candidates"), (retrive_next_token, "retrive_next_token"),
                    (retrive_next_sibling, "retrive_next_sibling"), (target_predict, "target_predict")):
        _check(t.dtype == dt, f"verify_tree_greedy_cpu: {name} must have retrive_index's dtype")
    bs, n = candidates.shape
    steps = accept_index.shape[1]
    cand, ri = candidates.tolist(), retrive_index.tolist()
    rnt, rns = retrive_next_token.tolist(), retrive_next_sibling.tolist()
    target = target_predict.reshape(-1).tolist()
    pred = predicts.view(-1)
    for b in range(bs):
        last = ri[b][0]
        accept_index[b, 0] = last
        k, cur = 0, 0
        for _ in range(1, steps):
            cur = rnt[b][cur]
            while cur != -1:
                if cand[b][cur] == target[last]:
                    pred[last] = target[last]
                    k += 1
                    accept_index[b, k] = ri[b][cur]
                    last = ri[b][cur]
                    break
                cur = rns[b][cur]
            if cur == -1:
                break
        accept_token_num[b] = k
        pred[last] = target[last]


@injectable
def reconstruct_indices_from_tree_mask(tree_mask, verified_seq_len, positions, retrive_index, retrive_next_token,
                                       retrive_next_sibling, batch_size, draft_token_num):
    """A tree read back from its QLEN mask ([bs, n, n] flat; mask[b, i, j] marks j an ancestor of i, j < i):
    positions = seq_len + number of ancestors; retrive_index = b*n + i; parent = the highest ancestor index;
    first child = the lowest k > i having i as an ancestor; next sibling = the lowest k > i with the same parent."""
    _check(tree_mask.dtype == torch.bool, "reconstruct_indices_from_tree_mask: tree_mask must be bool")
    n = int(draft_token_num)
    m = tree_mask.view(int(batch_size), n, n).tolist()
    seq = verified_seq_len.tolist()
    pos, ri = positions.view(-1), retrive_index.view(-1)
    rnt, rns = retrive_next_token.view(-1), retrive_next_sibling.view(-1)
    for b in range(int(batch_size)):
        anc = [[m[b][i][j] and j < i for j in range(n)] for i in range(n)]
        parent = [max((j for j in range(i) if anc[i][j]), default=-1) for i in range(n)]
        for i in range(n):
            ri[b * n + i] = b * n + i
            pos[b * n + i] = sum(anc[i]) + seq[b]
            rnt[b * n + i] = next((k for k in range(i + 1, n) if anc[k][i]), -1)
            rns[b * n + i] = -1 if parent[i] < 0 else next(
                (k for k in range(i + 1, n) if parent[k] == parent[i]), -1)
