"""Independent references for the stand-in op tests: plain Python loops and float64 torch math, written from the
semantics of sgl-kernel's CPU kernels (sgl-kernel/csrc/cpu/*.cpp) and SGLang's Triton kernels. Nothing here calls
`sgl_kernel`; the tests compare the stand-in against these."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise

import torch

# --- KV pool layouts -------------------------------------------------------------------------------------------


def scattered_pool(lens: list[int], rows: list[int], max_reqs: int, pool_len: int, num_slots: int) -> torch.Tensor:
    """A req_to_token table (int32, [max_reqs, pool_len]) whose request i lives in row `rows[i]` and owns `lens[i]`
    KV slots drawn from a random permutation of 1..num_slots-1 (slot 0 is the pool's padding slot): slots of
    different requests interleave, and no request's slots are contiguous or ordered."""
    assert sum(lens) < num_slots and max(lens) <= pool_len and len(set(rows)) == len(rows)
    perm = (torch.randperm(num_slots - 1) + 1).tolist()
    table = torch.zeros((max_reqs, pool_len), dtype=torch.int32)
    at = 0
    for r, n in zip(rows, lens):
        table[r, :n] = torch.tensor(perm[at:at + n], dtype=torch.int32)
        at += n
    return table


# --- EAGLE draft trees -----------------------------------------------------------------------------------------


@dataclass
class DraftTree:
    parent_list: torch.Tensor  # [bs, topk * (num_steps - 1) + 1] int64 (organize_draft_results' parent_list)
    selected: torch.Tensor  # [bs, num_draft_tokens - 1] int64, sorted (top_scores_index)
    parents: list[list[int]]  # per request, the parent tree node of each of the num_draft_tokens nodes (-1 for root)


def eagle_draft_tree(bs: int, topk: int, num_steps: int, num_draft_tokens: int) -> DraftTree:
    """Simulate EAGLE's draft loop and `organize_draft_results` with random probabilities.

    Flat score index layout (as in SGLang): step 0 contributes `topk` entries (children of the root); step i >= 1
    contributes topk*topk entries, entry `topk + (i-1)*topk*topk + r*topk + c` being child c of the r-th node chosen
    at step i-1. `x // topk` is then an index into parent_list, whose entry is the flat index of x's parent (entry 0
    is the root's -1). The tree keeps the num_draft_tokens-1 best cumulative scores; a child's score is strictly
    below its parent's, so every kept node's ancestors are kept too."""
    assert num_steps >= 2
    parent_rows, selected_rows, parents = [], [], []
    for _ in range(bs):
        scores = (torch.rand(topk, dtype=torch.float64) * 0.9 + 0.05).tolist()
        chosen_flat = list(range(topk))  # flat indices of the nodes expanded at the next step
        chosen_score = list(scores)
        parent_list = [-1] + list(range(topk))
        for i in range(1, num_steps):
            base = topk + (i - 1) * topk * topk
            p = (torch.rand(topk, topk, dtype=torch.float64) * 0.9 + 0.05).tolist()
            step = [(chosen_score[r] * p[r][c], base + r * topk + c) for r in range(topk) for c in range(topk)]
            scores.extend(s for s, _ in step)
            best = sorted(step, key=lambda t: -t[0])[:topk]
            chosen_flat = [f for _, f in best]
            chosen_score = [s for s, _ in best]
            if i < num_steps - 1:
                parent_list.extend(chosen_flat)
        order = sorted(range(len(scores)), key=lambda j: -scores[j])[:num_draft_tokens - 1]
        sel = sorted(order)
        parent_rows.append(parent_list)
        selected_rows.append(sel)
        parents.append(parents_from_selection(parent_list, sel, topk))
    assert all(len(r) == topk * (num_steps - 1) + 1 for r in parent_rows)
    return DraftTree(torch.tensor(parent_rows, dtype=torch.int64), torch.tensor(selected_rows, dtype=torch.int64),
                     parents)


def parents_from_selection(parent_list: list[int], selected: list[int], topk: int) -> list[int]:
    """Tree node k >= 1 is the draft at flat index selected[k-1]; its parent is the root when that index // topk
    is 0 (a step-0 draft), else the node holding flat index parent_list[index // topk]."""
    node_of = {flat: k + 1 for k, flat in enumerate(selected)}
    return [-1] + [0 if flat // topk == 0 else node_of[parent_list[flat // topk]] for flat in selected]


def chain_parents(n: int) -> list[int]:
    """topk == 1: node i's parent is node i-1."""
    return [-1] + list(range(n - 1))


def random_tree_parents(n: int) -> list[int]:
    """An irregular tree in draft order (each node's parent precedes it), like NGRAM's trie drafts."""
    return [-1] + [int(torch.randint(0, i, (1,))) for i in range(1, n)]


@dataclass
class TreeRef:
    retrieve_index: list[int]
    next_token: list[int]  # first (lowest-numbered) child, -1 for a leaf
    next_sibling: list[int]  # next higher-numbered node with the same parent, -1 if none
    depth: list[int]
    mask: list[list[bool]]  # [n][n]: node i sees node j iff j == 0, j == i or j is an ancestor of i


def tree_reference(parents: list[int], b: int) -> TreeRef:
    """The linkage, depths and visibility `build_tree_kernel_efficient` derives for request b's tree."""
    n = len(parents)
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        children[parents[i]].append(i)
    next_token = [min(c) if c else -1 for c in children]
    next_sibling = [-1] * n
    for c in children:
        for a, z in pairwise(sorted(c)):
            next_sibling[a] = z
    depth, mask = [], []
    for i in range(n):
        row = [False] * n
        row[0] = True
        j, d = i, 0
        while j != 0:
            row[j] = True
            j = parents[j]
            d += 1
        depth.append(d)
        mask.append(row)
    return TreeRef([b * n + i for i in range(n)], next_token, next_sibling, depth, mask)


def qlen_mask(parents_per_req: list[list[int]]) -> torch.Tensor:
    """The flat QLEN_ONLY tree mask [bs * n * n] bool that TARGET_VERIFY passes to extend_attention_cpu."""
    rows = [tree_reference(p, b).mask for b, p in enumerate(parents_per_req)]
    return torch.tensor(rows, dtype=torch.bool).flatten()


# --- greedy verification ---------------------------------------------------------------------------------------


def verify_greedy_reference(candidates, retrieve_index, next_token, next_sibling, target_predict, num_spec_step,
                            predicts_init):
    """Walk each request's draft tree from the root: at every level take the first child (then its siblings, in
    sibling order) whose draft token equals the target's argmax at the last accepted node; stop when none does or
    after num_spec_step - 1 accepts. predicts gets the target token at every accepted node and at the last one (the
    bonus); every other entry keeps its initial value. Returns (predicts, accept_index, accept_token_num)."""
    bs = candidates.shape[0]
    target = target_predict.reshape(-1).tolist()
    predicts = predicts_init.clone()
    accept_index = torch.full((bs, num_spec_step), -1, dtype=torch.int32)
    accept_num = torch.zeros(bs, dtype=torch.int32)
    for b in range(bs):
        last = int(retrieve_index[b, 0])
        accept_index[b, 0] = last
        node, count = 0, 0
        while count < num_spec_step - 1:
            child = int(next_token[b, node])
            while child != -1 and int(candidates[b, child]) != target[last]:
                child = int(next_sibling[b, child])
            if child == -1:
                break
            predicts[last] = target[last]
            count += 1
            last = int(retrieve_index[b, child])
            accept_index[b, count] = last
            node = child
        accept_num[b] = count
        predicts[last] = target[last]
    return predicts, accept_index, accept_num


# --- attention -------------------------------------------------------------------------------------------------


def attention_reference(q, keys, values, sm_scale: float, visible=None, logit_cap: float = 0.0):
    """softmax(cap(q k^T * sm_scale) masked) v in float64, per query head; query head h reads KV head
    h // (H / Hkv) (GQA groups of consecutive query heads share one KV head, as in SGLang).

    q: [Lq, H, D]; keys: [Lk, Hkv, D]; values: [Lk, Hkv, Dv]; visible: [Lq, Lk] bool (True = may attend) or None.
    Returns [Lq, H, Dv] float64."""
    h = q.shape[1]
    hkv = keys.shape[1]
    assert h % hkv == 0
    group = h // hkv
    k = keys.double().repeat_interleave(group, dim=1)
    v = values.double().repeat_interleave(group, dim=1)
    s = torch.einsum("qhd,khd->hqk", q.double(), k) * sm_scale
    if logit_cap > 0:
        s = logit_cap * torch.tanh(s / logit_cap)
    if visible is not None:
        s = s.masked_fill(~visible.unsqueeze(0), -math.inf)
    p = torch.softmax(s, dim=-1)
    return torch.einsum("hqk,khd->qhd", p, v)


def window_visible(q_pos: torch.Tensor, k_pos: torch.Tensor, sliding_window_size: int) -> torch.Tensor:
    """Causal + sliding-window visibility by absolute position. `sliding_window_size` is what the backend passes
    (RadixAttention.sliding_window_size + 1, 0 = no window): key k is visible to query q iff
    q - sliding_window_size < k <= q."""
    vis = k_pos[None, :] <= q_pos[:, None]
    if sliding_window_size > 0:
        vis &= k_pos[None, :] > q_pos[:, None] - sliding_window_size
    return vis


def fused_qkv(tokens: int, h: int, hkv: int, d: int, dv: int, dtype: torch.dtype, q_scale: float = 1.0):
    """q [T, H, D], k [T, Hkv, D], v [T, Hkv, Dv] as strided views of one fused qkv projection output, the way a
    Llama attention layer hands them to the backend (qkv.split(...) then .view): rows are not contiguous."""
    qkv = torch.randn(tokens, h * d + hkv * d + hkv * dv, dtype=torch.float32)
    qkv[:, :h * d] *= q_scale
    qkv = qkv.to(dtype)
    q, k, v = qkv.split([h * d, hkv * d, hkv * dv], dim=-1)
    return q.view(tokens, h, d), k.view(tokens, hkv, d), v.view(tokens, hkv, dv)
