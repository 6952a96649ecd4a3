"""The twin's engine: a continuous-batching scheduler in model time (no asyncio, no wall clock).

`Engine.plan()` picks the next forward (a prefill batch if requests wait and fit, else a decode/verify step of
every running request) and prices it with the step-time model; `Engine.commit(plan)` advances the model clock by
its duration and applies it: prompt chunks land in the KV cache, running requests gain tokens (1 without
speculation; accepted drafts + 1 bonus per verify step, drawn from the acceptance model), finished requests leave.
Each request's outputs go to its `sink` as cumulative `RequestOutput`s. A wall-clock driver (`runtime.py`) sleeps
between plan and commit; the calibration harness (`calibrate.py`) calls them back to back in virtual time.

Scheduling follows SGLang's defaults: prefill first (a prefill batch stalls decoding), chunked prefill of at most
`chunked_prefill_size` tokens per forward with one partially prefilled request at a time, at most
`max_running_requests` requests, admission while the KV pool holds every running request's tokens plus a
reservation of min(max_new_tokens, 4096) * 0.7 tokens each, retraction of the newest request when decoding runs
out of KV slots, and a prefix (radix) cache that skips the prefill of a prompt prefix seen before. The first long
prefill after launch pays a one-time JIT cost (docs/reference-deployment.md §4: "the first inference was very slow"):
warm up first.
"""

from __future__ import annotations

import os
import random
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..config.args import ServerConfig
from ..config.deployment import Deployment, fit_family
from ..content.lengths import natural_length
from ..content.scripted import match_stop_regex
from ..content.text import TextStream
from .acceptance import AcceptanceState, draw_accepted, tree_breadth
from .adaptive import AdaptiveController
from .memory import MemoryPlan, effective_max_running_requests
from .steptime import NodeState, StepTimeModel


@dataclass(frozen=True)
class RequestOutput:
    """One engine output of a request: cumulative state after a forward."""

    completion_tokens: int  #: generated tokens so far, EOS included
    new_tokens: int  #: tokens added by this output
    finished: bool
    model_time_s: float  #: model clock when the forward ended


@dataclass(eq=False)
class SimRequest:
    """A generation request as the scheduler sees it."""

    rid: str
    prompt_tokens: int
    max_new_tokens: int
    temperature: float = 0.6
    ignore_eos: bool = False
    stop: tuple[str, ...] = ()
    stop_token_ids: frozenset[int] = frozenset()
    stop_regex: tuple[str, ...] = ()  #: SGLang's stop_regex: stops at the token completing a match (text kept)
    #: scripted output (constrained decoding, tool calls, reasoning; console/sim/content/scripted.py): wraps the
    #: request's free text stream; may end it (`eos_at`) and holds EOS off before `free_from`
    words_factory: Callable[[str, Any], Any] | None = None
    domain: str = "chat"
    prompt_hash: int = 0
    prefix_keys: list[tuple[int, int]] = field(default_factory=list)  #: (hash, tokens) prefixes, ascending
    stream: bool = True
    instruction_tokens: int | None = None  #: a chat request's last user message, in tokens (lengths.py)
    has_image: bool = False  #: multimodal prompt: its prefill runs eagerly (no prefill CUDA graph)
    log_metrics: bool = True  #: False for health checks: no metrics, no request counter
    has_grammar: bool = False  #: constrained output (json_schema / regex / ebnf / structural tag): num_so_requests
    sink: Callable[[RequestOutput], None] | None = None
    # --- set when submitted -------------------------------------------------------------------------------------
    index: int = -1
    dp_rank: int = 0  #: the DP-attention rank its scheduler is (round robin; 0 without DP attention)
    rng: random.Random | None = None  #: EOS draws (seeded like the text)
    accept_rng: random.Random | None = None  #: acceptance draws (seeded per launch too, unless greedy)
    words: TextStream | None = None
    natural_len: int | None = None  #: completion tokens (EOS included) at which the model stops (None: no EOS)
    acceptance: AcceptanceState | None = None
    jitter: float = 1.0
    # --- progress -----------------------------------------------------------------------------------------------
    phase: str = "new"  #: new, waiting, prefill, running, finished
    cached_tokens: int = 0
    prefilled: int = 0  #: tokens of (prompt + earlier output) already in the KV cache during prefill
    prefill_target: int = 0  #: tokens the current prefill must reach
    last_chunk: int = 0  #: tokens of its latest prefill forward (with chunked prefill, the last chunk's)
    n_out: int = 0  #: completion tokens, EOS included
    eos: bool = False
    eos_id: int = 0
    text_chars: int = 0  #: characters of visible output text
    stop_cut: int | None = None  #: visible text length when a stop string matched (text ends before it)
    finish_reason: dict[str, Any] | None = None
    spec_verify_ct: int = 0
    spec_num_correct_drafts: int = 0
    spec_hist: list[int] = field(default_factory=list)
    num_retractions: int = 0
    arrival_s: float = 0.0
    received_wall: float = 0.0  #: epoch seconds when the server received it (meta_info timestamps, timing.py)
    first_sent_wall: float | None = None  #: epoch seconds of its first streamed output
    admitted_s: float | None = None  #: first admitted to a prefill (queue time = admitted - arrival)
    first_token_s: float | None = None
    last_output_s: float | None = None
    finish_s: float | None = None

    @property
    def visible_tokens(self) -> int:
        """Output tokens that have text (EOS excluded)."""
        return self.n_out - (1 if self.eos else 0)

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def text(self, n_tokens: int | None = None) -> str:
        """Visible output text after `n_tokens` completion tokens (default: all so far)."""
        n = self.n_out if n_tokens is None else n_tokens
        vis = min(n, self.visible_tokens)
        if self.words is None or vis <= 0:
            return ""
        t = self.words.text(0, vis)
        if self.stop_cut is not None:
            t = t[: self.stop_cut]
        return t

    def output_ids(self, n_tokens: int | None = None) -> list[int]:
        """Output token ids after `n_tokens` completion tokens (the EOS id included once generated)."""
        n = self.n_out if n_tokens is None else n_tokens
        if self.words is None or n <= 0:
            return []
        vis = min(n, self.visible_tokens)
        self.words.ensure(vis)
        ids = self.words.ids[:vis]
        if self.eos and n >= self.n_out:
            ids = ids + [self.eos_id]
        return ids


