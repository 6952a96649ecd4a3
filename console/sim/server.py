"""The twin's HTTP server: FastAPI on uvicorn, with SGLang 0.5.23's routes and exact response shapes.

Routes (reference sections 2, 3 and 10): /ready, /health, /health_generate, /model_info (+/get_model_info),
/server_info (+/get_server_info), /v1/models[/{model}], /v1/chat/completions, /generate, /flush_cache,
/freeze_gc, /v1/loads, /metrics (only with --enable-metrics). Twin-only, never changing any SGLang shape:
GET /sim/info and GET /sim/trace[?rid=]. Injected faults (`--sim-fault`, faults.py) act here: stream faults wrap
the SSE generators, http500 answers before a request is submitted, flush-busy in /flush_cache, crash-at-step is
armed on the engine runtime when the server gets ready; GET /sim/info lists them with how often each fired.

The server listens from the first moment (so a console polling /health sees 503 while the model loads); every
other route answers 503 until the startup reaches the point where SGLang would start uvicorn, and /ready stays
503 until the warmup request has been served ("The server is fired up and ready to roll!").
`--api-key` protects every route except /health*, /ready* and /metrics* (srt/utils/auth.py): 401
`{"error":"Unauthorized"}` without the right `Authorization: Bearer` header.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import random
import secrets
import time
import uuid
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from .args import ServerConfig
from .deployment import Deployment
from .domain import detect_domain
from .engine import Engine, SimRequest
from .faults import TRUNCATE, FaultState, crash_records, die, faulted_stream, runtime_crash_message
from .logfmt import SimLog
from .memory import MemoryPlan
from .metrics import ConstantGauges, MetricsStore
from .runtime import EngineRuntime, RequestHandle, TraceRecord, TraceStore
from .tokens import chat_prompt_tokens, count_tokens, messages_text
from . import wire

VERSION = "0.5.23"
WARMUP_IMAGE_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
                    "hKmMIQAAAABJRU5ErkJggg==")
FLUSH_OK = ("Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, "
            "the operation will not be performed.)\n")
PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _hash(*parts: str) -> int:
    h = hashlib.blake2b(digest_size=8)
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return int.from_bytes(h.digest(), "big")


def _error(message: str, status: int = 400, err_type: str = "BadRequestError") -> JSONResponse:
    """OpenAI-route error (ErrorResponse.model_dump())."""
    return JSONResponse({"object": "error", "message": message, "type": err_type, "param": None, "code": status},
                        status_code=status)


def _has_image(messages: list[dict[str, Any]]) -> bool:
    return any(isinstance(m.get("content"), list) and any(
        isinstance(p, dict) and p.get("type") in ("image_url", "image", "input_image") for p in m["content"])
        for m in messages)


def refused(req: SimRequest) -> bool:
    """Aborted by the scheduler with an HTTP status (the queue was full): an error, not a finished answer."""
    fr = req.finish_reason
    return bool(fr) and fr.get("type") == "abort" and isinstance(fr.get("status_code"), int)


class RequestError(Exception):
    """A request SGLang refuses (ValueError in the tokenizer manager): 400 with `message`."""


class SimServer:
    """State of one twin process: the resolved launch, the engine and everything the routes read."""

    def __init__(self, cfg: ServerConfig, dep: Deployment, mem: MemoryPlan, log: SimLog,
                 faults: FaultState | None = None) -> None:
        self.cfg, self.dep, self.mem, self.log = cfg, dep, mem, log
        self.faults = faults if faults is not None else FaultState(cfg.sim.faults, cfg.sim.seed)
        a = cfg.args
        self.metrics_enabled = bool(a.get("enable_metrics"))
        self.context_len = int(a.get("context_length") or dep.model.context_len)
        self.max_req_len = min(self.context_len - 1, mem.max_total_num_tokens - 1)
        self.max_req_input_len = self.max_req_len - 5
        graph = mem.graph_usage(cfg.is_spec)
        self.constants = ConstantGauges(
            max_total_num_tokens=mem.max_total_num_tokens, weight_gb=round(mem.weight_gib, 3),
            kv_cache_gb=round(mem.kv_cache_gib, 3), graph_gb={k: round(v, 3) for k, v in graph.items()},
            context_len=self.context_len, startup_available_gb=round(mem.avail_before_weights_gib, 3),
            spec_num_steps=cfg.spec_steps, spec_num_draft_tokens=cfg.spec_draft_tokens)
        self.metrics = MetricsStore(a["served_model_name"], cfg.tp_size, self.constants, cfg.is_spec)
        self.engine = Engine(cfg, dep, mem, observer=self.metrics, log=lambda m: log.line(m, 0))
        self.runtime = EngineRuntime(self.engine, cfg.sim.time_scale)
        self.trace = TraceStore()
        self.http_open = False  # the startup reached "uvicorn starts"
        self.ready = False  # warmup done
        self.scheduler_startup_time: dict[str, Any] = {}
        self.engine_startup_time: dict[str, Any] = {}
        self.exit_code = 0

    # ------------------------------------------------------------------------------------------- reports

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

    def internal_state(self) -> dict[str, Any]:
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
        accept = self.engine.avg_spec_accept_length
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
        out["internal_states"] = [self.internal_state()]
        out["version"] = VERSION
        out["frontend"] = "python"
        return out

    def loads(self, include: set[str] | None) -> dict[str, Any]:
        e, mem = self.engine, self.mem
        used = e.num_used_tokens()
        waiting_tokens = sum(r.prefill_target - r.prefilled for r in e.waiting)
        total = used + waiting_tokens
        stats = e.stats
        load: dict[str, Any] = {
            "timestamp": time.time(), "dp_rank": 0, "num_running_reqs": len(e.running),
            "num_waiting_reqs": len(e.waiting), "num_waiting_uncached_tokens": waiting_tokens,
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
        graph = mem.graph_usage(self.cfg.is_spec)
        if every or "memory" in include:
            target_graphs = graph["prefill"] + graph["decode"] + graph["target_verify"]  # the target runner's only
            load["memory"] = {"weight_gb": round(mem.weight_gib, 3), "kv_cache_gb": round(mem.kv_cache_gib, 3),
                              "graph_gb": round(target_graphs, 3), "token_capacity": mem.max_total_num_tokens}
        accept = e.avg_spec_accept_length
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

    # -------------------------------------------------------------------------------------- request building

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
        if prompt_tokens > self.max_req_input_len:
            raise RequestError(f"The input ({prompt_tokens} tokens) is longer than the KV cache capacity allows "
                               f"(max_req_input_len={self.max_req_input_len} tokens).")
        return self.context_len - prompt_tokens if max_new is None else max_new

    def _domain(self, text: str, has_tools: bool) -> str:
        d = self.cfg.sim.domain
        return detect_domain(text, has_tools) if d == "auto" else d

    @staticmethod
    def _temperature(value: Any) -> float:
        """Sampling temperature; SGLang's default when unset is 1.0."""
        if value is None:
            return 1.0
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise RequestError(f"temperature must be a non-negative number, got {value!r}")
        return float(value)

    @staticmethod
    def _stops(value: Any) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,) if value else ()
        if isinstance(value, list) and all(isinstance(s, str) for s in value):
            return tuple(s for s in value if s)
        raise RequestError("stop must be a string or a list of strings")

    def chat_request(self, body: dict[str, Any]) -> SimRequest:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
            raise RequestError("messages must be a non-empty list of message objects")
        if body.get("n") not in (None, 1):
            raise RequestError("n > 1 is not supported by the engine twin")
        tools = body.get("tools") or body.get("functions")
        m = self.dep.model
        tool_tokens = chat_prompt_tokens([], tools, per_message=0, generation_prompt=0,
                                         per_tool=m.chat_tokens_per_tool, tokens_per_image=0)
        # One prefix-cache key per message: (hash of tools + messages so far, template tokens so far).
        keys: list[tuple[int, int]] = []
        h, toks = str(_hash("tools", json.dumps(tools, sort_keys=True))), tool_tokens
        for msg in messages:
            h = str(_hash(h, json.dumps(msg, sort_keys=True, ensure_ascii=False)))
            toks += chat_prompt_tokens([msg], None, per_message=m.chat_tokens_per_message, generation_prompt=0,
                                       per_tool=0, tokens_per_image=m.image_tokens_per_image)
            keys.append((int(h), toks))
        prompt = toks + m.chat_tokens_generation_prompt
        max_new = body.get("max_completion_tokens") or body.get("max_tokens")
        if max_new is not None and (not isinstance(max_new, int) or max_new <= 0):
            raise RequestError("max_tokens must be positive")
        max_new = self._limits(prompt, max_new)
        text = messages_text(messages)
        return SimRequest(
            rid=str(body.get("rid") or uuid.uuid4().hex), prompt_tokens=prompt, max_new_tokens=max_new,
            temperature=self._temperature(body.get("temperature")),
            ignore_eos=bool(body.get("ignore_eos", False)), stop=self._stops(body.get("stop")),
            stop_token_ids=frozenset(body.get("stop_token_ids") or ()),
            domain=self._domain(text, bool(tools)), prompt_hash=_hash(json.dumps(messages, sort_keys=True),
                                                                        json.dumps(tools, sort_keys=True)),
            prefix_keys=keys, stream=bool(body.get("stream", False)), has_image=_has_image(messages))

    def generate_request(self, body: dict[str, Any]) -> SimRequest:
        text, ids = body.get("text"), body.get("input_ids")
        if isinstance(text, list) or (isinstance(ids, list) and ids and isinstance(ids[0], list)):
            raise RequestError("batched /generate requests are not supported by the engine twin")
        if text is None and ids is None:
            raise RequestError("Either text, input_ids or input_embeds should be provided.")
        sp = body.get("sampling_params") or {}
        if text is not None:
            prompt = max(1, count_tokens(str(text)))
            keys = [(_hash("text", str(text)), prompt)]
            phash, dom_text = _hash("text", str(text)), str(text)
        else:
            prompt = len(ids)
            if prompt == 0:
                raise RequestError("input_ids is empty")
            keys, acc = [], ""
            for i in range(64, prompt + 1, 64):
                acc = str(_hash(acc, json.dumps(ids[i - 64:i])))
                keys.append((int(acc), i))
            phash, dom_text = _hash("ids", json.dumps(ids)), ""
        max_new = sp.get("max_new_tokens", 128)
        if max_new is not None and (not isinstance(max_new, int) or max_new < 0):
            raise RequestError(f"max_new_tokens must be at least 0, got {max_new}.")
        max_new = self._limits(prompt, max_new)
        return SimRequest(
            rid=str(body.get("rid") or uuid.uuid4().hex), prompt_tokens=prompt, max_new_tokens=max_new,
            temperature=self._temperature(sp.get("temperature")),
            ignore_eos=bool(sp.get("ignore_eos", False)), stop=self._stops(sp.get("stop")),
            stop_token_ids=frozenset(sp.get("stop_token_ids") or ()), domain=self._domain(dom_text, False),
            prompt_hash=phash, prefix_keys=keys, stream=bool(body.get("stream", False)))

    # ------------------------------------------------------------------------------------------- serving

    def stream_response(self, events: AsyncIterator[str], rec: TraceRecord) -> StreamingResponse:
        """The SSE response of a streaming request, with the stream faults of this request applied (if any)."""
        if self.faults.stream and self.ready:
            actions = self.faults.stream_actions()
            if actions:
                return FaultStreamingResponse(faulted_stream(events, rec, actions, self.faults),
                                              media_type="text/event-stream")
        return StreamingResponse(events, media_type="text/event-stream")

    def http500(self, endpoint: str) -> Response | None:
        """The http500 fault: SGLang's 500 for a generation request that failed before streaming (None: serve)."""
        if not (self.ready and self.faults.take_http500()):
            return None
        message = "simulated engine failure (--sim-fault http500)"
        if endpoint == "/generate":
            self.log.line(f"[http_server] Error: {message}")
            return JSONResponse({"error": {"message": message}}, status_code=500)
        self.log.line(f"Error in request: {message}")
        return _error(f"Internal server error: {message}", 500, "InternalServerError")

    def crash_scheduler(self) -> None:
        """The crash-at-step fault: every rank's scheduler dies, the launcher kills the process tree."""
        rng = random.Random(f"crash:{self.cfg.sim.seed}:step")
        for text, rank in crash_records(lambda r: runtime_crash_message(), self.cfg.tp_size, rng, running=True):
            self.log.line(text, rank)
        die()

    def submit(self, req: SimRequest, endpoint: str) -> tuple[RequestHandle, TraceRecord]:
        handle = RequestHandle()
        req.sink = handle.push
        rec = self.trace.start(req, endpoint)
        self.runtime.submit(req)
        return handle, rec

    @staticmethod
    async def _drain(handle: RequestHandle) -> None:
        """Wait for a request's final output (non-streaming responses)."""
        while (out := await handle.next()) is not None:
            if out.finished:
                return

    def _e2e(self, req: SimRequest) -> float:
        return (req.finish_s or self.engine.clock) - req.arrival_s

    def chat_stream(self, req: SimRequest, handle: RequestHandle, rec: TraceRecord,
                    body: dict[str, Any]) -> AsyncIterator[str]:
        a = self.cfg.args
        opts = body.get("stream_options") or None
        if opts:
            include_usage = bool(opts.get("include_usage")) or bool(a.get("stream_response_default_include_usage"))
            continuous = bool(opts.get("continuous_usage_stats"))
        else:
            include_usage, continuous = bool(a.get("stream_response_default_include_usage")), False
        want_spec = bool(body.get("return_spec_tokens_details"))
        model = str(body.get("model") or "default")
        created = int(time.time())
        cache_report = bool(a.get("enable_cache_report"))
        rid = req.rid

        async def gen() -> AsyncIterator[str]:
            sent_chars = sent_tokens = 0
            first = True
            try:
                while (out := await handle.next()) is not None:
                    n = out.completion_tokens
                    if out.finished and refused(req):  # an abort with a status code: one error event
                        rec.chunk(0)
                        yield wire.sse({"error": {"object": "error", "message": req.finish_reason["message"],
                                                  "type": "SERVICE_UNAVAILABLE", "param": None, "code": 503}})
                        rec.chunk(0)
                        yield wire.SSE_DONE
                        self.trace.finish(rec, req)
                        return
                    if first:
                        first = False
                        rec.chunk(0)
                        yield wire.chat_chunk(rid, created, model, role="assistant", content="")
                    text = req.text(n)
                    delta = text[sent_chars:]
                    if delta:
                        sent_chars = len(text)
                        u = wire.usage(req.prompt_tokens, n, req.cached_tokens if cache_report else None) \
                            if continuous else None
                        rec.chunk(n - sent_tokens)
                        sent_tokens = n
                        yield wire.chat_chunk(rid, created, model, content=delta, usage_=u)
                    if out.finished:
                        break
                reason, matched = wire.chat_finish(req)
                rec.chunk(req.n_out - sent_tokens)
                yield wire.chat_chunk(rid, created, model, finish_reason=reason, matched_stop=matched)
                if want_spec and self.cfg.is_spec:
                    details = wire.spec_tokens_details(wire.spec_metrics(req, self.cfg.spec_draft_tokens))
                    if details is not None:
                        rec.chunk(0)
                        yield wire.sglext_chunk(rid, created, model, details)
                if include_usage:
                    rec.chunk(0)
                    yield wire.usage_chunk(rid, created, model, wire.usage(
                        req.prompt_tokens, req.n_out, req.cached_tokens if cache_report else None))
                rec.chunk(0)
                yield wire.SSE_DONE
                self.trace.finish(rec, req)
            finally:
                if not req.finished:
                    self.runtime.abort(req)

        return gen()

    async def chat_response(self, req: SimRequest, handle: RequestHandle, rec: TraceRecord,
                            body: dict[str, Any]) -> dict[str, Any] | Response:
        created = int(time.time())
        try:
            await self._drain(handle)
        finally:
            if not req.finished:
                self.runtime.abort(req)
        if refused(req):
            self.trace.finish(rec, req)
            return _error(req.finish_reason["message"], 503, "503")
        a = self.cfg.args
        reason, matched = wire.chat_finish(req)
        wv = a.get("weight_version", "default")
        out: dict[str, Any] = {
            "id": req.rid, "object": "chat.completion", "created": created, "model": str(body.get("model") or "default"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": req.text(), "reasoning_content": None},
                         "logprobs": None, "finish_reason": reason, "matched_stop": matched}],
            "usage": wire.usage(req.prompt_tokens, req.n_out,
                                req.cached_tokens if a.get("enable_cache_report") else None),
            "metadata": {"weight_version": wv, "weight_versions": [{"version": wv, "start": 0, "end": req.n_out}]},
        }
        if body.get("return_spec_tokens_details") and self.cfg.is_spec:
            details = wire.spec_tokens_details(wire.spec_metrics(req, self.cfg.spec_draft_tokens))
            if details is not None:
                out["sglext"] = {"spec_tokens_details": details}
        rec.chunk(req.n_out)
        self.trace.finish(rec, req)
        return out

    def _meta(self, req: SimRequest, n: int, finished: bool, sent_ts: float | None) -> dict[str, Any]:
        return wire.meta_info(req, n, finished=finished, weight_version=self.cfg.args.get("weight_version", "default"),
                              spec=self.cfg.is_spec, num_draft_tokens=self.cfg.spec_draft_tokens,
                              e2e_latency=self._e2e(req) if finished else None, sent_ts=sent_ts)

    def generate_stream(self, req: SimRequest, handle: RequestHandle, rec: TraceRecord) -> AsyncIterator[str]:
        async def gen() -> AsyncIterator[str]:
            first, sent = True, 0
            try:
                while (out := await handle.next()) is not None:
                    n = out.completion_tokens
                    meta = self._meta(req, n, out.finished, time.time() if first else None)
                    first = False
                    rec.chunk(n - sent)
                    sent = n
                    yield wire.sse({"text": req.text(n), "output_ids": req.output_ids(n), "meta_info": meta})
                    if out.finished:
                        break
                rec.chunk(0)
                yield wire.SSE_DONE
                self.trace.finish(rec, req)
            finally:
                if not req.finished:
                    self.runtime.abort(req)

        return gen()

    async def generate_response(self, req: SimRequest, handle: RequestHandle,
                                rec: TraceRecord) -> dict[str, Any] | Response:
        try:
            await self._drain(handle)
        finally:
            if not req.finished:
                self.runtime.abort(req)
        if refused(req):  # HTTPException(503) through the app's handler: an ErrorResponse
            self.trace.finish(rec, req)
            return _error(req.finish_reason["message"], 503, "503")
        rec.chunk(req.n_out)
        self.trace.finish(rec, req)
        return {"text": req.text(), "output_ids": req.output_ids(), "meta_info": self._meta(req, req.n_out, True,
                                                                                            time.time())}

    async def health_generate(self) -> bool:
        """SGLang's health probe: a 1-token generate; healthy if any output arrives within 20 s (scaled)."""
        req = SimRequest(rid=f"HEALTH_CHECK_{uuid.uuid4().hex}", prompt_tokens=1, max_new_tokens=1,
                         temperature=0.0, log_metrics=False, stream=False, prompt_hash=0)
        handle = RequestHandle()
        req.sink = handle.push
        self.runtime.submit(req)
        scale = self.cfg.sim.time_scale
        deadline = time.monotonic() + 20.0 / scale
        while time.monotonic() < deadline:
            await asyncio.sleep(1.0 / scale)
            if req.first_token_s is not None:
                if not req.finished:
                    self.runtime.abort(req)
                return True
        self.runtime.abort(req)
        return False

    # ------------------------------------------------------------------------------------------- startup

    def set_startup_time(self, scheduler: dict[str, Any], tokenizer_e2e: float) -> None:
        self.scheduler_startup_time = scheduler
        self.engine_startup_time = dict(scheduler) | {"tokenizer_e2e": tokenizer_e2e}

    def open_http(self) -> None:
        """The point where SGLang starts uvicorn: routes serve, the engine runs."""
        self.runtime.start()
        self.http_open = True
        self.log.uvicorn(f"Started server process [{os.getpid()}]")
        self.log.uvicorn("Waiting for application startup.")
        self.log.uvicorn("Application startup complete.")
        a = self.cfg.args
        self.log.uvicorn(f"Uvicorn running on http://{a['host']}:{a['port']} (Press CTRL+C to quit)")

    async def warmup(self) -> bool:
        """SGLang's launcher warmup: poll /model_info, send one small request, /freeze_gc, then ready."""
        import httpx

        a = self.cfg.args
        host = a["host"] if a["host"] not in ("0.0.0.0", "::", "") else "127.0.0.1"
        base = f"http://{host}:{a['port']}"
        headers = {"Authorization": f"Bearer {a['api_key']}"} if a.get("api_key") else {}
        await asyncio.sleep(self.dep.startup.warmup_poll_s / self.cfg.sim.startup_divisor)
        try:
            async with httpx.AsyncClient(base_url=base, headers=headers, timeout=600) as client:
                if not a.get("skip_server_warmup"):
                    r = await client.get("/model_info")
                    r.raise_for_status()
                    info = r.json()
                    if info.get("has_image_understanding"):
                        if self.dep.model.vlm_warmup_log:
                            self.log.line(self.dep.model.vlm_warmup_log)
                        payload = {"model": a["served_model_name"], "messages": [{"role": "user", "content": [
                            {"type": "image_url", "image_url": {"url": WARMUP_IMAGE_URL}},
                            {"type": "text", "text": "Describe the image."}]}],
                            "max_tokens": 8, "stream": False, "temperature": 0.0}
                        r = await client.post("/v1/chat/completions", json=payload)
                    else:
                        r = await client.post("/generate", json={"text": "The capital city of France is",
                                                                  "sampling_params": {"temperature": 0,
                                                                                      "max_new_tokens": 8}})
                    r.raise_for_status()
                await asyncio.sleep(self.dep.startup.post_warmup_s / self.cfg.sim.startup_divisor)
                await client.post("/freeze_gc")
        except Exception as e:  # noqa: BLE001 - the launcher logs any warmup failure the same way
            self.log.line(f"Initialization failed. warmup error: {e!r}")
            return False
        self.ready = True
        if self.faults.crash_step is not None:
            self.runtime.arm_crash(self.faults.crash_step, self.crash_scheduler)
        self.log.line("The server is fired up and ready to roll!")
        return True


