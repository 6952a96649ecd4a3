"""Lets the CUDA build of torchvision (the only one on PyPI) import beside CPU torch: its C ops cannot load
(they need libtorch_cuda), and torchvision 0.28 then fails at import on an unguarded
`register_fake("torchvision::nms")` (and qnms). Before torchvision is imported, define those schemas (no kernel)."""
import sys


class _Hook:
    def find_spec(self, name, path=None, target=None):
        if name != "torchvision":
            return None
        sys.meta_path.remove(self)
        import torch
        for op in ("nms", "qnms"):
            try:
                torch.library.define(f"torchvision::{op}", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            except RuntimeError:
                pass  # the real ops loaded: nothing to do
        return None


def install():
    if not any(isinstance(h, _Hook) for h in sys.meta_path):
        sys.meta_path.insert(0, _Hook())
