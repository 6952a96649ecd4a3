"""SGLang 0.5.23 wire shapes: SSE chunks, meta_info, responses, with SGLang's exact key order.

Compact JSON (`,` and `:` without spaces, non-ASCII unescaped), as msgspec/pydantic/orjson write it.
Sources: `entrypoints/openai/sse_utils.py` (msgspec StreamChunk: delta keys reasoning_content, role, content; choice
keys index, delta, logprobs, finish_reason, matched_stop; `usage` omitted when None),
`entrypoints/openai/protocol.py` (pydantic ChatCompletionStreamResponse with `usage: null` kept and `sglext`
dropped when None; UsageInfo; SpecTokensDetails), `managers/tokenizer_manager.py` (meta_info order and the spec
metrics of the final output).
"""

from __future__ import annotations

import json
from typing import Any

from ..model.engine import SimRequest

VERSION = "0.5.23"
"""The SGLang version the twin speaks (and reports in /server_info, /model_info)."""


def dumps(obj: Any) -> str:
    """Compact JSON as SGLang's encoders write it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def sse(obj: Any) -> str:
    return "data: " + dumps(obj) + "\n\n"


SSE_DONE = "data: [DONE]\n\n"


def usage(prompt_tokens: int, completion_tokens: int, cached_tokens: int | None = None,
          reasoning_tokens: int = 0) -> dict[str, Any]:
    """UsageInfo.model_dump(): prompt_tokens, total_tokens, completion_tokens, prompt_tokens_details,
    reasoning_tokens, completion_tokens_details (`cached_tokens` given only with --enable-cache-report;
    completion_tokens_details only when there are reasoning tokens)."""
    return {
        "prompt_tokens": prompt_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens": completion_tokens,
        "prompt_tokens_details": None if cached_tokens is None else {"cached_tokens": cached_tokens},
        "reasoning_tokens": reasoning_tokens,
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens} if reasoning_tokens else None,
    }


def chat_chunk(rid: str, created: int, model: str, *, role: str | None = None, content: str | None = None,
               reasoning: str | None = None, finish_reason: str | None = None,
               matched_stop: int | str | None = None, usage_: dict[str, Any] | None = None, index: int = 0,
               logprobs: dict[str, Any] | None = None) -> str:
    """One msgspec `StreamChunk` (role, content, reasoning or finish chunk) as an SSE event
    (sse_utils.build_sse_content)."""
    delta: dict[str, Any] = {"reasoning_content": reasoning}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    chunk: dict[str, Any] = {
        "id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
        "choices": [{"index": index, "delta": delta, "logprobs": logprobs, "finish_reason": finish_reason,
                     "matched_stop": matched_stop}],
    }
    if usage_ is not None:
        chunk["usage"] = usage_
    return sse(chunk)


def parser_chunk(rid: str, created: int, model: str, *, index: int, content: str | None = None,
                 tool_calls: list[dict[str, Any]] | None = None, usage_: dict[str, Any] | None = None) -> str:
    """A pydantic `ChatCompletionStreamResponse` as the tool-call path writes it (serving_chat
    `_process_tool_call_stream`): every delta field (tool_calls only when set), `usage` kept as null."""
    delta: dict[str, Any] = {"role": None, "content": content, "reasoning_content": None}
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    return sse({"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": None,
                             "matched_stop": None}], "usage": usage_})


def tool_call(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    """ToolCall.model_dump(): id, index, type, function {name, arguments}."""
    return {"id": call_id, "index": index, "type": "function", "function": {"name": name, "arguments": arguments}}


def completion_chunk(rid: str, created: int, model: str, *, index: int, text: str,
                     logprobs: dict[str, Any] | None, finish_reason: str | None,
                     matched_stop: int | str | None, usage_: dict[str, Any] | None = None) -> str:
    """CompletionStreamResponse.model_dump_json(): `usage` kept (null), sglext dropped."""
    return sse({"id": rid, "object": "text_completion", "created": created, "model": model,
                "choices": [{"index": index, "text": text, "logprobs": logprobs, "finish_reason": finish_reason,
                             "matched_stop": matched_stop}], "usage": usage_})


def completion_usage_chunk(rid: str, created: int, model: str, usage_: dict[str, Any]) -> str:
    """The completions' final usage chunk: model_dump_json(exclude_none=True) drops the null usage details."""
    return sse({"id": rid, "object": "text_completion", "created": created, "model": model, "choices": [],
                "usage": {k: v for k, v in usage_.items() if v is not None}})


