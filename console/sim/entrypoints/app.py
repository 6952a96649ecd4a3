"""The twin's FastAPI app: every route SGLang 0.5.23 serves (and the twin-only /sim/*), wired to one SimServer; the
gate middleware that answers 503 until the startup opens HTTP and 401 without the API key."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import secrets
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from ..content.outputs import plan_chat, plan_plain
from ..model.runtime import RECEIVED_AT, RequestHandle, TraceRecord
from .completions import fan_out
from .errors import (
    CHAT,
    COMPLETIONS,
    GENERATE,
    ContractRefusal,
    Endpoint,
    RequestError,
    SchedulerAbort,
    WireRefusal,
    chat_stream_abort,
    generate_stream_refusal,
)
from .metrics import HttpMetricsMiddleware
from .requests import split_generate_batch
from .responses import _error
from .score import SCORE, score
from .server import FLUSH_OK, PROMETHEUS_CONTENT_TYPE, SimServer
from .validate import check_completion, check_generate_body, read_body
from .wire import VERSION

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


class ReceiptStamp:
    """Pure-ASGI middleware, the outermost: stamps the moment an HTTP request reached the app (RECEIVED_AT), which
    is its engine requests' arrival; the twin's parsing and counting of the prompt after it is not modelled time
    (runtime.py)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            RECEIVED_AT.set(time.monotonic())
        await self.app(scope, receive, send)


async def _json_body(request: Request, endpoint: Endpoint) -> Any:
    """The parsed body, or WireRefusal with SGLang's answer (media type, malformed JSON): validate.py."""
    return await read_body(request, endpoint)


def create_app(server: SimServer) -> FastAPI:
    """The FastAPI application of one twin process."""
    app = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    app.add_middleware(GateMiddleware, server=server)
    if server.metrics_enabled:  # outer to the gate, as SGLang's track_http_status_code: 401s are counted too
        app.add_middleware(HttpMetricsMiddleware, metrics=server.metrics, is_open=lambda: server.http_open)
    app.add_middleware(ReceiptStamp)  # added last: the outermost, the first to see a request
    _status_routes(app, server)
    _generation_routes(app, server)
    _admin_routes(app, server)
    _sim_routes(app, server)
    return app


async def _prefill_once(server: SimServer, reqs: list[Any], n: int, endpoint: str) -> None:
    """SGLang's parallel sampling (n > 1) first prefills each prompt alone (max_new_tokens 0) and waits for it,
    so the n samples find the prompt in the radix cache (their cached_tokens)."""
    if n <= 1:
        return
    handles = []
    for base in reqs[::n]:
        # the whole prompt's keys: a logprob_start_len caps the samples' match, not what the warmup caches
        keys = getattr(base, "full_prefix_keys", None) or base.prefix_keys
        h, _ = server.submit(dataclasses.replace(base, rid=uuid.uuid4().hex, max_new_tokens=0, stream=False,
                                                 prefix_keys=list(keys), spec_hist=[],
                                                 words_factory=None, sink=None), endpoint)
        handles.append(h)
    for h in handles:
        await server._drain(h)


def _submit_all(server: SimServer, reqs: list[Any], endpoint: str
                ) -> tuple[list[RequestHandle], list[TraceRecord]]:
    handles, recs = [], []
    for r in reqs:
        h, rec = server.submit(r, endpoint)
        handles.append(h)
        recs.append(rec)
    return handles, recs


def _status_routes(app: FastAPI, server: SimServer) -> None:
    """/ready, /health, the introspection routes and their /get_… aliases, /v1/models."""
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


