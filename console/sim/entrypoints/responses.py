"""Shaping the twin's responses: SSE streams and JSON bodies of chat completions (n choices, logprobs, reasoning and
tool-call parsing) and /generate, with fault wrapping and the abort of a non-streaming request whose client left."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ..content import hidden
from ..content.outputs import OutputPlan
from ..content.toolcalls import KimiStreamParser, parse_final
from ..model.engine import SimRequest
from ..model.runtime import RequestHandle, TraceRecord
from ..ops.faults import TRUNCATE, faulted_stream
from . import wire
from .completions import CompletionShaping
from .logprobs import chat_logprobs
from .shaping import DISCONNECT_POLL_S, TRUNCATED_MSG, _error, disconnected_message, merged, refused, stream_flags  # noqa: F401

if TYPE_CHECKING:
    from ..model.engine import Engine
    from ..model.runtime import EngineRuntime
    from ..ops.faults import FaultState


class FaultStreamingResponse(StreamingResponse):
    """A streaming response that can be cut: on the TRUNCATE sentinel it stops without the final empty body
    message, so uvicorn closes the connection with the chunked body incomplete."""

    async def stream_response(self, send: Any) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for chunk in self.body_iterator:
            if chunk is TRUNCATE:
                await self.body_iterator.aclose()  # type: ignore[attr-defined]  # starlette: AsyncIterable; ours: a generator
                return
            if not isinstance(chunk, (bytes, memoryview)):
                chunk = chunk.encode(self.charset)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class ResponseShaping(CompletionShaping):
    """SimServer's answers: the SSE generators and JSON bodies of submitted requests (a request's `n` choices and
    a batch's prompts are one engine request each, answered together)."""

    # set by SimServer.__init__ (this class is one of SimServer's parts)
    engine: Engine
    runtime: EngineRuntime
    faults: FaultState
    ready: bool

    if TYPE_CHECKING:  # SimServer's
        @staticmethod
        async def _drain(handle: RequestHandle) -> None: ...

    def stream_response(self, events: AsyncIterator[str], rec: TraceRecord) -> StreamingResponse:
        """The SSE response of a streaming request, with the stream faults of this request applied (if any)."""
        if self.faults.stream and self.ready:
            actions = self.faults.stream_actions()
            if actions:
                return FaultStreamingResponse(faulted_stream(events, rec, actions, self.faults),
                                              media_type="text/event-stream")
        return StreamingResponse(events, media_type="text/event-stream")

    def _sse_frame(self, reqs: SimRequest | Sequence[SimRequest], recs: TraceRecord | Sequence[TraceRecord],
                   events: AsyncGenerator[str, None]) -> AsyncIterator[str]:
        """A stream's SSE frame: its events, then `data: [DONE]` and the traces' finish; requests whose client
        left before the end are aborted on the engine (as SGLang aborts on disconnect)."""
        reqs = [reqs] if isinstance(reqs, SimRequest) else list(reqs)
        recs = [recs] if isinstance(recs, TraceRecord) else list(recs)

        async def gen() -> AsyncIterator[str]:
            try:
                async for ev in events:
                    yield ev
                recs[0].chunk(0)
                yield wire.SSE_DONE
                for req, rec in zip(reqs, recs, strict=True):
                    self.trace.finish(rec, req)
            finally:
                await events.aclose()
                for req in reqs:
                    if not req.finished:
                        self.runtime.abort(req)

        return gen()

    async def _finish_all(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                          request: Request | None) -> bool:
        """Wait for every request's final output (non-streaming). Every DISCONNECT_POLL_S modelled seconds, look
        for a client that left: then abort them all (their KV is freed at once) and return False."""
        done = asyncio.ensure_future(asyncio.gather(*(self._drain(h) for h in handles)))
        poll = DISCONNECT_POLL_S / max(self.cfg.sim.time_scale, 1e-9)
        try:
            while True:
                finished, _ = await asyncio.wait({done}, timeout=poll)
                if finished:
                    return True
                if request is not None and await request.is_disconnected():
                    return False
        finally:
            if not done.done():
                done.cancel()
            for req in reqs:
                if not req.finished:
                    self.runtime.abort(req)

    def _e2e(self, req: SimRequest) -> float:
        return (req.finish_s or self.engine.clock) - req.arrival_s

    def _usage_of(self, reqs: Sequence[SimRequest], n: int) -> dict[str, Any]:
        """UsageProcessor: prompt (and cached) tokens once per prompt (every n-th request), completion and
        reasoning tokens of all."""
        cache = bool(self.cfg.args.get("enable_cache_report"))
        firsts = list(reqs)[::max(1, n)]
        return wire.usage(sum(r.prompt_tokens for r in firsts), sum(r.n_out for r in reqs),
                          sum(r.cached_tokens for r in firsts) if cache else None,
                          sum(wire.reasoning_tokens(r) for r in reqs))

    def _spec_ext(self, reqs: Sequence[SimRequest], body: dict[str, Any]) -> Any:
        """sglext.spec_tokens_details: one object, a list when n > 1 (None without speculation)."""
        if not (body.get("return_spec_tokens_details") and self.cfg.is_spec):
            return None
        details = [d for d in (wire.spec_tokens_details(wire.spec_metrics(r, self.cfg.spec_draft_tokens))
                               for r in reqs) if d is not None]
        if not details:
            return None
        return details if len(reqs) > 1 else details[0]

    def chat_stream(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                    recs: Sequence[TraceRecord], body: dict[str, Any], plan: OutputPlan) -> AsyncIterator[str]:
        a = self.cfg.args
        include_usage, continuous = stream_flags(body, a)
        model = str(body.get("model") or "default")
        created = int(time.time())
        cache_report = bool(a.get("enable_cache_report"))
        seed = self.cfg.sim.seed
        n_choices = len(reqs)
        want_hidden = body.get("return_hidden_states")

        def live_usage(req: SimRequest, n: int) -> dict[str, Any] | None:
            if not continuous:
                return None
            return wire.usage(req.prompt_tokens, n, req.cached_tokens if cache_report else None,
                              wire.reasoning_tokens(req, n))

        async def gen() -> AsyncGenerator[str, None]:
            started: set[int] = set()
            seen: list[int] = []  # choices in the order their first output came (SGLang's per-index dicts)
            sent_chars = [0] * n_choices
            sent_tokens = [0] * n_choices
            sent_vis = [0] * n_choices
            finished: list[int] = []
            parsers = [KimiStreamParser(reasoning=plan.reasoning, stream_reasoning=plan.stream_reasoning,
                                        tools=plan.tools, history=plan.history) for _ in reqs] \
                if plan.parsing else None
            last_rid = reqs[0].rid
            async for i, out in merged(handles):
                req, rec = reqs[i], recs[i]
                n = out.completion_tokens
                if out.finished and refused(req):  # an abort with a status code: one error event
                    rec.chunk(0)
                    assert req.finish_reason is not None  # refused(req)
                    yield wire.sse({"error": {"object": "error", "message": req.finish_reason["message"],
                                              "type": "SERVICE_UNAVAILABLE", "param": None, "code": 503}})
                    return
                last_rid = req.rid
                if i not in started:
                    started.add(i)
                    seen.append(i)
                    rec.chunk(0)
                    yield wire.chat_chunk(req.rid, created, model, role="assistant", content="", index=i)
                text = req.text(n)
                delta = text[sent_chars[i]:]
                sent_chars[i] = len(text)
                lp = None
                if plan.logprobs and n > sent_vis[i]:  # this step's tokens (a dropped step's go with it, as real)
                    lp = chat_logprobs(req, seed, sent_vis[i], n, plan.top_logprobs)
                sent_vis[i] = max(sent_vis[i], n)
                if parsers is None:
                    if delta:
                        rec.chunk(n - sent_tokens[i])
                        sent_tokens[i] = n
                        yield wire.chat_chunk(req.rid, created, model, content=delta, usage_=live_usage(req, n),
                                              index=i, logprobs=lp)
                else:
                    final = out.finished and (req.finish_reason or {}).get("type") != "abort"
                    for kind, payload in parsers[i].feed(delta, final):
                        rec.chunk(n - sent_tokens[i])
                        sent_tokens[i] = n
                        if kind == "reasoning":
                            yield wire.chat_chunk(req.rid, created, model, reasoning=payload, index=i, logprobs=lp,
                                                  usage_=live_usage(req, n))
                            lp = None
                        elif kind == "content" and not plan.tools:
                            yield wire.chat_chunk(req.rid, created, model, content=payload, index=i, logprobs=lp,
                                                  usage_=live_usage(req, n))
                            lp = None
                        elif kind == "content":
                            yield wire.parser_chunk(req.rid, created, model, index=i, content=payload,
                                                    usage_=live_usage(req, n))
                        else:
                            yield wire.parser_chunk(req.rid, created, model, index=i, tool_calls=[wire.tool_call(
                                payload.index, payload.id, payload.name, payload.arguments)],
                                usage_=live_usage(req, n))
                    if lp is not None:  # a parser held this step's text back: its logprobs go alone
                        rec.chunk(n - sent_tokens[i])
                        sent_tokens[i] = n
                        yield wire.chat_chunk(req.rid, created, model, index=i, logprobs=lp,
                                              usage_=live_usage(req, n))
                if out.finished:
                    finished.append(i)
            for i in finished:  # the finish chunks come after every choice's output, all with the last id
                req = reqs[i]
                reason, matched = wire.chat_finish(req)
                if parsers is not None and parsers[i].has_calls and reason == "stop":
                    reason = "tool_calls"
                recs[i].chunk(req.n_out - sent_tokens[i])
                yield wire.chat_chunk(last_rid, created, model, finish_reason=reason, matched_stop=matched, index=i)
            if hidden.request_mode(want_hidden) != hidden.NULL:  # one chunk per choice, after the finish chunks
                width = hidden.hidden_size(self.dep)
                for i in seen:
                    recs[0].chunk(0)
                    yield wire.sse(hidden.chat_chunk(last_rid, created, model, i, hidden.openai_value(
                        reqs[i], want_hidden, seed, width)))
            spec = self._spec_ext(reqs, body)
            if spec is not None:
                recs[0].chunk(0)
                yield wire.sglext_chunk(last_rid, created, model, spec)
            if include_usage:
                recs[0].chunk(0)
                yield wire.usage_chunk(last_rid, created, model, self._usage_of(reqs, n_choices))

        return self._sse_frame(reqs, recs, gen())

    async def chat_response(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                            recs: Sequence[TraceRecord], body: dict[str, Any], plan: OutputPlan,
                            request: Request | None = None) -> dict[str, Any] | Response:
        created = int(time.time())
        if not await self._finish_all(reqs, handles, request):
            for req, rec in zip(reqs, recs, strict=True):
                self.trace.finish(rec, req)
            return _error(disconnected_message(reqs[0].rid))
        for req, _rec in zip(reqs, recs, strict=True):
            if refused(req):
                for r2, rec2 in zip(reqs, recs, strict=True):
                    self.trace.finish(rec2, r2)
                assert req.finish_reason is not None  # refused(req)
                return _error(req.finish_reason["message"], 503, "503")
        a = self.cfg.args
        wv = a.get("weight_version", "default")
        choices = []
        for i, req in enumerate(reqs):
            reason, matched = wire.chat_finish(req)
            calls: list[dict]
            text, reasoning, calls = req.text(), None, []
            if plan.parsing:
                reasoning, text, calls = parse_final(text, reasoning=plan.reasoning, tools=plan.tools,
                                                     history=plan.history)
                if calls and reason == "stop":
                    reason, matched = "tool_calls", None
            message: dict[str, Any] = {"role": "assistant", "content": text or "", "reasoning_content": reasoning}
            if calls:
                message["tool_calls"] = calls
            choice = {"index": i, "message": message,
                      "logprobs": chat_logprobs(req, self.cfg.sim.seed, 0, req.n_out,
                                                plan.top_logprobs) if plan.logprobs else None,
                      "finish_reason": reason, "matched_stop": matched}
            hs = hidden.openai_value(req, body.get("return_hidden_states"), self.cfg.sim.seed,
                                     hidden.hidden_size(self.dep))
            if hs is not None:  # ChatCompletionResponseChoice drops it when None
                choice["hidden_states"] = hs
            choices.append(choice)
        first = reqs[0]
        out: dict[str, Any] = {
            "id": first.rid, "object": "chat.completion", "created": created,
            "model": str(body.get("model") or "default"),
            "choices": choices, "usage": self._usage_of(reqs, len(reqs)),
            "metadata": {"weight_version": wv, "weight_versions": [{"version": wv, "start": 0, "end": first.n_out}]},
        }
        spec = self._spec_ext(reqs, body)
        if spec is not None:
            out["sglext"] = {"spec_tokens_details": spec}
        for req, rec in zip(reqs, recs, strict=True):
            rec.chunk(req.n_out)
            self.trace.finish(rec, req)
        return out

    def _meta(self, req: SimRequest, n: int, finished: bool, sent_ts: float | None) -> dict[str, Any]:
        return wire.meta_info(req, n, finished=finished, weight_version=self.cfg.args.get("weight_version", "default"),
                              spec=self.cfg.is_spec, num_draft_tokens=self.cfg.spec_draft_tokens,
                              e2e_latency=self._e2e(req) if finished else None, sent_ts=sent_ts,
                              dp_attention=bool(self.cfg.args.get("enable_dp_attention")))

    def generate_stream(self, reqs: SimRequest | Sequence[SimRequest], handles: RequestHandle | Sequence[RequestHandle],
                        recs: TraceRecord | Sequence[TraceRecord]) -> AsyncIterator[str]:
        """/generate's stream: cumulative text and output ids with each output's meta_info; with n > 1 or a list
        of prompts (a list of one too) the outputs interleave, each tagged with its "index" in the prompt-major
        list (tokenizer_manager `_stream_batch_responses`)."""
        batched = not isinstance(reqs, SimRequest)
        reqs = [reqs] if isinstance(reqs, SimRequest) else list(reqs)
        handles = [handles] if isinstance(handles, RequestHandle) else list(handles)
        recs = [recs] if isinstance(recs, TraceRecord) else list(recs)

        width, seed = hidden.hidden_size(self.dep), self.cfg.sim.seed
        hs = [hidden.GenerateHidden(r, hidden.asked(r), seed, width) for r in reqs]

        async def gen() -> AsyncGenerator[str, None]:
            first = [True] * len(reqs)
            sent = [0] * len(reqs)
            async for i, out in merged(handles):
                req, rec = reqs[i], recs[i]
                n = out.completion_tokens
                meta = hidden.with_hidden(self._meta(req, n, out.finished, time.time() if first[i] else None),
                                          hs[i].at(n))
                first[i] = False
                rec.chunk(n - sent[i])
                sent[i] = n
                chunk: dict[str, Any] = {"text": req.text(n), "output_ids": req.output_ids(n), "meta_info": meta}
                if batched:
                    chunk["index"] = i
                yield wire.sse(chunk)

        return self._sse_frame(reqs, recs, gen())

    async def generate_response(self, reqs: SimRequest | Sequence[SimRequest],
                                handles: RequestHandle | Sequence[RequestHandle],
                                recs: TraceRecord | Sequence[TraceRecord],
                                request: Request | None = None) -> Any:
        """/generate's body: one output, or the list of the n samples' outputs."""
        single = isinstance(reqs, SimRequest)
        reqs = [reqs] if isinstance(reqs, SimRequest) else list(reqs)
        handles = [handles] if isinstance(handles, RequestHandle) else list(handles)
        recs = [recs] if isinstance(recs, TraceRecord) else list(recs)
        if not await self._finish_all(reqs, handles, request):
            for req, rec in zip(reqs, recs, strict=True):
                self.trace.finish(rec, req)
            return JSONResponse({"error": {"message": disconnected_message(reqs[0].rid)}}, status_code=400)
        for req in reqs:
            if refused(req):  # HTTPException(503) through the app's handler: an ErrorResponse
                for r2, rec2 in zip(reqs, recs, strict=True):
                    self.trace.finish(rec2, r2)
                assert req.finish_reason is not None  # refused(req)
                return _error(req.finish_reason["message"], 503, "503")
        outs = []
        for req, rec in zip(reqs, recs, strict=True):
            rec.chunk(req.n_out)
            self.trace.finish(rec, req)
            hs = hidden.GenerateHidden(req, hidden.asked(req), self.cfg.sim.seed, hidden.hidden_size(self.dep))
            outs.append({"text": req.text(), "output_ids": req.output_ids(),
                         "meta_info": hidden.with_hidden(self._meta(req, req.n_out, True, time.time()),
                                                         hs.at(req.n_out))})
        return outs[0] if single else outs