class EngineObserver:
    """Hooks the engine calls (metrics, traces); the base class ignores them."""

    def on_output(self, req: SimRequest, out: RequestOutput, gap_s: float | None) -> None: ...

    def on_finish(self, req: SimRequest) -> None: ...

    def on_abort(self, req: SimRequest) -> None: ...

    def on_admit(self, req: SimRequest) -> None: ...

    def on_retract(self, reqs: list[SimRequest]) -> None: ...

    def on_scheduler_stats(self, stats: SchedulerStats) -> None: ...

    def on_forward(self, plan: StepPlan, fresh_tokens: int, cached_tokens: int, generated: int) -> None:
        """A forward was committed: prefill tokens of first-time requests (`fresh_tokens`, retracted re-prefills
        excluded) and their cached prefix tokens, or the tokens a decode step generated."""


@dataclass
class SchedulerStats:
    """The scheduler's gauges as of its last log line (SGLang refreshes them only when it logs)."""

    num_running_reqs: int = 0
    num_queue_reqs: int = 0
    gen_throughput: float = 0.0
    token_usage: float = 0.0
    num_used_tokens: int = 0
    spec_accept_length: float = 0.0
    spec_accept_rate: float = 0.0
    cache_hit_rate: float = 0.0
    spec_num_steps: int | None = None  #: active steps as of the last decode log (None: the launch values)
    spec_num_draft_tokens: int | None = None
    new_token_ratio: float = 0.0
    num_retracted_reqs: int = 0
    kv_available_tokens: int = 0
    kv_evictable_tokens: int = 0  #: radix-cached tokens no running request holds
    decode_sum_seq_lens: int = 0  #: sum of the decoding requests' sequence lengths
    #: DP attention: per rank (running requests, waiting requests, accept length, accept rate) of its last window;
    #: empty without DP attention (one scheduler: the fields above)
    ranks: tuple[tuple[int, int, float, float], ...] = ()


@dataclass
class StepPlan:
    """The next forward: what runs and how long it takes (model seconds)."""

    kind: str  #: "prefill" or "decode"
    duration_s: float
    reqs: list[SimRequest]
    chunks: list[tuple[SimRequest, int]] = field(default_factory=list)  #: prefill: (request, new tokens)
    graph: bool = True
    spec_steps: int | None = None  #: decode: draft passes in force for this step (adaptive), None: launch value


