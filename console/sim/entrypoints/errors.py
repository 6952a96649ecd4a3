"""How the twin refuses a request, as SGLang 0.5.23 answers each refusal: the route descriptors FastAPI names in a
validation error, `WireRefusal` (a complete answer: layers 1-2 of validate.py), `RequestError` (SGLang's
ValueError: the route decides the envelope), `SchedulerAbort` (admitted, then aborted by the scheduler),
`ContractRefusal` (/generate's JSON contract) and the streamed forms of a refusal."""

from __future__ import annotations

import json
import sysconfig
from dataclasses import dataclass
from typing import Any


class RequestError(Exception):
    """A request SGLang refuses with a ValueError (its request rules, the tokenizer manager, SamplingParams):
    400 with `message`; `err_type` is the ErrorResponse type the OpenAI routes give it."""

    def __init__(self, message: str, *, err_type: str = "BadRequestError") -> None:
        super().__init__(message)
        self.err_type = err_type


class SchedulerAbort(RequestError):
    """A request the tokenizer manager admitted and the scheduler aborts at once (`set_finish_with_abort`: its input
    does not fit the KV pool, `validate_input_length`; or `logprob_start_len` past the prompt). Not streamed: the
    tokenizer manager's 400. Streamed: a chat gets a 200 whose one SSE event is the error (`chat_stream_abort`); a
    /generate gets an ordinary output chunk whose finish_reason is the abort (logprobs.py `stream_abort`). Not an
    abort_request, so not counted in num_aborted_requests_total."""


def input_length_refusal(prompt_tokens: int, max_req_input_len: int) -> SchedulerAbort:
    return SchedulerAbort(f"Input length ({prompt_tokens} tokens) exceeds the maximum allowed length "
                          f"({max_req_input_len} tokens). Use a shorter input or enable --allow-auto-truncate.")


@dataclass(frozen=True)
class Endpoint:
    """A route as FastAPI names it in a validation error: SGLang's handler, its decorator line in 0.5.23's
    http_server.py, and the method + path."""

    function: str
    line: int
    path: str


CHAT = Endpoint("openai_v1_chat_completions", 1870, "/v1/chat/completions")
COMPLETIONS = Endpoint("openai_v1_completions", 1860, "/v1/completions")
GENERATE = Endpoint("generate_request", 928, "/generate")

#: where SGLang's http_server.py would sit in this interpreter's environment (FastAPI names the handler's file)
HTTP_SERVER_FILE = f"{sysconfig.get_paths()['purelib']}/sglang/srt/entrypoints/http_server.py"


class WireRefusal(Exception):
    """A request refused before SGLang's handler runs: a complete answer (status, JSON body or plain text)."""

    def __init__(self, status: int, body: Any, media_type: str = "application/json") -> None:
        super().__init__(body if isinstance(body, str) else body.get("message", body))
        self.status, self.body, self.media_type = status, body, media_type

    def response(self) -> Any:
        from fastapi.responses import JSONResponse, Response
        if self.media_type == "application/json":
            return JSONResponse(self.body, status_code=self.status)
        return Response(self.body, status_code=self.status, media_type=self.media_type)


def fastapi_message(errors: list[dict[str, Any]], endpoint: Endpoint | None) -> str:
    """FastAPI's `str(RequestValidationError)` followed by the error list, as SGLang's handler joins them."""
    n = len(errors)
    text = f"{n} validation error{'s' if n != 1 else ''}:\n" + "".join(f"  {e}\n" for e in errors)
    if endpoint is not None:
        text += (f'\n  File "{HTTP_SERVER_FILE}", line {endpoint.line}, in {endpoint.function}'
                 f"\n    POST {endpoint.path}")
    text = text.rstrip()
    listed = str(errors)
    return f"{text} {listed}" if listed != text else text


def validation_refusal(errors: list[dict[str, Any]], endpoint: Endpoint | None) -> WireRefusal:
    """SGLang's RequestValidationError handler: 400 ErrorResponse, type "Bad Request"."""
    return WireRefusal(400, {"object": "error", "message": fastapi_message(errors, endpoint), "type": "Bad Request",
                             "param": None, "code": 400})


INTERNAL_ERROR = WireRefusal(500, "Internal Server Error", "text/plain; charset=utf-8")


class ContractRefusal(Exception):
    """/generate's JSON-contract refusal: 400 `{"error": text}`."""

    def response(self) -> Any:
        from fastapi.responses import JSONResponse
        return JSONResponse({"error": str(self)}, status_code=400)


def generate_stream_refusal(message: str, status: int = 400) -> Any:
    """A streamed /generate refused by the tokenizer manager: 200, one SSE error event, then [DONE]
    (http_server.generate_request's stream_results)."""
    from fastapi.responses import StreamingResponse
    event = {"error": {"message": message, "type": "invalid_request_error", "code": status, "retryable": False}}

    async def events() -> Any:
        yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n"
        yield "data: [DONE]\n\n"
    return StreamingResponse(events(), media_type="text/event-stream")


def chat_stream_abort(message: str, status: int = 400) -> Any:
    """A streamed chat the scheduler aborted: 200, one SSE event with the ErrorResponse (type "BAD_REQUEST", the
    status's name, as serving_chat's stream generator writes it), then [DONE]."""
    from http import HTTPStatus

    from fastapi.responses import StreamingResponse
    event = {"error": {"object": "error", "message": message, "type": HTTPStatus(status).name, "param": None,
                       "code": status}}

    async def events() -> Any:
        yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n"
        yield "data: [DONE]\n\n"
    return StreamingResponse(events(), media_type="text/event-stream")
