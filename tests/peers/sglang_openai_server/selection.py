"""Which of SGLang's OpenAI-server tests run against the twin, and why each of the others does not.

Ids are `FILE::CLASS::METHOD` (FILE relative to SGLang's test/srt/openai_server/); an exclusion may name a whole
class (`FILE::CLASS`) or a whole file (`FILE`). tests/peers/test_sglang_openai_server.py checks that every test
method of every materialized file is selected or excluded (never both), that every excluded id still exists in
the pinned files (or, for files not materialized, in the pinned directory listing, MANIFEST.json), and that the
excluded ones carry a reason. Plain Python data: imported by the console's pytest and by runner.py (the real
env's interpreter) alike.

Reasons fall in six kinds, named at the start of each reason:
- `not-chat`: the test is about something other than serving a chat/completions model (embeddings, rerank,
  LoRA, vision, a reasoning-parser model, unit tests of SGLang's Python classes with no server).
- `model-bound`: the assertion is a property of one specific model (its EOS id, what an 8B model writes),
  which neither SmolLM2-135M (the real lane's model) nor the twin's Kimi-K2.6 has.
- `real-env`: the real CPU environment cannot run it (a module SGLang imports for it is not in the env and would
  need a download), so there is no passing real baseline to hold the twin to.
- `not-in-0.5.23`: the file is from a later SGLang and tests a feature 0.5.23 does not have (the pinned files are
  the newest the source index holds; MANIFEST.json's version_note).
- `upstream-bug`: the pinned version of the test fails on a correct server by its own logic (shown on the real one).
- `no-op`: the method cannot fail as unittest runs it (an `async def` on a plain TestCase returns an un-awaited
  coroutine and counts as passed); named so that nobody reads it as covered.
A twin gap is never a reason: a selected test the twin fails stays selected and fails.
"""

from __future__ import annotations

#: where the files sit under a SGLang checkout (and under the cache dir scripts/peers/get_sglang_tests.py fills)
SOURCE_DIR = "test/srt/openai_server"

SELECTED: tuple[str, ...] = (
    "basic/test_openai_server.py::TestOpenAIServer::test_completion",
    "basic/test_openai_server.py::TestOpenAIServer::test_completion_stream",
    "basic/test_openai_server.py::TestOpenAIServer::test_chat_completion",
    "basic/test_openai_server.py::TestOpenAIServer::test_chat_completion_stream",
    "basic/test_openai_server.py::TestOpenAIServer::test_regex",
    "basic/test_openai_server.py::TestOpenAIServer::test_penalty",
    "basic/test_openai_server.py::TestOpenAIServer::test_model_list",
    "basic/test_openai_server.py::TestOpenAIServer::test_retrieve_model",
    "basic/test_openai_server.py::TestOpenAIV1Score::test_score_text_input",
    "basic/test_openai_server.py::TestOpenAIV1Score::test_score_token_input",
    "basic/test_openai_server.py::TestOpenAIV1Score::test_score_error_handling",
    "validation/test_request_length_validation.py::TestRequestLengthValidation::"
    "test_input_length_longer_than_context_length",
    "validation/test_request_length_validation.py::TestRequestLengthValidation::"
    "test_input_length_longer_than_maximum_allowed_length",
    "validation/test_openai_server_ignore_eos.py::TestOpenAIServerIgnoreEOS::test_ignore_eos",
    "validation/test_matched_stop.py::TestMatchedStop::test_finish_stop_str",
    "validation/test_matched_stop.py::TestMatchedStop::test_finish_stop_regex_str",
    "validation/test_matched_stop.py::TestMatchedStop::test_finish_length",
    "features/test_json_mode.py::TestJSONModeXGrammar::test_json_mode_response",
    "features/test_json_mode.py::TestJSONModeXGrammar::test_json_mode_with_streaming",
    "features/test_cache_report.py::TestCacheReport::test_generate",
    "features/test_cache_report.py::TestCacheReport::test_cache_split_prefill_openai",
    "features/test_cache_report.py::TestCacheReport::test_cache_report_openai",
    "features/test_continuous_usage_stats.py::TestContinuousUsageStats::test_continuous_usage_stats_enabled",
    "features/test_continuous_usage_stats.py::TestContinuousUsageStats::test_continuous_usage_stats_disabled",
    "features/test_continuous_usage_stats.py::TestContinuousUsageStats::test_async_runner",
    "features/test_json_constrained.py::TestJSONConstrained::test_json_generate",
    "features/test_json_constrained.py::TestJSONConstrained::test_json_invalid",
    "features/test_json_constrained.py::TestJSONConstrained::test_json_openai",
    "features/test_json_constrained.py::TestJSONConstrained::test_mix_json_and_other",
    "features/test_openai_server_ebnf.py::TestOpenAIServerEBNF::test_ebnf",
    "features/test_openai_server_ebnf.py::TestOpenAIServerEBNF::test_ebnf_strict_json",
    "features/test_structural_tag.py::TestStructuralTagXGrammarBackend::test_stag_constant_str_openai",
    "features/test_structural_tag.py::TestStructuralTagXGrammarBackend::test_stag_json_schema_openai",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabled::test_completion",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabled::test_completion_stream",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabled::test_chat_completion",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabled::"
    "test_chat_completion_stream",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabledAndCUDAGraphDisabled::"
    "test_completion",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabledAndCUDAGraphDisabled::"
    "test_completion_stream",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabledAndCUDAGraphDisabled::"
    "test_chat_completion",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithHiddenStatesEnabledAndCUDAGraphDisabled::"
    "test_chat_completion_stream",
    "validation/test_large_max_new_tokens.py::TestLargeMaxNewTokens::test_chat_completion",
)

