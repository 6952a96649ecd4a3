"""The cold start: SGLang 0.5.23's startup log, with modeled phase durations, played in compressed time.

`build_startup` turns a launch (resolved args + memory plan + deployment) into a timeline of events at model
times -- log lines per TP rank, tqdm redraws, and the marker `http_up` (the scheduler is ready and the HTTP server
starts: routes serve from here) -- in SGLang's order (reference section 5):

resolution lines -> server_args -> Init parallel (per rank) -> target weights (shard bar on TP0, `Load weight end`
per rank in finishing order) -> draft weights (DFLASH: its draft runner lines) -> KV pools (target MLA, then
draft) -> target prefill graphs -> target decode/verify graphs -> EAGLE draft prefill, decode (TP0) and extend
(TP0) graphs or the DFLASH draft verify graphs -> capacity line (TP0) -> `Engine startup timings` -> uvicorn
start -> [warmup, run by the server] -> "The server is fired up and ready to roll!".

Weights dominate (554 GiB at ~1.05 GiB/s: ~9 minutes), graph capture takes about a minute, the rest seconds.
`StartupPlayer` plays the timeline, dividing model durations by time_scale * startup_scale; all `elapsed=`
fields and bar times stay in model time. A launch whose weights do not fit ends in a torch OOM traceback.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config.args import ServerConfig
from ..config.deployment import Deployment
from ..model.memory import MemoryPlan, OutOfMemory, effective_max_running_requests
from .logfmt import SimLog, tqdm_line


@dataclass
class Event:
    """One thing printed (or one state change) at model time `t` (seconds since launch)."""

    t: float
    kind: str  # "line", "bar", "uvicorn", "marker", "error"
    text: str = ""
    rank: int | None = None
    final: bool = False


@dataclass
class StartupTimeline:
    """The cold start as events plus the per-phase durations `/server_info` reports in `startup_time`."""

    events: list[Event] = field(default_factory=list)
    startup_time: dict[str, Any] = field(default_factory=dict)
    tokenizer_e2e: float = 0.0  #: model seconds from launch to the engine being up (the timings line)
    failed: bool = False

    def add(self, t: float, kind: str, text: str = "", rank: int | None = None, final: bool = False) -> None:
        self.events.append(Event(t, kind, text, rank, final))


def _bar_frames(tl: StartupTimeline, t0: float, duration: float, total: int, desc: str, bar_format: str | None,
                descs: list[str] | None = None, stop_at: int | None = None) -> float:
    """tqdm redraws of a bar that runs `total` steps evenly over `duration` (one redraw per step; with `descs`
    the description changes before each step, as `set_description` does). Returns the end time."""
    step = duration / total if total else 0.0
    tl.add(t0, "bar", tqdm_line(0, total, 0.0, "" if descs else desc, bar_format))
    end = total if stop_at is None else stop_at
    for i in range(end):
        if descs:
            tl.add(t0 + i * step, "bar", tqdm_line(i, total, i * step, descs[i], bar_format))
        d = descs[i] if descs else desc
        tl.add(t0 + (i + 1) * step, "bar", tqdm_line(i + 1, total, (i + 1) * step, d, bar_format),
               final=(stop_at is None and i + 1 == total))
    return t0 + end * step


def build_startup(cfg: ServerConfig, dep: Deployment, mem: MemoryPlan | None, oom: OutOfMemory | None = None,
                  log_server_args: Callable[[], str] | None = None) -> StartupTimeline:
    """The startup timeline of one launch. With `oom`, the timeline ends in the weight-loading crash."""
    st, tp = dep.startup, cfg.tp_size
    rng = random.Random(f"startup:{cfg.sim.node_seed}:{cfg.sim.seed}")
    tl = StartupTimeline()
    ranks = list(range(tp))
    t = 0.0
    for w in cfg.resolution_log:
        tl.add(t, "line", w)
    t += st.launcher_s
    tl.add(t, "line", log_server_args() if log_server_args else "server_args={}")
    t += st.process_spawn_s

    # --- parallel init ----------------------------------------------------------------------------------------
    begins = sorted((t + rng.uniform(0, 0.4), r) for r in ranks)
    for tb, r in begins:
        tl.add(tb, "line", "Init parallel begin.", r)
    ends = sorted((tb + st.init_parallel_s * rng.uniform(0.9, 1.1), r, tb) for tb, r in begins)
    for te, r, tb in ends:
        tl.add(te, "line", f"Init parallel ends. elapsed={te - tb:.2f} s", r)
    t = max(te for te, _, _ in ends) + 0.3

    # --- target weights -----------------------------------------------------------------------------------------
    avail0 = dep.node.gpu_memory_gib - dep.node.startup_overhead_gib
    rank_avail = {r: avail0 - rng.uniform(0.0, 0.02) for r in ranks}
    for r in ranks:
        tl.add(t + 0.05 * r, "line", f"Load weight begin. avail mem={rank_avail[r]:.2f} GB", r)
    load_s = dep.model.checkpoint_gib / st.weight_load_gibps
    shards = dep.model.checkpoint_shards
    if oom is not None:
        stop = max(1, int(shards * oom.fraction_loaded))
        t_end = _bar_frames(tl, t, load_s, shards, "Multi-thread loading shards", "completed", stop_at=stop)
        tl.add(t_end, "bar", "", final=True)
        trace = ("Scheduler hit an exception: Traceback (most recent call last):\n"
                 '  File "/sglang/srt/managers/scheduler.py", line 6360, in run_scheduler_process\n'
                 "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)\n"
                 '  File "/sglang/srt/model_executor/model_runner.py", line 1290, in load_model\n'
                 "    self.model = self.loader.load_model(model_config=self.model_config, "
                 "device_config=device_config)\n"
                 f"torch.OutOfMemoryError: {oom}\n")
        for r in ranks:
            tl.add(t_end + 0.1 * r, "line", trace, r)
        tl.add(t_end + 0.6, "error", "weights do not fit")
        tl.failed = True
        return tl
    assert mem is not None
    t_bar_end = _bar_frames(tl, t, load_s, shards, "Multi-thread loading shards", "completed")
    quant = f"{dep.model.quant_log}, " if dep.model.quant_log else ""
    finish = sorted((t + load_s * (1 + rng.uniform(-st.rank_spread, st.rank_spread)) if r else t_bar_end, r)
                    for r in ranks)
    for tf, r in finish:
        after = rank_avail[r] - mem.target_weights_gib
        tl.add(tf, "line", f"Load weight end. elapsed={tf - t:.2f} s, type={dep.model.architecture}, {quant}"
                           f"avail mem={after:.2f} GB, mem usage={mem.target_weights_gib:.2f} GB.", r)
    target_load = max(tf for tf, _ in finish) - t
    t = max(tf for tf, _ in finish) + 0.2

    # --- draft weights ------------------------------------------------------------------------------------------
    drafter = dep.drafter_for(cfg.spec_algorithm)
    draft_load = 0.0
    if drafter is not None and drafter.class_name:
        if cfg.args.get("speculative_draft_load_format"):
            for r in ranks:
                tl.add(t, "line", f"Using draft model load_format: '{cfg.args['speculative_draft_load_format']}'", r)
        for r in ranks:
            tl.add(t + 0.02 * r, "line",
                   f"Load weight begin. avail mem={rank_avail[r] - mem.target_weights_gib:.2f} GB", r)
        draft_shards = max(1, round(drafter.weights_gib / 4))
        load_s = drafter.weight_load_s * (0.1 if cfg.spec_dummy_draft else 1.0)  # dummy: random init, no reads
        t_bar_end = _bar_frames(tl, t, load_s, draft_shards, "Multi-thread loading shards", "completed")
        dfinish = sorted((t + load_s * (1 + rng.uniform(-0.05, 0.05)) if r else t_bar_end, r) for r in ranks)
        for tf, r in dfinish:
            after = rank_avail[r] - mem.target_weights_gib - mem.draft_weights_gib
            tl.add(tf, "line", f"Load weight end. elapsed={tf - t:.2f} s, type={drafter.class_name}, "
                               f"avail mem={after:.2f} GB, mem usage={mem.draft_weights_gib:.2f} GB.", r)
        draft_load = max(tf for tf, _ in dfinish) - t
        t = max(tf for tf, _ in dfinish) + 0.2
        if cfg.spec_adaptive:
            from ..model.adaptive import AdaptiveController
            ctl = AdaptiveController(cfg.spec_steps, cfg.args.get("speculative_adaptive_config"), None)
            first = ctl.slots[ctl.bs_keys[0]]
            tl.add(t, "line", f"AdaptiveSpeculativeParams initialized: steps={first.steps}, "
                              f"candidate_steps={first.candidates}", 0)
        if cfg.spec_algorithm == "DFLASH":
            window = cfg.args.get("speculative_draft_window_size")
            tl.add(t, "line", "Initialized DFLASH draft runner. attention_backend="
                              f"{cfg.args.get('speculative_draft_attention_backend') or 'flashinfer'}, "
                              f"model={drafter.class_name}, block_size={cfg.spec_draft_tokens}, "
                              f"draft_window_size={window}, compact_cache={window is not None}", 0)
            tl.add(t + 0.05, "line", f"DFLASH draft runner ready. mask_token={drafter.mask_token}, mask_token_id="
                                     f"{drafter.mask_token_id}, mask_token_id_override=None, noise_embed_scale=1.0", 0)
            t += 0.5

    if mem.max_total_num_tokens <= 0:
        msg = ("Scheduler hit an exception: Traceback (most recent call last):\n"
               '  File "/sglang/srt/model_executor/pool_configurator.py", line 97, in __post_init__\n'
               "    raise RuntimeError(msg)\n"
               "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
               f"mem_fraction_static={mem.mem_fraction_static}\n")
        for r in ranks:
            tl.add(t + st.kv_alloc_s + 0.1 * r, "line", msg, r)
        tl.add(t + st.kv_alloc_s + 0.6, "error", "no room for the KV pool")
        tl.failed = True
        return tl

    # --- KV pools -----------------------------------------------------------------------------------------------
    kv_start = t
    t += st.kv_alloc_s
    for r in ranks:
        avail_pool = rank_avail[r] - (mem.avail_before_weights_gib - mem.avail_after_pool_gib) + mem.draft_kv_gib
        tl.add(t + 0.01 * r, "line", f"KV Cache is allocated. dtype: {mem.kv_dtype}, #tokens: "
                                     f"{mem.max_total_num_tokens}, KV size: {mem.target_kv_gib:.2f} GB", r)
        tl.add(t + 0.02 + 0.01 * r, "line", f"Memory pool end. avail mem={avail_pool:.2f} GB", r)
    if mem.draft_cell_bytes > 0 and drafter is not None:
        t += st.kv_alloc_s * 0.3
        for r in ranks:
            avail_pool = rank_avail[r] - (mem.avail_before_weights_gib - mem.avail_after_pool_gib)
            if drafter.family == "dflash":
                half = mem.draft_kv_gib / 2
                kv_text = f"K size: {half:.2f} GB, V size: {half:.2f} GB"
            else:
                kv_text = f"KV size: {mem.draft_kv_gib:.2f} GB"
            tl.add(t + 0.01 * r, "line", f"KV Cache is allocated. dtype: {mem.draft_kv_dtype}, #tokens: "
                                         f"{mem.max_total_num_tokens}, {kv_text}", r)
            tl.add(t + 0.02 + 0.01 * r, "line", f"Memory pool end. avail mem={avail_pool:.2f} GB", r)
    kv_alloc = t - kv_start
    t += st.attention_backend_s

    # --- CUDA graphs ----------------------------------------------------------------------------------------------
    graph_time = {"prefill": 0.0, "decode": 0.0, "target_verify": 0.0, "draft_prefill": 0.0, "draft_decode": 0.0,
                  "draft_extend": 0.0}
    avail = mem.avail_after_pool_gib
    gcfg = cfg.args["cuda_graph_config"]
    spec = cfg.is_spec
    eagle_like = cfg.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
    bs = list(mem.decode_capture_bs)

    def all_ranks(t0: float, text: str) -> None:
        for r in ranks:
            tl.add(t0 + 0.01 * r, "line", text, r)

    def capture(t0: float, name: str, begin_extra: str, dur: float, usage: float, steps: list[str],
                rank0_only: bool, end_bs: bool) -> float:
        """One capture phase: begin line(s), a tqdm bar over `steps` (descriptions), end line(s)."""
        nonlocal avail
        begin = f"Capture {name} CUDA graph begin. {begin_extra}avail mem={avail:.2f} GB"
        if rank0_only:
            tl.add(t0, "line", begin, 0)
        else:
            all_ranks(t0, begin)
        _bar_frames(tl, t0, dur, len(steps), "", None, descs=steps)
        after = avail - usage
        end = (f"Capture {name} CUDA graph end. " + (f"bs={bs}, " if end_bs else "")
               + f"elapsed={dur:.2f} s, mem usage={usage:.2f} GB, avail mem={after:.2f} GB.")
        if rank0_only:
            tl.add(t0 + dur, "line", end, 0)
        else:
            all_ranks(t0 + dur + 0.01, end)
        avail = after
        return t0 + dur + 0.1

    def batch_descs(usage: float) -> list[str]:
        rev = list(reversed(bs))
        return [f"Capturing batches (bs={b} avail_mem={avail - usage * i / len(rev):.2f} GB)"
                for i, b in enumerate(rev)]

    if gcfg["prefill"]["backend"] != "disabled":
        shapes = list(reversed(gcfg["prefill"]["bs"]))
        descs = [f"Capturing prefill shape (num_tokens={n} "
                 f"avail_mem={avail - mem.prefill_graph_gib * i / len(shapes):.2f} GB)" for i, n in enumerate(shapes)]
        t = capture(t, "target prefill", f"backend={gcfg['prefill']['backend']}, num_tokens={gcfg['prefill']['bs']}, ",
                    st.prefill_graph_capture_s, mem.prefill_graph_gib, descs, rank0_only=False, end_bs=False)
        graph_time["prefill"] = st.prefill_graph_capture_s
    if gcfg["decode"]["backend"] != "disabled" and bs:
        backend = gcfg["decode"]["backend"]
        per_req = cfg.spec_draft_tokens if spec else 1
        dur = (st.verify_capture_s_per_bs if spec else st.graph_capture_s_per_bs) * len(bs)
        t = capture(t, "target verify" if spec else "target decode",
                    f"backend={backend}, num_tokens_per_req={per_req}, ", dur, mem.target_graph_gib,
                    batch_descs(mem.target_graph_gib), rank0_only=False, end_bs=True)
        graph_time["target_verify" if spec else "decode"] = dur
        if eagle_like and gcfg["prefill"]["backend"] != "disabled":
            shapes = list(reversed(gcfg["prefill"]["bs"]))
            t = capture(t, "draft prefill",
                        f"backend={gcfg['prefill']['backend']}, num_tokens={gcfg['prefill']['bs']}, ",
                        st.draft_prefill_capture_s, mem.draft_prefill_graph_gib,
                        [f"Capturing prefill shape (num_tokens={n} avail_mem={avail:.2f} GB)" for n in shapes],
                        rank0_only=False, end_bs=False)
            graph_time["draft_prefill"] = st.draft_prefill_capture_s
        if eagle_like and mem.draft_decode_graph_gib > 0:
            d = st.draft_capture_s_per_bs * len(bs)
            t = capture(t, "draft decode", f"backend={backend}, num_tokens_per_req={cfg.spec_topk}, bs={bs}, ", d,
                        mem.draft_decode_graph_gib, batch_descs(mem.draft_decode_graph_gib), rank0_only=True,
                        end_bs=False)
            graph_time["draft_decode"] = d
        if eagle_like:
            d = st.draft_capture_s_per_bs * len(bs)
            t = capture(t, "draft extend", f"backend={backend}, num_tokens_per_req={cfg.spec_draft_tokens}, bs={bs}, ",
                        d, mem.draft_extend_graph_gib, batch_descs(mem.draft_extend_graph_gib), rank0_only=True,
                        end_bs=False)
            graph_time["draft_extend"] = d
        elif cfg.spec_algorithm == "DFLASH":
            d = st.draft_capture_s_per_bs * len(bs)
            t = capture(t, "draft verify", f"backend={backend}, num_tokens_per_req={cfg.spec_draft_tokens}, ", d,
                        mem.draft_extend_graph_gib, batch_descs(mem.draft_extend_graph_gib), rank0_only=False,
                        end_bs=True)
            graph_time["target_verify"] += d
    if cfg.spec_adaptive and gcfg["decode"]["backend"] != "disabled" and bs:
        # init_states: one runtime state (target verify + draft graphs) per further candidate step count
        for steps in cfg.spec_adaptive_candidates:
            if steps == cfg.spec_steps:
                continue
            d = (st.verify_capture_s_per_bs + 2 * st.draft_capture_s_per_bs) * len(bs) * (0.5 if steps == 0 else 1.0)
            gib = mem.target_graph_gib * (steps + 1) / max(1, cfg.spec_draft_tokens)
            tl.add(t + d, "line", f"Built adaptive runtime state steps={steps}: elapsed={d:.2f}s, mem={gib:.2f}GB", 0)
            graph_time["target_verify"] += d
            t += d + 0.05
    t += st.post_capture_s
    max_running = effective_max_running_requests(cfg, dep, mem.max_total_num_tokens)
    a = cfg.args
    context_len = int(a.get("context_length") or dep.model.context_len)
    tl.add(t, "line", f"max_total_num_tokens={mem.max_total_num_tokens}, chunked_prefill_size="
                      f"{a['chunked_prefill_size']}, max_prefill_tokens={a['max_prefill_tokens']}, "
                      f"max_running_requests={max_running}, context_len={context_len}, "
                      f"available_gpu_mem={mem.final_avail_gib:.2f} GB", 0)
    scheduler_e2e = t - (st.launcher_s + st.process_spawn_s)
    tl.startup_time = {
        "load_weight": target_load + draft_load,
        "kv_cache_allocation": kv_alloc,
        "scheduler_e2e": scheduler_e2e,
        "cuda_graph": graph_time,
    }
    t += 0.8
    tl.tokenizer_e2e = t
    graphs = ", ".join(f"{phase}={sec:.2f}" for phase, sec in graph_time.items())
    tl.add(t, "line", f"Engine startup timings (s): load_weight={target_load + draft_load:.2f}, kv_cache_allocation="
                      f"{kv_alloc:.2f}, scheduler_e2e={scheduler_e2e:.2f}, cuda_graph={{{graphs}}}, "
                      f"tokenizer_e2e={t:.2f}")
    t += st.http_start_s
    tl.add(t, "marker", "http_up")
    return tl


class StartupPlayer:
    """Plays a timeline: sleeps (model delta) / divisor between events, then prints or signals them."""

    def __init__(self, timeline: StartupTimeline, log: SimLog, divisor: float,
                 on_marker: Callable[[str], Any]) -> None:
        self.timeline = timeline
        self.log = log
        self.divisor = divisor
        self.on_marker = on_marker

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        for ev in sorted(self.timeline.events, key=lambda e: e.t):
            delay = start + ev.t / self.divisor - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            if ev.kind == "line":
                self.log.line(ev.text, ev.rank)
            elif ev.kind == "bar":
                self.log.bar(ev.text, final=ev.final)
            elif ev.kind in ("marker", "error"):
                result = self.on_marker(ev.text if ev.kind == "marker" else "error")
                if asyncio.iscoroutine(result):
                    await result
