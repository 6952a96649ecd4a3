"""Request validation as SGLang 0.5.23 does it, with its statuses and message texts, for every generation route of
the twin (/v1/chat/completions, /v1/completions, /generate). The request models of layer 2 are schema.py; the
refusals every layer raises, and their answers, are errors.py.

SGLang validates a request in four layers, and a client sees which one refused it by the shape of the answer:

1. **Body** (`http_server.py`): the OpenAI routes require `Content-Type: application/json`; the body is parsed by
   orjson. Both failures are FastAPI `RequestValidationError`s, which SGLang turns into 400 `ErrorResponse`s with
   type "Bad Request" and FastAPI's text: `N validation error(s):\\n  {error}…` plus the endpoint's source
   context and the error list (`fastapi_message`).
2. **Schema** (`entrypoints/openai/protocol.py`, pydantic): field types and the per-message role rules. The models
   below restate that schema (field names, types, union members and validator names, which pydantic prints in an
   error's `loc`), so the twin's errors are pydantic's own, formatted as SGLang formats them. /generate's dataclass
   and its JSON contract (`sglang/api/v1/api_types.py`, serde-style texts) are restated for the fields a client
   sends (`check_generate_body`).
3. **Request rules** (`serving_chat._validate_request` and friends): empty messages, tool_choice against the tools,
   tool parameter schemas, max_completion_tokens against the context (`check_chat`); `Prompt cannot be empty`
   (`check_completion`).
4. **Sampling parameters** (`SamplingParams.verify` in the tokenizer manager): ranges of temperature, top_p, top_k,
   min_p, penalties, max_new_tokens; stop counts (`verify_sampling`). These are ValueErrors: 400 with type
   "BadRequestError" on the OpenAI routes, `{"error": {"message"}}` on /generate (an SSE error event on a
   streamed /generate).

A failure of layers 1–2 raises `WireRefusal` (a complete answer: status, body, media type); of layers 3–4
`RequestError` (SGLang's ValueError: the route decides the envelope). The context-length checks stay with the
token counts (`SimServer._limits`).

Not restated: the content-part models' own fields (a malformed image or audio part gets a shorter error than
SGLang's), tool-parameter schemas beyond the meta-schema rules most clients break (`_schema_error`: the first
line of jsonschema's text, not its "Failed validating" detail).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from ..content.prompt_fields import PromptFields
from .errors import (
    CHAT,
    COMPLETIONS,
    GENERATE,
    INTERNAL_ERROR,
    ContractRefusal,
    Endpoint,
    RequestError,
    WireRefusal,
    validation_refusal,
)
from .schema import (
    ChatCompletionMessageGenericParam,
    ChatCompletionRequest,
    CompletionRequest,
    Tool,
    ToolChoice,
)

# ------------------------------------------------------------------------------------------------ layer 1: body

_JSON_MEDIA = "application/json"


def check_media_type(content_type: str | None) -> None:
    """The OpenAI routes' `validate_json_request` dependency (before the body is read)."""
    media = (content_type or "").lower().split(";", 1)[0]
    if media != _JSON_MEDIA:
        raise validation_refusal([{"loc": ["header", "content-type"],
                                   "msg": "Unsupported Media Type: Only 'application/json' is allowed",
                                   "type": "value_error"}], None)


