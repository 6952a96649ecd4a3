"""`sgl_kernel.speculative`: the submodule SGLang 0.5.23's NGRAM path imports on CPU
(`sglang/kernels/ops/speculative/reconstruct_tree.py`)."""

from sgl_kernel.tree import reconstruct_indices_from_tree_mask  # noqa: F401