_SMOL_JSON = ("model-bound: the real server constrains correctly, but SmolLM2-135M under this schema writes "
              "'\"population\": 1111…' until max_tokens=128 cuts the JSON (JSONDecodeError at char 152-172, seen on "
              "the real CPU server 2026-12-01): what a 135M model writes, not the server. Kimi-K2.6 on the twin "
              "writes a short integer, as an instruction-following model does")

#: selected methods run against the twin only: a real CPU server with SmolLM2 cannot pass them for a reason of the
#: model (each reason says which), so their real baseline is the server's behaviour seen in the reason, not a pass
TWIN_ONLY: dict[str, str] = {
    "features/test_json_constrained.py::TestJSONConstrained::test_json_generate": _SMOL_JSON,
    "features/test_json_constrained.py::TestJSONConstrained::test_json_openai": _SMOL_JSON,
    "features/test_json_constrained.py::TestJSONConstrained::test_mix_json_and_other": _SMOL_JSON,
    "features/test_structural_tag.py::TestStructuralTagXGrammarBackend::test_stag_json_schema_openai": _SMOL_JSON,
}

#: classes whose test measures concurrency in wall time: the twin serves them at its modelled speed (time scale 1),
#: not fast-forwarded like the rest (the shim adds `--sim-time-scale 1` to their launch)
TWIN_AT_MODELLED_SPEED: dict[str, str] = {
    "validation/test_large_max_new_tokens.py::TestLargeMaxNewTokens": (
        "wall-clock: sends 4 requests from a thread pool, then polls the server log every 5 s, with no deadline, for "
        "a decode line with all 4 running. Fast-forwarded 20x, a ~270-token answer lasts ~0.1 s of wall time; on a "
        "loaded 2-core machine the 4 arrivals spread wider than that, no line ever shows 4, and the test never ends "
        "(it hung CI once, 2026-12-01; 1 run in 14 under load here). At the modelled speed each answer lasts "
        "seconds, as on the node, and the 4 overlap"),
}

_PREFILL = ("model-bound: asserts that the model, handed a product description and a prefilled '{', writes "
            "'\"name\": \"SmartHome Mini\",' next (and names meta-llama/Llama-3.1-8B-Instruct in the request): a "
            "check of an 8B model's extraction skill, not of the server")
_UNIT = "not-chat: a unit test of SGLang's Python classes (no server, no HTTP): nothing to point at a base URL"
_TOOLS = ("not-chat: tool calling pins a tool-calling model and its parser (llama3 / qwen25 / pythonic / "
          "json-array formats); SmolLM2-135M has no tool-call format, so the real server has no passing baseline")

