"""A torch-only stand-in for the `sgl_kernel` CPU ops that SGLang 0.5.23's CPU engine calls for a small dense model
(Llama-family), with or without speculative decoding, installed into the real-sglang test environment by
scripts/real_sglang/build.sh.

Why: with SGLANG_USE_CPU_ENGINE=1, SGLang imports CPU ops from `sgl_kernel` at module level. PyPI has no CPU
build of sgl-kernel (`sglang-kernel` is a 1.2 GB CUDA wheel whose ops cannot load beside CPU torch), and building
it from source takes far longer than this lane's budget. On a CPU without AMX, SGLang does not pack weights for
sgl-kernel's GEMMs (`cpu_has_amx_support()` is false, and this stand-in defines no `convert_weight_packed`), so the
model's layers run their plain-PyTorch `forward_native` paths; what is left are the ops below, each implemented in
torch with the semantics of sgl-kernel's CPU op (`csrc/cpu/*.cpp`) and SGLang's own Triton references:

    bookkeeping.py   assign_req_to_token_pool_cpu, assign_extend_cache_locs_cpu, assign_draft_cache_locs_contiguous_cpu,
                     build_draft_decode_metadata_cpu, fill_bonus_tokens_cpu, fill_accept_out_cache_loc_cpu,
                     rotate_input_ids_cpu
    tree.py          build_tree_kernel_efficient_cpu, verify_tree_greedy_cpu, reconstruct_indices_from_tree_mask
                     (also as sgl_kernel.speculative.reconstruct_indices_from_tree_mask)
    kvcache.py       copy_all_layer_kv_cache_cpu
    attention.py     torch.ops.sgl_kernel.decode_attention_cpu, torch.ops.sgl_kernel.extend_attention_cpu
                     (the `intel_amx` attention backend, which speculative verify needs)

Each has its own test against an independent reference (tests/real_sglang/standin_ops/). Any other name imports as a
stub that raises when it is called (and any other torch.ops.sgl_kernel name does not exist), so an op this stand-in
lacks fails loudly at its first use, never silently.

This is not SGLang's kernel library; it exists so that the console's test lane can drive the real SGLang HTTP
server, scheduler, speculative workers, tokenizer and detokenizer on a machine without a GPU.
"""

from __future__ import annotations

import torch

__version__ = "0.0.0+torch-standin"
STANDIN = True


class _Missing:
    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *a, **k):
        raise NotImplementedError(
            f"sgl_kernel.{self.__name__} is not in the torch-only stand-in (scripts/real_sglang/sgl_kernel_standin); "
            "this SGLang code path needs the real sgl-kernel CPU build")


from sgl_kernel import attention, speculative  # noqa: F401  (registers torch.ops.sgl_kernel.*; the submodule)
from sgl_kernel.bookkeeping import (  # noqa: F401
    assign_draft_cache_locs_contiguous_cpu,
    assign_extend_cache_locs_cpu,
    assign_req_to_token_pool_cpu,
    build_draft_decode_metadata_cpu,
    fill_accept_out_cache_loc_cpu,
    fill_bonus_tokens_cpu,
    rotate_input_ids_cpu,
)
from sgl_kernel.kvcache import copy_all_layer_kv_cache_cpu  # noqa: F401
from sgl_kernel.tree import (  # noqa: F401
    build_tree_kernel_efficient_cpu,
    reconstruct_indices_from_tree_mask,
    verify_tree_greedy_cpu,
)


# defined after the submodules are imported: a module __getattr__ answers `from sgl_kernel import <submodule>` first
def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Missing(name)
