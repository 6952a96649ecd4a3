"""The twin's request validation (console/sim/entrypoints/validate.py) against SGLang 0.5.23's formats: the texts of
`SamplingParams.verify`, `serving_chat._validate_request`, the LoRA refusal, FastAPI's RequestValidationError as
SGLang's handler prints it, orjson's parse errors and /generate's JSON contract. The expected strings are
SGLang's (its source, and its CPU server's answers to the same requests), never the twin's own output."""

from __future__ import annotations

import json

import pytest

from console.sim.content.tokens import _CHUNK_CHARS, _EXACT_CHARS, _o200k, count_tokens
from console.sim.entrypoints import errors as errs, validate as v
from console.sim.entrypoints.errors import RequestError, WireRefusal

SERVED = "moonshotai/Kimi-K2.6"
HI = [{"role": "user", "content": "Say hi."}]
CTX = 262144
FILE = errs.HTTP_SERVER_FILE


def chat(body):
    req = v.check_chat(body, served_model=SERVED, context_len=CTX)
    v.verify_sampling(v.chat_sampling_params(req))
    return req


def refusal(fn, *args, **kw) -> WireRefusal:
    with pytest.raises(WireRefusal) as e:
        fn(*args, **kw)
    return e.value


def chat_error(body) -> str:
    with pytest.raises(RequestError) as e:
        chat(body)
    return str(e.value)


def fastapi_text(errors: str, endpoint: str = "line 1870, in openai_v1_chat_completions\n    POST "
                 "/v1/chat/completions") -> str:
    """SGLang's handler text around a pydantic error list (one error): f"{exc} {exc.errors()}"."""
    return f'1 validation error:\n  {errors}\n\n  File "{FILE}", {endpoint} [{errors}]'


# ------------------------------------------------------------------------------------------------ sampling


@pytest.mark.parametrize("params, message", [
    ({"temperature": -1}, "temperature must be a non-negative finite number, got -1.0."),
    ({"temperature": float("inf")}, "temperature must be a non-negative finite number, got inf."),
    ({"top_p": 0}, "top_p must be in (0, 1], got 0.0."),
    ({"top_p": 1.5}, "top_p must be in (0, 1], got 1.5."),
    ({"top_k": 0}, "top_k must be -1 (disable) or at least 1, got 0."),
    ({"top_k": -2}, "top_k must be -1 (disable) or at least 1, got -2."),
    ({"min_p": -0.1}, "min_p must be in [0, 1], got -0.1."),
    ({"frequency_penalty": 3}, "frequency_penalty must be in [-2, 2], got 3.0."),
    ({"presence_penalty": -3}, "presence_penalty must be in [-2, 2], got -3.0."),
    ({"repetition_penalty": 0}, "repetition_penalty must be in (0, 2] (1.0 = no penalty), got 0.0."),
    ({"repetition_penalty": 2.5}, "repetition_penalty must be in (0, 2] (1.0 = no penalty), got 2.5."),
    ({"max_tokens": -1}, "max_new_tokens must be at least 0, got -1."),
    ({"max_completion_tokens": -5}, "max_new_tokens must be at least 0, got -5."),
    ({"min_tokens": 5, "max_tokens": 3}, "min_new_tokens must be in [0, max_new_tokens(3)], got 5."),
    ({"stop": [str(i) for i in range(33)]}, "at most 32 stop strings are allowed, got 33"),
    ({"regex": "a+", "response_format": {"type": "json_object"}},
     "Only one of json_schema, regex, ebnf, or structural_tag can be set."),
    ({"max_tokens": 300_000}, "max_completion_tokens is too large: 300000.This model supports at most 262144 "
     "completion tokens."),
    ({"tool_choice": "required"}, "Tools cannot be empty if tool choice is set to required."),
    ({"tool_choice": {"type": "function", "function": {"name": "f"}}},
     "Tools cannot be empty if tool choice is set to a specific tool."),
])
def test_chat_refusals_carry_sglangs_text(params, message):
    assert chat_error({"messages": HI, **params}) == message


@pytest.mark.parametrize("params", [
    {"temperature": 0}, {"temperature": 5}, {"temperature": "0.5"}, {"top_k": -1}, {"top_k": 1}, {"top_p": 1},
    {"min_p": 1}, {"presence_penalty": -2}, {"repetition_penalty": 2}, {"max_tokens": 0}, {"stop": ""},
    {"stop": ["a", "b"]}, {"stream": "yes"}, {"model": "a:"}, {"model": SERVED},
])
def test_chat_values_sglang_accepts_pass(params):
    chat({"messages": HI, **params})