class PrefixCache:
    """Stand-in for SGLang's radix cache: prompt-prefix keys (hash, tokens) with LRU eviction.

    Each key contributes its token increment over the previous key of the same prompt; the total is kept within
    the pool's free space. `match` returns the tokens of the longest cached prefix."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._keys: OrderedDict[int, tuple[int, int]] = OrderedDict()  # hash -> (tokens, increment)
        self.total_tokens = 0
        self.hit_tokens = 0
        self.lookup_tokens = 0

    def match(self, keys: list[tuple[int, int]]) -> int:
        best = 0
        if self.enabled:
            for h, tokens in keys:
                if h in self._keys:
                    self._keys.move_to_end(h)
                    best = max(best, tokens)
        return best

    def record_lookup(self, prompt_tokens: int, cached: int) -> None:
        self.lookup_tokens += prompt_tokens
        self.hit_tokens += cached

    @property
    def hit_rate(self) -> float:
        return self.hit_tokens / self.lookup_tokens if self.lookup_tokens else 0.0

    def insert(self, keys: list[tuple[int, int]], limit: int) -> None:
        if not self.enabled:
            return
        prev = 0
        for h, tokens in keys:
            if h not in self._keys:
                inc = max(0, tokens - prev)
                self._keys[h] = (tokens, inc)
                self.total_tokens += inc
            else:
                self._keys.move_to_end(h)
            prev = tokens
        self.evict_to(limit)

    def evict_to(self, limit: int) -> None:
        while self._keys and self.total_tokens > max(0, limit):
            _, (_, inc) = self._keys.popitem(last=False)
            self.total_tokens -= inc

    def clear(self) -> None:
        self._keys.clear()
        self.total_tokens = 0
        self.hit_tokens = self.lookup_tokens = 0


class Engine:
    """Scheduler + engine model of one serving process (one DP rank)."""

    def __init__(self, cfg: ServerConfig, dep: Deployment, memory: MemoryPlan, *,
                 observer: EngineObserver | None = None, log: Callable[[str], None] | None = None) -> None:
        self.cfg, self.dep, self.memory = cfg, dep, memory
        a = cfg.args
        self.observer = observer or EngineObserver()
        self.log = log or (lambda msg: None)
        self.capacity = memory.max_total_num_tokens
        if dep.fit is not None:  # a fitted node's measured capacity for this arm, where the fit has one
            key = f"{cfg.spec_algorithm.upper()}:{cfg.spec_draft_tokens}" if cfg.spec_algorithm else "none"
            self.capacity = dep.fit.capacity.get(key, self.capacity)
        self.max_running = effective_max_running_requests(cfg, dep, self.capacity)
        chunk = int(a["chunked_prefill_size"])
        self.chunked_prefill = chunk > 0
        self.prefill_budget = chunk if chunk > 0 else int(a.get("max_prefill_tokens") or 16384)
        self.prefill_graph_max = int(a["cuda_graph_config"]["prefill"]["max_bs"])
        self.prefill_graphs = a["cuda_graph_config"]["prefill"]["backend"] != "disabled"
        self.decode_graph_max = max(memory.decode_capture_bs, default=0)
        self.decode_graphs = a["cuda_graph_config"]["decode"]["backend"] != "disabled"
        self.decode_log_interval = max(1, int(a.get("decode_log_interval") or 40))
        self.context_len = int(a.get("context_length") or dep.model.context_len)
        self.steps = StepTimeModel(cfg, dep)
        #: this launch's own variation (relaunches differ): --sim-launch-seed, else drawn per process
        self.launch_seed = cfg.sim.launch_seed if cfg.sim.launch_seed is not None else int.from_bytes(
            os.urandom(4), "big")
        self.node = NodeState.draw(dep, cfg.sim.node_seed, cfg.sim.seed, self.launch_seed)
        self.drafter = dep.drafter_for(cfg.spec_algorithm)
        self.adaptive: AdaptiveController | None = None
        if cfg.spec_adaptive:
            self.adaptive = AdaptiveController(
                cfg.spec_steps, a.get("speculative_adaptive_config"),
                list(memory.decode_capture_bs) if a["cuda_graph_config"]["decode"]["backend"] != "disabled" else None,
                log=self.log)
            self.k_max = max(self.adaptive.candidates)
        elif cfg.spec_algorithm == "NGRAM" or cfg.spec_topk > 1:
            self.k_max = cfg.spec_steps  # tree: accepted path depth is at most num_steps
        else:
            self.k_max = max(0, cfg.spec_draft_tokens - 1)
        self.breadth = tree_breadth(cfg.spec_topk, cfg.spec_steps, cfg.spec_draft_tokens) \
            if cfg.spec_algorithm != "NGRAM" else 1.0
        s = dep.scheduler
        self.ratio_init = min(1.0, s.new_token_ratio * float(a.get("schedule_conservativeness") or 1.0))
        self.ratio_min = min(1.0, self.ratio_init * s.min_new_token_ratio_factor)
        self.ratio_decay = (self.ratio_init - self.ratio_min) / max(1, s.new_token_ratio_decay_steps)
        self.new_token_ratio = self.ratio_init
        self.page_size = int(a.get("page_size") or 1)
        self.max_req_len = min(self.context_len - 1, self.capacity - 1)  #: the scheduler's (tp_worker) bound
        #: admission's estimate of a request's output (min(max_new_tokens, clip)); SGLang reads the environment
        self.clip_max_new_tokens = int(os.environ.get("SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION")
                                       or dep.scheduler.clip_max_new_tokens)
        #: DFlash's MinFreeSlotsDelayer (scheduler.py): fresh admissions wait for this many free request slots
        #: while a batch runs (auto for the DFLASH family when max_running_requests >= 8)
        self.min_free_slots = _min_free_slots(a.get("min_free_slots_delay"), self.max_running,
                                              cfg.spec_algorithm == "DFLASH")
        self.max_queued = int(a["max_queued_requests"]) if a.get("max_queued_requests") is not None else None
        self.num_retracted_total = [0, 0, 0]  # requests, their input tokens, their output tokens
        self.last_retracted = 0
        self.eos_rate = cfg.sim.eos_rate
        self.lengths_on = cfg.sim.lengths != "off" and bool(dep.lengths)
        self.prefix_cache = PrefixCache(enabled=not a.get("disable_radix_cache"))
        self.clock = 0.0
        self.waiting: deque[SimRequest] = deque()
        self.running: list[SimRequest] = []
        self.chunked: SimRequest | None = None
        self.request_counter = 0
        #: DP attention (`--enable-dp-attention --dp-size N`): N schedulers, requests dealt round robin
        #: (load_balance_method auto = round_robin); they step in lockstep (the MoE layers are collective), so the
        #: twin plays one batch and keeps each rank's speculative figures apart (docs/twin.md §5)
        self.dp_ranks = int(a.get("attn_dp_size") or 1)
        self.rank_accept_tokens = [0] * self.dp_ranks  #: lifetime, at decode-log boundaries (avg_spec_accept_length)
        self.rank_forward_ct = [0] * self.dp_ranks
        #: this log window per rank: accepted tokens, verifies, correct drafts
        self._win_rank = [[0, 0, 0] for _ in range(self.dp_ranks)]
        self.rank_window: list[tuple[float, float]] = [(0.0, 0.0)] * self.dp_ranks  #: last window: accept len, rate
        fault = next((f for f in cfg.sim.faults if f.kind == "acceptance-collapse"), None)
        #: the acceptance-collapse fault: (from this generation request on, conditionals × factor)
        self.collapse_fault: tuple[int, float] | None = (
            (fault.get("after_requests"), fault.get("factor")) if fault is not None else None)
        self.forward_ct = 0
        self.decode_ct = 0
        self.stats = SchedulerStats()
        self.last_gen_throughput = 0.0
        self._reset_window()
        self.spec_total_accept_tokens = 0
        self.spec_total_forward_ct = 0
        self._last_prefill_log_s = 0.0
        self._last_input_throughput = 0.0
        self._prefill_logs = 0
        # /v1/loads accumulators: prefill work, and decode-step moments [count, sum bs, sum step us, sum bs^2,
        # sum bs*step us, sum generated tokens]
        self.total_prefill_uncached_tokens = 0
        self.total_prefill_busy_us = 0
        self.decode_moments = [0.0] * 6
        self._jit_pending = dep.prefill.jit_first_long_prefill_ms > 0
        stall = next((f for f in cfg.sim.faults if f.kind == "prefill-stall"), None)
        #: the prefill-stall fault, until spent: (first request index, extra ms, requests in the step)
        self.stall_fault: tuple[int, float, int] | None = (
            (stall.get("after_requests"), 1000.0 * stall.get("seconds"), stall.get("batch"))
            if stall is not None else None)

    # ------------------------------------------------------------------------------------------------ requests

    def submit(self, req: SimRequest, now_s: float) -> None:
        """Queue a request that arrived at model time `now_s`."""
        seed = self.cfg.sim.seed
        v = self.dep.variation
        if req.log_metrics:
            req.index = self.request_counter
            self.request_counter += 1
            req.dp_rank = req.index % self.dp_ranks
            key = f"greedy:{req.prompt_hash}" if req.temperature == 0 else f"req:{seed}:{req.index}"
        else:
            key = f"health:{seed}:{req.prompt_hash}"
        # Text and EOS draws follow --sim-seed; acceptance draws and timing jitter also differ per launch (a
        # relaunch is not bit-identical), except for greedy requests, whose drafts and verifies are deterministic.
        launch_key = key if req.temperature == 0 else f"{key}:launch:{self.launch_seed}"
        req.rng = random.Random(key)
        req.accept_rng = random.Random(f"accept:{launch_key}")
        req.words = TextStream(key, req.domain)
        if self.lengths_on and not req.ignore_eos:
            req.natural_len = natural_length(self.dep.lengths, req.domain, key, req.instruction_tokens)
        if req.words_factory is not None:
            req.words = req.words_factory(key, req.words)
        req.eos_id = self.dep.model.eos_token_id
        req.jitter = max(0.9, random.Random(f"jitter:{launch_key}").gauss(1.0, v.request_jitter))
        if self.drafter is not None and self.k_max > 0:
            shift = random.Random(f"prompt:{req.prompt_hash}").gauss(0.0, v.prompt_acceptance_sd)
            req.acceptance = AcceptanceState(self.drafter, req.domain, self.k_max, shift, req.temperature,
                                             self.cfg.spec_topk if self.cfg.spec_algorithm != "NGRAM" else 1,
                                             breadth=self.breadth, dummy=self.cfg.spec_dummy_draft,
                                             kv=self.dep.kv_precision, kv_dtype=self.cfg.args["kv_cache_dtype"])
            fit = self.dep.fit
            if fit is not None:
                fam = fit_family(self.cfg.spec_algorithm)
                req.acceptance.fitted = fit.acceptance.get(fam or "", {}).get(req.domain)
            collapse = self.collapse_fault
            if collapse is not None and req.log_metrics and req.index >= collapse[0]:
                req.acceptance.collapse = collapse[1]
        req.arrival_s = now_s
        # the scheduler's clip (handle_generate_request, then the allocator's max_new_tokens_for_memory): no request
        # may outgrow the context or the KV pool, so a pool smaller than the context ends long answers at
        # "length" instead of letting a lone request overflow it
        paged_input = -(-req.prompt_tokens // self.page_size) * self.page_size
        req.max_new_tokens = max(0, min(req.max_new_tokens, self.max_req_len - req.prompt_tokens - 1,
                                        self.capacity - paged_input - self.page_size - 1))
        req.prefill_target = req.prompt_tokens
        if (req.log_metrics and self.max_queued is not None and len(self.waiting) + 1 > self.max_queued):
            # `_abort_on_queued_limit`: the incoming request is refused with 503
            req.finish_reason = {"type": "abort", "message": "The request queue is full.", "status_code": 503}
            req.phase = "finished"
            req.finish_s = now_s
            self.observer.on_abort(req)
            if req.sink is not None:
                req.sink(RequestOutput(0, 0, True, now_s))
            return
        req.phase = "waiting"
        self.waiting.append(req)

    def abort(self, req: SimRequest, message: str = "Client disconnected") -> None:
        """Drop a request (client gone); frees its KV slots."""
        if req.finished:
            return
        if req in self.waiting:
            self.waiting.remove(req)
        if req in self.running:
            self.running.remove(req)
        if self.chunked is req:
            self.chunked = None
        req.finish_reason = {"type": "abort", "message": message}
        req.phase = "finished"
        req.finish_s = self.clock
        self.observer.on_abort(req)

    def has_work(self) -> bool:
        return bool(self.waiting or self.running or self.chunked)

    def num_used_tokens(self) -> int:
        used = sum(r.prompt_tokens + r.n_out for r in self.running)
        if self.chunked is not None:
            used += self.chunked.prefilled
        return used

    def _reserve_of(self, r: SimRequest) -> float:
        """KV tokens the scheduler keeps for a running request's remaining output (PrefillAdder's offset)."""
        ratio = 1.0 if r.ignore_eos else self.new_token_ratio
        return min(r.max_new_tokens - r.n_out, self.clip_max_new_tokens) * ratio

    def _reserved_tokens(self) -> float:
        return sum(self._reserve_of(r) for r in self.running)

    # ---------------------------------------------------------------------------------------------- planning

    def plan(self) -> StepPlan | None:
        """The next forward, or None when there is nothing to run."""
        chunks = self._form_prefill_batch()
        if chunks:
            return self._price_prefill(chunks)
        if self.running:
            self._retract_if_full()
            reqs = list(self.running)
            ctx = float(sum(r.prompt_tokens + r.n_out for r in reqs))
            steps = None
            if self.adaptive is not None:
                steps = self.adaptive.activate_for_batch(len(reqs))
                ms = self.steps.decode_ms(len(reqs), ctx, steps=steps, tokens_per_req=steps + 1)
            else:
                ms = self.steps.decode_ms(len(reqs), ctx)
            ms *= self.node.factor(self.clock) * (sum(r.jitter for r in reqs) / len(reqs))
            return StepPlan("decode", ms / 1000.0, reqs,
                            graph=self.decode_graphs and len(reqs) <= self.decode_graph_max, spec_steps=steps)
        return None

    def _form_prefill_batch(self) -> list[tuple[SimRequest, int]]:
        """SGLang's admission (PrefillAdder, 0.5.23): the chunked request continues first; then waiting requests in
        order while request slots, the prefill token budget and KV room last. A new request needs its prompt +
        min(max_new, clip) + one page against free - the running requests' reservations."""
        budget = self.prefill_budget
        chunks: list[tuple[SimRequest, int]] = []
        free = self.capacity - self.num_used_tokens() - self._reserved_tokens()
        clip = self.clip_max_new_tokens
        if self.chunked is not None:
            r = self.chunked
            take = min(r.prefill_target - r.prefilled, budget)
            chunks.append((r, take))
            budget -= take
            # the continuing chunk keeps room for the rest of its prompt and its output
            free -= (r.prefill_target - r.prefilled) + min(r.max_new_tokens - r.n_out, clip) + self.page_size
        elif self.waiting and self.running and self.min_free_slots is not None \
                and self.max_running - len(self.running) < self.min_free_slots:
            return chunks  # MinFreeSlotsDelayer: wait until enough slots free up, then admit them together
        while self.waiting and budget > 0 and len(self.running) + len(chunks) < self.max_running:
            r = self.waiting[0]
            fresh = r.num_retractions == 0  # a retracted request re-prefills prompt + output from scratch
            if fresh:
                # SGLang matches at most len(input) - 1 tokens, and a paged radix tree only whole pages
                hit = max(0, min(self.prefix_cache.match(r.prefix_keys), r.prefill_target - 1))
                r.cached_tokens = hit - hit % self.page_size
            prefilled = r.cached_tokens if fresh else 0
            need = (r.prefill_target - prefilled) + min(r.max_new_tokens - r.n_out, clip) + self.page_size
            if need > free and (self.running or chunks):
                break  # wait for KV to free up (a lone request is admitted regardless)
            self.waiting.popleft()
            if fresh:
                self.prefix_cache.record_lookup(r.prompt_tokens, r.cached_tokens)
            if r.admitted_s is None:
                r.admitted_s = self.clock
                self.observer.on_admit(r)
            r.prefilled = prefilled
            r.phase = "prefill"
            remaining = r.prefill_target - r.prefilled
            take = min(remaining, budget) if self.chunked_prefill else remaining
            chunks.append((r, take))
            budget -= take
            free -= need
            if take < remaining:
                break  # this one is the chunked request
        return chunks

    def _price_prefill(self, chunks: list[tuple[SimRequest, int]]) -> StepPlan:
        shape = [(take, r.prefilled) for r, take in chunks]
        ms = self.steps.prefill_ms(shape)
        reqs = [r for r, _ in chunks]
        ms *= self.node.factor(self.clock) * (sum(r.jitter for r in reqs) / len(reqs))
        new_tokens = sum(t for _, t in chunks)
        if self._jit_pending and new_tokens >= self.dep.prefill.jit_min_tokens:
            ms += self.dep.prefill.jit_first_long_prefill_ms  # Triton JIT of the long prefill shape, once
            self._jit_pending = False
        sf = self.stall_fault
        if sf is not None and len(reqs) >= sf[2] and all(r.log_metrics and r.index >= sf[0] for r in reqs):
            ms += sf[1]  # the prefill-stall fault: once, shared by every request of this step
            self.stall_fault = None
        return StepPlan("prefill", ms / 1000.0, reqs, chunks=chunks,
                        graph=(self.prefill_graphs and new_tokens <= self.prefill_graph_max
                               and not any(r.has_image for r in reqs)))

    def _next_step_tokens(self, reqs: list[SimRequest]) -> int:
        if not self.cfg.is_spec:
            return len(reqs)
        width = self.adaptive.draft_tokens if self.adaptive is not None else self.cfg.spec_draft_tokens
        return len(reqs) * max(width, 1)

    def _retract_if_full(self) -> None:
        """SGLang's `retract_decode`: when the next step's tokens do not fit, retract requests -- fewest output
        tokens first, then the longest prompt -- until they do (keeping one); reset the new-token ratio."""
        if len(self.running) <= 1 or self.num_used_tokens() + self._next_step_tokens(self.running) <= self.capacity:
            self._decay_ratio()
            return
        keep = sorted(self.running, key=lambda r: (r.n_out, -r.prompt_tokens), reverse=True)
        victims: list[SimRequest] = []
        while len(keep) > 1 and (not victims or sum(r.prompt_tokens + r.n_out for r in keep)
                                 + self._next_step_tokens(keep) > self.capacity):
            victims.append(keep.pop())
        gained = 0
        for v in victims:
            self.running.remove(v)
            gained += v.prompt_tokens + v.n_out
            self.num_retracted_total[0] += 1
            self.num_retracted_total[1] += v.prompt_tokens
            self.num_retracted_total[2] += v.n_out
            v.phase = "waiting"
            v.prefilled = 0
            v.prefill_target = v.prompt_tokens + v.n_out
            v.num_retractions += 1
        for v in reversed(victims):
            self.waiting.appendleft(v)
        s = self.dep.scheduler
        old = self.new_token_ratio
        decoded = sum(r.n_out for r in self.running)
        self.new_token_ratio = min(1.0, (decoded + s.retract_decode_steps * len(self.running))
                                   / (sum(r.max_new_tokens for r in self.running) + 1))
        self.last_retracted = len(victims)
        self.observer.on_retract(victims)
        self.log(f"KV cache pool is full. Retract requests. #retracted_reqs: {len(victims)}, "
                 f"#new_tokens_gained: {gained}, #new_token_ratio: {old:.4f} -> {self.new_token_ratio:.4f}")

    def _decay_ratio(self) -> None:
        self.new_token_ratio = max(self.new_token_ratio - self.ratio_decay, self.ratio_min)

    # ------------------------------------------------------------------------------------------------ commit

    def commit(self, plan: StepPlan) -> None:
        """Advance the model clock by the plan's duration and apply its effects (outputs go to the sinks)."""
        self.clock += plan.duration_s
        self.forward_ct += 1
        if plan.kind == "prefill":
            self._commit_prefill(plan)
        else:
            self._commit_decode(plan)

    def _commit_prefill(self, plan: StepPlan) -> None:
        now = self.clock
        new_tok = cached_tok = 0
        running_before = len(self.running)
        self.chunked = None
        for r, take in plan.chunks:
            if r.finished:
                continue
            if r.num_retractions == 0 and r.prefilled == r.cached_tokens:  # first chunk of a fresh request
                cached_tok += r.cached_tokens
            r.prefilled += take
            r.last_chunk = take
            new_tok += take
            if r.prefilled < r.prefill_target:
                self.chunked = r
                continue
            r.phase = "running"
            self.running.append(r)
            if r.max_new_tokens <= 0:
                self._finish(r, {"type": "length", "length": 0})
                self._emit(r, 0, now)
                continue
            self._add_tokens(r, 1)
            self._emit(r, 1, now)  # the prefill's token (DFlash: after its context pass, see steptime.py)
        self._cleanup_finished()
        self.total_prefill_uncached_tokens += new_tok
        self.total_prefill_busy_us += int(plan.duration_s * 1e6)
        self.observer.on_forward(plan, sum(t for r, t in plan.chunks if r.num_retractions == 0), cached_tok, 0)
        self._log_prefill(plan, new_tok, cached_tok, running_before)

    def _commit_decode(self, plan: StepPlan) -> None:
        self._check_tree_width(plan)
        now = self.clock
        generated = 0
        correct: list[int] = []
        k_active = None if plan.spec_steps is None else plan.spec_steps
        for r in plan.reqs:
            if r.finished or r.phase != "running":
                continue
            if r.acceptance is not None:
                before = r.spec_num_correct_drafts
                added = self._verify(r, k_active)
                correct.append(r.spec_num_correct_drafts - before)
            else:
                added = self._add_tokens(r, 1)
            generated += added
            self._emit(r, added, now)
        if self.adaptive is not None and correct:
            self.adaptive.on_verify(correct, len(plan.reqs))
        self._cleanup_finished()
        self.decode_ct += 1
        self._win_gen_tokens += generated
        self.observer.on_forward(plan, 0, 0, generated)
        bs, us = float(len(plan.reqs)), plan.duration_s * 1e6
        for i, v in enumerate((1.0, bs, us, bs * bs, bs * us, float(generated))):
            self.decode_moments[i] += v
        if self.decode_ct % self.decode_log_interval == 0:
            self._log_decode(plan)

    def _check_tree_width(self, plan: StepPlan) -> None:
        """SGLang 0.5.23's EAGLE v2 worker (EAGLE, EAGLE3, STANDALONE) moves a tree's accepted path to the front of
        each request's verify block (`eagle_worker_common._compact_accept_to_front`): with topk > 1 and fewer verify
        tokens than steps + 1 that copy fails at the first verify and the scheduler dies (seen on the real CPU
        server: steps 3, topk 2, 2 draft tokens). The twin dies the same way."""
        c = self.cfg
        if (c.spec_algorithm in ("EAGLE", "EAGLE3", "STANDALONE") and c.spec_topk > 1
                and c.spec_draft_tokens < c.spec_steps + 1 and plan.reqs):
            bs, nd, s1 = len(plan.reqs), c.spec_draft_tokens, c.spec_steps + 1
            raise RuntimeError(f"The expanded size of the tensor ({nd}) must match the existing size ({s1}) at "
                               f"non-singleton dimension 1.  Target sizes: [{bs}, {nd}].  Tensor sizes: "
                               f"[{s1 if bs == 1 else f'{bs}, {s1}'}]")

    def _verify(self, r: SimRequest, k_active: int | None = None) -> int:
        """One verify step for `r`: draw the accepted prefix, record it, append accepted + bonus tokens.
        `k_active`: draft positions proposed this step (adaptive steps), default all."""
        assert r.acceptance is not None and r.accept_rng is not None  # set at admission on a speculative server
        conds = r.acceptance.at(r.prompt_tokens + r.n_out)
        if k_active is not None:
            conds = conds[:k_active]
        k = draw_accepted(r.accept_rng, conds)
        r.spec_verify_ct += 1
        r.spec_num_correct_drafts += k
        if len(r.spec_hist) <= k:
            r.spec_hist.extend([0] * (k + 1 - len(r.spec_hist)))
        r.spec_hist[k] += 1
        self._win_accept_tokens += k + 1
        self._win_correct_drafts += k
        w = self._win_rank[r.dp_rank]
        w[0] += k + 1
        w[1] += 1
        w[2] += k
        self._win_proposed_drafts += len(conds)
        self._win_forward_ct += 1
        return self._add_tokens(r, k + 1)

    def _add_tokens(self, r: SimRequest, n: int) -> int:
        """Append up to `n` tokens, stopping at EOS, a stop token/string, max_new_tokens or the context limit.
        Returns the number of completion tokens added (EOS included)."""
        assert r.words is not None and r.rng is not None  # set at admission
        limit = min(r.max_new_tokens, self.context_len - r.prompt_tokens)
        n = max(0, min(n, limit - r.n_out))
        start = r.n_out  # no EOS yet: every token so far is visible
        r.words.ensure(start + n)
        ids = r.words.ids
        take, eos, reason = n, False, None
        eos_at, free_from = getattr(r.words, "eos_at", None), getattr(r.words, "free_from", 0)
        for i in range(n):
            if eos_at is not None and start + i >= eos_at:  # a scripted output's grammar ended: EOS
                take, eos = i + 1, True
                reason = {"type": "stop", "matched": self.dep.model.eos_token_id}
                break
            if start + i < free_from:
                continue  # inside a scripted part: no EOS draw
            if (r.natural_len is not None and start + i + 1 >= free_from + max(r.natural_len, 1)) or (
                    self.eos_rate > 0 and not r.ignore_eos and r.rng.random() < self.eos_rate):
                # the natural length (lengths.py) reached, or the per-token EOS hazard drew one
                take, eos = i + 1, True
                reason = {"type": "stop", "matched": self.dep.model.eos_token_id}
                break
            if ids[start + i] in r.stop_token_ids:
                take = i + 1
                reason = {"type": "stop", "matched": ids[start + i]}
                break
        vis_end = start + take - (1 if eos else 0)
        if r.stop and vis_end > start:
            hit = self._match_stop(r, start, vis_end)
            if hit is not None:
                vis_end, r.stop_cut, matched = hit
                take, eos = vis_end - start, False
                reason = {"type": "stop", "matched": matched}
        if r.stop_regex and vis_end > start:
            hit_re = match_stop_regex(r.stop_regex, r.words.pieces, start, vis_end)
            if hit_re is not None:  # earlier than any stop string found above; SGLang keeps the matched text
                vis_end, matched = hit_re
                r.stop_cut, take, eos = None, vis_end - start, False
                reason = {"type": "stop", "matched": matched}
        r.text_chars = r.stop_cut if r.stop_cut is not None else (
            r.text_chars + sum(len(p) for p in r.words.pieces[start:vis_end]))
        r.eos = eos
        r.n_out += take
        if reason is None and r.n_out >= limit:
            reason = {"type": "length", "length": r.n_out}
        if reason is not None:
            self._finish(r, reason)
        return take

    def _match_stop(self, r: SimRequest, start: int, end: int) -> tuple[int, int, str] | None:
        """The earliest stop string completed by visible tokens [start, end):
        (visible tokens up to the one completing it, text length before it, the stop string)."""
        assert r.words is not None  # set at admission
        pieces = r.words.pieces
        longest = max(len(s) for s in r.stop)
        tail_from = start
        tail_chars = 0
        while tail_from > 0 and tail_chars < longest:
            tail_from -= 1
            tail_chars += len(pieces[tail_from])
        old_tail = "".join(pieces[tail_from:start])
        base = r.text_chars - len(old_tail)
        window = old_tail + "".join(pieces[start:end])
        best: tuple[int, str] | None = None
        for s in r.stop:
            pos = window.find(s) if s else -1
            if pos >= 0 and (best is None or pos < best[0]):
                best = (pos, s)
        if best is None:
            return None
        pos, s = best
        need, chars, tok_end = pos + len(s), len(old_tail), start
        for i in range(start, end):
            chars += len(pieces[i])
            tok_end = i + 1
            if chars >= need:
                break
        return tok_end, base + pos, s

    def _finish(self, r: SimRequest, reason: dict[str, Any]) -> None:
        r.finish_reason = reason
        r.finish_s = self.clock

    def _emit(self, r: SimRequest, added: int, now: float) -> None:
        gap = None if r.last_output_s is None else now - r.last_output_s
        if r.first_token_s is None:
            r.first_token_s = now
        r.last_output_s = now
        out = RequestOutput(r.n_out, added, r.finished, now)
        self.observer.on_output(r, out, gap)
        if r.sink is not None:
            r.sink(out)

    def _cleanup_finished(self) -> None:
        if not any(r.finished for r in self.running):
            return
        keep = []
        for r in self.running:
            if r.finished:
                r.phase = "finished"
                self.observer.on_finish(r)
                if r.prefix_keys:
                    self.prefix_cache.insert(r.prefix_keys, self.capacity - self.num_used_tokens())
            else:
                keep.append(r)
        self.running = keep

    # ----------------------------------------------------------------------------------------------- logging

    def _reset_window(self) -> None:
        self._win_start_s = getattr(self, "clock", 0.0)
        self._win_gen_tokens = 0
        self._win_accept_tokens = 0
        self._win_correct_drafts = 0
        self._win_proposed_drafts = 0
        self._win_forward_ct = 0
        self._win_rank = [[0, 0, 0] for _ in range(self.dp_ranks)]

    def reset_spec_counters(self) -> None:
        """What /flush_cache resets: the radix cache and the speculative-decoding counters."""
        self.spec_total_accept_tokens = 0
        self.spec_total_forward_ct = 0
        self.rank_accept_tokens = [0] * self.dp_ranks
        self.rank_forward_ct = [0] * self.dp_ranks
        self.prefix_cache.clear()
        self._reset_window()

    @property
    def avg_spec_accept_length(self) -> float | None:
        """Lifetime accepted tokens per request-verify, accumulated at each decode-log boundary (None before)."""
        if not self.cfg.is_spec or self.spec_total_forward_ct <= 0:
            return None
        return self.spec_total_accept_tokens / self.spec_total_forward_ct

    def rank_avg_spec_accept_length(self, rank: int) -> float | None:
        """One DP rank's lifetime accepted tokens per request-verify (its scheduler's avg_spec_accept_length)."""
        if not self.cfg.is_spec or self.rank_forward_ct[rank] <= 0:
            return None
        return self.rank_accept_tokens[rank] / self.rank_forward_ct[rank]

    def _usage(self) -> tuple[int, float]:
        used = self.num_used_tokens()
        return used, used / self.capacity if self.capacity else 0.0

    def _log_decode(self, plan: StepPlan) -> None:
        gap = self.clock - self._win_start_s
        self.last_gen_throughput = self._win_gen_tokens / gap if gap > 0 else 0.0
        used, usage = self._usage()
        msg = f"Decode batch, #running-req: {len(self.running)}, #token: {used}, token usage: {usage:.2f}, "
        accept_len = accept_rate = 0.0
        if self.cfg.is_spec:
            fwd = self._win_forward_ct
            accept_len = self._win_accept_tokens / fwd if fwd else 0.0
            if self.adaptive is not None:
                proposed = self._win_proposed_drafts
            else:
                proposed = fwd * (self.cfg.spec_draft_tokens - 1)
            accept_rate = self._win_correct_drafts / proposed if proposed else 0.0
            self.spec_total_accept_tokens += self._win_accept_tokens
            self.spec_total_forward_ct += fwd
            per_draft = max(1, self.cfg.spec_draft_tokens - 1)
            for i, (acc, ct, ok) in enumerate(self._win_rank):
                self.rank_accept_tokens[i] += acc
                self.rank_forward_ct[i] += ct
                if ct:  # a rank that verified nothing this window logs nothing: its gauges keep their values
                    self.rank_window[i] = (acc / ct, ok / (ct * per_draft))
            msg += f"accept len: {accept_len:.2f}, accept rate: {accept_rate:.2f}, "
        msg += (f"cuda graph: {plan.graph}, gen throughput (token/s): {self.last_gen_throughput:.2f}, "
                f"#queue-req: {len(self.waiting)}")
        self.log(msg)
        steps, ndt = self.active_spec()
        self.stats = SchedulerStats(
            num_running_reqs=len(self.running), num_queue_reqs=len(self.waiting),
            gen_throughput=self.last_gen_throughput, token_usage=round(usage, 2), num_used_tokens=used,
            spec_accept_length=accept_len, spec_accept_rate=accept_rate, cache_hit_rate=self.prefix_cache.hit_rate,
            spec_num_steps=steps, spec_num_draft_tokens=ndt, new_token_ratio=self.new_token_ratio,
            num_retracted_reqs=self.last_retracted, kv_available_tokens=max(0, self.capacity - used),
            kv_evictable_tokens=self.prefix_cache.total_tokens,
            decode_sum_seq_lens=sum(r.prompt_tokens + r.n_out for r in self.running), ranks=self._rank_stats())
        self.observer.on_scheduler_stats(self.stats)
        self._reset_window()

    def _rank_stats(self) -> tuple[tuple[int, int, float, float], ...]:
        if self.dp_ranks <= 1:
            return ()
        return tuple((sum(r.dp_rank == i for r in self.running), sum(r.dp_rank == i for r in self.waiting),
                      *self.rank_window[i]) for i in range(self.dp_ranks))

    def active_spec(self) -> tuple[int, int]:
        """(speculative_num_steps, speculative_num_draft_tokens) in force now (adaptive moves them)."""
        if self.adaptive is not None:
            return self.adaptive.steps, self.adaptive.draft_tokens
        return self.cfg.spec_steps, self.cfg.spec_draft_tokens

    def on_idle(self) -> None:
        """The scheduler ran out of work: publish idle gauges (SGLang's `_maybe_log_idle_metrics`)."""
        used, usage = self._usage()
        self.stats.num_running_reqs = len(self.running)
        self.stats.num_queue_reqs = len(self.waiting)
        self.stats.gen_throughput = 0.0
        self.stats.token_usage = round(usage, 2)
        self.stats.num_used_tokens = used
        self.stats.kv_available_tokens = max(0, self.capacity - used)
        self.stats.kv_evictable_tokens = self.prefix_cache.total_tokens
        self.stats.decode_sum_seq_lens = 0
        self.observer.on_scheduler_stats(self.stats)

    def _log_prefill(self, plan: StepPlan, new_tok: int, cached_tok: int, running_before: int) -> None:
        """SGLang's prefill log: `#running-req` counts the batch already decoding, and the input throughput is
        the previous prefill window's (0 on the first)."""
        gap = self.clock - self._last_prefill_log_s
        first = self._prefill_logs == 0
        self._prefill_logs += 1
        self._last_prefill_log_s = self.clock
        shown_throughput = self._last_input_throughput
        self._last_input_throughput = 0.0 if first else (new_tok / gap if gap > 0 else 0.0)
        used, usage = self._usage()
        pending = sum(r.prefill_target - r.prefilled for r in self.waiting)
        if self.chunked is not None:
            pending += self.chunked.prefill_target - self.chunked.prefilled
        new_seqs = sum(1 for r, _ in plan.chunks if r.prefilled >= r.prefill_target or r is self.chunked)
        self.log(f"Prefill batch, #new-seq: {new_seqs}, #new-token: {new_tok}, #cached-token: {cached_tok}, "
                 f"token usage: {usage:.2f}, #running-req: {running_before}, #queue-req: {len(self.waiting)}, "
                 f"#pending-token: {pending}, cuda graph: {plan.graph}, "
                 f"input throughput (token/s): {shown_throughput:.2f}")
        self.stats.num_running_reqs = len(self.running)
        self.stats.num_queue_reqs = len(self.waiting)
        self.stats.token_usage = round(usage, 2)
        self.stats.num_used_tokens = used
        self.stats.cache_hit_rate = self.prefix_cache.hit_rate
        self.stats.kv_available_tokens = max(0, self.capacity - used)
        self.stats.kv_evictable_tokens = self.prefix_cache.total_tokens
        self.stats.new_token_ratio = self.new_token_ratio
        self.observer.on_scheduler_stats(self.stats)


def _min_free_slots(user_value: Any, max_running: int, dflash: bool) -> int | None:
    """`resolve_min_free_slots` (managers/min_free_slots_delayer.py): None = disabled."""
    max_running = max(0, int(max_running))
    if user_value is not None:
        threshold = min(int(user_value), max_running)
        return threshold if threshold > 1 else None
    if dflash and max_running >= 8:
        return min(4, max(2, (max_running + 5) // 6))
    return None