EXCLUDED: dict[str, str] = {
    "basic/test_openai_server.py::TestOpenAIServer::test_response_prefill": _PREFILL,
    "basic/test_openai_server.py::TestOpenAIServerv1Responses":
        "real-env: the real server disables /v1/responses at start-up ('OpenAIServingResponses init failed "
        "(ModuleNotFoundError: No module named 'openai_harmony')') and answers 500; openai_harmony also fetches "
        "its vocabulary on first use, which the no-network rule forbids",
    "basic/test_openai_server.py::TestOpenAIV1Rerank":
        "not-chat: a cross-encoder served with --is-embedding (cross-encoder/ms-marco-MiniLM-L6-v2), /v1/rerank",
    "basic/test_openai_server.py::TestOpenAIServerCustomLogitProcessor":
        "not-chat: runs client-sent pickled Python over the logits (--enable-custom-logit-processor); and at the "
        "pinned commit the file never imports CustomLogitProcessor, so both methods raise NameError on any server "
        "(checked: the name is bound nowhere in the module)",
    "validation/test_matched_stop.py::TestMatchedStop::test_finish_stop_eos":
        "model-bound: asserts matched_stop == 128009 (Llama-3's <|eot_id|>) after a raw Llama-3 chat-markup "
        "prompt; SmolLM2's EOS is 2 and Kimi-K2.6's is another id",
    "validation/test_matched_stop.py::TestRegexPatternMaxLength": _UNIT,
    "validation/test_request_length_validation.py::TestRequestLengthValidation::test_max_tokens_validation":
        "not-in-0.5.23: expects the later wording 'Requested token count exceeds the model's maximum context'; "
        "the real 0.5.23 server answers max_tokens=1200 at --context-length 1000 with 400 'max_completion_tokens "
        "is too large: 1200.This model supports at most 1000 completion tokens.' (so does the twin)",
    "features/test_cache_report.py::TestCacheReport::test_cache_salt_effectiveness":
        "upstream-bug: its last assertion contradicts its own message ('Should have cache hit with same "
        "cache_salt for salt2' asserts second == first cached_tokens); the real server hits (salt2: 0 then 36 "
        "of 37 prompt tokens, as for salt1) and fails it. The cached_tokens == prompt_tokens - 1 rule it also "
        "checks stays covered by test_cache_split_prefill_openai and test_cache_report_openai",
    "validation/test_request_body_validation.py":
        "not-in-0.5.23: launches with --max-payload-size 1024, a flag SGLang 0.5.23 does not have (no "
        "max_payload_size in its server_args.py or http_server.py): the real 0.5.23 server exits 2 on it, "
        "'unrecognized arguments'",
    "features/test_json_mode.py::TestJSONModeOutlines":
        "real-env: --grammar-backend outlines is not installed in the real env (sglang installs it only as an "
        "extra), so the real server cannot start; the same two requests run under TestJSONModeXGrammar",
    "features/test_json_mode.py::TestJSONModeLLGuidance":
        "real-env: --grammar-backend llguidance is not installed in the real env; the same two requests run "
        "under TestJSONModeXGrammar",
    "features/test_continuous_usage_stats.py::TestContinuousUsageStats::test_continuous_usage_stats_async":
        "no-op: an async def on a unittest.TestCase: unittest calls it, gets an un-awaited coroutine and counts a "
        "pass on any server; test_async_runner runs the same coroutine under asyncio.run and is selected",
    "features/test_json_constrained.py::TestJSONConstrainedOutlinesBackend":
        "real-env: --grammar-backend outlines is not installed in the real env; the same four requests run under "
        "TestJSONConstrained (xgrammar)",
    "features/test_json_constrained.py::TestJSONConstrainedLLGuidanceBackend":
        "real-env: --grammar-backend llguidance is not installed in the real env; the same four requests run under "
        "TestJSONConstrained (xgrammar)",
    "features/test_openai_server_hidden_states.py::BaseTestOpenAIServerWithHiddenStates":
        "no-op: a mixin (an ABC, not a TestCase): unittest never runs it on its own; its four methods run through "
        "the two selected subclasses",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithEAGLEAndHiddenStatesEnabled":
        "real-env: EAGLE speculative decoding with a Llama-2 draft pair: speculative decoding does not run on the "
        "CPU server (the draft's KV pool needs a GPU triton kernel), so there is no real baseline; the same "
        "requests without speculation run under TestOpenAIServerWithHiddenStatesEnabled",
    "features/test_openai_server_hidden_states.py::TestOpenAIServerWithEAGLE3AndHiddenStatesEnabled":
        "real-env: EAGLE-3 speculative decoding of Llama-3.1-8B (and a draft fetched from a hub): not on the CPU "
        "server; the same requests without speculation run under TestOpenAIServerWithHiddenStatesEnabled",
    "basic/test_openai_embedding.py": "not-chat: an embedding model (/v1/embeddings, --is-embedding)",
    "basic/test_serving_embedding.py": _UNIT,
    "basic/test_protocol.py": _UNIT,
    "basic/test_serving_chat.py": _UNIT,
    "basic/test_serving_completions.py": _UNIT,
    "basic/test_utils.py": _UNIT,
    "features/test_enable_thinking.py":
        "not-chat: a reasoning model (Qwen3) with --reasoning-parser; needs its thinking template",
    "features/test_reasoning_content.py": "not-chat: a reasoning model (DeepSeek-R1 distill) with --reasoning-parser",
    "features/test_usage_tokens.py":
        "not-chat: reasoning-token usage of a reasoning model named by $DEEPSEEK_R1_DISTILL_QWEN_7B",
    "features/test_lora_openai_compatible.py": "not-chat: LoRA adapters (--enable-lora, model:adapter names)",
    "function_call/test_openai_function_calling.py": _TOOLS,
    "function_call/test_tool_choice.py": _TOOLS,
    "function_call/test_parallel_tool_calls.py": _TOOLS,
    "function_call/test_json_array_parser_integration.py": _TOOLS,
    "function_call/test_responses_function_calling.py": _TOOLS,
    "function_call/test_openai_function_calling_grpc_router.py":
        "not-chat: the gRPC router (sgl-model-gateway), not the HTTP server",
    "function_call/test_tool_choice_grpc_router.py": "not-chat: the gRPC router (sgl-model-gateway)",
}
