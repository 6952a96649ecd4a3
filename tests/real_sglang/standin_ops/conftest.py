"""Reference tests for the torch-only `sgl_kernel` stand-in (scripts/real_sglang/sgl_kernel_standin), one module per
group of ops that SGLang 0.5.23's CPU speculative-decoding path calls. They need torch, which only the real-sglang
environment has, so they run under its interpreter (README.md here):

    ~/.cache/serving-console/real-sglang/env/bin/python -m pytest -q -p no:cacheprovider tests/real_sglang/standin_ops
"""

from __future__ import annotations

import os
from pathlib import Path

# SGLang decides CPU-vs-GPU at import of each module (sglang.srt.utils.is_cpu() reads this); set before any import
os.environ["SGLANG_USE_CPU_ENGINE"] = "1"

import pytest

HERE = Path(__file__).resolve().parent
ENV_PY = "~/.cache/serving-console/real-sglang/env/bin/python"


def pytest_configure(config: pytest.Config) -> None:
    try:
        import torch  # noqa: F401
    except ImportError:
        raise pytest.UsageError(f"tests/real_sglang/standin_ops needs torch: run them with the real-sglang env, "
                                f"`{ENV_PY} -m pytest -q -p no:cacheprovider tests/real_sglang/standin_ops` "
                                f"(build it with `bash scripts/real_sglang/build.sh`)") from None


def _mine(item: pytest.Item) -> bool:
    return HERE in Path(str(item.path)).resolve().parents


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    """tests/real_sglang/conftest.py deselects everything below it unless `-m real_sglang` (its tests start
    servers). These start nothing and run under another interpreter: hold them out of that lane rule, then apply
    the ordinary -k / -m selection to them (what the `mark` plugin does for every other item)."""
    from _pytest.mark import deselect_by_keyword, deselect_by_mark

    held = [i for i in items if _mine(i)]
    if held:
        ids = {id(i) for i in held}
        items[:] = [i for i in items if id(i) not in ids]
    try:
        return (yield)
    finally:
        deselect_by_keyword(held, config)
        deselect_by_mark(held, config)
        items.extend(held)


@pytest.fixture(autouse=True)
def _seeded():
    """Every test starts from the same torch RNG state."""
    import torch

    torch.manual_seed(20250)
    yield


@pytest.fixture(scope="session")
def sk():
    """The `sgl_kernel` the env imports (the stand-in); importing it also registers its torch.ops.sgl_kernel ops,
    as IntelAMXAttnBackend's `import sgl_kernel` does."""
    import sgl_kernel

    return sgl_kernel
