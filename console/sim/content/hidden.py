"""`return_hidden_states` on the twin, as SGLang 0.5.23 answers it.

The server's ceiling (tokenizer_manager `_validate_one_request`, forward_batch_info
`get_server_return_hidden_states_mode`): `--return-hidden-states-mode last|full`, or the legacy
`--enable-return-hidden-states` flag (= full). A request asking for more than that ceiling is refused with the
tokenizer manager's ValueError (400 before any stream on the OpenAI routes; /generate's stream carries it as an
event). `True` asks for full, `"last"` for last.

What the scheduler collects per request (batch_result_processor `_append_prefill_hidden_states` /
`_append_decode_hidden_states`): with `True`, one entry for the prefill (the rows of the prompt tokens that were
computed, i.e. the uncached ones; of a prompt prefilled in chunks, the last chunk's only: a middle chunk's output is
not committed, `store=False`) and then one vector per decode step (a request with N output tokens runs N - 1
decode steps); with `"last"`, only the newest vector. /generate's meta_info carries that list as is (every streamed
output carries the whole list so far). The OpenAI routes (entrypoints/openai/utils.py
`process_hidden_states_for_response`) answer `True` with the list's last entry (the last decode step's vector, `[]`
when there was none: one output token) and `"last"` with the vector as is; a streamed answer sends it in one extra
chunk per choice after the finish chunks.

The twin has no weights: a vector is `hidden_size` deterministic small floats (bf16-like steps of 1/256) drawn from
the request's seed key and the token position, so equal greedy prompts give equal vectors. They are built only
when asked, at the end (OpenAI routes) or as the /generate outputs go (its list grows with the stream).
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

#: Kimi-K2.6's text model hidden_size (HF config text_config.hidden_size); a deployment model may set its own
DEFAULT_HIDDEN_SIZE = 7168

NULL, LAST, FULL = 0, 1, 2

NOT_CONFIGURED = ("The server is not configured to return hidden states. Please set `--return-hidden-states-mode "
                  "last`, `--return-hidden-states-mode full`, or the legacy `--enable-return-hidden-states` flag.")


def server_mode(args: dict[str, Any]) -> int:
    mode = args.get("return_hidden_states_mode")
    if mode == "last":
        return LAST
    if mode == "full" or args.get("enable_return_hidden_states"):
        return FULL
    return NULL


_TRUE = frozenset(("1", "on", "t", "true", "y", "yes"))
_FALSE = frozenset(("0", "off", "f", "false", "n", "no"))


def lax_bool(value: Any) -> bool | None:
    """pydantic's lax bool: the value a request model reads from a bool, 0/1 or a yes/no string (None: not one)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        return True if v in _TRUE else False if v in _FALSE else None
    return None


def request_mode(value: Any) -> int:
    """`get_request_return_hidden_states_mode`: True full, "last" last, False/None nothing; a list its maximum."""
    if isinstance(value, list):
        return max((request_mode(v) for v in value), default=NULL)
    if value == "last":
        return LAST
    return FULL if lax_bool(value) else NULL


def check(value: Any, args: dict[str, Any]) -> None:
    """The tokenizer manager's refusal of a request asking for more than the server returns (ValueError)."""
    asked, ceiling = request_mode(value), server_mode(args)
    if asked <= ceiling:
        return
    if ceiling != NULL:
        raise ValueError("The requested return_hidden_states mode exceeds the server maximum "
                         f"`{args.get('return_hidden_states_mode')}`. Please launch with "
                         "`--return-hidden-states-mode full` to allow return_hidden_states=True.")
    raise ValueError(NOT_CONFIGURED)


def hidden_size(dep: Any) -> int:
    return int(getattr(getattr(dep, "model", None), "hidden_size", 0) or DEFAULT_HIDDEN_SIZE)


def seed_key(req: Any, seed: int) -> str:
    """A greedy request's vectors follow its prompt (n greedy choices agree, as real); a sampled one's its draw."""
    if req.temperature == 0:
        return f"hidden:greedy:{req.prompt_hash}"
    return f"hidden:{seed}:{req.index}:{req.rid}"


def _rng(key: str, pos: int) -> np.random.Generator:
    h = hashlib.blake2b(f"{key}:{pos}".encode(), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(h, "little"))


