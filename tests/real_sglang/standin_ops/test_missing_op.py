"""The stand-in's contract for what it does not stand in (scripts/real_sglang/sgl_kernel_standin/sgl_kernel):
any other name imports (SGLang imports sgl_kernel names at module level, on paths this lane may never run) and
raises NotImplementedError naming itself when called, so a missing op fails loudly at first use."""

from __future__ import annotations

import pytest


def test_missing_op_raises_not_implemented_naming_itself(sk):
    from sgl_kernel import some_unknown_op_cpu

    with pytest.raises(NotImplementedError, match="some_unknown_op_cpu"):
        some_unknown_op_cpu(1, 2, key="value")
    with pytest.raises(NotImplementedError, match="another_unknown_op_cpu"):
        sk.another_unknown_op_cpu()


def test_dunder_lookups_stay_attribute_errors(sk):
    """Tools probe modules for dunders (__wrapped__, __file__-like hooks): those must not become stubs."""
    assert not hasattr(sk, "__wrapped__")
    with pytest.raises(AttributeError):
        _ = sk.__some_dunder__