# ------------------------------------------------------------------------------------------------- the app


class GateMiddleware:
    """Pure-ASGI middleware: 503 before the HTTP server would exist, then sglang's API-key rule."""

    EXEMPT = ("/health", "/ready", "/metrics")

    def __init__(self, app: Any, server: SimServer) -> None:
        self.app = app
        self.server = server
        self.api_key = server.cfg.args.get("api_key")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if not self.server.http_open and not (path.startswith("/health") or path.startswith("/ready")
                                              or path == "/sim/info"):
            await Response(status_code=503)(scope, receive, send)
            return
        if self.api_key and scope.get("method") != "OPTIONS" and not path.startswith(self.EXEMPT):
            authz = None
            for k, v in scope.get("headers", []):
                if k == b"authorization":
                    authz = v.decode("latin-1")
                    break
            ok = False
            if authz:
                parts = authz.split(" ", 1)
                ok = len(parts) == 2 and parts[0].lower() == "bearer" and secrets.compare_digest(parts[1], self.api_key)
            if not ok:
                await JSONResponse({"error": "Unauthorized"}, status_code=401)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise RequestError("Invalid JSON in request body") from None
    if not isinstance(body, dict):
        raise RequestError("Request body must be a JSON object.")
    return body


def create_app(server: SimServer) -> FastAPI:
    """The FastAPI application of one twin process."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    app.add_middleware(GateMiddleware, server=server)

    @app.get("/ready")
    async def ready() -> Response:
        return Response(status_code=200 if server.ready else 503)

    @app.get("/health")
    @app.get("/health_generate")
    async def health() -> Response:
        if not server.ready:
            return Response(status_code=503)
        return Response(status_code=200 if await server.health_generate() else 503)

    def info_route(path: str, body: Callable[[], dict[str, Any]]) -> None:
        """`path` and its deprecated `/get_…` alias, which logs SGLang's deprecation line on each call."""
        async def current() -> JSONResponse:
            return JSONResponse(body())

        async def deprecated() -> JSONResponse:
            server.log.line(f"Endpoint '/get_{path[1:]}' is deprecated and will be removed in a future version. "
                            f"Please use '{path}' instead.")
            return JSONResponse(body())

        app.add_api_route(path, current, methods=["GET"])
        app.add_api_route(f"/get_{path[1:]}", deprecated, methods=["GET"])

    info_route("/model_info", server.model_info)
    info_route("/server_info", server.server_info)

    def model_card(name: str) -> dict[str, Any]:
        return {"id": name, "object": "model", "created": int(time.time()), "owned_by": "sglang", "root": name,
                "parent": None, "max_model_len": server.context_len}

    @app.get("/v1/models")
    async def models() -> JSONResponse:
        return JSONResponse({"object": "list", "data": [model_card(server.cfg.args["served_model_name"])]})

    @app.get("/v1/models/{model:path}")
    async def retrieve_model(model: str) -> JSONResponse:
        if model != server.cfg.args["served_model_name"]:
            return JSONResponse({"error": {"message": f"The model '{model}' does not exist",
                                           "type": "invalid_request_error", "param": "model",
                                           "code": "model_not_found"}}, status_code=404)
        return JSONResponse(model_card(model))

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        try:
            body = await _json_body(request)
            req = server.chat_request(body)
        except RequestError as e:
            return _error(str(e))
        if server.faults.http500 and (failed := server.http500("/v1/chat/completions")) is not None:
            return failed
        handle, rec = server.submit(req, "/v1/chat/completions")
        if req.stream:
            return server.stream_response(server.chat_stream(req, handle, rec, body), rec)
        res = await server.chat_response(req, handle, rec, body)
        return res if isinstance(res, Response) else JSONResponse(res)

    @app.api_route("/generate", methods=["POST", "PUT"])
    async def generate(request: Request) -> Response:
        try:
            body = await _json_body(request)
            req = server.generate_request(body)
        except RequestError as e:
            return JSONResponse({"error": {"message": str(e)}}, status_code=400)
        if server.faults.http500 and (failed := server.http500("/generate")) is not None:
            return failed
        handle, rec = server.submit(req, "/generate")
        if req.stream:
            return server.stream_response(server.generate_stream(req, handle, rec), rec)
        res = await server.generate_response(req, handle, rec)
        return res if isinstance(res, Response) else JSONResponse(res)

    @app.api_route("/flush_cache", methods=["GET", "POST"])
    async def flush_cache(timeout: float = 0.0) -> Response:
        engine = server.engine
        if server.faults.flush_busy and server.faults.take_flush_busy():  # busy as far as /flush_cache can tell
            if timeout > 0:
                await asyncio.sleep(timeout)
                return Response(content="Timed out waiting for idle state.", status_code=400)
            for rank in range(server.cfg.tp_size):
                server.log.line("Cache not flushed because there are pending requests. "
                                f"#queue-req: {len(engine.waiting)}, #running-req: {len(engine.running)}", rank)
            return Response(content="Flush cache failed.\n", status_code=400)
        if engine.has_work() and timeout > 0:
            end = time.monotonic() + timeout
            while engine.has_work() and time.monotonic() < end:
                await asyncio.sleep(0.01)
            if engine.has_work():
                return Response(content="Timed out waiting for idle state.", status_code=400)
        if engine.has_work():
            for rank in range(server.cfg.tp_size):
                server.log.line("Cache not flushed because there are pending requests. "
                                f"#queue-req: {len(engine.waiting)}, #running-req: {len(engine.running)}", rank)
            return Response(content="Flush cache failed.\n", status_code=400)
        engine.reset_spec_counters()
        server.log.line("Cache flushed successfully!", 0)
        return Response(content=FLUSH_OK, status_code=200)

    @app.api_route("/freeze_gc", methods=["GET", "POST"])
    async def freeze_gc() -> Response:
        return Response(content="Garbage collection frozen.\n", status_code=200)

    @app.get("/v1/loads")
    async def v1_loads(dp_rank: int | None = None, include: str | None = None, format: str | None = None) -> Response:
        inc = {s.strip() for s in include.split(",")} if include else None
        valid = {"core", "memory", "spec", "lora", "disagg", "queues", "all"}
        if inc is not None and not inc <= valid:
            return JSONResponse({"detail": f"Invalid include sections: {inc - valid}. Valid options: {sorted(valid)}"},
                                status_code=400)
        loads = [] if dp_rank not in (None, 0) else [server.loads(inc)]
        if format == "prometheus":
            lines = []
            for load in loads:
                for key, value in load.items():
                    if key == "dp_rank":
                        continue
                    prefix = {"speculative": "spec", "disaggregation": "disagg"}.get(key, key)
                    if isinstance(value, dict):
                        for sk, sv in value.items():
                            if isinstance(sv, (int, float)) and not isinstance(sv, bool):
                                lines += [f"# TYPE sglang_{prefix}_{sk} gauge", f'sglang_{prefix}_{sk}{{dp_rank="0"}} {sv}']
                    elif isinstance(value, (int, float)) and not isinstance(value, bool):
                        lines += [f"# TYPE sglang_{key} gauge", f'sglang_{key}{{dp_rank="0"}} {value}']
            return Response(content="\n".join(lines) + "\n", media_type=PROMETHEUS_CONTENT_TYPE)
        return JSONResponse({"timestamp": datetime.now(timezone.utc).isoformat(), "version": VERSION,
                             "accelerator": server.dep.node.gpu_name, "num_accelerators": server.cfg.tp_size,
                             "loads": loads})

    if server.metrics_enabled:
        @app.get("/metrics")
        async def metrics() -> Response:
            return Response(content=server.metrics.render(), media_type=PROMETHEUS_CONTENT_TYPE)

    @app.get("/sim/info")
    async def sim_info() -> JSONResponse:
        return JSONResponse(server.sim_info())

    @app.get("/sim/trace")
    async def sim_trace(rid: str | None = None) -> JSONResponse:
        if rid is not None:
            rec = server.trace.finished.get(rid)
            if rec is None:
                return JSONResponse({"error": f"no finished request with rid {rid!r}"}, status_code=404)
            return JSONResponse(rec.to_json())
        return JSONResponse({"time_scale": server.cfg.sim.time_scale, "clock": "time.monotonic",
                             "requests": [r.to_json() for r in server.trace.finished.values()]})

    return app