def vector(key: str, pos: int, width: int) -> list[float]:
    """The hidden state at sequence position `pos`: `width` small floats, steps of 1/256."""
    return (np.round(_rng(key, pos).standard_normal(width) * 256.0) / 256.0).tolist()


def rows(key: str, start: int, stop: int, width: int) -> list[list[float]]:
    return [vector(key, p, width) for p in range(start, stop)]


def openai_value(req: Any, value: Any, seed: int, width: int) -> Any:
    """A choice's `hidden_states` (None: no key): True -> the last decode step's vector ([] after one token),
    "last" -> the newest vector (the prompt's last row when nothing was decoded)."""
    mode = request_mode(value)
    if mode == NULL:
        return None
    n = req.n_out
    key = seed_key(req, seed)
    if n >= 2:  # the decode step that produced token n ran on position prompt + n - 2
        return vector(key, req.prompt_tokens + n - 2, width)
    if mode == FULL:
        return []
    return vector(key, req.prompt_tokens - 1, width)


class GenerateHidden:
    """/generate's meta_info["hidden_states"] of one request, grown as its outputs go (vectors built once)."""

    def __init__(self, req: Any, value: Any, seed: int, width: int) -> None:
        self.req, self.mode, self.seed, self.width = req, request_mode(value), seed, width
        self.items: list[Any] = []

    def at(self, n: int) -> list[Any] | None:
        """The list after `n` output tokens (None: not asked)."""
        if self.mode == NULL or n <= 0:
            return None
        req, key = self.req, seed_key(self.req, self.seed)
        if self.mode == LAST:
            pos = req.prompt_tokens + n - 2 if n >= 2 else req.prompt_tokens - 1
            return [vector(key, pos, self.width)]
        if not self.items:  # the prefill's rows: the last chunk's only (earlier chunks' are not stored)
            start = min(req.cached_tokens, req.prompt_tokens - 1)
            if 0 < req.last_chunk < req.prompt_tokens - start:
                start = req.prompt_tokens - req.last_chunk
            self.items.append(rows(key, start, req.prompt_tokens, self.width))
        while len(self.items) < n:  # one vector per decode step: token j + 1 came from position prompt + j
            self.items.append(vector(key, req.prompt_tokens + len(self.items) - 1, self.width))
        return self.items[:n]


def with_hidden(meta: dict[str, Any], hs: list[Any] | None) -> dict[str, Any]:
    """meta_info with `hidden_states` where SGLang puts it (after cached_tokens_details, before dp_rank)."""
    if hs is None:
        return meta
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if k == "dp_rank":
            out["hidden_states"] = hs
        out[k] = v
    if "hidden_states" not in out:
        out["hidden_states"] = hs
    return out


def completion_chunk(rid: str, created: int, model: str, index: int, hs: Any) -> dict[str, Any]:
    """The completions stream's hidden-states chunk (CompletionStreamResponse.model_dump_json)."""
    return {"id": rid, "object": "text_completion", "created": created, "model": model,
            "choices": [{"index": index, "text": "", "logprobs": None, "finish_reason": None, "matched_stop": None,
                         "hidden_states": hs}], "usage": None}


def chat_chunk(rid: str, created: int, model: str, index: int, hs: Any) -> dict[str, Any]:
    """The chat stream's hidden-states chunk (a pydantic ChatCompletionStreamResponse: every delta field kept)."""
    return {"id": rid, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": index, "delta": {"role": None, "content": None, "reasoning_content": None,
                                                   "hidden_states": hs},
                         "logprobs": None, "finish_reason": None, "matched_stop": None}], "usage": None}


def mark(reqs: Any, body: dict[str, Any], args: dict[str, Any]) -> Any:
    """/generate: refuse what the server does not return (ValueError), else note the ask on the request(s)."""
    value = body.get("return_hidden_states") if isinstance(body, dict) else None
    check(value, args)
    if request_mode(value) != NULL:
        for r in reqs if isinstance(reqs, (list, tuple)) else [reqs]:
            r.return_hidden_states = value
    return reqs


def asked(req: Any) -> Any:
    """What a /generate request asked for (False when nothing)."""
    return getattr(req, "return_hidden_states", False)
