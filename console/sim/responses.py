"""Shaping the twin's responses: SSE streams and JSON bodies of chat completions and /generate, with fault wrapping."""

from __future__ import annotations

import time
from typing import Any, AsyncIterator
from fastapi.responses import JSONResponse, Response, StreamingResponse

from .engine import SimRequest
from .faults import TRUNCATE, faulted_stream
from .runtime import RequestHandle, TraceRecord
from . import wire


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


def _error(message: str, status: int = 400, err_type: str = "BadRequestError") -> JSONResponse:
    """OpenAI-route error (ErrorResponse.model_dump())."""
    return JSONResponse({"object": "error", "message": message, "type": err_type, "param": None, "code": status},
                        status_code=status)


def refused(req: SimRequest) -> bool:
    """Aborted by the scheduler with an HTTP status (the queue was full): an error, not a finished answer."""
    fr = req.finish_reason
    return bool(fr) and fr.get("type") == "abort" and isinstance(fr.get("status_code"), int)


TRUNCATED_MSG = "ASGI callable returned without completing response."


class ResponseShaping:
    """SimServer's answers: the SSE generators and JSON bodies of a submitted request."""

    def stream_response(self, events: AsyncIterator[str], rec: TraceRecord) -> StreamingResponse:
        """The SSE response of a streaming request, with the stream faults of this request applied (if any)."""
        if self.faults.stream and self.ready:
            actions = self.faults.stream_actions()
            if actions:
                return FaultStreamingResponse(faulted_stream(events, rec, actions, self.faults),
                                              media_type="text/event-stream")
        return StreamingResponse(events, media_type="text/event-stream")

    def _sse_frame(self, req: SimRequest, rec: TraceRecord, events: AsyncIterator[str]) -> AsyncIterator[str]:
        """A request's SSE stream: its events, then `data: [DONE]` and the trace's finish; a request whose client
        left before the end is aborted on the engine (as SGLang aborts on disconnect)."""
        async def gen() -> AsyncIterator[str]:
            try:
                async for ev in events:
                    yield ev
                rec.chunk(0)
                yield wire.SSE_DONE
                self.trace.finish(rec, req)
            finally:
                await events.aclose()
                if not req.finished:
                    self.runtime.abort(req)

        return gen()

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
            while (out := await handle.next()) is not None:
                n = out.completion_tokens
                if out.finished and refused(req):  # an abort with a status code: one error event
                    rec.chunk(0)
                    yield wire.sse({"error": {"object": "error", "message": req.finish_reason["message"],
                                              "type": "SERVICE_UNAVAILABLE", "param": None, "code": 503}})
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

        return self._sse_frame(req, rec, gen())

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
            while (out := await handle.next()) is not None:
                n = out.completion_tokens
                meta = self._meta(req, n, out.finished, time.time() if first else None)
                first = False
                rec.chunk(n - sent)
                sent = n
                yield wire.sse({"text": req.text(n), "output_ids": req.output_ids(n), "meta_info": meta})
                if out.finished:
                    break

        return self._sse_frame(req, rec, gen())

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