def _json_wanted(content_type: str | None) -> bool:
    """FastAPI parses the body as JSON when there is no content type or an application/json or +json one."""
    if not content_type:
        return True
    media = content_type.lower().split(";", 1)[0].strip()
    main, _, sub = media.partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def _orjson_error(raw: bytes, e: json.JSONDecodeError) -> tuple[str, int]:
    """orjson's message and position for a body the standard parser refused at `e.pos` (the twin has no orjson;
    SGLang's ORJSONRequest parses with it)."""
    doc, pos, msg = e.doc, e.pos, e.msg
    n = len(doc)
    if n == 0:
        return "Input is a zero-length, empty document", 0
    if not doc.strip():
        return "input data is empty", 0
    rest = doc[pos:].lstrip(" \t\r\n")
    at_end = not rest
    if msg.startswith("Unterminated string") or at_end:
        return "unexpected end of data", n
    if msg == "Expecting property name enclosed in double quotes":
        before = doc[:pos].rstrip(" \t\r\n")
        if before.endswith(","):
            return "trailing comma is not allowed", len(before) - 1
        return "unexpected character, expected a string key", pos
    if msg == "Expecting ':' delimiter":
        return "unexpected character, expected ':' after key", pos
    if msg == "Expecting value":
        before = doc[:pos].rstrip(" \t\r\n")
        if before.endswith(",") and rest[:1] == "]":
            return "trailing comma is not allowed", len(before) - 1
        if rest[:1] == "-" and not rest[1:2].isdigit():
            return "no digit after sign", pos + 1
        if rest[:1] == ".":
            return "no digit after sign", pos
        for lit in ("true", "false", "null"):
            if rest[:1] == lit[0]:
                return ("unexpected end of data", n) if lit.startswith(rest) else \
                    (f"invalid literal, expected '{lit}'", pos)
        return "unexpected character, expected a JSON value", pos
    if msg == "Extra data":
        return "unexpected content after document", pos
    if msg.startswith("Invalid \\escape"):
        return "invalid escaped sequence in string", pos
    if msg.startswith("Invalid control character"):
        return "unexpected control character in string", pos
    if msg == "Expecting ',' delimiter":
        if doc[pos:pos + 1] == "." and doc[pos - 1:pos].isdigit():
            return "no digit after decimal point", pos + 1
        return f"unexpected character, expected ',' or '{_closer(doc, pos)}'", pos
    return msg, pos


def _closer(doc: str, pos: int) -> str:
    """The bracket that closes the innermost container open at `pos` (strings skipped)."""
    stack: list[str] = []
    in_str = esc = False
    for ch in doc[:pos]:
        if in_str:
            esc, in_str = (False, True) if esc else (ch == "\\", ch != '"')
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else "}"


def _finite(text: str) -> float:
    x = float(text)
    if math.isinf(x):
        raise _Infinite(text)
    return x


class _Infinite(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: an empty body (FastAPI: the body field is missing), apart from a JSON `null`
MISSING: Any = _Missing()


def parse_body(raw: bytes, content_type: str | None, endpoint: Endpoint) -> Any:
    """The body as SGLang's route sees it: parsed JSON (orjson's rules: no NaN/Infinity), the raw bytes when
    the content type is not JSON, `MISSING` when empty. A malformed document is FastAPI's json_invalid error."""
    if not raw:
        return MISSING
    if not _json_wanted(content_type):
        return raw
    def refuse(msg: str, pos: int) -> WireRefusal:
        return validation_refusal([{"type": "json_invalid", "loc": ("body", pos), "msg": "JSON decode error",
                                    "input": {}, "ctx": {"error": msg}}], endpoint)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise refuse("str is not valid UTF-8: surrogates not allowed", 0) from None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite)
    except json.JSONDecodeError as e:
        raise refuse(*_orjson_error(raw, e)) from None
    except _Infinite as e:  # 1e999: orjson refuses what overflows a double
        m = re.search(r"(?<![\w.])" + re.escape(str(e)), text)
        raise refuse("number is infinity when parsed as double", m.start() if m else 0) from None
    except ValueError:  # NaN / Infinity: orjson has no such literals
        m = re.search(r"(?<![\w\"])(-?Infinity|NaN)(?![\w\"])", text)
        raise refuse("unexpected character, expected a JSON value", m.start() if m else 0) from None


def _errors(e: ValidationError) -> list[dict[str, Any]]:
    return [{**err, "loc": ("body", *err["loc"])} for err in e.errors(include_url=False)]


def body_missing(body: Any, endpoint: Endpoint) -> None:
    if body is MISSING:
        raise validation_refusal([{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}],
                                 endpoint)


def chat_body_object(body: Any) -> dict[str, Any]:
    """A chat body must be an object: none is FastAPI's missing body, anything else fails inside SGLang's
    before-validator (`values.get`) and is FastAPI's plain 500."""
    body_missing(body, CHAT)
    if not isinstance(body, dict):
        raise INTERNAL_ERROR
    return body

# -------------------------------------------------------------------------------------- layer 2: schema (schema.py)

