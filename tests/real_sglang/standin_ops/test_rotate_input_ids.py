"""rotate_input_ids_cpu: the multi-layer EAGLE (MTP) draft step's input shift.

Semantics: sgl-kernel/csrc/cpu/spec.cpp (rotate_input_ids_cpu) and the Triton rotate_input_ids_kernel in SGLang
0.5.23's kernels/ops/speculative/multi_layer_eagle.py, whose CPU branch (rotate_input_ids) calls it with
(input_ids int64, extend_start_loc, extend_seq_lens (ForwardBatch's int32, or int64), topk_index [bs] or [bs, 1]
int64, select_index or None): in place, each request's extend segment moves left by one token and the new draft
token goes to its last slot, or to the global position select_index[i] when given. Integer results: exact."""

from __future__ import annotations

import pytest
import torch

LENS = [4, 1, 3, 0, 2]


def _reference(ids, starts, lens, new, select=None):
    out = ids.clone()
    for i, (s, n) in enumerate(zip(starts, lens)):
        if n > 1:
            out[s:s + n - 1] = ids[s + 1:s + n]
        if n > 0:
            out[select[i] if select is not None else s + n - 1] = new[i]
    return out


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
def test_rotate_input_ids_shifts_and_appends(sk, index_dtype):
    starts = [sum(LENS[:i]) for i in range(len(LENS))]
    ids = torch.arange(100, 100 + sum(LENS), dtype=torch.int64)
    before = ids.clone()
    new = torch.tensor([[901], [902], [903], [904], [905]], dtype=torch.int64)  # fast_topk(topk=1): [bs, 1]

    sk.rotate_input_ids_cpu(ids, torch.tensor(starts, dtype=index_dtype), torch.tensor(LENS, dtype=index_dtype),
                            new, None)

    assert torch.equal(ids, _reference(before, starts, LENS, new.flatten().tolist()))


def test_rotate_input_ids_with_select_index(sk):
    """select_index (the CPU-graph path's padded layout): the shift still happens, the new token lands at the
    given global position."""
    starts = [sum(LENS[:i]) for i in range(len(LENS))]
    ids = torch.arange(100, 100 + sum(LENS), dtype=torch.int64)
    before = ids.clone()
    new = torch.tensor([901, 902, 903, 904, 905], dtype=torch.int64)
    select = [1, 4, 5, 0, 8]

    sk.rotate_input_ids_cpu(ids, torch.tensor(starts, dtype=torch.int32), torch.tensor(LENS, dtype=torch.int32), new,
                            torch.tensor(select, dtype=torch.int64))

    assert torch.equal(ids, _reference(before, starts, LENS, new.tolist(), select))
