"""`/metrics`: SGLang's Prometheus families, rendered the way its multiprocess collector prints them.

Shape (reference section 10): `sglang:` prefix, labels sorted alphabetically, no `_created` samples, counters
named `..._total` on HELP/TYPE/sample lines, histogram series as `_sum`, the `_bucket`s (with `le` sorted among
the labels), then `_count`; constants (capacity, memory, context_len) once per TP rank in unsorted rank order;
load and speculative gauges only for tp_rank="0"; tokenizer-side families carry `model_name`/`engine_type`
(+ `is_streaming`). Labelled counters and histograms appear only after first use. Scheduler gauges hold the
values of the last scheduler log line (SGLang refreshes them every decode-log interval and on prefill logs).
Durations are model time. Every family SGLang 0.5.23 registers on a single-node, non-disaggregated server is
exported with its type and labels (the list is tests/differential's real /metrics); families of machinery the twin
does not model carry SGLang's values for a server without it: disaggregation queues, SWA and mamba pools,
prealloc usage, routing keys and DP attention 0, `utilization` 0 (0.5.23 never sets it: no
max_running_requests_under_SLO), `fwd_occupancy` NaN (no forward-pass device timer), `spec_cap_length` and
`spec_block_accept_length` 0 (DSpark only). The twin is one process: `process_cpu_seconds_total{component=
"tokenizer"}` and `scheduler_process_cpu_seconds_total` both read its CPU time (the detokenizer's is 0).
`realtime_tokens_total` and `prefill_effective_tokens_total` count at each forward (SGLang adds them at each log
interval). HTTP families count every route as SGLang's middleware does (the route's path template, unmatched paths
as sent), from the moment the HTTP server opens.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.utils import floatToGoString

from ..model.engine import EngineObserver, RequestOutput, SchedulerStats, SimRequest, StepPlan

TTFT_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400]
E2E_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400]
QUEUE_BUCKETS = [0.0, 0.001, 0.005, 0.010, 0.050, 0.100, 0.200, 0.500, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70,
                 80, 90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500,
                 3000]
#: prompt_tokens_histogram / uncached_prompt_tokens_histogram / generation_tokens_histogram (SGLang's defaults)
TOKENS_BUCKETS: list[float] = [100, 300, 500, 700, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000,
                               10000, 12500, 15000, 17500, 20000, 22500, 25000, 27500, 30000, 35000, 40000, 60000,
                               80000, 100000, 200000, 300000, 400000, 600000, 800000, 1000000, 1100000]
#: per_stage_req_latency_seconds: exponential_buckets(start=0.001, width=1.62, length=30)
STAGE_BUCKETS = [0.001 * 1.62 ** i for i in range(30)]
DP_IMBALANCE_BUCKETS = [1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0, 45.0, 60.0]
DP_SYNC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0]
#: routing_key_*_req_count: (gt, le] request-count bands
ROUTING_BANDS = [("0", "1"), ("1", "2"), ("2", "3"), ("3", "5"), ("5", "7"), ("7", "10"), ("10", "20"), ("20", "50"),
                 ("50", "100"), ("100", "200"), ("200", "+Inf")]
SCHEDULER_STAGES = ("other", "recv_requests", "process_input_requests", "get_next_batch_to_run", "process_queue",
                    "run_batch", "process_batch_result", "sanity_check_cache", "idle")
GRAPH_PHASES = ("prefill", "decode", "target_verify", "draft_prefill", "draft_decode", "draft_extend")
ITL_BUCKETS = [0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060, 0.080, 0.100,
               0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000]

HELP = {
    "num_running_reqs": "The number of running requests.",
    "num_queue_reqs": "The number of requests in the waiting queue.",
    "gen_throughput": "The generation throughput (token/s).",
    "cache_hit_rate": "The prefix cache hit rate.",
    "token_usage": "The token usage.",
    "num_used_tokens": "The number of used tokens.",
    "spec_accept_length": "Mean acceptance length of speculative decoding (accepted drafts + bonus token per "
                          "forward).",
    "spec_accept_rate": "Speculative acceptance rate (`accepted drafts / proposed drafts` in batch).",
    "spec_num_steps": "Currently active speculative_num_steps.",
    "spec_num_draft_tokens": "Currently active speculative_num_draft_tokens (decouples from steps under topk>1).",
    "num_grammar_queue_reqs": "The number of requests in the grammar waiting queue.",
    "kv_available_tokens": "Number of free token slots in the KV cache pool.",
    "new_token_ratio": "The new token ratio.",
    "num_retracted_reqs": "The number of retracted requests.",
    "num_retracted_requests_total": "Total number of retracted requests.",
    "num_retracted_input_tokens_total": "Total number of retracted input tokens.",
    "num_retracted_output_tokens_total": "Total number of retracted output tokens.",
    "queue_time_seconds": "Histogram of queueing time in seconds.",
    "max_total_num_tokens": "Maximum total number of tokens in the KV cache pool.",
    "weight_memory_usage_gb": "Memory used by model weights in GB.",
    "kv_cache_memory_usage_gb": "Memory used by the KV cache pools in GB.",
    "graph_memory_usage_gb": "Memory used by captured device graphs in GB.",
    "context_len": "Maximum context length.",
    "startup_available_gpu_memory_gb": "Available GPU memory in GB at startup.",
    "prompt_tokens_total": "Number of prefill tokens processed.",
    "generation_tokens_total": "Number of generation tokens processed.",
    "spec_verify_calls_total": "Number of speculative decoding verification calls.",
    "num_requests_total": "Number of requests processed.",
    "num_aborted_requests_total": "Number of requests aborted.",
    "num_so_requests_total": "Number of structured output requests processed.",
    "time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "e2e_request_latency_seconds": "Histogram of End-to-end request latency in seconds",
    "process_cpu_seconds_total": "Total CPU time consumed by this process (user + system)",
    "http_requests_total": "Total number of HTTP requests by endpoint and method",
    "http_responses_total": "Total number of HTTP responses by endpoint and status code",
    "http_requests_active": "Number of currently active HTTP requests",
    "routing_keys_active": "Number of unique routing keys with active requests",
    "cached_tokens_total": "Number of cached prompt tokens by source (device/host/storage).",
    "request_time_per_output_token_seconds": "Per-request TPOT in seconds: (finished_time - first_token_time) / "
                                             "(completion_tokens - 1).",
    "prompt_tokens_histogram": "Histogram of prompt token length.",
    "uncached_prompt_tokens_histogram": "Histogram of uncached (compute) prompt token length.",
    "generation_tokens_histogram": "Histogram of generation token length.",
    "dp_attention_token_imbalance_ratio": "Per MLP-sync step, max tokens over mean tokens across the DP ranks (1.0 = "
                                          "balanced, num_dp_ranks = one busy rank). Reported once per engine, by the "
                                          "scheduler of DP rank 0.",
    "dp_attention_sync_wait_seconds": "Wall time of this DP rank's scheduler MLP-sync all-gather per step. On the "
                                      "gloo path (the default with overlap scheduling) this is waiting for the "
                                      "slowest rank; on the device-group paths it also includes the gather's stream "
                                      "sync.",
    "per_stage_req_latency_seconds": "The latency of each stage of requests.",
    "page_size": "KV cache page size in tokens.",
    "num_pages": "Number of KV cache pages.",
    "decode_sum_seq_lens": "The sum of all sequence lengths in decode.",
    "full_token_usage": "The token usage for full attention layers.",
    "swa_token_usage": "The token usage for SWA layers.",
    "mamba_usage": "The token usage for Mamba layers.",
    "kv_evictable_tokens": "Number of evictable (radix-cached) token slots in the KV cache pool.",
    "kv_used_tokens": "Number of actively used token slots in the KV cache pool.",
    "swa_available_tokens": "Number of free token slots in the SWA pool (hybrid-SWA only).",
    "swa_evictable_tokens": "Number of evictable (radix-cached) token slots in the SWA pool.",
    "swa_used_tokens": "Number of actively used token slots in the SWA pool.",
    "mamba_available_tokens": "Number of free state slots in the mamba SSM pool (hybrid-SSM only).",
    "mamba_evictable_tokens": "Number of evictable (radix-cached) state slots in the mamba SSM pool.",
    "mamba_used_tokens": "Number of actively used state slots in the mamba SSM pool.",
    "spec_cap_length": "Mean DSpark confidence-scheduled verify window per verify step, incl the bonus slot (0 when no "
                       "cap is scheduled).",
    "spec_block_accept_length": "Mean uncapped full-block accept length per verify step (accept + cap-trimmed "
                                "drafts; exact only in DSpark cap-accept mode).",
    "num_prefill_bootstrap_queue_reqs": "The number of requests in the prefill bootstrap queue.",
    "num_prefill_inflight_queue_reqs": "The number of requests in the prefill inflight queue.",
    "num_decode_prealloc_queue_reqs": "The number of requests in the decode prealloc queue.",
    "num_decode_transfer_queue_reqs": "The number of requests in the decode transfer queue.",
    "num_decode_host_receive_queue_reqs": "Requests in the decode transfer queue receiving into host memory or "
                                          "waiting for device admission.",
    "num_decode_deferred_kv_release_reqs": "The number of failed decode requests whose KV allocations are held "
                                           "pending transfer drain acknowledgement or timeout.",
    "pending_prealloc_token_usage": "The token usage for pending preallocated tokens (not preallocated yet).",
    "prealloc_full_token_usage": "Share of the full-attention KV pool held by decode requests whose KV transfer is "
                                 "pending (preallocated, not yet running); same capacity basis as "
                                 "sglang:full_token_usage.",
    "prealloc_swa_token_usage": "Share of the SWA KV pool held by decode requests whose KV transfer is pending; same "
                                "capacity basis as sglang:swa_token_usage.",
    "utilization": "The utilization.",
    "fwd_occupancy": "Forward pass GPU occupancy percentage.",
    "is_cuda_graph": "Whether the batch is using CUDA graph.",
    "num_unique_running_routing_keys": "Number of unique routing keys in running batch.",
    "routing_key_running_req_count": "Distribution of routing keys by running request count (gt < count <= le).",
    "routing_key_all_req_count": "Distribution of routing keys by running+waiting request count (gt < count <= le).",
    "num_paused_reqs": "The number of paused requests by async weight sync.",
    "startup_time_seconds": "Engine startup duration by phase in seconds.",
    "startup_cuda_graph_time_seconds": "CUDA graph capture duration by phase in seconds.",
    "prefill_effective_tokens_total": "Effective prefill tokens with retracted-request re-counts excluded, updated on "
                                      "each log interval. mode: device_hit, host_hit, storage_hit, input. Windowed "
                                      "prefix cache hit rate = rate(sum of *_hit) / rate(sum of all modes); per-tier "
                                      "rate uses a single *_hit mode in the numerator.",
    "scheduler_idle_seconds_total": "Total wall time while the scheduler has no runnable or queued work.",
    "scheduler_process_cpu_seconds_total": "Total CPU time consumed by the scheduler process across all threads.",
    "scheduler_stage_seconds_total": "Total scheduler-loop wall time exclusively attributed to each stage. "
                                     "forward_overlap (full, partial, none): full=both endpoints active, partial=one, "
                                     "none=no observed overlap (including unavailable timing). Not exact "
                                     "overlapped/exposed seconds.",
    "dp_attention_tokens_total": "Tokens of MLP-sync steps on this DP rank. kind=scheduled: tokens this rank ran; "
                                 "kind=imbalance: tokens the busiest rank ran beyond this rank, i.e. capacity lost "
                                 "to DP imbalance on this rank. On speculative-decode steps the unit is batch rows "
                                 "(requests).",
    "dp_attention_steps_total": "MLP-sync steps on this DP rank. rank_state=idle: this rank had no tokens and only "
                                "ran to keep the DP collectives in lockstep.",
    "dp_attention_pairs_total": "Causal (query, key) pairs attended by MLP-sync steps on this DP rank, pricing every "
                                "layer as full attention: a decode row reads its sequence, a prefill chunk its "
                                "prefix plus the pairs within the chunk. kind=scheduled: this rank; kind=imbalance: "
                                "the busiest rank's excess over this rank. The context-length counterpart of "
                                "sglang:dp_attention_tokens_total; like it, speculative-decode steps count one "
                                "query per row. Sliding-window layers execute fewer pairs than counted, so on "
                                "hybrid-SWA models long rows are overstated.",
    "cuda_graph_passes_total": "Total number of forward passes categorized by CUDA graph.",
    "realtime_tokens_total": "Total number of tokens processed (updated on each log interval). mode: "
                             "prefill_compute, prefill_cache, decode.",
}

Labels = tuple[tuple[str, str], ...]


def _labels(d: dict[str, str]) -> Labels:
    return tuple(sorted(d.items()))


def _fmt_labels(labels: Labels) -> str:
    return "{" + ",".join(f'{k}="{v}"' for k, v in labels) + "}" if labels else ""


@dataclass
class _Histogram:
    buckets: list[float]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * (len(self.buckets) + 1)

    def observe(self, value: float, times: int = 1) -> None:
        self.counts[bisect.bisect_left(self.buckets, value)] += times
        self.total += value * times
        self.n += times


@dataclass
class ConstantGauges:
    """Per-rank constants emitted at startup (`emit_constants`)."""

    max_total_num_tokens: int
    weight_gb: float
    kv_cache_gb: float
    graph_gb: dict[str, float]
    context_len: int
    startup_available_gb: float
    spec_num_steps: int
    spec_num_draft_tokens: int
    page_size: int = 1
    num_pages: int = 0


class MetricsStore(EngineObserver):
    """Counters and histograms fed by the engine and the HTTP middleware; `render()` produces the exposition
    text."""

    def __init__(self, model_name: str, tp_size: int, constants: ConstantGauges, spec: bool) -> None:
        self.model_name = model_name
        self.tp_size = tp_size
        self.constants = constants
        self.spec = spec
        self.stats = SchedulerStats()
        self.counters: dict[str, dict[Labels, float]] = {}
        self.histograms: dict[str, dict[Labels, _Histogram]] = {}
        # Unsorted TP-rank order, as the multiprocess .db glob yields it (2, 1, 3, 0 at TP4).
        self.rank_order = [2, 1, 3, 0] if tp_size == 4 else list(range(tp_size - 1, -1, -1))
        # --- scheduler-loop accounting (model seconds) and the last batch ------------------------------------
        self.busy_s = 0.0
        self.is_cuda_graph = 0.0
        self.graph_passes: dict[str, int] = {}
        self.realtime_tokens = {"prefill_compute": 0, "decode": 0, "prefill_cache": 0}
        self.effective_tokens = {"input": 0, "device_hit": 0, "host_hit": 0, "storage_hit": 0}
        #: the model clock now (set by the server: the runtime's wall-derived model time)
        self.model_now: Callable[[], float] = lambda: self.busy_s
        #: startup phases (server_info's startup_time plus tokenizer_e2e), set once the launch reached them
        self.startup: dict[str, Any] = {}
        # --- HTTP (observability/http_request_metrics.py) ------------------------------------------------------
        self.http_requests: dict[tuple[str, str], int] = {}
        self.http_responses: dict[tuple[str, str, str], int] = {}
        self.http_active: dict[tuple[str, str], int] = {}
        self.routing_keys: dict[str, int] = {}

    # --- EngineObserver ---------------------------------------------------------------------------------------

    def _tok_labels(self, streaming: bool | None = None) -> Labels:
        d = {"engine_type": "unified", "model_name": self.model_name}
        if streaming is not None:
            d["is_streaming"] = "true" if streaming else "false"
        return _labels(d)

    def _inc(self, name: str, labels: Labels, value: float) -> None:
        fam = self.counters.setdefault(name, {})
        fam[labels] = fam.get(labels, 0.0) + value

    def _hist(self, name: str, labels: Labels, buckets: list[float]) -> _Histogram:
        fam = self.histograms.setdefault(name, {})
        h = fam.get(labels)
        if h is None:
            h = fam[labels] = _Histogram(buckets)
        return h

    def on_output(self, req: SimRequest, out: RequestOutput, gap_s: float | None) -> None:
        if not req.log_metrics:
            return
        if gap_s is None:
            self._hist("time_to_first_token_seconds", self._tok_labels(req.stream), TTFT_BUCKETS).observe(
                out.model_time_s - req.arrival_s)
            if req.admitted_s is not None:  # forward entry -> prefill finished
                self._hist("per_stage_req_latency_seconds", self._sched_labels(0, stage="prefill_forward"),
                           STAGE_BUCKETS).observe(out.model_time_s - req.admitted_s)
        elif out.new_tokens > 0:
            self._hist("inter_token_latency_seconds", self._tok_labels(), ITL_BUCKETS).observe(
                gap_s / out.new_tokens, out.new_tokens)

    def on_finish(self, req: SimRequest) -> None:
        if not req.log_metrics:
            return
        lab = self._tok_labels(req.stream)
        self._inc("prompt_tokens_total", lab, req.prompt_tokens)
        self._inc("generation_tokens_total", lab, req.n_out)
        self._inc("num_requests_total", lab, 1)
        if req.has_grammar:
            self._inc("num_so_requests_total", self._tok_labels(), 1)
        self._inc("cached_tokens_total", _labels({"cache_source": "device", "engine_type": "unified",
                                                  "model_name": self.model_name}), req.cached_tokens)
        if req.spec_verify_ct:
            self._inc("spec_verify_calls_total", self._tok_labels(), req.spec_verify_ct)
        self._hist("e2e_request_latency_seconds", lab, E2E_BUCKETS).observe(
            (req.finish_s or 0.0) - req.arrival_s)
        if req.first_token_s is not None and req.finish_s is not None and req.n_out > 1:
            self._hist("request_time_per_output_token_seconds", lab, ITL_BUCKETS).observe(
                (req.finish_s - req.first_token_s) / (req.n_out - 1))
        plain = self._tok_labels()
        self._hist("prompt_tokens_histogram", plain, TOKENS_BUCKETS).observe(req.prompt_tokens)
        self._hist("uncached_prompt_tokens_histogram", plain, TOKENS_BUCKETS).observe(
            req.prompt_tokens - req.cached_tokens)
        self._hist("generation_tokens_histogram", plain, TOKENS_BUCKETS).observe(req.n_out)

    def on_abort(self, req: SimRequest) -> None:
        if req.log_metrics:
            self._inc("num_aborted_requests_total", self._tok_labels(), 1)

    def on_scheduler_stats(self, stats: SchedulerStats) -> None:
        self.stats = stats

    def on_admit(self, req: SimRequest) -> None:
        if req.log_metrics and req.admitted_s is not None:
            self._hist("queue_time_seconds", self._sched_labels(0), QUEUE_BUCKETS).observe(
                req.admitted_s - req.arrival_s)
            # scheduler receipt -> waiting queue: the twin queues a request the moment it arrives
            self._hist("per_stage_req_latency_seconds", self._sched_labels(0, stage="request_process"),
                       STAGE_BUCKETS).observe(0.0)

    def on_retract(self, reqs: list[SimRequest]) -> None:
        lab = self._sched_labels(0)
        self._inc("num_retracted_requests_total", lab, len(reqs))
        self._inc("num_retracted_input_tokens_total", lab, sum(r.prompt_tokens for r in reqs))
        self._inc("num_retracted_output_tokens_total", lab, sum(r.n_out for r in reqs))

    def on_forward(self, plan: StepPlan, fresh_tokens: int, cached_tokens: int, generated: int) -> None:
        self.busy_s += plan.duration_s
        self.is_cuda_graph = 1.0 if plan.graph else 0.0
        mode = f"{plan.kind}_cuda_graph" if plan.graph else f"{plan.kind}_none"
        self.graph_passes[mode] = self.graph_passes.get(mode, 0) + 1
        if plan.kind == "prefill":
            self.realtime_tokens["prefill_compute"] += sum(t for _, t in plan.chunks)
            self.realtime_tokens["prefill_cache"] += cached_tokens
            self.effective_tokens["input"] += fresh_tokens
            self.effective_tokens["device_hit"] += cached_tokens
        else:
            self.realtime_tokens["decode"] += generated

    # --- HTTP middleware ----------------------------------------------------------------------------------------

    def http_started(self, endpoint: str, method: str, routing_key: str | None) -> None:
        key = (endpoint, method)
        self.http_requests[key] = self.http_requests.get(key, 0) + 1
        self.http_active[key] = self.http_active.get(key, 0) + 1
        if routing_key:
            self.routing_keys[routing_key] = self.routing_keys.get(routing_key, 0) + 1

    def http_responded(self, endpoint: str, method: str, status: int) -> None:
        key = (endpoint, method, str(status))
        self.http_responses[key] = self.http_responses.get(key, 0) + 1

    def http_done(self, endpoint: str, method: str, routing_key: str | None) -> None:
        self.http_active[(endpoint, method)] -= 1
        if routing_key and routing_key in self.routing_keys:
            self.routing_keys[routing_key] -= 1
            if self.routing_keys[routing_key] <= 0:
                del self.routing_keys[routing_key]

    # --- exposition -------------------------------------------------------------------------------------------

    def _sched_labels(self, rank: int, **extra: str) -> Labels:
        d = {"engine_type": "unified", "model_name": self.model_name, "moe_ep_rank": "0", "pp_rank": "0",
             "tp_rank": str(rank)}
        d.update(extra)
        return _labels(d)

    def render(self) -> str:
        lines: list[str] = []

        def family(name: str, kind: str) -> None:
            full = f"sglang:{name}"
            lines.append(f"# HELP {full} {HELP[name]}")
            lines.append(f"# TYPE {full} {kind}")

        def sample(name: str, labels: Labels, value: float) -> None:
            lines.append(f"sglang:{name}{_fmt_labels(labels)} {floatToGoString(value)}")

        def histogram(name: str, fam: dict[Labels, _Histogram]) -> None:
            family(name, "histogram")
            for labels, h in fam.items():
                sample(f"{name}_sum", labels, h.total)
                cum = 0
                for bound, count in zip(h.buckets + [float("inf")], h.counts, strict=True):
                    cum += count
                    sample(f"{name}_bucket", _labels(dict(labels) | {"le": floatToGoString(bound)}), cum)
                sample(f"{name}_count", labels, h.n)

        s, c = self.stats, self.constants
        sched0 = self._sched_labels(0)
        cpu = sum(os.times()[:2])
        # tokenizer-process families
        family("process_cpu_seconds_total", "counter")
        sample("process_cpu_seconds_total", (("component", "tokenizer"),), cpu)
        sample("process_cpu_seconds_total", (("component", "detokenizer"),), 0.0)
        if self.http_requests:
            family("http_requests_total", "counter")
            for (ep, m), n in self.http_requests.items():
                sample("http_requests_total", (("endpoint", ep), ("method", m)), n)
        if self.http_responses:
            family("http_responses_total", "counter")
            for (ep, m, st), n in self.http_responses.items():
                sample("http_responses_total", (("endpoint", ep), ("method", m), ("status_code", st)), n)
        load = [("num_running_reqs", s.num_running_reqs), ("num_queue_reqs", s.num_queue_reqs),
                ("num_grammar_queue_reqs", 0), ("gen_throughput", s.gen_throughput),
                ("cache_hit_rate", s.cache_hit_rate), ("decode_sum_seq_lens", s.decode_sum_seq_lens),
                ("token_usage", s.token_usage),
                ("full_token_usage", s.num_used_tokens / c.max_total_num_tokens if c.max_total_num_tokens else 0.0),
                ("swa_token_usage", 0), ("mamba_usage", 0),
                ("num_used_tokens", s.num_used_tokens), ("kv_available_tokens", s.kv_available_tokens),
                ("kv_evictable_tokens", s.kv_evictable_tokens), ("kv_used_tokens", s.num_used_tokens),
                ("swa_available_tokens", 0), ("swa_evictable_tokens", 0), ("swa_used_tokens", 0),
                ("mamba_available_tokens", 0), ("mamba_evictable_tokens", 0), ("mamba_used_tokens", 0)]
        if self.spec:
            steps = c.spec_num_steps if s.spec_num_steps is None else s.spec_num_steps
            ndt = c.spec_num_draft_tokens if s.spec_num_draft_tokens is None else s.spec_num_draft_tokens
            load += [("spec_accept_length", s.spec_accept_length), ("spec_accept_rate", s.spec_accept_rate)]
        else:  # SGLang registers them without speculation too, at 0
            steps = ndt = 0
            load += [("spec_accept_length", 0.0), ("spec_accept_rate", 0.0)]
        load += [("spec_cap_length", 0.0), ("spec_block_accept_length", 0.0), ("spec_num_steps", steps),
                 ("spec_num_draft_tokens", ndt)]
        load += [(name, 0) for name in (
            "num_prefill_bootstrap_queue_reqs", "num_prefill_inflight_queue_reqs", "num_decode_prealloc_queue_reqs",
            "num_decode_transfer_queue_reqs", "num_decode_host_receive_queue_reqs",
            "num_decode_deferred_kv_release_reqs", "pending_prealloc_token_usage", "prealloc_full_token_usage",
            "prealloc_swa_token_usage", "utilization")]
        load += [("fwd_occupancy", float("nan")), ("new_token_ratio", s.new_token_ratio),
                 ("is_cuda_graph", self.is_cuda_graph), ("num_unique_running_routing_keys", 0)]
        ranks = s.ranks
        per_rank = {"num_running_reqs": 0, "num_queue_reqs": 1, "spec_accept_length": 2, "spec_accept_rate": 3}
        for name, value in load:
            family(name, "gauge")
            if not ranks:
                sample(name, sched0, float(value))
                continue
            # DP attention: every rank's scheduler exports its own series (attn_tp_rank 0 on each), labelled
            # dp_rank; running/queued requests and acceptance are the rank's own, the rest the node's
            for i, own in enumerate(ranks):
                mine = name in ("num_running_reqs", "num_queue_reqs") or (self.spec and name in per_rank)
                sample(name, self._sched_labels(i, dp_rank=str(i)), float(own[per_rank[name]] if mine else value))
        for name in ("routing_key_running_req_count", "routing_key_all_req_count"):
            family(name, "gauge")
            for gt, le in ROUTING_BANDS:
                sample(name, _labels(dict(sched0) | {"gt": gt, "le": le}), 0.0)
        family("routing_keys_active", "gauge")
        sample("routing_keys_active", (), float(len(self.routing_keys)))
        if self.http_active:
            family("http_requests_active", "gauge")
            for (ep, m), n in self.http_active.items():
                sample("http_requests_active", (("endpoint", ep), ("method", m)), float(n))
        pid = str(os.getpid())
        for name, value in (("num_retracted_reqs", s.num_retracted_reqs), ("num_paused_reqs", 0)):
            family(name, "gauge")  # declared without a multiprocess mode: one sample per process
            sample(name, _labels(dict(sched0) | {"pid": pid}), float(value))
        for name, value in (("max_total_num_tokens", c.max_total_num_tokens), ("weight_memory_usage_gb", c.weight_gb),
                            ("kv_cache_memory_usage_gb", c.kv_cache_gb), ("page_size", c.page_size),
                            ("num_pages", c.num_pages), ("context_len", c.context_len),
                            ("startup_available_gpu_memory_gb", c.startup_available_gb)):
            family(name, "gauge")
            for rank in self.rank_order:
                sample(name, self._sched_labels(rank), float(value))
        family("graph_memory_usage_gb", "gauge")
        for rank in self.rank_order:
            for phase, gb in c.graph_gb.items():
                sample("graph_memory_usage_gb", self._sched_labels(rank, phase=phase), gb)
        if self.startup:
            tok = self._tok_labels()
            family("startup_time_seconds", "gauge")
            for phase in ("load_weight", "kv_cache_allocation", "scheduler_e2e", "tokenizer_e2e"):
                if isinstance(self.startup.get(phase), (int, float)):
                    sample("startup_time_seconds", _labels(dict(tok) | {"phase": phase}), float(self.startup[phase]))
            family("startup_cuda_graph_time_seconds", "gauge")
            graphs = self.startup.get("cuda_graph") or {}
            for phase in GRAPH_PHASES:
                sample("startup_cuda_graph_time_seconds", _labels(dict(tok) | {"phase": phase}),
                       float(graphs.get(phase, 0.0)))
        for name in ("prompt_tokens_total", "generation_tokens_total", "num_requests_total", "cached_tokens_total",
                     "num_so_requests_total", "spec_verify_calls_total", "num_aborted_requests_total",
                     "num_retracted_requests_total", "num_retracted_input_tokens_total",
                     "num_retracted_output_tokens_total"):
            fam = self.counters.get(name)
            if not fam:
                continue
            family(name, "counter")
            for labels, value in fam.items():
                sample(name, labels, value)
        # scheduler-loop counters (model seconds: the modelled node's scheduler)
        family("prefill_effective_tokens_total", "counter")
        for mode, n in self.effective_tokens.items():
            sample("prefill_effective_tokens_total", _labels(dict(sched0) | {"mode": mode}), n)
        idle = max(0.0, self.model_now() - self.busy_s)
        family("scheduler_idle_seconds_total", "counter")
        sample("scheduler_idle_seconds_total", sched0, idle)
        family("scheduler_process_cpu_seconds_total", "counter")
        sample("scheduler_process_cpu_seconds_total", sched0, cpu)
        family("scheduler_stage_seconds_total", "counter")
        for cat in SCHEDULER_STAGES:
            v = self.busy_s if cat == "run_batch" else idle if cat == "idle" else 0.0
            sample("scheduler_stage_seconds_total", _labels(dict(sched0) | {"category": cat,
                                                                            "forward_overlap": "none"}), v)
        for name, key, kinds in (("dp_attention_tokens_total", "kind", ("scheduled", "imbalance")),
                                 ("dp_attention_steps_total", "rank_state", ("active", "idle")),
                                 ("dp_attention_pairs_total", "kind", ("scheduled", "imbalance"))):
            family(name, "counter")
            for k in kinds:
                sample(name, _labels(dict(sched0) | {key: k}), 0.0)
        if self.graph_passes:
            family("cuda_graph_passes_total", "counter")
            for mode, n in self.graph_passes.items():
                sample("cuda_graph_passes_total", _labels(dict(sched0) | {"mode": mode}), n)
        family("realtime_tokens_total", "counter")
        for mode, n in self.realtime_tokens.items():
            sample("realtime_tokens_total", _labels(dict(sched0) | {"mode": mode}), n)
        for name in ("time_to_first_token_seconds", "e2e_request_latency_seconds",
                     "request_time_per_output_token_seconds", "prompt_tokens_histogram",
                     "uncached_prompt_tokens_histogram", "generation_tokens_histogram", "inter_token_latency_seconds"):
            hist_fam = self.histograms.get(name)
            if hist_fam:
                histogram(name, hist_fam)
        histogram("dp_attention_token_imbalance_ratio", {sched0: _Histogram(DP_IMBALANCE_BUCKETS)})
        histogram("dp_attention_sync_wait_seconds", {sched0: _Histogram(DP_SYNC_BUCKETS)})
        for name in ("per_stage_req_latency_seconds", "queue_time_seconds"):
            hist_fam = self.histograms.get(name)
            if hist_fam:
                histogram(name, hist_fam)
        return "\n".join(lines) + "\n"


class HttpMetricsMiddleware:
    """Pure-ASGI middleware counting HTTP requests, responses by status and active requests per route, as SGLang's
    `track_http_status_code` does: the route's path template when one matches, else the raw path; the active count
    drops when the response starts (its headers are sent), as with BaseHTTPMiddleware's call_next."""

    def __init__(self, app: Any, metrics: MetricsStore, is_open: Callable[[], bool]) -> None:
        self.app = app
        self.metrics = metrics
        self.is_open = is_open

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.is_open():
            await self.app(scope, receive, send)
            return
        from starlette.routing import Match

        path, method = scope.get("path", ""), scope.get("method", "GET")
        for route in getattr(scope.get("app"), "routes", ()):
            if route.matches(scope)[0] == Match.FULL:
                path = getattr(route, "path", path)
                break
        key = None
        for k, v in scope.get("headers", []):
            if k == b"x-smg-routing-key":
                key = v.decode("latin-1")
                break
        m = self.metrics
        m.http_started(path, method, key)
        done = False

        async def wrapped(message: dict[str, Any]) -> None:
            nonlocal done
            if message["type"] == "http.response.start" and not done:
                done = True
                m.http_responded(path, method, int(message["status"]))
                m.http_done(path, method, key)
            await send(message)

        try:
            await self.app(scope, receive, wrapped)
        finally:
            if not done:
                done = True
                m.http_done(path, method, key)