def _generation_routes(app: FastAPI, server: SimServer) -> None:
    """The generation routes: /v1/chat/completions, /v1/completions, /v1/score, /generate."""
    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        body: Any = None
        try:
            body = await _json_body(request, CHAT)
            req = server.chat_request(body)
            plan, factory, stop_re = plan_chat(body, server.cfg.args, req.domain, req.prompt_tokens)
            n = body.get("n") or 1
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise RequestError("n must be a positive integer")
        except WireRefusal as e:
            return e.response()
        except SchedulerAbort as e:  # the scheduler's finish-with-abort: not an abort_request, so not counted in
            # num_aborted_requests_total (tokenizer_manager.abort_request counts; a fresh 0.5.23 shows no family)
            return chat_stream_abort(str(e)) if isinstance(body, dict) and body.get("stream") is True \
                else _error(str(e))
        except (RequestError, ValueError) as e:
            return _error(str(e), err_type=getattr(e, "err_type", "BadRequestError"))
        if server.faults.http500 and (failed := server.http500("/v1/chat/completions")) is not None:
            return failed
        reqs = fan_out(req, n)
        for r in reqs:
            r.words_factory, r.stop_regex = factory, stop_re
        await _prefill_once(server, reqs, n, "/v1/chat/completions")
        handles, recs = _submit_all(server, reqs, "/v1/chat/completions")
        if req.stream:
            return server.stream_response(server.chat_stream(reqs, handles, recs, body, plan), recs[0])
        res = await server.chat_response(reqs, handles, recs, body, plan, request)
        return res if isinstance(res, Response) else JSONResponse(res)

    @app.post("/v1/completions")
    async def completions(request: Request) -> Response:
        try:
            body = await _json_body(request, COMPLETIONS)
            check_completion(body, served_model=server.cfg.args["served_model_name"])
            reqs = server.completion_requests(body)
            factory, stop_re = plan_plain(body)
        except WireRefusal as e:
            return e.response()
        except (RequestError, ValueError) as e:
            return _error(str(e), err_type=getattr(e, "err_type", "BadRequestError"))
        if server.faults.http500 and (failed := server.http500("/v1/completions")) is not None:
            return failed
        for r in reqs:
            r.words_factory, r.stop_regex = factory, stop_re
        n_per = body.get("n") if isinstance(body.get("n"), int) and not isinstance(body.get("n"), bool) else 1
        await _prefill_once(server, reqs, n_per, "/v1/completions")
        handles, recs = _submit_all(server, reqs, "/v1/completions")
        if reqs[0].stream:
            return server.stream_response(server.completion_stream(reqs, handles, recs, body), recs[0])
        res = await server.completion_response(reqs, handles, recs, body, request)
        return res if isinstance(res, Response) else JSONResponse(res)

    @app.post("/v1/score")
    async def v1_score(request: Request) -> Response:
        try:
            body = await _json_body(request, SCORE)
            return JSONResponse(score(body, vocab_size=server.dep.model.vocab_size, seed=server.cfg.sim.seed))
        except WireRefusal as e:
            return e.response()
        except ValueError as e:
            return _error(str(e))

    @app.api_route("/generate", methods=["POST", "PUT"])
    async def generate(request: Request) -> Response:
        body: Any = None
        try:
            body = check_generate_body(await _json_body(request, GENERATE))
            batch = split_generate_batch(body)
            if batch is not None:  # a list of prompts: one request per prompt and sample, prompt-major
                subs, n = batch
                bases = [server.generate_request(sub) for sub in subs]
                plans = [plan_plain(sub.get("sampling_params") or {}) for sub in subs]
            else:  # one prompt, one sample (n > 1 is a batch of one, as SGLang makes it)
                req = server.generate_request(body)
                factory, stop_re = plan_plain(body.get("sampling_params") or {})
        except (WireRefusal, ContractRefusal) as e:
            return e.response()
        except (RequestError, ValueError) as e:  # the tokenizer manager's refusals; a stream carries them as an event
            if isinstance(body, dict) and body.get("stream") is True:
                return generate_stream_refusal(str(e))
            return JSONResponse({"error": {"message": str(e)}}, status_code=400)
        if server.faults.http500 and (failed := server.http500("/generate")) is not None:
            return failed
        if batch is not None:
            reqs = []
            for base, (factory, stop_re) in zip(bases, plans, strict=True):
                for r in fan_out(base, max(1, n)):
                    r.words_factory, r.stop_regex = factory, stop_re
                    if n > 1:  # each sample its own rid (regenerate_rid), the first too
                        r.rid = uuid.uuid4().hex
                    reqs.append(r)
            if not reqs:  # an empty list of prompts: an empty list back (streamed: only the end), as real
                if body.get("stream"):
                    return Response("data: [DONE]\n\n", media_type="text/event-stream")
                return JSONResponse([])
            await _prefill_once(server, reqs, n, "/generate")
            handles, recs = _submit_all(server, reqs, "/generate")
            if body.get("stream"):
                return server.stream_response(server.generate_stream(reqs, handles, recs), recs[0])
            res = await server.generate_response(reqs, handles, recs, request)
            return res if isinstance(res, Response) else JSONResponse(res)
        req.words_factory, req.stop_regex = factory, stop_re
        handle, rec = server.submit(req, "/generate")
        if req.stream:
            return server.stream_response(server.generate_stream(req, handle, rec), rec)
        res = await server.generate_response(req, handle, rec, request)
        return res if isinstance(res, Response) else JSONResponse(res)


def _admin_routes(app: FastAPI, server: SimServer) -> None:
    """/flush_cache, /freeze_gc, /v1/loads and (with --enable-metrics) /metrics."""
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
        # as SGLang's (utils.freeze_gc): what the startup built moves out of the collector's reach, so a full
        # collection no longer walks it (22-31 wall ms of a paused event loop on the development machine, a
        # pause the time scale multiplies)
        gc.freeze()
        return Response(content="Garbage collection frozen.\n", status_code=200)

    @app.get("/v1/loads")
    async def v1_loads(dp_rank: int | None = None, include: str | None = None, format: str | None = None) -> Response:
        inc = {s.strip() for s in include.split(",")} if include else None
        valid = {"core", "memory", "spec", "lora", "disagg", "queues", "all"}
        if inc is not None and not inc <= valid:
            return JSONResponse({"detail": f"Invalid include sections: {inc - valid}. Valid options: {sorted(valid)}"},
                                status_code=400)
        n = server.engine.dp_ranks
        loads = ([server.loads(inc, r) for r in range(n)] if dp_rank is None
                 else [server.loads(inc, dp_rank)] if 0 <= dp_rank < n else [])
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
                                lines += [f"# TYPE sglang_{prefix}_{sk} gauge",
                                          f'sglang_{prefix}_{sk}{{dp_rank="{load["dp_rank"]}"}} {sv}']
                    elif isinstance(value, (int, float)) and not isinstance(value, bool):
                        lines += [f"# TYPE sglang_{key} gauge", f'sglang_{key}{{dp_rank="{load["dp_rank"]}"}} {value}']
            return Response(content="\n".join(lines) + "\n", media_type=PROMETHEUS_CONTENT_TYPE)
        return JSONResponse({"timestamp": datetime.now(UTC).isoformat(), "version": VERSION,
                             "accelerator": server.dep.node.gpu_name, "num_accelerators": server.cfg.tp_size,
                             "loads": loads})

    if server.metrics_enabled:
        @app.get("/metrics")
        async def metrics() -> Response:
            return Response(content=server.metrics.render(), media_type=PROMETHEUS_CONTENT_TYPE)


def _sim_routes(app: FastAPI, server: SimServer) -> None:
    """The twin-only routes: /sim/info, /sim/trace."""
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
