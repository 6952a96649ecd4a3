"""`/metrics`: SGLang's Prometheus families, rendered the way its multiprocess collector prints them.

Shape (reference section 10): `sglang:` prefix, labels sorted alphabetically, no `_created` samples, counters
named `..._total` on HELP/TYPE/sample lines, histogram series as `_sum`, the `_bucket`s (with `le` sorted among
the labels), then `_count`; constants (capacity, memory, context_len) once per TP rank in unsorted rank order;
load and speculative gauges only for tp_rank="0"; tokenizer-side families carry `model_name`/`engine_type`
(+ `is_streaming`). Labelled counters and histograms appear only after first use. Scheduler gauges hold the
values of the last scheduler log line (SGLang refreshes them every decode-log interval and on prefill logs).
Durations are model time.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field

from prometheus_client.utils import floatToGoString

from .engine import EngineObserver, RequestOutput, SchedulerStats, SimRequest

TTFT_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400]
E2E_BUCKETS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 600, 1200, 1800, 2400]
QUEUE_BUCKETS = [0.0, 0.001, 0.005, 0.010, 0.050, 0.100, 0.200, 0.500, 1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50, 60, 70,
                 80, 90, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1200, 1400, 1600, 1800, 2000, 2500,
                 3000]
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
    "time_to_first_token_seconds": "Histogram of time to first token in seconds.",
    "inter_token_latency_seconds": "Histogram of inter-token latency in seconds.",
    "e2e_request_latency_seconds": "Histogram of End-to-end request latency in seconds",
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


class MetricsStore(EngineObserver):
    """Counters and histograms fed by the engine; `render()` produces the exposition text."""

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
        if req.spec_verify_ct:
            self._inc("spec_verify_calls_total", self._tok_labels(), req.spec_verify_ct)
        self._hist("e2e_request_latency_seconds", lab, E2E_BUCKETS).observe(
            (req.finish_s or 0.0) - req.arrival_s)

    def on_abort(self, req: SimRequest) -> None:
        if req.log_metrics:
            self._inc("num_aborted_requests_total", self._tok_labels(), 1)

    def on_scheduler_stats(self, stats: SchedulerStats) -> None:
        self.stats = stats

    def on_admit(self, req: SimRequest) -> None:
        if req.log_metrics and req.admitted_s is not None:
            self._hist("queue_time_seconds", self._sched_labels(0), QUEUE_BUCKETS).observe(req.admitted_s - req.arrival_s)

    def on_retract(self, reqs: list[SimRequest]) -> None:
        lab = self._sched_labels(0)
        self._inc("num_retracted_requests_total", lab, len(reqs))
        self._inc("num_retracted_input_tokens_total", lab, sum(r.prompt_tokens for r in reqs))
        self._inc("num_retracted_output_tokens_total", lab, sum(r.n_out for r in reqs))

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

        s, c = self.stats, self.constants
        load = [("num_running_reqs", s.num_running_reqs), ("num_queue_reqs", s.num_queue_reqs),
                ("num_grammar_queue_reqs", 0), ("gen_throughput", s.gen_throughput),
                ("cache_hit_rate", s.cache_hit_rate), ("token_usage", s.token_usage),
                ("num_used_tokens", s.num_used_tokens), ("kv_available_tokens", s.kv_available_tokens)]
        if self.spec:
            steps = c.spec_num_steps if s.spec_num_steps is None else s.spec_num_steps
            ndt = c.spec_num_draft_tokens if s.spec_num_draft_tokens is None else s.spec_num_draft_tokens
            load += [("spec_accept_length", s.spec_accept_length), ("spec_accept_rate", s.spec_accept_rate),
                     ("spec_num_steps", steps), ("spec_num_draft_tokens", ndt)]
        load.append(("new_token_ratio", s.new_token_ratio))
        for name, value in load:
            family(name, "gauge")
            sample(name, self._sched_labels(0), float(value))
        family("num_retracted_reqs", "gauge")  # declared without a multiprocess mode: one sample per process
        sample("num_retracted_reqs", _labels(dict(self._sched_labels(0)) | {"pid": str(os.getpid())}),
               float(s.num_retracted_reqs))
        for name, value in (("max_total_num_tokens", c.max_total_num_tokens), ("weight_memory_usage_gb", c.weight_gb),
                            ("kv_cache_memory_usage_gb", c.kv_cache_gb), ("context_len", c.context_len),
                            ("startup_available_gpu_memory_gb", c.startup_available_gb)):
            family(name, "gauge")
            for rank in self.rank_order:
                sample(name, self._sched_labels(rank), float(value))
        family("graph_memory_usage_gb", "gauge")
        for rank in self.rank_order:
            for phase, gb in c.graph_gb.items():
                sample("graph_memory_usage_gb", self._sched_labels(rank, phase=phase), gb)
        for name in ("prompt_tokens_total", "generation_tokens_total", "num_requests_total", "spec_verify_calls_total",
                     "num_aborted_requests_total", "num_retracted_requests_total", "num_retracted_input_tokens_total",
                     "num_retracted_output_tokens_total"):
            fam = self.counters.get(name)
            if not fam:
                continue
            family(name, "counter")
            for labels, value in fam.items():
                sample(name, labels, value)
        for name in ("time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds",
                     "queue_time_seconds"):
            fam = self.histograms.get(name)
            if not fam:
                continue
            family(name, "histogram")
            for labels, h in fam.items():
                sample(f"{name}_sum", labels, h.total)
                cum = 0
                for bound, count in zip(h.buckets + [float("inf")], h.counts):
                    cum += count
                    sample(f"{name}_bucket", _labels(dict(labels) | {"le": floatToGoString(bound)}), cum)
                sample(f"{name}_count", labels, h.n)
        return "\n".join(lines) + "\n"