def _schema_validate(model: type[BaseModel], body: Any, endpoint: Endpoint) -> BaseModel:
    try:
        return model.model_validate(body, from_attributes=True)  # as FastAPI validates a body model
    except ValidationError as e:
        raise validation_refusal(_errors(e), endpoint) from None
    except AttributeError:  # a before-validator reading a non-object body: FastAPI's plain 500
        raise INTERNAL_ERROR from None

# ------------------------------------------------------------------------------------------------ layer 3: rules

_SIMPLE_TYPES = ("array", "boolean", "integer", "null", "number", "object", "string")
#: SGLang's normalize_json_schema_types rewrites these DB/ORM-style names before the meta-schema check
_TYPE_ALIASES = {"varchar": "string", "char": "string", "text": "string", "str": "string", "int": "integer",
                 "bigint": "integer", "smallint": "integer", "float": "number", "double": "number",
                 "decimal": "number", "bool": "boolean", "list": "array", "dict": "object", "enum": "string"}


def _py(v: Any) -> str:
    return repr(v)


def _schema_error(schema: Any, path: str = "") -> str | None:
    """The first line of jsonschema's Draft 2020-12 meta-schema error for the rules clients break (a type that
    is no JSON type, properties / $defs that are no object, required that is no list of strings, a bad enum or
    items), else None."""
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"{_py(schema)} is not of type 'object', 'boolean'"
    t = schema.get("type")
    if t is not None:
        names = t if isinstance(t, list) else [t]
        if isinstance(t, list) and not t:
            return "[] should be non-empty"
        for name in names:
            if not isinstance(name, str) or _TYPE_ALIASES.get(name.lower(), name) not in _SIMPLE_TYPES:
                return f"{_py(t)} is not valid under any of the given schemas"
    for key in ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"):
        v = schema.get(key)
        if v is not None:
            if not isinstance(v, dict):
                return f"{_py(v)} is not of type 'object'"
            for sub in v.values():
                if (err := _schema_error(sub)) is not None:
                    return err
    req = schema.get("required")
    if req is not None:
        if not isinstance(req, list):
            return f"{_py(req)} is not of type 'array'"
        for r in req:
            if not isinstance(r, str):
                return f"{_py(r)} is not of type 'string'"
        if len(set(req)) != len(req):
            return f"{_py(req)} has non-unique elements"
    enum = schema.get("enum")
    if enum is not None and not isinstance(enum, list):
        return f"{_py(enum)} is not of type 'array'"
    for key in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"):
        v = schema.get(key)
        if v is not None and (err := _schema_error(v)) is not None:
            return err
    for key in ("allOf", "anyOf", "oneOf", "prefixItems"):
        v = schema.get(key)
        if v is not None:
            if not isinstance(v, list):
                return f"{_py(v)} is not of type 'array'"
            if not v:
                return "[] should be non-empty"
            for sub in v:
                if (err := _schema_error(sub)) is not None:
                    return err
    return None


def _effective_tools(req: ChatCompletionRequest) -> list[Tool]:
    tools = list(req.tools or [])
    for m in req.messages:
        if isinstance(m, ChatCompletionMessageGenericParam) and m.role in ("root", "system", "developer") and m.tools:
            tools.extend(m.tools)
    return tools


def _chat_rules(req: ChatCompletionRequest, context_len: int | None) -> str | None:
    """serving_chat._validate_request's refusals, in its order."""
    if not req.messages:
        return "Messages cannot be empty."
    tools = _effective_tools(req)
    if isinstance(req.tool_choice, str) and req.tool_choice.lower() == "required" and not tools:
        return "Tools cannot be empty if tool choice is set to required."
    if isinstance(req.tool_choice, ToolChoice):
        if not tools:
            return "Tools cannot be empty if tool choice is set to a specific tool."
        name = req.tool_choice.function.name
        if not any(t.function.name == name for t in tools):
            return f"Tool '{name}' not found in tools list."
    if any(isinstance(m, ChatCompletionMessageGenericParam) and m.role in ("root", "system", "developer") and m.tools
           for m in req.messages):
        names = [t.function.name for t in tools]
        if len(names) != len(set(names)):
            return "Tool names must be unique across request and message tools."
    for i, t in enumerate(tools):
        if t.function.parameters is not None and (err := _schema_error(t.function.parameters)) is not None:
            return f"Tool {i} function has invalid 'parameters' schema: {err}"
    out = req.max_completion_tokens or req.max_tokens
    if out and context_len and out > context_len:
        return (f"max_completion_tokens is too large: {out}."
                f"This model supports at most {context_len} completion tokens.")
    return None


