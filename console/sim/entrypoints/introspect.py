"""The twin's introspection routes as SGLang 0.5.23 shapes them: /model_info, /server_info (internal states), /v1/loads,
and the twin-only /sim/info."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .errors import RequestError, input_length_refusal
from .wire import VERSION

if TYPE_CHECKING:
    from ..config.args import ServerConfig
    from ..config.deployment import Deployment
    from ..model.engine import Engine
    from ..model.memory import MemoryPlan
    from ..model.runtime import EngineRuntime
    from ..ops.faults import FaultState


class IntrospectionRoutes:
    """SimServer's reports of itself (read by /model_info, /server_info, /v1/loads, /sim/info)."""

    # set by SimServer.__init__ (this class is one of SimServer's parts)
    cfg: ServerConfig
    dep: Deployment
    mem: MemoryPlan
    engine: Engine
    runtime: EngineRuntime
    faults: FaultState
    metrics_enabled: bool
    context_len: int
    max_req_input_len: int
    http_open: bool
    ready: bool
    scheduler_startup_time: dict[str, Any]
    engine_startup_time: dict[str, Any]

    def model_info(self) -> dict[str, Any]:
        a, m = self.cfg.args, self.dep.model
        return {
            "model_path": a["model_path"], "served_model_name": a["served_model_name"],
            "tokenizer_path": a["tokenizer_path"], "is_generation": True, "preferred_sampling_params": None,
            "weight_version": a.get("weight_version", "default"), "load_format": a.get("load_format", "auto"),
            "reasoning_parser": a.get("reasoning_parser"), "tool_call_parser": a.get("tool_call_parser"),
            "disaggregation_mode": a.get("disaggregation_mode", "null"),
            "has_image_understanding": m.has_image_understanding, "has_audio_understanding": False,
            "model_type": m.model_type, "architectures": [m.architecture],
        }

    def internal_state(self, rank: int | None = None) -> dict[str, Any]:
        """One scheduler's state: with DP attention, `rank`'s (its own lifetime accept length)."""
        state = self.cfg.redacted_args()
        state.pop("custom_sigquit_handler", None)
        mem = self.mem
        graph = mem.graph_usage(self.cfg.is_spec)
        state["world_size"] = self.cfg.tp_size
        state["startup_time"] = self.scheduler_startup_time
        state["effective_max_running_requests_per_dp"] = self.engine.max_running
        state["last_gen_throughput"] = self.engine.last_gen_throughput
        state["memory_usage"] = {
            "weight": round(mem.weight_gib, 3), "kvcache": round(mem.kv_cache_gib, 3),
            "startup_available": round(mem.avail_before_weights_gib, 3),
            "token_capacity": int(mem.max_total_num_tokens), "token_capacity_swa": None,
            "graph": {k: round(v, 3) for k, v in graph.items()},
        }
        state["decode_cuda_graph_bs"] = list(self.mem.decode_capture_bs)
        state["decode_cuda_graph_memory_gb"] = round(
            sum(graph[p] for p in ("decode", "target_verify", "draft_decode", "draft_extend")), 3)
        if self.engine.adaptive is not None and self.engine.adaptive.switches:
            # the worker's context override ("adaptive_spec.restore") once a runtime state was switched
            state["speculative_num_steps"], state["speculative_num_draft_tokens"] = self.engine.active_spec()
        accept = self.engine.avg_spec_accept_length if rank is None else self.engine.rank_avg_spec_accept_length(rank)
        if accept is not None:
            state["avg_spec_accept_length"] = accept
        return state

    def server_info(self) -> dict[str, Any]:
        out = self.cfg.redacted_args()
        out["launch_command"] = self.cfg.launch_command
        out["status"] = "ready"
        out["max_total_num_tokens"] = self.mem.max_total_num_tokens
        out["max_req_input_len"] = self.max_req_input_len
        out["startup_time"] = self.engine_startup_time
        out["hicache_object_layout"] = {"enabled": False, "backend": None, "page_size": self.mem.page_size,
                                        "hicache_object_layout": {"pools": []},
                                        "reason": "Hierarchical cache is disabled"}
        out["kv_events"] = None
        n = self.engine.dp_ranks
        # one entry per DP rank, in the order the schedulers answered (no rank key; SGLang's communicator appends
        # as replies arrive): the twin answers in reverse, so rank 0 is not the first entry (bench_serving reads [0])
        out["internal_states"] = ([self.internal_state()] if n <= 1
                                  else [self.internal_state(r) for r in reversed(range(n))])
        out["version"] = VERSION
        out["frontend"] = "python"
        return out

    def loads(self, include: set[str] | None, rank: int = 0) -> dict[str, Any]:
        """/v1/loads' snapshot of one DP rank (its requests and acceptance; the KV pool is the node's)."""
        e, mem = self.engine, self.mem
        used = e.num_used_tokens()
        waiting_tokens = sum(r.prefill_target - r.prefilled for r in e.waiting)
        total = used + waiting_tokens
        stats = e.stats
        load: dict[str, Any] = {
            "timestamp": time.time(), "dp_rank": rank,
            "num_running_reqs": sum(r.dp_rank == rank for r in e.running) if e.dp_ranks > 1 else len(e.running),
            "num_waiting_reqs": sum(r.dp_rank == rank for r in e.waiting) if e.dp_ranks > 1 else len(e.waiting),
            "num_waiting_uncached_tokens": waiting_tokens,
            "num_used_tokens": used, "num_total_tokens": total, "num_active_tokens": total,
            "num_prealloc_ready_tokens": 0, "max_total_num_tokens": mem.max_total_num_tokens,
            "max_running_requests": e.max_running, "token_usage": round(used / mem.max_total_num_tokens, 4),
            # SGLang fills gen_throughput / accept_rate on the metrics-enabled path only (reference section 9).
            "gen_throughput": round(stats.gen_throughput, 2) if self.metrics_enabled else 0.0,
            "cache_hit_rate": round(stats.cache_hit_rate, 4), "utilization": 0.0,
            "total_prefill_uncached_tokens": e.total_prefill_uncached_tokens,
            "total_prefill_busy_us": e.total_prefill_busy_us,
            "decode_moments": [round(v, 1) for v in e.decode_moments] if e.decode_moments[0] > 0 else None,
        }
        if include == {"core"}:
            return load
        every = include is None or "all" in include
        include = include or set()  # None (everything) is `every` from here on
        graph = mem.graph_usage(self.cfg.is_spec)
        if every or "memory" in include:
            target_graphs = graph["prefill"] + graph["decode"] + graph["target_verify"]  # the target runner's only
            load["memory"] = {"weight_gb": round(mem.weight_gib, 3), "kv_cache_gb": round(mem.kv_cache_gib, 3),
                              "graph_gb": round(target_graphs, 3), "token_capacity": mem.max_total_num_tokens}
        accept = e.avg_spec_accept_length if e.dp_ranks <= 1 else e.rank_avg_spec_accept_length(rank)
        if (every or "spec" in include) and accept is not None:
            load["speculative"] = {"accept_length": accept,
                                   "accept_rate": stats.spec_accept_rate if self.metrics_enabled else 0.0}
        if every or "disagg" in include:
            load["disaggregation"] = {"mode": "null", "prefill_bootstrap_queue_reqs": 0,
                                      "prefill_inflight_queue_reqs": 0, "decode_prealloc_queue_reqs": 0,
                                      "decode_transfer_queue_reqs": 0, "decode_retracted_queue_reqs": 0,
                                      "kv_transfer_speed_gb_s": 0.0, "kv_transfer_latency_ms": 0.0}
        if every or "queues" in include:
            load["queues"] = {"waiting": len(e.waiting), "grammar": 0, "paused": 0,
                              "retracted": sum(1 for r in e.waiting if r.num_retractions > 0), "prealloc_ready": 0}
        return load

    def sim_info(self) -> dict[str, Any]:
        s = self.cfg.sim
        return {
            "engine_twin": True, "version": VERSION, "status": "ready" if self.ready else (
                "loaded" if self.http_open else "starting"),
            "time_scale": s.time_scale, "startup_scale": s.startup_scale, "seed": s.seed, "node_seed": s.node_seed,
            "node_speed_factor": self.engine.node.speed_factor, "launch_seed": self.engine.launch_seed,
            "launch_factor": self.engine.node.launch_factor, "domain": s.domain, "eos_rate": s.eos_rate,
            "deployment": {"name": self.dep.name, "description": self.dep.description, "path": self.dep.path},
            "node": ({"name": self.dep.fit.name, "path": self.dep.fit.path} if self.dep.fit is not None else None),
            "speculative_algorithm": self.cfg.spec_algorithm, "max_total_num_tokens": self.mem.max_total_num_tokens,
            "max_running_requests": self.engine.max_running, "model_clock_s": self.engine.clock,
            "trace_clock": "time.monotonic", "faults": self.faults.info(),
            "speculative": self._spec_info(), "pacing": self.runtime.pacing(),
        }

    def _spec_info(self) -> dict[str, Any] | None:
        if not self.cfg.is_spec:
            return None
        e = self.engine
        steps, ndt = e.active_spec()
        out: dict[str, Any] = {"num_steps": steps, "num_draft_tokens": ndt, "dummy_draft": self.cfg.spec_dummy_draft,
                               "adaptive": e.adaptive is not None}
        if e.adaptive is not None:
            out["adaptive_switches"] = e.adaptive.switches
            out["adaptive_slots"] = {str(bs): {"steps": sl.steps, "ema_accept_len": round(sl.ema, 3),
                                               "candidate_steps": sl.candidates} for bs, sl in e.adaptive.slots.items()}
        return out

    def _limits(self, prompt_tokens: int, max_new: int | None) -> int:
        if prompt_tokens >= self.context_len:
            raise RequestError(f"The input ({prompt_tokens} tokens) is longer than the model's context length "
                               f"({self.context_len} tokens).")
        if max_new is not None and max_new + prompt_tokens > self.context_len:
            raise RequestError(
                "Requested token count exceeds the model's maximum context length of "
                f"{self.context_len} tokens. You requested a total of {max_new + prompt_tokens} tokens: "
                f"{prompt_tokens} tokens from the input messages and {max_new} tokens for the completion. Please "
                "reduce the number of tokens in the input messages or the completion to fit within the limit.")
        if prompt_tokens >= self.max_req_input_len:  # the scheduler's validate_input_length (validate.py)
            raise input_length_refusal(prompt_tokens, self.max_req_input_len)
        return self.context_len - prompt_tokens if max_new is None else max_new
