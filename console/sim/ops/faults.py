"""Injected faults: their effects on the twin's startup, scheduler and streams (the `--sim-fault` grammar and parser
are in faultspec.py, which the argument parser imports without these effects)."""

from __future__ import annotations

import asyncio
import math
import os
import random
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..config.faultspec import (  # noqa: F401  (re-exported: the fault kinds and the parser)
    LOAD_KINDS,
    LOAD_PHASES,
    STREAM_KINDS,
    FaultSpec,
    FaultSpecError,
    parse_fault,
    parse_faults,
)

if TYPE_CHECKING:
    from ..config.args import ServerConfig
    from ..config.deployment import Deployment
    from ..model.memory import MemoryPlan
    from ..model.runtime import TraceRecord
    from .startup import StartupTimeline

# ------------------------------------------------------------------------------------------------- runtime state


@dataclass(frozen=True)
class StreamAction:
    kind: str  #: stall | malformed-chunk | truncate
    after_tokens: int
    seconds: float = 0.0


class _Truncate:
    """Sentinel a faulted stream yields to drop the connection."""


TRUNCATE = _Truncate()


class FaultState:
    """The active faults of one twin process, as precomputed flags and counters."""

    def __init__(self, specs: tuple[FaultSpec, ...], seed: int) -> None:
        self.specs = specs
        by = {f.kind: f for f in specs}
        self.fired: dict[str, int] = {f.kind: 0 for f in specs}
        c = by.get("crash-at-step")
        self.crash_step: int | None = c.get("step") if c else None
        d = by.get("crash-during-load")
        self.load_crash: tuple[str, str] | None = (d.get("phase"), d.get("kind")) if d else None
        self._stream = [by[k] for k in STREAM_KINDS if k in by]
        self.stream = bool(self._stream)
        self._stream_seq = 0
        h = by.get("http500")
        self.http500_rate: float = h.get("rate") if h else 0.0
        self.http500 = self.http500_rate > 0
        self._rng500 = random.Random(f"http500:{seed}")
        s = by.get("slow-start")
        self.slow_factor: float = s.get("factor") if s else 1.0
        fb = by.get("flush-busy")
        self.flush_busy = fb is not None
        self._flush_left: int | None = fb.get("count") if fb else None

    def stream_actions(self) -> list[StreamAction] | None:
        """The stream faults of the next streaming generation request (None: none)."""
        self._stream_seq += 1
        k = self._stream_seq
        acts = [StreamAction(f.kind, f.get("after_tokens"), f.get("seconds") if f.kind == "stall" else 0.0)
                for f in self._stream if k % f.get("every") == 0]
        return sorted(acts, key=lambda a: a.after_tokens) or None

    def take_http500(self) -> bool:
        if self._rng500.random() < self.http500_rate:
            self.fired["http500"] += 1
            return True
        return False

    def take_flush_busy(self) -> bool:
        if self._flush_left is not None:
            if self._flush_left <= 0:
                return False
            self._flush_left -= 1
        self.fired["flush-busy"] += 1
        return True

    def info(self) -> list[dict[str, Any]]:
        """The active faults for GET /sim/info: the parsed spec plus how often each fired."""
        return [f.to_json() | {"fired": self.fired[f.kind]} for f in self.specs]


def slow_deployment(dep: Deployment, factor: float) -> Deployment:
    """The deployment with every modeled startup duration multiplied by `factor` (slow-start)."""
    if factor == 1.0:
        return dep
    st = dep.startup
    scaled = {k: getattr(st, k) * factor for k in st.__dataclass_fields__
              if k.endswith("_s") or k.endswith("_per_bs")}
    scaled["weight_load_gibps"] = st.weight_load_gibps / factor
    drafters = {name: replace(d, weight_load_s=d.weight_load_s * factor) for name, d in dep.drafters.items()}
    return replace(dep, startup=replace(st, **scaled), drafters=drafters)