def lora_refusal(model: str, served: str) -> str | None:
    """`base:adapter` in `model` names a LoRA adapter (serving_base._parse_model_parameter); the twin serves
    none, so SGLang's refusal without --enable-lora."""
    if ":" not in model or model == served:
        return None
    adapter = model[len(served) + 1:] if model.startswith(f"{served}:") else model.split(":", 1)[1]
    adapter = adapter.strip()
    if not adapter:
        return None
    return (f"LoRA adapter '{adapter}' was requested, but LoRA is not enabled. Please launch the server with "
            "--enable-lora flag and preload adapters using --lora-paths or /load_lora_adapter endpoint.")

# ------------------------------------------------------------------------------------------------ layer 4: sampling

MAX_STOP_COUNT = 32
TOP_K_ALL = 1 << 30
_SAMPLING_EPS = 1e-6


def verify_sampling(sp: dict[str, Any]) -> None:
    """SamplingParams.__post_init__ + normalize + verify on the values given (numbers printed as received: the
    OpenAI routes pass pydantic's floats, /generate the JSON numbers), raising RequestError with SGLang's text."""
    def get(key: str, default: Any) -> Any:
        v = sp.get(key)
        return default if v is None else v
    temperature, top_p, min_p = get("temperature", 1.0), get("top_p", 1.0), get("min_p", 0.0)
    top_k = get("top_k", TOP_K_ALL)
    if 0 <= temperature < _SAMPLING_EPS:
        top_k = 1
    if top_k == -1:
        top_k = TOP_K_ALL
    stop = sp.get("stop")
    if isinstance(stop, list) and len(stop) > MAX_STOP_COUNT:
        raise RequestError(f"at most {MAX_STOP_COUNT} stop strings are allowed, got {len(stop)}")
    beam = sp.get("beam_width")
    if beam is not None and beam < 1:
        raise RequestError(f"beam_width must be at least 1, got {beam}.")
    if not math.isfinite(temperature) or temperature < 0.0:
        raise RequestError(f"temperature must be a non-negative finite number, got {temperature}.")
    if not 0.0 < top_p <= 1.0:
        raise RequestError(f"top_p must be in (0, 1], got {top_p}.")
    if not 0.0 <= min_p <= 1.0:
        raise RequestError(f"min_p must be in [0, 1], got {min_p}.")
    if top_k < 1 or top_k == -1:
        raise RequestError(f"top_k must be -1 (disable) or at least 1, got {top_k}.")
    for key in ("frequency_penalty", "presence_penalty"):
        v = get(key, 0.0)
        if not -2.0 <= v <= 2.0:
            raise RequestError(f"{key} must be in [-2, 2], got {v}.")
    rep = get("repetition_penalty", 1.0)
    if not 0.0 < rep <= 2.0:
        raise RequestError(f"repetition_penalty must be in (0, 2] (1.0 = no penalty), got {rep}.")
    min_new = get("min_new_tokens", 0)
    if not 0 <= min_new:
        raise RequestError(f"min_new_tokens must be in [0, max_new_tokens], got {min_new}.")
    max_new = sp.get("max_new_tokens", 128)
    if max_new is not None:
        if max_new < 0:
            raise RequestError(f"max_new_tokens must be at least 0, got {max_new}.")
        if not min_new <= max_new:
            raise RequestError(f"min_new_tokens must be in [0, max_new_tokens({max_new})], got {min_new}.")
    grammars = [sp.get(k) for k in ("json_schema", "regex", "ebnf", "structural_tag")]
    if sum(bool(g) for g in grammars) > 1:
        raise RequestError("Only one of json_schema, regex, ebnf, or structural_tag can be set.")

# ------------------------------------------------------------------------------------------------ per route


