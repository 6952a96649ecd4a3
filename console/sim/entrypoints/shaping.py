"""Pieces every response shaper shares: the OpenAI error body, refusals, disconnect handling, merged outputs of
several engine requests (n > 1, batches of prompts) and the stream's usage flags."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi.responses import JSONResponse

from ..model.engine import RequestOutput, SimRequest
from ..model.runtime import RequestHandle


def _error(message: str, status: int = 400, err_type: str = "BadRequestError") -> JSONResponse:
    """OpenAI-route error (ErrorResponse.model_dump())."""
    return JSONResponse({"object": "error", "message": message, "type": err_type, "param": None, "code": status},
                        status_code=status)


def refused(req: SimRequest) -> bool:
    """Aborted by the scheduler with an HTTP status (the queue was full): an error, not a finished answer."""
    fr = req.finish_reason
    return bool(fr and fr.get("type") == "abort" and isinstance(fr.get("status_code"), int))


TRUNCATED_MSG = "ASGI callable returned without completing response."
#: how often a non-streaming request looks for a client that left (tokenizer_manager `_wait_one_response`: 4 s)
DISCONNECT_POLL_S = 4.0


def disconnected_message(rid: str) -> str:
    """The 400 a non-streaming request gets when its client left (tokenizer_manager, "type 1")."""
    return f"Request is disconnected from the client side (type 1). Abort request obj.rid='{rid}'"


async def merged(handles: Sequence[RequestHandle]) -> AsyncIterator[tuple[int, RequestOutput]]:
    """Outputs of several requests (n > 1, a batch of prompts) as they come: (index, output)."""
    if len(handles) == 1:
        while (out := await handles[0].next()) is not None:
            yield 0, out
        return
    pending = {asyncio.ensure_future(h.next()): i for i, h in enumerate(handles)}
    try:
        while pending:
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for t in sorted(done, key=lambda t: pending[t]):
                i = pending.pop(t)
                out = t.result()
                if out is None:
                    continue
                yield i, out
                if not out.finished:
                    pending[asyncio.ensure_future(handles[i].next())] = i
    finally:
        for t in pending:
            t.cancel()


def stream_flags(body: dict[str, Any], args: dict[str, Any]) -> tuple[bool, bool]:
    """(include_usage, continuous_usage_stats): `should_include_usage` with the server default."""
    opts = body.get("stream_options") or None
    default = bool(args.get("stream_response_default_include_usage"))
    if opts:
        return bool(opts.get("include_usage")) or default, bool(opts.get("continuous_usage_stats"))
    return default, False