def die() -> None:
    """End the process the way a killed SGLang launcher ends: `Killed` (the shell's line), then SIGKILL."""
    sys.stdout.flush()
    sys.stderr.write("Killed\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)


# ------------------------------------------------------------------------------------------------- streams


def _malformed(event: str) -> str:
    payload = event[len("data: "):].rstrip("\n")
    return "data: " + payload[: max(1, len(payload) // 2)] + "\n\n"


async def faulted_stream(events: AsyncIterator[str], rec: TraceRecord, actions: list[StreamAction],
                         state: FaultState) -> AsyncIterator[Any]:
    """`events` (an SSE generator that calls rec.chunk(tokens) before each yield) with `actions` applied."""
    pending = list(actions)
    sent = 0  # completion tokens carried by the events already sent
    seen = 0
    try:
        async for ev in events:
            carried = sum(rec.chunk_tokens[seen:])
            seen = len(rec.chunk_tokens)
            while pending and sent >= pending[0].after_tokens and not ev.startswith("data: [DONE]"):
                a = pending.pop(0)
                state.fired[a.kind] += 1
                if a.kind == "stall":
                    if math.isinf(a.seconds):
                        await asyncio.Event().wait()  # until the client hangs up (the task is cancelled)
                    else:
                        await asyncio.sleep(a.seconds)
                    if rec.t_chunks:
                        rec.t_chunks[-1] = time.monotonic()  # the trace keeps the real send time
                elif a.kind == "malformed-chunk":
                    yield _malformed(ev)
                else:  # truncate
                    yield TRUNCATE
                    return
            yield ev
            sent += carried
    finally:
        await events.aclose()  # type: ignore[attr-defined]  # the routes' SSE streams are async generators


# ------------------------------------------------------------------------------------------------- tracebacks

SITE = "/usr/local/lib/python3.12/dist-packages/"
#: (file under SITE, line, function, source line, the part Python 3.12 underlines or None)
Frame = tuple[str, int, str, str, "str | None"]

_SCHED = "sglang/srt/managers/scheduler.py"
_TPW = "sglang/srt/managers/tp_worker.py"
_MR = "sglang/srt/model_executor/model_runner.py"
_LOADER = "sglang/srt/model_loader/loader.py"

_HEAD: list[Frame] = [
    (_SCHED, 6362, "run_scheduler_process", "scheduler = Scheduler(server_args, port_args)",
     "Scheduler(server_args, port_args)"),
    (_SCHED, 568, "__init__", "self.init_model_worker()", None),
]
_MODEL_RUNNER: list[Frame] = [
    (_TPW, 487, "__init__", "self._model_runner = ModelRunner(", "ModelRunner("),
    (_MR, 499, "__init__", "self.initialize()", None),
    (_MR, 715, "initialize", "self.load_model()", None),
    (_MR, 1330, "load_model", "self.model = get_model(", "get_model("),
    ("sglang/srt/model_loader/__init__.py", 30, "get_model", "return loader.load_model(", "loader.load_model("),
]
_WEIGHTS: list[Frame] = [
    (_SCHED, 1130, "init_model_worker", "self.init_tp_model_worker()", None),
    (_SCHED, 1031, "init_tp_model_worker", "self.tp_worker = TpModelWorker(**worker_kwargs)",
     "TpModelWorker(**worker_kwargs)"),
    *_MODEL_RUNNER,
]
_DRAFT_EAGLE: list[Frame] = [
    (_SCHED, 1133, "init_model_worker", "self.maybe_init_draft_worker()", None),
    (_SCHED, 1064, "maybe_init_draft_worker", "self.draft_worker = DraftWorkerClass(**draft_worker_kwargs)",
     "DraftWorkerClass(**draft_worker_kwargs)"),
    ("sglang/srt/speculative/eagle_worker_v2.py", 1331, "__init__", "self._draft_worker = EagleDraftWorker(",
     "EagleDraftWorker("),
    ("sglang/srt/speculative/eagle_worker_v2.py", 223, "__init__", "self.draft_worker = TpModelWorker(",
     "TpModelWorker("),
    *_MODEL_RUNNER,
]
_DRAFT_DFLASH: list[Frame] = [
    *_DRAFT_EAGLE[:2],
    ("sglang/srt/speculative/dflash_worker_v2.py", 214, "__init__", "self.draft_worker = TpModelWorker(",
     "TpModelWorker("),
    *_MODEL_RUNNER,
]
_QUANT_CFG: list[Frame] = [
    (_LOADER, 996, "load_model", "model = self.initialize_model_for_startup(", "self.initialize_model_for_startup("),
    (_LOADER, 837, "initialize_model_for_startup",
     "quant_config = _get_quantization_config(model_config, self.load_config)",
     "_get_quantization_config(model_config, self.load_config)"),
    (_LOADER, 215, "_get_quantization_config", "quant_config = get_quant_config(", "get_quant_config("),
]
_QUANT_TAIL: list[Frame] = [
    *_QUANT_CFG,
    ("sglang/srt/model_loader/weight_utils.py", 311, "get_quant_config",
     "model_config, quant_cls.from_config(hf_quant_config)", "quant_cls.from_config(hf_quant_config)"),
    ("sglang/srt/layers/quantization/compressed_tensors/compressed_tensors.py", 285, "from_config",
     "target_scheme_map = cls._quantization_scheme_map_from_config(config=config)",
     "cls._quantization_scheme_map_from_config(config=config)"),
    ("sglang/srt/layers/quantization/compressed_tensors/compressed_tensors.py", 367,
     "_quantization_scheme_map_from_config", 'target_scheme_map[target]["weights"] = QuantizationArgs.model_validate(',
     "QuantizationArgs.model_validate("),
    ("pydantic/main.py", 716, "model_validate", "return cls.__pydantic_validator__.validate_python(",
     "cls.__pydantic_validator__.validate_python("),
]
_QUANT_EXC = ("pydantic_core._pydantic_core.ValidationError: 2 validation errors for QuantizationArgs\n"
              "scale_dtype\n"
              "  Extra inputs are not permitted [type=extra_forbidden, input_value='torch.bfloat16', input_type=str]\n"
              "    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden\n"
              "zp_dtype\n"
              "  Extra inputs are not permitted [type=extra_forbidden, input_value=None, input_type=NoneType]\n"
              "    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden\n")
_IMPORT_CT_TAIL: list[Frame] = [
    *_QUANT_CFG,
    ("sglang/srt/model_loader/weight_utils.py", 268, "get_quant_config",
     "quant_cls = get_quantization_config(model_config.quantization)",
     "get_quantization_config(model_config.quantization)"),
    ("sglang/srt/layers/quantization/__init__.py", 171, "get_quantization_config",
     "from sglang.srt.layers.quantization.compressed_tensors.compressed_tensors import (", None),
    ("sglang/srt/layers/quantization/compressed_tensors/compressed_tensors.py", 21, "<module>",
     "from compressed_tensors.config import (", None),
]
_IMPORT_CT_EXC = ("ImportError: cannot import name 'SparsityStructure' from 'compressed_tensors.config' "
                  f"({SITE}compressed_tensors/config/__init__.py)\n")
_LOAD_OOM_TAIL: list[Frame] = [
    (_LOADER, 1020, "load_model", "self.load_weights_and_postprocess(", None),
    (_LOADER, 1030, "load_weights_and_postprocess",
     "DefaultModelLoader.load_weights_only(model, weights, target_device)", None),
    (_LOADER, 1071, "load_weights_only", "model.load_weights(weights)", None),
    ("sglang/srt/models/deepseek_v2.py", 3514, "load_weights", "weight_loader(", None),
    ("sglang/srt/layers/moe/fused_moe_triton/layer.py", 861, "weight_loader",
     "loaded_weight = loaded_weight.to(param.data.device)", "loaded_weight.to(param.data.device)"),
]
_KV_OOM: list[Frame] = [
    (_SCHED, 1137, "init_model_worker", "self.init_memory_pools()", None),
    (_SCHED, 1100, "init_memory_pools", "self.init_target_memory_pool()", None),
    (_SCHED, 1090, "init_target_memory_pool", "self.tp_worker.alloc_memory_pool(", None),
    (_TPW, 409, "alloc_memory_pool", "self.model_runner.alloc_memory_pool(", None),
    (_MR, 982, "alloc_memory_pool", "result = self.kv_cache_configurator.configure(",
     "self.kv_cache_configurator.configure("),
    ("sglang/srt/model_executor/pool_configurator.py", 231, "configure",
     "token_to_kv_pool = self._create_token_to_kv_pool(", "self._create_token_to_kv_pool("),
    ("sglang/srt/mem_cache/memory_pool.py", 1541, "__init__", "self._create_buffers()", None),
    ("sglang/srt/mem_cache/memory_pool.py", 1566, "_create_buffers", "torch.zeros(", None),
]
_KV_IMPORT: list[Frame] = [
    (_SCHED, 1145, "init_model_worker", "self.init_all_attention_backends()", None),
    (_SCHED, 1115, "init_all_attention_backends", "self.tp_worker.init_attention_backends()", None),
    (_TPW, 429, "init_attention_backends", "self.model_runner.init_attention_backends()", None),
    (_MR, 1125, "init_attention_backends", "self.attn_backend = self._get_attention_backend()",
     "self._get_attention_backend()"),
    (_MR, 1590, "_get_attention_backend", "return self._get_attention_backend_from_str(",
     "self._get_attention_backend_from_str("),
    ("sglang/srt/layers/attention/attention_registry.py", 118, "create_trtllm_mla_backend",
     "from sglang.srt.layers.attention.trtllm_mla_backend import TRTLLMMLABackend", None),
    ("sglang/srt/layers/attention/trtllm_mla_backend.py", 52, "<module>",
     "from sglang.srt.layers.attention.flashinfer_mla_backend import (", None),
    ("sglang/srt/layers/attention/flashinfer_mla_backend.py", 47, "<module>",
     "from flashinfer.decode import trtllm_batch_decode_with_kv_cache_mla", None),
]
_KV_IMPORT_EXC = ("ImportError: cannot import name 'trtllm_batch_decode_with_kv_cache_mla' from 'flashinfer.decode' "
                  f"({SITE}flashinfer/decode.py)\n")
_GRAPHS: list[Frame] = [
    (_SCHED, 1146, "init_model_worker", "self.init_all_cuda_graphs()", None),
    ("torch/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
    (_SCHED, 1124, "init_all_cuda_graphs", "self.tp_worker.init_cuda_graphs()", None),
    (_TPW, 435, "init_cuda_graphs", "self.model_runner.init_cuda_graphs(", None),
    (_MR, 1192, "init_cuda_graphs", "capture = capture_cuda_graphs(", "capture_cuda_graphs("),
    ("sglang/srt/model_executor/model_runner_components/cuda_graph_setup.py", 437, "capture_cuda_graphs",
     "decode = capture_decode_graph(model_runner=model_runner)", "capture_decode_graph(model_runner=model_runner)"),
    ("sglang/srt/model_executor/model_runner_components/cuda_graph_setup.py", 780, "capture_decode_graph",
     "runner = GraphRunnerCls(model_runner)", "GraphRunnerCls(model_runner)"),
    ("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py", 600, "__init__", "self.capture()", None),
    ("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py", 1303, "capture", "self._capture_one_stream()",
     None),
    ("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py", 1359, "_capture_one_stream",
     "self.capture_one_shape(", None),
    ("sglang/srt/model_executor/runner/decode_cuda_graph_runner.py", 1499, "capture_one_shape",
     "self.backend.capture_one(", None),
]
_GRAPHS_IMPORT: list[Frame] = [
    ("sglang/srt/model_executor/runner/cuda_graph_backend.py", 212, "capture_one", "self.init_capture_metadata(", None),
    ("sglang/srt/layers/attention/trtllm_mla_backend.py", 561, "init_forward_metadata_capture_cuda_graph",
     "from flashinfer.utils import get_trtllm_gen_multi_ctas_kv_counter_bytes", None),
]
_GRAPHS_IMPORT_EXC = ("ImportError: cannot import name 'get_trtllm_gen_multi_ctas_kv_counter_bytes' from "
                      f"'flashinfer.utils' ({SITE}flashinfer/utils.py)\n")
_RUNTIME: list[Frame] = [
    (_SCHED, 6368, "run_scheduler_process", "scheduler.run_event_loop()", None),
    (_SCHED, 2010, "run_event_loop", "dispatch_event_loop(self)", None),
    (_SCHED, 6215, "dispatch_event_loop", "return _dispatch_event_loop_once(scheduler)",
     "_dispatch_event_loop_once(scheduler)"),
    (_SCHED, 6231, "_dispatch_event_loop_once", "scheduler.event_loop_overlap()", None),
    ("torch/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)", "func(*args, **kwargs)"),
    (_SCHED, 2120, "event_loop_overlap", "pop_and_process()", None),
    (_SCHED, 2071, "pop_and_process", "self.process_batch_result(tmp_batch, tmp_result)", None),
    (_SCHED, 5092, "process_batch_result", "self.batch_result_processor.process_batch_result_decode(batch, result)",
     None),
    ("sglang/srt/managers/scheduler_components/batch_result_processor.py", 958, "process_batch_result_decode",
     "result.copy_done.synchronize()", None),
    ("torch/cuda/streams.py", 231, "synchronize", "super().synchronize()", None),
]
_RUNTIME_EXC = ("torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"
                "Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                "group__CUDART__TYPES.html for more information.\n"
                "CUDA kernel errors might be asynchronously reported at any other API call, so the stacktrace below "
                "might be incorrect.\n"
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


def format_frames(frames: list[Frame]) -> str:
    """Python 3.12's traceback frames: the source line, and carets under the failing expression unless it is the
    whole line."""
    out = []
    for path, line, func, src, under in frames:
        out.append(f'  File "{SITE}{path}", line {line}, in {func}\n    {src}\n')
        if under and under != src and under in src:
            out.append("    " + " " * src.index(under) + "^" * len(under) + "\n")
    return "".join(out)


def scheduler_exception(frames: list[Frame], exc: str) -> str:
    """The message of SGLang's `Scheduler hit an exception: {traceback}` record (it ends in a newline, so the
    record is followed by a blank line)."""
    return "Scheduler hit an exception: Traceback (most recent call last):\n" + format_frames(frames) + exc


def cuda_oom(gpu: int, total_gib: float, tried_gib: float, in_use_gib: float, graphs: bool = False) -> str:
    """torch's CUDA OOM message."""
    free_mib = max(total_gib - in_use_gib, 0.05) * 1024
    pools = ", with 1.50 GiB allocated in private pools (e.g., CUDA Graphs)," if graphs else ","
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried_gib:.2f} GiB. GPU {gpu} has a "
            f"total capacity of {total_gib:.2f} GiB of which {free_mib:.2f} MiB is free. Including non-PyTorch "
            f"memory, this process has {in_use_gib:.2f} GiB memory in use. Of the allocated memory "
            f"{in_use_gib - 6.46:.2f} GiB is allocated by PyTorch{pools} and 348.61 MiB is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
            "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n")


def load_crash_message(phase: str, kind: str, rank: int, cfg: ServerConfig, dep: Deployment,
                       mem: MemoryPlan) -> str:
    """The traceback one TP rank logs when the launch dies in `phase` with an error of `kind`."""
    total = dep.node.gpu_memory_gib
    if phase in ("weights", "draft"):
        head = _WEIGHTS if phase == "weights" else (_DRAFT_DFLASH if cfg.spec_algorithm == "DFLASH"
                                                     else _DRAFT_EAGLE)
        if kind == "quant":
            return scheduler_exception(_HEAD + head + _QUANT_TAIL, _QUANT_EXC)
        if kind == "import":
            return scheduler_exception(_HEAD + head + _IMPORT_CT_TAIL, _IMPORT_CT_EXC)
        return scheduler_exception(_HEAD + head + _LOAD_OOM_TAIL, cuda_oom(rank, total, 1.75, total - 0.67))
    if phase == "kv":
        if kind == "import":
            return scheduler_exception(_HEAD + _KV_IMPORT, _KV_IMPORT_EXC)
        layers = max(1, dep.model.num_layers)
        per_layer = max(mem.target_kv_gib, 1.0) / layers * 1.4
        return scheduler_exception(_HEAD + _KV_OOM, cuda_oom(rank, total, per_layer, total - 0.67))
    if kind == "import":
        return scheduler_exception(_HEAD + _GRAPHS + _GRAPHS_IMPORT, _GRAPHS_IMPORT_EXC)
    return scheduler_exception(_HEAD + _GRAPHS, cuda_oom(rank, total, 1.02, total - 0.67, graphs=True))


def runtime_crash_message() -> str:
    """The traceback a TP rank logs when the scheduler dies while serving (crash-at-step)."""
    return scheduler_exception(_RUNTIME, _RUNTIME_EXC)


def _kill_lines(running: bool) -> list[str]:
    pid = os.getpid()
    first = ("SIGQUIT received. signum=None, frame=None. It usually means one child failed." if running
             else "Received sigquit from a child process. It usually means the child failed.")
    return [first, f"kill_process_tree called: parent_pid={pid}, include_parent=True, pid={pid}"]


def crash_records(message_for_rank: Callable[[int], str], tp: int, rng: random.Random, running: bool
                  ) -> list[tuple[str, int | None]]:
    """The records of a scheduler crash, in SGLang's order: the first rank's traceback, the launcher's SIGQUIT
    handler lines, then the other ranks' tracebacks. (message, rank or None for the launcher)."""
    ranks = list(range(tp))
    rng.shuffle(ranks)
    out: list[tuple[str, int | None]] = [(message_for_rank(ranks[0]), ranks[0])]
    out += [(line, None) for line in _kill_lines(running)]
    out += [(message_for_rank(r), r) for r in ranks[1:]]
    return out


# ------------------------------------------------------------------------------------------------- startup


def inject_load_crash(tl: StartupTimeline, phase: str, kind: str, cfg: ServerConfig, dep: Deployment,
                      mem: MemoryPlan) -> StartupTimeline:
    """Cut a complete startup timeline where `phase` fails and append the crash: tracebacks, the launcher's
    SIGQUIT lines and the `kill` marker (which ends the process)."""
    from .startup import Event, StartupTimeline

    events = sorted(tl.events, key=lambda e: e.t)
    tp = cfg.tp_size

    def first(pred: Callable[[Event], bool], start: int = 0) -> int:
        for i in range(start, len(events)):
            if pred(events[i]):
                return i
        raise LookupError(phase)

    begins = [i for i, e in enumerate(events) if e.kind == "line" and e.text.startswith("Load weight begin.")]
    cut: int  # events[:cut] are kept
    if phase in ("weights", "draft"):
        group = begins[:tp] if phase == "weights" else begins[tp:2 * tp]
        last_begin = max(group)
        if kind == "oom":  # part-way through the shard bar
            bars = [i for i in range(last_begin, len(events)) if events[i].kind == "bar"]
            end = first(lambda e: e.kind == "line" and e.text.startswith("Load weight end."), last_begin)
            bars = [i for i in bars if i < end]
            cut = (bars[max(1, int(len(bars) * 0.4))] + 1) if len(bars) > 1 else last_begin + 1
        else:  # the quantization config is read before any shard loads
            cut = last_begin + 1
        t_crash = events[cut - 1].t + (0.4 if kind != "oom" else 0.1)
    elif phase == "kv":
        kv = first(lambda e: e.kind == "line" and e.text.startswith("KV Cache is allocated."))
        if kind == "oom":
            cut = kv
            t_crash = events[kv].t
        else:  # the attention backend is created after the pools
            pools = [i for i, e in enumerate(events) if e.kind == "line" and e.text.startswith("Memory pool end.")]
            cut = max(pools) + 1
            t_crash = events[cut - 1].t + 0.3
    else:  # graphs: in the first decode/verify capture (else the first capture; else where capture would be)
        try:
            start = first(lambda e: e.kind == "line" and e.text.startswith("Capture target ")
                          and "prefill" not in e.text and "CUDA graph begin." in e.text)
        except LookupError:
            try:
                start = first(lambda e: e.kind == "line" and "CUDA graph begin." in e.text)
            except LookupError:
                start = None
        if start is None:
            cut = first(lambda e: e.kind == "line" and e.text.startswith("max_total_num_tokens="))
            t_crash = events[cut].t
        else:
            frames = [i for i in range(start, len(events)) if events[i].kind == "bar"][:2]
            cut = (frames[-1] if frames else start) + 1
            t_crash = events[cut - 1].t + 0.2
    out = StartupTimeline(events=events[:cut])
    if out.events and out.events[-1].kind == "bar" and not out.events[-1].final:
        out.add(events[cut - 1].t, "bar", "", final=True)
    rng = random.Random(f"crash:{cfg.sim.seed}:{phase}:{kind}")
    for j, (text, rank) in enumerate(crash_records(
            lambda r: load_crash_message(phase, kind, r, cfg, dep, mem), tp, rng, running=False)):
        out.add(t_crash + 0.01 * j, "line", text, rank)
    out.add(t_crash + 0.01 * (tp + 3), "marker", "kill")
    return out