def check_chat(body: Any, *, served_model: str, context_len: int | None) -> ChatCompletionRequest:
    """Layers 2–3 of a chat request (the body already parsed by `parse_body`): the validated request, or
    WireRefusal / RequestError. `context_len` is the --context-length flag (SGLang compares max_completion_tokens
    with it only when it was given). The caller then checks the lengths against its token counts and calls
    `verify_sampling(chat_sampling_params(req))`, the tokenizer manager's order."""
    req = _schema_validate(ChatCompletionRequest, chat_body_object(body), CHAT)
    assert isinstance(req, ChatCompletionRequest)
    if (msg := _chat_rules(req, context_len)) is not None:
        raise RequestError(msg)
    if req.n == 0:  # SGLang's n loop is range(0, ..., n): its ValueError text, caught by the handler
        raise RequestError("range() arg 3 must not be zero", err_type="BadRequest")
    if (msg := lora_refusal(req.model, served_model)) is not None:
        raise RequestError(msg)
    return req


def chat_sampling_params(req: ChatCompletionRequest) -> dict[str, Any]:
    """ChatCompletionRequest.to_sampling_params's numbers (user value, else the OpenAI default)."""
    return {"temperature": req.temperature, "max_new_tokens": req.max_completion_tokens or req.max_tokens,
            "min_new_tokens": req.min_tokens, "stop": [req.stop] if isinstance(req.stop, str) else req.stop,
            "top_p": req.top_p, "top_k": req.top_k if req.top_k is not None else -1, "min_p": req.min_p,
            "presence_penalty": req.presence_penalty, "frequency_penalty": req.frequency_penalty,
            "repetition_penalty": req.repetition_penalty, "regex": req.regex, "ebnf": req.ebnf,
            "json_schema": '{"type": "object"}' if (req.response_format or {}).get("type") in
            ("json_object", "json_schema") else None}


def check_completion(body: Any, *, served_model: str) -> CompletionRequest:
    """Layers 2–4 of a /v1/completions request (for its route): the validated request, or WireRefusal /
    RequestError."""
    body_missing(body, COMPLETIONS)
    req = _schema_validate(CompletionRequest, body, COMPLETIONS)
    assert isinstance(req, CompletionRequest)
    p = req.prompt
    if not p or (isinstance(p, list) and all(not x for x in p)):
        raise RequestError("Prompt cannot be empty")
    if req.n == 0:
        raise RequestError("range() arg 3 must not be zero", err_type="BadRequest")
    if (msg := lora_refusal(req.model, served_model)) is not None:
        raise RequestError(msg)
    verify_sampling({"temperature": req.temperature, "max_new_tokens": req.max_tokens,
                     "min_new_tokens": req.min_tokens, "stop": [req.stop] if isinstance(req.stop, str) else req.stop,
                     "top_p": req.top_p, "top_k": req.top_k, "min_p": req.min_p,
                     "presence_penalty": req.presence_penalty, "frequency_penalty": req.frequency_penalty,
                     "repetition_penalty": req.repetition_penalty, "regex": req.regex, "ebnf": req.ebnf,
                     "json_schema": req.json_schema})
    return req

# /generate: GenerateReqInput (a dataclass FastAPI validates), then the JSON contract's serde-style texts


