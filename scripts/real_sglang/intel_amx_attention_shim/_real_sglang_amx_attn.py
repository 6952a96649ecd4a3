"""Lets `--attention-backend intel_amx` stay intel_amx on a CPU without AMX tiles (this lane's machines).

SGLang 0.5.23's server-args post-processing (`srt/arg_groups/overrides.py: _attention_backend_platform_fallbacks`)
turns intel_amx into torch_native when the platform fact `has_amx` is false. torch_native cannot run speculative
verify (its extend path reads `extend_prefix_lens`, which TARGET_VERIFY batches do not carry); intel_amx can, through
`decode_attention_cpu` / `extend_attention_cpu`, which the sgl_kernel stand-in provides in plain torch (no AMX
instruction is used). So, in this environment only, the platform fact `has_amx` reads true, through SGLang's own
override mechanism (`sglang.srt.runtime_context.override_platform`), installed when that module is first imported.

`cpu_has_amx_support()` — what decides weight packing and sgl-kernel GEMMs — is NOT affected: it also asks whether
sgl_kernel has `convert_weight_packed`, which the stand-in does not define, so every layer keeps its plain-PyTorch path.
Readers of `has_amx` in 0.5.23: that fallback, and gpt-oss's MoE choices (not served here).
"""
import sys

TARGET = "sglang.srt.runtime_context"


class _Hook:
    def find_spec(self, name, path=None, target=None):
        if name != TARGET:
            return None
        sys.meta_path.remove(self)
        import importlib.util
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real_exec = spec.loader.exec_module

        def exec_module(module):
            real_exec(module)
            module.override_platform(has_amx=True).install()

        spec.loader.exec_module = exec_module
        return spec


def install():
    if not any(isinstance(h, _Hook) for h in sys.meta_path):
        sys.meta_path.insert(0, _Hook())