def sglext_chunk(rid: str, created: int, model: str, spec_details: dict[str, Any]) -> str:
    """The response-level sglext chunk (pydantic: `choices: []`, `usage: null` kept)."""
    return sse({"id": rid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
                "usage": None, "sglext": {"spec_tokens_details": spec_details}})


def usage_chunk(rid: str, created: int, model: str, usage_: dict[str, Any]) -> str:
    """The final usage chunk (`choices: []`, no sglext key)."""
    return sse({"id": rid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
                "usage": usage_})


def spec_metrics(req: SimRequest, num_draft_tokens: int) -> dict[str, Any]:
    """`_calculate_spec_decoding_metrics`: the spec keys of a finished request's meta_info (empty without a
    verify step)."""
    if req.spec_verify_ct <= 0:
        return {}
    proposed = req.spec_verify_ct * (num_draft_tokens - 1)
    out: dict[str, Any] = {}
    if proposed > 0:
        out["spec_accept_rate"] = req.spec_num_correct_drafts / proposed
        out["spec_accept_length"] = req.n_out / req.spec_verify_ct
        out["spec_num_correct_drafts"] = req.spec_num_correct_drafts
        out["spec_num_proposed_drafts"] = proposed
        out["spec_verify_ct"] = req.spec_verify_ct
    if req.spec_hist:
        out["spec_correct_drafts_histogram"] = list(req.spec_hist)
    return out


def spec_tokens_details(meta: dict[str, Any]) -> dict[str, Any] | None:
    """SpecTokensDetails from a final meta_info (all 9 fields), or None when it has no spec keys."""
    keys = ("spec_accept_rate", "spec_accept_length", "spec_num_correct_drafts", "spec_num_proposed_drafts",
            "spec_verify_ct", "spec_correct_drafts_histogram")
    if not any(k in meta for k in keys):
        return None
    return {
        "spec_accept_rate": float(meta.get("spec_accept_rate") or 0.0),
        "spec_accept_length": float(meta.get("spec_accept_length") or 0.0),
        "spec_cap_length": 0.0,
        "spec_block_accept_length": 0.0,
        "spec_num_correct_drafts": int(meta.get("spec_num_correct_drafts") or 0),
        "spec_num_proposed_drafts": int(meta.get("spec_num_proposed_drafts") or 0),
        "spec_verify_ct": int(meta.get("spec_verify_ct") or 0),
        "spec_correct_drafts_histogram": list(meta.get("spec_correct_drafts_histogram") or []),
        "spec_cap_lens_histogram": [],
    }


def meta_info(req: SimRequest, completion_tokens: int, *, finished: bool, weight_version: str,
              spec: bool, num_draft_tokens: int, e2e_latency: float | None, sent_ts: float | None,
              dp_attention: bool = False) -> dict[str, Any]:
    """A /generate meta_info in SGLang's key order; the final one adds weight_versions, e2e_latency and (with
    speculation) the spec metrics; `sent_ts` (response_sent_to_client_ts) goes on the first output sent."""
    m: dict[str, Any] = {
        "id": req.rid,
        "finish_reason": req.finish_reason if finished else None,
        "prompt_tokens": req.prompt_tokens,
        "weight_version": weight_version,
        "num_retractions": req.num_retractions,
        "reasoning_tokens": reasoning_tokens(req, completion_tokens),
        "completion_tokens": completion_tokens,
        "cached_tokens": req.cached_tokens,
    }
    if finished:
        m["weight_versions"] = [{"version": weight_version, "start": 0, "end": completion_tokens}]
    m["cached_tokens_details"] = {"device": req.cached_tokens, "host": 0} if req.cached_tokens else None
    m["dp_rank"] = req.dp_rank if dp_attention else None
    if finished:
        m["e2e_latency"] = e2e_latency
        if spec:
            m.update(spec_metrics(req, num_draft_tokens))
    if sent_ts is not None:
        m["response_sent_to_client_ts"] = sent_ts
    return m


def reasoning_tokens(req: SimRequest, completion_tokens: int | None = None) -> int:
    """Reasoning tokens among a request's first `completion_tokens` (a scripted reasoning block; else 0)."""
    at = getattr(req.words, "reasoning_at", None)
    return at(req.n_out if completion_tokens is None else completion_tokens) if at is not None else 0


def chat_finish(req: SimRequest) -> tuple[str | None, int | str | None]:
    """(finish_reason, matched_stop) of a finished request as the OpenAI choice reports them."""
    fr = req.finish_reason or {}
    return fr.get("type"), fr.get("matched")
