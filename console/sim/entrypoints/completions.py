"""/v1/completions on the twin (SGLang 0.5.23 entrypoints/openai/serving_completions.py, protocol.py
CompletionRequest / CompletionResponse / CompletionStreamResponse).

A prompt is a string, a list of strings, a list of token ids or a list of token-id lists; each prompt is sampled
`n` times, one engine request per (prompt, sample), choice index prompt × n + sample. Streamed, every engine output
is one `text_completion` chunk of its choice (no role chunk; the last one carries finish_reason and matched_stop;
chunks keep `"usage": null`), then a usage chunk without its null details when asked (`stream_options.include_usage`
or --stream-response-default-include-usage), then `[DONE]`. Not streamed: one body with every choice, usage
counting each prompt's tokens once, and the first request's weight-version metadata.

`echo` prepends the choice's prompt to its text: a text prompt as given, a token-id prompt decoded with the
vocabulary the twin counts tokens with (o200k_base, tokens.decode_ids; SGLang: tokenizer.decode(ids,
skip_special_tokens=True)). `logprobs: N` gives the legacy LogProbs object with the top N alternatives per token
(console/sim/entrypoints/logprobs.py); with `echo` and N > 0 the prompt's tokens lead it (SGLang asks /generate for
logprob_start_len 0): the first with a null logprob and a null top map, then one per prompt token, then the
output's; streamed, in each choice's first chunk. `echo` with `logprobs: 0` gives the output's only.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from ..content import hidden
from ..content.tokens import decode_ids
from ..model.engine import SimRequest
from ..model.runtime import RequestHandle, TraceRecord
from . import wire
from .logprobs import LogprobAsk, asked_logprobs, attach, completion_logprobs, prompt_completion_logprobs
from .shaping import _error, disconnected_message, merged, refused, stream_flags

if TYPE_CHECKING:
    from ..config.args import ServerConfig
    from ..config.deployment import Deployment
    from ..model.runtime import TraceStore

DEFAULT_MAX_TOKENS = 16  #: CompletionRequest.max_tokens


def prompts_of(body: dict[str, Any]) -> list[tuple[str | None, list[int] | None]]:
    """The request's prompts as (text, None) or (None, token ids); ValueError with SGLang's message."""
    p = body.get("prompt")
    if not p or (isinstance(p, list) and all(not x for x in p)):
        raise ValueError("Prompt cannot be empty")
    if isinstance(p, str):
        return [(p, None)]
    if isinstance(p, list):
        if all(isinstance(x, str) for x in p):
            return [(x, None) for x in p]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in p):
            return [(None, list(p))]
        if all(isinstance(x, list) and all(isinstance(t, int) and not isinstance(t, bool) for t in x) for x in p):
            return [(None, list(x)) for x in p]
    raise ValueError("prompt must be a string, a list of strings, a list of token ids or a list of token-id lists")


def fan_out(req: SimRequest, n: int) -> list[SimRequest]:
    """`req` and n - 1 copies with their own rids (SGLang's parallel sampling: one request per choice)."""
    out = [req]
    for _ in range(n - 1):
        out.append(dataclasses.replace(req, rid=uuid.uuid4().hex, prefix_keys=list(req.prefix_keys),
                                       spec_hist=[]))
        if hasattr(req, "return_hidden_states"):  # /generate's ask (hidden.mark), not a dataclass field
            out[-1].return_hidden_states = req.return_hidden_states  # type: ignore[attr-defined]  # ad-hoc attribute, not a dataclass field
        if hasattr(req, "scheduler_abort"):  # aborted on arrival (logprobs.stream_abort): every sample is
            out[-1].scheduler_abort = req.scheduler_abort  # type: ignore[attr-defined]  # ad-hoc attribute, not a dataclass field
        ask = asked_logprobs(req)
        if ask is not None:  # return_logprob / echo with logprobs: each sample its own output entries
            out[-1].logprob_ask = ask.copy()  # type: ignore[attr-defined]  # ad-hoc attribute, not a dataclass field
            if hasattr(req, "full_prefix_keys"):  # the capped match (logprobs.attach)
                out[-1].full_prefix_keys = req.full_prefix_keys  # type: ignore[attr-defined]  # ad-hoc attribute, not a dataclass field
    return out


def echo_logprobs(body: dict[str, Any]) -> bool:
    """`echo` with `logprobs` > 0: the prompt tokens' logprobs lead each choice's (logprobs 0 asks for none)."""
    top = body.get("logprobs")
    return bool(body.get("echo")) and isinstance(top, int) and not isinstance(top, bool) and top > 0


def _joined(first: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    return {k: first[k] + then[k] for k in ("text_offset", "token_logprobs", "tokens", "top_logprobs")}


class CompletionShaping:
    """SimServer's /v1/completions answers (mixed into ResponseShaping)."""

    # set by SimServer.__init__ (this class is one of SimServer's parts)
    cfg: ServerConfig
    dep: Deployment
    trace: TraceStore

    if TYPE_CHECKING:  # RequestParsing's and ResponseShaping's
        def generate_request(self, body: dict[str, Any]) -> SimRequest: ...
        def _sse_frame(self, reqs: SimRequest | Sequence[SimRequest], recs: TraceRecord | Sequence[TraceRecord],
                       events: AsyncGenerator[str, None]) -> AsyncIterator[str]: ...
        async def _finish_all(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                              request: Any) -> bool: ...
        def _usage_of(self, reqs: Sequence[SimRequest], n: int) -> dict[str, Any]: ...
        def _spec_ext(self, reqs: Sequence[SimRequest], body: dict[str, Any]) -> Any: ...

    def completion_requests(self, body: dict[str, Any]) -> list[SimRequest]:
        """One engine request per (prompt, sample), in choice order. RequestError / ValueError on bad input."""
        n = body.get("n", 1)
        if n is None:
            n = 1
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError("n must be a positive integer")
        max_tokens = body.get("max_tokens", DEFAULT_MAX_TOKENS)
        if max_tokens is None:
            max_tokens = DEFAULT_MAX_TOKENS
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens <= 0:
            raise ValueError("max_tokens must be positive")
        reqs: list[SimRequest] = []
        for text, ids in prompts_of(body):
            gen: dict[str, Any] = {"sampling_params": {
                "max_new_tokens": max_tokens, "temperature": body.get("temperature", 1.0),
                "ignore_eos": bool(body.get("ignore_eos", False)), "stop": body.get("stop"),
                "stop_token_ids": body.get("stop_token_ids")}}
            for k in ("regex", "json_schema", "ebnf"):  # the grammar fields as _build_sampling_params passes them
                if body.get(k) is not None:
                    gen["sampling_params"][k] = body[k]
            rf = body.get("response_format")
            if isinstance(rf, dict) and rf.get("type") in ("json_object", "json_schema"):
                gen["sampling_params"]["json_schema"] = '{"type": "object"}'  # marks the grammar; the text: plan_plain
            if text is not None:
                gen["text"] = text
            else:
                gen["input_ids"] = ids
            req = self.generate_request(gen)
            req.stream = bool(body.get("stream", False))
            if echo_logprobs(body):  # the prompt's logprobs: /generate's logprob_start_len 0, texts on
                attach(req, LogprobAsk(start=0, top_n=body["logprobs"], token_ids=None, text=True,
                                       prompt_text=text, prompt_ids=ids))
            reqs.extend(fan_out(req, n))
        if isinstance(body.get("rid"), str) and len(reqs) == 1:
            reqs[0].rid = body["rid"]
        hidden.check(body.get("return_hidden_states"), self.cfg.args)
        return reqs

    def _echo(self, body: dict[str, Any], index: int, n: int) -> str:
        if not body.get("echo"):
            return ""
        prompts = prompts_of(body)
        text, ids = prompts[min(index // max(1, n), len(prompts) - 1)]
        return text if text is not None else decode_ids(ids or [])

    def completion_stream(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                          recs: Sequence[TraceRecord], body: dict[str, Any]) -> AsyncIterator[str]:
        include_usage, continuous = stream_flags(body, self.cfg.args)
        model = str(body.get("model") or "default")
        created = int(time.time())
        n_per = int(body.get("n") or 1)
        top = body.get("logprobs")
        seed = self.cfg.sim.seed
        cache_report = bool(self.cfg.args.get("enable_cache_report"))
        want_hidden = body.get("return_hidden_states")
        width = hidden.hidden_size(self.dep)
        echo_lp = echo_logprobs(body)

        async def gen() -> AsyncGenerator[str, None]:
            sent_chars = [0] * len(reqs)
            seen: list[int] = []  # choices in the order their first output came (SGLang's per-index dicts)
            sent_tokens = [0] * len(reqs)
            sent_vis = [0] * len(reqs)
            started: set[int] = set()
            last_rid = reqs[0].rid
            async for i, out in merged(handles):
                req, rec = reqs[i], recs[i]
                n = out.completion_tokens
                if out.finished and refused(req):
                    rec.chunk(0)
                    assert req.finish_reason is not None  # refused(req)
                    yield wire.sse({"error": {"object": "error", "message": req.finish_reason["message"],
                                              "type": "SERVICE_UNAVAILABLE", "param": None, "code": 503}})
                    return
                last_rid = req.rid
                text = req.text(n)
                delta = text[sent_chars[i]:]
                sent_chars[i] = len(text)
                first_out = i not in started
                if first_out:
                    started.add(i)
                    seen.append(i)
                    delta = self._echo(body, i, n_per) + delta
                lp = None
                prompt_lp = echo_lp and first_out
                if isinstance(top, int) and not isinstance(top, bool) and (n > sent_vis[i] or prompt_lp):
                    lp = completion_logprobs(req, seed, sent_vis[i], n, top)
                    if prompt_lp:  # the choice's first chunk: its prompt's logprobs first
                        lp = _joined(prompt_completion_logprobs(req), lp)
                sent_vis[i] = max(sent_vis[i], n)
                reason, matched = wire.chat_finish(req) if out.finished else (None, None)
                u = wire.usage(req.prompt_tokens, n, req.cached_tokens if cache_report else None) \
                    if continuous else None
                rec.chunk(n - sent_tokens[i])
                sent_tokens[i] = n
                yield wire.completion_chunk(req.rid, created, model, index=i, text=delta, logprobs=lp,
                                            finish_reason=reason, matched_stop=matched, usage_=u)
            if hidden.request_mode(want_hidden) != hidden.NULL:  # one chunk per choice, after the outputs
                for i in seen:
                    recs[0].chunk(0)
                    yield wire.sse(hidden.completion_chunk(last_rid, created, model, i, hidden.openai_value(
                        reqs[i], want_hidden, seed, width)))
            spec = self._spec_ext(reqs, body)
            if spec is not None:
                recs[0].chunk(0)
                yield wire.sse({"id": last_rid, "object": "text_completion", "created": created, "model": model,
                                "choices": [], "usage": None, "sglext": {"spec_tokens_details": spec}})
            if include_usage:
                recs[0].chunk(0)
                yield wire.completion_usage_chunk(last_rid, created, model,
                                                  self._usage_of(reqs, n_per))

        return self._sse_frame(reqs, recs, gen())

    async def completion_response(self, reqs: Sequence[SimRequest], handles: Sequence[RequestHandle],
                                  recs: Sequence[TraceRecord], body: dict[str, Any], request: Any = None) -> Any:
        created = int(time.time())
        if not await self._finish_all(reqs, handles, request):
            for req, rec in zip(reqs, recs, strict=True):
                self.trace.finish(rec, req)
            return _error(disconnected_message(reqs[0].rid))
        for req in reqs:
            if refused(req):
                for r2, rec2 in zip(reqs, recs, strict=True):
                    self.trace.finish(rec2, r2)
                assert req.finish_reason is not None  # refused(req)
                return _error(req.finish_reason["message"], 503, "503")
        n_per = int(body.get("n") or 1)
        top = body.get("logprobs")
        seed = self.cfg.sim.seed
        choices = []
        want_hidden = body.get("return_hidden_states")
        width = hidden.hidden_size(self.dep)
        for i, req in enumerate(reqs):
            reason, matched = wire.chat_finish(req)
            lp = completion_logprobs(req, seed, 0, req.n_out, top) \
                if isinstance(top, int) and not isinstance(top, bool) else None
            if lp is not None and echo_logprobs(body):
                lp = _joined(prompt_completion_logprobs(req), lp)
            choice = {"index": i, "text": self._echo(body, i, n_per) + req.text(),
                      "logprobs": lp, "finish_reason": reason, "matched_stop": matched}
            hs = hidden.openai_value(req, want_hidden, seed, width)
            if hs is not None:  # CompletionResponseChoice drops it when None
                choice["hidden_states"] = hs
            choices.append(choice)
        wv = self.cfg.args.get("weight_version", "default")
        first = reqs[0]
        out: dict[str, Any] = {
            "id": first.rid, "object": "text_completion", "created": created,
            "model": str(body.get("model") or "default"), "choices": choices,
            "usage": self._usage_of(reqs, n_per),
            "metadata": {"weight_version": wv, "weight_versions": [{"version": wv, "start": 0, "end": first.n_out}]},
        }
        spec = self._spec_ext(reqs, body)
        if spec is not None:
            out["sglext"] = {"spec_tokens_details": spec}
        for req, rec in zip(reqs, recs, strict=True):
            rec.chunk(req.n_out)
            self.trace.finish(rec, req)
        return out