def test_max_tokens_zero_asks_for_zero_tokens_and_max_completion_tokens_zero_falls_back():
    assert v.chat_sampling_params(chat({"messages": HI, "max_tokens": 0}))["max_new_tokens"] == 0
    both = chat({"messages": HI, "max_completion_tokens": 0, "max_tokens": 2})
    assert v.chat_sampling_params(both)["max_new_tokens"] == 2  # `max_completion_tokens or max_tokens`


def test_n_zero_is_sglangs_range_error_with_its_type():
    with pytest.raises(RequestError) as e:
        chat({"messages": HI, "n": 0})
    assert str(e.value) == "range() arg 3 must not be zero" and e.value.err_type == "BadRequest"


def test_generate_numbers_are_printed_as_sent():
    """/generate passes the JSON numbers to SamplingParams untouched (no pydantic float)."""
    for sp, message in [({"top_p": 0}, "top_p must be in (0, 1], got 0."),
                        ({"temperature": -1}, "temperature must be a non-negative finite number, got -1."),
                        ({"max_new_tokens": -1}, "max_new_tokens must be at least 0, got -1.")]:
        with pytest.raises(RequestError, match=None) as e:
            v.verify_sampling(sp)
        assert str(e.value) == message
    v.verify_sampling({"max_new_tokens": 0, "temperature": 0, "top_k": 0})  # temperature 0 means greedy: top_k 1

# ------------------------------------------------------------------------------------------------ tools


WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


@pytest.mark.parametrize("parameters, first_line", [
    ({"type": "foo"}, "'foo' is not valid under any of the given schemas"),
    ({"type": "object", "properties": "x"}, "'x' is not of type 'object'"),
    ({"type": "object", "required": "a"}, "'a' is not of type 'array'"),
    ({"type": "object", "properties": {"a": {"type": "strin"}}}, "'strin' is not valid under any of the given "
     "schemas"),
    ({"type": "object", "required": ["a", "a"]}, "['a', 'a'] has non-unique elements"),
])
def test_invalid_tool_schemas_are_refused_with_jsonschemas_first_line(parameters, first_line):
    tools = [WEATHER, {"type": "function", "function": {"name": "f", "parameters": parameters}}]
    assert chat_error({"messages": HI, "tools": tools}) == \
        f"Tool 1 function has invalid 'parameters' schema: {first_line}"


def test_valid_tool_schemas_and_choices_pass():
    tools = [WEATHER, {"type": "function", "function": {"name": "g", "parameters": {
        "type": "object", "properties": {"a": {"type": ["string", "null"]}, "b": {"type": "varchar"}},
        "required": ["a"]}}}]
    chat({"messages": HI, "tools": tools, "tool_choice": "required"})
    chat({"messages": HI, "tools": tools, "tool_choice": {"type": "function", "function": {"name": "g"}}})
    assert chat_error({"messages": HI, "tools": tools, "tool_choice": {"type": "function",
                                                                        "function": {"name": "h"}}}) == \
        "Tool 'h' not found in tools list."


def test_tool_without_name_is_pydantics_missing_field_with_the_key_order_sglang_records():
    e = refusal(chat, {"messages": HI, "tools": [{"type": "function", "function": {}}]})
    err = ("{'type': 'missing', 'loc': ('body', 'tools', 0, 'function', 'name'), 'msg': 'Field required', "
           "'input': {'key_order': []}}")
    assert e.status == 400 and e.body["type"] == "Bad Request" and e.body["message"] == fastapi_text(err)

# ------------------------------------------------------------------------------------------------ messages


def test_missing_messages_echo_the_body_after_sglangs_before_validators():
    e = refusal(chat, {"max_tokens": 3})
    err = ("{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required', 'input': {'max_tokens': 3, "
           "'tool_choice': 'none'}}")
    assert e.body == {"object": "error", "message": fastapi_text(err), "type": "Bad Request", "param": None,
                      "code": 400}


def test_empty_and_non_list_messages():
    assert chat_error({"messages": []}) == "Messages cannot be empty."
    err = "{'type': 'list_type', 'loc': ('body', 'messages'), 'msg': 'Input should be a valid list', 'input': 'hi'}"
    assert refusal(chat, {"messages": "hi"}).body["message"] == fastapi_text(err)


def test_unknown_role_names_both_union_members_as_pydantic_does():
    m = refusal(chat, {"messages": [{"role": "wizard", "content": "hi"}]}).body["message"]
    assert m.startswith("2 validation errors:\n  {'type': 'value_error', 'loc': ('body', 'messages', 0, "
                        "'function-after[validate_thinking_parts_role(), ChatCompletionMessageGenericParam]', "
                        "'role'), 'msg': \"Value error, 'role' must be one of 'system', 'assistant', 'tool', "
                        "'function', 'developer', 'latest_reminder', 'root' (case-insensitive).\"")
    assert "{'type': 'literal_error', 'loc': ('body', 'messages', 0, 'function-after[validate_thinking_parts_role()"\
           ", ChatCompletionMessageUserParam]', 'role'), 'msg': \"Input should be 'user'\", 'input': 'wizard', " \
           "'ctx': {'expected': \"'user'\"}}" in m
    chat({"messages": [{"role": "System", "content": "Be brief."}, *HI]})  # roles are case-insensitive


def test_thinking_parts_only_in_assistant_messages():
    m = refusal(chat, {"messages": [{"role": "system", "content": [{"type": "thinking", "thinking": "x"}]},
                                    *HI]}).body["message"]
    assert "Value error, thinking content parts are only valid in assistant messages" in m
    chat({"messages": [*HI, {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]}, *HI]})


def test_union_errors_in_sglangs_order():
    m = refusal(chat, {"messages": HI, "stop": 5}).body["message"]
    assert m.startswith("2 validation errors:\n  {'type': 'list_type', 'loc': ('body', 'stop', 'list[str]'), "
                        "'msg': 'Input should be a valid list', 'input': 5}\n  {'type': 'string_type', 'loc': "
                        "('body', 'stop', 'str'), 'msg': 'Input should be a valid string', 'input': 5}\n")
    m = refusal(chat, {"messages": HI, "tool_choice": "sometimes"}).body["message"]
    assert m.startswith("2 validation errors:\n  {'type': 'model_attributes_type', 'loc': ('body', 'tool_choice', "
                        "'ToolChoice'), 'msg': 'Input should be a valid dictionary or object to extract fields "
                        "from', 'input': 'sometimes'}")


@pytest.mark.parametrize("field, value, kind, msg", [
    ("max_tokens", "abc", "int_parsing", "Input should be a valid integer, unable to parse string as an integer"),
    ("max_tokens", 1.5, "int_from_float", "Input should be a valid integer, got a number with a fractional part"),
    ("temperature", "abc", "float_parsing", "Input should be a valid number, unable to parse string as a number"),
    ("n", "x", "int_parsing", "Input should be a valid integer, unable to parse string as an integer"),
])
def test_field_types_are_pydantics(field, value, kind, msg):
    err = f"{{'type': '{kind}', 'loc': ('body', '{field}'), 'msg': '{msg}', 'input': {value!r}}}"
    assert refusal(chat, {"messages": HI, field: value}).body["message"] == fastapi_text(err)


def test_non_object_bodies():
    assert refusal(v.chat_body_object, v.MISSING).body["message"] == fastapi_text(
        "{'type': 'missing', 'loc': ('body',), 'msg': 'Field required', 'input': None}")
    for body in ([1], None, "x", 3):  # SGLang's before-validator calls .get on it: FastAPI's plain 500
        e = refusal(v.chat_body_object, body)
        assert (e.status, e.body, e.media_type.split(";")[0]) == (500, "Internal Server Error", "text/plain")

# ------------------------------------------------------------------------------------------------ body


MEDIA = ("{'loc': ['header', 'content-type'], 'msg': \"Unsupported Media Type: Only 'application/json' is "
         "allowed\", 'type': 'value_error'}")


@pytest.mark.parametrize("ctype", ["text/plain", None, "", "application/vnd.api+json", "application/x-json"])
def test_openai_routes_take_only_application_json(ctype):
    e = refusal(v.check_media_type, ctype)
    assert e.body["message"] == f"1 validation error:\n  {MEDIA} [{MEDIA}]" and e.body["type"] == "Bad Request"


def test_json_media_types_with_parameters_pass():
    v.check_media_type("application/json; charset=utf-8")
    v.check_media_type("Application/JSON")


@pytest.mark.parametrize("raw, error, pos", [  # orjson 3.x's texts and positions (SGLang's ORJSONRequest)
    (b"{not json", "unexpected character, expected a string key", 1),
    (b'{"a":1,}', "trailing comma is not allowed", 6),
    (b'{"messages": [], }', "trailing comma is not allowed", 15),
    (b'{"a":', "unexpected end of data", 5),
    (b"   ", "input data is empty", 0),
    (b'{"a" 1}', "unexpected character, expected ':' after key", 5),
    (b"[1,2", "unexpected end of data", 4),
    (b'{"a":tru}', "invalid literal, expected 'true'", 5),
    (b'{"a":"x', "unexpected end of data", 7),
    (b'{"a":1} x', "unexpected content after document", 8),
    (b"{'a':1}", "unexpected character, expected a string key", 1),
    (b'{"a":NaN}', "unexpected character, expected a JSON value", 5),
    (b'{"a":"\\x"}', "invalid escaped sequence in string", 6),
    (b'{"a":"\x01"}', "unexpected control character in string", 6),
    (b"nul", "unexpected end of data", 3),
    (b'{"a":1 "b":2}', "unexpected character, expected ',' or '}'", 7),
    (b"[1 2]", "unexpected character, expected ',' or ']'", 3),
    (b'{"a":[1 2]}', "unexpected character, expected ',' or ']'", 8),
    (b'{"a":"]" 2}', "unexpected character, expected ',' or '}'", 9),
    (b'{"a":1,', "unexpected end of data", 7),
    (b"[1,]", "trailing comma is not allowed", 2),
    (b'{"a":"\xff"}', "str is not valid UTF-8: surrogates not allowed", 0),
    (b'{"a":-}', "no digit after sign", 6),
    (b'{"a":1.}', "no digit after decimal point", 7),
    (b'{"a":.5}', "no digit after sign", 5),
    (b"\n\n{", "unexpected end of data", 3),
    (b'{"a":1e999}', "number is infinity when parsed as double", 5),
    (b"123abc", "unexpected content after document", 3),
    (b'{"a":1}}', "unexpected content after document", 7),
])
def test_malformed_json_is_fastapis_json_invalid_with_orjsons_text(raw, error, pos):
    e = refusal(v.parse_body, raw, "application/json", errs.CHAT)
    err = f"{{'type': 'json_invalid', 'loc': ('body', {pos}), 'msg': 'JSON decode error', 'input': {{}}, " \
          f"'ctx': {{'error': {error!r}}}}}"
    assert e.body["message"] == fastapi_text(err)


def test_bodies_that_parse():
    assert v.parse_body(b'{"a": [1, 2.5, "x", null, true]}', "application/json", errs.CHAT) == \
        {"a": [1, 2.5, "x", None, True]}
    assert v.parse_body(b"", "application/json", errs.CHAT) is v.MISSING
    assert v.parse_body(b"null", "application/json", errs.CHAT) is None
    assert v.parse_body(b"{}", "text/plain", errs.GENERATE) == b"{}"  # /generate: the raw bytes (a dataclass error)

# ------------------------------------------------------------------------------------------------ LoRA syntax


def test_model_names_with_a_colon_request_a_lora_adapter():
    text = ("LoRA adapter '{}' was requested, but LoRA is not enabled. Please launch the server with --enable-lora "
            "flag and preload adapters using --lora-paths or /load_lora_adapter endpoint.")
    assert v.lora_refusal("a:b", SERVED) == text.format("b")
    assert v.lora_refusal(f"{SERVED}:ad", SERVED) == text.format("ad")
    assert v.lora_refusal("s3://bucket:x", SERVED) == text.format("//bucket:x")
    assert v.lora_refusal("a:", SERVED) is None and v.lora_refusal(SERVED, SERVED) is None
    assert v.lora_refusal("weird:name", "weird:name") is None  # the exact served name, colons and all
    assert chat_error({"messages": HI, "model": "a:b"}) == text.format("b")

# ------------------------------------------------------------------------------------------------ completions


def test_completions_rules():
    def err(body) -> RequestError:
        with pytest.raises(RequestError) as e:
            v.check_completion(body, served_model=SERVED)
        return e.value
    assert str(err({"prompt": ""})) == str(err({"prompt": ["", ""]})) == "Prompt cannot be empty"
    assert str(err({"prompt": "hi", "top_p": 0})) == "top_p must be in (0, 1], got 0.0."
    assert (str(e := err({"prompt": "hi", "n": 0})), e.err_type) == ("range() arg 3 must not be zero", "BadRequest")
    m = refusal(v.check_completion, {"prompt": "hi", "max_tokens": 0}, served_model=SERVED).body["message"]
    err_text = ("{'type': 'value_error', 'loc': ('body', 'max_tokens'), 'msg': 'Value error, max_tokens must be "
                "positive', 'input': 0, 'ctx': {'error': ValueError('max_tokens must be positive')}}")
    assert m == fastapi_text(err_text, "line 1860, in openai_v1_completions\n    POST /v1/completions")
    v.check_completion({"prompt": [[1, 2, 3]], "max_tokens": 2}, served_model=SERVED)

# ------------------------------------------------------------------------------------------------ /generate


def test_generate_contract_texts():
    def contract(body) -> str:
        with pytest.raises(errs.ContractRefusal) as e:
            v.check_generate_body(body)
        return str(e.value)
    assert contract({"text": "hi", "sampling_params": {"max_new_tokens": "abc"}}) == \
        'invalid type: string "abc", expected i64'
    assert contract({"text": "hi", "sampling_params": {"top_p": True}}) == \
        "invalid type: boolean `true`, expected f64"
    assert contract({"text": "hi", "stream": "yes"}) == 'invalid type: string "yes", expected a boolean'
    assert contract({"text": "hi", "sampling_params": {"bogus": 1}}).startswith(
        "unknown field `bogus`, expected one of `max_new_tokens`, `stop`, `stop_token_ids`, `stop_regex`, "
        "`temperature`, `top_p`, `top_k`, `min_p`, `frequency_penalty`, `presence_penalty`, `repetition_penalty`, "
        "`min_new_tokens`, `n`, `json_schema`, `regex`, `ebnf`, `structural_tag`, `ignore_eos`, "
        "`skip_special_tokens`, `spaces_between_special_tokens`, `no_stop_trim`, `stream_interval`, `logit_bias`, "
        "`sampling_seed`, `custom_params`, `beam_width`, `watermark`, `choice`")
    v.check_generate_body({"text": "hi", "sampling_params": {"max_new_tokens": 0, "top_p": 1, "stop": ["a"]}})


def test_generate_body_must_be_an_object():
    e = refusal(v.check_generate_body, [1])
    err = ("{'type': 'dataclass_type', 'loc': ('body',), 'msg': 'Input should be a dictionary or an instance of "
           "GenerateReqInput', 'input': [1], 'ctx': {'class_name': 'GenerateReqInput'}}")
    assert e.body["message"] == fastapi_text(err, "line 928, in generate_request\n    POST /generate")


async def test_a_refused_generate_stream_is_one_sse_error_event_then_done():
    resp = errs.generate_stream_refusal("top_p must be in (0, 1], got 0.")
    chunks = [c async for c in resp.body_iterator]
    assert resp.status_code == 200 and resp.media_type == "text/event-stream"
    assert chunks[-1] == "data: [DONE]\n\n"
    assert json.loads(chunks[0][len("data: "):]) == {"error": {
        "message": "top_p must be in (0, 1], got 0.", "type": "invalid_request_error", "code": 400,
        "retryable": False}}

async def test_a_streamed_chat_the_scheduler_aborts_is_one_sse_error_event_then_done():
    """SGLang's answer to a streamed chat whose input does not fit the KV pool (validate_input_length)."""
    e = errs.input_length_refusal(8191, 8186)
    assert isinstance(e, RequestError) and str(e) == (
        "Input length (8191 tokens) exceeds the maximum allowed length (8186 tokens). Use a shorter input or "
        "enable --allow-auto-truncate.")
    resp = errs.chat_stream_abort(str(e))
    chunks = [c async for c in resp.body_iterator]
    assert resp.status_code == 200 and chunks[-1] == "data: [DONE]\n\n"
    assert json.loads(chunks[0][len("data: "):]) == {"error": {
        "object": "error", "message": str(e), "type": "BAD_REQUEST", "param": None, "code": 400}}

# ------------------------------------------------------------------------------------------------ token counts


def test_count_tokens_never_raises_and_counts_long_text_exactly_up_to_the_bound():
    """The o200k encoder raises at 1M characters or 200k tokens per call (#14 known 4)."""
    enc = _o200k()
    words = " ".join(f"w{i % 977}x" for i in range(400_000))  # ~2.4M characters, > 200k tokens
    exact_part = words[: _EXACT_CHARS - 1]
    reference = sum(len(enc.encode(exact_part[i:i + _CHUNK_CHARS])) for i in range(0, len(exact_part), _CHUNK_CHARS))
    assert abs(count_tokens(exact_part) - reference) <= len(exact_part) // _CHUNK_CHARS  # only the cuts differ
    big = count_tokens(words)  # above the bound: sampled
    assert abs(big / (reference * len(words) / len(exact_part)) - 1) < 0.01
    assert count_tokens("hello " * 270_000) == 270_001  # "hello", 269,999 × " hello", the last " "
    assert count_tokens("x" * 1_500_000) > 0 and count_tokens("\U0001F600" * 250_000) >= 250_000