def _unexpected(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean `{'true' if v else 'false'}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, float):
        return f"floating point `{v}`"
    if isinstance(v, str):
        return f'string "{v}"'
    return "sequence" if isinstance(v, list) else "map" if isinstance(v, dict) else type(v).__name__


_I64, _F64, _BOOL, _STR = "i64", "f64", "a boolean", "a string"
#: SamplingParams of SGLang's JSON contract: field → expected type (in the contract's order: the unknown-field
#: text lists them so)
SAMPLING_FIELDS: dict[str, str | None] = {
    "max_new_tokens": _I64, "stop": None, "stop_token_ids": None, "stop_regex": None, "temperature": _F64,
    "top_p": _F64, "top_k": _I64, "min_p": _F64, "frequency_penalty": _F64, "presence_penalty": _F64,
    "repetition_penalty": _F64, "min_new_tokens": _I64, "n": _I64, "json_schema": _STR, "regex": _STR,
    "ebnf": _STR, "structural_tag": _STR, "ignore_eos": _BOOL, "skip_special_tokens": _BOOL,
    "spaces_between_special_tokens": _BOOL, "no_stop_trim": _BOOL, "stream_interval": _I64, "logit_bias": None,
    "sampling_seed": _I64, "custom_params": None, "beam_width": _I64, "watermark": None, "choice": None}


def _type_ok(v: Any, expected: str) -> bool:
    if expected == _I64:
        return isinstance(v, int) and not isinstance(v, bool)
    if expected == _F64:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if expected == _BOOL:
        return isinstance(v, bool)
    return isinstance(v, str)


def _contract_sampling(sp: dict[str, Any]) -> None:
    for key, v in sp.items():
        if key not in SAMPLING_FIELDS:
            listed = ", ".join(f"`{f}`" for f in SAMPLING_FIELDS)
            raise ContractRefusal(f"unknown field `{key}`, expected one of {listed}")
        expected = SAMPLING_FIELDS[key]
        if v is not None and expected is not None and not _type_ok(v, expected):
            raise ContractRefusal(f"invalid type: {_unexpected(v)}, expected {expected}")
        if v is not None and key in ("stop", "stop_regex") and not (
                isinstance(v, str) or (isinstance(v, list) and all(isinstance(s, str) for s in v))):
            bad = next((s for s in v if not isinstance(s, str)), None) if isinstance(v, list) else v
            raise ContractRefusal(f"invalid type: {_unexpected(bad)}, expected a string")


def check_generate_body(body: Any) -> dict[str, Any]:
    """GenerateReqInput's dataclass validation and the JSON contract for a single /generate request: the body,
    or WireRefusal / ContractRefusal. The sampling ranges are `verify_sampling(body["sampling_params"])`."""
    body_missing(body, GENERATE)
    if not isinstance(body, dict):
        raise validation_refusal([{"type": "dataclass_type", "loc": ("body",),
                                   "msg": "Input should be a dictionary or an instance of GenerateReqInput",
                                   "input": body, "ctx": {"class_name": "GenerateReqInput"}}], GENERATE)
    sp = body.get("sampling_params")
    errors: list[dict[str, Any]] = _prompt_field_errors(body)
    if sp is not None and not isinstance(sp, (dict, list)):
        errors += [
            {"type": "list_type", "loc": ("body", "sampling_params", "list[dict[str,any]]"),
             "msg": "Input should be a valid list", "input": sp},
            {"type": "dict_type", "loc": ("body", "sampling_params", "dict[str,any]"),
             "msg": "Input should be a valid dictionary", "input": sp}]
    errors += _logprob_field_errors(body)  # the dataclass reports every field's errors at once, in field order
    if errors:
        raise validation_refusal(errors, GENERATE)
    for key, expected in (("stream", _BOOL), ("return_text_in_logprobs", _BOOL)):
        v = body.get(key)
        if v is not None and not _type_ok(v, expected):
            raise ContractRefusal(f"invalid type: {_unexpected(v)}, expected {expected}")
    _check_logprob_contract(body)
    _check_generate_hidden(body.get("return_hidden_states"))
    _check_batch_contract(body)
    if isinstance(sp, dict):
        _contract_sampling(sp)
    elif isinstance(sp, list):  # a batch's per-prompt parameters: each decoded as one (decode_SamplingParamsOrList)
        for i, one in enumerate(sp):
            if not isinstance(one, dict):
                raise ContractRefusal(f"sampling_params[{i}]: invalid type: {_unexpected(one)}, expected an object")
            _contract_sampling(one)
    return body


def _check_batch_contract(body: dict[str, Any]) -> None:
    """The contract's decoding of token ids (api_types decode_TokenIdsOrList) after pydantic's: a boolean passes
    pydantic's int64 rows (array("q")), not the contract."""
    ids = body.get("input_ids")
    if isinstance(ids, list) and ids:
        flat = isinstance(ids[0], (int, float)) and not isinstance(ids[0], bool)  # else rows (a batch)
        for row in [ids] if flat else ids:
            if not isinstance(row, list):
                raise ContractRefusal(f"invalid type: {_unexpected(row)}, expected a sequence")
            bad = next((t for t in row if not isinstance(t, int) or isinstance(t, bool)), None)
            if bad is not None:
                raise ContractRefusal(f"invalid type: {_unexpected(bad)}, expected i64")


#: GenerateReqInput's per-request logprob fields and the contract's type of each (api_types.py: a value or a list
#: of values, one per request of a batch)
_LOGPROB_OR_LIST = (("return_logprob", "BoolOrList", _BOOL), ("logprob_start_len", "Int64OrList", _I64),
                    ("top_logprobs_num", "Int64OrList", _I64))


class _LogprobFields(BaseModel):
    """GenerateReqInput's logprob fields as its pydantic dataclass types them (io_struct.py), in its order."""

    return_logprob: list[bool] | bool | None = None
    logprob_start_len: list[int] | int | None = None
    top_logprobs_num: list[int] | int | None = None
    token_ids_logprob: list[list[int]] | list[int] | None = None
    return_text_in_logprobs: bool = False
    return_flat_raw_top_logprobs: bool = False
    return_flat_raw_output_top_logprobs: bool = False
    return_flat_raw_top_logprobs_b64: bool = False


def _field_errors(model: type[BaseModel], body: dict[str, Any]) -> list[dict[str, Any]]:
    """pydantic's errors for the body's fields of `model`, in the real server's order: field by field, a union's
    `str` branch before its `list[str]` items."""
    given = {k: body[k] for k in model.model_fields if k in body}
    if not given:
        return []
    try:
        model(**given)
    except ValidationError as e:
        order = list(model.model_fields)
        return sorted(_errors(e), key=lambda err: (order.index(err["loc"][1]) if err["loc"][1] in order else 99,
                                                   0 if err["loc"][2:3] == ("str",) else 1))
    return []


def _prompt_field_errors(body: dict[str, Any]) -> list[dict[str, Any]]:
    return _field_errors(PromptFields, body)


def _logprob_field_errors(body: dict[str, Any]) -> list[dict[str, Any]]:
    """pydantic's errors for the logprob fields (lax mode: "yes" is a boolean, "3" and 2.0 integers; those the
    contract refuses next)."""
    return _field_errors(_LogprobFields, body)


def _check_logprob_contract(body: dict[str, Any]) -> None:
    """The JSON contract of the logprob fields (`decode_BoolOrList` / `decode_Int64OrList`): a value of the type or a
    list of them (after pydantic's checks, `_logprob_field_errors`)."""
    for key, union, item in _LOGPROB_OR_LIST:
        v = body.get(key)
        if v is None:
            continue
        if isinstance(v, list):
            bad = next((x for x in v if not _type_ok(x, item)), None)
            if bad is not None or any(x is None for x in v):
                raise ContractRefusal(f"invalid type: {_unexpected(bad)}, expected {item}")
        elif not _type_ok(v, item):
            raise ContractRefusal(f"invalid type: {_unexpected(v)}, expected a value or an array of values for "
                                  f"{union}")


def _check_generate_hidden(v: Any) -> None:
    """GenerateReqInput.return_hidden_states (bool, "last" or a list of them); the JSON contract then takes a
    boolean or a list only (its BoolOrList): "last" passes the dataclass, not the contract."""
    if v is None or isinstance(v, bool) or isinstance(v, list):
        return
    from ..content.hidden import lax_bool
    if v == "last" or lax_bool(v) is not None:  # the dataclass took it (pydantic's lax bool), the contract not
        raise ContractRefusal(f"invalid type: {_unexpected(v)}, expected a value or an array of values for BoolOrList")
    loc = ("body", "return_hidden_states")
    bool_err = ({"type": "bool_parsing", "loc": loc + ("bool",), "msg": "Input should be a valid boolean, unable "
                 "to interpret input", "input": v} if isinstance(v, (str, int, float)) else
                {"type": "bool_type", "loc": loc + ("bool",), "msg": "Input should be a valid boolean", "input": v})
    raise validation_refusal([
        {"type": "list_type", "loc": loc + ("list[union[bool,literal['last']]]",),
         "msg": "Input should be a valid list", "input": v}, bool_err,
        {"type": "literal_error", "loc": loc + ("literal['last']",), "msg": "Input should be 'last'", "input": v,
         "ctx": {"expected": "'last'"}}], GENERATE)

# ------------------------------------------------------------------------------------------------ the routes' glue


async def read_body(request: Any, endpoint: Endpoint) -> Any:
    """A route's body as SGLang reads it: the OpenAI routes' media-type check, then `parse_body`."""
    ctype = request.headers.get("content-type")
    if endpoint is not GENERATE:
        check_media_type(ctype)
    body = parse_body(await request.body(), ctype, endpoint)
    return chat_body_object(body) if endpoint is CHAT else body


