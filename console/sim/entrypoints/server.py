"""The twin's server state (`SimServer`: the resolved launch, the engine and what the routes read) and its uvicorn
glue. The routes are in app.py, request parsing in requests.py, response shaping in responses.py, the
introspection reports in introspect.py; SimServer combines the last three.

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
`{"error":"Unauthorized"}` without the right `Authorization: Bearer` header."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
import uuid
from typing import Any

from fastapi.responses import JSONResponse, Response

from ..config.args import ServerConfig
from ..config.deployment import Deployment
from ..content import hidden
from ..model.engine import Engine, SimRequest
from ..model.memory import MemoryPlan
from ..model.runtime import RECEIVED_AT, EngineRuntime, RequestHandle, TraceRecord, TraceStore
from ..ops.faults import FaultState, crash_records, die, runtime_crash_message
from ..ops.logfmt import SimLog
from .errors import RequestError, SchedulerAbort
from .introspect import IntrospectionRoutes
from .logprobs import (
    LogprobAsk,
    asked_logprobs,
    attach,
    generate_ask,
    stream_abort,
    uncap,
    with_logprobs,
)
from .metrics import ConstantGauges, MetricsStore
from .requests import RequestParsing
from .responses import TRUNCATED_MSG, ResponseShaping, _error
from .timing import with_timing

WARMUP_IMAGE_URL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA"
                    "hKmMIQAAAABJRU5ErkJggg==")
FLUSH_OK = ("Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting requests, "
            "the operation will not be performed.)\n")
PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"








class SimServer(IntrospectionRoutes, RequestParsing, ResponseShaping):
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
            spec_num_steps=cfg.spec_steps, spec_num_draft_tokens=cfg.spec_draft_tokens,
            page_size=int(a.get("page_size") or 1),
            num_pages=mem.max_total_num_tokens // max(1, int(a.get("page_size") or 1)))
        self.metrics = MetricsStore(a["served_model_name"], cfg.tp_size, self.constants, cfg.is_spec)
        self.engine = Engine(cfg, dep, mem, observer=self.metrics, log=lambda m: log.line(m, 0))
        self.runtime = EngineRuntime(self.engine, cfg.sim.time_scale)
        self.runtime.on_failure = self.scheduler_died
        self.metrics.model_now = lambda: self.runtime.model_now() if self.http_open else self.engine.clock
        self.trace = TraceStore()
        self.http_open = False  # the startup reached "uvicorn starts"
        self.ready = False  # warmup done
        self.scheduler_startup_time: dict[str, Any] = {}
        self.engine_startup_time: dict[str, Any] = {}
        self.exit_code = 0

    # ------------------------------------------------------------------------------------------- reports







    # -------------------------------------------------------------------------------------- request building







    # ------------------------------------------------------------------------------------------- serving


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

    def scheduler_died(self, record: str) -> None:
        """An engine bug killed the engine task: its traceback as every rank's record, the launcher's kill lines,
        SIGKILL (as a crashed scheduler ends a SGLang server)."""
        rng = random.Random(f"crash:{self.cfg.sim.seed}:bug")
        for text, rank in crash_records(lambda r: record, self.cfg.tp_size, rng, running=True):
            self.log.line(text, rank)
        die()

    def crash_scheduler(self) -> None:
        """The crash-at-step fault: every rank's scheduler dies, the launcher kills the process tree."""
        rng = random.Random(f"crash:{self.cfg.sim.seed}:step")
        for text, rank in crash_records(lambda r: runtime_crash_message(), self.cfg.tp_size, rng, running=True):
            self.log.line(text, rank)
        die()

    def model_info(self) -> dict[str, Any]:
        """/model_info with the `embedding` block SGLang resolves for every model (`resolved_embedding_plan`): a
        decoder-only chat model is the NONE spec, with the launch's prefill-graph and cache settings."""
        info = super().model_info()
        a = self.cfg.args
        prefill = (a.get("cuda_graph_config") or {}).get("prefill") or {}
        info["embedding"] = {
            "family": "none", "task": "none", "execution": "none", "attention": "none", "pooling": "model_defined",
            "normalize": False, "postprocessor": "none", "tokenizer_special_tokens": "model_default",
            "supports_dimensions": False, "supports_token_embeddings": False, "supports_multimodal": False,
            "requires_embedding_flag": False, "auto_enable_embedding": False, "bcg_eligibility": "disabled",
            "safe_disable_kv_cache": False, "safe_disable_radix_cache": False, "safe_disable_chunked_prefill": False,
            "enabled": bool(a.get("is_embedding")), "matryoshka_dimensions": [],
            "bcg": {"prefill_backend": prefill.get("backend"), "enabled": prefill.get("backend") == "breakable",
                    "capture_token_budget": prefill.get("max_bs"),
                    "capture_batch_sizes": list(prefill.get("bs") or [])},
            "cache": {"kv_cache_disabled": bool(a.get("prefill_only_disable_kv_cache")),
                      "radix_cache_disabled": bool(a.get("disable_radix_cache")),
                      "chunked_prefill_disabled": a.get("chunked_prefill_size") == -1},
        }
        return info

    # --------------------------------------------------------------------- meta_info timing (--enable-metrics)

    def _meta(self, req: SimRequest, n: int, finished: bool, sent_ts: float | None) -> dict[str, Any]:
        """A /generate meta_info; with --enable-metrics, with SGLang's timing keys from the model timeline
        (timing.py); with `return_logprob`, with its logprob lists (logprobs.py)."""
        meta = super()._meta(req, n, finished, sent_ts)
        abort = getattr(req, "scheduler_abort", None)
        if finished and abort is not None:  # aborted on arrival, streamed (logprobs.stream_abort)
            meta["finish_reason"] = abort
        meta = with_timing(meta, req, finished=finished) if self.metrics_enabled else meta
        return with_logprobs(meta, req, self.cfg.sim.seed, n, finished)

    def chat_request(self, body: dict[str, Any]) -> Any:
        if body.get("return_meta_info") and body.get("stream"):  # serving_chat._convert_to_internal_request
            raise RequestError("return_meta_info is not supported with streaming. Please set stream=false when "
                               "using return_meta_info=true.")
        rf = body["response_format"] if isinstance(body.get("response_format"), dict) else {}
        tc = body.get("tool_choice")
        grammar = bool(rf.get("type") in ("json_schema", "json_object", "structural_tag") or body.get("regex")
                       or body.get("ebnf") or (body.get("tools") and (tc == "required" or isinstance(tc, dict))))
        return _mark_grammar(super().chat_request(body), grammar)

    def generate_request(self, body: dict[str, Any]) -> Any:
        sp = body["sampling_params"] if isinstance(body.get("sampling_params"), dict) else {}
        req = hidden.mark(_mark_grammar(super().generate_request(body), _has_grammar(sp)), body, self.cfg.args)
        try:
            ask = generate_ask(body, req.prompt_tokens, self.dep.model.vocab_size)
        except SchedulerAbort as e:
            if body.get("stream") is not True:
                raise
            return stream_abort(req, str(e), body)
        if ask is not None:  # return_logprob: the meta_info's logprob lists (logprobs.py)
            attach(req, ask)
        return req

    def completion_requests(self, body: dict[str, Any]) -> Any:
        rf = body["response_format"] if isinstance(body.get("response_format"), dict) else {}
        grammar = _has_grammar(body) or rf.get("type") in ("json_schema", "json_object", "structural_tag")
        return _mark_grammar(super().completion_requests(body), grammar)

    async def chat_response(self, reqs: Any, handles: Any, recs: Any, body: dict[str, Any], *rest: Any,
                            **kw: Any) -> dict[str, Any] | Response:
        """A non-streaming chat answer; `return_meta_info: true` adds each choice's /generate meta_info (as
        `choices[].meta_info`, after matched_stop; with `logprobs`, with its output logprob lists, texts on)."""
        out = await super().chat_response(reqs, handles, recs, body, *rest, **kw)
        if isinstance(out, dict) and body.get("return_meta_info"):
            sent = time.time()
            top = body.get("top_logprobs")
            for choice, req in zip(out.get("choices") or [], reqs if isinstance(reqs, (list, tuple)) else [reqs],
                                   strict=False):
                if body.get("logprobs") and asked_logprobs(req) is None:  # serving_chat: return_logprob, texts on
                    attach(req, LogprobAsk(start=None, top_n=top if isinstance(top, int) else 0, token_ids=None,
                                           text=True, prompt_text=None, prompt_ids=None))
                choice["meta_info"] = self._meta(req, req.n_out, True, sent)
        return out

    def submit(self, req: SimRequest, endpoint: str) -> tuple[RequestHandle, TraceRecord]:
        """Hand `req` to the engine, arrived when its HTTP request reached the twin (RECEIVED_AT; runtime.py)."""
        handle = RequestHandle()
        req.sink = uncap(req, handle.push)  # a logprob_start_len capped only the match (logprobs.attach)
        received = RECEIVED_AT.get()
        mono, wall = time.monotonic(), time.time()
        if received is None or received > mono:
            received = mono
        req.received_wall = wall - (mono - received)
        rec = self.trace.start(req, endpoint, received)
        self.runtime.submit(req, received)
        return handle, rec

    @staticmethod
    async def _drain(handle: RequestHandle) -> None:
        """Wait for a request's final output (non-streaming responses)."""
        while (out := await handle.next()) is not None:
            if out.finished:
                return

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
        self.metrics.startup = self.engine_startup_time

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






def _has_grammar(params: dict[str, Any]) -> bool:
    """`_request_has_grammar`: a constrained request (counted by num_so_requests_total)."""
    return any(params.get(k) for k in ("json_schema", "regex", "ebnf", "structural_tag"))


def _mark_grammar(reqs: Any, grammar: bool) -> Any:
    for r in reqs if isinstance(reqs, (list, tuple)) else [reqs]:
        r.has_grammar = grammar
    return reqs


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
        if self.access and self.exclude and isinstance(record.args, tuple) and len(record.args) >= 3:
            path = str(record.args[2]).split("?", 1)[0]
            return not path.startswith(self.exclude)
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """SGLang's uvicorn log format (`set_uvicorn_logging_configs`) on uvicorn's own streams: its server log on
    stderr (with SGLang's), the access log on stdout."""
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
            "default": {"formatter": "default", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"},
            "access": {"formatter": "access", "class": "logging.StreamHandler", "stream": "ext://sys.stdout"},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        },
    }
