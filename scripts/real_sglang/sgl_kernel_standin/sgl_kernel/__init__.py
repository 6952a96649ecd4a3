"""A torch-only stand-in for the few `sgl_kernel` CPU ops that SGLang 0.5.23's CPU engine calls for a small
dense model (Llama-family, torch_native attention, no speculation), installed into the real-sglang test
environment by scripts/real_sglang/build.sh.

Why: with SGLANG_USE_CPU_ENGINE=1, SGLang imports CPU ops from `sgl_kernel` at module level. PyPI has no CPU
build of sgl-kernel (`sglang-kernel` is a 1.2 GB CUDA wheel whose ops cannot load beside CPU torch), and building
it from source takes far longer than this lane's budget. On a CPU without AMX, SGLang does not pack weights for
sgl-kernel's GEMMs (`cpu_has_amx_support()` is false), so the model's layers run their plain-PyTorch
`forward_native` paths; what is left are these book-keeping ops, implemented here with the semantics of SGLang's
own Triton/CUDA reference kernels. Any other name imports as a stub that raises when it is called, so an op this
stand-in lacks fails loudly at its first use, never silently.

This is not SGLang's kernel library; it exists so that the console's test lane can drive the real SGLang HTTP
server, scheduler, tokenizer and detokenizer on a machine without a GPU.
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


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Missing(name)


def assign_req_to_token_pool_cpu(req_pool_indices, req_to_token, start_offset, end_offset, out_cache_loc,
                                 pool_len=None):
    """req_to_token[req_pool_indices[i], start[i]:end[i]] = the i-th run of out_cache_loc (runs are consecutive)."""
    starts = start_offset.tolist()
    ends = end_offset.tolist()
    rows = req_pool_indices.tolist()
    off = 0
    for r, s, e in zip(rows, starts, ends):
        n = e - s
        if n > 0:
            req_to_token[r, s:e] = out_cache_loc[off:off + n].to(req_to_token.dtype)
        off += n