class FaultStreamingResponse(StreamingResponse):
    """A streaming response that can be cut: on the TRUNCATE sentinel it stops without the final empty body
    message, so uvicorn closes the connection with the chunked body incomplete."""

    async def stream_response(self, send: Any) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for chunk in self.body_iterator:
            if chunk is TRUNCATE:
                await self.body_iterator.aclose()  # type: ignore[attr-defined]
                return
            if not isinstance(chunk, (bytes, memoryview)):
                chunk = chunk.encode(self.charset)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


TRUNCATED_MSG = "ASGI callable returned without completing response."


class UvicornGate(logging.Filter):
    """Drops uvicorn's own INFO records until the startup reaches "uvicorn starts" (the twin prints those lines
    itself at that point) and access records of --uvicorn-access-log-exclude-prefixes paths."""

    def __init__(self, server: SimServer, access: bool) -> None:
        super().__init__()
        self.server = server
        self.access = access
        self.exclude = tuple(server.cfg.args.get("uvicorn_access_log_exclude_prefixes") or ())

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            # uvicorn's complaint about a response the truncate fault cut on purpose
            return not (self.server.faults.stream and record.msg == TRUNCATED_MSG)
        if not self.server.http_open:
            return False
        if self.access and self.exclude and len(record.args or ()) >= 3:
            path = str(record.args[2]).split("?", 1)[0]  # type: ignore[index]
            return not path.startswith(self.exclude)
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """SGLang's uvicorn log format (`set_uvicorn_logging_configs`), written to stdout."""
    fmt_time = "%Y-%m-%d %H:%M:%S"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "default": {"()": "uvicorn.logging.DefaultFormatter", "fmt": "[%(asctime)s] %(levelprefix)s %(message)s",
                        "datefmt": fmt_time, "use_colors": False},
            "access": {"()": "uvicorn.logging.AccessFormatter",
                       "fmt": '[%(asctime)s] %(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
                       "datefmt": fmt_time, "use_colors": False},
        },
        "handlers": {
            "default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stdout"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }
