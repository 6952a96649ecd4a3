"""The probes (requests sent identically to both servers) and the shape of an answer: status, JSON key/type
structure, SSE event kinds in order, metric family names. Never generated text or timing values."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import httpx

M = "<MODEL>"  # replaced by each server's own served model name (from /v1/models)


@dataclass
class Probe:
    name: str
    method: str
    path: str
    body: object = None
    stream: bool = False
    headers: dict = field(default_factory=dict)
    raw: bytes | None = None
    message: bool = False  # compare the error message text too
    #: regexes whose matches are blanked in both messages before they are compared (numbers of a context length
    #: that differs by design); FastAPI's handler path (where each server's site-packages are) always is
    abstract: tuple[str, ...] = ()


CHAT = "/v1/chat/completions"
GEN = "/generate"
HI = [{"role": "user", "content": "Say hi."}]
JSON_CT = {"Content-Type": "application/json"}
NUMBERS = (r"\d+",)
#: a prompt over both servers' context (the twin's 262,144, the real CPU server's 8,192) and over 1M characters
#: (the twin's token counter once raised there): "hello" is one token in o200k and in SmolLM2's vocabulary
TOO_LONG = "hello " * 270_000
FRANCE = "The capital of France is"


def _chat(**kw):
    return {"model": M, "messages": HI, "max_tokens": 3, **kw}


def _gen(**sp):
    return {"text": "Hello", "sampling_params": {"max_new_tokens": 3, **sp}}


_WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
#: request validation (#14 known 4, 7, 8, 11, 12, 13): every range and rule the twin restates from SGLang, the
#: error message compared too
VALIDATION_PROBES = [
    Probe("err_temperature_negative", "POST", CHAT, _chat(temperature=-1), message=True),
    Probe("err_temperature_string", "POST", CHAT, _chat(temperature="abc"), message=True),
    Probe("err_top_p_over_one", "POST", CHAT, _chat(top_p=1.5), message=True),
    Probe("err_top_k_zero", "POST", CHAT, _chat(top_k=0), message=True),
    Probe("err_top_k_fraction", "POST", CHAT, _chat(top_k=1.5), message=True),
    Probe("err_min_p_over_one", "POST", CHAT, _chat(min_p=1.5), message=True),
    Probe("err_frequency_penalty", "POST", CHAT, _chat(frequency_penalty=3), message=True),
    Probe("err_presence_penalty", "POST", CHAT, _chat(presence_penalty=5), message=True),
    Probe("err_repetition_penalty_zero", "POST", CHAT, _chat(repetition_penalty=0), message=True),
    Probe("max_tokens_zero", "POST", CHAT, _chat(max_tokens=0)),
    Probe("err_max_tokens_negative", "POST", CHAT, _chat(max_tokens=-1), message=True),
    Probe("err_max_tokens_string", "POST", CHAT, _chat(max_tokens="abc"), message=True),
    Probe("err_max_completion_tokens_negative", "POST", CHAT,
          {"model": M, "messages": HI, "max_completion_tokens": -1}, message=True),
    Probe("err_max_tokens_over_context", "POST", CHAT, _chat(max_tokens=300_000), message=True, abstract=NUMBERS),
    Probe("err_n_zero", "POST", CHAT, _chat(n=0), message=True),
    Probe("err_n_string", "POST", CHAT, _chat(n="x"), message=True),
    Probe("err_stop_not_string", "POST", CHAT, _chat(stop=5), message=True),
    Probe("err_stop_too_many", "POST", CHAT, _chat(stop=[f"s{i}" for i in range(40)]), message=True),
    Probe("err_tool_choice_required_no_tools", "POST", CHAT, _chat(tool_choice="required"), message=True),
    Probe("err_tool_choice_named_no_tools", "POST", CHAT,
          _chat(tool_choice={"type": "function", "function": {"name": "get_weather"}}), message=True),
    Probe("err_tool_choice_named_not_in_tools", "POST", CHAT,
          _chat(tools=_WEATHER, tool_choice={"type": "function", "function": {"name": "get_time"}}), message=True),
    Probe("err_tool_choice_unknown", "POST", CHAT, _chat(tool_choice="sometimes"), message=True),
    # jsonschema's meta-schema text after its first line (the failing meta-schema excerpt) is not restated
    Probe("err_tool_schema_type", "POST", CHAT, _chat(tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "foo"}}}]), message=True, abstract=(r"\n\nFailed validating[\s\S]*",)),
    Probe("err_tool_schema_required", "POST", CHAT, _chat(tools=[{"type": "function", "function": {
        "name": "f", "parameters": {"type": "object", "required": "city"}}}]), message=True,
        abstract=(r"\n\nFailed validating[\s\S]*",)),
    Probe("err_tool_no_name", "POST", CHAT, _chat(tools=[{"type": "function", "function": {}}]), message=True),
    Probe("err_messages_empty", "POST", CHAT, {"model": M, "messages": [], "max_tokens": 3}, message=True),
    Probe("err_messages_not_list", "POST", CHAT, {"model": M, "messages": "hi", "max_tokens": 3}, message=True),
    Probe("err_message_no_role", "POST", CHAT, {"model": M, "messages": [{"content": "hi"}]}, message=True),
    Probe("err_role_not_string", "POST", CHAT, {"model": M, "messages": [{"role": 5, "content": "hi"}]},
          message=True),
    # greedy: sampled, the real model sometimes answers "Hi!" and stops inside 3 tokens (matched_stop then the EOS
    # id, not null; 1 CI run in many); its greedy answer runs to the limit every time
    Probe("role_case_insensitive", "POST", CHAT, {"model": M, "max_tokens": 3, "temperature": 0, "messages": [
        {"role": "System", "content": "Be brief."}, {"role": "user", "content": "hi"}]}),
    Probe("err_body_not_object", "POST", CHAT, raw=b"[1]", headers=JSON_CT, message=True),
    Probe("err_body_empty", "POST", CHAT, raw=b"", headers=JSON_CT, message=True),
    Probe("err_json_trailing_comma", "POST", CHAT, raw=b'{"messages": [], }', headers=JSON_CT, message=True),
    Probe("err_json_nan", "POST", CHAT, raw=b'{"messages": [{"role": "user", "content": "hi"}], "top_p": NaN}',
          headers=JSON_CT, message=True),
    Probe("err_no_content_type", "POST", CHAT, raw=b'{"messages": [{"role": "user", "content": "hi"}]}',
          message=True),
    Probe("err_lora_adapter_of_served_model", "POST", CHAT, _chat(model=M + ":adapter"), message=True),
    Probe("err_too_long", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": TOO_LONG}],
                                         "max_tokens": 3}, message=True, abstract=NUMBERS),
    Probe("err_too_long_stream", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": TOO_LONG}],
                                                "max_tokens": 3, "stream": True}, stream=True, message=True,
          abstract=NUMBERS),
    Probe("err_generate_too_long", "POST", GEN, {"text": TOO_LONG, "sampling_params": {"max_new_tokens": 3}},
          message=True, abstract=NUMBERS),
    Probe("err_generate_too_long_stream", "POST", GEN, {"text": TOO_LONG, "stream": True,
                                                        "sampling_params": {"max_new_tokens": 3}},
          stream=True, message=True, abstract=NUMBERS),
    # under the real server's 8,192-token context but over both servers' KV bound (max_req_input_len 8,186 with
    # --max-total-tokens 8192): the scheduler's refusal
    Probe("err_generate_over_kv_pool", "POST", GEN, {"text": "hello " * 8188, "sampling_params": {
        "max_new_tokens": 1}}, message=True, abstract=NUMBERS),
    Probe("err_generate_no_input", "POST", GEN, {"sampling_params": {"max_new_tokens": 3}}, message=True),
    Probe("err_completions_no_prompt", "POST", "/v1/completions", {"model": M, "max_tokens": 3}, message=True),
    Probe("err_completions_empty_prompt", "POST", "/v1/completions", {"model": M, "prompt": "", "max_tokens": 3},
          message=True),
    Probe("err_completions_max_tokens_zero", "POST", "/v1/completions", {"model": M, "prompt": "hi",
                                                                          "max_tokens": 0}, message=True),
    Probe("err_completions_top_p_zero", "POST", "/v1/completions", {"model": M, "prompt": "hi", "max_tokens": 3,
                                                                     "top_p": 0}, message=True),
    Probe("err_completions_n_zero", "POST", "/v1/completions", {"model": M, "prompt": "hi", "max_tokens": 3,
                                                                 "n": 0}, message=True),
    Probe("err_completions_too_long", "POST", "/v1/completions", {"model": M, "prompt": TOO_LONG, "max_tokens": 3},
          message=True, abstract=NUMBERS),
    Probe("err_generate_max_new_tokens_negative", "POST", GEN, _gen(max_new_tokens=-1), message=True),
    Probe("err_generate_max_new_tokens_string", "POST", GEN, _gen(max_new_tokens="abc"), message=True),
    Probe("generate_max_new_tokens_zero", "POST", GEN, _gen(max_new_tokens=0)),
    Probe("err_generate_temperature_negative", "POST", GEN, _gen(temperature=-1), message=True),
    Probe("err_generate_top_p_zero", "POST", GEN, _gen(top_p=0), message=True),
    Probe("err_generate_top_p_zero_stream", "POST", GEN, {**_gen(top_p=0), "stream": True}, stream=True,
          message=True),
    Probe("err_generate_unknown_sampling_param", "POST", GEN, _gen(bogus=1), message=True),
    Probe("err_generate_sampling_params_not_object", "POST", GEN, {"text": "hi", "sampling_params": "x"},
          message=True),
    Probe("err_generate_bad_json", "POST", GEN, raw=b"{not json", headers=JSON_CT, message=True),
    Probe("err_generate_body_not_object", "POST", GEN, raw=b"[1]", headers=JSON_CT, message=True),
]
PROBES = [
    Probe("v1_models", "GET", "/v1/models"),
    Probe("health", "GET", "/health"),
    Probe("not_found", "GET", "/no_such_route"),
    Probe("chat", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6}),
    Probe("chat_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6, "stream": True,
                                        "stream_options": {"include_usage": True}}, stream=True),
    Probe("generate", "POST", "/generate", {"text": "Hello", "sampling_params": {"max_new_tokens": 6}}),
    Probe("generate_stream", "POST", "/generate", {"text": "Hello", "stream": True,
                                                   "sampling_params": {"max_new_tokens": 6}}, stream=True),
    # no length limit: both stop at EOS (the twin's length model; it ran to the context limit before); greedy, so
    # the real model's answer is short and the same every run
    Probe("chat_no_max_tokens", "POST", CHAT, {"model": M, "messages": HI, "temperature": 0}),
    Probe("chat_return_meta_info", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4,
                                                  "return_meta_info": True}),
    Probe("chat_return_meta_info_logprobs", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 2,
                                                           "temperature": 0, "logprobs": True, "top_logprobs": 1,
                                                           "return_meta_info": True}),
    Probe("err_chat_return_meta_info_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4,
                                                             "return_meta_info": True, "stream": True}, message=True),
    Probe("completions", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 6}),
    Probe("completions_stream", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 4,
                                                           "stream": True, "stream_options": {"include_usage": True}},
          stream=True),
    Probe("completions_batch_logprobs", "POST", "/v1/completions", {"model": M, "prompt": ["Hello", "Hi"],
                                                                   "max_tokens": 3, "n": 2, "logprobs": 2}),
    Probe("completions_ids_echo", "POST", "/v1/completions", {"model": M, "prompt": [[1, 2, 3]], "max_tokens": 2,
                                                             "echo": True}),
    Probe("completions_stream_logprobs", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 3,
                                                                    "stream": True, "logprobs": 1, "n": 2},
          stream=True),
    Probe("err_bad_json", "POST", CHAT, raw=b"{not json", headers={"Content-Type": "application/json"},
          message=True),
    Probe("err_no_messages", "POST", CHAT, {"model": M, "max_tokens": 6}, message=True),
    Probe("err_top_p_zero", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 6, "top_p": 0},
          message=True),
    Probe("n2", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4, "n": 2}),
    Probe("logprobs", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 4, "logprobs": True,
                                     "top_logprobs": 2}),
    Probe("logprobs_n2_no_top", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "logprobs": True,
                                               "n": 2}),
    Probe("logprobs_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "logprobs": True,
                                            "top_logprobs": 2, "stream": True}, stream=True),
    Probe("n2_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 3, "n": 2, "stream": True,
                                      "stream_options": {"include_usage": True}}, stream=True),
    # cut short on both (SmolLM2 writes long indented JSON): the shape of an unfinished constrained answer; greedy
    # (sampled, the real model now and then closes an empty "{}" inside 4 tokens: matched_stop the EOS id, not null)
    Probe("json_object", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": "A JSON object."}],
                                        "max_tokens": 4, "temperature": 0, "response_format": {"type": "json_object"}}),
    Probe("json_schema", "POST", CHAT, {"model": M, "messages": [{"role": "user", "content": "Is the sky blue? "
                                                                                            "Answer in JSON."}],
                                        "max_tokens": 40, "response_format": {"type": "json_schema", "json_schema": {
                                            "name": "answer", "schema": {
                                                "type": "object", "properties": {"ok": {"type": "boolean"}},
                                                "required": ["ok"], "additionalProperties": False}}}}),
    Probe("ebnf", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12,
                                 "ebnf": 'root ::= greeting "!"\ngreeting ::= "Hello" | "Hi"'}),
    Probe("generate_n2_ebnf", "POST", "/generate", {"text": "Say hi:", "sampling_params": {
        "max_new_tokens": 8, "n": 2, "temperature": 0.5, "ebnf": 'root ::= "Hello" | "Hi" | "Hey"'}}),
    # return_logprob on /generate and prompt logprobs (echo + logprobs) on /v1/completions: greedy, so the real
    # model's tokens and their count are the same every run; "The capital of France is" is 5 tokens in o200k and in
    # SmolLM2's vocabulary; token ids under both vocabularies (SmolLM2's 49,152). The first asks from position 0,
    # which no cached prefix can serve on either server (the match is capped at logprob_start_len); after it both
    # hold the prompt, whatever ran on the real server before
    Probe("generate_logprob_token_ids_text", "POST", GEN, {"text": FRANCE, "return_logprob": True,
                                                           "logprob_start_len": 0, "token_ids_logprob": [30, 198],
                                                           "return_text_in_logprobs": True, "sampling_params": {
                                                               "max_new_tokens": 3, "temperature": 0}}),
    Probe("generate_logprob", "POST", GEN, {"text": FRANCE, "return_logprob": True,
                                            "sampling_params": {"max_new_tokens": 3, "temperature": 0}}),
    Probe("generate_logprob_top_start", "POST", GEN, {"text": FRANCE, "return_logprob": True, "logprob_start_len": 2,
                                                      "top_logprobs_num": 2, "sampling_params": {
                                                          "max_new_tokens": 3, "temperature": 0}}),
    Probe("generate_logprob_token_ids_no_start", "POST", GEN, {"text": FRANCE, "return_logprob": True,
                                                               "token_ids_logprob": [30], "sampling_params": {
                                                                   "max_new_tokens": 2, "temperature": 0}}),
    Probe("generate_logprob_whole_prompt_skipped", "POST", GEN, {"text": FRANCE, "return_logprob": True,
                                                                 "logprob_start_len": 5, "top_logprobs_num": 1,
                                                                 "sampling_params": {"max_new_tokens": 2,
                                                                                     "temperature": 0}}),
    Probe("generate_logprob_n2", "POST", GEN, {"text": FRANCE, "return_logprob": True, "logprob_start_len": 3,
                                               "top_logprobs_num": 1, "sampling_params": {
                                                   "max_new_tokens": 2, "temperature": 0, "n": 2}}),
    Probe("generate_logprob_stream", "POST", GEN, {"text": FRANCE, "return_logprob": True, "logprob_start_len": 1,
                                                   "top_logprobs_num": 2, "token_ids_logprob": [30],
                                                   "return_text_in_logprobs": True, "stream": True,
                                                   "sampling_params": {"max_new_tokens": 4, "temperature": 0}},
          stream=True),
    Probe("generate_logprob_ids_prompt", "POST", GEN, {"input_ids": [504, 3575, 282], "return_logprob": True,
                                                       "logprob_start_len": 0, "return_text_in_logprobs": True,
                                                       "sampling_params": {"max_new_tokens": 2, "temperature": 0}}),
    Probe("generate_logprob_flat_input", "POST", GEN, {"text": FRANCE, "return_logprob": True, "logprob_start_len": 2,
                                                       "top_logprobs_num": 2, "return_flat_raw_top_logprobs": True,
                                                       "sampling_params": {"max_new_tokens": 2, "temperature": 0}}),
    Probe("generate_logprob_flat_no_input", "POST", GEN, {"text": FRANCE, "return_logprob": True,
                                                          "top_logprobs_num": 2, "return_flat_raw_top_logprobs": True,
                                                          "sampling_params": {"max_new_tokens": 2,
                                                                              "temperature": 0}}),
    Probe("generate_logprob_flat_b64_both", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "logprob_start_len": 3, "top_logprobs_num": 2,
        "return_flat_raw_top_logprobs": True, "return_flat_raw_output_top_logprobs": True,
        "return_flat_raw_top_logprobs_b64": True, "sampling_params": {"max_new_tokens": 2, "temperature": 0}}),
    Probe("generate_logprob_flat_input_stream", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "logprob_start_len": 1, "top_logprobs_num": 1,
        "return_flat_raw_top_logprobs": True, "stream": True,
        "sampling_params": {"max_new_tokens": 3, "temperature": 0}}, stream=True),
    Probe("err_generate_flat_output_stream", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "top_logprobs_num": 2, "return_flat_raw_output_top_logprobs": True,
        "stream": True, "sampling_params": {"max_new_tokens": 2}}, stream=True, message=True),
    Probe("err_generate_flat_b64_alone", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "top_logprobs_num": 2, "return_flat_raw_top_logprobs_b64": True,
        "sampling_params": {"max_new_tokens": 2}}, message=True),
    # SGLang's scheduler aborts it (a value below -1 kills 0.5.23's scheduler: never probed)
    Probe("err_generate_logprob_start_beyond_prompt", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "logprob_start_len": 6,
        "sampling_params": {"max_new_tokens": 2, "temperature": 0}}, message=True),
    Probe("err_generate_logprob_start_beyond_prompt_stream", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "logprob_start_len": 6, "stream": True,
        "sampling_params": {"max_new_tokens": 2, "temperature": 0}}, stream=True, message=True),
    Probe("err_generate_token_ids_logprob_out_of_vocab", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "token_ids_logprob": [10**7],
        "sampling_params": {"max_new_tokens": 2}}, message=True, abstract=NUMBERS),
    Probe("err_generate_return_logprob_string", "POST", GEN, {
        "text": FRANCE, "return_logprob": "yes", "sampling_params": {"max_new_tokens": 2}}, message=True),
    Probe("err_generate_logprob_start_len_string", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "logprob_start_len": "0", "sampling_params": {"max_new_tokens": 2}},
        message=True),
    Probe("err_generate_return_text_in_logprobs_int", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "return_text_in_logprobs": 1, "sampling_params": {
            "max_new_tokens": 2}}, message=True),
    Probe("err_generate_top_logprobs_num_float", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "top_logprobs_num": 1.5, "sampling_params": {"max_new_tokens": 2}},
        message=True),
    Probe("err_generate_top_logprobs_num_list_string", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "top_logprobs_num": [1, "2"], "sampling_params": {
            "max_new_tokens": 2}}, message=True),
    Probe("err_generate_token_ids_logprob_not_list", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "token_ids_logprob": 5, "sampling_params": {"max_new_tokens": 2}},
        message=True),
    Probe("err_generate_token_ids_logprob_nested", "POST", GEN, {
        "text": FRANCE, "return_logprob": True, "token_ids_logprob": [[1]], "sampling_params": {"max_new_tokens": 2}},
        message=True),
    Probe("err_generate_logprob_fields_with_sampling_params", "POST", GEN, {
        "text": FRANCE, "return_logprob": "abc", "return_text_in_logprobs": None, "sampling_params": "x"},
        message=True),
    Probe("completions_echo_logprobs", "POST", "/v1/completions", {"model": M, "prompt": FRANCE, "max_tokens": 2,
                                                                  "temperature": 0, "echo": True, "logprobs": 2}),
    Probe("completions_echo_logprobs_zero", "POST", "/v1/completions", {
        "model": M, "prompt": FRANCE, "max_tokens": 2, "temperature": 0, "echo": True, "logprobs": 0}),
    # one token: the real server splits a longer answer into a varying number of chunks, and a chunk kind's shape is
    # that of its last chunk (the prompt's nulls are in the first only)
    Probe("completions_echo_logprobs_stream", "POST", "/v1/completions", {
        "model": M, "prompt": FRANCE, "max_tokens": 1, "temperature": 0, "echo": True, "logprobs": 1,
        "stream": True}, stream=True),
    Probe("completions_echo_logprobs_stream_n2", "POST", "/v1/completions", {
        "model": M, "prompt": [FRANCE, "Hello there"], "max_tokens": 1, "temperature": 0, "echo": True, "logprobs": 2,
        "n": 2, "stream": True}, stream=True),
    Probe("completions_echo_logprobs_batch_n2", "POST", "/v1/completions", {
        "model": M, "prompt": [FRANCE, "Hello there"], "max_tokens": 2, "temperature": 0, "echo": True,
        "logprobs": 1, "n": 2}),
    Probe("completions_logprobs_zero", "POST", "/v1/completions", {"model": M, "prompt": "Hello", "max_tokens": 2,
                                                                  "logprobs": 0}),
    Probe("regex", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "regex": "(yes|no)[.!]"}),
    Probe("stop_regex", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "stop_regex": "[a-z]"}),
    Probe("stop_regex_stream", "POST", CHAT, {"model": M, "messages": HI, "max_tokens": 12, "stop_regex": "[a-z]",
                                              "stream": True}, stream=True),
    Probe("err_unknown_role", "POST", CHAT, {"model": M, "messages": [{"role": "wizard", "content": "hi"}],
                                             "max_tokens": 4}, message=True),
    Probe("err_text_plain", "POST", CHAT, raw=b'{"messages": [{"role": "user", "content": "hi"}]}',
          headers={"Content-Type": "text/plain"}, message=True),
    Probe("err_model_colon", "POST", CHAT, {"model": "a:b", "messages": HI, "max_tokens": 4}, message=True),
    # a list of prompts (GenerateReqInput's batch): a list back, prompt-major with n; streamed, each output
    # tagged with its index (a list of one too)
    # (one-token prompts: a longer one sharing a first token with an earlier probe's hits the real radix tree, and
    # the twin matches /generate text prompts whole)
    Probe("generate_batch", "POST", GEN, {"text": ["Hello", "Hi"], "sampling_params": {"max_new_tokens": 3}}),
    Probe("generate_batch_of_one", "POST", GEN, {"text": ["Hello"], "sampling_params": {"max_new_tokens": 2}}),
    Probe("generate_batch_empty", "POST", GEN, {"text": [], "sampling_params": {"max_new_tokens": 2}}),
    Probe("generate_batch_ids_rid", "POST", GEN, {"input_ids": [[11, 12, 13], [14, 15]], "rid": "batch",
                                                  "sampling_params": {"max_new_tokens": 2}}),
    Probe("generate_batch_params_list", "POST", GEN, {"text": ["Hello", "Hi"], "rid": ["r-a", "r-b"],
                                                      "return_logprob": [True, False], "sampling_params": [
                                                          {"max_new_tokens": 2}, {"max_new_tokens": 3}]}),
    Probe("generate_batch_n2", "POST", GEN, {"text": ["Hello", "Hi"], "sampling_params": {"max_new_tokens": 2,
                                                                                            "n": 2}}),
    Probe("generate_batch_stream", "POST", GEN, {"text": ["Hello", "Hi"], "stream": True,
                                                 "sampling_params": {"max_new_tokens": 1}}, stream=True),
    Probe("generate_batch_of_one_stream", "POST", GEN, {"text": ["Hello"], "stream": True,
                                                        "sampling_params": {"max_new_tokens": 1}}, stream=True),
    Probe("err_generate_batch_n_differs", "POST", GEN, {"text": ["Hello", "Hi"], "sampling_params": [
        {"max_new_tokens": 2, "n": 2}, {"max_new_tokens": 2}]}, message=True),
    Probe("err_generate_batch_list_logprob_n2", "POST", GEN, {"text": ["Hello", "Hi"], "return_logprob": [True, False],
                                                              "sampling_params": {"max_new_tokens": 2, "n": 2}},
          message=True),
    Probe("err_generate_batch_duplicate_rids", "POST", GEN, {"text": ["Hello", "Hi", "Hey"], "rid": ["x", "y", "x"],
                                                             "sampling_params": {"max_new_tokens": 2}}, message=True),
    Probe("err_generate_batch_params_contract", "POST", GEN, {"text": ["Hello", "Hi"], "sampling_params": [
        {"max_new_tokens": 2}, {"max_new_tokens": "2"}]}, message=True),
    Probe("err_generate_batch_ids_item", "POST", GEN, {"input_ids": [[1, 2], 3]}, message=True),
    Probe("err_generate_batch_text_item", "POST", GEN, {"text": ["Hello", 5]}, message=True),
    Probe("err_generate_ids_bool", "POST", GEN, {"input_ids": [1, True]}, message=True),
    Probe("err_generate_ids_bool_first", "POST", GEN, {"input_ids": [True, 1]}, message=True),
    Probe("err_generate_ids_float", "POST", GEN, {"input_ids": [[1, 2.5]]}, message=True),
    Probe("err_generate_n2_list_logprob", "POST", GEN, {"text": "Hello", "return_logprob": [True],
                                                        "sampling_params": {"max_new_tokens": 2, "n": 2}},
          message=True),
    Probe("generate_batch_empty_stream", "POST", GEN, {"text": [], "stream": True}, stream=True),
    Probe("err_generate_batch_rids", "POST", GEN, {"text": ["Hello", "Hi"], "rid": ["only-one"],
                                                   "sampling_params": {"max_new_tokens": 2}}, message=True),
    *VALIDATION_PROBES,
    # after the traffic: some of SGLang's metric families appear only once a request has been served
    Probe("server_info", "GET", "/server_info"),
    Probe("model_info", "GET", "/model_info"),
    Probe("metrics", "GET", "/metrics"),
]


def _greedy(p: Probe) -> Probe:
    """A generating probe that names no temperature runs greedy: sampled, the real model now and then ends inside
    the probe's few tokens (matched_stop the EOS id instead of null: role_case_insensitive and json_object each
    failed a CI or lane run so, and chat_stream changed shape in 1 of 25 repeats); greedy, its answer is the same
    every run. Error probes are left as written (a temperature could change which check answers)."""
    if p.message or not isinstance(p.body, dict) or p.method != "POST":
        return p
    body = dict(p.body)
    if p.path == GEN:
        sp = body.get("sampling_params")
        if isinstance(sp, dict) and "temperature" not in sp:
            body["sampling_params"] = {**sp, "temperature": 0}
        elif isinstance(sp, list):  # a batch's per-prompt parameters
            body["sampling_params"] = [x if "temperature" in x else {**x, "temperature": 0} for x in sp]
    elif "temperature" not in body:
        body["temperature"] = 0
    return replace(p, body=body)


PROBES = [_greedy(p) for p in PROBES]


def _token_map(v) -> bool:
    """A legacy completions `top_logprobs` entry: {token text: logprob} (its keys are generated text)."""
    return isinstance(v, dict) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v.values())


def shape(v, key: str | None = None):
    """The structure of a JSON value: dicts keep their keys, lists the union of their items' shapes, scalars
    their type name. A completions `top_logprobs` map keeps only its kind (its keys are tokens of text); the null
    entry of an echoed prompt's first token stays a null."""
    if key == "top_logprobs" and isinstance(v, list) and any(_token_map(x) for x in v) \
            and all(x is None or _token_map(x) for x in v):
        return ['"null"|dict' if None in v else "dict", {"<token>": "number"}]
    if isinstance(v, dict):
        return {k: shape(x, k) for k, x in v.items()}
    if isinstance(v, list):
        merged: dict = {}
        kinds = set()
        for x in v:
            s = shape(x)
            if isinstance(s, dict):
                merged.update(s)
                kinds.add("dict")
            else:
                kinds.add(json.dumps(s, sort_keys=True))
        return ["dict" if not kinds - {"dict"} and merged else "|".join(sorted(kinds)), merged]
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    return type(v).__name__


def shape_diff(a, b, path: str = "$") -> list[str]:
    """Differences between two shapes (a = real, b = twin), as stable strings."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) - set(b)):
            out.append(f"{path}.{k}: only real")
        for k in sorted(set(b) - set(a)):
            out.append(f"{path}.{k}: only twin")
        for k in sorted(set(a) & set(b)):
            out += shape_diff(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        return shape_diff(a[1], b[1], path + "[]") + ([] if a[0] == b[0] or not (a[0] and b[0])
                                                     else [f"{path}[]: items real={a[0]} twin={b[0]}"])
    if a != b:
        ta = "dict" if isinstance(a, dict) else "list" if isinstance(a, list) else a
        tb = "dict" if isinstance(b, dict) else "list" if isinstance(b, list) else b
        return [f"{path}: type real={ta} twin={tb}"]
    return []


def chunk_kind(ev: dict) -> str:
    """An OpenAI chat chunk's kind: role / content / finish / usage (several may hold; joined)."""
    kinds = []
    for c in ev.get("choices") or []:
        d = c.get("delta") or {}
        if d.get("role"):
            kinds.append("role")
        if d.get("content"):
            kinds.append("content")
        if c.get("finish_reason"):
            kinds.append("finish")
    if ev.get("usage") and not ev.get("choices"):
        kinds.append("usage")
    return "+".join(kinds) or "empty"


def collapse(seq: list[str]) -> list[str]:
    """Runs of the same kind collapsed to one (the number of content chunks is not compared)."""
    out: list[str] = []
    for s in seq:
        if not out or out[-1] != s:
            out.append(s)
    return out


def metric_families(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^# TYPE (\S+) ", text, re.MULTILINE)}


@dataclass
class Answer:
    status: int
    content_type: str
    body: object  # JSON, or text
    events: list | None = None  # SSE payloads (JSON or "[DONE]")
    model: str = ""  # the served model name the probe was sent with (error messages may echo it)


def send(client: httpx.Client, base: str, model: str, p: Probe) -> Answer:
    body = json.loads(json.dumps(p.body).replace(json.dumps(M), json.dumps(model))) if p.body is not None else None
    kw = {"headers": p.headers}
    if p.raw is not None:
        kw["content"] = p.raw
    elif body is not None:
        kw["json"] = body
    r = client.request(p.method, base + p.path, **kw)
    ct = r.headers.get("content-type", "").split(";")[0]
    if p.stream and r.status_code == 200:
        events = []
        for block in r.text.split("\n\n"):
            if block.startswith("data: "):
                data = block[len("data: "):]
                events.append(data if data.strip() == "[DONE]" else json.loads(data))
        return Answer(r.status_code, ct, None, events, model)
    try:
        parsed = r.json()
    except ValueError:
        parsed = r.text
    return Answer(r.status_code, ct, parsed, model=model)


def compare(p: Probe, real: Answer, twin: Answer) -> list[str]:
    """Every difference between the two answers, each as `probe: what`."""
    out = []
    if real.status != twin.status:
        out.append(f"status real={real.status} twin={twin.status}")
        return [f"{p.name}: {d}" for d in out]
    if real.content_type != twin.content_type:
        out.append(f"content-type real={real.content_type} twin={twin.content_type}")
    if p.name == "metrics":
        fr, ft = metric_families(real.body), metric_families(twin.body)
        out += [f"family {f}: only real" for f in sorted(fr - ft)]
        out += [f"family {f}: only twin" for f in sorted(ft - fr)]
    elif p.name in ("server_info", "model_info"):
        kr, kt = set(real.body), set(twin.body)
        out += [f"key {k}: only real" for k in sorted(kr - kt)]
        out += [f"key {k}: only twin" for k in sorted(kt - kr)]
    elif real.events is not None:
        done_r = [e for e in real.events if e == "[DONE]"]
        done_t = [e for e in twin.events if e == "[DONE]"]
        er = [e for e in real.events if e != "[DONE]"]
        et = [e for e in twin.events if e != "[DONE]"]
        if (real.events[-1:] == ["[DONE]"]) != (twin.events[-1:] == ["[DONE]"]) or len(done_r) != len(done_t):
            out.append("[DONE] terminator differs")
        if "choices" in (er[0] if er else {}):
            kr, kt = collapse([chunk_kind(e) for e in er]), collapse([chunk_kind(e) for e in et])
            if kr != kt:
                out.append(f"event kinds real={kr} twin={kt}")
            by_r: dict = {}
            by_t: dict = {}
            for e in er:
                by_r.setdefault(chunk_kind(e), []).append(e)
            for e in et:
                by_t.setdefault(chunk_kind(e), []).append(e)
            for k in sorted(set(by_r) & set(by_t)):
                out += [f"chunk[{k}] {d}" for d in shape_diff(shape(by_r[k]), shape(by_t[k]))]
        else:
            out += [f"event {d}" for d in shape_diff(shape(er), shape(et))]
            if p.message:  # a stream refused after its headers: the error events' messages
                mr = [_normalized(_message(e), p, real.model) for e in er if isinstance(e, dict) and "error" in e]
                mt = [_normalized(_message(e), p, twin.model) for e in et if isinstance(e, dict) and "error" in e]
                if mr != mt:
                    out.append("error event message differs")
    else:
        out += [f"body {d}" for d in shape_diff(shape(real.body), shape(twin.body))]
        if p.message and real.status >= 400:
            mr = _normalized(_message(real.body), p, real.model)
            mt = _normalized(_message(twin.body), p, twin.model)
            if mr != mt:
                out.append("message differs")
    return [f"{p.name}: {d}" for d in out]


#: FastAPI names the handler's source file in a validation error; each server's sglang sits elsewhere
_HANDLER_FILE = re.compile(r'File "[^"]*/site-packages/')


def _normalized(message: str, p: Probe, model: str = "") -> str:
    """A message with what differs by design blanked: the handler's site-packages, the served model's name (an
    echoed body holds it), the probe's `abstract` patterns."""
    message = _HANDLER_FILE.sub('File "<site-packages>/', message)
    if model:
        message = message.replace(model, M)
    for pattern in p.abstract:
        message = re.sub(pattern, "", message)
    return message


def _message(b) -> str:
    if isinstance(b, dict):
        if isinstance(b.get("message"), str):
            return b["message"]
        if isinstance(b.get("error"), dict):
            return str(b["error"].get("message"))
        if "detail" in b:
            return json.dumps(b["detail"], sort_keys=True)
    return str(b)


def observe(pair: tuple[str, str], probes: list[Probe],
            extra: Callable[[Probe, Answer, Answer], list[str]] | None = None) -> dict[str, list[str]]:
    """Each probe sent to both servers of `pair` (real, twin) and compared: {probe name: differences}. Each probe on
    fresh connections, so one probe's transport trouble (a reset seen once under load on the shared real server)
    cannot turn every later probe into an error; keep-alive reuse after malformed bodies (known 4) has its own test.
    `extra` adds differences of its own for a probe."""
    real, twin = pair
    out = {}
    with httpx.Client(timeout=120) as c:
        mr = c.get(real + "/v1/models").json()["data"][0]["id"]
        mt = c.get(twin + "/v1/models").json()["data"][0]["id"]
    for p in probes:
        try:
            with httpx.Client(timeout=300) as c:
                got_real = send(c, real, mr, p)
            with httpx.Client(timeout=300) as c:
                got_twin = send(c, twin, mt, p)
        except httpx.HTTPError as e:
            raise AssertionError(f"probe {p.name}: {type(e).__name__}: {e}") from e
        out[p.name] = compare(p, got_real, got_twin) + (extra(p, got_real, got_twin) if extra else [])
    return out
